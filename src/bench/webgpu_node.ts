// One backend and one model of the WebGPU bench (scripts/webgpu-bench.mjs), in a process of its
// own: Node has no WebGPU, so on `--backend webgpu` the `webgpu` package (Dawn, the engine inside
// Chromium, as a Node addon) supplies navigator.gpu on whatever Vulkan adapter the machine has.
// Measures batch-1 and batch-N decoding and GRPO steps of a run's shape, and prints one JSON line.
// The sandbox is a stub that answers every program at once: its cost is the same on both
// backends, and this bench is about the model's work.
//   node scripts/webgpu-bench.mjs                      (both backends, the demo and a 0.5B shape)
//   tsx src/bench/webgpu_node.ts --backend wasm --model demo [--overrides JSON] [--steps 2]
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
/// <reference types="@webgpu/types" />
import * as tf from '@tensorflow/tfjs';
import { setWasmPaths } from '@tensorflow/tfjs-backend-wasm';
import { selectBackend } from '../kernels/backend.ts';
import type { CausalLM } from '../model/model.ts';
import { generate } from '../model/sample.ts';
import { presetConfig } from '../run/presets.ts';
import { createTrainer, loadPolicy } from '../service/session.ts';
import { writeShapeModel } from '../cli/shape_model_command.ts';
import { nodeModelSource } from '../cli/node_run.ts';
import type { ExecResult } from '../env/types.ts';

const option = (name: string) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1] : undefined;
};
const log = (text: string) => process.stderr.write(`[webgpu-bench] ${text}\n`);

/** Puts Dawn's navigator.gpu on globalThis (Node 20 has no navigator; later ones lack gpu). */
async function installDawn(): Promise<string> {
  const module = option('dawn') ?? process.env.WEBGPU_NODE_MODULE;
  if (!module) throw new Error('--backend webgpu needs --dawn PATH (the webgpu package index.js)');
  const dawn = (await import(pathToFileURL(module).href)) as {
    create(flags: string[]): unknown;
    globals: Record<string, unknown>;
  };
  Object.assign(globalThis, dawn.globals);
  const gpu = dawn.create((option('dawn-flags') ?? '').split(',').filter(Boolean));
  Object.defineProperty(globalThis, 'navigator', {
    value: { ...(globalThis as { navigator?: object }).navigator, gpu },
    configurable: true,
  });
  return module;
}

/**
 * The batch-1 floor on this GPU: the 16-bit weight bytes a token reads (every layer's matrices
 * and the head), and the GPU's copy bandwidth (bytes read plus bytes written by copyBufferToBuffer
 * of 256 MB, the best of 5), measured in the same process.
 */
async function gpuFloor(model: CausalLM): Promise<{ weightBytes: number; bandwidth: number }> {
  const { activeWebGpu } = await import('../kernels/webgpu/gpu.ts');
  const { packed16Bytes } = await import('../kernels/webgpu/packed16.ts');
  const { halfWeights } = await import('../model/params.ts');
  const params = model.params;
  const tied = !params.lmHead;
  let weightBytes = 0;
  for (const weight of halfWeights(params)) {
    if (!weight.packed) continue;
    // the embedding's rows cost a token little; the head (the embedding when tied) reads it whole
    if (weight === params.embedding && !tied) continue;
    weightBytes += packed16Bytes(weight.packed);
  }
  const device = activeWebGpu()!.device;
  const size = 256 * 2 ** 20;
  const usage = GPUBufferUsage.COPY_SRC | GPUBufferUsage.COPY_DST;
  const [from, to] = [device.createBuffer({ size, usage }), device.createBuffer({ size, usage })];
  let best = Number.POSITIVE_INFINITY;
  for (let i = 0; i < 6; i++) {
    const t0 = performance.now();
    const encoder = device.createCommandEncoder();
    encoder.copyBufferToBuffer(from, 0, to, 0, size);
    device.queue.submit([encoder.finish()]);
    await device.queue.onSubmittedWorkDone();
    if (i > 0) best = Math.min(best, performance.now() - t0);
  }
  from.destroy();
  to.destroy();
  return { weightBytes, bandwidth: (2 * size) / (best / 1000) };
}

