// Gradient checkpointing (src/model/recompute.ts): with each layer recomputed in the backward pass,
// the loss and every gradient are the plain forward's bit for bit (LoRA and full fine-tuning, with
// and without a shared prefix, grouped-query attention, q/k/v biases, Qwen3's head norms, 16-bit
// frozen weights where the backend keeps them), no tensor is left behind,
// and the peak memory of a forward and backward pass is lower where layers are many.
import * as tf from '@tensorflow/tfjs';
import { beforeAll, describe, expect, it } from 'vitest';
import { parseModelConfig, type ModelConfig } from '../../src/model_files/hf_config.ts';
import { tokenLogprobs } from '../../src/model/logprobs.ts';
import { LORA_TARGETS } from '../../src/model/lora_targets.ts';
import { CausalLM, type TrainingMode } from '../../src/model/model.ts';
import { randomWeights, sixteenBitWeights } from '../../src/model/random_weights.ts';
import { resident16Active } from '../../src/kernels/matmul/weights16.ts';
import { useBackend } from '../helpers/models.ts';

const shapes = (layers: number, family = 'qwen2') =>
  parseModelConfig({
    model_type: family,
    vocab_size: 300,
    hidden_size: 128,
    intermediate_size: 256,
    num_hidden_layers: layers,
    num_attention_heads: 4,
    num_key_value_heads: 2,
    ...(family === 'qwen3' ? { head_dim: 48 } : {}), // Qwen3's own head width (else 128)
    max_position_embeddings: 1024,
  });
const lora: TrainingMode = {
  kind: 'lora',
  lora: { rank: 8, alpha: 16, dropout: 0, targetModules: [...LORA_TARGETS], seed: 1 },
};

/** A shared prompt and three continuations of different lengths (one a token past the prompt). */
function batch(prompt: number, lengths: number[]): number[][] {
  const shared = Array.from({ length: prompt }, (_, t) => (t * 7 + 5) % 300);
  return lengths.map((n, b) => [
    ...shared,
    ...Array.from({ length: n }, (_, t) => (t * (11 + b) + 3 * b) % 300),
  ]);
}

function model(config: ModelConfig, training: TrainingMode, half = false): CausalLM {
  const weights = randomWeights(config, 3);
  const m = CausalLM.fromWeights(
    config,
    half ? sixteenBitWeights(weights, 'BF16') : weights,
    training,
  );
  // LoRA's B starts at 0; random adapters so they act
  if (training.kind === 'lora')
    [...m.trainableVariables().values()].forEach((v, i) =>
      v.assign(tf.randomNormal(v.shape, 0, 0.05, 'float32', i)),
    );
  return m;
}

/** Loss (log-probs weighed differently at every position) and its gradients. */
function lossAndGrads(
  m: CausalLM,
  sequences: number[][],
  sharedPrefix: number,
  recompute: boolean,
): { loss: number; grads: Float32Array[] } {
  const list = [...m.trainableVariables().values()];
  const T = Math.max(...sequences.map((s) => s.length)) - 1;
  return tf.tidy(() => {
    const weights = tf.tensor2d(
      Array.from({ length: sequences.length * T }, (_, i) => Math.sin(i * 0.37)),
      [sequences.length, T],
    );
    const { value, grads } = tf.variableGrads(() => {
      const options = { temperature: 0.7, sharedPrefix, recompute };
      return tf.sum(tf.mul(tokenLogprobs(m, sequences, options), weights)) as tf.Scalar;
    }, list);
    return {
      loss: value.dataSync()[0]!,
      grads: list.map((v) => grads[v.name]!.dataSync() as Float32Array),
    };
  });
}

