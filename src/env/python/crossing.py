# The crossing between the judge's two interpreters (docs/sandbox.md "The judge"): compiled into
# both, the program's (as part of the harness) and the trusted one's (before trusted.py). A value
# crosses as a flat list of tokens, encoded and decoded without recursion, so it keeps Python's
# meaning as far as data goes: exact types (tuple vs list, set vs frozenset, bytes, bytearray,
# complex, Decimal, Fraction, the collections types, namedtuples, enums, dates), shared and cyclic
# references, any depth and any size up to the reply cap. What is not data crosses as a handle: the
# receiver gets a proxy whose calls, iteration, attribute reads and item access cross back, and whose
# equality is identity, so no object of one side ever decides a comparison on the other. A handle
# going home comes back as the object itself, and so does an argument the callee returns; what a
# callee changes in a mutable argument is put back into the caller's object.
#
# Defines _make_crossing(side, send, hooks). The program's copy binds every builtin it uses at
# creation (a program that rebinds one later changes nothing here) and reads types through exact
# checks, never through the program's own methods.


def _make_crossing(side, send, hooks):
    """One end of the crossing. side: 'program' or 'trusted'. send(request_json) -> reply_json
    reaches the other end's serve. hooks: 'before' and 'after' (around each served operation),
    'generation' (a number that changes whenever the program's globals are rebound, sent with each
    reply, so the tests' side may keep a name it read until it changes),
    'output' (text a served call printed, for the caller), 'printed' (the caller's side of it)."""
    import builtins, collections, datetime, decimal, enum, fractions, inspect, json, operator, pathlib, random, sys

    type_, id_, len_, str_, int_, float_, bool_ = type, id, len, str, int, float, bool
    list_, tuple_, dict_, set_, frozenset_, bytes_, bytearray_, complex_, range_ = list, tuple, dict, set, frozenset, bytes, bytearray, complex, range
    isinstance_, issubclass_, callable_, getattr_, setattr_, format_, repr_, iter_, next_, map_, zip_, all_ = isinstance, issubclass, callable, getattr, setattr, format, repr, iter, next, map, zip, all
    object_new = object.__new__
    BaseException_, Exception_, KeyboardInterrupt_, SystemExit_, StopIteration_, StopAsyncIteration_, GeneratorExit_ = BaseException, Exception, KeyboardInterrupt, SystemExit, StopIteration, StopAsyncIteration, GeneratorExit
    RecursionError_, AttributeError_, TypeError_, ValueError_, RuntimeError_, KeyError_, IndexError_ = RecursionError, AttributeError, TypeError, ValueError, RuntimeError, KeyError, IndexError
    type_name = type.__dict__['__name__'].__get__
    type_qualname = type.__dict__['__qualname__'].__get__
    type_module = type.__dict__['__module__'].__get__
    type_mro = type.__dict__['__mro__'].__get__
    type_dict = type.__dict__['__dict__'].__get__
    list_iter, tuple_iter, set_iter, frozenset_iter = list.__iter__, tuple.__iter__, set.__iter__, frozenset.__iter__
    dict_items, dict_clear, dict_update, dict_setitem = dict.items, dict.clear, dict.update, dict.__setitem__
    list_append, list_setslice, set_add, set_clear, set_update = list.append, list.__setitem__, set.add, set.clear, set.update
    is_ = operator.is_
    json_dumps, json_loads = json.dumps, json.loads
    exc_args = BaseException.__dict__['args'].__get__
    exc_str = BaseException.__str__
    exc_setargs = BaseException.__dict__['args'].__set__
    Counter_, OrderedDict_, defaultdict_, deque_ = collections.Counter, collections.OrderedDict, collections.defaultdict, collections.deque
    Decimal_, Fraction_ = decimal.Decimal, fractions.Fraction
    Enum_, EnumType_, IntEnum_, StrEnum_, Flag_, IntFlag_ = enum.Enum, enum.EnumType, enum.IntEnum, enum.StrEnum, enum.Flag, enum.IntFlag
    Signature_, Parameter_ = inspect.Signature, inspect.Parameter
    signature_of = inspect.signature
    ParameterKind_ = inspect._ParameterKind
    deque_maxlen = deque_.__dict__['maxlen'].__get__
    deque_clear, deque_extend = deque_.clear, deque_.extend
    odict_clear, odict_setitem = OrderedDict_.clear, OrderedDict_.__setitem__
    modules = sys.modules
    getstate, setstate = random._inst.getstate, random._inst.setstate
    MISSING = object()
    NAMED_TYPES = {}
    for klass in (bool, int, float, complex, str, bytes, bytearray, list, tuple, dict, set, frozenset, range, type, object, slice):
        NAMED_TYPES[id_(klass)] = klass
    # Stdlib value types rebuilt from their own __reduce__ (exact types only, on both sides).
    REDUCED = {id_(t): t for t in (Decimal_, Fraction_, datetime.date, datetime.datetime, datetime.time,
                                   datetime.timedelta, datetime.timezone, pathlib.PurePosixPath, pathlib.PosixPath)}
    # Modules whose functions and classes cross as themselves ('g'); from anywhere else a callable is
    # a handle. The names a trusted side never hands out as themselves: what a test could call.
    SHARED_MODULES = frozenset(['builtins', 'math', 'cmath', 'operator', 'collections', 'functools', 'itertools',
                                'string', 're', 'decimal', 'fractions', 'datetime', 'enum', 'json', 'statistics',
                                'heapq', 'bisect', 'typing', 'abc', 'numbers', 'copy', 'textwrap', 'unicodedata',
                                'dataclasses', 'random', 'types', 'collections.abc'])
    DENIED = frozenset(['exec', 'eval', 'compile', 'open', '__import__', 'breakpoint', 'input', 'exit', 'quit',
                        'help', 'globals', 'locals', 'vars', 'getattr', 'setattr', 'delattr', 'memoryview',
                        'seed', 'setstate', 'getstate'])
    # Attributes a program may never read from or write to the tests' objects: the ways into their
    # code, frames and namespaces.
    FRAME_PREFIXES = ('gi_', 'cr_', 'ag_', 'f_', 'tb_', 'co_', 'func_')
    MUTABLE = (list, dict, set, bytearray, Counter_, OrderedDict_, defaultdict_, deque_)
    mutable_ids = frozenset(id_(t) for t in MUTABLE)
    BIG = 2 ** 62
    trusted = side == 'trusted'

    class NotData(Exception_):
        """A message that is not well formed, or a value that cannot cross (with the reason)."""

    class Interrupted(BaseException_):
        """The deadline interrupted the other side: the judgement stops."""

    # A container stays tied to its copy for TIE_MESSAGES messages (its changes cross with each
    # one), a large one only until the reply of the operation it crossed in.
    TIE_MESSAGES, TIE_ITEMS = 64, 10000
    # How many of this side's requests may wait on the other side at once (nested callbacks).
    MAX_NESTING = 60
    state = {}

    def reset():
        state.update(handles=[], handle_ids={}, proxies={}, classes={}, rs=None, depth=0, msg=0,
                     next_oid=0, origins={}, origin_of={}, copies={}, copy_of={}, generation=None, sync=True, waiting=0)

    reset()

    # --- names that cross as themselves -----------------------------------------------------------

    def shared_name(x):
        """(module, qualname) when x is a builtin or an allowed stdlib module's own function or
        class, read without running x's code; None otherwise."""
        t = type_(x)
        if issubclass_(t, type):
            module = type_module(x)
            qualname = type_qualname(x)
        else:
            try:
                module = object.__getattribute__(x, '__module__')
            except (AttributeError_, TypeError_):
                module = None
            if module is None:
                owner = getattr_(x, '__objclass__', None)
                if type_(owner) is type and id_(owner) in NAMED_TYPES:
                    module = 'builtins'
            try:
                qualname = object.__getattribute__(x, '__qualname__')
            except (AttributeError_, TypeError_):
                return None
        if type_(module) is not str_ or type_(qualname) is not str_ or module not in SHARED_MODULES:
            return None
        if resolve(module, qualname) is not x:
            return None
        return (module, qualname)

    def resolve(module, qualname):
        mod = modules.get(module) if module in SHARED_MODULES else None
        if mod is None or type_(qualname) is not str_:
            return MISSING
        value = mod
        for part in qualname.split('.'):
            if part[:1] == '_' or part in DENIED:
                return MISSING
            try:
                value = getattr_(value, part)
            except BaseException_:
                return MISSING
        return value

    # --- encoding --------------------------------------------------------------------------------

    def enum_class(t):
        """An Enum class made the ordinary way (its members' values read without running its code)."""
        if type_(t) is not EnumType_ or Enum_ not in type_mro(t):
            return False
        for klass in type_mro(t):
            if klass is Enum_ or klass is IntEnum_ or klass is StrEnum_ or klass is Flag_ or klass is IntFlag_ or klass is object or klass is int or klass is str or klass is enum.ReprEnum:
                continue
            own = type_dict(klass)
            if '__getattribute__' in own or '_value_' in own:
                return False
        return True

    def enum_kind(t):
        mro = type_mro(t)
        for base in (IntFlag_, Flag_, IntEnum_, StrEnum_):
            if base in mro:
                return type_name(base)
        return 'Enum'

    def handle(x):
        """x as a handle this side keeps alive for the judgement."""
        ids = state['handle_ids']
        key = id_(x)
        index = ids.get(key)
        if index is None or state['handles'][index] is not x:
            index = len_(state['handles'])
            list_append(state['handles'], x)
            ids[key] = index
        t = type_(x)
        flags = 1 if callable_(x) else 0
        for klass in type_mro(t):
            if '__next__' in type_dict(klass):
                flags |= 2
                break
        return index, flags

    def namedtuple_class(t):
        if type_(t) is not type or type_mro(t)[1:] != (tuple, object):
            return None
        own = type_dict(t)
        fields = own.get('_fields')
        if type_(fields) is not tuple_ or not all_(type_(f) is str_ for f in fields):
            return None
        for name in ('__eq__', '__ne__', '__hash__', '__iter__', '__len__', '__getitem__', '__getattribute__', '__class__'):
            if name in own:
                return None
        return fields

    def encode(value, carrier=False, keep=True):
        """value as tokens. A mutable container this side received crosses back as the other side's
        own object ('a'), one it sent before as the other side's copy of it ('A'); a new one gets a
        number and is tracked from now on (the tie, see collect_updates). With carrier, value itself
        (a container whose contents are an update) is neither a reference nor tracked. Immutable
        containers seen twice in one message are back-references ('@')."""
        out = []
        memo = {}
        fresh = []
        try:
            encode_into(value, carrier, out, memo, fresh)
        except BaseException_:
            forget(fresh)
            raise
        if not keep:
            forget(fresh)
        return out

    def forget(fresh):
        for oid in fresh:
            entry = state['origins'].pop(oid, None)
            if entry is not None:
                state['origin_of'].pop(id_(entry[0]), None)

    def track(x):
        oid = state['next_oid']
        state['next_oid'] = oid + 1
        state['origins'][oid] = [x, None, state['msg'], len_(x)]
        state['origin_of'][id_(x)] = oid
        return oid

    def encode_into(value, carrier, out, memo, fresh):
        # The carrier is the first item only: the same container inside itself is a reference.
        first = carrier
        stack = [value]
        append = out.append
        while stack:
            x = stack.pop()
            is_top, first = first, False
            t = type_(x)
            if t is str_:
                append('s')
                append(x)
                continue
            if x is None:
                append('N')
                continue
            if t is bool_:
                append('T' if x else 'F')
                continue
            if t is int_:
                if -BIG < x < BIG:
                    append('i')
                    append(x)
                else:
                    append('I')
                    append(format_(x, 'x'))
                continue
            if t is float_:
                append('f')
                append(x)
                continue
            if t is _Token:
                append(x.tag)
                if x.payload is not None:
                    append(x.payload)
                continue
            key = id_(x)
            if id_(t) in mutable_ids and not is_top:
                theirs = state['copy_of'].get(key)
                if theirs is not None and state['copies'][theirs][0] is x:
                    append('a')
                    append(theirs)
                    continue
                mine = state['origin_of'].get(key)
                if mine is not None and state['origins'][mine][0] is x:
                    append('A')
                    append(mine)
                    continue
            seen = memo.get(key)
            if seen is not None:
                append('@')
                append(seen)
                continue
            if t is complex_:
                append('c')
                append(x.real)
                append(x.imag)
                continue
            if t is bytes_:
                append('y')
                append(x.decode('latin-1'))
                continue
            if t is range_:
                append('r')
                append([x.start, x.stop, x.step])
                continue
            if x is Ellipsis:
                append('x')
                continue
            container = None
            if t is list_:
                container = ('l', list_(list_iter(x)))
            elif t is tuple_:
                container = ('t', list_(tuple_iter(x)))
            elif t is dict_ or t is Counter_ or t is OrderedDict_ or t is defaultdict_:
                items = []
                for k, v in dict_items(x):
                    items.append(k)
                    items.append(v)
                tag = 'd' if t is dict_ else 'C' if t is Counter_ else 'O' if t is OrderedDict_ else 'dd'
                container = (tag, items)
            elif t is set_:
                container = ('S', list_(set_iter(x)))
            elif t is frozenset_:
                container = ('z', list_(frozenset_iter(x)))
            elif t is deque_:
                container = ('q', list_(x))
            elif t is bytearray_:
                append('Y')
                append(-1 if is_top else fresh.append(track(x)) or state['next_oid'] - 1)
                append(bytes_(x).decode('latin-1'))
                continue
            if container is not None:
                tag, items = container
                append(tag)
                if tag == 't' or tag == 'z':
                    memo[key] = len_(memo)
                else:
                    append(-1 if is_top else fresh.append(track(x)) or state['next_oid'] - 1)
                append(len_(items) // 2 if tag in ('d', 'C', 'O', 'dd') else len_(items))
                if tag == 'q':
                    maxlen = deque_maxlen(x)
                    append(-1 if maxlen is None else maxlen)
                if tag == 'dd':
                    factory = x.default_factory
                    stack.extend(reversed(items))
                    stack.append(factory)
                    continue
                stack.extend(reversed(items))
                continue
            fields = namedtuple_class(t)
            if fields is not None:
                memo[key] = len_(memo)
                append('nt')
                append([type_name(t), list_(fields)])
                items = list_(tuple_iter(x))
                append(len_(items))
                stack.extend(reversed(items))
                continue
            if id_(t) in REDUCED:
                reduced = t.__reduce__(x)
                append('R')
                append([type_module(t), type_qualname(t)])
                stack.append(tuple_(reduced[1]))
                continue
            if type_(t) is EnumType_ and enum_class(t):
                append('E')
                append(object.__getattribute__(x, '_name_'))
                stack.append(t)
                continue
            if issubclass_(t, type):
                found = shared_name(x)
                if found is not None:
                    append('g')
                    append(list_(found))
                    continue
                if issubclass_(x, BaseException_):
                    index, _ = handle(x)
                    append('X')
                    append([index, type_name(x), type_qualname(x), builtin_base(x)])
                    continue
                if enum_class(x):
                    index, _ = handle(x)
                    members = []
                    for name, member in dict_items(type_dict(x).get('_member_map_', {})):
                        members.append(_Token('s', name))
                        members.append(object.__getattribute__(member, '_value_'))
                    append('EC')
                    append([index, type_name(x), enum_kind(x), len_(members) // 2])
                    stack.extend(reversed(members))
                    continue
            elif x is not None and (t is type(len) or t is type(str.upper) or t is type(dict.__dict__['fromkeys'])):
                found = shared_name(x)
                if found is not None:
                    append('g')
                    append(list_(found))
                    continue
            if t is type(sys):
                name = getattr_(x, '__name__', None)
                if type_(name) is str_ and modules.get(name) is x and name[:1] != '_':
                    append('M')
                    append(name)
                    continue
            own = proxy_handle(x)
            if own is not None:
                append('H')
                append(own)
                continue
            refused = hooks['refuse'](x, t)
            if refused is not None:
                raise NotData(refused)
            index, flags = handle(x)
            append('h')
            append([index, flags])

    def builtin_base(t):
        for klass in type_mro(t):
            if builtins.__dict__.get(type_name(klass), MISSING) is klass:
                return type_name(klass)
        return 'Exception'

    # --- decoding --------------------------------------------------------------------------------

    def made_class(key, make):
        classes = state['classes']
        found = classes.get(key)
        if found is None:
            found = make()
            classes[key] = found
        return found

    def exception_class(index, name, qualname, base):
        base_class = builtins.__dict__.get(base)
        if type_(base_class) is not type or not issubclass_(base_class, BaseException_):
            base_class = Exception_

        def make():
            def __str__(self):
                message = self.__dict__.get('_crossed_message')
                return message if type_(message) is str_ else exc_str(self)
            try:
                return type_(name, (base_class,), {'__module__': '__main__', '__qualname__': qualname, '__str__': __str__})
            except BaseException_:
                return type_(name, (Exception_,), {'__module__': '__main__', '__qualname__': qualname, '__str__': __str__})
        return made_class(('X', index), make)

    def enum_made(index, name, kind, members):
        base = {'IntFlag': IntFlag_, 'Flag': Flag_, 'IntEnum': IntEnum_, 'StrEnum': StrEnum_}.get(kind, Enum_)
        return made_class(('EC', index), lambda: base(name, members, module='__main__'))

    def namedtuple_made(name, fields):
        return made_class(('nt', name, tuple_(fields)), lambda: collections.namedtuple(name, fields, module='__main__'))

    def decode(tokens):
        """The value the tokens encode. A mutable container with a number is the other side's,
        tracked from now on as this side's copy of it; 'a' is one of this side's own, 'A' a copy it
        already holds."""
        try:
            return decode_tokens(tokens)
        except NotData:
            raise
        except (IndexError_, KeyError_, TypeError_, ValueError_, AttributeError_, RecursionError_, decimal.InvalidOperation) as bad:
            raise NotData('a malformed message (' + type_name(type_(bad)) + ')') from None

    def tied(oid, obj, size):
        if type_(oid) is not int_ or oid < -1:
            raise NotData('a malformed message')
        if oid >= 0:
            state['copies'][oid] = [obj, None, state['msg'], size]
            state['copy_of'][id_(obj)] = oid

    def tracked(table, k):
        entry = state[table].get(k) if type_(k) is int_ else None
        if entry is None:
            raise NotData('an object that crossed too many operations ago to be tracked')
        return entry[0]

    def decode_tokens(tokens):
        if type_(tokens) is not list_:
            raise NotData('a malformed message')
        memo = []
        # Each frame: [kind, target, remaining, items, extra]
        frames = []
        result = MISSING
        i = 0
        n = len_(tokens)
        while True:
            if i >= n:
                raise NotData('a malformed message (it ends early)')
            tag = tokens[i]
            i += 1
            value = MISSING
            if tag == 's':
                value = tokens[i]
                i += 1
                if type_(value) is not str_:
                    raise NotData('a malformed message')
            elif tag == 'i':
                value = tokens[i]
                i += 1
                if type_(value) is not int_:
                    raise NotData('a malformed message')
            elif tag == 'I':
                value = int_(tokens[i], 16)
                i += 1
            elif tag == 'f':
                value = float_(tokens[i])
                i += 1
            elif tag == 'N':
                value = None
            elif tag == 'T':
                value = True
            elif tag == 'F':
                value = False
            elif tag == 'c':
                value = complex_(float_(tokens[i]), float_(tokens[i + 1]))
                i += 2
            elif tag == 'y':
                value = tokens[i].encode('latin-1')
                i += 1
            elif tag == 'Y':
                value = bytearray_(tokens[i + 1].encode('latin-1'))
                tied(tokens[i], value, len_(value))
                i += 2
            elif tag == 'r':
                start, stop, step = tokens[i]
                value = range_(int_(start), int_(stop), int_(step))
                i += 1
            elif tag == 'x':
                value = Ellipsis
            elif tag == '@':
                value = memo[tokens[i]]
                i += 1
                if type_(value) is _Pending:
                    raise NotData('a cycle through a tuple, which cannot cross')
            elif tag == 'a':
                value = tracked('origins', tokens[i])
                i += 1
            elif tag == 'A':
                value = tracked('copies', tokens[i])
                i += 1
            elif tag == 'g':
                module, qualname = tokens[i]
                i += 1
                value = resolve(module, qualname)
                if value is MISSING:
                    raise NotData('an unknown name ' + str_(module) + '.' + str_(qualname))
            elif tag == 'M':
                name = tokens[i]
                i += 1
                value = modules.get(name) if type_(name) is str_ and name[:1] != '_' else None
                if value is None:
                    try:
                        value = __import__(name, fromlist=['_'])
                    except BaseException_:
                        raise NotData('an unknown module ' + str_(name)) from None
            elif tag == 'h':
                index, flags = tokens[i]
                i += 1
                value = proxy(index, flags)
            elif tag == 'H':
                k = tokens[i]
                i += 1
                handles = state['handles']
                if type_(k) is not int_ or not 0 <= k < len_(handles):
                    raise NotData('a malformed message (an unknown handle)')
                value = handles[k]
            elif tag == 'X':
                index, name, qualname, base = tokens[i]
                i += 1
                value = exception_class(index, str_(name), str_(qualname), base)
            elif tag in ('l', 'S', 'd', 'C', 'O', 'q'):
                oid = tokens[i]
                count = tokens[i + 1]
                i += 2
                if type_(count) is not int_ or count < 0:
                    raise NotData('a malformed message')
                if tag == 'l':
                    target = []
                elif tag == 'S':
                    target = set_()
                elif tag == 'd':
                    target = {}
                elif tag == 'C':
                    target = Counter_()
                elif tag == 'O':
                    target = OrderedDict_()
                else:
                    maxlen = tokens[i]
                    i += 1
                    target = deque_(maxlen=None if maxlen == -1 else maxlen)
                tied(oid, target, count)
                size = count * 2 if tag in ('d', 'C', 'O') else count
                if size == 0:
                    value = target
                else:
                    frames.append([tag, target, size, None, MISSING])
                    continue
            elif tag == 'dd':
                oid = tokens[i]
                count = tokens[i + 1]
                i += 2
                if type_(count) is not int_ or count < 0:
                    raise NotData('a malformed message')
                target = defaultdict_()
                tied(oid, target, count)
                frames.append([tag, target, count * 2 + 1, None, MISSING])
                continue
            elif tag in ('t', 'z', 'nt'):
                extra = None
                if tag == 'nt':
                    extra = tokens[i]
                    i += 1
                count = tokens[i]
                i += 1
                if type_(count) is not int_ or count < 0:
                    raise NotData('a malformed message')
                pending = _Pending()
                at = len_(memo)
                memo.append(pending)
                if count == 0:
                    value = finish_immutable(tag, [], extra)
                    memo[at] = value
                else:
                    frames.append([tag, at, count, [], extra])
                    continue
            elif tag == 'R':
                module, qualname = tokens[i]
                i += 1
                frames.append(['R', None, 1, [], (module, qualname)])
                continue
            elif tag == 'E':
                frames.append(['E', None, 1, [], tokens[i]])
                i += 1
                continue
            elif tag == 'EC':
                index, name, kind, count = tokens[i]
                i += 1
                if count == 0:
                    value = enum_made(index, str_(name), kind, [])
                else:
                    frames.append(['EC', None, count * 2, [], (index, str_(name), kind)])
                    continue
            elif tag == 'sig':
                frames.append(['sig', None, 1, [], None])
                continue
            else:
                raise NotData('a malformed message (an unknown tag)')
            # A value is complete: hand it to the frames above, completing them in turn.
            while True:
                if not frames:
                    result = value
                    break
                frame = frames[-1]
                kind = frame[0]
                if kind == 'l':
                    list_append(frame[1], value)
                elif kind == 'S':
                    set_add(frame[1], value)
                elif kind == 'q':
                    frame[1].append(value)
                elif kind in ('d', 'C', 'O', 'dd'):
                    if kind == 'dd' and frame[4] is MISSING and frame[3] is None and frame[2] % 2 == 1:
                        frame[1].default_factory = value
                    elif frame[3] is None:
                        frame[3] = [value]
                    else:
                        k = frame[3][0]
                        frame[3] = None
                        if kind == 'O':
                            odict_setitem(frame[1], k, value)
                        else:
                            dict_setitem(frame[1], k, value)
                else:
                    list_append(frame[3], value)
                frame[2] -= 1
                if frame[2] > 0:
                    break
                frames.pop()
                if kind in ('l', 'S', 'q', 'd', 'C', 'O', 'dd'):
                    value = frame[1]
                elif kind in ('t', 'z', 'nt'):
                    value = finish_immutable(kind, frame[3], frame[4])
                    memo[frame[1]] = value
                elif kind == 'R':
                    module, qualname = frame[4]
                    klass = resolve(module, qualname)
                    if not isinstance_(klass, type) or id_(klass) not in REDUCED or type_(frame[3][0]) is not tuple_:
                        raise NotData('a malformed message')
                    value = klass(*frame[3][0])
                elif kind == 'E':
                    klass = frame[3][0]
                    if type_(klass) is not EnumType_:
                        raise NotData('a malformed message')
                    value = klass[frame[4]]
                elif kind == 'EC':
                    index, name, kind_name = frame[4]
                    items = frame[3]
                    members = [(items[j], items[j + 1]) for j in range_(0, len_(items), 2)]
                    value = enum_made(index, name, kind_name, members)
                elif kind == 'sig':
                    value = make_signature(frame[3][0])
            if result is not MISSING:
                break
        if i != n:
            raise NotData('a malformed message (trailing tokens)')
        return result

    def finish_immutable(kind, items, extra):
        if kind == 't':
            return tuple_(items)
        if kind == 'z':
            return frozenset_(items)
        name, fields = extra
        return namedtuple_made(str_(name), [str_(f) for f in fields])(*items)

    # --- signatures ------------------------------------------------------------------------------

    def describe_signature(target):
        """inspect.signature(target) as data: [[name, kind, default?, annotation?], …], return."""
        sig = signature_of(target)
        params = []
        for p in sig.parameters.values():
            params.append([p.name, int_(p.kind), p.default is not Parameter_.empty, p.default if p.default is not Parameter_.empty else None,
                           p.annotation is not Parameter_.empty, p.annotation if p.annotation is not Parameter_.empty else None])
        ret = sig.return_annotation
        return [params, ret is not Signature_.empty, ret if ret is not Signature_.empty else None]

    def make_signature(described):
        params, has_return, ret = described
        made = []
        for name, kind, has_default, default, has_annotation, annotation in params:
            made.append(Parameter_(name, ParameterKind_(kind),
                                   default=default if has_default else Parameter_.empty,
                                   annotation=annotation if has_annotation else Parameter_.empty))
        return Signature_(made, return_annotation=ret if has_return else Signature_.empty)

    # --- proxies ---------------------------------------------------------------------------------

    LOCAL = frozenset(['_crossing_handle', '__class__', '__eq__', '__ne__', '__hash__', '__lt__', '__le__', '__gt__',
                       '__ge__', '__bool__', '__init_subclass__', '__reduce__', '__reduce_ex__', '__getstate__',
                       '__setstate__', '__copy__', '__deepcopy__', '__array__', '__len__', '__iter__', '__next__',
                       '__call__', '__getitem__', '__setitem__', '__contains__', '__repr__', '__str__', '__format__',
                       '__getattribute__', '__setattr__', '__delattr__', '__dir__', '__sizeof__', '__subclasshook__',
                       '__instancecheck__', '__subclasscheck__'])
    proxy_handle_get = None

    class Proxy:
        """An object of the other side: what it does crosses; equality is identity."""
        __slots__ = ('_crossing_handle', '__weakref__')

        def __getattribute__(self, name):
            if name in LOCAL:
                return object.__getattribute__(self, name)
            if name == '__signature__':
                return request(['sig', proxy_handle_get(self)])
            return request(['getattr', proxy_handle_get(self)], name)

        def __setattr__(self, name, value):
            request(['setattr', proxy_handle_get(self)], (name, value))

        def __delattr__(self, name):
            raise AttributeError_("the judge cannot delete an attribute of the other side's object")

        def __eq__(self, other):
            hooks['compared'](self)
            return self is other

        def __ne__(self, other):
            return not self.__eq__(other)

        def __hash__(self):
            return id_(self) >> 4

        def __repr__(self):
            return request(['repr', proxy_handle_get(self)])

        def __str__(self):
            return request(['str', proxy_handle_get(self)])

        def __len__(self):
            return request(['len', proxy_handle_get(self)])

        def __getitem__(self, key):
            return request(['getitem', proxy_handle_get(self)], key)

        def __setitem__(self, key, value):
            request(['setitem', proxy_handle_get(self)], (key, value))

        def __contains__(self, item):
            return request(['contains', proxy_handle_get(self)], item)

        def __iter__(self):
            return request(['iter', proxy_handle_get(self)])

        def __reduce_ex__(self, protocol):
            raise TypeError_("the other side's object cannot be copied or pickled")

    proxy_handle_get = Proxy.__dict__['_crossing_handle'].__get__
    proxy_handle_set = Proxy.__dict__['_crossing_handle'].__set__

    class CallableProxy(Proxy):
        __slots__ = ()

        def __call__(self, *args, **kwargs):
            # The keywords as pairs: a dict made for this call alone needs no tie.
            return request(['call', proxy_handle_get(self)], (args, tuple_(dict_items(kwargs))))

    class IteratorProxy(Proxy):
        __slots__ = ()

        def __iter__(self):
            return self

        def __next__(self):
            return request(['next', proxy_handle_get(self)])

    class CallableIteratorProxy(CallableProxy, IteratorProxy):
        __slots__ = ()

    PROXY_CLASSES = (Proxy, CallableProxy, IteratorProxy, CallableIteratorProxy)
    proxy_types = frozenset(id_(t) for t in PROXY_CLASSES)

    def proxy(index, flags):
        if type_(index) is not int_ or type_(flags) is not int_:
            raise NotData('a malformed message')
        proxies = state['proxies']
        found = proxies.get(index)
        if found is None:
            found = object_new(PROXY_CLASSES[flags & 3])
            proxy_handle_set(found, index)
            proxies[index] = found
        return found

    def proxy_handle(x):
        if id_(type_(x)) in proxy_types:
            return proxy_handle_get(x)
        return None

    # --- the random module's state, shared ------------------------------------------------------

    def outgoing_state():
        """random's state when it changed since the sides last agreed; None when it did not, False
        when the tests never name random (then neither side looks: getstate costs a 625-item tuple)."""
        if not state['sync']:
            return False
        now = getstate()
        if now == state['rs']:
            return None
        state['rs'] = now
        return [now[0], list_(now[1]), now[2]]

    def incoming_state(sent):
        if sent is None:
            return
        if sent is False:
            state['sync'] = False
            return
        if type_(sent) is not list_ or len_(sent) != 3 or type_(sent[1]) is not list_:
            raise NotData('a malformed message')
        setstate((sent[0], tuple_(sent[1]), sent[2]))
        state['rs'] = getstate()

    # --- ties: a mutable container and its copy on the other side -----------------------------

    def snap(obj):
        """A shallow state of a container, to see later whether it changed."""
        t = type_(obj)
        if t is bytearray_:
            return bytes_(obj)
        if t is list_ or t is deque_:
            return list_(obj)
        if t is set_:
            return list_(set_iter(obj))
        return list_(dict_items(obj))

    def same(obj, before):
        t = type_(obj)
        if t is bytearray_:
            return bytes_(obj) == before
        if t is list_ or t is deque_:
            now = list_(obj)
        elif t is set_:
            now = list_(set_iter(obj))
        else:
            now = list_(dict_items(obj))
            if len_(now) != len_(before):
                return False
            return all_(a[0] is b[0] and a[1] is b[1] for a, b in zip_(now, before))
        return len_(now) == len_(before) and all_(map_(is_, now, before))

    def snap_new():
        for table in (state['origins'], state['copies']):
            for entry in table.values():
                if entry[1] is None:
                    entry[1] = snap(entry[0])

    def next_message():
        """Both sides count every message, so they drop a tie at the same point: after TIE_MESSAGES
        messages, or after the reply for a container larger than TIE_ITEMS."""
        state['msg'] += 1
        now = state['msg']
        for table, index in (('origins', 'origin_of'), ('copies', 'copy_of')):
            entries = state[table]
            old = [oid for oid, entry in dict_items(entries)
                   if now - entry[2] > TIE_MESSAGES or (entry[3] > TIE_ITEMS and now - entry[2] > 1)]
            for oid in old:
                entry = entries.pop(oid)
                if state[index].get(id_(entry[0])) == oid:
                    del state[index][id_(entry[0])]

    def collect_updates():
        """What changed in tied containers since they last crossed: this side's own ('o': the other
        side's copy takes it) and its copies ('c': the other side's original takes it)."""
        updates = []
        for code, table in (('o', 'origins'), ('c', 'copies')):
            for oid, entry in list_(dict_items(state[table])):
                if entry[1] is None or same(entry[0], entry[1]):
                    continue
                try:
                    updates.append([code, oid, encode(entry[0], True)])
                except NotData as bad:
                    updates.append(['x', 'the call changed an argument in a way the judge cannot carry back ('
                                    + (str_(bad.args[0]) if bad.args else 'it cannot cross') + ')'])
                entry[1] = snap(entry[0])
        return updates

    def put_into(original, now):
        t = type_(original)
        if type_(now) is not t:
            raise NotData('a malformed update')
        if t is list_:
            list_setslice(original, slice(None), now)
        elif t is bytearray_:
            original[:] = now
        elif t is set_:
            set_clear(original)
            set_update(original, now)
        elif t is deque_:
            deque_clear(original)
            deque_extend(original, now)
        elif t is OrderedDict_:
            odict_clear(original)
            for key, value in dict_items(now):
                odict_setitem(original, key, value)
        else:
            dict_clear(original)
            dict_update(original, now)
            if t is defaultdict_:
                original.default_factory = now.default_factory

    def apply_updates(updates):
        """The other side's changes put into this side's objects; returns a reason it could not
        carry one back, or None."""
        lost = None
        if type_(updates) is not list_:
            raise NotData('a malformed message')
        for update in updates:
            if type_(update) is not list_ or not update:
                raise NotData('a malformed message')
            if update[0] == 'x':
                lost = str_(update[1]) if len_(update) > 1 else 'a change that cannot cross'
                continue
            code, oid, tokens = update
            entry = state['copies' if code == 'o' else 'origins'].get(oid)
            if entry is None:
                lost = 'a change to an object that crossed too many operations ago to be tracked'
                continue
            put_into(entry[0], decode(tokens))
            entry[1] = snap(entry[0])
        return lost

    # --- the requesting side ---------------------------------------------------------------------

    def request(head, payload=MISSING):
        """Sends one operation to the other side and returns its value (or raises what it raised)."""
        if state['waiting'] >= MAX_NESTING:
            # Calls that cross back and forth without end (a callback that calls the program that
            # calls it): Python's answer to endless recursion, before the stacks under both
            # interpreters run out.
            raise RecursionError_('the calls between the program and the tests nest too deeply')
        state['waiting'] += 1
        try:
            return exchange(head, payload)
        finally:
            state['waiting'] -= 1

    def exchange(head, payload):
        next_message()
        updates = collect_updates()
        tokens = None if payload is MISSING else encode(payload)
        snap_new()
        message = head + [tokens, outgoing_state(), updates]
        text = send(json_dumps(message))
        reply = json_loads(text) if type_(text) is str_ else None
        if type_(reply) is not list_ or len_(reply) != 7:
            raise NotData('a malformed reply')
        kind, body, updates, rs, out, err, generation = reply
        state['generation'] = generation
        if kind == 'interrupted':
            hooks['interrupted']()
            raise Interrupted()
        next_message()
        incoming_state(rs)
        if out or err:
            hooks['printed'](out, err)
        lost = apply_updates(updates)
        try:
            if kind == 'value':
                value = decode(body)
            elif kind == 'missing':
                value = MISSING
            elif kind == 'raised':
                raise rebuilt_exception(body, head[0] == 'next')
            elif kind == 'refused' and type_(body) is str_:
                raise hooks['refused'](body)
            else:
                raise NotData('a malformed reply')
        finally:
            snap_new()
        if lost is not None:
            raise hooks['refused'](lost)
        return value

    def rebuilt_exception(body, iterating):
        """The exception the other side raised, as this side's: its class (a builtin one, or one
        made once per judgement for a class of the other side), args and message."""
        described = decode(body)
        if type_(described) is not tuple_ or len_(described) != 4:
            raise NotData('a malformed reply')
        klass, args, message, attrs = described
        if type_(klass) is not type or not issubclass_(klass, BaseException_):
            klass = RuntimeError_
        if iterating and klass is StopIteration_:
            return StopIteration_()
        if issubclass_(klass, (StopIteration_, StopAsyncIteration_, GeneratorExit_, KeyboardInterrupt_, SystemExit_)):
            # Never raised here as itself: a StopIteration inside the tests' map() or next() would
            # end their loop as if the data had run out (PEP 479 turns it into RuntimeError too).
            return RuntimeError_('the ' + ('program' if trusted else 'tests') + ' raised ' + type_name(klass) + (': ' + message if message else ''))
        if type_(args) is not tuple_:
            args = ()
        try:
            exc = klass(*args)
        except BaseException_:
            exc = klass.__new__(klass)
            exc_setargs(exc, args)
        if type_(message) is str_ and message != exc_str(exc):
            try:
                exc.__dict__['_crossed_message'] = message
            except BaseException_:
                pass
        if type_(attrs) is dict_:
            for name, value in dict_items(attrs):
                if type_(name) is str_ and name[:1] != '_':
                    try:
                        setattr_(exc, name, value)
                    except BaseException_:
                        pass
        return exc

    # --- the serving side ------------------------------------------------------------------------

    def described_exception(exc):
        t = type_(exc)
        try:
            message = str_(exc)
        except BaseException_:
            message = ''
        args = []
        for arg in exc_args(exc):
            try:
                encode(arg, False, False)
                args.append(arg)
            except BaseException_:
                args.append(repr_safe(arg))
        attrs = {}
        try:
            own = object.__getattribute__(exc, '__dict__')
        except BaseException_:
            own = {}
        if type_(own) is dict_:
            for name, value in dict_items(own):
                if type_(name) is str_ and name[:1] != '_':
                    try:
                        encode(value, False, False)
                        attrs[name] = value
                    except BaseException_:
                        pass
        return (t, tuple_(args), message, attrs)

    def repr_safe(x):
        try:
            return repr_(x)[:200]
        except BaseException_:
            return '<unprintable>'

    def allowed(target, name):
        """The tests' objects: a program reads only their public, non-introspective attributes."""
        if not trusted:
            return True
        if type_(name) is not str_ or name[:1] == '_' or name.startswith(FRAME_PREFIXES):
            return False
        return True

    def operate(op, target, value):
        if op == 'call':
            args, pairs = value
            if type_(args) is not tuple_ or type_(pairs) is not tuple_:
                raise NotData('a malformed message')
            kwargs = {}
            for pair in pairs:
                if type_(pair) is not tuple_ or len_(pair) != 2 or type_(pair[0]) is not str_:
                    raise NotData('a malformed message')
                kwargs[pair[0]] = pair[1]
            return target(*args, **kwargs)
        if op == 'getattr':
            if not allowed(target, value):
                raise AttributeError_('the judge does not let a program read ' + str_(value) + ' of the tests\' objects')
            return getattr_(target, value)
        if op == 'setattr':
            attr, new = value
            if not allowed(target, attr):
                raise AttributeError_('the judge does not let a program set ' + str_(attr) + ' of the tests\' objects')
            setattr_(target, attr, new)
            return None
        if op == 'iter':
            return iter_(target)
        if op == 'next':
            return next_(target)
        if op == 'len':
            return len_(target)
        if op == 'repr':
            return str_(repr_(target))
        if op == 'str':
            return str_(str_(target))
        if op == 'getitem':
            return target[value]
        if op == 'setitem':
            target[value[0]] = value[1]
            return None
        if op == 'contains':
            return value in target
        if op == 'sig':
            return _Signature(describe_signature(target))
        raise NotData('a malformed message (an unknown operation)')

    def serve(text):
        """One operation from the other side: [op, handle or name, tokens, random state, updates]."""
        state['depth'] += 1
        hooks['before']()
        kind, body, out, err = 'refused', 'a malformed message', '', ''
        received = False
        try:
            try:
                message = json_loads(text)
                if type_(message) is not list_ or len_(message) != 5:
                    raise NotData('a malformed message')
                op, target_ref, tokens, rs, updates = message
                next_message()
                received = True
                incoming_state(rs)
                apply_updates(updates)
                value = None if tokens is None else decode(tokens)
                snap_new()
                if op == 'get':
                    if trusted:
                        raise NotData('the tests\' names are not the program\'s to read')
                    found, target = hooks['global'](target_ref)
                    kind, result = ('value', target) if found else ('missing', None)
                    target = None
                else:
                    handles = state['handles']
                    if type_(target_ref) is not int_ or not 0 <= target_ref < len_(handles):
                        raise NotData('a malformed message (an unknown handle)')
                    target = handles[target_ref]
                    hooks['start_output']()
                    try:
                        result = operate(op, target, value)
                    finally:
                        out, err = hooks['end_output']()
                    kind = 'value'
            except NotData as bad:
                kind, result = 'refused', str_(bad.args[0]) if bad.args else 'a malformed message'
            except Interrupted:
                kind, result = 'interrupted', None
            except KeyboardInterrupt_:
                kind, result = 'interrupted', None
            except BaseException_ as exc:
                hooks['raised'](exc)
                kind, result = 'raised', exc
            updates = []
            if kind != 'interrupted' and received:
                # The reply is a message too: what the operation changed in tied containers goes
                # with it, then its value.
                next_message()
                updates = collect_updates()
            try:
                if kind == 'value':
                    if type_(result) is _Signature:
                        body = ['sig'] + encode(result.described)
                    else:
                        body = encode(result)
                elif kind == 'raised':
                    try:
                        body = encode(described_exception(result))
                    except BaseException_:
                        kind, body = 'refused', 'an exception that cannot cross'
                elif kind == 'missing' or kind == 'interrupted':
                    body = None
                else:
                    body = result
            except NotData as bad:
                kind, body = 'refused', str_(bad.args[0]) if bad.args else 'a value that cannot cross'
            result = None
            snap_new()
            reply = json_dumps([kind, body, updates, outgoing_state() if kind != 'interrupted' else None, out, err,
                                hooks['generation']()])
        except KeyboardInterrupt_:
            reply = '["interrupted",null,[],null,"","",null]'
        finally:
            hooks['after']()
            state['depth'] -= 1
        return reply

    return {'encode': encode, 'decode': decode, 'request': request, 'serve': serve, 'reset': reset,
            'outgoing_state': outgoing_state, 'incoming_state': incoming_state,
            'is_proxy': lambda x: id_(type_(x)) in proxy_types,
            'NotData': NotData, 'Interrupted': Interrupted, 'state': state, 'MISSING': MISSING}


class _Token:
    """A token the encoder writes as it is (a member name inside an enum class's members)."""
    __slots__ = ('tag', 'payload')

    def __init__(self, tag, payload):
        self.tag = tag
        self.payload = payload


class _Pending:
    """A tuple whose items are still being decoded (a back-reference to it is a cycle)."""
    __slots__ = ()


class _Signature:
    __slots__ = ('described',)

    def __init__(self, described):
        self.described = described
