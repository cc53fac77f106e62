// What a test means in Python, kept across the judge's crossing (issue 63): the program runs in a
// locked-down interpreter, the tests in a trusted one, and each call of the program's functions
// crosses between them. A test must mean there what it means when the program and its tests run
// as one Python program: the attacks (StopIteration through map, a mutated argument that cannot
// cross, the stand-in answering for the function, a test helper that is never counted) score 0,
// and honest programs that use the language (exceptions with their messages, prints, callbacks,
// Decimal, Counter, program classes, generators, globals, identity, big data) score 1, each with a
// wrong twin that scores 0. Shared by test/env/judge_meaning.test.ts (Node) and
// test/e2e/judge_meaning.test.ts (Chromium); scripts/check-judge-cases.ts runs every case in
// CPython to check that the expectations are Python's.
import { cases, type JudgeCase, py } from './judge_cases.ts';

// ---------------------------------------------------------------------------------------------
// Attacks: the crossing loses Python's meaning, and a wrong program scores.

const IS_EVEN = 'def is_even(n):\n    return n % 2 == 0';
const IS_ODD = 'def is_odd(n):\n    return n % 2 == 1';

const STOP_ITERATION: JudgeCase[] = [
  ...cases({
    kind: 'stop-iteration',
    name: 'all(map(f, xs))',
    tests: 'assert all(map(is_even, [2, 4, 6]))',
    total: 1,
    right: { correct: IS_EVEN },
    wrong: { 'tests oddness': 'def is_even(n):\n    return n % 2 == 1' },
    fooled: {
      'raises StopIteration': 'def is_even(n):\n    raise StopIteration',
      'next() of an empty iterator': 'def is_even(n):\n    return next(iter([]))',
    },
  }),
  ...cases({
    kind: 'stop-iteration',
    name: 'not any(map(f, xs))',
    tests: 'assert not any(map(is_odd, [2, 4, 6]))',
    total: 1,
    right: { correct: IS_ODD },
    wrong: { 'always true': 'def is_odd(n):\n    return True' },
    fooled: {
      'raises StopIteration': 'def is_odd(n):\n    raise StopIteration("done")',
    },
  }),
  ...cases({
    kind: 'stop-iteration',
    name: 'list(filter(f, xs)) == []',
    tests: 'assert list(filter(is_odd, [2, 4, 6])) == []',
    total: 1,
    right: { correct: IS_ODD },
    wrong: { 'tests evenness': 'def is_odd(n):\n    return n % 2 == 0' },
    fooled: { 'raises StopIteration': 'def is_odd(n):\n    raise StopIteration' },
  }),
  ...cases({
    // In a generator expression Python turns the StopIteration into a RuntimeError (PEP 479).
    kind: 'stop-iteration',
    name: 'all(f(x) for x in xs)',
    tests: 'assert all(is_even(x) for x in [2, 4])',
    total: 1,
    right: { correct: IS_EVEN },
    hostile: { 'raises StopIteration': 'def is_even(n):\n    raise StopIteration' },
  }),
];

const BY_LENGTH = py`
  from collections import OrderedDict


  def by_length(words):
      return OrderedDict((w, len(w)) for w in sorted(words, key=len))
`;

const ORDERED_DICT: JudgeCase[] = [
  ...cases({
    kind: 'dict-subclass',
    name: 'OrderedDict == OrderedDict compares order',
    tests: py`
      from collections import OrderedDict
      assert by_length(['ccc', 'a', 'bb']) == OrderedDict([('a', 1), ('bb', 2), ('ccc', 3)])
    `,
    total: 1,
    right: { sorted: BY_LENGTH },
    wrong: {
      'right items, input order': py`
        from collections import OrderedDict


        def by_length(words):
            return OrderedDict((w, len(w)) for w in words)
      `,
    },
  }),
  ...cases({
    kind: 'dict-subclass',
    name: 'an OrderedDict result keeps its type and methods',
    tests: py`
      from collections import OrderedDict
      d = by_length(['ccc', 'a', 'bb'])
      assert type(d) is OrderedDict
      d.move_to_end('a')
      assert list(d) == ['bb', 'ccc', 'a']
    `,
    total: 2,
    right: { OrderedDict: BY_LENGTH },
    wrong: {
      'plain dict': py`
        def by_length(words):
            return {w: len(w) for w in sorted(words, key=len)}
      `,
    },
  }),
];

const SORTED_COPY = 'def sorted_copy(xs):\n    return sorted(xs)';

