// Tests that cannot fail for any program: a test that names nothing the program could
// define (`assert 1 == 1`, `import math; assert math.pi > 3`) passes or fails the same whoever
// wrote the program, so it pays every program the same reward: a free one when it passes. Found
// statically, where the tests are written (a custom task in the page's editor, in a link, for the
// CLI's `score`): each name a test reads is a builtin, a keyword, a name the tests bind, or one
// they leave to the program; a test depends on the program when it reads one of the last, or a
// name the tests bind from one or hand to one (`r = add(2, 3)`, `sort_in_place(xs)`, a helper
// whose body calls `add`), through any chain. Over-approximates dependence (any unbound word counts), so it refuses only tests that
// truly name nothing of the program.
import { hiddenTests } from './tests_harness.ts';

const KEYWORDS = new Set(
  (
    'False None True and as assert async await break class continue def del elif else except ' +
    'finally for from global if import in is lambda nonlocal not or pass raise return try while ' +
    'with yield match case type _'
  ).split(' '),
);

/** Python's builtins (3.14): reading one of these names nothing of the program. */
const BUILTINS = new Set(
  (
    'abs aiter all anext any ascii bin bool breakpoint bytearray bytes callable chr classmethod ' +
    'compile complex copyright credits delattr dict dir divmod enumerate eval exec exit filter ' +
    'float format frozenset getattr globals hasattr hash help hex id input int isinstance ' +
    'issubclass iter len license list locals map max memoryview min next object oct open ord pow ' +
    'print property quit range repr reversed round set setattr slice sorted staticmethod str sum ' +
    'super tuple type vars zip __import__ __name__ __build_class__ __debug__ NotImplemented ' +
    'Ellipsis BaseException BaseExceptionGroup Exception ExceptionGroup ArithmeticError ' +
    'AssertionError AttributeError BlockingIOError BrokenPipeError BufferError BytesWarning ' +
    'ChildProcessError ConnectionAbortedError ConnectionError ConnectionRefusedError ' +
    'ConnectionResetError DeprecationWarning EOFError EncodingWarning EnvironmentError ' +
    'FileExistsError FileNotFoundError FloatingPointError FutureWarning GeneratorExit IOError ' +
    'ImportError ImportWarning IndentationError IndexError InterruptedError IsADirectoryError ' +
    'KeyError KeyboardInterrupt LookupError MemoryError ModuleNotFoundError NameError ' +
    'NotADirectoryError NotImplementedError OSError OverflowError PendingDeprecationWarning ' +
    'PermissionError ProcessLookupError PythonFinalizationError RecursionError ReferenceError ' +
    'ResourceWarning RuntimeError RuntimeWarning StopAsyncIteration StopIteration SyntaxError ' +
    'SyntaxWarning SystemError SystemExit TabError TimeoutError TypeError UnboundLocalError ' +
    'UnicodeDecodeError UnicodeEncodeError UnicodeError UnicodeTranslateError UnicodeWarning ' +
    'UserWarning ValueError Warning ZeroDivisionError'
  ).split(' '),
);

/** The source with comments and plain string literals blanked (f-strings keep their text). */
function code(source: string): string {
  let out = '';
  let i = 0;
  while (i < source.length) {
    const c = source[i]!;
    if (c === '#') {
      while (i < source.length && source[i] !== '\n') i++;
      continue;
    }
    if (c === '"' || c === "'") {
      const prefix = /[A-Za-z]*$/.exec(out)![0].toLowerCase();
      const formatted = prefix.includes('f') || prefix.includes('t');
      const triple = source.startsWith(c.repeat(3), i);
      const end = triple ? c.repeat(3) : c;
      let j = i + end.length;
      while (j < source.length && !source.startsWith(end, j)) j += source[j] === '\\' ? 2 : 1;
      const body = source.slice(i + end.length, j);
      out += formatted ? ` ${body} ` : ' ';
      i = j + end.length;
      continue;
    }
    out += c;
    i++;
  }
  return out;
}

/** Every name a statement reads or binds (attribute names after a dot are not names). */
function words(source: string): string[] {
  return [...code(source).matchAll(/(?<![\w.])[A-Za-z_]\w*/g)]
    .map((m) => m[0])
    .filter((w) => !KEYWORDS.has(w));
}

