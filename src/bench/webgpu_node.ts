// One backend and one model of the WebGPU bench (scripts/webgpu-bench.mjs), in a process of its
// own: Node has no WebGPU, so on `--backend webgpu` the `webgpu` package (Dawn, the engine inside
// Chromium, as a Node addon) supplies navigator.gpu on whatever Vulkan adapter the machine has.
// Measures batch-1 and batch-N decoding and GRPO steps of a run's shape, and prints one JSON line.
// The sandbox is a stub that answers every program at once: its cost is the same on both
// backends, and this bench is about the model's work. esbuild bundles this file into one for the
// self-contained bench (scripts/webgpu-bundle.mjs), so it reads nothing beside itself but what its
// options name.
//   node scripts/webgpu-bench.mjs                      (both backends, the demo and a 0.5B shape)
//   tsx src/bench/webgpu_node.ts --backend wasm --model demo [--overrides JSON] [--steps 2]
//     [--compare-overrides JSON]   first steps of another shape (WASM's), on the same policy
//     [--budget-s S]               no step is started that would end past S seconds
//   tsx src/bench/webgpu_node.ts --auto --model demo   the page's `auto`: its probe and its choice
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
/// <reference types="@webgpu/types" />
import * as tf from '@tensorflow/tfjs';
import { setWasmPaths } from '@tensorflow/tfjs-backend-wasm';
import { selectBackend, webgpuAdapter } from '../kernels/backend.ts';
import type { CausalLM } from '../model/model.ts';
import { generate } from '../model/sample.ts';
import { presetConfig } from '../run/presets.ts';
import { createTrainer, loadPolicy } from '../service/session.ts';
import { writeShapeModel } from '../cli/shape_model_command.ts';
import { nodeModelSource } from '../cli/node_run.ts';
import type { ExecResult } from '../env/types.ts';
import { autoBackend } from '../service/backend_auto.ts';
import type { Trainer } from '../training/trainer.ts';

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

/** `--model NAME` ('demo' or a folder), or `--shape PRESET`'s model, written on first use. */
async function benchModel(): Promise<string> {
  const shape = option('shape');
  if (!shape) return option('model') ?? 'demo';
  const dir = option('dir') ?? join('runs', 'shape-models', shape);
  if (!existsSync(join(dir, 'model.safetensors'))) {
    log(`writing the ${shape} shape model into ${dir}`);
    await writeShapeModel({ preset: shape, dir });
  }
  return dir;
}

/**
 * `--auto`: what the page's `auto` chooses for the default run of this model, by its own probe
 * (backend_probe.ts), with nothing remembered. The page probes WebGPU in a worker of its own;
 * here both probes run on this thread, one after the other, as in Node's tests.
 */
async function auto(threads: number): Promise<Record<string, unknown>> {
  await installDawn();
  const model = await benchModel();
  const config = presetConfig('default', { model, evalEvery: 0 });
  const report = await autoBackend(
    { selectBackend: (force) => selectBackend({ force, threads }), webgpuAdapter },
    nodeModelSource(model).source,
    config,
    {},
  );
  return {
    auto_chosen: report.probe?.chosen ?? report.name,
    running: report.name,
    adapter: report.adapter,
    probe_ms: report.probe?.milliseconds ?? null,
    timings: report.probe?.timings ?? [],
    skipped: report.skipped,
  };
}

/**
 * Runs up to `count` steps: the first always, another only if one as long as the last would end
 * by `deadline`. Their times and phases.
 */
