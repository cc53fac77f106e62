# The trusted judge (docs/sandbox.md "The judge"): it runs in a second Pyodide interpreter of the
# sandbox worker, one that never runs model-written code. A task's test source runs here, top to
# bottom in one namespace; the program's functions are stand-ins whose calls cross to the sandboxed
# interpreter and back as plain data only (python/judge.py `call`, the same tagged encoding as a
# value test's result). So the judged program sees the arguments of each call and nothing else: not
# the tests' code, their frames, their namespace or the values they compare with, and no object of
# its own ever reaches a comparison.
# Defines _make_trusted(cross) -> judge(names_json, tests_json) -> json.


def _make_trusted(cross):
    """cross(request_json) -> reply_json: one call into the sandboxed interpreter (runner.ts)."""
    import builtins, collections, json

    MAX_DEPTH = 100
    # Exceptions a program's call may end in, raised here under the same name so that a test can
    # catch them (`except ValueError`); any other name raises ProgramError.
    exceptions = {
        name: value
        for name, value in vars(builtins).items()
        if isinstance(value, type) and issubclass(value, Exception)
    }

    class ProgramError(Exception):
        """The program's function raised an exception that is not a builtin one."""

    class Deadline(BaseException):
        """The deadline interrupted the program (or the sandbox failed): the judgement stops."""

    class NotPlain(Exception):
        pass

    def encode(x, depth=0):
        """Plain data (exact built-in types) in judge.py's tagged form; NotPlain otherwise."""
        if depth > MAX_DEPTH:
            raise NotPlain('nested too deeply')
        t = type(x)
        if t is str:
            return ['s', x]
        if t is bool:
            return ['b', x]
        if x is None:
            return ['n']
        if t is int:
            return ['i', format(x, 'x')]
        if t is float:
            return ['f', float.__repr__(x)]
        if t is list:
            return ['l', [encode(item, depth + 1) for item in x]]
        if t is tuple or (issubclass(t, tuple) and hasattr(t, '_fields')):
            return ['t', [encode(item, depth + 1) for item in x]]
        if t is dict or t is collections.Counter or t is collections.OrderedDict or t is collections.defaultdict:
            return ['d', [[encode(k, depth + 1), encode(v, depth + 1)] for k, v in x.items()]]
        if t is set or t is frozenset:
            return ['S', [encode(item, depth + 1) for item in x]]
        raise NotPlain(t.__name__)

    def decode(e, depth=0, key=False):
        """The tagged form back to values; anything malformed raises NotPlain. A set inside a set or
        used as a key becomes a frozenset (Python's sets hold only hashable items)."""
        if depth > MAX_DEPTH or type(e) is not list or not e or type(e[0]) is not str:
            raise NotPlain('malformed reply')
        tag = e[0]
        payload = e[1] if len(e) == 2 else None
        if tag == 'n' and len(e) == 1:
            return None
        if tag == 's' and type(payload) is str:
            return payload
        if tag == 'b' and type(payload) is bool:
            return payload
        if tag == 'i' and type(payload) is str:
            return int(payload, 16)
        if tag == 'f' and type(payload) is str:
            return float(payload)
        if type(payload) is list:
            if tag == 'l' and not key:
                return [decode(item, depth + 1) for item in payload]
            if tag == 't':
                return tuple(decode(item, depth + 1, key) for item in payload)
            if tag == 'S':
                items = [decode(item, depth + 1, True) for item in payload]
                return frozenset(items) if key else set(items)
            if tag == 'd' and not key:
                pairs = {}
                for pair in payload:
                    if type(pair) is not list or len(pair) != 2:
                        raise NotPlain('malformed reply')
                    pairs[decode(pair[0], depth + 1, True)] = decode(pair[1], depth + 1)
                return pairs
        raise NotPlain('malformed reply')

    def request(message):
        try:
            reply = json.loads(cross(json.dumps(message)))
        except (ValueError, RecursionError):
            raise NotPlain('malformed reply') from None
        if type(reply) is not list or not reply or type(reply[0]) is not str:
            raise NotPlain('malformed reply')
        kind = reply[0]
        if kind == 'interrupted':
            raise Deadline()
        if kind == 'raised' and len(reply) == 2 and type(reply[1]) is str:
            raise exceptions.get(reply[1], ProgramError)(
                'the program raised ' + reply[1][:100]
            )
        if kind == 'nonplain' and len(reply) == 2 and type(reply[1]) is str:
            raise TypeError('the program returned a value that is not plain data: ' + reply[1][:100])
        if kind == 'value' and len(reply) >= 2:
            return reply
        raise NotPlain('malformed reply')

    def update(arg, after):
        """Puts what the call left in a mutable argument back into the test's own object."""
        if after is None:
            return
        value = decode(after)
        if type(arg) is list and type(value) is list:
            arg[:] = value
        elif type(arg) is dict and type(value) is dict:
            arg.clear()
            arg.update(value)
        elif type(arg) is set and type(value) is set:
            arg.clear()
            arg.update(value)

    class Remote:
        """One of the program's callables, as the tests see it: its calls cross as plain data."""

        __slots__ = ('_name',)

        def __init__(self, name):
            self._name = name

        def __call__(self, *args, **kwargs):
            try:
                message = ['call', self._name, encode(list(args)), encode(kwargs)]
            except NotPlain as bad:
                raise NotPlain('not plain data: ' + str(bad)) from None
            except RecursionError:
                raise NotPlain('not plain data: nested too deeply') from None
            reply = request(message)
            after = reply[2] if len(reply) == 3 and type(reply[2]) is list else []
            for arg, state in zip(args, after):
                update(arg, state)
            return decode(reply[1])

        def __repr__(self):
            return '<the program\'s ' + self._name + '>'

    def program_names(names, wanted):
        """The tests' view of the program's globals: its callables as stand-ins, its plain values,
        the stdlib modules it imported (imported here). A builtin's name the program binds is not
        what a test sees: the real builtin is."""
        space = {}
        for name, kind in names.items():
            if name not in wanted or hasattr(builtins, name) or type(kind) is not list or not kind:
                continue
            if kind[0] == 'call':
                space[name] = Remote(name)
            elif kind[0] == 'module' and len(kind) == 2 and type(kind[1]) is str:
                try:
                    space[name] = __import__(kind[1], fromlist=['_'])
                except ImportError:
                    pass
            elif kind[0] == 'value':
                try:
                    space[name] = decode(request(['get', name])[1])
                except (NotPlain, TypeError):
                    pass
        return space

    def names_of(code, found):
        """Every global name a compiled test (and the code nested in it) looks up or binds."""
        found.update(code.co_names)
        for const in code.co_consts:
            if type(const) is type(code):
                names_of(const, found)
        return found

    def judge(names_json, tests_json):
        """Runs the tests, [[kind, text], …] with kind 'value' or 'statement', in one namespace;
        returns json [[result, …], interrupted] with one result per test: ['value', plain],
        ['pass'] or ['error', what]."""
        names = json.loads(names_json)
        tests = json.loads(tests_json)
        compiled = []
        wanted = set()
        for kind, text in tests:
            try:
                code = compile(text, '<test>', 'eval' if kind == 'value' else 'exec', dont_inherit=True)
                names_of(code, wanted)
                compiled.append((kind, code, None))
            except (SyntaxError, ValueError) as exc:
                compiled.append((kind, None, type(exc).__name__))
        results = []
        interrupted = False
        try:
            space = program_names(names, wanted)
            space['__builtins__'] = dict(vars(builtins))
            for kind, code, failure in compiled:
                if code is None:
                    results.append(['error', failure])
                    continue
                try:
                    if kind == 'value':
                        value = eval(code, space)
                        try:
                            results.append(['value', encode(value)])
                        except (NotPlain, RecursionError) as bad:
                            results.append(['error', 'not plain data: ' + str(bad)])
                    else:
                        exec(code, space)
                        results.append(['pass'])
                except Deadline:
                    raise
                except KeyboardInterrupt:
                    raise
                except NotPlain as bad:
                    results.append(['error', str(bad)])
                except BaseException as exc:
                    results.append(['error', type(exc).__name__])
        except (Deadline, KeyboardInterrupt):
            interrupted = True
        return json.dumps([results, interrupted])

    return judge