/** Every program "prints" nothing at once; judge is absent, so rewards take the output path. */
const stubExecutor = {
  async execute(): Promise<ExecResult> {
    return {
      observation: '',
      stdout: '',
      stderr: '',
      ok: true,
      error: null,
      timedOut: false,
      terminated: false,
      durationMs: 0,
      truncated: false,
    };
  },
};

/**
 * `--counts`: what decoding a token asks of WebGPU at a model's shape (default the 0.5B's widths),
 * with 2 and 4 layers: GPU programs per token against layers (slope and intercept), submits, bytes
 * read back a sequence, and objects created after a warm-up generation. Counts, not times: any
 * adapter, a software one included, gives them.
 */
async function counts(): Promise<Record<string, number>> {
  const preset = option('shape') ?? 'qwen2.5-0.5b';
  const { startGpuCensus } = await import('../kernels/webgpu/gpu_census.ts');
  const perToken: Record<number, { dispatches: number; submits: number; readback: number }> = {};
  let created = 0;
  const batch = 1;
  const [few, many] = [2, 4];
  for (const layers of [2, 4]) {
    const dir = join('runs', 'shape-models', `${preset}-${layers}-layers`);
    if (!existsSync(join(dir, 'model.safetensors'))) {
      log(`writing the ${preset} shape model with ${layers} layers into ${dir}`);
      await writeShapeModel({ preset, dir, layers });
    }
    const config = presetConfig('default', { model: dir, evalEvery: 0 });
    const { source, origin } = nodeModelSource(dir);
    const policy = await loadPolicy(source, config, origin);
    const prompts = Array.from({ length: batch }, (_, b) =>
      Array.from({ length: 12 }, (_, t) => (b * 31 + t * 7 + 11) % 1000),
    );
    const run = (tokens: number) =>
      generate(policy.model, prompts, {
        maxNewTokens: tokens,
        temperature: 0.7,
        seed: 3,
        eosIds: [],
      });
    await run(many); // warm-up: pipelines, buffers and bind groups for the longest run
    const census = startGpuCensus();
    const tally = async (tokens: number) => {
      census.reset();
      await run(tokens);
      return { ...census.tally };
    };
    const [short, long] = [await tally(few), await tally(many)];
    created += short.created + long.created;
    census.stop();
    const tokens = many - few;
    perToken[layers] = {
      dispatches: (long.dispatches - short.dispatches) / tokens,
      submits: (long.submits - short.submits) / tokens,
      readback: (long.readbackBytes - short.readbackBytes) / tokens / batch,
    };
    log(
      `${layers} layers: ${JSON.stringify(perToken[layers])}, created ${short.created + long.created}`,
    );
    policy.dispose();
  }
  const slope = (perToken[4]!.dispatches - perToken[2]!.dispatches) / 2;
  return {
    webgpu_dispatches_per_layer: slope,
    webgpu_dispatches_per_token_fixed: perToken[2]!.dispatches - 2 * slope,
    webgpu_submits_per_token: perToken[4]!.submits,
    webgpu_readback_bytes_per_token: perToken[4]!.readback,
    webgpu_objects_created_after_warmup: created,
  };
}

