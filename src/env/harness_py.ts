// The Python half of the sandbox: runs once per worker, before any model-written code. It locks
// the interpreter down (DESIGN.md §7), captures output, formats tracebacks like CPython, and puts
// the interpreter back into its baseline state after every program. Kept as a string so the same
// source ships to Node and to the browser bundle; compiled under the file name `<sandbox>`, which
// tracebacks hide. The lockdown routine lives in lockdown_py.ts.

/** File name user programs run under (what tracebacks show). */
export const PROGRAM_FILENAME = 'main.py';

/** Path of the device whose writes sleep (see runner.ts): how time.sleep waits without spinning. */
export const SLEEP_DEVICE = '/dev/sandbox_sleep';

/** Defines `_run(code) -> json` and the capture/restore helpers; `_lockdown` is appended later. */
export const HARNESS_SOURCE = String.raw`
import atexit, builtins, gc, io, json, linecache, operator, os, posix, signal, sys, time, traceback, types, warnings

_FILENAME = '${PROGRAM_FILENAME}'
_HARNESS_FILE = '<sandbox>'
_SLEEP_DEVICE = '${SLEEP_DEVICE}'
_is_not = operator.is_not
_MISSING = object()


class _Tail:
    """Everything written in order, keeping only the last cap characters while it is produced."""
    __slots__ = ('cap', 'parts', 'size', 'total')

    def __init__(self, cap):
        self.cap = cap
        self.clear()

    def clear(self):
        self.parts = []
        self.size = 0
        self.total = 0

    def add(self, text):
        n = len(text)
        self.total += n
        if n >= self.cap:
            self.parts = [text[-self.cap:]]
            self.size = self.cap
            return
        self.parts.append(text)
        self.size += n
        if self.size > 2 * self.cap:
            kept = ''.join(self.parts)[-self.cap:]
            self.parts = [kept]
            self.size = len(kept)

    def text(self):
        return ''.join(self.parts)[-self.cap:]


_combined = _Tail(500)
_tails = {'stdout': _Tail(10000), 'stderr': _Tail(10000)}


def _capture(which, text):
    _combined.add(text)
    _tails[which].add(text)


class _BytesOutput(io.RawIOBase):
    """sys.stdout.buffer: bytes written are decoded and captured like text."""

    def __init__(self, which):
        self._which = which

    def writable(self):
        return True

    def write(self, data):
        data = bytes(data)
        _capture(self._which, data.decode('utf-8', 'replace'))
        return len(data)

    def close(self):
        pass


class _Output(io.TextIOBase):
    """sys.stdout / sys.stderr for one program: writes go straight into the capture, in order."""
    encoding = 'utf-8'
    errors = 'strict'

    def __init__(self, which, fd):
        self._which = which
        self._fd = fd
        self._buffer = _BytesOutput(which)

    @property
    def buffer(self):
        return self._buffer

    @property
    def name(self):
        return '<' + self._which + '>'

    def writable(self):
        return True

    def isatty(self):
        return False

    def fileno(self):
        return self._fd

    def flush(self):
        pass

    def close(self):
        pass

    def write(self, text):
        if not isinstance(text, str):
            raise TypeError('write() argument must be str, not ' + type(text).__name__)
        _capture(self._which, text)
        return len(text)


class _Input(io.TextIOBase):
    """sys.stdin: always at end of file, so input() raises EOFError as with an empty pipe."""
    encoding = 'utf-8'
    name = '<stdin>'

    def readable(self):
        return True

    def isatty(self):
        return False

    def fileno(self):
        return 0

    def read(self, size=-1):
        return ''

    def readline(self, size=-1):
        return ''

    def close(self):
        pass


def _safe_str(value):
    try:
        return str(value)
    except KeyboardInterrupt:
        raise
    except BaseException:
        return '<unprintable ' + type(value).__name__ + '>'


def _strip_harness(te, seen):
    """Drops this file's frames from a TracebackException and its chained causes."""
    if te is None or id(te) in seen:
        return
    seen.add(id(te))
    te.stack = traceback.StackSummary.from_list([f for f in te.stack if f.filename != _HARNESS_FILE])
    _strip_harness(te.__cause__, seen)
    _strip_harness(te.__context__, seen)
    for sub in (te.exceptions or ()):
        _strip_harness(sub, seen)


def _format_exception(exc):
    try:
        te = traceback.TracebackException(type(exc), exc, exc.__traceback__, compact=True)
        _strip_harness(te, set())
        return ''.join(te.format())
    except KeyboardInterrupt:
        raise
    except BaseException:
        return type(exc).__name__ + ': ' + _safe_str(exc) + '\n'


def _on_error(exc, result):
    result['errorType'] = type(exc).__name__
    result['errorMessage'] = _safe_str(exc)
    result['interrupted'] = isinstance(exc, KeyboardInterrupt)
    _capture('stderr', _format_exception(exc))


def _on_exit(exc, result):
    """SystemExit as CPython reports it: a non-integer code is printed; the run is not ok."""
    code = exc.code
    result['errorType'] = 'SystemExit'
    result['errorMessage'] = _safe_str(code)
    if code is not None and not isinstance(code, int):
        _capture('stderr', _safe_str(code) + '\n')


def _refuse(what):
    def refused(*args, **kwargs):
        raise RuntimeError(what + ' is disabled in the sandbox')
    return refused


def _exit(status=0):
    raise SystemExit(status)


def _abort():
    raise SystemExit('os.abort() called')


_sleep_fd = [-1]


def _sleep(secs):
    """time.sleep that the deadline interrupt wakes: waits on the sleep device in short slices."""
    if not isinstance(secs, (int, float)):
        raise TypeError("'" + type(secs).__name__ + "' object cannot be interpreted as an integer or float")
    if secs != secs or secs < 0:
        raise ValueError('sleep length must be non-negative')
    end = time.monotonic() + secs
    while True:
        remaining = end - time.monotonic()
        if remaining <= 0:
            return
        try:
            os.write(_sleep_fd[0], b'%.6f' % min(remaining, 0.25))
        except OSError:
            _sleep_fd[0] = os.open(_SLEEP_DEVICE, os.O_WRONLY)


class _Baseline:
    """The interpreter state every program starts from, captured at the end of the lockdown."""
    modules = {}
    dicts = []
    path = []
    meta_path = []
    path_hooks = []
    importer_cache = {}
    warning_filters = []
    environ = {}
    argv = []
    recursion_limit = 1000
    int_digits = 4300
    cwd = '/home/pyodide'
    fds = 0


def _snapshot():
    b = _Baseline
    b.modules = dict(sys.modules)
    seen = set()
    dicts = []
    for mod in list(b.modules.values()) + [builtins]:
        d = getattr(mod, '__dict__', None)
        if type(d) is dict and id(d) not in seen:
            seen.add(id(d))
            dicts.append((d, tuple(d.keys()), tuple(d.values())))
    g = globals()
    dicts.append((g, tuple(g.keys()), tuple(g.values())))
    b.dicts = dicts
    b.path = list(sys.path)
    b.meta_path = list(sys.meta_path)
    b.path_hooks = list(sys.path_hooks)
    b.importer_cache = dict(sys.path_importer_cache)
    b.warning_filters = list(warnings.filters)
    b.environ = dict(os.environ)
    b.argv = list(sys.argv)
    b.recursion_limit = sys.getrecursionlimit()
    b.int_digits = sys.get_int_max_str_digits()
    b.cwd = os.getcwd()


def _restore_dict(d, keys, values):
    # Drop foreign keys first so their destructors run while the dict is still whole.
    wanted = set(keys)
    for key in [k for k in d if k not in wanted]:
        d.pop(key, None)
    for key, value in zip(keys, values):
        if d.get(key, _MISSING) is not value:
            d[key] = value
    if any(map(_is_not, d.keys(), keys)):
        d.clear()
        d.update(zip(keys, values))


def _restore_list(current, baseline):
    if len(current) != len(baseline) or any(map(_is_not, current, baseline)):
        current[:] = baseline


def _restore():
    """Puts back every piece of interpreter state a program can reach cheaply. Returns # dicts fixed."""
    b = _Baseline
    sys.settrace(None)
    sys.setprofile(None)
    mods = sys.modules
    if len(mods) != len(b.modules) or any(map(_is_not, map(mods.get, b.modules), b.modules.values())):
        for name in [n for n in mods if n not in b.modules]:
            del mods[name]
        for name, mod in b.modules.items():
            if mods.get(name, _MISSING) is not mod:
                mods[name] = mod
    fixed = 0
    for d, keys, values in b.dicts:
        if len(d) != len(keys) or any(map(_is_not, d.values(), values)) or any(map(_is_not, d.keys(), keys)):
            _restore_dict(d, keys, values)
            fixed += 1
    _restore_list(sys.path, b.path)
    _restore_list(sys.meta_path, b.meta_path)
    _restore_list(sys.path_hooks, b.path_hooks)
    _restore_list(sys.argv, b.argv)
    cache = sys.path_importer_cache
    if len(cache) != len(b.importer_cache) or any(map(_is_not, map(cache.get, b.importer_cache), b.importer_cache.values())):
        cache.clear()
        cache.update(b.importer_cache)
    if len(warnings.filters) != len(b.warning_filters) or any(map(_is_not, warnings.filters, b.warning_filters)):
        warnings.filters[:] = b.warning_filters
        mutated = getattr(warnings, '_filters_mutated_lock_held', None) or getattr(warnings, '_filters_mutated', None)
        if mutated is not None:
            try:
                mutated()
            except Exception:
                pass
    if os.environ != b.environ:
        os.environ.clear()
        os.environ.update(b.environ)
    if sys.getrecursionlimit() != b.recursion_limit:
        sys.setrecursionlimit(b.recursion_limit)
    if sys.get_int_max_str_digits() != b.int_digits:
        sys.set_int_max_str_digits(b.int_digits)
    if os.getcwd() != b.cwd:
        os.chdir(b.cwd)
    if not gc.isenabled():
        gc.enable()
    if gc.callbacks:
        gc.callbacks.clear()
    if atexit._ncallbacks():
        atexit._clear()
    if signal.getsignal(signal.SIGINT) is not signal.default_int_handler:
        signal.signal(signal.SIGINT, signal.default_int_handler)
    monitoring = getattr(sys, 'monitoring', None)
    if monitoring is not None:
        for tool in range(6):
            if monitoring.get_tool(tool) is not None:
                monitoring.clear_tool_id(tool)
                monitoring.free_tool_id(tool)
    return fixed


def _run(code, max_output, max_capture):
    """Runs one program in a fresh __main__; returns a JSON string (see RawExecution in types.ts)."""
    _combined.cap = max_output
    _combined.clear()
    for tail in _tails.values():
        tail.cap = max_capture
        tail.clear()
    result = {'ok': False, 'errorType': None, 'errorMessage': None, 'interrupted': False, 'tainted': False}
    main = types.ModuleType('__main__')
    try:
        try:
            sys.stdout = sys.__stdout__ = _Output('stdout', 1)
            sys.stderr = sys.__stderr__ = _Output('stderr', 2)
            sys.stdin = sys.__stdin__ = _Input()
            main.__dict__.update(__file__=_FILENAME, __builtins__=builtins, __cached__=None)
            sys.modules['__main__'] = main
            linecache.cache[_FILENAME] = (len(code), None, code.splitlines(True), _FILENAME)
            exec(compile(code, _FILENAME, 'exec', dont_inherit=True), main.__dict__)
            result['ok'] = True
        except SystemExit as exc:
            _on_exit(exc, result)
        except BaseException as exc:
            _on_error(exc, result)
    except BaseException as late:
        # An interrupt that landed inside the handlers above: the run is over either way.
        result['ok'] = False
        result['interrupted'] = isinstance(late, KeyboardInterrupt)
        result['tainted'] = True
    try:
        main.__dict__.clear()
        _restore()
    except BaseException:
        result['tainted'] = True
    result['combined'] = _combined.text()
    result['stdout'] = _tails['stdout'].text()
    result['stderr'] = _tails['stderr'].text()
    result['truncated'] = _combined.total > len(result['combined']) or any(t.total > t.cap for t in _tails.values())
    return json.dumps(result)
`;
