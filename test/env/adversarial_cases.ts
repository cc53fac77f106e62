// The adversarial suite (issue 3): programs a learning model might write, by accident or not, each
// with the observation it must produce, and a normal program that must then run correctly in the
// same sandbox. Shared by the Node suite (adversarial.test.ts) and the browser suite
// (test/e2e/sandbox.test.ts), so both hold the sandbox to the same expectations.

/** Runaways get a short deadline so the suites stay quick; everything else the default. */
export const RUNAWAY_TIMEOUT_MS = 2000;

/**
 * A runaway's observation comes long before it would end by itself (the longest sleeps 30 s; the
 * rest never end). How soon after the deadline (under 2 s) is the bench's figure
 * (sandbox_runaway_*_overhead_ms), not a test's: a busy machine stretches it.
 */
export const RUNAWAY_BOUND_MS = RUNAWAY_TIMEOUT_MS + 12_000;

/** One hostile program and what must come back. */
export interface AdversarialCase {
  name: string;
  code: string;
  /** Exact observation, or a pattern it must match. */
  observation: string | RegExp;
  /** Whether the episode ends (only timeouts end it). Default false. */
  done?: boolean;
  /** The program after it, in the same sandbox: default prints 45. */
  then?: { code: string; observation: string | RegExp };
  /** Skip in a browser without cross-origin isolation (needs the interrupt). */
  needsInterrupt?: boolean;
}

/** The follow-up every case gets unless it names its own. */
export const NORMAL_PROGRAM = { code: 'print(sum(range(10)))', observation: '45\n' };

/** A traceback of one frame in main.py, line 1 (what CPython prints for a one-line script). */
function oneLine(source: string, carets: string | null, last: string): string {
  return `Traceback (most recent call last):\n  File "main.py", line 1, in <module>\n    ${source}\n${carets === null ? '' : `    ${carets}\n`}${last}\n`;
}

const FIND_TYPE = `
def find_type(name):
    stack, seen = [object], set()
    while stack:
        t = stack.pop()
        if id(t) in seen:
            continue
        seen.add(id(t))
        if t.__name__ == name:
            return t
        try:
            stack.extend(type.__subclasses__(t))
        except TypeError:
            pass
`;

