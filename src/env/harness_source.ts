// The sandbox's Python half, kept as Python files in ./python and compiled together as one module
// under the file name `<sandbox>` (runner.ts), in HARNESS_FILES order: later files use the names
// earlier ones define, so they are one module to the linter too (scripts/lint-python.ts).
//
// One mechanism for every runtime (docs/sandbox.md "The harness's Python files"): wherever Vite
// transforms this module (the page, its workers, the dev server, Vitest) `import.meta.glob` with
// `?raw` inlines the files as strings at build time, so the built page makes no extra request;
// plain Node running TypeScript through tsx (the CLI, sandbox worker threads) has no
// `import.meta.env` and reads the files next to this module.

/** File name user programs run under (what tracebacks show). */
export const PROGRAM_FILENAME = 'main.py';

/**
 * Path of the device whose writes sleep (see runner_runtime.ts): how time.sleep waits without
 * spinning.
 */
export const SLEEP_DEVICE = '/dev/sandbox_sleep';

/**
 * Path of the judge's device (see runner_runtime.ts): a write hands a request from the program's
 * interpreter to the trusted one (a callable the tests passed in), and reads return its reply.
 */
export const JUDGE_DEVICE = '/dev/sandbox_judge';

/**
 * The harness's files, in the order they are compiled: capture, restore, runner, the crossing,
 * judge, lockdown. The trusted interpreter compiles crossing.py and trusted.py.
 */
export const HARNESS_FILES = [
  'capture.py',
  'restore.py',
  'harness.py',
  'crossing.py',
  'judge.py',
  'lockdown.py',
] as const;

/** Values shared with the TypeScript side: each `${NAME}` in a file is written in from here. */
const SHARED: Readonly<Record<string, string>> = { PROGRAM_FILENAME, SLEEP_DEVICE, JUDGE_DEVICE };

const inlined: Record<string, string> | undefined = import.meta.env
  ? import.meta.glob<string>('./python/*.py', { query: '?raw', import: 'default', eager: true })
  : undefined;

// (this module's URL through a variable: Vite would copy a `new URL('…', import.meta.url)` file
// into the page's build as an asset)
const here = import.meta.url;

function readFile(name: string): string {
  if (inlined) {
    const text = inlined[`./python/${name}`];
    if (text === undefined) throw new Error(`The sandbox harness has no file ${name}`);
    return text;
  }
  const fs = process.getBuiltinModule('node:fs');
  return fs.readFileSync(new URL(`python/${name}`, here), 'utf8');
}

/**
 * The trusted judge (python/trusted.py), compiled alone in the worker's second interpreter: the one
 * that runs the tests and never runs a program.
 */
export function trustedSource(): string {
  return `${readFile('crossing.py')}\n${readFile('trusted.py')}`;
}

/** The harness as compiled: its files in order, a blank line apart, the shared values written in. */
export function harnessSource(): string {
  return HARNESS_FILES.map(readFile)
    .join('\n')
    .replace(/\$\{(\w+)\}/g, (_, name: string) => {
      const value = SHARED[name];
      if (value === undefined) throw new Error(`The sandbox harness names no shared value ${name}`);
      return value;
    });
}
