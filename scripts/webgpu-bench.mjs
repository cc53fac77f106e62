#!/usr/bin/env node
// The WebGPU bench in one command, for a machine with a GPU and a Vulkan driver: WebGPU (Dawn, the
// engine inside Chromium, from the `webgpu` npm package, fetched into runs/ on first use so that
// installs and CI never download it) against WASM, for the demo model and a Qwen2.5-0.5B shape
// model, each in a process of its own (src/bench/webgpu_node.ts). Prints one JSON object: the
// speed rows at the 0.5B shape on a hardware adapter (decoding at batch 1 and 12, the default run's
// step and WASM's step shape on both, batch 1 against the weights' floor) beside WASM's, the demo
// model's, what the page's `auto` chooses for each, then the counts (what decoding a token asks of
// WebGPU: programs per layer and besides, submits, bytes read back, objects made after warm-up).
// Each process gets what is left of a budget (--budget-s, 330 s), so the whole stays within 6 min.
//   npm run bench:webgpu [-- --shape qwen2.5-0.5b --threads 4]
//   npm run bench:webgpu -- --counts      the counts alone (any adapter; minutes on a software one)
//   npm run bench:webgpu -- --bundle DIR  all of it as a folder that runs with nothing installed
//                                         (scripts/webgpu-bundle.mjs; DIR/run.sh runs it)
// Without a GPU, Chromium's SwiftShader gives the counts:
//   VK_ICD_FILENAMES=/usr/lib/chromium/vk_swiftshader_icd.json npm run bench:webgpu -- --counts
// Inside the bundle this file runs as suite.mjs; run.sh names the bundled files in WEBGPU_BENCH_*.
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { availableParallelism, cpus } from 'node:os';
import { relaxedSimdFlags } from './relaxed-simd.mjs';

const option = (name, fallback) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1] : fallback;
};

if (option('bundle')) {
  const { buildBundle } = await import('./webgpu-bundle.mjs');
  process.stdout.write(`${JSON.stringify(await buildBundle(option('bundle')))}\n`);
  process.exit(0);
}

const bundled = process.env.WEBGPU_BENCH_CHILD;
const dawn = process.env.WEBGPU_NODE_MODULE ?? (await import('./webgpu-bundle.mjs')).ensureDawn();
const demo = process.env.WEBGPU_BENCH_DEMO ?? 'demo';
const wasmDir = process.env.WEBGPU_BENCH_WASM;

// SwiftShader's Vulkan driver ships with Chromium, and its loader beside it where the system has
// none (the bundle brings its own loader)
const env = { ...process.env };
const icd = env.VK_ICD_FILENAMES ?? '';
if (
  !bundled &&
  icd.startsWith('/usr/lib/chromium/') &&
  !existsSync('/usr/lib/x86_64-linux-gnu/libvulkan.so.1')
)
  env.LD_LIBRARY_PATH = ['/usr/lib/chromium', env.LD_LIBRARY_PATH].filter(Boolean).join(':');

const started = performance.now();
// the counts alone are not held to it: at the 0.5B widths they take minutes on a software adapter
const budgetS = option('budget-s', process.argv.includes('--counts') ? '3600' : '330');
const deadline = started + Number(budgetS) * 1000;
const flags = relaxedSimdFlags();
const child = bundled ? [bundled] : ['--import', 'tsx', 'src/bench/webgpu_node.ts'];
const common = ['--dawn', dawn, ...(wasmDir ? ['--wasm-dir', wasmDir] : [])];

/** The last line of `text` that is a JSON object, or null. */
function lastJson(text) {
  for (const line of text.trim().split('\n').reverse()) {
    try {
      return JSON.parse(line);
    } catch {}
  }
  return null;
}

/**
 * One process of webgpu_node.ts; its last JSON line on stdout, with the seconds it took. `share`
 * is the part of what is left of the budget that its steps may use; a minute past that it is
 * stopped (a step cannot be cut short), keeping the figures it printed before.
 */
function run(args, share = 1) {
  const left = deadline - performance.now();
  if (left <= 1000) return { args, error: 'not run: the budget was spent' };
  const budget = ['--budget-s', String(Math.round((left * share) / 1000))];
  const begun = performance.now();
  const result = spawnSync(process.execPath, [...flags, ...child, ...common, ...budget, ...args], {
    stdio: ['ignore', 'pipe', 'inherit'],
    maxBuffer: 1 << 24,
    env,
    timeout: Math.round(Math.min(left, left * share + 60_000)),
  });
  const seconds = Math.round((performance.now() - begun) / 100) / 10;
  const stopped = result.signal && { stopped: `by ${result.signal}, past its budget` };
  const json = lastJson(result.stdout.toString());
  if (json) return { ...json, seconds, ...stopped };
  const why = stopped ? stopped.stopped : `exit ${result.status}`;
  return { args, seconds, error: `no result (${why})` };
}