const MUTATION: JudgeCase[] = [
  ...cases({
    kind: 'mutation',
    name: 'a list argument left alone (setup lines, then the assert)',
    tests: py`
      xs = [2, 1]
      r = sorted_copy(xs)
      assert xs == [2, 1]
    `,
    total: 1,
    right: { 'sorted()': SORTED_COPY },
    hostile: {
      'appends an object()': py`
        def sorted_copy(xs):
            r = sorted(xs)
            xs.append(object())
            return r
      `,
      'appends a function': py`
        def sorted_copy(xs):
            r = sorted(xs)
            xs.append(lambda: 0)
            return r
      `,
      'appends an instance of its own class': py`
        class Box:
            pass


        def sorted_copy(xs):
            r = sorted(xs)
            xs.append(Box())
            return r
      `,
      'appends the list to itself': py`
        def sorted_copy(xs):
            r = sorted(xs)
            xs.append(xs)
            return r
      `,
    },
    wrong: { 'sorts in place': 'def sorted_copy(xs):\n    xs.sort()\n    return xs' },
  }),
  ...cases({
    kind: 'mutation',
    name: 'a list argument left alone (one line)',
    tests: 'xs = [1, 2]; sorted_copy(xs); assert xs == [1, 2]',
    total: 1,
    right: { 'sorted()': SORTED_COPY },
    hostile: {
      'appends an object()': py`
        def sorted_copy(xs):
            r = sorted(xs)
            xs.append(object())
            return r
      `,
    },
  }),
  ...cases({
    kind: 'mutation',
    name: 'a nested list argument left alone',
    tests: py`
      xs = [[2], [1]]
      sorted_copy(xs)
      assert xs == [[2], [1]]
    `,
    total: 1,
    right: { 'sorted()': SORTED_COPY },
    wrong: {
      'appends 9 to an inner list': py`
        def sorted_copy(xs):
            r = sorted(xs)
            xs[0].append(9)
            return r
      `,
    },
    hostile: {
      'appends an object() to an inner list': py`
        def sorted_copy(xs):
            r = sorted(xs)
            xs[0].append(object())
            return r
      `,
    },
  }),
  ...cases({
    kind: 'mutation',
    name: 'an inner list the test still holds is left alone',
    tests: py`
      inner = [1]
      xs = [inner, [0]]
      sorted_copy(xs)
      assert inner == [1]
    `,
    total: 1,
    right: { 'sorted()': SORTED_COPY },
    wrong: {
      'appends to the inner list': py`
        def sorted_copy(xs):
            r = sorted(xs)
            xs[0].append(2)
            return r
      `,
    },
  }),
  ...cases({
    kind: 'mutation',
    name: 'a dict argument left alone',
    tests: 'd = {"a": 1}\nkeys_of(d)\nassert d == {"a": 1}',
    total: 1,
    right: { 'sorted keys': 'def keys_of(d):\n    return sorted(d)' },
    hostile: {
      'stores a function in it': py`
        def keys_of(d):
            r = sorted(d)
            d["zz"] = print
            return r
      `,
    },
  }),
  ...cases({
    kind: 'mutation',
    name: 'a set argument left alone',
    tests: 's = {1, 2}\ntotal_of(s)\nassert s == {1, 2}',
    total: 1,
    right: { 'sum()': 'def total_of(s):\n    return sum(s)' },
    hostile: {
      'adds an object()': py`
        def total_of(s):
            r = sum(s)
            s.add(object())
            return r
      `,
    },
  }),
  ...cases({
    kind: 'mutation',
    name: 'a bytearray argument left alone',
    tests: "b = bytearray(b'ab')\nchecksum(b)\nassert b == bytearray(b'ab')",
    total: 1,
    right: { 'sum()': 'def checksum(b):\n    return sum(b) % 256' },
    wrong: {
      'zeroes its first byte': py`
        def checksum(b):
            r = sum(b) % 256
            b[0] = 0
            return r
      `,
    },
  }),
  ...cases({
    kind: 'mutation',
    name: 'a list argument left alone when the call raises',
    tests: py`
      xs = [1, 2]
      try:
          sorted_copy(xs)
      except ValueError:
          pass
      assert xs == [1, 2]
    `,
    total: 1,
    right: { 'sorted()': SORTED_COPY },
    wrong: {
      'appends, then raises': py`
        def sorted_copy(xs):
            xs.append(3)
            raise ValueError("no")
      `,
    },
  }),
  ...cases({
    kind: 'mutation',
    name: 'an argument the program keeps and changes in a later call',
    tests: py`
      xs = [1]
      remember(xs)
      later()
      assert xs == [1]
    `,
    total: 1,
    right: {
      'keeps a copy': py`
        _saved = []


        def remember(xs):
            _saved.append(list(xs))
            return len(xs)


        def later():
            _saved[0].append(99)
            return 0
      `,
    },
    wrong: {
      'keeps the list itself': py`
        _saved = []


        def remember(xs):
            _saved.append(xs)
            return len(xs)


        def later():
            _saved[0].append(99)
            return 0
      `,
    },
  }),
];

const ADD_DOC = py`
  def add(a, b):
      """Return the sum of a and b."""
      return a + b
`;

const STAND_IN: JudgeCase[] = [
  ...cases({
    kind: 'stand-in',
    name: 'f.__doc__ is the program’s docstring',
    tests: "assert add.__doc__ == 'Return the sum of a and b.'",
    total: 1,
    right: { docstring: ADD_DOC },
    wrong: {
      'another docstring': 'def add(a, b):\n    """Add."""\n    return a + b',
      'no docstring': 'def add(a, b):\n    return a + b',
    },
  }),
  ...cases({
    kind: 'stand-in',
    name: 'f.__doc__ is not None',
    tests: 'assert add.__doc__ is not None\nassert add.__doc__',
    total: 2,
    right: { docstring: ADD_DOC },
    wrong: { 'no docstring': 'def add(a, b):\n    return a + b' },
  }),
  ...cases({
    kind: 'stand-in',
    name: 'inspect.getdoc(f)',
    tests: "import inspect\nassert inspect.getdoc(add) == 'Return the sum of a and b.'",
    total: 1,
    right: { docstring: ADD_DOC },
    wrong: { 'no docstring': 'def add(a, b):\n    return a + b' },
  }),
  ...cases({
    kind: 'stand-in',
    name: 'f.__name__',
    tests: "assert add.__name__ == 'add'",
    total: 1,
    right: { def: 'def add(a, b):\n    return a + b' },
    wrong: {
      'an alias of _impl': 'def _impl(a, b):\n    return a + b\n\n\nadd = _impl',
      'a lambda': 'add = lambda a, b: a + b  # noqa: E731',
    },
  }),
  ...cases({
    kind: 'stand-in',
    name: 'inspect.signature(f)',
    tests: py`
      import inspect
      sig = inspect.signature(add)
      assert list(sig.parameters) == ['a', 'b']
      assert len(sig.parameters) == 2
    `,
    total: 2,
    right: { '(a, b)': 'def add(a, b):\n    return a + b' },
    wrong: {
      '(a, b, c=0)': 'def add(a, b, c=0):\n    return a + b + c',
      // The stand-in's own signature, (*args, **kwargs), has two parameters.
      '(*nums)': 'def add(*nums):\n    return sum(nums)',
    },
  }),
  ...cases({
    kind: 'stand-in',
    name: 'f.__annotations__',
    tests: "assert add.__annotations__ == {'a': int, 'b': int, 'return': int}",
    total: 1,
    right: { 'int -> int': 'def add(a: int, b: int) -> int:\n    return a + b' },
    wrong: { '-> float': 'def add(a: int, b: int) -> float:\n    return a + b' },
  }),
  ...cases({
    kind: 'stand-in',
    name: 'f.__defaults__ and a parameter’s default',
    tests: py`
      import inspect
      assert greet.__defaults__ == ('Hello',)
      assert inspect.signature(greet).parameters['greeting'].default == 'Hello'
    `,
    total: 2,
    right: {
      "greeting='Hello'": "def greet(name, greeting='Hello'):\n    return greeting + ', ' + name",
    },
    wrong: {
      "greeting='Hi'": "def greet(name, greeting='Hi'):\n    return greeting + ', ' + name",
    },
  }),
  ...cases({
    kind: 'stand-in',
    name: 'inspect.isgeneratorfunction(f)',
    tests: 'import inspect\nassert inspect.isgeneratorfunction(count_up)',
    total: 1,
    right: { generator: 'def count_up(n):\n    yield from range(n)' },
    wrong: { 'returns a list': 'def count_up(n):\n    return list(range(n))' },
  }),
];

const HELPER_FORM: JudgeCase[] = cases({
  kind: 'helper-form',
  name: 'def check(candidate) ... check(inc)',
  tests: py`
    def check(candidate):
        assert candidate(1) == 2
        assert candidate(5) == 6
        assert candidate(-1) == 0


    check(inc)
  `,
  total: 1,
  right: { 'x + 1': 'def inc(x):\n    return x + 1' },
  wrong: {
    'returns None': 'def inc(x):\n    pass',
    'returns x': 'def inc(x):\n    return x',
    'x + 2': 'def inc(x):\n    return x + 2',
    raises: 'def inc(x):\n    raise ValueError(x)',
  },
});

