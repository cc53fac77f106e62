// The layout's dependency rule (docs/architecture.md §2), checked on the import graph of src/ and
// workers/: every relative import, `import type` and dynamic `import()` included, must go from a
// folder to one it may depend on, and no file may reach itself through its imports. Our own
// check of ~60 lines rather than a dev dependency (dependency-cruiser): the rule is one table, and
// a failure names the offending import.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const root = join(import.meta.dirname, '..');

/** What each part may import (besides itself and packages). Lower layers come first. */
const allowed: Record<string, string[]> = {
  kernels: [],
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
 * The part a repo-relative path belongs to: src/<folder>/… (a subfolder is its folder's:
 * src/kernels/tfjs/ is kernels), src/cli.ts, or workers/.
 */
function partOf(path: string): string {
  if (path.startsWith('workers/')) return 'workers';
  if (path === 'src/cli.ts') return 'cli';
  return path.split('/')[1] ?? '';
}

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
        const from = partOf(file),
          to = partOf(target);
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

  it('finds a cycle and a wrong-way import when there is one (the check itself)', () => {
    const toy = new Map([
      ['a', ['b']],
      ['b', ['c']],
      ['c', ['a']],
      ['d', []],
    ]);
    expect(cycles(toy)).toEqual([['a', 'b', 'c', 'a']]);
    expect(allowed.model).not.toContain('rl');
    expect(allowed.rl).not.toContain('training');
    expect(partOf('src/kernels/tfjs/heap_guard.ts')).toBe('kernels');
  });
});
