/// <reference types="vitest/config" />
import { defineConfig, type Plugin } from 'vite';
import {
  copyFileSync,
  createReadStream,
  existsSync,
  mkdirSync,
  readdirSync,
  statSync,
} from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { isolationHeaders } from './scripts/serve.mjs';
import { relaxedSimdFlags } from './scripts/relaxed-simd.mjs';
import { quietExpectedLogs } from './scripts/vite_logs.ts';

const root = dirname(fileURLToPath(import.meta.url));

/** Runtime assets served from our own build, never a CDN: url prefix -> folder in node_modules. */
const runtimeAssets: Record<string, { dir: string; files: RegExp }> = {
  '/pyodide/': {
    dir: resolve(root, 'node_modules/pyodide'),
    files: /\.(mjs|js|wasm|zip|json)$/,
  },
  '/tfjs-wasm/': {
    dir: resolve(root, 'node_modules/@tensorflow/tfjs-backend-wasm/dist'),
    files: /\.wasm$/,
  },
};

/**
 * The browser tests: Chromium on the built page (test/global-setup.ts builds it) and on test
 * harness pages.
 */
const browserTests = ['test/e2e/**/*.test.ts'];

/**
 * Unit tests that need modules of their own (the unit project shares them between files): a
 * module mock (vi.mock applies only where the module is imported afresh), or state a file expects
 * to find empty (the 16-bit weight store's first-fit offsets).
 */
const isolatedTests = [
  'test/service/speed_before_probe.test.ts',
  'test/kernels/matmul/weights16.test.ts',
];

/**
 * Tests left out of `npm run test:unit` (npm test runs them): the learning runs, and the files that
 * take about 15 s or more on 2 cores (per-file times from `vitest run --reporter=json`): with files
 * sharing modules the unit projects ran in 119 s on a quiet 2-core VM (see the unit project).
 */
const slowTests = [
  'test/rl/learns.test.ts', // a learning run: SFT, then 20 GRPO steps through the real sandbox
  'test/demo/learns.test.ts', // two learning runs: the demo model, 8 GRPO steps, sync and async (~75 s)
  'test/demo/search_learns.test.ts', // a learning run: the demo model, 10 GRPO steps of the search preset (~90 s)
  'test/demo/pipeline.test.ts', // the whole demo-model recipe: corpus, SFT, export, reload, resume (~15 s alone)
  'test/cli/train_command.test.ts', // `cli train` and `cli eval` in subprocesses (~40 s)
  'test/cli/bench_command.test.ts', // `cli bench --only sandbox` in a subprocess (~40 s)
  'test/env/snapshot.test.ts', // about ten Pyodide pools brought up cold and from snapshots (~100 s)
  'test/env/pool.test.ts', // real sandbox pools: a deadline for each kind of runaway, crashes, recycling (~25 s)
  'test/env/judge_meaning.test.ts', // 193 judgements of what a test means in Python (~36 s)
  'test/env/test_forms.test.ts', // 144 judgements of real test-suite forms and a benchmark (~19 s)
  'test/env/stdlib_lockdown.test.ts', // 63 stdlib snippets run and judged in a locked-down sandbox (~17 s)
  'test/service/trainer_service.test.ts', // training steps, twice over: checkpoint -> restore -> continue (~20 s)
  'test/service/trainer_service_async.test.ts', // the same with async on: three services, phase stepper, checkpoint -> restore (~25 s)
  'test/cli/score_command.test.ts', // `cli score` in seven subprocesses, each starting a sandbox (~45 s)
  'test/model/shared_prefix.test.ts', // 3 whole models' log-probs and gradients, on wasm (1 and 2 threads) and cpu (~55 s)
  'test/training/out_of_memory_trainer.test.ts', // out of memory mid-step, undone, resumed: demo model, 3 sandbox pools (~35 s)
  'test/scale/shape_model_train.test.ts', // a 35M-parameter SmolLM2 shape: 2 GRPO steps through the sandbox (~50 s)
  'test/cli/train_link_run.test.ts', // `cli train --link` in subprocesses, one step through the sandbox (~20 s)
  'test/env/pool_host.test.ts', // hosted sandbox pools: four started, two threads kept busy on purpose (~22 s)
  'test/cli/train_async.test.ts', // `cli train` with async on in a subprocess, and a rollout worker thread killed mid-job (~35 s)
  'test/run/trl_parity.test.ts', // 408 programs (121 the demo model wrote) scored by the tab and by the exported rewards.py in CPython (~65 s)
  'test/cli/eval_command.test.ts', // `cli eval --tasks FILE.json` in subprocesses: the demo model sampled, a sandbox each (~30 s)
  'test/env/adversarial.test.ts', // 50 hostile programs, each with its deadline, termination or recycling (~25 s)
  'test/kernels/matmul/dispatch.test.ts', // the SIMD matMul against a triple loop over every tiling tail and transpose, both builds (~26 s)
  'test/demo/demo_model.test.ts', // the committed demo model: load, tokenizer round trip over the corpus, greedy format checks (~22 s)
  'test/env/cli_exec.test.ts', // `cli exec` in subprocesses, each starting a sandbox (~14 s)
  'test/env/isolation.test.ts', // sandbox pools with and without the clean-interpreter image, each saboteur run through both (~18 s)
  'test/env/fs_restore.test.ts', // two sandbox pools, each file-system saboteur three times, then a stat of the whole tree (~14 s)
  'test/demo/search_corpus.test.ts', // the search corpus's transcripts, every execution and search real (~17 s)
  'test/cli/export_trl.test.ts', // `cli export-trl`, then the export's self-test and dry run in CPython (~20 s)
  'test/run/lessons_effect.test.ts', // each lesson's runs at seed 1: 11 learning runs of 12 steps (~20 min)
  'test/scripts/webgpu_bundle.test.ts', // the WebGPU bench bundle built (a minute of xz when not cached) and run on SwiftShader (~30 s)
];