// ---------------------------------------------------------------------------------------------
// Honest programs that must score 1, each with a wrong twin that scores 0.

const PARSE_AGE = py`
  def parse_age(s):
      if not s.isdigit():
          raise ValueError(f'not a number: {s!r}')
      return int(s)
`;

const EXCEPTIONS: JudgeCase[] = [
  ...cases({
    kind: 'exceptions',
    name: 'str(e) in a try test',
    tests: py`
      try:
          parse_age('abc')
      except ValueError as e:
          assert str(e) == "not a number: 'abc'"
      else:
          assert False, 'no ValueError'
    `,
    total: 1,
    right: { 'its message': PARSE_AGE },
    wrong: {
      'another message': py`
        def parse_age(s):
            if not s.isdigit():
                raise ValueError('bad input')
            return int(s)
      `,
    },
  }),
  ...cases({
    kind: 'exceptions',
    name: 'e.args and str(e) of a KeyError',
    tests: py`
      try:
          lookup({'a': 1}, 'b')
      except KeyError as e:
          assert e.args == ('b',)
          assert str(e) == "'b'"
      else:
          assert False
    `,
    total: 1,
    right: { 'd[k]': 'def lookup(d, k):\n    return d[k]' },
    wrong: {
      'd.get(k)': 'def lookup(d, k):\n    return d.get(k)',
      'another key in the error': py`
        def lookup(d, k):
            if k not in d:
                raise KeyError('missing key ' + k)
            return d[k]
      `,
    },
  }),
  ...cases({
    kind: 'exceptions',
    name: 'with unittest assertRaises as a context manager, then cm.exception',
    tests: py`
      import unittest
      tc = unittest.TestCase()
      with tc.assertRaises(ValueError) as cm:
          parse_age('x1')
      assert str(cm.exception) == "not a number: 'x1'"
    `,
    total: 1,
    right: { 'its message': PARSE_AGE },
    wrong: { 'int(s)': 'def parse_age(s):\n    return int(s)' },
  }),
  ...cases({
    kind: 'exceptions',
    name: 'with a context manager the tests define',
    tests: py`
      import contextlib


      @contextlib.contextmanager
      def raises(kind):
          try:
              yield
          except kind:
              return
          assert False, 'did not raise ' + kind.__name__


      with raises(ValueError):
          parse_age('-3')
    `,
    total: 1,
    right: { 'its message': PARSE_AGE },
    wrong: { 'int(s)': 'def parse_age(s):\n    return int(s)' },
  }),
  ...cases({
    kind: 'exceptions',
    name: 'a program exception class caught as ValueError and by its name',
    tests: py`
      try:
          parse_age('x')
      except BadInput as e:
          assert isinstance(e, ValueError)
          assert e.args == ('x',)
      else:
          assert False
      try:
          parse_age('y')
          caught = False
      except ValueError:
          caught = True
      assert caught
      assert issubclass(BadInput, ValueError)
    `,
    total: 3,
    right: {
      'BadInput(ValueError)': py`
        class BadInput(ValueError):
            pass


        def parse_age(s):
            if not s.isdigit():
                raise BadInput(s)
            return int(s)
      `,
    },
    wrong: {
      'BadInput(Exception)': py`
        class BadInput(Exception):
            pass


        def parse_age(s):
            if not s.isdigit():
                raise BadInput(s)
            return int(s)
      `,
    },
  }),
  ...cases({
    kind: 'exceptions',
    name: 'a program exception class caught by its name only',
    tests: py`
      try:
          parse_age('x')
      except BadInput as e:
          assert e.args == ('x',)
      else:
          assert False
    `,
    total: 1,
    right: {
      'raises BadInput': py`
        class BadInput(ValueError):
            pass


        def parse_age(s):
            if not s.isdigit():
                raise BadInput(s)
            return int(s)
      `,
    },
    wrong: {
      'raises a plain ValueError': py`
        class BadInput(ValueError):
            pass


        def parse_age(s):
            if not s.isdigit():
                raise ValueError(s)
            return int(s)
      `,
    },
  }),
  ...cases({
    kind: 'exceptions',
    name: 'an attribute of a program exception',
    tests: py`
      try:
          parse('a=1\nb')
      except ParseError as e:
          assert e.line == 2
          assert str(e) == 'line 2: missing ='
      else:
          assert False
    `,
    total: 1,
    right: {
      'counts lines from 1': py`
        class ParseError(Exception):
            def __init__(self, line, message):
                super().__init__(f'line {line}: {message}')
                self.line = line


        def parse(text):
            pairs = {}
            for number, line in enumerate(text.splitlines(), 1):
                if '=' not in line:
                    raise ParseError(number, 'missing =')
                key, value = line.split('=', 1)
                pairs[key] = value
            return pairs
      `,
    },
    wrong: {
      'counts lines from 0': py`
        class ParseError(Exception):
            def __init__(self, line, message):
                super().__init__(f'line {line}: {message}')
                self.line = line


        def parse(text):
            pairs = {}
            for number, line in enumerate(text.splitlines()):
                if '=' not in line:
                    raise ParseError(number, 'missing =')
                key, value = line.split('=', 1)
                pairs[key] = value
            return pairs
      `,
    },
  }),
  ...cases({
    kind: 'exceptions',
    name: 'UnicodeEncodeError caught by name, with .reason, .start and .object',
    tests: py`
      try:
          to_ascii('café')
      except UnicodeEncodeError as e:
          assert e.reason == 'ordinal not in range(128)'
          assert e.start == 3
          assert e.object == 'café'
      else:
          assert False
      try:
          to_ascii('ü')
          ok = False
      except ValueError:
          ok = True
      assert ok
    `,
    total: 2,
    right: { "encode('ascii')": "def to_ascii(s):\n    return s.encode('ascii')" },
    wrong: { "encode('latin-1')": "def to_ascii(s):\n    return s.encode('latin-1')" },
  }),
  ...cases({
    kind: 'exceptions',
    name: 'an exception a test callback raises comes back through the program',
    tests: py`
      def boom(x):
          raise KeyError('boom')


      try:
          apply_all([1], boom)
      except KeyError as e:
          assert e.args == ('boom',)
      else:
          assert False
    `,
    total: 1,
    right: { 'lets it through': 'def apply_all(xs, fn):\n    return [fn(x) for x in xs]' },
    wrong: {
      'swallows it': py`
        def apply_all(xs, fn):
            out = []
            for x in xs:
                try:
                    out.append(fn(x))
                except Exception:
                    out.append(None)
            return out
      `,
    },
  }),
];

const GREET = "print('module loaded')\n\n\ndef greet(name):\n    print(f'Hello, {name}!')";