/** The names a statement binds: assignment targets, loop and `as` names, definitions, imports, parameters. */
function bound(source: string): Set<string> {
  const text = code(source);
  const names = new Set<string>();
  const add = (list: string) => {
    for (const name of list.split(/[\s,()[\]*]+/)) if (/^[A-Za-z_]\w*$/.test(name)) names.add(name);
  };
  // An assignment's targets: names, tuples of them, attributes and items (never a call's keyword
  // arguments, which a target without brackets cannot hold).
  for (const m of text.matchAll(
    /(?:^|[\n;])[ \t]*([\w \t,.*[\]]+?)[ \t]*(?:[-+*/%&|^@]|\/\/|\*\*|>>|<<)?=(?!=)/g,
  ))
    add(m[1]!.replace(/\.\w+/g, ''));
  for (const m of text.matchAll(/\b(?:def|class)[ \t]+(\w+)[ \t]*(\(([^)]*)\))?/g)) {
    names.add(m[1]!);
    if (m[3]) add(m[3].replace(/=[^,]*/g, '').replace(/:[^,]*/g, ''));
  }
  for (const m of text.matchAll(/\bfor\b([\w\s,()[\]*]+?)\bin\b/g)) add(m[1]!);
  for (const m of text.matchAll(/\bas[ \t]+(\w+)/g)) names.add(m[1]!);
  for (const m of text.matchAll(/\blambda\b([^:]*):/g)) add(m[1]!.replace(/=[^,]*/g, ''));
  for (const m of text.matchAll(/(?:^|[\n;])[ \t]*import[ \t]+([^\n;]+)/g))
    for (const part of m[1]!.split(','))
      names.add(
        part
          .trim()
          .split(/\s+as\s+/)
          .pop()!
          .split('.')[0]!
          .trim(),
      );
  for (const m of text.matchAll(
    /(?:^|[\n;])[ \t]*from[ \t]+[\w.]+[ \t]+import[ \t]+\(?([^\n;)]+)/g,
  ))
    for (const part of m[1]!.split(','))
      names.add(
        part
          .trim()
          .split(/\s+as\s+/)
          .pop()!
          .trim(),
      );
  for (const m of text.matchAll(/\b(?:global|nonlocal)[ \t]+([\w \t,]+)/g)) add(m[1]!);
  names.delete('');
  return names;
}

/**
 * The tests of a task's statements that name nothing of the program: their sources, in order
 * (empty when every test depends on the program).
 */
export function programIndependentTests(sources: readonly string[]): string[] {
  const tests = hiddenTests(sources);
  const statements = tests.map((test) => test.source ?? '');
  const binds = statements.map(bound);
  const allBound = new Set(binds.flatMap((names) => [...names]));
  const external = (word: string) => !BUILTINS.has(word) && !allBound.has(word);
  // A bound name is the program's too when a statement that binds it, or hands it to the program
  // (`sort_in_place(xs)` may change xs), reads the program's names; and a module's state may be
  // the program's once a statement has called it (`greet()` printing into a swapped sys.stdout).
  const modules = new Set(
    statements.flatMap((statement, i) =>
      /^\s*(import|from)\b/.test(statement) ? [...binds[i]!] : [],
    ),
  );
  const tainted = new Set<string>();
  let firstDependent = Number.POSITIVE_INFINITY;
  const depends = (i: number) =>
    words(statements[i]!).some(
      (w) => external(w) || (tainted.has(w) && (!modules.has(w) || i > firstDependent)),
    );
  let grew = true;
  while (grew) {
    grew = false;
    for (const [i, statement] of statements.entries()) {
      if (!depends(i)) continue;
      if (i < firstDependent) {
        firstDependent = i;
        grew = true;
      }
      for (const name of [
        ...binds[i]!,
        ...words(statement).filter((w) => allBound.has(w)),
        ...modules,
      ]) {
        if (!tainted.has(name)) {
          tainted.add(name);
          grew = true;
        }
      }
    }
  }
  return tests.flatMap((test, i) => (test.kind === 'setup' || depends(i) ? [] : [statements[i]!]));
}
