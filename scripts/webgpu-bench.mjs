#!/usr/bin/env node
// The WebGPU bench in one command, for a machine with a GPU and a Vulkan driver: WebGPU (Dawn, the
// engine inside Chromium, from the `webgpu` npm package, fetched into runs/ on first use so that
// installs and CI never download it) against WASM, for the demo model and a Qwen2.5-0.5B shape
// model, each in a process of its own (src/bench/webgpu_node.ts). Prints one JSON object.
//   npm run bench:webgpu [-- --shape qwen2.5-0.5b --threads 4]
// Without a GPU, Chromium's SwiftShader runs it (slowly):
//   VK_ICD_FILENAMES=/usr/lib/chromium/vk_swiftshader_icd.json npm run bench:webgpu
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

const shape = option('shape', 'qwen2.5-0.5b');
const threads = option('threads', '4');
// the run shape for the 0.5B model: small enough that WASM's step takes a minute, not twenty
const small = JSON.stringify({ groupSize: 4, promptsPerStep: 1, maxTurns: 1, maxNewTokens: 32 });
const runs = [
  ['webgpu', '--model', 'demo', '--batches', '1,8', '--steps', '2'],
  ['webgpu', '--shape', shape, '--batches', '1,12', '--steps', '2', '--overrides', small],
  ['wasm', '--model', 'demo', '--batches', '1,8', '--steps', '2'],
  ['wasm', '--shape', shape, '--batches', '1,12', '--steps', '1', '--overrides', small],
];
const results = [];
for (const [backend, ...args] of runs) {
  const run = spawnSync(
    process.execPath,
    [
      ...relaxedSimdFlags(),
      '--import',
      'tsx',
      'src/bench/webgpu_node.ts',
      '--backend',
      backend,
      '--dawn',
      dawn,
      '--threads',
      threads,
      ...args,
    ],
    { stdio: ['ignore', 'pipe', 'inherit'], maxBuffer: 1 << 24 },
  );
  const line = run.stdout.toString().trim().split('\n').pop() ?? '';
  try {
    results.push(JSON.parse(line));
  } catch {
    results.push({ backend, args, error: `no result (exit ${run.status}): ${line.slice(0, 300)}` });
  }
}
process.stdout.write(`${JSON.stringify({ webgpu_bench: results })}\n`);
