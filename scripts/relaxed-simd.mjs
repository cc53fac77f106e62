#!/usr/bin/env node
// Node flags that turn on WebAssembly relaxed SIMD, which Chromium has by default, so Node runs
// the same kernels as the page (src/kernels/simd/matmul.ts's fused multiply-add build): Node 20
// needs --experimental-wasm-relaxed-simd, later Node versions have it on anyway (and may drop the
// flag, so it is passed only where this Node accepts it). Plain Node, no dependencies.
//   node scripts/relaxed-simd.mjs FILE ARGS...   runs `tsx FILE ARGS...` with the flag
//   import { relaxedSimdFlags } from './relaxed-simd.mjs'   the flags, for vite.config.ts
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

/** ['--experimental-wasm-relaxed-simd'] where this Node accepts the flag, else []. */
export function relaxedSimdFlags() {
  const flag = '--experimental-wasm-relaxed-simd';
  const probe = spawnSync(process.execPath, [flag, '-e', '0'], { stdio: 'ignore' });
  return probe.status === 0 ? [flag] : [];
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const [file, ...rest] = process.argv.slice(2);
  if (!file) {
    console.error('usage: node scripts/relaxed-simd.mjs FILE [ARGS...]');
    process.exit(2);
  }
  const result = spawnSync(
    process.execPath,
    [...relaxedSimdFlags(), '--import', 'tsx', file, ...rest],
    { stdio: 'inherit' },
  );
  process.exit(result.status ?? 1);
}