export const ADVERSARIAL_CASES: AdversarialCase[] = [
  // Runaways: every one ends as TIMEOUT and ends the episode.
  { name: 'busy loop', code: 'while True:\n    pass\n', observation: 'TIMEOUT', done: true },
  { name: 'long sleep', code: 'import time\ntime.sleep(30)\n', observation: 'TIMEOUT', done: true },
  { name: 'one long C call', code: 'sum(range(10**11))\n', observation: 'TIMEOUT', done: true },
  {
    name: 'loop that swallows the interrupt',
    code: 'while True:\n    try:\n        while True:\n            pass\n    except BaseException:\n        pass\n',
    observation: 'TIMEOUT',
    done: true,
  },
  {
    name: 'output flood',
    code: 'while True:\n    print("flood " * 100)\n',
    observation: 'TIMEOUT',
    done: true,
  },
  {
    name: 'SIGINT ignored, then a busy loop',
    code: 'import signal\nsignal.signal(signal.SIGINT, signal.SIG_IGN)\nwhile True:\n    pass\n',
    observation: 'TIMEOUT',
    done: true,
    then: {
      code: 'import signal\nprint(signal.getsignal(signal.SIGINT) is signal.default_int_handler)',
      observation: 'True\n',
    },
  },
  // Resource bombs become exceptions.
  {
    name: 'huge string',
    code: "s = 'x' * 10**10\n",
    observation: oneLine(
      "s = 'x' * 10**10",
      '    ~~~~^~~~~~~~',
      "OverflowError: cannot fit 'int' into an index-sized integer",
    ),
  },
  {
    name: 'huge bytearray',
    code: 'b = bytearray(2 * 10**9)\n',
    observation: oneLine('b = bytearray(2 * 10**9)', null, 'MemoryError'),
  },
  { name: 'huge list', code: 'x = [0] * 10**9\n', observation: /MemoryError\n$/ },
  {
    name: 'deep recursion',
    code: 'def f():\n    return f()\nf()\n',
    observation:
      /\[Previous line repeated \d+ more times\]\nRecursionError: maximum recursion depth exceeded\n$/,
  },
  {
    name: 'deep C recursion',
    code: "import json\njson.loads('[' * 100000 + ']' * 100000)\n",
    observation: /RecursionError: maximum recursion depth exceeded/,
  },
  {
    name: 'giant output at once',
    code: "print('x' * 10**7)\n",
    observation: `${'x'.repeat(499)}\n`,
  },
  {
    name: 'file-system quota',
    code: "open('/tmp/big', 'wb').write(b'x' * 10**8)\n",
    observation: /OSError: \[Errno \d+\] No space left on device\n$/,
  },
  // Ways out of the program become observations.
  {
    name: 'input()',
    code: 'x = input()\n',
    observation: oneLine('x = input()', null, 'EOFError: EOF when reading a line'),
  },
  {
    name: 'sys.exit with a code',
    code: 'import sys\nprint("before")\nsys.exit(3)\nprint("after")\n',
    observation: 'before\n',
  },
  { name: 'sys.exit with a message', code: 'import sys\nsys.exit("bye")\n', observation: 'bye\n' },
  { name: 'os._exit', code: 'import os\nprint("x")\nos._exit(1)\n', observation: 'x\n' },
  { name: 'os.abort', code: 'import os\nos.abort()\n', observation: 'os.abort() called\n' },
  {
    name: 'KeyboardInterrupt raised by the program',
    code: 'raise KeyboardInterrupt\n',
    observation: oneLine('raise KeyboardInterrupt', null, 'KeyboardInterrupt'),
  },
  {
    name: 'threads',
    code: 'import threading\nthreading.Thread(target=print).start()\n',
    observation: /RuntimeError: can't start new thread\n$/,
  },
  // Routes to JavaScript and the network are closed.
  {
    name: 'JS bridge imports',
    code: [
      'import importlib',
      "for name in ['js', 'pyodide_js', 'pyodide', 'pyodide.ffi', 'pyodide.code', 'pyodide.http', '_pyodide', '_pyodide_core', 'micropip', 'ctypes', '_ctypes']:",
      '    try:',
      '        importlib.import_module(name)',
      "        print(name, 'IMPORTED')",
      '    except ImportError as e:',
      "        print(name, 'blocked')",
    ].join('\n'),
    observation: [
      'js',
      'pyodide_js',
      'pyodide',
      'pyodide.ffi',
      'pyodide.code',
      'pyodide.http',
      '_pyodide',
      '_pyodide_core',
      'micropip',
      'ctypes',
      '_ctypes',
    ]
      .map((name) => `${name} blocked\n`)
      .join(''),
  },
  {
    name: 'import js',
    code: 'import js\n',
    observation: oneLine(
      'import js',
      null,
      "ImportError: import of 'js' is not allowed in the sandbox",
    ),
  },
  {
    name: '__import__ of pyodide_js',
    code: "__import__('builtins').__import__('pyodide_js')\n",
    observation: /ImportError: import of 'pyodide_js' is not allowed in the sandbox\n$/,
  },
  {
    name: 'exec of an import',
    code: "exec('from pyodide.ffi import to_js')\n",
    observation: /ImportError: import of 'pyodide' is not allowed in the sandbox\n$/,
  },
  {
    name: 'sys.modules holds no bridge',
    code: "import sys\nprint([k for k in sys.modules if k.split('.')[0] in ('js', 'pyodide', 'pyodide_js', '_pyodide', '_pyodide_core')])\n",
    observation: '[]\n',
  },
  {
    name: 'import hooks removed, then import',
    code: 'import sys\nsys.meta_path.clear()\nimport js\n',
    observation: /ModuleNotFoundError: No module named 'js'\n$/,
    then: {
      code: 'import sys\nprint(type(sys.meta_path[0]).__name__, len(sys.meta_path) > 2)',
      observation: 'type True\n',
    },
  },
  {
    name: 'builtin importer called directly',
    code: "import sys, importlib.machinery as m\nsys.meta_path.append(m.BuiltinImporter)\nimport _imp\n_imp.create_builtin(m.ModuleSpec('_pyodide_core', None))\n",
    observation: /ImportError: import of '_pyodide_core' is not allowed in the sandbox\n$/,
  },
  {
    name: 'importlib private loader',
    code: "import importlib._bootstrap as b\nb._builtin_from_name('_pyodide_core')\n",
    observation: /ImportError: import of '_pyodide_core' is not allowed in the sandbox\n$/,
  },
  {
    name: 'gc object walk',
    code: 'import gc\nobjs = gc.get_objects()\n',
    observation: /RuntimeError: gc.get_objects is disabled in the sandbox\n$/,
  },
  {
    name: 'gc referrers walk',
    code: 'import gc\ngc.get_referrers(object)\n',
    observation: /RuntimeError: gc.get_referrers is disabled in the sandbox\n$/,
  },
  {
    name: 'subclass walk to JsException',
    code: `${FIND_TYPE}\nJsException = find_type('JsException')\nerr = JsException('TypeError', 'x')\nprint(err.js_error.constructor.constructor('return globalThis')())\n`,
    observation: /RuntimeError: JsException cannot be created in the sandbox\n$/,
  },
  {
    name: 'subclass walk: no JS type can be constructed',
    code: `${FIND_TYPE}\nmade = []\nfor t in [find_type(n) for n in ('JsProxy', 'JsArray', 'JsCallable', 'JsMap', 'JsBuffer', 'JsDoubleProxy', 'JsGenerator')]:\n    for args in ((), (1,), ('x',), ({},)):\n        try:\n            made.append(type(t(*args)).__name__)\n        except BaseException:\n            pass\nprint(made)\n`,
    observation: '[]\n',
  },
  {
    name: 'frame walk into the harness',
    code: [
      'import sys',
      'frame = sys._getframe()',
      'found = []',
      'while frame is not None:',
      '    for value in list(frame.f_globals.values()) + list(frame.f_locals.values()):',
      "        if 'Js' in type(value).__name__ or 'pyodide' in str(getattr(type(value), '__module__', '')):",
      '            found.append(repr(value))',
      '    frame = frame.f_back',
      'print(found)',
    ].join('\n'),
    observation: '[]\n',
  },
  {
    name: 'crafted code object',
    code: 'co = (lambda: 1).__code__.replace(co_consts=(2,))\n',
    observation: /RuntimeError: code.__new__ is disabled in the sandbox\n$/,
  },
  {
    // types.coroutine's own code.replace is let through (lockdown.py); a look-alike is not.
    name: 'crafted code object in a types.coroutine look-alike',
    code: [
      'import types',
      "src = 'def coroutine(co):\\n    return co.replace(co_consts=(2,))\\n'",
      'ns = {}',
      "exec(compile(src, types.__file__, 'exec'), ns)",
      'ns["coroutine"]((lambda: 1).__code__)',
    ].join('\n'),
    observation: /RuntimeError: code.__new__ is disabled in the sandbox\n$/,
  },
  {
    // Under Node, Emscripten's system() runs the command on the host through child_process.
    name: 'host shell through os.system',
    code: "import os, posix\nprint(os.system('echo escaped'), posix.system('true'))\n",
    observation: '-1 -1\n',
  },
  {
    name: 'marshal.loads',
    code: 'import marshal\nmarshal.loads(marshal.dumps(1))\n',
    observation: /RuntimeError: marshal.loads is disabled in the sandbox\n$/,
  },
  {
    name: 'socket',
    code: "import socket\nsocket.create_connection(('127.0.0.1', 80), timeout=1)\n",
    observation: /PermissionError: \[Errno \d+\] Permission denied\n$/,
  },
  {
    name: 'urllib',
    code: "import urllib.request\nurllib.request.urlopen('http://127.0.0.1:9/')\n",
    observation: /URLError: <urlopen error \[Errno \d+\] Permission denied>\n$/,
  },
  // Isolation: nothing a program changes leaks into the next one.
  {
    name: 'overwrite the stdlib zip',
    code: "open('/lib/python314.zip', 'wb')\n",
    observation: /OSError: \[Errno \d+\] Read-only file system: '\/lib\/python314.zip'\n$/,
  },
  {
    name: 'module file left behind',
    code: "open('/home/pyodide/leftover.py', 'w').write('x = 1')\nimport leftover\nprint(leftover.x)\n",
    observation: '1\n',
    then: {
      code: 'import os\ntry:\n    import leftover\nexcept ImportError as e:\n    print(type(e).__name__)\nprint(os.listdir("/home/pyodide"), os.listdir("/tmp"))\n',
      observation: 'ModuleNotFoundError\n[] []\n',
    },
  },
  {
    name: 'stdlib monkeypatch',
    code: 'import math, json\nmath.pi = 3\njson.dumps = None\nprint(math.pi)\n',
    observation: '3\n',
    then: {
      code: 'import math, json\nprint(math.pi, json.dumps([1]))',
      observation: '3.141592653589793 [1]\n',
    },
  },
  {
    name: 'builtins tampering',
    code: "import builtins\nbuiltins.len = None\nbuiltins.print = None\nbuiltins.__dict__['__import__'] = None\n",
    observation: '',
    then: { code: "print(len([1, 2]), __import__('math').pi > 3)", observation: '2 True\n' },
  },
  {
    name: 'builtins dict cleared',
    code: 'import builtins\nbuiltins.__dict__.clear()\n',
    observation: '',
  },
  {
    name: 'sys state',
    code: "import os, sys\nsys.setrecursionlimit(50)\nsys.path.insert(0, '/tmp')\nos.environ['LEAK'] = '1'\nos.chdir('/tmp')\nsys.stdout = None\n",
    observation: '',
    then: {
      code: "import os, sys\nprint(sys.getrecursionlimit(), '/tmp' in sys.path, os.environ.get('LEAK'), os.getcwd())",
      observation: '1000 False None /home/pyodide\n',
    },
  },
  {
    name: 'gc callbacks and atexit',
    code: "import atexit, gc\ngc.callbacks.append(lambda *a: print('callback'))\natexit.register(print, 'at exit')\ngc.disable()\n",
    observation: '',
    then: { code: 'import gc\ngc.collect()\nprint(gc.isenabled())', observation: 'True\n' },
  },
  {
    name: 'audit hooks',
    code: 'import sys\nsys.addaudithook(lambda *a: None)\n',
    observation: /RuntimeError: sys.addaudithook is disabled in the sandbox\n$/,
  },
  // Observations look like CPython's.
  {
    name: 'stdout and stderr interleaved',
    code: "import sys\nprint('a')\nprint('b', file=sys.stderr)\nprint('c')\n",
    observation: 'a\nb\nc\n',
  },
  {
    name: 'syntax error',
    code: 'def f(:\n    pass\n',
    observation:
      '  File "main.py", line 1\n    def f(:\n          ^\nSyntaxError: invalid syntax\n',
  },
  {
    name: 'chained traceback, user frames only',
    code: 'import json\ndef parse(text):\n    return json.loads(text)\ntry:\n    parse("{")\nexcept ValueError as e:\n    raise RuntimeError("bad input") from e\n',
    observation:
      /json\.decoder\.JSONDecodeError: Expecting property name enclosed in double quotes: line 1 column 2 \(char 1\)\n\nThe above exception was the direct cause of the following exception:\n\nTraceback \(most recent call last\):\n {2}File "main.py", line 7, in <module>\n {4}raise RuntimeError\("bad input"\) from e\nRuntimeError: bad input\n$/,
  },
];