async function main(): Promise<void> {
  if (process.argv.includes('--counts')) {
    await installDawn();
    await selectBackend({ force: 'webgpu' });
    process.stdout.write(`${JSON.stringify(await counts())}\n`);
    return;
  }
  const backend = (option('backend') ?? 'wasm') as 'webgpu' | 'wasm';
  let modelName = option('model') ?? 'demo';
  const shape = option('shape');
  if (shape) {
    modelName = option('dir') ?? join('runs', 'shape-models', shape);
    if (!existsSync(join(modelName, 'model.safetensors'))) {
      log(`writing the ${shape} shape model into ${modelName}`);
      await writeShapeModel({ preset: shape, dir: modelName });
    }
  }
  if (backend === 'webgpu') await installDawn();
  const wasmDir = option('wasm-dir');
  if (wasmDir) setWasmPaths(wasmDir.endsWith('/') ? wasmDir : `${wasmDir}/`);
  const threads = Number(option('threads') ?? 4);
  const info = await selectBackend({ force: backend, threads });
  const overrides = JSON.parse(option('overrides') ?? '{}') as Record<string, unknown>;
  const config = presetConfig('default', { model: modelName, evalEvery: 0, ...overrides });
  const { source, origin } = nodeModelSource(modelName);
  let started = performance.now();
  const policy = await loadPolicy(source, config, origin);
  const loadSeconds = (performance.now() - started) / 1000;
  const model = policy.model;
  const batches = (option('batches') ?? '1,8').split(',').map(Number);
  const decodeTokens = Number(option('decode-tokens') ?? 32);
  const decode: Record<string, number> = {};
  for (const batch of batches) {
    const prompts = Array.from({ length: batch }, (_, b) =>
      Array.from({ length: 16 }, (_, t) => (b * 31 + t * 7 + 11) % 200),
    );
    const run = (tokens: number) =>
      generate(model, prompts, { maxNewTokens: tokens, temperature: 0.7, seed: 3, eosIds: [] });
    await run(4); // warm: shader compilation on WebGPU, JIT tiers on WASM
    let best = Number.POSITIVE_INFINITY;
    for (let pass = 0; pass < 2; pass++) {
      const t0 = performance.now();
      await run(decodeTokens + 1);
      const t1 = performance.now();
      await run(1); // a prompt's prefill and one token, taken off
      best = Math.min(best, t1 - t0 - (performance.now() - t1));
    }
    decode[`b${batch}`] = (decodeTokens * batch) / (best / 1000);
    log(`${backend} decode b${batch}: ${decode[`b${batch}`]!.toFixed(1)} tok/s`);
  }
  const gpu = backend === 'webgpu' ? await gpuFloor(model) : null;
  const trainer = createTrainer(policy, stubExecutor, config);
  const steps: { seconds: number; phases: Record<string, number>; tensors: number }[] = [];
  for (let step = 0; step < Number(option('steps') ?? 2); step++) {
    const phases: Record<string, number> = {};
    started = performance.now();
    let last = started;
    await trainer.runStep((report) => {
      const now = performance.now();
      phases[report.phase] = Math.round(now - last) / 1000;
      last = now;
    });
    const seconds = (performance.now() - started) / 1000;
    steps.push({ seconds, phases, tensors: tf.memory().numTensors });
    log(`${backend} step ${step + 1}: ${seconds.toFixed(2)} s ${JSON.stringify(phases)}`);
  }
  trainer.dispose();
  policy.dispose();
  const result = {
    backend,
    adapter: info.adapter,
    threads: info.threads,
    model: shape ?? modelName,
    parameters: policy.info.parameters,
    load_s: loadSeconds,
    decode_tok_s: decode,
    step_shape: {
      groupSize: config.groupSize,
      promptsPerStep: config.promptsPerStep,
      maxTurns: config.maxTurns,
      maxNewTokens: config.maxNewTokens,
    },
    steps,
    ...(gpu && {
      copy_bandwidth_gbs: gpu.bandwidth / 1e9,
      weight_bytes_per_token: gpu.weightBytes,
      // the time the weights' bytes take at the copy bandwidth, over a batch-1 token's time
      decode_b1_floor_ratio:
        decode.b1 === undefined ? null : (gpu.weightBytes / gpu.bandwidth) * decode.b1,
    }),
  };
  process.stdout.write(`${JSON.stringify(result)}\n`);
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    process.stdout.write(`${JSON.stringify({ error: (error as Error).stack ?? String(error) })}\n`);
    process.exit(1);
  },
);
