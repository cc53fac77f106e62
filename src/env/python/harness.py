# The program runner: each program runs in a fresh __main__ under the file name main.py, with
# CPython-style tracebacks that hide this module's frames (it is compiled as <sandbox>). Also the
# refusals the lockdown installs (os._exit, os.abort, gc introspection) and time.sleep on the sleep
# device. The two quoted ${…} placeholders are values the TypeScript side shares; harness_source.ts
# writes them in.
# Defines _run(code, max_output, max_capture) -> json.

import builtins, json, linecache, os, sys, time, traceback, types

_FILENAME = '${PROGRAM_FILENAME}'
_HARNESS_FILE = '<sandbox>'
_SLEEP_DEVICE = '${SLEEP_DEVICE}'
_JUDGE_DEVICE = '${JUDGE_DEVICE}'


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
    reason = ('uses gc introspection (' + what + ')') if what.startswith('gc.') else ('calls ' + what)
    def refused(*args, **kwargs):
        sys.audit('sandbox.tamper', reason)
        raise RuntimeError(what + ' is disabled in the sandbox')
    return refused


def _exit(status=0):
    sys.audit('sandbox.tamper', 'calls os._exit')
    raise SystemExit(status)


def _abort():
    sys.audit('sandbox.tamper', 'calls os.abort')
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
