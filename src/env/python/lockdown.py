# The lockdown (docs/architecture.md §7), the harness's last part, run once per worker before any
# model-written code. Python-level isolation is never airtight on its own, so the goal is narrower
# and checkable: after _lockdown() no object that leads to JavaScript (JsProxy instances, the
# _pyodide_core functions that make them, Pyodide's own modules) is reachable from anything a
# program can touch, and the primitives that would enumerate or recreate them (gc.get_objects,
# _imp.create_builtin/create_dynamic) are replaced by guarded versions whose originals are dropped.
# _lockdown(True) also runs a reachability audit over the object graph and reports what it found.
# What the lockdown takes away must not take the standard library with it: every stdlib name it
# touches stays bound to something that behaves as CPython does (test/env/stdlib_lockdown.test.ts
# runs a broad sweep of stdlib calls through execute and the judge).
# Defines _lockdown(audit: bool) -> {report: json, begin, call, finish}.

import builtins, gc, json, os, posix, sys, time, types

# Top-level module names a program may not import: JS bridges, native-code routes, crash helpers.
_DENIED = frozenset([
    'js', 'pyodide_js', 'pyodide', '_pyodide', '_pyodide_core', 'micropip',
    'pyodide_http', 'ctypes', '_ctypes', '_testcapi', '_testinternalcapi', '_testbuffer',
    '_testclinic', '_testclinic_limited', '_testlimitedcapi', '_testmultiphase', '_testsinglephase', '_xxtestfuzz',
    'xxsubtype', '_remote_debugging', '_posixsubprocess', 'faulthandler', 'mmap', 'termios',
])
# Pure-stdlib modules imported up front: they join the baseline, so programs import them for free.
_WARM = [
    'abc', 'array', 'bisect', 'calendar', 'cmath', 'collections', 'collections.abc', 'copy',
    'csv', 'dataclasses', 'datetime', 'decimal', 'difflib', 'enum', 'fractions', 'functools',
    'hashlib', 'heapq', 'itertools', 'json', 'math', 'numbers', 'operator', 'pprint',
    'random', 're', 'statistics', 'string', 'textwrap', 'typing', 'unicodedata', 'io',
    'time', 'sys', 'os', 'traceback', 'contextlib', 'types', 'weakref', 'queue',
]
_builtin_cache = {}


def _denied(name):
    return isinstance(name, str) and name.partition('.')[0] in _DENIED


def _blocked(name):
    return ImportError("import of '" + name + "' is not allowed in the sandbox", name=name)


class _ImportGuard:
    """First finder on sys.meta_path: refuses modules that lead to JavaScript or native code."""

    @classmethod
    def find_spec(cls, name, path=None, target=None):
        if _denied(name):
            raise _blocked(name)
        return None

    @classmethod
    def invalidate_caches(cls):
        pass


def _create_builtin(spec):
    """_imp.create_builtin without the original: only modules created during the lockdown exist."""
    name = getattr(spec, 'name', None)
    module = _builtin_cache.get(name) if type(name) is str else None
    if module is None:
        raise _blocked(str(name))
    return module


def _create_dynamic(spec, file=None):
    raise _blocked(str(getattr(spec, 'name', spec)))


_BRIDGE_TYPES = ('JsFuncSignature', 'Js2PyConverter', 'Py2JsConverter', 'JsMethodCallSingleton')


def _is_bridge(obj, jsproxy_type):
    """A JS proxy, or an instance of any Pyodide class (Python or C): none may stay reachable."""
    if isinstance(obj, jsproxy_type):
        return True
    if isinstance(obj, type):
        return False
    kind = type(obj)
    return _denied(getattr(kind, '__module__', None)) or kind.__name__ in _BRIDGE_TYPES


