# The judge's sandboxed half (docs/sandbox.md "The judge"): _make_judge(control) builds three
# closures, begin(code, max_output, max_capture), call(request) and finish(), that the worker
# (runner.ts) calls through Pyodide's API: the program once, then one call per operation the trusted
# judge (python/trusted.py, a second interpreter that runs the tests) does on the program's names
# and objects, then the clean-up. The tests never enter this interpreter: call() serves one
# operation of the crossing (python/crossing.py): a call of the program's function with the values
# it carries, a read of one of its globals, an operation on one of its objects; values go back as
# data of their exact types, anything else as a handle, so nothing the program can reach here
# decides a verdict. A call that reaches back (a callable the tests passed in) goes out through the
# judge's device. The closures are handed to JavaScript and kept in no global, module or cache;
# the audit hook refuses interpreter frames to program code while it records (lockdown.py).
# Everything they use is bound at creation (builtins included), and around every operation they put
# back the pristine builtins, the harness's own globals, sys.modules, the import hooks, the streams
# and the trace hooks. Every run starts from a copy of the clean interpreter (memory_image.ts), so
# what a program changes here ends with it.
#
# Tampering (a changed builtin, a callable shadowing a builtin, replaced streams or hooks, edited
# sys.modules, monkeypatched stdlib callables, an exit before the tests, a value made to pass for
# data) is noted through control['note'] and returned to JavaScript with every call: it shows the
# user what was tried; the verdict does not depend on it.