const STDOUT: JudgeCase[] = [
  ...cases({
    kind: 'stdout',
    name: 'contextlib.redirect_stdout(io.StringIO())',
    tests: py`
      import contextlib
      import io
      buf = io.StringIO()
      with contextlib.redirect_stdout(buf):
          greet('Ada')
      assert buf.getvalue() == 'Hello, Ada!\n'
    `,
    total: 1,
    right: { 'prints the greeting': GREET },
    wrong: { 'another greeting': "def greet(name):\n    print('Hello', name)" },
  }),
  ...cases({
    kind: 'stdout',
    name: 'sys.stdout = io.StringIO() swapped in and out',
    tests: py`
      import io
      import sys
      old = sys.stdout
      sys.stdout = io.StringIO()
      greet('Bo')
      out = sys.stdout.getvalue()
      sys.stdout = old
      assert out == 'Hello, Bo!\n'
    `,
    total: 1,
    right: { 'prints the greeting': GREET },
    wrong: { 'returns it instead': "def greet(name):\n    return f'Hello, {name}!'" },
  }),
  ...cases({
    kind: 'stdout',
    name: 'a print and a return value, captured in try/finally',
    tests: py`
      import io
      import sys
      saved, sys.stdout = sys.stdout, io.StringIO()
      try:
          r = show_sum(2, 3)
          printed = sys.stdout.getvalue()
      finally:
          sys.stdout = saved
      assert r == 5
      assert printed == 'sum 5\n'
    `,
    total: 2,
    right: {
      'a + b': "def show_sum(a, b):\n    s = a + b\n    print('sum', s)\n    return s",
    },
    wrong: {
      'a * b': "def show_sum(a, b):\n    s = a * b\n    print('sum', s)\n    return s",
    },
  }),
  ...cases({
    kind: 'stdout',
    name: 'stderr and stdout captured apart',
    tests: py`
      import contextlib
      import io
      err, out = io.StringIO(), io.StringIO()
      with contextlib.redirect_stderr(err), contextlib.redirect_stdout(out):
          warn('low disk')
      assert err.getvalue() == 'warning: low disk\n'
      assert out.getvalue() == ''
    `,
    total: 2,
    right: {
      'print(file=sys.stderr)':
        "import sys\n\n\ndef warn(msg):\n    print('warning:', msg, file=sys.stderr)",
    },
    wrong: { 'prints to stdout': "def warn(msg):\n    print('warning:', msg)" },
  }),
];

const CALLABLES: JudgeCase[] = [
  ...cases({
    kind: 'callables',
    name: 'a lambda and a builtin as key=',
    tests: py`
      assert sort_by([1, 3, 2], key=lambda x: -x) == [3, 2, 1]
      assert sort_by(['ccc', 'a', 'bb', 'dddd', 'z'], key=len) == ['a', 'z', 'bb', 'ccc', 'dddd']
    `,
    total: 2,
    right: { 'sorted(key=key)': 'def sort_by(xs, key):\n    return sorted(xs, key=key)' },
    wrong: { 'ignores key': 'def sort_by(xs, key):\n    return sorted(xs)' },
  }),
  ...cases({
    kind: 'callables',
    name: 'str.upper, len and str.split passed as functions',
    tests: py`
      assert apply(str.upper, 'ab') == 'AB'
      assert apply(len, 'abc') == 3
      assert apply(str.split, 'a b') == ['a', 'b']
    `,
    total: 3,
    right: { 'fn(s)': 'def apply(fn, s):\n    return fn(s)' },
    wrong: { 'returns s': 'def apply(fn, s):\n    return s' },
  }),
  ...cases({
    kind: 'callables',
    name: 'range, a generator, iter() and map() passed as iterables',
    tests: py`
      assert total(range(5)) == 10
      assert total(x * x for x in range(4)) == 14
      assert total(iter([1, 2, 3])) == 6
      assert total(map(abs, [-1, -2])) == 3
    `,
    total: 4,
    right: {
      'a for loop': 'def total(xs):\n    t = 0\n    for x in xs:\n        t += x\n    return t',
    },
    wrong: { 'len()': 'def total(xs):\n    return len(xs)' },
  }),
  ...cases({
    kind: 'callables',
    name: 'functools.partial, a test-defined function and a lambda',
    tests: py`
      import functools
      assert apply_twice(functools.partial(pow, 2), 1) == 4


      def double(x):
          return 2 * x


      assert apply_twice(double, 3) == 12
      assert apply_twice(lambda s: s + '!', 'hi') == 'hi!!'
    `,
    total: 3,
    right: { 'fn(fn(x))': 'def apply_twice(fn, x):\n    return fn(fn(x))' },
    wrong: { 'fn(x)': 'def apply_twice(fn, x):\n    return fn(x)' },
  }),
  ...cases({
    kind: 'callables',
    name: 'a callback called several times, its side effects on test lists',
    tests: py`
      seen = []
      each([1, 2, 3], seen.append)
      assert seen == [1, 2, 3]
      log = []


      def record(x):
          log.append(x * 10)
          return x


      each([4, 5], record)
      assert log == [40, 50]
    `,
    total: 2,
    right: { 'calls fn on each': 'def each(xs, fn):\n    for x in xs:\n        fn(x)' },
    wrong: { 'calls fn on the first only': 'def each(xs, fn):\n    fn(xs[0])' },
  }),
  ...cases({
    kind: 'callables',
    name: 'a predicate: a lambda and bool',
    tests: py`
      assert count_if([1, 2, 4], lambda x: x % 2 == 0) == 2
      assert count_if(['', 'a', 'b'], bool) == 2
    `,
    total: 2,
    right: { 'pred(x)': 'def count_if(xs, pred):\n    return sum(1 for x in xs if pred(x))' },
    wrong: {
      'not pred(x)': 'def count_if(xs, pred):\n    return sum(1 for x in xs if not pred(x))',
    },
  }),
  ...cases({
    kind: 'callables',
    name: 'a type passed as a function',
    tests: py`
      assert convert(['1', '2'], int) == [1, 2]
      assert convert(['1', '', 'x'], bool) == [True, False, True]
    `,
    total: 2,
    right: { 'kind(x)': 'def convert(xs, kind):\n    return [kind(x) for x in xs]' },
    wrong: { 'list(xs)': 'def convert(xs, kind):\n    return list(xs)' },
  }),
  ...cases({
    kind: 'callables',
    name: 'callbacks the program keeps and calls in a later call',
    tests: py`
      got = []
      on(got.append)
      on(lambda x: got.append(x * 2))
      assert fire(5) == 2
      assert got == [5, 10]
    `,
    total: 2,
    right: {
      'keeps them': py`
        _handlers = []


        def on(fn):
            _handlers.append(fn)


        def fire(x):
            for handler in _handlers:
                handler(x)
            return len(_handlers)
      `,
    },
    wrong: {
      'forgets them': py`
        _handlers = []


        def on(fn):
            pass


        def fire(x):
            for handler in _handlers:
                handler(x)
            return len(_handlers)
      `,
    },
  }),
  ...cases({
    kind: 'callables',
    name: 'an iterator the program partly consumes',
    tests: py`
      it = iter([1, 2, 3, 4])
      assert take(it, 2) == [1, 2]
      assert next(it) == 3
    `,
    total: 2,
    right: {
      'itertools.islice':
        'import itertools\n\n\ndef take(it, n):\n    return list(itertools.islice(it, n))',
    },
    wrong: { 'skips one': 'def take(it, n):\n    return list(it)[1:n + 1]' },
  }),
];