def _scrub_pyodide(jsproxy_type):
    """Cuts every Python-side path to JavaScript that Pyodide leaves after start-up."""
    import asyncio, asyncio.events, asyncio.runners
    hook = sys.modules.get('_pyodide._importhook')
    finder = getattr(hook, 'jsfinder', None)
    if finder is not None:
        finder.jsproxies.clear()
    sys.meta_path[:] = [f for f in sys.meta_path if f is not finder and not _denied(getattr(f, '__module__', ''))]
    sys.path_hooks[:] = [h for h in sys.path_hooks if not _denied(getattr(h, '__module__', ''))]
    asyncio.events._event_loop_policy = None
    asyncio.events._set_running_loop(None)
    for name in [n for n in sys.modules if _denied(n)]:
        module = sys.modules.pop(name)
        if isinstance(module, types.ModuleType):
            module.__dict__.clear()
    # JS proxies Pyodide planted in other modules: json.encoder._JSNULL (Pyodide's jsnull, which
    # the pure-Python encoder behind json.dump and iterencode compares every value with). The name
    # stays bound, to None, json.encoder's own default: deleting it made every json.dump a NameError.
    for module in list(sys.modules.values()):
        namespace = getattr(module, '__dict__', None)
        if type(namespace) is dict:
            for key in [k for k, v in namespace.items() if _is_bridge(v, jsproxy_type)]:
                namespace[key] = None
    # Pyodide's asyncio.run wraps the stdlib's to run on its WebLoop; its module is cleared above.
    asyncio.run = asyncio.runners.run
    # Pyodide's own __main__ (pyodide.globals) imported _pyodide_core; programs get a clean one.
    old_main = sys.modules.get('__main__')
    sys.modules['__main__'] = types.ModuleType('__main__')
    if old_main is not None:
        old_main.__dict__.clear()
    atexit._clear()


def _install_event_loop():
    """asyncio without Pyodide's WebLoop (it runs on JavaScript's timers, and is gone): a loop with
    no I/O, whose wait for the next timer is the harness's sleep, so asyncio.run, tasks, gather,
    sleep, queues and wait_for work as in CPython. The stdlib's own loop cannot stand in: it needs
    a socket pair to wake itself, and sockets fail here. What needs threads, sockets or processes
    (run_in_executor, open_connection, subprocesses) fails as it does in Pyodide anyway."""
    import asyncio, asyncio.events
    sleep, monotonic = _sleep, time.monotonic

    class _IdleSelector:
        """No file descriptor can become ready: waiting is sleeping until the next timer, in short
        slices, so a callback a signal handler schedules (asyncio.run's answer to the deadline's
        interrupt cancels the main task) ends the wait."""

        def __init__(self, ready):
            self._ready = ready

        def select(self, timeout=None):
            end = None if timeout is None else monotonic() + timeout
            while not self._ready:
                left = 0.05 if end is None else min(end - monotonic(), 0.05)
                if left <= 0:
                    break
                sleep(left)
            return []

        def close(self):
            pass

    class SandboxEventLoop(asyncio.BaseEventLoop):
        def __init__(self):
            super().__init__()
            self._selector = _IdleSelector(self._ready)

        def _process_events(self, event_list):
            pass

        def _write_to_self(self):
            pass

    class SandboxEventLoopPolicy(asyncio.events._BaseDefaultEventLoopPolicy):
        _loop_factory = SandboxEventLoop

    asyncio.events._event_loop_policy = SandboxEventLoopPolicy()


def _audit(get_referents, danger, jsproxy_type):
    """Walks the object graph from everything a program can reach; returns what should not be there."""
    import contextvars, weakref
    danger_ids = {id(o): o for o in danger}
    roots = [builtins, sys, sys.modules, globals(), object, contextvars.copy_context()]
    parent = {id(r): None for r in roots}
    stack = list(roots)
    findings = []

    def describe(o):
        try:
            return type(o).__name__ + ' ' + repr(o)[:60]
        except Exception:
            return type(o).__name__

    while stack:
        obj = stack.pop()
        if id(obj) in danger_ids or _is_bridge(obj, jsproxy_type):
            chain = []
            link = obj
            while link is not None and len(chain) < 12:
                chain.append(describe(link))
                link = parent.get(id(link))
            findings.append(' <- '.join(chain))
            continue
        children = list(get_referents(obj))
        if isinstance(obj, type):
            try:
                children += type.__subclasses__(obj)
            except TypeError:
                pass
        elif isinstance(obj, weakref.ref):
            target = obj()
            if target is not None:
                children.append(target)
        for child in children:
            if id(child) not in parent:
                parent[id(child)] = obj
                stack.append(child)
    return {'findings': findings, 'visited': len(parent)}