def _make_judge(control):
    import atexit, builtins, gc, json, operator, os, signal, sys, types
    note, take, start, stop = control['note'], control['take'], control['start'], control['stop']
    B = _Baseline
    # Private copies of the baseline: a program that reaches _Baseline (or calls _snapshot) cannot move them.
    pristine_dicts = list(B.dicts)
    pristine_modules = dict(B.modules)
    pristine_meta_path = list(B.meta_path)
    pristine_path_hooks = list(B.path_hooks)
    pristine_path = list(B.path)
    baseline_attrs = [(name, value) for name, value in vars(B).items() if not name.startswith('__')]
    bdict = builtins.__dict__
    bkeys = tuple(bdict.keys())
    bvalues = tuple(bdict.values())
    builtin_names = frozenset(bkeys)
    module_names = {}
    for name, mod in pristine_modules.items():
        d = getattr(mod, '__dict__', None)
        if type(d) is dict and id(d) not in module_names:
            module_names[id(d)] = name
    module_names[id(globals())] = 'the sandbox harness'
    module_names[id(bdict)] = 'builtins'
    # Every object a baseline module holds: a shadowing name bound to one of them is an import, not a fake.
    stdlib_ids = frozenset(id(v) for d, keys, values in pristine_dicts for v in values)
    pristine_types = frozenset(id(v) for d, keys, values in pristine_dicts for v in values if isinstance(v, type))
    # Bound now, so nothing the program rebinds later changes what these closures call.
    type_, id_, len_, str_, callable_, issubclass_ = type, id, len, str, callable, issubclass
    list_, tuple_, set_, zip_, any_, map_ = list, tuple, set, zip, any, map
    compile_, exec_, next_, range_, getattr_, setattr_ = compile, exec, next, range, getattr, setattr
    BaseException_, SystemExit_, KeyboardInterrupt_ = BaseException, SystemExit, KeyboardInterrupt
    exit_code = SystemExit.__dict__['code'].__get__
    isinstance_ = builtins.isinstance
    os_write, os_read = os.write, os.read
    # The judge's device (runner_runtime.ts): how a call of the program reaches back to the tests'
    # side. Opened once here, before the memory image, so every run finds it open.
    device_fd = os.open(_JUDGE_DEVICE, os.O_RDWR)
    Tail, call_output = _Tail, _call_output
    CALL_OUTPUT = 1 << 20
    is_not = operator.is_not
    type_name = type.__dict__['__name__'].__get__
    type_mro = type.__dict__['__mro__'].__get__
    type_dict = type.__dict__['__dict__'].__get__
    MISSING = object()
    json_dumps = json.dumps
    Output, Input, tails, combined = _Output, _Input, _tails, _combined
    modules = sys.modules
    meta_path, path_hooks, sys_path = sys.meta_path, sys.path_hooks, sys.path
    atexit_count = atexit._ncallbacks
    gc_callbacks, gc_collect = gc.callbacks, gc.collect
    settrace, setprofile, gettrace, getprofile = sys.settrace, sys.setprofile, sys.gettrace, sys.getprofile
    monitoring = getattr(sys, 'monitoring', None)
    getsignal, default_int = signal.getsignal, signal.default_int_handler
    linecache_cache = sys.modules['linecache'].cache
    plain_bases = (int, float, str, list, tuple, dict, set, frozenset)
    SUSPECT = ('__eq__', '__ne__', '__class__', '__getattribute__', '__getattr__', '__hash__')
    # Builtins that matter only to a harness that runs tests with them: a program's own callable
    # under one of these names is flagged even when no test names it. Any other builtin name the
    # program binds (a helper called sum) is its own business: tests see the real builtins.
    HARNESS_BUILTINS = frozenset(['exec', 'eval', 'compile', '__import__', 'globals', 'locals', 'vars', 'getattr', 'setattr'])
    STREAM_KEYS = ('stdout', 'stderr', 'stdin', '__stdout__', '__stderr__', '__stdin__')
    HOOK_KEYS = ('excepthook', 'displayhook', 'unraisablehook', 'breakpointhook')
    run = {'main': None, 'streams': None, 'sys': None}

    def set_streams():
        streams = run['streams']
        if streams is None:
            return
        sys.stdout, sys.stderr, sys.stdin = streams
        sys.__stdout__, sys.__stderr__, sys.__stdin__ = streams

    def changed(d, keys, values):
        return len_(d) != len_(keys) or any_(map_(is_not, d.values(), values)) or any_(map_(is_not, d.keys(), keys))

    def put_back(d, keys, values):
        wanted = set_(keys)
        for key in [k for k in d if k not in wanted]:
            d.pop(key, None)
        for key, value in zip_(keys, values):
            if d.get(key, MISSING) is not value:
                d[key] = value
        if any_(map_(is_not, d.keys(), keys)):
            d.clear()
            d.update(zip_(keys, values))

    def check_dict(d, keys, values):
        """Notes a replaced or removed callable of a baseline module (new keys are not tampering)."""
        name = module_names.get(id_(d), '?')
        for key, value in zip_(keys, values):
            now = d.get(key, MISSING)
            if now is value:
                continue
            if d is bdict:
                note('redefines builtin ' + str_(key))
            elif name == 'the sandbox harness':
                note('modifies the sandbox harness')
                return
            elif name == 'sys':
                if key in STREAM_KEYS:
                    note('replaces sys.' + key.strip('_'))
                elif key in HOOK_KEYS:
                    note('replaces sys.' + key)
                elif callable_(value):
                    note('monkeypatches sys.' + str_(key))
            elif callable_(value):
                note('monkeypatches ' + name + '.' + str_(key))
        if d is bdict and len_(d) != len_(keys):
            for key in d:
                if key not in builtin_names:
                    note('adds builtin ' + str_(key))

    harness_dict = globals()
    light_dicts = [entry for entry in pristine_dicts if entry[0] is bdict or entry[0] is harness_dict or entry[0] is sys.__dict__]
    module_keys = tuple(pristine_modules.keys())
    module_values = tuple(pristine_modules.values())

    def expected(entry):
        """The state a dict must be in: sys's includes the streams this judgement installed."""
        sys_state = run['sys']
        if sys_state is not None and entry[0] is sys_state[0]:
            return sys_state
        return entry

    def check(full, fix):
        """Notes every kind of tampering visible now; with fix, puts the dicts it checks back.
        Light (every test): builtins, sys, the harness, sys.modules, hooks, the program's shadows.
        Full (after the program, after statement tests, at the end): every baseline module too."""
        for entry in (pristine_dicts if full else light_dicts):
            d, keys, values = expected(entry)
            if changed(d, keys, values):
                check_dict(d, keys, values)
                if fix:
                    put_back(d, keys, values)
        if changed(bdict, bkeys, bvalues):
            check_dict(bdict, bkeys, bvalues)
            if fix:
                put_back(bdict, bkeys, bvalues)
        if len_(modules) < len_(module_keys) or any_(map_(is_not, map_(modules.get, module_keys), module_values)):
            for name, mod in zip_(module_keys, module_values):
                if modules.get(name, MISSING) is not mod and name != '__main__':
                    note('edits sys.modules (' + str_(name) + ')')
                if fix:
                    modules[name] = mod
        if len_(meta_path) != len_(pristine_meta_path) or any_(map_(is_not, meta_path, pristine_meta_path)):
            note('installs an import hook (sys.meta_path)')
        if len_(path_hooks) != len_(pristine_path_hooks) or any_(map_(is_not, path_hooks, pristine_path_hooks)):
            note('installs an import hook (sys.path_hooks)')
        main = run['main']
        if main is not None:
            g = main.__dict__
            if g.get('__builtins__', builtins) is not builtins:
                note('replaces __builtins__')
            for name in HARNESS_BUILTINS.intersection(g.keys()):
                shadow(g, name)
        if gettrace() is not None:
            note('sets a trace function (sys.settrace)')
        if getprofile() is not None:
            note('sets a profile function (sys.setprofile)')
        if monitoring is not None:
            for tool in range_(6):
                if monitoring.get_tool(tool) is not None:
                    note('uses sys.monitoring')
        if atexit_count():
            note('registers an atexit handler')
        if gc_callbacks:
            note('uses gc introspection (gc.callbacks)')
        if getsignal(signal.SIGINT) is not default_int:
            note('replaces the SIGINT handler')
        if fix:
            guard()

    def shadow(g, name):
        """Notes the program's own callable bound to a builtin's name (an import is not one)."""
        value = g.get(name, MISSING)
        if value is not MISSING and callable_(value) and id_(value) not in stdlib_ids:
            note('redefines builtin ' + str_(name))

    def guard():
        """Puts back the hooks, the import machinery and the streams a test relies on."""
        settrace(None)
        setprofile(None)
        if monitoring is not None:
            for tool in range_(6):
                if monitoring.get_tool(tool) is not None:
                    monitoring.clear_tool_id(tool)
                    monitoring.free_tool_id(tool)
        main = run['main']
        if main is not None:
            modules['__main__'] = main
            main.__dict__['__builtins__'] = builtins
        if len_(meta_path) != len_(pristine_meta_path) or any_(map_(is_not, meta_path, pristine_meta_path)):
            meta_path[:] = pristine_meta_path
        if len_(path_hooks) != len_(pristine_path_hooks) or any_(map_(is_not, path_hooks, pristine_path_hooks)):
            path_hooks[:] = pristine_path_hooks
        if len_(sys_path) != len_(pristine_path) or any_(map_(is_not, sys_path, pristine_path)):
            sys_path[:] = pristine_path
        set_streams()
        linecache_cache.pop('main.py', None)
        if getsignal(signal.SIGINT) is not default_int:
            signal.signal(signal.SIGINT, default_int)

    def reasons():
        return list_(take())

    def begin(code, max_output, max_capture):
        run['sys'] = None
        reset()
        del call_output[:]
        guard()
        combined.cap = max_output
        combined.clear()
        for tail in tails.values():
            tail.cap = max_capture
            tail.clear()
        take()
        main = types.ModuleType('__main__')
        run['main'] = main
        run['streams'] = (Output('stdout', 1), Output('stderr', 2), Input())
        set_streams()
        sd = sys.__dict__
        run['sys'] = (sd, tuple_(sd.keys()), tuple_(sd.values()))
        main.__dict__.update(__file__='main.py', __builtins__=builtins, __cached__=None)
        modules['__main__'] = main
        linecache_cache.pop('main.py', None)
        ok, error_type, error, interrupted = False, None, None, False
        program = None
        try:
            # Compiled before recording starts: a SyntaxError looks for the source line by opening
            # main.py, which is not the program reading the harness's files.
            try:
                program = compile_(code, 'main.py', 'exec', dont_inherit=True)
            except KeyboardInterrupt_:
                raise
            except BaseException_ as exc:
                error_type = type_name(type_(exc))
                error = exc
            code = None
            start()
            try:
                if program is not None:
                    try:
                        exec_(program, main.__dict__)
                        ok = True
                    except SystemExit_ as exc:
                        # The program ended itself, as `sys.exit(main())` does: its definitions
                        # stand and the tests run. A failure status is a failed program, not a flag.
                        status = exit_code(exc)
                        ok = status is None or status is False or (type_(status) is int and status == 0)
                        error_type = None if ok else 'SystemExit'
                    except KeyboardInterrupt_:
                        raise
                    except BaseException_ as exc:
                        error_type = type_name(type_(exc))
                        error = exc
                    program = None
                check(True, True)
                check(False, True)
            finally:
                stop()
        except KeyboardInterrupt_:
            ok, error_type, interrupted = False, 'KeyboardInterrupt', True
        guard()
        if error is not None:
            try:
                _on_error(error, {})
            except BaseException_:
                pass
            error = None
        seen_globals['keys'] = None
        try:
            initial = json_dumps([shared_state(), generation()])
        except BaseException_:
            initial = '[null, null]'
        return [ok, error_type, interrupted, reasons(), initial]

    def suspect(t):
        """Whether a type is made to pass for plain data: a subclass of one, or custom equality or class."""
        if id_(t) in pristine_types:
            return None
        if issubclass_(t, plain_bases):
            return 'a subclass of ' + type_name(next_(b for b in plain_bases if issubclass_(t, b)))
        for klass in type_mro(t):
            if id_(klass) in pristine_types:
                continue
            own = type_dict(klass)
            for name in SUSPECT:
                if name in own:
                    return 'custom ' + name
        if id_(type_(t)) not in pristine_types:
            return 'a custom metaclass'
        return None

    def refuse(x, t):
        """A program object that would cross as a handle but is made to pass for data is refused
        and noted; any other crosses as a handle (its equality is identity there)."""
        why = suspect(t)
        if why is None:
            return None
        note('returns a value that is not plain data (' + type_name(t) + ', ' + why + ')')
        return 'the program returned a value that is not plain data: ' + type_name(t)

    calls = {'depth': 0, 'output': []}

    def before():
        calls['depth'] += 1
        if calls['depth'] == 1:
            start()
            check(False, True)

    def after():
        if calls['depth'] == 1:
            check(False, True)
            stop()
        calls['depth'] -= 1

    def start_output():
        tails_now = {'stdout': Tail(CALL_OUTPUT), 'stderr': Tail(CALL_OUTPUT)}
        call_output.append(tails_now)

    def end_output():
        tails_now = call_output.pop() if call_output else None
        if tails_now is None:
            return '', ''
        return tails_now['stdout'].text(), tails_now['stderr'].text()

    def global_value(name):
        main = run['main']
        if main is None or type_(name) is not str_:
            return False, None
        value = main.__dict__.get(name, MISSING)
        return value is not MISSING, value

    seen_globals = {'keys': None, 'values': None, 'generation': 0}

    def generation():
        """A number that changes whenever the program's globals are rebound (a name added, removed
        or bound to another object): the tests' side keeps what it read of them until it does."""
        main = run['main']
        if main is None:
            return -1
        g = main.__dict__
        keys, values = seen_globals['keys'], seen_globals['values']
        if keys is None or changed(g, keys, values):
            seen_globals['keys'] = tuple_(g.keys())
            seen_globals['values'] = tuple_(g.values())
            seen_globals['generation'] += 1
        return seen_globals['generation']

    def raised(exc):
        if isinstance_(exc, SystemExit_):
            note('exits during a test (SystemExit)')

    def send_back(text):
        """A request to the tests' side (a callable or iterator they passed): through the judge's
        device, whose write hands it to the trusted interpreter and whose reads return the reply."""
        data = text.encode('utf-8')
        written = 0
        while written < len_(data):
            written += os_write(device_fd, data[written:])
        chunks = []
        while True:
            chunk = os_read(device_fd, 1 << 20)
            if not chunk:
                break
            chunks.append(chunk)
        return b''.join(chunks).decode('utf-8')

    hooks = {
        'before': before, 'after': after, 'start_output': start_output, 'end_output': end_output,
        'global': global_value, 'raised': raised, 'refuse': refuse, 'compared': lambda proxy: None,
        'generation': generation,
        'printed': lambda out, err: None, 'interrupted': lambda: None,
        'refused': lambda message: TypeError(message),
    }
    crossing = _make_crossing('program', send_back, hooks)
    serve, reset, shared_state = crossing['serve'], crossing['reset'], crossing['outgoing_state']

    def call(request):
        """One operation from the trusted judge (python/trusted.py, through JavaScript): a call of
        the program's function, a read of one of its globals, an operation on an object of its
        (python/crossing.py). Returns the reasons noted so far, a newline, and the reply. Nothing
        of the tests is here: only the values this operation carries."""
        reply = serve(request)
        return json_dumps(reasons()) + '\n' + reply

    def finish():
        main = run['main']
        reset()
        seen_globals['keys'] = seen_globals['values'] = None
        start()
        try:
            if main is not None:
                main.__dict__.clear()
            gc_collect(0)
            check(True, True)
        finally:
            stop()
            run['main'] = None
        for name, value in baseline_attrs:
            if getattr_(B, name, MISSING) is not value:
                note('modifies the sandbox harness')
                setattr_(B, name, value)
        found = reasons()
        tainted = len_(found) > 0
        try:
            _restore(False)
        except BaseException_:
            tainted = True
        text = combined.text()
        return [found, tainted, text, tails['stdout'].text(), tails['stderr'].text(),
                combined.total > len_(text) or any_(t.total > t.cap for t in tails.values())]

    return {'begin': begin, 'call': call, 'finish': finish}