const shape = option('shape', 'qwen2.5-0.5b');
const threads = ['--threads', option('threads', '4')];
const countsRun = () => run(['--counts', '--shape', shape]);
if (process.argv.includes('--counts')) {
  const counts = countsRun();
  process.stdout.write(`${JSON.stringify(counts)}\n`);
  process.exit(counts.error ? 1 : 0);
}

// The default run's shape (G 6 x 3 prompts, 3 turns of 128 tokens) on WebGPU; WASM's 0.5B step at
// that shape takes ~20 minutes on 2 cores, so WASM's step is the small one unless asked
// (--wasm-default-step), and WebGPU also runs that shape, for a like-for-like ratio.
const small = JSON.stringify({ groupSize: 4, promptsPerStep: 1, maxTurns: 1, maxNewTokens: 32 });
const wasmStep = process.argv.includes('--wasm-default-step') ? '{}' : small;
const model05b = ['--shape', shape];
const modelDemo = ['--model', demo];
// in order of what a lent GPU is for; the counts, known from a software adapter, come last
const results = {};
const batches05b = ['--batches', '1,12', ...threads];
results.webgpu_05b = run(
  [
    '--backend',
    'webgpu',
    ...model05b,
    ...batches05b,
    '--steps',
    '2',
    '--compare-overrides',
    wasmStep,
  ],
  0.4,
);
results.wasm_05b = run(
  ['--backend', 'wasm', ...model05b, ...batches05b, '--steps', '1', '--overrides', wasmStep],
  0.4,
);
results.auto_05b = run(['--auto', ...model05b, ...threads]);
const batchesDemo = ['--batches', '1,8', '--steps', '2', ...threads];
results.webgpu_demo = run(['--backend', 'webgpu', ...modelDemo, ...batchesDemo], 0.2);
results.wasm_demo = run(['--backend', 'wasm', ...modelDemo, ...batchesDemo], 0.2);
results.auto_demo = run(['--auto', ...modelDemo, ...threads]);
const counts = countsRun();

const lastStep = (steps) => steps?.at(-1)?.seconds ?? null;
const ratio = (a, b) => (a && b ? a / b : null);
const adapter = results.webgpu_05b.adapter ?? results.auto_05b.adapter ?? null;
const software = /swiftshader|llvmpipe|lavapipe/i.test(
  `${adapter?.vendor ?? ''} ${adapter?.architecture ?? ''} ${adapter?.description ?? ''}`,
);
const webgpuSmallStep = lastStep(results.webgpu_05b.compare_steps);
const wasmSmallStep = lastStep(results.wasm_05b.steps);
const info = process.env.WEBGPU_BENCH_INFO;
process.stdout.write(
  `${JSON.stringify({
    webgpu_adapter: adapter,
    host: { cpu: cpus()[0]?.model ?? null, cores: availableParallelism(), node: process.version },
    bundle: info && existsSync(info) ? JSON.parse(readFileSync(info, 'utf8')) : null,
    // a software adapter's speed says nothing of a GPU's: its rows are left out
    ...(!software && {
      webgpu_05b_decode_b1_tok_s: results.webgpu_05b.decode_tok_s?.b1 ?? null,
      webgpu_05b_decode_b12_tok_s: results.webgpu_05b.decode_tok_s?.b12 ?? null,
      webgpu_05b_step_s: lastStep(results.webgpu_05b.steps),
      webgpu_05b_small_step_s: webgpuSmallStep,
      webgpu_05b_decode_b1_floor_ratio: results.webgpu_05b.decode_b1_floor_ratio ?? null,
      webgpu_copy_bandwidth_gbs: results.webgpu_05b.copy_bandwidth_gbs ?? null,
      webgpu_demo_decode_b1_tok_s: results.webgpu_demo.decode_tok_s?.b1 ?? null,
      webgpu_demo_step_s: lastStep(results.webgpu_demo.steps),
      // WASM's step (one, so its warm-up included) over WebGPU's at the same shape
      step_05b_wasm_over_webgpu: ratio(wasmSmallStep, webgpuSmallStep),
    }),
    wasm_05b_decode_b1_tok_s: results.wasm_05b.decode_tok_s?.b1 ?? null,
    wasm_05b_decode_b12_tok_s: results.wasm_05b.decode_tok_s?.b12 ?? null,
    wasm_05b_step_s: wasmSmallStep,
    wasm_05b_step_shape: results.wasm_05b.step_shape ?? null,
    wasm_demo_decode_b1_tok_s: results.wasm_demo.decode_tok_s?.b1 ?? null,
    wasm_demo_step_s: lastStep(results.wasm_demo.steps),
    auto_05b: results.auto_05b.auto_chosen ?? null,
    auto_demo: results.auto_demo.auto_chosen ?? null,
    ...Object.fromEntries(Object.entries(counts).filter(([key]) => key.startsWith('webgpu_'))),
    counts_error: counts.error ?? null,
    seconds: Math.round((performance.now() - started) / 100) / 10,
    webgpu_bench: { ...results, counts },
  })}\n`,
);