_STDLIB_PREFIX = os.path.dirname(os.__file__) + '/'
_FRAME_GIVERS = (_STDLIB_PREFIX + 'inspect.py', _STDLIB_PREFIX + 'traceback.py')
_FRAME_ATTRS = frozenset(['tb_frame', 'gi_frame', 'cr_frame', 'ag_frame', 'f_code', 'f_back', 'f_locals', 'f_globals', 'gi_code', 'cr_code', 'ag_code'])
_PROTECTED_FILES = frozenset(['main.py', '<sandbox>', '<test>'])


def _install_audit_hook(add_hook):
    """Refuses the events that build code objects from raw bytes (the classic bytecode-based
    memory corruption). The hook keeps no reference a program can reach except through the
    interpreter's hook list, which Python cannot enumerate.

    It also has a recording mode for the judge (judge.py), switched only through the control
    functions returned here, which the harness hands to JavaScript and keeps in no global: while it
    records, the program's own code (any file but the stdlib and the harness) reading interpreter
    frames is noted and refused, and so are trace and profile functions, the harness's files, and
    code compiled under a stdlib or harness file name. The caller is found inside the hook, with
    re-entrant events (its own frame lookups) ignored."""
    # Everything the hook uses is bound here, as closure cells: a program that rebinds a builtin
    # or one of the harness's globals does not change what the hook checks.
    type, len, str, list, RuntimeError = builtins.type, builtins.len, builtins.str, builtins.list, builtins.RuntimeError
    getframe = sys._getframe
    startswith = str.startswith
    # types.coroutine marks a generator function as an iterable coroutine with code.replace (one
    # flag, on code that was compiled): the one code construction the stdlib needs at run time.
    coroutine_code = types.coroutine.__code__
    stdlib_prefix, frame_givers, frame_attrs, protected = _STDLIB_PREFIX, _FRAME_GIVERS, _FRAME_ATTRS, _PROTECTED_FILES
    state = {'on': False, 'busy': False, 'reasons': []}
    reasons = state['reasons']
    disabled = RuntimeError

    def program(filename):
        return type(filename) is str and filename not in ('<sandbox>', '<test>') and not startswith(filename, stdlib_prefix) and not startswith(filename, '<frozen')

    def caller():
        frame = getframe(2)
        return frame.f_code.co_filename if frame is not None else None

    def note(reason):
        if reason not in reasons:
            reasons.append(reason)

    def from_coroutine():
        """Whether the code being built is types.coroutine's (the frame that raised the event)."""
        busy = state['busy']
        state['busy'] = True
        try:
            frame = getframe(2)
            return frame is not None and frame.f_code is coroutine_code
        finally:
            state['busy'] = busy

    def hook(event, args):
        if event == 'code.__new__' or event == 'marshal.loads' or event == 'marshal.load':
            if event == 'code.__new__' and from_coroutine():
                return
            raise RuntimeError(event + ' is disabled in the sandbox')
        if not state['on'] or state['busy']:
            return
        if event == 'sandbox.tamper':
            note(str(args[0]) if args else 'tampers with the sandbox')
            return
        frames = event == 'sys._getframe' or event == 'sys._getframemodulename' or event == 'sys._current_frames' or event == 'sys._current_exceptions'
        attribute = event == 'object.__getattr__' and len(args) > 1 and args[1] in frame_attrs
        traced = event == 'sys.settrace' or event == 'sys.setprofile' or event == 'sys.monitoring.register_callback'
        opened = event == 'open' and len(args) > 0 and type(args[0]) is str and args[0] in protected
        compiled = event == 'compile' and len(args) > 1 and type(args[1]) is str and (args[1] in protected or startswith(args[1], stdlib_prefix))
        if not (frames or attribute or traced or opened or compiled):
            return
        state['busy'] = True
        try:
            filename = caller()
        finally:
            state['busy'] = False
        if frames or attribute:
            if program(filename) or (frames and filename in frame_givers):
                what = event if frames else args[1]
                note('reads interpreter frames (' + what + ')')
                raise disabled('reading interpreter frames is disabled while the tests run')
        elif traced:
            if program(filename):
                note('sets a trace or profile function (' + event + ')')
                raise disabled(event + ' is disabled while the tests run')
        elif opened:
            note("reads the harness's files (" + str(args[0]) + ')')
            raise disabled('this file cannot be opened in the sandbox')
        elif compiled and program(filename):
            note('compiles code under a harness or stdlib file name (' + args[1] + ')')
            raise disabled('this file name is reserved in the sandbox')

    def take():
        found = list(reasons)
        reasons.clear()
        return found

    def start():
        state['on'] = True

    def stop():
        state['on'] = False

    add_hook(hook)
    return {'note': note, 'take': take, 'start': start, 'stop': stop}