const VALUES: JudgeCase[] = [
  ...cases({
    kind: 'values',
    name: 'complex',
    tests: 'assert conj(1 + 2j) == 1 - 2j\nassert conj(3j).imag == -3.0',
    total: 2,
    right: { 'z.conjugate()': 'def conj(z):\n    return z.conjugate()' },
    wrong: { 'returns z': 'def conj(z):\n    return z' },
  }),
  ...cases({
    kind: 'values',
    name: 'bytes',
    tests: py`
      assert utf8('é') == b'\xc3\xa9'
      assert utf8('ab')[0] == 97
      assert isinstance(utf8(''), bytes)
    `,
    total: 3,
    right: { "encode('utf-8')": "def utf8(s):\n    return s.encode('utf-8')" },
    wrong: { 'returns the str': 'def utf8(s):\n    return s' },
  }),
  ...cases({
    kind: 'values',
    name: 'bytearray',
    tests: py`
      b = zeros(3)
      b[0] = 255
      assert b == bytearray(b'\xff\x00\x00')
      assert type(zeros(0)) is bytearray
    `,
    total: 2,
    right: { 'bytearray(n)': 'def zeros(n):\n    return bytearray(n)' },
    wrong: { 'bytes(n)': 'def zeros(n):\n    return bytes(n)' },
  }),
  ...cases({
    kind: 'values',
    name: 'Decimal',
    tests: py`
      from decimal import Decimal
      assert add_money('0.1', '0.2') == Decimal('0.3')
      assert str(add_money('1.10', '2.20')) == '3.30'
    `,
    total: 2,
    right: {
      Decimal:
        'from decimal import Decimal\n\n\ndef add_money(a, b):\n    return Decimal(a) + Decimal(b)',
    },
    wrong: { float: 'def add_money(a, b):\n    return float(a) + float(b)' },
  }),
  ...cases({
    kind: 'values',
    name: 'Fraction',
    tests: py`
      from fractions import Fraction
      assert mean([1, 2]) == Fraction(3, 2)
      assert mean([1, 2, 4]).denominator == 3
    `,
    total: 2,
    right: {
      Fraction:
        'from fractions import Fraction\n\n\ndef mean(xs):\n    return Fraction(sum(xs), len(xs))',
    },
    wrong: { '//': 'def mean(xs):\n    return sum(xs) // len(xs)' },
  }),
  ...cases({
    kind: 'values',
    name: 'a tuple is not a list',
    tests: 'assert min_max([3, 1, 2]) == (1, 3)\nassert isinstance(min_max([5]), tuple)',
    total: 2,
    right: { tuple: 'def min_max(xs):\n    return (min(xs), max(xs))' },
    wrong: { list: 'def min_max(xs):\n    return [min(xs), max(xs)]' },
  }),
  ...cases({
    kind: 'values',
    name: 'a list is not a tuple',
    tests: 'assert as_list((1, 2)) == [1, 2]',
    total: 1,
    right: { 'list(t)': 'def as_list(t):\n    return list(t)' },
    wrong: { 'returns t': 'def as_list(t):\n    return t' },
  }),
  ...cases({
    kind: 'values',
    name: 'a frozenset is hashable, a set is not',
    tests: py`
      assert type(uniq([1, 1])) is frozenset
      assert {uniq([1, 2]): 'ok'}[frozenset({1, 2})] == 'ok'
    `,
    total: 2,
    right: { frozenset: 'def uniq(xs):\n    return frozenset(xs)' },
    wrong: { set: 'def uniq(xs):\n    return set(xs)' },
  }),
  ...cases({
    kind: 'values',
    name: 'Counter: a missing key is 0, most_common, +',
    tests: py`
      from collections import Counter
      c = tally('abca')
      assert c['missing'] == 0
      assert c.most_common(1) == [('a', 2)]
      assert tally('ab') + tally('b') == Counter({'b': 2, 'a': 1})
    `,
    total: 3,
    right: { Counter: 'from collections import Counter\n\n\ndef tally(s):\n    return Counter(s)' },
    wrong: {
      'plain dict':
        'def tally(s):\n    d = {}\n    for ch in s:\n        d[ch] = d.get(ch, 0) + 1\n    return d',
    },
  }),
  ...cases({
    kind: 'values',
    name: 'defaultdict: a missing key is made',
    tests: py`
      from collections import defaultdict
      g = group(['ab', 'ac', 'b'])
      assert isinstance(g, defaultdict)
      assert g['zz'] == []
      g['q'].append(1)
      assert g['q'] == [1]
    `,
    total: 3,
    right: {
      'defaultdict(list)': py`
        from collections import defaultdict


        def group(words):
            d = defaultdict(list)
            for w in words:
                d[w[0]].append(w)
            return d
      `,
    },
    wrong: {
      'plain dict': py`
        def group(words):
            d = {}
            for w in words:
                d.setdefault(w[0], []).append(w)
            return d
      `,
    },
  }),
  ...cases({
    kind: 'values',
    name: 'deque with maxlen',
    tests: py`
      from collections import deque
      d = window([1, 2, 3, 4], 2)
      assert d == deque([3, 4])
      d.append(5)
      assert list(d) == [4, 5]
    `,
    total: 2,
    right: {
      'deque(maxlen=n)':
        'from collections import deque\n\n\ndef window(xs, n):\n    return deque(xs, maxlen=n)',
    },
    wrong: { 'a list': 'def window(xs, n):\n    return xs[-n:]' },
  }),
  ...cases({
    kind: 'values',
    name: 'namedtuple: fields, tuple equality, _asdict, the program’s class',
    tests: py`
      p = make_point(1, 2)
      assert p.x == 1 and p.y == 2
      assert p == (1, 2)
      assert p._asdict() == {'x': 1, 'y': 2}
      assert make_point(3, 4) == Point(3, 4)
    `,
    total: 4,
    right: {
      'Point(x, y)': py`
        from collections import namedtuple

        Point = namedtuple('Point', ['x', 'y'])


        def make_point(x, y):
            return Point(x, y)
      `,
    },
    wrong: {
      'Point(y, x)': py`
        from collections import namedtuple

        Point = namedtuple('Point', ['x', 'y'])


        def make_point(x, y):
            return Point(y, x)
      `,
    },
  }),
  ...cases({
    kind: 'values',
    name: 'a program Enum compared by .name and .value',
    tests: "assert pick(1).name == 'RED'\nassert pick(0).value == 2",
    total: 2,
    right: {
      'n > 0': py`
        import enum


        class Color(enum.Enum):
            RED = 1
            GREEN = 2


        def pick(n):
            return Color.RED if n > 0 else Color.GREEN
      `,
    },
    wrong: {
      swapped: py`
        import enum


        class Color(enum.Enum):
            RED = 1
            GREEN = 2


        def pick(n):
            return Color.GREEN if n > 0 else Color.RED
      `,
    },
  }),
  ...cases({
    kind: 'values',
    name: 'a program Enum member is that member, not its value',
    tests: py`
      assert pick(1) is Color.RED
      assert pick(-1) == Color.GREEN
      assert pick(3) in {Color.RED}
    `,
    total: 3,
    right: {
      members: py`
        import enum


        class Color(enum.Enum):
            RED = 1
            GREEN = 2


        def pick(n):
            return Color.RED if n > 0 else Color.GREEN
      `,
    },
    wrong: {
      'the values': py`
        import enum


        class Color(enum.Enum):
            RED = 1
            GREEN = 2


        def pick(n):
            return 1 if n > 0 else 2
      `,
    },
  }),
  ...cases({
    kind: 'values',
    name: 'True and False are not 1 and 0',
    tests: py`
      assert is_adult(20) is True
      assert is_adult(3) is False
      assert type(is_adult(30)) is bool
    `,
    total: 3,
    right: { bool: 'def is_adult(age):\n    return age >= 18' },
    wrong: { int: 'def is_adult(age):\n    return 1 if age >= 18 else 0' },
  }),
  ...cases({
    kind: 'values',
    name: 'None is not -1',
    tests: 'assert find([1, 2], 3) is None',
    total: 1,
    right: {
      None: 'def find(xs, x):\n    for i, y in enumerate(xs):\n        if y == x:\n            return i\n    return None',
    },
    wrong: { '-1': 'def find(xs, x):\n    return xs.index(x) if x in xs else -1' },
  }),
  ...cases({
    kind: 'values',
    name: 'a range result',
    tests: 'assert evens(5) == range(0, 5, 2)\nassert isinstance(evens(5), range)',
    total: 2,
    right: { range: 'def evens(n):\n    return range(0, n, 2)' },
    wrong: { list: 'def evens(n):\n    return list(range(0, n, 2))' },
  }),
  ...cases({
    kind: 'values',
    name: 'nan',
    tests: 'import math\nassert math.isnan(safe_div(1, 0))\nassert safe_div(1, 4) == 0.25',
    total: 2,
    right: { nan: "def safe_div(a, b):\n    return a / b if b else float('nan')" },
    wrong: { '//': 'def safe_div(a, b):\n    return a // b if b else 0' },
  }),
];

