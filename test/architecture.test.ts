// The layout's dependency rule (docs/architecture.md §2), checked on the import graph of src/ and
// workers/: every relative import, `import type` and dynamic `import()` included, must go from a
// folder to one it may depend on, and no file may reach itself through its imports. Our own
// check of ~60 lines rather than a dev dependency (dependency-cruiser): the rule is one table, and
// a failure names the offending import. Inside src/kernels/ the layers are parts of their own
// (docs/kernels.md, Layout): the rest of src/ sees them as one part, `kernels`.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const root = join(import.meta.dirname, '..');

/**
 * The layers of src/kernels/, lowest first, and what each may import: the WebAssembly writer, the
 * SIMD kernels' modules, their tfjs-wasm glue, the matmul engine, the WebGPU kernels (WGSL, apart
 * from all the WASM layers); switches.ts a leaf, and the other files at the folder's root
 * (backend.ts, heap_copies.ts, heap_usage.ts) over them all.
 */
const kernelLayers: Record<string, string[]> = {
  'kernels/switches': [],
  'kernels/wasm': [],
  'kernels/simd': ['kernels/wasm'],
  'kernels/tfjs': ['kernels/switches', 'kernels/wasm', 'kernels/simd'],
  'kernels/matmul': ['kernels/switches', 'kernels/wasm', 'kernels/simd', 'kernels/tfjs'],
  'kernels/webgpu': ['kernels/switches'],
  kernels: [
    'kernels/switches',
    'kernels/wasm',
    'kernels/simd',
    'kernels/tfjs',
    'kernels/matmul',
    'kernels/webgpu',
  ],
};

/** What each part may import (besides itself and packages). Lower layers come first. */
const allowed: Record<string, string[]> = {
  ...kernelLayers,
  model_files: [],
  model: ['kernels', 'model_files'],
  tokenizer: ['model_files'],
  env: [],
  tasks: ['env'],
  rl: ['kernels', 'model_files', 'model', 'tokenizer', 'env', 'tasks'],
  training: ['kernels', 'model_files', 'model', 'tokenizer', 'env', 'tasks', 'rl'],
  run: ['kernels', 'model_files', 'model', 'tokenizer', 'env', 'tasks', 'rl', 'training'],
  service: [
    'kernels',
    'model_files',
    'model',
    'tokenizer',
    'env',
    'tasks',
    'rl',
    'training',
    'run',
  ],
  ui: [
    'kernels',
    'model_files',
    'model',
    'tokenizer',
    'env',
    'tasks',
    'rl',
    'training',
    'run',
    'service',
    'workers',
  ],
  cli: [
    'kernels',
    'model_files',
    'model',
    'tokenizer',
    'env',
    'tasks',
    'rl',
    'training',
    'run',
    'service',
    'bench',
  ],
  bench: [
    'kernels',
    'model_files',
    'model',
    'tokenizer',
    'env',
    'tasks',
    'rl',
    'training',
    'run',
    'service',
    'cli',
  ],
  workers: [
    'kernels',
    'model_files',
    'model',
    'tokenizer',
    'env',
    'tasks',
    'rl',
    'training',
    'run',
    'service',
  ],
};

/**
 * The part a repo-relative path belongs to: src/<folder>/…, src/cli.ts, or workers/; in
 * src/kernels/, its layer (kernelLayers).
 */
function partOf(path: string): string {
  if (path.startsWith('workers/')) return 'workers';
  if (path === 'src/cli.ts') return 'cli';
  if (path === 'src/kernels/switches.ts') return 'kernels/switches';
  const [, folder, sub, file] = path.split('/');
  if (folder === 'kernels' && file !== undefined) return `kernels/${sub}`;
  return folder ?? '';
}

/** A part as the rest of src/ sees it: src/kernels/'s layers are one part, `kernels`. */
const outside = (part: string): string => (part.startsWith('kernels/') ? 'kernels' : part);

function sourceFiles(dir: string): string[] {
  return readdirSync(join(root, dir)).flatMap((name) => {
    const path = `${dir}/${name}`;
    if (statSync(join(root, path)).isDirectory()) return sourceFiles(path);
    return /\.ts$/.test(name) && !name.endsWith('.d.ts') ? [path] : [];
  });
}

const importPattern = /(?:from\s+|import\s*\(\s*|import\s+)['"](\.{1,2}\/[^'"]+\.ts)['"]/g;

/** Each file's relative imports, as repo-relative paths. */
function importGraph(): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  for (const file of [...sourceFiles('src'), ...sourceFiles('workers')]) {
    const text = readFileSync(join(root, file), 'utf8');
    const targets = [...text.matchAll(importPattern)].map((m) =>
      relative(root, resolve(root, dirname(file), m[1]!)),
    );
    graph.set(file, targets);
  }
  return graph;
}

