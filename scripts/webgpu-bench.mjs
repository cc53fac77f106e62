#!/usr/bin/env node
// The WebGPU bench in one command, for a machine with a GPU and a Vulkan driver: WebGPU (Dawn, the
// engine inside Chromium, from the `webgpu` npm package, fetched into runs/ on first use so that
// installs and CI never download it) against WASM, for the demo model and a Qwen2.5-0.5B shape
// model, each in a process of its own (src/bench/webgpu_node.ts). Prints one JSON object: the
// counts (what decoding a token asks of WebGPU: programs per layer and besides, submits, bytes read
// back, objects made after warm-up), then, on a hardware adapter, the speed rows at the 0.5B shape
// (decoding at batch 1 and 12, the default run's step, batch 1 against the weights' floor) beside
// WASM's, and the demo model's.
//   npm run bench:webgpu [-- --shape qwen2.5-0.5b --threads 4]
//   npm run bench:webgpu -- --counts      the counts alone (any adapter; minutes on a software one)
// Without a GPU, Chromium's SwiftShader gives the counts:
//   VK_ICD_FILENAMES=/usr/lib/chromium/vk_swiftshader_icd.json npm run bench:webgpu -- --counts
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { relaxedSimdFlags } from './relaxed-simd.mjs';

const DAWN_PACKAGE = 'webgpu@0.6.2';
const dir = join('runs', 'webgpu-node');
const dawn = join(dir, 'package', 'index.js');
const option = (name, fallback) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1] : fallback;
};

if (!existsSync(dawn)) {
  mkdirSync(dir, { recursive: true });
  process.stderr.write(`fetching ${DAWN_PACKAGE} (Dawn for Node) into ${dir}\n`);
  const tarball = execFileSync('npm', ['pack', DAWN_PACKAGE, '--silent'], { cwd: dir })
    .toString()
    .trim();
  execFileSync('tar', ['xzf', tarball], { cwd: dir });
}

// SwiftShader's Vulkan driver ships with Chromium, and its loader beside it where the system has
// none
const env = { ...process.env };
const icd = env.VK_ICD_FILENAMES ?? '';
if (icd.startsWith('/usr/lib/chromium/') && !existsSync('/usr/lib/x86_64-linux-gnu/libvulkan.so.1'))
  env.LD_LIBRARY_PATH = ['/usr/lib/chromium', env.LD_LIBRARY_PATH].filter(Boolean).join(':');

/** One process of src/bench/webgpu_node.ts; its last stdout line is its JSON. */
function run(args) {
  const child = spawnSync(
    process.execPath,
    [...relaxedSimdFlags(), '--import', 'tsx', 'src/bench/webgpu_node.ts', '--dawn', dawn, ...args],
    { stdio: ['ignore', 'pipe', 'inherit'], maxBuffer: 1 << 24, env },
  );
  const line = child.stdout.toString().trim().split('\n').pop() ?? '';
  try {
    return JSON.parse(line);
  } catch {
    return { args, error: `no result (exit ${child.status}): ${line.slice(0, 300)}` };
  }
}

const shape = option('shape', 'qwen2.5-0.5b');
const threads = option('threads', '4');
const counts = run(['--counts', '--shape', shape]);
if (process.argv.includes('--counts')) {
  process.stdout.write(`${JSON.stringify(counts)}\n`);
  process.exit(counts.error ? 1 : 0);
}

// The default run's shape (G 6 x 3 prompts, 3 turns of 128 tokens) on WebGPU; WASM's 0.5B step at
// that shape takes ~20 minutes on 2 cores, so WASM's step is the small one unless asked
// (--wasm-default-step), and says which it is.
const small = JSON.stringify({ groupSize: 4, promptsPerStep: 1, maxTurns: 1, maxNewTokens: 32 });
const wasmStep = process.argv.includes('--wasm-default-step') ? '{}' : small;
const common = ['--threads', threads];
const results = {
  webgpu_05b: run([
    '--backend',
    'webgpu',
    '--shape',
    shape,
    '--batches',
    '1,12',
    '--steps',
    '2',
    ...common,
  ]),
  wasm_05b: run([
    '--backend',
    'wasm',
    '--shape',
    shape,
    '--batches',
    '1,12',
    '--steps',
    '1',
    '--overrides',
    wasmStep,
    ...common,
  ]),
  webgpu_demo: run([
    '--backend',
    'webgpu',
    '--model',
    'demo',
    '--batches',
    '1,8',
    '--steps',
    '2',
    ...common,
  ]),
  wasm_demo: run([
    '--backend',
    'wasm',
    '--model',
    'demo',
    '--batches',
    '1,8',
    '--steps',
    '2',
    ...common,
  ]),
};
const lastStep = (r) => r.steps?.at(-1)?.seconds ?? null;
const software = /swiftshader|llvmpipe|lavapipe/i.test(
  `${results.webgpu_05b.adapter?.vendor ?? ''} ${results.webgpu_05b.adapter?.architecture ?? ''}`,
);
process.stdout.write(
  `${JSON.stringify({
    ...counts,
    webgpu_adapter: results.webgpu_05b.adapter ?? null,
    // a software adapter's speed says nothing of a GPU's: its rows are left out
    ...(!software && {
      webgpu_05b_decode_b1_tok_s: results.webgpu_05b.decode_tok_s?.b1 ?? null,
      webgpu_05b_decode_b12_tok_s: results.webgpu_05b.decode_tok_s?.b12 ?? null,
      webgpu_05b_step_s: lastStep(results.webgpu_05b),
      webgpu_05b_decode_b1_floor_ratio: results.webgpu_05b.decode_b1_floor_ratio ?? null,
      webgpu_copy_bandwidth_gbs: results.webgpu_05b.copy_bandwidth_gbs ?? null,
      webgpu_demo_decode_b1_tok_s: results.webgpu_demo.decode_tok_s?.b1 ?? null,
      webgpu_demo_step_s: lastStep(results.webgpu_demo),
    }),
    wasm_05b_decode_b1_tok_s: results.wasm_05b.decode_tok_s?.b1 ?? null,
    wasm_05b_decode_b12_tok_s: results.wasm_05b.decode_tok_s?.b12 ?? null,
    wasm_05b_step_s: lastStep(results.wasm_05b),
    wasm_05b_step_shape: results.wasm_05b.step_shape ?? null,
    wasm_demo_decode_b1_tok_s: results.wasm_demo.decode_tok_s?.b1 ?? null,
    wasm_demo_step_s: lastStep(results.wasm_demo),
    webgpu_bench: results,
  })}\n`,
);