const GLOBALS: JudgeCase[] = [
  ...cases({
    kind: 'globals',
    name: 'a call counter read after the calls',
    tests: py`
      ping()
      ping()
      assert calls == 2
      ping()
      assert calls == 3
    `,
    total: 2,
    right: {
      counts: "calls = 0\n\n\ndef ping():\n    global calls\n    calls += 1\n    return 'pong'",
    },
    wrong: {
      'counts another name': py`
        calls = 0
        count = 0


        def ping():
            global count
            count += 1
            return 'pong'
      `,
    },
  }),
  ...cases({
    kind: 'globals',
    name: 'a global list the test holds before the calls',
    tests: py`
      before = history
      push('a')
      push('b')
      assert before == ['a', 'b']
    `,
    total: 1,
    right: {
      append: 'history = []\n\n\ndef push(x):\n    history.append(x)\n    return len(history)',
    },
    wrong: {
      'rebinds the global': py`
        history = []


        def push(x):
            global history
            history = history + [x]
            return len(history)
      `,
    },
  }),
  ...cases({
    kind: 'globals',
    name: 'random.seed(0) in the tests, random in the program',
    tests: py`
      import random
      random.seed(0)
      assert noise(3) == [0.8444218515250481, 0.7579544029403025, 0.420571580830845]
    `,
    total: 1,
    right: {
      'random.random()':
        'import random\n\n\ndef noise(n):\n    return [random.random() for _ in range(n)]',
    },
    wrong: {
      'its own generator':
        'import random\n\n_rng = random.Random(12345)\n\n\ndef noise(n):\n    return [_rng.random() for _ in range(n)]',
    },
  }),
  ...cases({
    kind: 'globals',
    name: 'two calls after the same seed agree',
    tests: py`
      import random
      random.seed(42)
      a = roll(10)
      random.seed(42)
      b = roll(10)
      assert a == b
    `,
    total: 1,
    right: {
      'random.randint':
        'import random\n\n\ndef roll(n):\n    return [random.randint(1, 6) for _ in range(n)]',
      'from random import randint':
        'from random import randint\n\n\ndef roll(n):\n    return [randint(1, 6) for _ in range(n)]',
    },
    wrong: {
      'an unseeded generator of its own':
        'import random\n\n_rng = random.Random()\n\n\ndef roll(n):\n    return [_rng.randint(1, 6) for _ in range(n)]',
    },
  }),
  ...cases({
    kind: 'globals',
    name: 'random.shuffle after random.seed(1)',
    tests: py`
      import random
      random.seed(1)
      assert shuffled(range(6)) == [2, 3, 5, 0, 4, 1]
    `,
    total: 1,
    right: {
      'random.shuffle':
        'import random\n\n\ndef shuffled(xs):\n    ys = list(xs)\n    random.shuffle(ys)\n    return ys',
    },
    wrong: { reversed: 'def shuffled(xs):\n    return sorted(xs, reverse=True)' },
  }),
];