async function timeSteps(trainer: Trainer, count: number, label: string, deadline: number) {
  const steps: { seconds: number; phases: Record<string, number>; tensors: number }[] = [];
  for (let step = 0; step < count; step++) {
    const last = steps.at(-1)?.seconds ?? 0;
    if (step > 0 && performance.now() + last * 1000 > deadline) {
      log(`${label}: step ${step + 1} skipped, past the budget`);
      break;
    }
    const phases: Record<string, number> = {};
    const started = performance.now();
    let mark = started;
    await trainer.runStep((report) => {
      const now = performance.now();
      phases[report.phase] = Math.round(now - mark) / 1000;
      mark = now;
    });
    const seconds = (performance.now() - started) / 1000;
    steps.push({ seconds, phases, tensors: tf.memory().numTensors });
    log(`${label} step ${step + 1}: ${seconds.toFixed(2)} s ${JSON.stringify(phases)}`);
  }
  return steps;
}

/** What a bench run has measured so far: printed with its error if a later stage throws. */
const figures: Record<string, unknown> = {};

async function main(): Promise<void> {
  const wasmDir = option('wasm-dir');
  if (wasmDir) setWasmPaths(wasmDir.endsWith('/') ? wasmDir : `${wasmDir}/`);
  const threads = Number(option('threads') ?? 4);
  if (process.argv.includes('--counts')) {
    await installDawn();
    await selectBackend({ force: 'webgpu' });
    process.stdout.write(`${JSON.stringify(await counts())}\n`);
    return;
  }
  if (process.argv.includes('--auto')) {
    process.stdout.write(`${JSON.stringify(await auto(threads))}\n`);
    return;
  }
  const deadline = performance.now() + Number(option('budget-s') ?? 1e6) * 1000;
  const backend = (option('backend') ?? 'wasm') as 'webgpu' | 'wasm';
  const shape = option('shape');
  const modelName = await benchModel();
  if (backend === 'webgpu') await installDawn();
  const info = await selectBackend({ force: backend, threads });
  const overrides = JSON.parse(option('overrides') ?? '{}') as Record<string, unknown>;
  const config = presetConfig('default', { model: modelName, evalEvery: 0, ...overrides });
  const { source, origin } = nodeModelSource(modelName);
  const started = performance.now();
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
  const shapeOf = (c: typeof config) => ({
    groupSize: c.groupSize,
    promptsPerStep: c.promptsPerStep,
    maxTurns: c.maxTurns,
    maxNewTokens: c.maxNewTokens,
  });
  const result = figures;
  Object.assign(result, {
    backend,
    adapter: info.adapter,
    threads: info.threads,
    model: shape ?? modelName,
    parameters: policy.info.parameters,
    load_s: loadSeconds,
    decode_tok_s: decode,
    step_shape: shapeOf(config),
    ...(gpu && {
      copy_bandwidth_gbs: gpu.bandwidth / 1e9,
      weight_bytes_per_token: gpu.weightBytes,
      // the time the weights' bytes take at the copy bandwidth, over a batch-1 token's time
      decode_b1_floor_ratio:
        decode.b1 === undefined ? null : (gpu.weightBytes / gpu.bandwidth) * decode.b1,
    }),
  });
  // each stage's figures as they come: a run stopped at its budget keeps the ones before
  const emit = () => process.stdout.write(`${JSON.stringify(result)}\n`);
  emit();
  const stepCount = Number(option('steps') ?? 2);
  // WASM's step shape first (short), on the same policy, for a like-for-like ratio
  const compareOverrides = option('compare-overrides');
  if (compareOverrides) {
    const compareConfig = { ...config, ...(JSON.parse(compareOverrides) as object) };
    const compare = createTrainer(policy, stubExecutor, compareConfig);
    result.compare_shape = shapeOf(compareConfig);
    result.compare_steps = await timeSteps(compare, stepCount, `${backend} (compare)`, deadline);
    compare.dispose();
    emit();
  }
  if (performance.now() < deadline) {
    const trainer = createTrainer(policy, stubExecutor, config);
    result.steps = await timeSteps(trainer, stepCount, backend, deadline);
    trainer.dispose();
  }
  policy.dispose();
  emit();
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    const stack = (error as Error).stack ?? String(error);
    process.stdout.write(`${JSON.stringify({ ...figures, error: stack })}\n`);
    process.exit(1);
  },
);