def _system(command):
    """os.system as the browser's Pyodide has it: no shell, -1. (Under Node, Emscripten's system()
    runs the command on the host through child_process.)"""
    sys.audit('os.system', os.fsencode(command))
    return -1


def _watch_linecache():
    """Wraps linecache's readers: while the judge records, the program asking it for the program's
    or the harness's source is tampering (tracebacks the stdlib formats are not)."""
    import linecache
    getframe = sys._getframe
    audit = sys.audit
    protected = _PROTECTED_FILES
    prefix = _STDLIB_PREFIX
    for name in ('getline', 'getlines', 'updatecache', 'checkcache', 'lazycache'):
        original = getattr(linecache, name, None)
        if original is None:
            continue

        def make(original, name):
            def watched(*args, **kwargs):
                filename = args[0] if args else kwargs.get('filename')
                if type(filename) is str and filename in protected:
                    caller = getframe(1).f_code.co_filename
                    if type(caller) is str and caller not in ('<sandbox>', '<test>') and not caller.startswith(prefix):
                        audit('sandbox.tamper', 'reads the program through linecache (' + name + ')')
                return original(*args, **kwargs)
            watched.__name__ = name
            watched.__qualname__ = name
            watched.__doc__ = original.__doc__
            return watched
        setattr(linecache, name, make(original, name))


def _lockdown(run_audit):
    import _imp, weakref
    for name in _WARM:
        try:
            __import__(name)
        except Exception:
            pass
    for name in sys.builtin_module_names:
        if not _denied(name):
            try:
                __import__(name)
                _builtin_cache[name] = sys.modules[name]
            except Exception:
                pass
    core = sys.modules['_pyodide_core']
    proxies = list(sys.modules['_pyodide._importhook'].jsfinder.jsproxies.values())
    # The base of every JS proxy class (Pyodide derives one subclass per kind of JS object).
    jsproxy_type = [t for t in type(proxies[0]).__mro__ if t.__name__ == 'JsProxy'][-1]
    danger = [core] + [v for v in vars(core).values() if callable(v) and not isinstance(v, type)] + proxies
    danger += [_imp.create_builtin, _imp.create_dynamic]
    danger += [gc.get_objects, gc.get_referrers, gc.get_referents, posix._exit, posix.abort, posix.system]
    get_referents = gc.get_referents
    _scrub_pyodide(jsproxy_type)
    core = proxies = None
    sys.meta_path.insert(0, _ImportGuard)
    _imp.create_builtin = _create_builtin
    _imp.create_dynamic = _create_dynamic
    gc.get_objects = _refuse('gc.get_objects')
    gc.get_referrers = _refuse('gc.get_referrers')
    gc.get_referents = _refuse('gc.get_referents')
    sys.dont_write_bytecode = True
    control = _install_audit_hook(sys.addaudithook)
    sys.addaudithook = _refuse('sys.addaudithook')
    _watch_linecache()
    os._exit = posix._exit = _exit
    os.abort = posix.abort = _abort
    os.system = posix.system = _system
    time.sleep = _sleep
    _sleep_fd[0] = os.open(_SLEEP_DEVICE, os.O_WRONLY)
    _install_event_loop()
    # weakref.finalize registers one atexit hook on first use (tempfile.TemporaryDirectory's, for
    # one). No atexit hook runs here (a run ends without the interpreter exiting; restore.py clears
    # them) and the judge reads a registered one as the program's doing: count it as registered.
    weakref.finalize._registered_with_atexit = True
    signal.signal(signal.SIGINT, signal.default_int_handler)
    gc.collect()
    findings = _audit(get_referents, danger, jsproxy_type) if run_audit else None
    danger = get_referents = jsproxy_type = None
    _snapshot()
    judge = _make_judge(control)
    control = None
    return {'report': json.dumps(findings), **judge}