const IDENTITY: JudgeCase[] = [
  ...cases({
    kind: 'identity',
    name: 'f(xs) is xs, and xs sorted in place',
    tests: py`
      xs = [3, 1, 2]
      assert sort_in_place(xs) is xs
      assert xs == [1, 2, 3]
    `,
    total: 2,
    right: { 'xs.sort()': 'def sort_in_place(xs):\n    xs.sort()\n    return xs' },
    wrong: { 'sorted(xs)': 'def sort_in_place(xs):\n    return sorted(xs)' },
  }),
  ...cases({
    kind: 'identity',
    name: 'a dict argument filled in place and returned',
    tests: 'd = {}\nassert add_key(d) is d\nassert d == {"k": 1}',
    total: 2,
    right: { 'd["k"] = 1': 'def add_key(d):\n    d["k"] = 1\n    return d' },
    wrong: { 'a new dict': 'def add_key(d):\n    return {**d, "k": 1}' },
  }),
  ...cases({
    kind: 'identity',
    name: 'a nested list argument mutated, the test checks the mutation',
    tests: py`
      g = [[1, 2], [3, 4]]
      row = g[0]
      bump(g)
      assert g == [[2, 2], [4, 4]]
      assert row == [2, 2]
    `,
    total: 2,
    right: { 'row[0] += 1': 'def bump(grid):\n    for row in grid:\n        row[0] += 1' },
    wrong: {
      'a new grid': 'def bump(grid):\n    return [[row[0] + 1] + row[1:] for row in grid]',
    },
  }),
  ...cases({
    kind: 'identity',
    name: 'the same object passed twice',
    tests: 'xs = [1]\nassert same(xs, xs) and not same(xs, [1])',
    total: 1,
    right: { is: 'def same(a, b):\n    return a is b' },
    wrong: { '==': 'def same(a, b):\n    return a == b' },
  }),
  ...cases({
    kind: 'identity',
    name: 'an argument returned inside the result',
    tests: 'xs = [1]\nw = wrap(xs)\nassert w[0] is xs',
    total: 1,
    right: { '[xs]': 'def wrap(xs):\n    return [xs]' },
    wrong: { '[list(xs)]': 'def wrap(xs):\n    return [list(xs)]' },
  }),
];

const CYCLE: JudgeCase[] = cases({
  kind: 'identity',
  name: 'a list argument that comes to hold itself',
  tests: 'xs = [1]\nlink(xs)\nassert xs[1] is xs\nassert len(xs[1][1][1]) == 2',
  total: 2,
  right: { 'xs.append(xs)': 'def link(xs):\n    xs.append(xs)' },
  wrong: { 'appends a copy': 'def link(xs):\n    xs.append(list(xs))' },
});

const DEPTH = py`
  def depth(x):
      d = 0
      while isinstance(x, list):
          d += 1
          x = x[0] if x else None
      return d
`;

const LARGE: JudgeCase[] = [
  ...cases({
    kind: 'large',
    name: 'a 9 MB str result',
    tests: "assert len(big()) == 9_000_000\nassert big() == 'x' * 9_000_000",
    total: 2,
    right: { "'x' * 9_000_000": "def big():\n    return 'x' * 9_000_000" },
    wrong: { 'one short': "def big():\n    return 'x' * 8_999_999" },
  }),
  ...cases({
    kind: 'large',
    name: 'a 9 MB str argument',
    tests: "assert length('y' * 9_000_000) == 9_000_000",
    total: 1,
    right: { 'len(s)': 'def length(s):\n    return len(s)' },
    wrong: { 'len(s) - 1': 'def length(s):\n    return len(s) - 1' },
  }),
  ...cases({
    kind: 'large',
    name: 'lists nested 151 and 500 deep',
    tests: `${DEPTH}\n\n\nassert depth(nest(151)) == 151\nassert depth(nest(500)) == 500`,
    total: 2,
    right: {
      'wraps n - 1 times':
        'def nest(n):\n    r = []\n    for _ in range(n - 1):\n        r = [r]\n    return r',
    },
    wrong: {
      'wraps n times':
        'def nest(n):\n    r = []\n    for _ in range(n):\n        r = [r]\n    return r',
    },
  }),
  ...cases({
    kind: 'large',
    name: 'a list nested 500 deep as an argument',
    tests: py`
      x = []
      for _ in range(499):
          x = [x]
      assert depth(x) == 500
    `,
    total: 1,
    right: { 'a loop': DEPTH },
    wrong: { 'counts from 1': DEPTH.replace('d = 0', 'd = 1') },
  }),
  ...cases({
    kind: 'large',
    name: 'a dict of 200k items',
    tests: py`
      d = squares(200_000)
      assert len(d) == 200_000
      assert d[199_999] == 199_999 ** 2
      assert squares(200_000) == {i: i * i for i in range(200_000)}
    `,
    total: 3,
    right: { 'range(n)': 'def squares(n):\n    return {i: i * i for i in range(n)}' },
    wrong: { 'range(n - 1)': 'def squares(n):\n    return {i: i * i for i in range(n - 1)}' },
  }),
  ...cases({
    kind: 'large',
    name: 'a list of a million ints as an argument',
    tests: 'assert total(list(range(1_000_000))) == 499999500000',
    total: 1,
    right: { 'sum()': 'def total(xs):\n    return sum(xs)' },
    wrong: { 'drops the last': 'def total(xs):\n    return sum(xs[:-1])' },
  }),
];

const JSON_CASES: JudgeCase[] = [
  ...cases({
    kind: 'json',
    name: 'json.dump to a StringIO inside the function',
    tests: `assert to_json({'b': 1, 'a': [1, 2]}) == '{"a": [1, 2], "b": 1}'`,
    total: 1,
    right: {
      'sort_keys=True': py`
        import io
        import json


        def to_json(obj):
            buf = io.StringIO()
            json.dump(obj, buf, sort_keys=True)
            return buf.getvalue()
      `,
    },
    wrong: {
      'unsorted keys': py`
        import io
        import json


        def to_json(obj):
            buf = io.StringIO()
            json.dump(obj, buf)
            return buf.getvalue()
      `,
    },
  }),
  ...cases({
    kind: 'json',
    name: 'json.JSONEncoder().iterencode inside the function',
    tests: `assert ''.join(chunks([1, {'a': None}])) == '[1, {"a": null}]'`,
    total: 1,
    right: {
      iterencode:
        'import json\n\n\ndef chunks(obj):\n    return list(json.JSONEncoder().iterencode(obj))',
    },
    wrong: {
      'compact separators':
        "import json\n\n\ndef chunks(obj):\n    return list(json.JSONEncoder(separators=(',', ':')).iterencode(obj))",
    },
  }),
];

const STACK = py`
  class Stack:
      def __init__(self):
          self.items = []

      def push(self, x):
          self.items.append(x)

      def pop(self):
          return self.items.pop()

      def is_empty(self):
          return not self.items

      def __len__(self):
          return len(self.items)
`;

