// Test harness page for test/e2e/webgpu.test.ts: loads a fixture model on a forced backend and
// returns its logits, so the test can compare WebGPU (Chromium's software adapter) with WASM.
import * as tf from '@tensorflow/tfjs';
import { selectBackend, type BackendName } from '../../../src/kernels/backend.ts';
import { fusedMultiplyAddActive, simdMatMulActive } from '../../../src/kernels/matmul/kernels.ts';
import { matMul2d } from '../../../src/kernels/matmul/dispatch.ts';
import { decoderForward, outputLogits } from '../../../src/model/decoder.ts';
import { maskBias } from '../../../src/model/kv_cache.ts';
import { CausalLM } from '../../../src/model/model.ts';
import { tokenLogprobs } from '../../../src/model/logprobs.ts';
import { generate } from '../../../src/model/sample.ts';
import { urlSource } from '../../../src/model_files/url_source.ts';
import { parseModelConfig } from '../../../src/model_files/hf_config.ts';
import { randomWeights } from '../../../src/model/random_weights.ts';
import { isSplit, setBufferLimitBytes } from '../../../src/model/vocab_split.ts';

/**
 * A Qwen2 shape with a wide vocabulary and few layers: its (256, 151936) float32 embedding is
 * 155 MB, past the 128 MiB one WebGPU buffer may bind by default.
 */
const wideVocab = parseModelConfig({
  model_type: 'qwen2',
  vocab_size: 151936,
  hidden_size: 256,
  intermediate_size: 512,
  num_hidden_layers: 2,
  num_attention_heads: 4,
  num_key_value_heads: 2,
  max_position_embeddings: 512,
  tie_word_embeddings: true,
});

/** A Float32Array's bytes as base64: logits rows of 151936 numbers cross to the test compactly. */
function base64(data: Float32Array): string {
  const bytes = new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
  let text = '';
  for (let i = 0; i < bytes.length; i += 0x8000)
    text += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(text);
}

const harness = {
  /** Logits of every position, token log-probs at a temperature, and 8 greedy tokens, on `backend`. */
  async run(backend: BackendName, model: string, ids: number[]) {
    const info = await selectBackend({
      force: backend,
      wasmPaths: new URL('./tfjs-wasm', location.href).href,
    });
    const lm = await CausalLM.load(urlSource(new URL(`./models/${model}/`, location.href).href));
    // Every position's logits, read asynchronously (WebGPU's synchronous readback fails on the
    // software adapter, so the product never uses it).
    const rows = tf.tidy(() =>
      outputLogits(
        lm.params,
        decoderForward(
          lm,
          {
            ids: Int32Array.from(ids),
            batch: 1,
            time: ids.length,
            positions: ids.map((_, t) => t),
            maskBias: maskBias(1, ids.length, ids.length, (_b, i, j) => j <= i),
          },
          lm.forwardMode(false),
        ),
      ),
    );
    const logits = (await rows.array()) as number[][];
    rows.dispose();
    const lp = tokenLogprobs(lm, [ids], { temperature: 0.7 });
    const logprobs = Array.from(await lp.data());
    lp.dispose();
    const greedy = await generate(lm, [ids.slice(0, 3)], {
      maxNewTokens: 8,
      temperature: 0,
      eosIds: [],
    });
    lm.dispose();
    // A linear layer's product with enough rows for the relaxed-SIMD kernel (wasm), against tf.matMul.
    const fma = tf.tidy(() => {
      const a = tf.sin(tf.range(0, 128 * 64).reshape([128, 64])) as tf.Tensor2D;
      const b = tf.cos(tf.range(0, 64 * 96).reshape([64, 96])) as tf.Tensor2D;
      return {
        active: fusedMultiplyAddActive(),
        maxDiff: tf.max(tf.abs(tf.sub(matMul2d(a, b), tf.matMul(a, b)))).dataSync()[0]!,
      };
    });
    // Whether attention ran on our WebAssembly SIMD kernel (wasm only) rather than tf.matMul.
    return {
      backend: tf.getBackend(),
      simd: simdMatMulActive(),
      fma,
      adapter: info.adapter,
      logits,
      logprobs,
      greedy: greedy.ids[0],
    };
  },

  /**
   * Three sequences sharing their first `prefix` tokens, scored with the prefix run once
   * (tokenLogprobs sharedPrefix) and whole, on `backend` (full-parameter mode): the largest
   * difference of the log-probs past the prefix, the largest entry on the prefix's columns, and the
   * largest difference of the gradients of a weighted sum of those log-probs, relative to each
   * gradient's largest entry.
   */
  async shared(backend: BackendName, model: string, ids: number[], prefix: number) {
    await selectBackend({ force: backend, wasmPaths: new URL('./tfjs-wasm', location.href).href });
    const lm = await CausalLM.load(urlSource(new URL(`./models/${model}/`, location.href).href), {
      training: { kind: 'full' },
    });
    const sequences = [
      ids,
      [...ids.slice(0, prefix), ...ids.slice(prefix).reverse()],
      ids.slice(0, prefix + 2),
    ];
    const T = ids.length - 1;
    const weights = tf.tensor2d(
      Array.from({ length: 3 * T }, (_, i) => (i % T < prefix ? 0 : Math.sin(i))),
      [3, T],
    );
    const list = [...lm.trainableVariables().values()];
    const score = async (sharedPrefix: number) => {
      const { value, grads } = tf.variableGrads(
        () =>
          tf.sum(
            tf.mul(tokenLogprobs(lm, sequences, { temperature: 0.7, sharedPrefix }), weights),
          ) as tf.Scalar,
        list,
      );
      const lp = tokenLogprobs(lm, sequences, { temperature: 0.7, sharedPrefix });
      const out = {
        logprobs: (await lp.array()) as number[][],
        grads: await Promise.all(list.map(async (v) => Array.from(await grads[v.name]!.data()))),
      };
      [value, lp, ...Object.values(grads)].forEach((t) => t.dispose());
      return out;
    };
    const [shared, whole] = [await score(prefix), await score(0)];
    weights.dispose();
    lm.dispose();
    let logprobDiff = 0;
    let prefixMax = 0;
    shared.logprobs.forEach((row, b) =>
      row.forEach((v, t) => {
        if (t < prefix) prefixMax = Math.max(prefixMax, Math.abs(v));
        else logprobDiff = Math.max(logprobDiff, Math.abs(v - whole.logprobs[b]![t]!));
      }),
    );
    const gradDiff = Math.max(
      ...shared.grads.map((g, i) => {
        const scale = Math.max(...whole.grads[i]!.map(Math.abs), 1e-12);
        return Math.max(...g.map((v, j) => Math.abs(v - whole.grads[i]![j]!))) / scale;
      }),
    );
    return { backend: tf.getBackend(), logprobDiff, prefixMax, gradDiff };
  },
};