describe('recomputed layers', () => {
  beforeAll(() => useBackend('wasm'));

  it.each([
    ['LoRA Qwen2', 0, lora, 'qwen2', false],
    ['LoRA Qwen2', 39, lora, 'qwen2', false],
    ['full Qwen2', 0, { kind: 'full' } as TrainingMode, 'qwen2', false],
    ['full Qwen2', 39, { kind: 'full' } as TrainingMode, 'qwen2', false],
    ['LoRA Llama (the one-op LoRA path)', 39, lora, 'llama', false],
    ['full Qwen3 (q/k head norms)', 39, { kind: 'full' } as TrainingMode, 'qwen3', false],
    ['LoRA Qwen2 over 16-bit frozen weights', 39, lora, 'qwen2', true],
  ] as const)(
    '%s, shared prefix %i: the loss and every gradient bit for bit, no tensor left',
    (_name, prefix, training, family, half) => {
      if (half && !resident16Active()) return; // 16-bit weights stay in float32 on this backend
      const config = shapes(3, family);
      const m = model(config, training, half);
      const sequences = batch(40, [25, 1, 50]);
      const plain = lossAndGrads(m, sequences, prefix, false);
      const tensors = tf.memory().numTensors;
      const recomputed = lossAndGrads(m, sequences, prefix, true);
      expect(tf.memory().numTensors).toBe(tensors);
      lossAndGrads(m, sequences, prefix, true);
      expect(tf.memory().numTensors).toBe(tensors); // steady over repeated steps
      expect(recomputed.loss).toBe(plain.loss);
      expect(recomputed.grads.length).toBe(plain.grads.length);
      recomputed.grads.forEach((grad, i) => {
        expect(plain.grads[i]!.some((v) => v !== 0)).toBe(true);
        expect(firstDifference(grad, plain.grads[i]!)).toBe(-1);
      });
      m.dispose();
    },
  );

  it('lowers the peak of the wasm heap and of tf.profile over a forward and backward pass, at 6 layers and ~480 rows', async () => {
    const m = model(shapes(6), lora);
    const sequences = batch(150, [100, 60, 110]);
    const list = [...m.trainableVariables().values()];
    const pass = (recompute: boolean) => {
      const { value, grads } = tf.variableGrads(
        () =>
          tf.sum(
            tokenLogprobs(m, sequences, { temperature: 1, sharedPrefix: 149, recompute }),
          ) as tf.Scalar,
        list,
      );
      value.dispose();
      Object.values(grads).forEach((g) => g.dispose());
    };
    const peaks = async (recompute: boolean) => {
      const before = tf.memory().numBytes;
      const heap = heapPeak(() => pass(recompute));
      const profile = await tf.profile(() => pass(recompute));
      return { heap, profile: profile.peakBytes - before };
    };
    await peaks(false); // lasting tables (RoPE's) made once
    const plain = await peaks(false);
    const recomputed = await peaks(true);
    const mb = (bytes: number) => (bytes / 2 ** 20).toFixed(1);
    console.log(
      `peak: heap ${mb(plain.heap)} MB plain, ${mb(recomputed.heap)} MB recomputed; tf.profile ${mb(plain.profile)} MB, ${mb(recomputed.profile)} MB`,
    );
    expect(recomputed.heap).toBeLessThan(0.4 * plain.heap); // measured: 133.8 MB -> 28.1 MB
    expect(recomputed.profile).toBeLessThan(0.4 * plain.profile); // 227.6 MB -> 46.8 MB
    m.dispose();
  });
});

/** Index of the first float whose bits differ (-1: none; lengths must match). */
function firstDifference(a: Float32Array, b: Float32Array): number {
  if (a.length !== b.length) return 0;
  const [x, y] = [
    new Uint32Array(a.buffer, a.byteOffset, a.length),
    new Uint32Array(b.buffer, b.byteOffset, b.length),
  ];
  return x.findIndex((bits, i) => bits !== y[i]);
}

/**
 * Most bytes the wasm backend's allocator held at once during `f`, beyond what it held before: the
 * tensors' real buffers, each once (tf.profile's peakBytes counts a buffer again for every tensor
 * that shares it: reshapes, the clones a gradient saves).
 */
function heapPeak(f: () => void): number {
  const wasm = (tf.backend() as unknown as { wasm: Allocator }).wasm;
  const { _malloc: malloc, _free: free } = wasm;
  const sizes = new Map<number, number>();
  let [live, peak] = [0, 0];
  wasm._malloc = (bytes) => {
    const at = malloc(bytes);
    sizes.set(at >>> 0, bytes);
    live += bytes;
    peak = Math.max(peak, live);
    return at;
  };
  wasm._free = (at) => {
    live -= sizes.get(at >>> 0) ?? 0;
    sizes.delete(at >>> 0);
    free(at);
  };
  try {
    f();
  } finally {
    [wasm._malloc, wasm._free] = [malloc, free];
  }
  return peak;
}

interface Allocator {
  _malloc(bytes: number): number;
  _free(at: number): void;
}