const OBJECTS: JudgeCase[] = [
  ...cases({
    kind: 'objects',
    name: 'a program class the tests instantiate and use',
    tests: py`
      s = Stack()
      s.push(1)
      s.push(2)
      assert s.pop() == 2
      assert len(s) == 1
      assert not s.is_empty()
    `,
    total: 3,
    right: { 'a list': STACK },
    wrong: { 'push does nothing': STACK.replace('self.items.append(x)', 'pass') },
  }),
  ...cases({
    kind: 'objects',
    name: 'a program object’s attribute after method calls',
    tests: 'acct = Account(10)\nacct.deposit(5)\nassert acct.balance == 15',
    total: 1,
    right: {
      adds: py`
        class Account:
            def __init__(self, balance):
                self.balance = balance

            def deposit(self, amount):
                self.balance += amount
      `,
    },
    wrong: {
      subtracts: py`
        class Account:
            def __init__(self, balance):
                self.balance = balance

            def deposit(self, amount):
                self.balance -= amount
      `,
    },
  }),
  ...cases({
    kind: 'objects',
    name: 'a function returned by the program, called by the tests',
    tests: 'add5 = make_adder(5)\nassert add5(1) == 6\nassert make_adder(-1)(1) == 0',
    total: 2,
    right: { closure: 'def make_adder(n):\n    return lambda x: x + n' },
    wrong: { 'off by one': 'def make_adder(n):\n    return lambda x: x + n + 1' },
  }),
  ...cases({
    kind: 'objects',
    name: 'a generator function the tests iterate',
    tests: py`
      assert list(gen(3)) == [0, 1, 2]
      g = gen(2)
      assert next(g) == 0
      assert next(g) == 1
      assert sum(gen(4)) == 6
    `,
    total: 4,
    right: {
      'from 0': 'def gen(n):\n    i = 0\n    while i < n:\n        yield i\n        i += 1',
    },
    wrong: {
      'from 1': 'def gen(n):\n    i = 1\n    while i <= n:\n        yield i\n        i += 1',
    },
  }),
  ...cases({
    kind: 'objects',
    name: 'an endless generator the tests slice',
    tests: 'import itertools\nassert list(itertools.islice(naturals(), 3)) == [0, 1, 2]',
    total: 1,
    right: {
      'from 0': 'def naturals():\n    n = 0\n    while True:\n        yield n\n        n += 1',
    },
    wrong: {
      'from 1': 'def naturals():\n    n = 1\n    while True:\n        yield n\n        n += 1',
    },
  }),
];

/** The attacks of issue 63: each wrong program scores 0; each correct one scores 1. */
/**
 * Ties: a container that crossed stays one object with its twin across later operations, both
 * ways (python/crossing.py): what the tests change after a call, the program's kept copy sees, and
 * what the program changes later, the tests' object shows.
 */
const TIES: JudgeCase[] = [
  ...cases({
    kind: 'ties',
    name: 'the tests change a list after the program kept it',
    tests: py`
      xs = [1, 2]
      keep(xs)
      xs.append(3)
      assert total() == 6
    `,
    total: 1,
    right: {
      'sums the kept list':
        '_kept = []\n\n\ndef keep(xs):\n    _kept.append(xs)\n\n\ndef total():\n    return sum(_kept[0])',
    },
    wrong: {
      'sums a copy':
        '_kept = []\n\n\ndef keep(xs):\n    _kept.append(list(xs))\n\n\ndef total():\n    return sum(_kept[0])',
    },
  }),
  ...cases({
    kind: 'ties',
    name: "a test changes the program's global list through the name it read",
    tests: py`
      h = history
      h.append('x')
      assert count() == 1 and history is h
    `,
    total: 1,
    right: { 'reads the global': 'history = []\n\n\ndef count():\n    return len(history)' },
    wrong: {
      'counts its own list': 'history = []\n_mine = []\n\n\ndef count():\n    return len(_mine)',
    },
  }),
  ...cases({
    kind: 'ties',
    name: 'a dict the program keeps and fills over later calls',
    tests: py`
      seen = {}
      start(seen)
      add('a')
      add('b')
      assert seen == {'a': 1, 'b': 1}
    `,
    total: 1,
    right: {
      'fills the kept dict':
        '_seen = [None]\n\n\ndef start(d):\n    _seen[0] = d\n\n\ndef add(k):\n    _seen[0][k] = 1',
    },
    wrong: {
      'fills a copy':
        '_seen = [None]\n\n\ndef start(d):\n    _seen[0] = dict(d)\n\n\ndef add(k):\n    _seen[0][k] = 1',
    },
  }),
];

/**
 * Callbacks both ways: the tests' callable reads the program's objects, and the program and the
 * tests call each other in turn (the program's interpreter is inside the judge's device's write
 * meanwhile); endless back-and-forth is a RecursionError, as in Python.
 */
const NESTED: JudgeCase[] = [
  ...cases({
    kind: 'nested',
    name: "the tests' key reads the program's own objects",
    tests: 'assert order(lambda p: p.n) == [1, 2, 3]',
    total: 1,
    right: {
      sorted: py`
        class P:
            def __init__(self, n):
                self.n = n


        def order(key):
            items = [P(3), P(1), P(2)]
            return [p.n for p in sorted(items, key=key)]
      `,
    },
    wrong: {
      'ignores the key': py`
        class P:
            def __init__(self, n):
                self.n = n


        def order(key):
            return [p.n for p in [P(3), P(1), P(2)]]
      `,
    },
  }),
  ...cases({
    kind: 'nested',
    name: 'the program and a callback of the tests call each other 40 deep',
    tests: py`
      bounce = lambda g, x: g(bounce, x)
      assert climb(bounce, -35) == 5
    `,
    total: 1,
    right: {
      'calls back until 5':
        'def climb(apply, n):\n    if n >= 5:\n        return n\n    return apply(climb, n + 1)',
    },
    wrong: {
      'stops early':
        'def climb(apply, n):\n    if n >= 4:\n        return n\n    return apply(climb, n + 1)',
    },
  }),
  ...cases({
    kind: 'nested',
    name: "the program reads the tests' data through what they passed",
    tests: py`
      expected = [3, 1, 2]
      def make():
          secret = expected
          return lambda: secret
      assert peek(make()) == expected
    `,
    total: 1,
    right: { 'computes it': 'def peek(g):\n    return [3, 1, 2]' },
    fooled: {
      __globals__: 'def peek(g):\n    return g.__globals__["expected"]',
      __closure__: 'def peek(g):\n    return g.__closure__[0].cell_contents',
    },
    hostile: {
      __code__: 'def peek(g):\n    return list(g.__code__.co_consts)',
    },
  }),
];

export const MEANING_ATTACKS: readonly JudgeCase[] = [
  ...STOP_ITERATION,
  ...ORDERED_DICT,
  ...MUTATION,
  ...STAND_IN,
  ...HELPER_FORM,
];

/** Honest programs of issue 63 that score 1, each with a wrong twin that scores 0. */
export const MEANING_HONEST: readonly JudgeCase[] = [
  ...EXCEPTIONS,
  ...STDOUT,
  ...CALLABLES,
  ...VALUES,
  ...GLOBALS,
  ...IDENTITY,
  ...CYCLE,
  ...LARGE,
  ...JSON_CASES,
  ...OBJECTS,
  ...TIES,
  ...NESTED,
];

export const MEANING_CASES: readonly JudgeCase[] = [...MEANING_ATTACKS, ...MEANING_HONEST];