function runtimeAssetsPlugin(): Plugin {
  return {
    name: 'runtime-assets',
    configureServer(server) {
      server.middlewares.use((req, res, next) => {
        for (const [key, value] of Object.entries(isolationHeaders())) res.setHeader(key, value);
        const url = (req.url ?? '').split('?')[0] ?? '';
        for (const [prefix, { dir, files }] of Object.entries(runtimeAssets)) {
          if (!url.startsWith(prefix)) continue;
          const name = url.slice(prefix.length);
          const file = join(dir, name);
          if (!files.test(name) || name.includes('..') || !existsSync(file)) break;
          res.setHeader(
            'Content-Type',
            name.endsWith('.wasm')
              ? 'application/wasm'
              : name.endsWith('js')
                ? 'text/javascript'
                : 'application/octet-stream',
          );
          createReadStream(file).pipe(res);
          return;
        }
        next();
      });
    },
    writeBundle(options) {
      const outDir = options.dir ?? resolve(root, 'dist');
      for (const [prefix, { dir, files }] of Object.entries(runtimeAssets)) {
        const target = join(outDir, prefix);
        mkdirSync(target, { recursive: true });
        for (const name of readdirSync(dir)) {
          if (files.test(name) && statSync(join(dir, name)).isFile())
            copyFileSync(join(dir, name), join(target, name));
        }
      }
    },
  };
}

export default defineConfig(({ command }) => ({
  // The build prints what needs a look: not the Node built-ins the shared code imports on Node-only
  // paths (scripts/vite_logs.ts), nor the plugin timings table.
  plugins: [runtimeAssetsPlugin(), quietExpectedLogs(root)],
  // A built page keeps the sandbox's memory snapshot between visits, under its content-hashed file
  // names (src/env/browser_pool.ts); the dev server's unhashed files would restore a stale one.
  define: { 'import.meta.env.VITE_KEEP_SANDBOX_SNAPSHOT': JSON.stringify(command === 'build') },
  worker: {
    format: 'es',
    plugins: () => [quietExpectedLogs(root)],
  },
  build: {
    target: 'es2022',
    outDir: 'dist',
    emptyOutDir: true,
    chunkSizeWarningLimit: 4000,
    rolldownOptions: { checks: { bundlerTimings: false } },
  },
  optimizeDeps: { exclude: ['pyodide'] },
  test: {
    testTimeout: 120_000,
    hookTimeout: 180_000,
    maxWorkers: 2,
    // Relaxed SIMD, as Chromium has it by default: the tests then run the kernels the page runs
    // (src/kernels/simd/matmul.ts's fused multiply-add build); test/kernels/matmul/dispatch.test.ts
    // also checks the plain build.
    execArgv: relaxedSimdFlags(),
    // `vitest run` (npm test) runs every project; `npm run test:unit` (the unit projects) is the
    // fast loop: no browser, no page build, no learning runs.
    projects: [
      {
        extends: true,
        test: {
          name: 'unit',
          include: ['test/**/*.test.ts'],
          exclude: [...browserTests, ...slowTests, ...isolatedTests],
          // Files share modules (isolate: false): tfjs, its WASM backend and Pyodide's loader are
          // imported once per worker, not once per file (119 against 146 s on a quiet 2-core VM).
          // What a file installs globally must therefore be idempotent across fresh copies of our
          // modules: the tfjs heap guard marks the wasm module itself (kernels/tfjs/heap_guard.ts).
          isolate: false,
        },
      },
      { extends: true, test: { name: 'unit-isolated', include: isolatedTests } },
      { extends: true, test: { name: 'slow', include: slowTests } },
      // builds the production page first (test/global-setup.ts), so only this project has it
      {
        extends: true,
        test: { name: 'browser', include: browserTests, globalSetup: ['test/global-setup.ts'] },
      },
    ],
  },
}));
