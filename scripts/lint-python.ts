// Lints the Python under src/ with Ruff (its WebAssembly build from npm, so a fresh clone needs
// nothing but `npm install`); `npm run lint` and `npm test` run it:
//   npx tsx scripts/lint-python.ts
// The sandbox harness's files are compiled as one module (src/env/harness_source.ts), so they are
// linted as that module, exactly as compiled, each finding named by its file and line; any other
// .py file is linted alone. Prints `path:line:column: CODE message` per finding, exits 1 on any.
import { PositionEncoding, Workspace } from '@astral-sh/ruff-wasm-nodejs';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { HARNESS_FILES, harnessSource } from '../src/env/harness_source.ts';

const root = join(import.meta.dirname, '..');
const harnessDir = join(root, 'src/env/python');

/**
 * Ruff's settings (the schema of ruff.toml). Rules: Ruff's defaults (E4, E7, E9: statements and
 * syntax; F: Pyflakes), W (pycodestyle warnings: invalid escape sequences, stray whitespace), B
 * (bugbear: likely bugs) and PLE (Pylint's errors). Not selected, because the harness does so on
 * purpose: A (it binds builtins' names to captured originals), BLE and S110 (it catches every
 * exception where a program's failure must not escape), ARG (its methods keep io's signatures).
 * Style-only families (SIM, RET, RUF, line length) are not selected either: no formatter owns the
 * Python, and a rewrite for style is a risk in security-critical code.
 */
const settings = {
  'target-version': 'py314', // Pyodide 314's CPython
  lint: {
    // Only `_` is a throwaway name: the harness's own names all start with one, and a second
    // definition of one of them (the files are one module) must not pass unnoticed.
    'dummy-variable-rgx': '^_$',
    select: ['E4', 'E7', 'E9', 'F', 'W', 'B', 'PLE'],
    ignore: [
      'E401', // `import a, b, c`: the harness's files import several modules a line
      'E402', // module-level imports after code: each file of the harness imports at its own top
      'B905', // zip() without strict=: strict=True would change what the harness raises
      'B912', // map() without strict=: the same
    ],
  },
};

interface Finding {
  code: string | null;
  message: string;
  start_location: { row: number; column: number };
}

const workspace = new Workspace(settings, PositionEncoding.Utf16);

/** Ruff's findings in `source`, less re-imports of a module earlier files imported (F811 on an
 * `import` line): rebinding a name to the same module object is what concatenation does. */
function check(source: string): Finding[] {
  const lines = source.split('\n');
  return (workspace.check(source) as Finding[])
    .filter(
      (f) => !(f.code === 'F811' && /^\s*import\s/.test(lines[f.start_location.row - 1] ?? '')),
    )
    .sort(
      (a, b) =>
        a.start_location.row - b.start_location.row ||
        a.start_location.column - b.start_location.column,
    );
}

function pythonFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return pythonFiles(path);
    return entry.name.endsWith('.py') ? [path] : [];
  });
}

const report: string[] = [];
const say = (path: string, row: number, f: Finding) =>
  report.push(
    `${relative(root, path)}:${row}:${f.start_location.column}: ${f.code ?? ''} ${f.message}`,
  );

// The harness: one module, findings mapped back to the file and line they come from.
const starts: { path: string; line: number }[] = [];
let line = 1;
for (const name of HARNESS_FILES) {
  const path = join(harnessDir, name);
  starts.push({ path, line });
  line += readFileSync(path, 'utf8').split('\n').length; // the files are joined by '\n'
}
/** A line of the compiled harness as `file:line` (the file relative to src/env/python). */
function place(row: number): { path: string; row: number } {
  let file = starts[0]!;
  for (const start of starts) if (start.line <= row) file = start;
  return { path: file.path, row: row - file.line + 1 };
}
for (const f of check(harnessSource())) {
  const at = place(f.start_location.row);
  // (a message that names another line, "redefinition of unused `x` from line N", names its file)
  const message = f.message.replace(/\bline (\d+)/g, (_, n: string) => {
    const other = place(Number(n));
    return `${relative(harnessDir, other.path)}:${other.row}`;
  });
  say(at.path, at.row, { ...f, message });
}

// Everything else under src/: a .py beside the harness that it does not compile is a mistake,
// but for the trusted judge, which the second interpreter compiles after crossing.py (linted as
// that pair below, each finding named by its own file's line).
const TRUSTED = join(harnessDir, 'trusted.py');
const CROSSING = join(harnessDir, 'crossing.py');
for (const path of pythonFiles(join(root, 'src'))) {
  if (starts.some((s) => s.path === path)) continue;
  if (path === TRUSTED) {
    const prefix = `${readFileSync(CROSSING, 'utf8')}\n`;
    const offset = prefix.split('\n').length - 1;
    for (const f of check(prefix + readFileSync(path, 'utf8')))
      if (f.start_location.row > offset) say(path, f.start_location.row - offset, f);
  } else if (path.startsWith(harnessDir))
    report.push(`${relative(root, path)}: not in HARNESS_FILES (src/env/harness_source.ts)`);
  else for (const f of check(readFileSync(path, 'utf8'))) say(path, f.start_location.row, f);
}

for (const entry of report) console.log(entry);
if (report.length > 0) {
  console.error(`Ruff ${Workspace.version()}: ${report.length} finding(s) in src/**/*.py`);
  process.exitCode = 1;
}