/**
 * The wide-vocabulary shape model (random weights, no files) at the default buffer limit on
 * `backend`: every position's logits (base64 float32), token log-probs, 4 greedy tokens, the
 * embedding's chunk widths, the largest variable, and on WebGPU the largest GPU buffer the backend
 * created (device.createBuffer, watched from before the load) and the device's binding limit. On
 * wasm, with `whole`, the same logits from the model loaded unsplit.
 */
async function vocabSplit(backend: BackendName, ids: number[], whole: boolean) {
  await selectBackend({ force: backend, wasmPaths: new URL('./tfjs-wasm', location.href).href });
  let largestBuffer = 0;
  let bindingLimit: number | null = null;
  if (backend === 'webgpu') {
    const device = (tf.backend() as unknown as { device: GPUDevice }).device;
    bindingLimit = device.limits.maxStorageBufferBindingSize;
    const create = device.createBuffer.bind(device);
    device.createBuffer = (descriptor: GPUBufferDescriptor) => {
      largestBuffer = Math.max(largestBuffer, descriptor.size);
      return create(descriptor);
    };
  }
  const drawn = randomWeights(wideVocab, 3);
  const kept = new Map<string, Float32Array>();
  const source = {
    ...drawn,
    float32: (name: string) => kept.get(name) ?? kept.set(name, drawn.float32(name)).get(name)!,
  };
  const logitsOf = async (lm: CausalLM) => {
    const rows = tf.tidy(() =>
      outputLogits(
        lm.params,
        decoderForward(
          lm,
          {
            ids: Int32Array.from(ids),
            batch: 1,
            time: ids.length,
            positions: ids.map((_, t) => t),
            maskBias: maskBias(1, ids.length, ids.length, (_b, i, j) => j <= i),
          },
          lm.forwardMode(false),
        ),
      ),
    );
    const data = (await rows.data()) as Float32Array;
    rows.dispose();
    return base64(data);
  };
  const lm = CausalLM.fromWeights(wideVocab, source);
  const embedding = lm.params.embedding;
  const chunkWidths = isSplit(embedding) ? embedding.chunks.map((c) => c.shape[1]!) : [];
  const largestVariable = Math.max(
    ...Object.values(tf.engine().registeredVariables).map((v) => v.size * 4),
  );
  const logits = await logitsOf(lm);
  const lp = tokenLogprobs(lm, [ids], { temperature: 0.7 });
  const logprobs = Array.from(await lp.data());
  lp.dispose();
  const greedy = await generate(lm, [ids.slice(0, 3)], {
    maxNewTokens: 4,
    temperature: 0,
    eosIds: [],
  });
  lm.dispose();
  let wholeLogits: string | null = null;
  if (whole) {
    setBufferLimitBytes(Number.POSITIVE_INFINITY);
    const unsplit = CausalLM.fromWeights(wideVocab, source);
    setBufferLimitBytes(null);
    wholeLogits = await logitsOf(unsplit);
    unsplit.dispose();
  }
  return {
    backend: tf.getBackend(),
    chunkWidths,
    largestVariable,
    largestBuffer,
    bindingLimit,
    logits,
    logprobs,
    greedy: greedy.ids[0],
    wholeLogits,
  };
}

(window as unknown as { vocabSplit: typeof vocabSplit }).vocabSplit = vocabSplit;
(window as unknown as { webgpuHarness: typeof harness }).webgpuHarness = harness;
document.getElementById('state')!.textContent = 'ready';
