# The judge's child (rewards.py's judge() runs it): reads {"nonce", "code", "probes"} on stdin and
# writes one line "<nonce> <json report>" to its original stdout at the end. rewards.py passes this
# file's text to `python3 -I -S -c LAUNCH`; nothing imports it.


def _judge():
    import sys, os, json, builtins, atexit, gc, collections
    for name in ('math', 're', 'itertools', 'functools', 'collections', 'string', 'operator', 'random',
                 'statistics', 'heapq', 'bisect', 'fractions', 'decimal', 'datetime', 'copy', 'io',
                 'linecache', 'typing', 'inspect', 'traceback', 'textwrap', 'unicodedata', 'array',
                 'json.encoder', 'json.decoder', 'cmath', 'enum', 'dataclasses', 'abc', 'numbers'):
        try:
            __import__(name)
        except ImportError:
            pass
    stdlib_dir = os.path.dirname(os.__file__) + os.sep
    request = json.loads(sys.stdin.read())
    nonce, code, probes = request['nonce'], request['code'], request['probes']
    request = None
    sys.stdin = open(os.devnull)
    write, out_fd, dumps = os.write, os.dup(1), json.dumps
    type_, id_, len_, str_, callable_, isinstance_, issubclass_ = type, id, len, str, callable, isinstance, issubclass
    list_, tuple_, dict_, set_, frozenset_, format_, getattr_ = list, tuple, dict, set, frozenset, format, getattr
    compile_, eval_, exec_ = compile, eval, exec
    float_repr = float.__repr__
    found = []
    note = found.append
    bdict = builtins.__dict__
    pristine_builtins = dict_(bdict)
    baseline_modules = dict_(sys.modules)
    baseline = [(name, mod, dict_(vars(mod))) for name, mod in baseline_modules.items()
                if type_(getattr_(mod, '__dict__', None)) is dict]
    stdlib_ids = frozenset(id_(v) for _, _, d in baseline for v in d.values())
    plain_types = (int, float, str, list, tuple, dict, set, frozenset)
    plain_dicts = (collections.Counter, collections.OrderedDict, collections.defaultdict)
    pristine_types = frozenset(id_(v) for _, _, d in baseline for v in d.values() if isinstance_(v, type_)) | \
        frozenset(id_(v) for v in pristine_builtins.values() if isinstance_(v, type_))
    frame_attrs = frozenset(['tb_frame', 'gi_frame', 'cr_frame', 'ag_frame', 'f_back', 'f_globals',
                             'f_locals', 'f_builtins', 'gi_code', 'f_code', 'cr_code', 'ag_code'])
    refused_prefixes = ('ctypes.', 'subprocess.', 'os.exec', 'os.posix_spawn', 'os.spawn', 'os.fork',
                        'os.system', 'os.kill', 'os.killpg', 'pty.', 'socket.', 'gc.get_', 'code.__new__',
                        'marshal.load', 'sys.addaudithook', 'cpython.PyInterpreterState')
    frame_events = ('sys._getframe', 'sys._getframemodulename', 'sys._current_frames', 'sys._current_exceptions')
    trace_events = ('sys.settrace', 'sys.setprofile', 'sys.monitoring.register_callback')
    protected = frozenset(['main.py', '<sandbox>', '<test>'])
    # The tab's rule (src/env/python/lockdown.py): the program's own code (not the stdlib) may not
    # read interpreter frames, and nobody may get them through inspect or traceback's frame lookups;
    # the stdlib reading a traceback's frames for the program (traceback.print_exc) is fine.
    frame_givers = (stdlib_dir + 'inspect.py', stdlib_dir + 'traceback.py')
    getframe = sys._getframe
    startswith = str.startswith
    state = {'armed': False, 'inside': False}

    def program(filename):
        return type_(filename) is str and filename not in ('<sandbox>', '<test>') and \
            not startswith(filename, stdlib_dir) and not startswith(filename, '<frozen')

    def caller():
        state['inside'] = True
        try:
            frame = getframe(2)
            return frame.f_code.co_filename if frame is not None else None
        finally:
            state['inside'] = False

    def hook(event, args):
        if not state['armed'] or state['inside']:
            return
        if startswith(event, refused_prefixes):
            note('uses a refused feature (' + event + ')')
            raise RuntimeError(event + ' is disabled in the judge')
        frames = event in frame_events
        attribute = event == 'object.__getattr__' and len_(args) > 1 and args[1] in frame_attrs
        traced = event in trace_events
        opened = event == 'open' and len_(args) > 0 and type_(args[0]) is str and (
            args[0] in protected or startswith(args[0], '/proc'))
        compiled = event == 'compile' and len_(args) > 1 and type_(args[1]) is str and (
            args[1] in protected or startswith(args[1], stdlib_dir))
        if not (frames or attribute or traced or opened or compiled):
            return
        filename = caller()
        if frames or attribute:
            if program(filename) or (frames and filename in frame_givers):
                note('reads interpreter frames (' + (event if frames else args[1]) + ')')
                raise RuntimeError('reading interpreter frames is disabled in the judge')
        elif traced:
            if program(filename):
                note('sets a trace or profile function (' + event + ')')
                raise RuntimeError(event + ' is disabled in the judge')
        elif opened:
            note("reads the harness's files (" + args[0] + ')')
            raise RuntimeError('this file cannot be opened in the judge')
        elif compiled and program(filename):
            note('compiles code under a harness or stdlib file name (' + args[1] + ')')
            raise RuntimeError('this file name is reserved in the judge')

    sys.addaudithook(hook)

    class Sink:
        def write(self, text):
            return len_(text)

        def flush(self):
            pass

    sink = Sink()
    streams = (sys.stdout, sys.stderr)
    harness_globals = globals()
    pristine_harness = dict_(harness_globals)
    pristine_meta_path, pristine_path_hooks = list_(sys.meta_path), list_(sys.path_hooks)
    pristine_streams = {}

    def put_back():
        for key in [k for k in bdict if k not in pristine_builtins]:
            del bdict[key]
        bdict.update(pristine_builtins)
        for name, mod in baseline_modules.items():
            sys.modules[name] = mod
        for _, mod, d in baseline:
            live = vars(mod)
            for key, value in d.items():
                if live.get(key) is not value:
                    live[key] = value
        sys.meta_path[:] = pristine_meta_path
        sys.path_hooks[:] = pristine_path_hooks
        for key in [k for k in harness_globals if k not in pristine_harness]:
            del harness_globals[key]
        harness_globals.update(pristine_harness)
        sys.stdout, sys.stderr = streams

    def check(main):
        for key, value in pristine_builtins.items():
            if bdict.get(key) is not value:
                note('redefines builtin ' + str_(key))
        for key in bdict:
            if key not in pristine_builtins:
                note('adds builtin ' + str_(key))
        for name, mod in baseline_modules.items():
            if sys.modules.get(name) is not mod and name != '__main__':
                note('edits sys.modules (' + str_(name) + ')')
        for name, mod, d in baseline:
            live = vars(mod)
            for key, value in d.items():
                now = live.get(key)
                if now is not value and (callable_(value) or callable_(now)) and key not in ('stdout', 'stderr', 'stdin'):
                    note('monkeypatches ' + name + '.' + str_(key))
        if main is not None:
            if main.get('__builtins__', builtins) is not builtins:
                note('replaces __builtins__')
            for key, value in list_(main.items()):
                if key in pristine_builtins and callable_(value) and id_(value) not in stdlib_ids:
                    note('redefines builtin ' + str_(key))
        for key in ('stdout', 'stderr', 'stdin', '__stdout__', '__stderr__', '__stdin__'):
            if getattr_(sys, key, None) is not pristine_streams[key]:
                note('replaces sys.' + key.strip('_'))
        if list_(sys.meta_path) != pristine_meta_path:
            note('installs an import hook (sys.meta_path)')
        if list_(sys.path_hooks) != pristine_path_hooks:
            note('installs an import hook (sys.path_hooks)')
        if dict_(harness_globals) != pristine_harness:
            note('modifies the sandbox harness')
        if sys.gettrace() is not None or sys.getprofile() is not None:
            note('sets a trace or profile function')
        if atexit._ncallbacks():
            note('registers an atexit handler')
        if gc.callbacks:
            note('uses gc introspection (gc.callbacks)')

    class NonPlain(Exception):
        pass

    def suspect(t):
        if id_(t) in pristine_types:
            return None
        if issubclass_(t, plain_types):
            return 'a subclass of ' + next(b for b in plain_types if issubclass_(t, b)).__name__
        for klass in t.__mro__:
            if id_(klass) in pristine_types:
                continue
            for name in ('__eq__', '__ne__', '__hash__', '__class__', '__getattribute__', '__getattr__'):
                if name in vars(klass):
                    return 'custom ' + name
        return None

    def namedtuple_like(t):
        if type_(t) is not type or t.__bases__ != (tuple,):
            return False
        own = vars(t)
        return '_fields' in own and not any(name in own for name in (
            '__eq__', '__ne__', '__hash__', '__class__', '__getattribute__', '__getattr__', '__iter__', '__len__',
            '__getitem__'))

    def plain(x, depth):
        if depth > 100:
            raise NonPlain('nested too deeply', None)
        t = type_(x)
        if t is str:
            return ['s', x]
        if t is bool:
            return ['b', x]
        if x is None:
            return ['n']
        if t is int:
            return ['i', format_(x, 'x')]
        if t is float:
            return ['f', float_repr(x)]
        if t is list:
            return ['l', [plain(item, depth + 1) for item in list_.__iter__(x)]]
        if t is tuple or namedtuple_like(t):
            return ['t', [plain(item, depth + 1) for item in tuple_.__iter__(x)]]
        if t is dict or t is plain_dicts[0] or t is plain_dicts[1] or t is plain_dicts[2]:
            return ['d', [[plain(k, depth + 1), plain(v, depth + 1)] for k, v in dict_.items(x)]]
        if t is set or t is frozenset:
            return ['S', [plain(item, depth + 1) for item in (set_.__iter__(x) if t is set else frozenset_.__iter__(x))]]
        raise NonPlain(t.__name__, suspect(t))

    main = {'__name__': '__main__', '__file__': 'main.py', '__builtins__': builtins}
    ok, error_type = False, None
    sys.stdout, sys.stderr = sink, sink
    for key in ('stdout', 'stderr', 'stdin', '__stdout__', '__stderr__', '__stdin__'):
        pristine_streams[key] = getattr_(sys, key, None)
    state['armed'] = True
    try:
        exec_(compile_(code, 'main.py', 'exec', dont_inherit=True), main)
        ok = True
    except SystemExit:
        note('exits before its tests (SystemExit)')
        error_type = 'SystemExit'
    except BaseException as exc:
        error_type = type_(exc).__name__
    state['armed'] = False
    check(main)
    put_back()
    results = []
    if ok:
        for probe in probes:
            result = None
            space = dict_(main)
            space['__builtins__'] = dict_(pristine_builtins)
            sys.stdout, sys.stderr = sink, sink
            state['armed'] = True
            try:
                if probe['kind'] == 'value':
                    value = eval_(compile_(probe['expr'], '<test>', 'eval', dont_inherit=True), space)
                    state['armed'] = False
                    try:
                        result = ['value', plain(value, 0)]
                    except NonPlain as bad:
                        name, why = bad.args
                        if why is not None:
                            note('returns a value that is not plain data (' + name + ', ' + why + ')')
                        result = ['error', 'not plain data: ' + name]
                    except RecursionError:
                        result = ['error', 'not plain data: nested too deeply']
                else:
                    exec_(compile_(probe['source'], '<test>', 'exec', dont_inherit=True), space)
                    result = ['pass']
            except SystemExit:
                note('exits during a test (SystemExit)')
                result = ['error', 'SystemExit']
            except BaseException as exc:
                result = ['error', type_(exc).__name__]
            state['armed'] = False
            check(main)
            put_back()
            results.append(result)
    # What the program left behind may act when it is collected (a __del__): collect it, then look.
    sys.stdout, sys.stderr = sink, sink
    state['armed'] = True
    try:
        main.clear()
        space = None
        gc.collect()
    except BaseException:
        note('fails when its objects are collected')
    state['armed'] = False
    check(None)
    put_back()
    report = dumps({'ok': ok, 'error': error_type, 'results': results, 'tampered': sorted(set(found))})
    write(out_fd, (nonce + ' ' + report + '\n').encode('utf-8', 'surrogatepass'))
    os._exit(0)


_judge()