/** Every cycle's files, found by a depth-first search (each cycle once per entry point found). */
function cycles(graph: Map<string, string[]>): string[][] {
  const found: string[][] = [];
  const state = new Map<string, 'open' | 'done'>();
  const stack: string[] = [];
  const visit = (file: string): void => {
    state.set(file, 'open');
    stack.push(file);
    for (const next of graph.get(file) ?? []) {
      if (state.get(next) === 'open') found.push([...stack.slice(stack.indexOf(next)), next]);
      else if (!state.has(next)) visit(next);
    }
    stack.pop();
    state.set(file, 'done');
  };
  for (const file of graph.keys()) if (!state.has(file)) visit(file);
  return found;
}

/**
 * Where a file asks the kernels itself whether a fast path serves: an `*Active` guard or
 * activeWebGpu imported, the switches imported, or the tfjs backend tested. In src/model/ only the
 * seam may (src/model/fast_paths.ts, docs/kernels.md).
 */
function asksKernels(text: string): string[] {
  const imported = [
    ...text.matchAll(/import\s*(?:type\s*)?\{([^}]*)\}\s*from\s*['"]([^'"]+)['"]/g),
  ];
  return [
    ...imported.flatMap(([, names]) =>
      names!
        .split(',')
        .map((name) => name.trim().split(/\s+as\s+/)[0]!)
        .filter((name) => /Active$/.test(name) || name === 'activeWebGpu'),
    ),
    ...imported
      .filter(([, , from]) => from!.endsWith('/switches.ts'))
      .map(() => 'kernels/switches.ts'),
    ...(/\bgetBackend\s*\(/.test(text) ? ['tf.getBackend()'] : []),
  ];
}

describe('the layout', () => {
  const graph = importGraph();

  it('has every source file in a known part', () => {
    const unknown = [...graph.keys()].filter((file) => !(partOf(file) in allowed));
    expect(unknown).toEqual([]);
  });

  it('imports run one way: each part imports only the parts below it', () => {
    const wrong: string[] = [];
    for (const [file, targets] of graph) {
      for (const target of targets) {
        const inKernels = partOf(file).startsWith('kernels');
        const from = inKernels ? partOf(file) : outside(partOf(file)),
          to = inKernels ? partOf(target) : outside(partOf(target));
        if (!target.startsWith('src/') && !target.startsWith('workers/'))
          wrong.push(`${file} -> ${target} (outside src/ and workers/)`);
        else if (from !== to && !allowed[from]?.includes(to))
          wrong.push(`${file} -> ${target} (${from} may not import ${to})`);
      }
    }
    expect(wrong).toEqual([]);
  });

  it('has no import cycles', () => {
    expect(cycles(graph).map((cycle) => cycle.join(' -> '))).toEqual([]);
  });

  it('builds WebAssembly only in src/kernels/: nothing else imports its writer (kernels/wasm)', () => {
    const wrong = [...graph].flatMap(([file, targets]) =>
      partOf(file).startsWith('kernels')
        ? []
        : targets.filter((t) => partOf(t) === 'kernels/wasm').map((t) => `${file} -> ${t}`),
    );
    expect(wrong).toEqual([]);
  });

  it('asks the kernels for a fast path in one place in src/model/: the seam, fast_paths.ts', () => {
    const wrong = sourceFiles('src/model')
      .filter((file) => file !== 'src/model/fast_paths.ts')
      .flatMap((file) =>
        asksKernels(readFileSync(join(root, file), 'utf8')).map((what) => `${file}: ${what}`),
      );
    expect(wrong).toEqual([]);
  });

  it('finds a cycle and a wrong-way import when there is one (the check itself)', () => {
    const toy = new Map([
      ['a', ['b']],
      ['b', ['c']],
      ['c', ['a']],
      ['d', []],
    ]);
    expect(cycles(toy)).toEqual([['a', 'b', 'c', 'a']]);
    expect(
      asksKernels(
        "import { simdRmsNorm, simdRmsNormActive } from '../kernels/tfjs/rmsnorm.ts';\n" +
          "import {\n  activeWebGpu,\n} from '../kernels/webgpu/gpu.ts';\n" +
          "import { switches } from '../kernels/switches.ts';\nif (tf.getBackend() === 'wasm') f();",
      ),
    ).toEqual(['simdRmsNormActive', 'activeWebGpu', 'kernels/switches.ts', 'tf.getBackend()']);
    expect(asksKernels("import { fastPaths } from './fast_paths.ts';")).toEqual([]);
    expect(allowed.model).not.toContain('rl');
    expect(allowed.rl).not.toContain('training');
    expect(allowed['kernels/simd']).not.toContain('kernels/tfjs');
    expect(allowed['kernels/webgpu']).not.toContain('kernels/wasm');
    expect(partOf('src/kernels/simd/matmul.ts')).toBe('kernels/simd');
    expect(partOf('src/kernels/switches.ts')).toBe('kernels/switches');
    expect(partOf('src/kernels/backend.ts')).toBe('kernels');
    expect(outside(partOf('src/kernels/tfjs/heap_guard.ts'))).toBe('kernels');
  });
});
