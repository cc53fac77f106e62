# The trusted judge (docs/sandbox.md "The judge"): it runs in a second Pyodide interpreter of the
# sandbox worker, one that never runs model-written code. A task's test source runs here, top to
# bottom in one namespace. The program's names are looked up in the program's interpreter each
# time a test reads them; its functions and objects are proxies whose calls cross there and back
# (python/crossing.py): data crosses as data of the same types, anything else as a handle whose
# equality is identity. So the judged program sees the values of each operation and nothing else:
# not the tests' code, their frames, their namespace or the values they compare with, and no object
# of its own ever decides a comparison.
# Compiled after crossing.py; defines _make_trusted(cross) -> [judge, serve].


def _make_trusted(cross):
    """cross(request_json) -> reply_json: one operation in the sandboxed interpreter (runner.ts)."""
    import builtins, collections, json, sys

    class JudgeLimit(Exception):
        """Python's meaning could not be kept across the crossing: the test fails with the reason."""

    run = {'interrupted': False, 'limits': []}

    def limit(reason):
        if reason not in run['limits'] and len(run['limits']) < 20:
            run['limits'].append(reason)

    def printed(out, err):
        # What the program's call printed reaches the tests' own streams (a test may capture them).
        try:
            if out:
                sys.stdout.write(out)
            if err:
                sys.stderr.write(err)
        except Exception:
            pass

    def compared(proxy):
        limit("a test compared one of the program's objects with == (it is not data, so the judge compares it by identity)")

    def refused(message):
        limit(message)
        return JudgeLimit(message)

    def interrupted():
        run['interrupted'] = True

    hooks = {
        'before': lambda: None, 'after': lambda: None,
        'start_output': lambda: None, 'end_output': lambda: ('', ''),
        'global': lambda name: (False, None), 'raised': lambda exc: None, 'refuse': lambda x, t: None,
        'compared': compared, 'printed': printed, 'interrupted': interrupted, 'refused': refused,
        'generation': lambda: None,
    }
    crossing = _make_crossing('trusted', cross, hooks)
    request, MISSING, Interrupted = crossing['request'], crossing['MISSING'], crossing['Interrupted']
    NotData = crossing['NotData']

    read = {}
    state, is_proxy = crossing['state'], crossing['is_proxy']
    # Kept from one read to the next while the program's globals are not rebound: what cannot
    # change without a rebinding (a function's proxy, a class, a number). A container is read
    # again each time (its tie may have ended).
    KEEP = (int, float, str, bool, complex, bytes, type(None), type)

    class ProgramNames(dict):
        """The tests' builtins: the real ones, then the program's globals, read when a test reads
        them (a counter after the calls is its value then). A builtin's name the program binds is
        not what a test sees: the real builtin is."""
        __slots__ = ()

        def __missing__(self, name):
            kept = read.get(name)
            if kept is not None and kept[0] == state['generation'] and state['generation'] is not None:
                return kept[1]
            value = request(['get', name])
            if value is MISSING:
                raise KeyError(name)
            if isinstance(value, KEEP) or is_proxy(value):
                read[name] = (state['generation'], value)
            return value

    PLAIN_DICTS = (collections.OrderedDict, collections.defaultdict)

    def plain(x):
        """Exact plain data in the tagged form JavaScript compares (plain_value.ts); NotPlain
        otherwise, and the test compares in Python instead. Iterative: any depth."""
        out = [None]
        stack = [(x, out, 0)]
        while stack:
            value, holder, index = stack.pop()
            t = type(value)
            if t is str:
                holder[index] = ['s', value]
            elif t is bool:
                holder[index] = ['b', value]
            elif value is None:
                holder[index] = ['n']
            elif t is int:
                holder[index] = ['i', format(value, 'x')]
            elif t is float:
                holder[index] = ['f', float.__repr__(value)]
            elif t is list or t is tuple or (issubclass(t, tuple) and hasattr(t, '_fields')) or t is set or t is frozenset:
                items = list(value)
                inner = [None] * len(items)
                holder[index] = ['l' if t is list else 'S' if t in (set, frozenset) else 't', inner]
                stack.extend((item, inner, j) for j, item in enumerate(items))
            elif t is dict or t in PLAIN_DICTS:
                pairs = list(value.items())
                inner = [None] * len(pairs)
                holder[index] = ['d', inner]
                for j, (k, v) in enumerate(pairs):
                    pair = [None, None]
                    inner[j] = pair
                    stack.append((k, pair, 0))
                    stack.append((v, pair, 1))
            else:
                return None
        return out[0]

    def described(exc):
        text = str(exc) if not isinstance(exc, (Interrupted, KeyboardInterrupt)) else ''
        name = type(exc).__name__
        return name + (': ' + text[:300] if text else '')

    def judge(init_json, tests_json):
        """Runs the tests, [[kind, text, literal], …] with kind 'value', 'statement' or 'setup', in
        one namespace; returns json [[result, …], interrupted, limits] with one result per test:
        ['value', plain], ['pass'] or ['error', what]."""
        crossing['reset']()
        read.clear()
        run['interrupted'] = False
        run['limits'] = []
        init = json.loads(init_json)
        tests = json.loads(tests_json)
        results = []
        try:
            crossing['incoming_state'](init[0] if type(init) is list and init else None)
            # random's state is shared only with tests that name it (its module, or a name from it).
            state['sync'] = any('random' in test[1] or 'seed' in test[1] for test in tests)
            state['generation'] = init[1] if type(init) is list and len(init) > 1 else None
            space = {'__builtins__': ProgramNames(vars(builtins)), '__name__': '__judge__'}
            for test in tests:
                kind, text = test[0], test[1]
                try:
                    code = compile(text, '<test>', 'eval' if kind == 'value' else 'exec', dont_inherit=True)
                except (SyntaxError, ValueError) as exc:
                    results.append(['error', type(exc).__name__])
                    continue
                try:
                    if kind == 'value':
                        value = eval(code, space)
                        encoded = plain(value)
                        if encoded is not None:
                            results.append(['value', encoded])
                        else:
                            # Not exact plain data (a Decimal, a Counter, a program's object): the
                            # comparison is Python's, here, with the test's own expected literal.
                            expected = eval(compile(test[2], '<test>', 'eval', dont_inherit=True), {'__builtins__': builtins})
                            if value == expected:
                                results.append(['pass'])
                            else:
                                results.append(['error', 'got ' + safe_repr(value)])
                    else:
                        exec(code, space)
                        results.append(['pass'])
                except (Interrupted, KeyboardInterrupt):
                    raise
                except BaseException as exc:
                    if run['interrupted']:
                        raise Interrupted() from None
                    results.append(['error', described(exc)])
        except (Interrupted, KeyboardInterrupt):
            run['interrupted'] = True
        except NotData as bad:
            limit(str(bad))
        crossing['reset']()
        return json.dumps([results, run['interrupted'], run['limits']])

    def safe_repr(value):
        try:
            return repr(value)[:200]
        except BaseException:
            return '<unprintable>'

    def serve(text):
        """One operation from the program's side on an object the tests passed it (crossing.py)."""
        return crossing['serve'](text)

    return [judge, serve]
