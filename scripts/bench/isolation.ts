// Prototype and measurement of "every run in a clean interpreter" (docs/sandbox.md): drives one
// SandboxRunner in this process (Pyodide from node_modules), with and without the memory image,
// and checks that saboteurs' changes do not reach the next program.
//   npx tsx scripts/bench/isolation.ts
import { createRequire } from 'node:module';
import { loadPyodide } from 'pyodide';
import { SandboxRunner } from '../../src/env/runner.ts';

const indexURL = createRequire(import.meta.url)
  .resolve('pyodide/package.json')
  .replace(/package\.json$/, '');

async function runner(isolate: boolean): Promise<{ runner: SandboxRunner; memoryBytes: number }> {
  const r = new SandboxRunner({ loadPyodide, defaultIndexURL: indexURL, hardenScope: () => [] });
  const ready = await r.init({
    maxOutputChars: 2000,
    maxCaptureChars: 10_000,
    memoryCapBytes: 2 ** 30,
    interruptBuffer: new SharedArrayBuffer(4),
    isolate,
  });
  return { runner: r, memoryBytes: ready.memoryBytes };
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

/** The file system's restore (fs_image.ts) after a program that wrote 2000 files, median of 20. */
async function filesRestoreMs(r: SandboxRunner): Promise<number> {
  const times: number[] = [];
  for (let i = 0; i < 20; i++) {
    await r.execute("for i in range(2000):\n    open('/tmp/f%d' % i, 'w').write('x')");
    times.push(r.lastFsRestoreMs);
  }
  return median(times);
}

/** Saboteur, then the check the next program makes: it must print CLEAN. */
const CASES: Array<[string, string, string]> = [
  [
    'class attribute of a stdlib class',
    'import collections\ncollections.Counter.most_common = lambda self, n=None: [("x", 99)]',
    'import collections\nprint("CLEAN" if collections.Counter("aab").most_common() == [("a", 2), ("b", 1)] else "DIRTY")',
  ],
  [
    'closure cell of a stdlib function',
    'import os\nfor c in os.fsencode.__closure__:\n    if c.cell_contents == "utf-8":\n        c.cell_contents = "latin-1"\nprint(os.fsencode("\u00e9"))',
    'import os\nprint("CLEAN" if os.fsencode("\u00e9") == "\u00e9".encode() else "DIRTY")',
  ],
  [
    'object stashed in a module-level container',
    'import copyreg\nclass Stash: pass\ncopyreg._extension_registry[("stash", "x")] = Stash()',
    'import copyreg\nprint("CLEAN" if ("stash", "x") not in copyreg._extension_registry else "DIRTY")',
  ],
  [
    'gc-reachable stash (weakref.finalize registry)',
    'import weakref\nclass K: pass\nk = K()\nweakref.finalize(k, print, "ghost")\nweakref.finalize._registry[k] = k',
    'import weakref\nprint("CLEAN" if len(weakref.finalize._registry) == 0 else "DIRTY")',
  ],
  [
    'file left open',
    'import os\nfd = os.open("/tmp", os.O_RDONLY)\nprint(fd)',
    'import os\ntry:\n    os.fstat(4)\n    print("DIRTY")\nexcept OSError:\n    print("CLEAN")',
  ],
  ['stdout/stderr closed', 'import os\nos.close(1)\nos.close(2)', 'print("CLEAN")'],
  [
    'working directory changed',
    'import os\nos.chdir("/tmp")',
    'import os\nprint("CLEAN" if os.getcwd() == "/home/pyodide" else "DIRTY " + os.getcwd())',
  ],
  [
    'heap grown by a big allocation',
    'x = bytearray(200 * 2**20)\nprint(len(x))',
    'print("CLEAN" if len(bytearray(10)) == 10 else "DIRTY")',
  ],
];

async function main() {
  const warmUp = 20;
  const n = 200;
  const figures: Record<string, unknown> = {};
  for (const isolate of [false, true]) {
    const { runner: r, memoryBytes } = await runner(isolate);
    for (let i = 0; i < warmUp; i++) await r.execute('print(1)');
    const times: number[] = [];
    const restores: number[] = [];
    const fsRestores: number[] = [];
    const idle: number[] = [];
    for (let i = 0; i < n; i++) {
      const t = performance.now();
      await r.execute('print(1)');
      times.push(performance.now() - t);
      fsRestores.push(r.lastFsRestoreMs);
      await new Promise((resolve) => setTimeout(resolve, 10));
      const u = performance.now();
      await r.execute('print(1)');
      idle.push(performance.now() - u);
      await new Promise((resolve) => setTimeout(resolve, 10));
      restores.push(r.lastRestoreMs);
    }
    figures[isolate ? 'isolated' : 'plain'] = {
      print1_back_to_back_median_ms: median(times),
      print1_after_idle_median_ms: median(idle),
      restore_median_ms: isolate ? median(restores) : null,
      fs_restore_median_ms: median(fsRestores),
      fs_restore_after_2000_files_ms: await filesRestoreMs(r),
      heap_mb_at_image: Math.round(memoryBytes / 2 ** 20),
      image_kept_mb: isolate
        ? Math.round(
            ((r as unknown as { clean: { image: { byteLength: number } } }).clean.image.byteLength /
              2 ** 20) *
              10,
          ) / 10
        : null,
    };
    const results: string[] = [];
    for (const [name, saboteur, check] of CASES) {
      const s = await r.execute(saboteur);
      const c = await r.execute(check);
      const verdict = c.combined.trim().endsWith('CLEAN')
        ? 'isolated'
        : `LEAKED (${c.combined.trim()})`;
      results.push(`${verdict}: ${name}${s.ok ? '' : ` (saboteur: ${s.error?.type})`}`);
    }
    // Without the image the saboteurs must be seen to work (else the checks prove nothing).
    if (!isolate) {
      figures.without_image = results;
      continue;
    }
    // Ordinary programs right after many restores.
    const honest = await r.execute(
      'import json, re, collections\nprint(json.dumps({"a": [1, 2]}))\nraise ValueError("boom")',
    );
    results.push(
      `after ${n + CASES.length * 2} restores: ${JSON.stringify(honest.combined.trim().split('\n').slice(-1)[0])} ok=${honest.ok}`,
    );
    figures.cases = results;
  }
  console.log(JSON.stringify(figures, null, 2));
}

await main();
