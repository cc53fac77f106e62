// The standard-library sweep (issue 63): calls a model's program is likely to make, each the body of
// a function that returns a string, with the string CPython returns (computed with a system
// python3 where the result is deterministic; where it is not, the body checks properties and
// returns what they were). Run by stdlib_lockdown.test.ts in the locked-down sandbox, once through
// execute() and once through the judge. A case that fails there fails because the lockdown broke
// the module, unless it is in PYODIDE_LIMITS: what Pyodide cannot do in a browser tab at all.

/** Where the judged form differs from execute's, by the judge's choice (not the lockdown's). */
export interface JudgeDifference {
  /** Why the judged call does not return `expected`. */
  fails?: string;
  /** Tampering notes the judge takes the call for, and why. */
  notes?: { note: string; why: string }[];
}

/** One call: `body` is the body of a Python function (no indentation) that returns a str. */
export interface StdlibCase extends JudgeDifference {
  name: string;
  body: string;
  expected: string;
}

/** Cases in a few groups, each group one program, so the suite starts few programs. */
export type StdlibGroups = Record<string, StdlibCase[]>;

const py = String.raw;

function c(name: string, body: string, expected: string, judge: JudgeDifference = {}): StdlibCase {
  return { name, body: body.replace(/^\n/, ''), expected, ...judge };
}

/** The judge keeps main.py out of linecache during a judged run (judge.py, begin and guard). */
const NO_SOURCE =
  "the judge keeps the program's source out of linecache (judge.py), so nothing finds it";

export const STDLIB_GROUPS: StdlibGroups = {
  json: [
    c(
      'json_dump',
      py`
import io, json
buf = io.StringIO()
json.dump({'a': [1, 2.5, None, True, False], 'b': 'x\u00e9', None: 1, 1.5: 2, 3: 4}, buf)
return buf.getvalue()`,
      '{"a": [1, 2.5, null, true, false], "b": "x\\u00e9", "null": 1, "1.5": 2, "3": 4}',
    ),
    c(
      'json_dumps_indent',
      py`
import json
return json.dumps({'b': 1, 'a': [1, {'c': None}], 'd': {}}, indent=2, sort_keys=True)`,
      '{\n  "a": [\n    1,\n    {\n      "c": null\n    }\n  ],\n  "b": 1,\n  "d": {}\n}',
    ),
    c(
      'json_dumps_default',
      py`
import json
return json.dumps({'s': {3, 1, 2}}, default=sorted, separators=(',', ':'), ensure_ascii=False)`,
      '{"s":[1,2,3]}',
    ),
    c(
      'json_load',
      py`
import io, json
from decimal import Decimal
a = json.load(io.StringIO('{"x": [1, 2, {"y": null}], "z": 1.5}'))
b = json.loads('{"b": 1, "a": 2.25}', object_pairs_hook=list, parse_float=Decimal)
return repr(a) + ' ' + repr(b)`,
      "{'x': [1, 2, {'y': None}], 'z': 1.5} [('b', 1), ('a', Decimal('2.25'))]",
    ),
    c(
      'json_iterencode',
      py`
import json
return '|'.join(json.JSONEncoder().iterencode({'k': [1, 2], 'n': None}))`,
      '{|"k"|: |[1|, 2|]|, |"n"|: |null|}',
    ),
    c(
      'json_encoder_subclass',
      py`
import io, json
class Enc(json.JSONEncoder):
    def default(self, o):
        if isinstance(o, complex):
            return [o.real, o.imag]
        return super().default(o)
buf = io.StringIO()
json.dump({'z': 1 + 2j}, buf, cls=Enc)
try:
    json.dumps(object())
except TypeError as e:
    err = str(e)
return json.dumps({'z': 1 + 2j}, cls=Enc) + ' ' + buf.getvalue() + ' ' + Enc(indent=1).encode([1j]) + ' ' + err`,
      '{"z": [1.0, 2.0]} {"z": [1.0, 2.0]} [\n [\n  0.0,\n  1.0\n ]\n] Object of type object is not JSON serializable',
    ),
    c(
      'json_errors',
      py`
import json
try:
    json.loads('{"a": }')
except json.JSONDecodeError as e:
    a = e.msg + ' ' + str(e.pos)
try:
    json.dumps([float('nan')], allow_nan=False)
except ValueError as e:
    b = str(e).startswith('Out of range float values are not JSON compliant')
return a + ' / ' + str(b) + ' / ' + json.dumps([float('inf'), float('nan')])`,
      'Expecting value 6 / True / [Infinity, NaN]',
    ),
  ],

  text: [
    c(
      're',
      py`
import re
p = re.compile(r'(?P<word>[a-z]+)(\d+)', re.I)
m = p.search('xx Abc12 de3')
subbed = re.sub(r'\d', lambda m: str(int(m.group()) * 2), 'a1b2c3')
return '|'.join([m.group('word'), m.group(2), str(m.span()), str(p.findall('ab1 cd22')), subbed,
                 str(re.split(r'[,;]\s*', 'a, b;c')), str(bool(re.fullmatch(r'\w+', 'abc'))),
                 re.escape('a.b*c'), str([m.start() for m in re.finditer('a', 'banana')])])`,
      "Abc|12|(3, 8)|[('ab', '1'), ('cd', '22')]|a2b4c6|['a', 'b', 'c']|True|a\\.b\\*c|[1, 3, 5]",
    ),
    c(
      'string',
      py`
import string
t = string.Template('$who likes $what; $$5')
f = string.Formatter().format('{0}-{x:>3}', 'a', x=7)
return '|'.join([string.ascii_lowercase[:5], string.digits, string.punctuation[:6],
                 t.substitute(who='tim', what='kung pao'), t.safe_substitute(who='x'),
                 string.capwords('hello   big world'), f])`,
      'abcde|0123456789|!"#$%&|tim likes kung pao; $5|x likes $what; $5|Hello Big World|a-  7',
    ),
    c(
      'textwrap',
      py`
import textwrap
s = 'The quick brown fox jumps over the lazy dog and keeps running far away.'
return '|'.join([repr(textwrap.wrap(s, 20)), textwrap.fill('aaa bbb ccc', 7),
                 textwrap.dedent('    a\n      b\n'), textwrap.indent('x\ny', '> '),
                 textwrap.shorten(s, 30)])`,
      "['The quick brown fox', 'jumps over the lazy', 'dog and keeps', 'running far away.']|aaa bbb\nccc|a\n  b\n|> x\n> y|The quick brown fox [...]",
    ),
    c(
      'difflib',
      py`
import difflib
a = ['one\n', 'two\n', 'three\n']
b = ['one\n', 'tree\n', 'three\n', 'four\n']
diff = ''.join(difflib.unified_diff(a, b, 'a', 'b'))
ratio = difflib.SequenceMatcher(None, 'abcd', 'bcde').ratio()
return diff + '|' + str(ratio) + '|' + str(difflib.get_close_matches('appel', ['ape', 'apple', 'peach']))`,
      "--- a\n+++ b\n@@ -1,3 +1,4 @@\n one\n-two\n+tree\n three\n+four\n|0.75|['apple', 'ape']",
    ),
    c(
      'unicodedata_codecs',
      py`
import codecs, unicodedata
return '|'.join([unicodedata.name('é'), unicodedata.normalize('NFD', 'é').encode('utf-8').hex(),
                 unicodedata.category('A'), str(unicodedata.numeric('½')),
                 codecs.encode('abc', 'rot13'), codecs.decode(b'68656c6c6f', 'hex').decode(),
                 'héllo'.encode('latin-1').hex(), b'\xff'.decode('utf-8', 'replace'),
                 codecs.lookup('UTF8').name, 'ß'.upper(), 'ǅ'.casefold()])`,
      'LATIN SMALL LETTER E WITH ACUTE|65cc81|Lu|0.5|nop|hello|68e96c6c6f|\ufffd|utf-8|SS|ǆ',
    ),
    c(
      'shlex_fnmatch_html',
      py`
import fnmatch, html, shlex
return '|'.join([str(shlex.split('a "b c" d\\ e')), shlex.quote("it's"), shlex.join(['a b', 'c']),
                 str(fnmatch.fnmatch('data.CSV', '*.csv')), str(fnmatch.filter(['a.py', 'b.txt', 'c.py'], '*.py')),
                 html.escape('<a href="x">&</a>'), html.unescape('&lt;&eacute;&#65;&gt;')])`,
      "['a', 'b c', 'd e']|'it'\"'\"'s'|'a b' c|False|['a.py', 'c.py']|&lt;a href=&quot;x&quot;&gt;&amp;&lt;/a&gt;|<éA>",
    ),
    c(
      'pprint_reprlib',
      py`
import pprint, reprlib
data = {'b': list(range(12)), 'a': {'nested': ('x' * 30, 'y' * 30)}}
return pprint.pformat(data, width=40) + '|' + reprlib.repr(list(range(100))) + '|' + reprlib.repr('z' * 50)`,
      "{'a': {'nested': ('xxxxxxxxxxxxxxxxxxxxxxxxxxxxxx',\n                  'yyyyyyyyyyyyyyyyyyyyyyyyyyyyyy')},\n 'b': [0,\n       1,\n       2,\n       3,\n       4,\n       5,\n       6,\n       7,\n       8,\n       9,\n       10,\n       11]}|[0, 1, 2, 3, 4, 5, ...]|'zzzzzzzzzzzz...zzzzzzzzzzzzz'",
    ),
    c(
      'html_parser',
      py`
from html.parser import HTMLParser
class P(HTMLParser):
    def __init__(self):
        super().__init__()
        self.seen = []
    def handle_starttag(self, tag, attrs):
        self.seen.append(tag + str(attrs))
    def handle_data(self, data):
        self.seen.append(data)
p = P()
p.feed('<p class="x">hi<b>there</b></p>')
return '|'.join(p.seen)`,
      "p[('class', 'x')]|hi|b[]|there",
    ),
  ],

  collections: [
    c(
      'collections',
      py`
from collections import ChainMap, Counter, OrderedDict, defaultdict, deque, namedtuple
cnt = Counter('abracadabra')
dq = deque([1, 2, 3], maxlen=3)
dq.append(4)
dq.rotate(1)
od = OrderedDict(a=1, b=2)
od.move_to_end('a')
dd = defaultdict(list)
dd['k'].append(1)
Point = namedtuple('Point', 'x y', defaults=[0])
p = Point(1)
cm = ChainMap({'a': 1}, {'a': 2, 'b': 3})
return '|'.join([str(cnt.most_common(2)), str(cnt['z']), repr(dq), str(list(od)), str(dict(dd)),
                 repr(p), str(p._replace(y=5)._asdict()), str(cm['a']) + str(cm['b']),
                 str(Counter(a=3) - Counter(a=1, b=2))])`,
      "[('a', 5), ('b', 2)]|0|deque([4, 2, 3], maxlen=3)|['b', 'a']|{'k': [1]}|Point(x=1, y=0)|{'x': 1, 'y': 5}|13|Counter({'a': 2})",
    ),
    c(
      'itertools',
      py`
import itertools as it
return '|'.join(str(x) for x in [
    list(it.permutations('abc', 2))[:3], list(it.combinations(range(4), 2))[-1],
    list(it.product([0, 1], repeat=2)), list(it.accumulate([1, 2, 3, 4])),
    [(k, len(list(g))) for k, g in it.groupby('aabccc')], list(it.islice(it.count(5, 2), 3)),
    list(it.chain.from_iterable([[1], [2, 3]])), list(it.zip_longest('ab', 'c', fillvalue='-')),
    list(it.starmap(pow, [(2, 3)])), list(it.takewhile(lambda x: x < 3, [1, 2, 5, 1])),
    list(it.pairwise('abc')), list(it.combinations_with_replacement('ab', 2)),
    list(it.compress('abc', [1, 0, 1])), list(it.repeat('x', 2)), list(it.tee([1, 2])[1])])`,
      "[('a', 'b'), ('a', 'c'), ('b', 'a')]|(2, 3)|[(0, 0), (0, 1), (1, 0), (1, 1)]|[1, 3, 6, 10]|[('a', 2), ('b', 1), ('c', 3)]|[5, 7, 9]|[1, 2, 3]|[('a', 'c'), ('b', '-')]|[8]|[1, 2]|[('a', 'b'), ('b', 'c')]|[('a', 'a'), ('a', 'b'), ('b', 'b')]|['a', 'c']|['x', 'x']|[1, 2]",
    ),
    c(
      'functools',
      py`
import functools
@functools.lru_cache(maxsize=None)
def fib(n):
    return n if n < 2 else fib(n - 1) + fib(n - 2)
@functools.cache
def sq(n):
    return n * n
@functools.total_ordering
class V:
    def __init__(self, v):
        self.v = v
    def __eq__(self, o):
        return self.v == o.v
    def __lt__(self, o):
        return self.v < o.v
@functools.singledispatch
def kind(x):
    return 'thing'
@kind.register
def _(x: int):
    return 'int'
@kind.register(list)
def _(x):
    return 'list'
class C:
    calls = 0
    @functools.cached_property
    def val(self):
        C.calls += 1
        return 42
@functools.wraps(fib)
def wrapper(*a):
    return fib(*a)
obj = C()
obj.val
obj.val
sq(3)
sq(3)
return '|'.join(str(x) for x in [fib(80), fib.cache_info().hits > 0, sq.cache_info().hits,
    functools.reduce(lambda a, b: a * b, range(1, 6)), functools.partial(int, base=2)('101'),
    V(1) >= V(0), V(2) <= V(1), kind(1), kind([]), kind('s'), obj.val, C.calls, wrapper.__name__,
    sorted([3, 1, 2], key=functools.cmp_to_key(lambda a, b: b - a))])`,
      '23416728348467685|True|1|120|5|True|False|int|list|thing|42|1|fib|[3, 2, 1]',
    ),
    c(
      'heapq_bisect_operator',
      py`
import bisect, heapq, operator
h = [5, 1, 4]
heapq.heapify(h)
heapq.heappush(h, 0)
xs = [1, 3, 3, 7]
bisect.insort(xs, 4)
return '|'.join(str(x) for x in [heapq.heappop(h), h[0], heapq.nsmallest(2, [9, 2, 7, 1]),
    heapq.nlargest(1, ['a', 'c', 'b']), list(heapq.merge([1, 4], [2, 3])),
    bisect.bisect_left(xs, 3), bisect.bisect_right(xs, 3), xs,
    operator.itemgetter(1, 0)('ab'), operator.attrgetter('real')(3), operator.methodcaller('upper')('x'),
    operator.add(2, 3), sorted([('b', 2), ('a', 2), ('c', 1)], key=operator.itemgetter(1, 0))])`,
      "0|1|[1, 2]|['c']|[1, 2, 3, 4]|1|3|[1, 3, 3, 4, 7]|('b', 'a')|3|X|5|[('c', 1), ('a', 2), ('b', 2)]",
    ),
    c(
      'copy_weakref_graphlib',
      py`
import copy, gc, graphlib, weakref
a = {'x': [1, [2]]}
s, d = copy.copy(a), copy.deepcopy(a)
a['x'][1].append(3)
class Obj:
    pass
o = Obj()
r = weakref.ref(o)
wd = weakref.WeakValueDictionary()
wd['k'] = o
ws = weakref.WeakSet([o])
alive = r() is o and len(ws) == 1 and 'k' in wd
fin = []
weakref.finalize(o, fin.append, 'done')
del o
gc.collect()
ts = graphlib.TopologicalSorter({'d': {'b', 'c'}, 'b': {'a'}, 'c': {'a'}})
order = list(ts.static_order())
return '|'.join(str(x) for x in [s, d, alive, r() is None, len(wd), fin, order[0], order[-1]])`,
      "{'x': [1, [2, 3]]}|{'x': [1, [2]]}|True|True|0|['done']|a|d",
    ),
    c(
      'enum',
      py`
import enum
class Color(enum.Enum):
    RED = 1
    GREEN = enum.auto()
class Perm(enum.IntFlag):
    R = 4
    W = 2
class S(enum.StrEnum):
    A = enum.auto()
@enum.unique
class U(enum.IntEnum):
    X = 1
return '|'.join(str(x) for x in [repr(Color.RED), Color(2).name, Color['GREEN'].value, list(Color),
    int(Perm.R | Perm.W), Perm.R in (Perm.R | Perm.W), S.A.value, U.X + 1, Color.RED is Color(1)])`,
      '<Color.RED: 1>|GREEN|2|[<Color.RED: 1>, <Color.GREEN: 2>]|6|True|a|2|True',
    ),
    c(
      'dataclasses',
      py`
import dataclasses
from dataclasses import dataclass, field
@dataclass(order=True)
class P:
    x: int
    y: int = 0
    tags: list = field(default_factory=list, compare=False)
@dataclass(frozen=True)
class F:
    a: int
    b: str = 'z'
p, q = P(1, 2), P(1, 3)
try:
    F(1).a = 2
    frozen = 'mutable'
except dataclasses.FrozenInstanceError:
    frozen = 'frozen'
@dataclass
class Node:
    value: int
    children: list = field(default_factory=list)
tree = Node(1, [Node(2)])
return '|'.join(str(x) for x in [repr(p), p < q, sorted([q, p])[0] == p, frozen, hash(F(1)) == hash(F(1)),
    dataclasses.asdict(tree), dataclasses.astuple(F(3)), [f.name for f in dataclasses.fields(P)],
    dataclasses.replace(F(1), b='q'), dataclasses.is_dataclass(p)])`,
      "s_dataclasses.<locals>.P(x=1, y=2, tags=[])|True|True|frozen|True|{'value': 1, 'children': [{'value': 2, 'children': []}]}|(3, 'z')|['x', 'y', 'tags']|s_dataclasses.<locals>.F(a=1, b='q')|True",
    ),
    c(
      'typing_abc_numbers',
      py`
import abc, numbers, typing
from typing import Generic, NamedTuple, Optional, Protocol, TypedDict, TypeVar, runtime_checkable
T = TypeVar('T')
class Box(Generic[T]):
    def __init__(self, v: T) -> None:
        self.v = v
class Pt(NamedTuple):
    x: int
    y: int = 0
class Movie(TypedDict):
    name: str
@runtime_checkable
class Closer(Protocol):
    def close(self) -> None: ...
class Base(abc.ABC):
    @abc.abstractmethod
    def run(self): ...
class Impl(Base):
    def run(self):
        return 'ran'
try:
    Base()
    abstract = 'instantiated'
except TypeError:
    abstract = 'abstract'
def g(a: int, b: Optional[str] = None) -> list[int]:
    return []
hints = typing.get_type_hints(g)
return '|'.join(str(x) for x in [Box[int](3).v, Pt(1), Movie(name='x'), isinstance(open, Closer),
    abstract, Impl().run(), isinstance(Impl(), Base), sorted(hints), typing.get_origin(list[int]),
    typing.get_args(dict[str, int]), isinstance(3, numbers.Integral), isinstance(0.5, numbers.Rational),
    issubclass(int, numbers.Number), typing.cast(int, 'x')])`,
      "3|Pt(x=1, y=0)|{'name': 'x'}|False|abstract|ran|True|['a', 'b', 'return']|<class 'list'>|(<class 'str'>, <class 'int'>)|True|False|True|x",
    ),
  ],

  numbers: [
    c(
      'math_cmath',
      py`
import cmath, math
return '|'.join(str(x) for x in [math.gcd(12, 18), math.lcm(4, 6), math.comb(10, 3), math.perm(5, 2),
    math.factorial(20), math.isqrt(99), math.sqrt(2), math.floor(-1.5), math.ceil(1.2),
    math.isclose(0.1 + 0.2, 0.3), math.log(8, 2), math.hypot(3, 4), math.inf > 1e308,
    math.prod([1, 2, 3, 4]), math.fsum([0.1] * 10), math.dist((0, 0), (3, 4)), round(math.pi, 5),
    cmath.sqrt(-4), cmath.polar(1j), abs(cmath.exp(1j * cmath.pi) + 1) < 1e-12])`,
      '6|12|120|20|2432902008176640000|9|1.4142135623730951|-2|2|True|3.0|5.0|True|24|1.0|5.0|3.14159|2j|(1.0, 1.5707963267948966)|True',
    ),
    c(
      'statistics_fractions_decimal',
      py`
import decimal, statistics
from decimal import Decimal
from fractions import Fraction
data = [2, 4, 4, 4, 5, 5, 7, 9]
decimal.getcontext().prec = 10
third = Decimal(1) / Decimal(3)
with decimal.localcontext() as ctx:
    ctx.prec = 3
    short = Decimal(2).sqrt()
return '|'.join(str(x) for x in [statistics.mean(data), statistics.median(data), statistics.mode(data),
    statistics.pstdev(data), round(statistics.stdev(data), 6), statistics.median_low([1, 3, 5, 7]),
    statistics.quantiles(data, n=4), statistics.fmean([1, 2]), statistics.correlation([1, 2, 3], [2, 4, 6]),
    Fraction(3, 4) + Fraction(1, 4), Fraction('0.125'), Fraction(1, 3).limit_denominator(10),
    repr(Fraction(6, 8)), third, short, Decimal('1.10') + Decimal('2.20'),
    Decimal('2.675').quantize(Decimal('0.01'), rounding=decimal.ROUND_HALF_UP), Decimal('NaN').is_nan()])`,
      '5|4.5|4|2.0|2.13809|3|[4.0, 4.5, 6.5]|1.5|1.0|1|1/8|1/3|Fraction(3, 4)|0.3333333333|1.41|3.30|2.68|True',
    ),
    c(
      'random_secrets',
      py`
import random, secrets
random.seed(42)
a = [random.random(), random.randint(1, 100), random.choice('abcdef'), random.sample(range(10), 3),
     random.uniform(0, 1), random.randrange(0, 100, 5), random.choices('xyz', weights=[1, 0, 0], k=3)]
xs = list(range(6))
random.shuffle(xs)
r = random.Random(7)
b = [r.random(), r.getrandbits(16), r.gauss(0, 1)]
state = r.getstate()
n1 = r.random()
r.setstate(state)
tok = secrets.token_hex(8)
return '|'.join(str(x) for x in a + [xs] + b + [n1 == r.random(), len(tok), secrets.randbelow(5) < 5,
    isinstance(secrets.choice([1, 2]), int), len(secrets.token_urlsafe(16)) > 0, random.SystemRandom().random() < 1])`,
      "0.6394267984578837|4|f|[4, 3, 8]|0.1395379285251439|15|['x', 'x', 'x']|[1, 2, 5, 4, 0, 3]|0.32383276483316237|9886|-0.24838025469634117|True|16|True|True|True|True",
    ),
    c(
      'struct_array',
      py`
import array, struct
packed = struct.pack('<iHd', -2, 7, 1.5)
a = array.array('i', [1, 2, 3])
a.append(4)
b = array.array('d', [0.5]) * 2
return '|'.join(str(x) for x in [packed.hex(), struct.unpack('<iHd', packed), struct.calcsize('<iHd'),
    struct.Struct('>I').pack(258), a.tolist(), a.itemsize, b, bytes(array.array('B', [104, 105])),
    struct.unpack_from('>H', b'\x00\x01\x02', 1)])`,
      "feffffff0700000000000000f83f|(-2, 7, 1.5)|14|b'\\x00\\x00\\x01\\x02'|[1, 2, 3, 4]|4|array('d', [0.5, 0.5])|b'hi'|(258,)",
    ),
  ],

  time: [
    c(
      'datetime',
      py`
import datetime as dt
d = dt.datetime(2024, 2, 28, 13, 5, 9)
tz = dt.timezone(dt.timedelta(hours=2))
now = dt.datetime.now()
return '|'.join(str(x) for x in [d + dt.timedelta(days=2), d.isoformat(), d.strftime('%A %d %B %Y %H:%M'),
    dt.datetime.strptime('2021-03-04 05:06', '%Y-%m-%d %H:%M'), dt.date(2024, 3, 1) - dt.date(2023, 3, 1),
    d.replace(tzinfo=tz).astimezone(dt.timezone.utc), dt.date.fromisoformat('2020-12-31').isocalendar()[1],
    dt.timedelta(seconds=3725), dt.date(2024, 1, 1).weekday(), now.year >= 2024,
    dt.datetime.fromtimestamp(0, dt.timezone.utc), dt.date.today() <= dt.date(9999, 1, 1)])`,
      '2024-03-01 13:05:09|2024-02-28T13:05:09|Wednesday 28 February 2024 13:05|2021-03-04 05:06:00|366 days, 0:00:00|2024-02-28 11:05:09+00:00|53|1:02:05|0|True|1970-01-01 00:00:00+00:00|True',
    ),
    c(
      'calendar_time',
      py`
import calendar, time
t0 = time.time()
p0 = time.perf_counter()
m0 = time.monotonic()
time.sleep(0.01)
st = time.gmtime(86400 * 365)
return '|'.join(str(x) for x in [calendar.isleap(2024), tuple(map(int, calendar.monthrange(2024, 2))), int(calendar.weekday(2024, 1, 1)),
    calendar.month(2024, 2).splitlines()[2], calendar.day_name[0], calendar.month_name[12],
    list(calendar.Calendar().itermonthdays(2024, 2))[:5], time.time() >= t0, time.perf_counter() - p0 >= 0.009,
    time.monotonic() > m0, time.strftime('%Y-%m-%d', st), time.mktime(time.localtime(1000)) == 1000,
    time.process_time() >= 0, time.time_ns() > 0, calendar.timegm(st)])`,
      'True|(3, 29)|0|          1  2  3  4|Monday|December|[0, 0, 0, 1, 2]|True|True|True|1971-01-01|True|True|True|31536000',
    ),
  ],

  binary: [
    c(
      'base64_binascii',
      py`
import base64, binascii
return '|'.join(str(x) for x in [base64.b64encode(b'hello world'), base64.b64decode('aGk='),
    base64.urlsafe_b64encode(b'\xfb\xff'), base64.b32encode(b'ab'), base64.b16decode('4869'),
    base64.a85encode(b'hi'), binascii.hexlify(b'\x01\xab'), binascii.unhexlify('6869'),
    binascii.crc32(b'hello'), binascii.b2a_base64(b'x')])`,
      "b'aGVsbG8gd29ybGQ='|b'hi'|b'-_8='|b'MFRA===='|b'Hi'|b'BP@'|b'01ab'|b'hi'|907060870|b'eA==\\n'",
    ),
    c(
      'hashlib_hmac',
      py`
import hashlib, hmac
h = hashlib.sha256()
h.update(b'ab')
h.update(b'c')
return '|'.join([hashlib.md5(b'abc').hexdigest(), hashlib.sha1(b'abc').hexdigest(), h.hexdigest(),
    hashlib.new('sha512', b'').hexdigest()[:16], hashlib.blake2b(b'x', digest_size=8).hexdigest(),
    hashlib.sha3_256(b'').hexdigest()[:16], hashlib.sha384(b'x').hexdigest()[:16],
    hmac.new(b'key', b'msg', hashlib.sha256).hexdigest(), str(hmac.compare_digest(b'a', b'a')),
    str('sha256' in hashlib.algorithms_available)])`,
      '900150983cd24fb0d6963f7d28e17f72|a9993e364706816aba3e25717850c26c9cd0d89d|ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad|cf83e1357eefb8bd|4adf4367f96e584f|a7ffc6f8bf1ed766|d752c2c51fba0e29|2d93cbc1be167bcb1637a4a23cbff01a7878f0c50ee833954ea5221bb1b8c628|True|True',
    ),
    c(
      'compression',
      py`
import gzip, io, zlib
data = b'spam ' * 100
z = zlib.compress(data)
g = gzip.compress(data)
buf = io.BytesIO()
with gzip.GzipFile(fileobj=buf, mode='wb', mtime=0) as f:
    f.write(b'abc')
with gzip.open('/tmp/x.gz', 'wt') as f:
    f.write('text')
with gzip.open('/tmp/x.gz', 'rt') as f:
    back = f.read()
co = zlib.compressobj()
stream = co.compress(data) + co.flush()
return '|'.join(str(x) for x in [zlib.decompress(z) == data, len(z) < len(data), gzip.decompress(g) == data,
    gzip.decompress(buf.getvalue()), back, zlib.decompress(stream) == data, zlib.adler32(b'abc'),
    zlib.crc32(b'abc')])`,
      "True|True|True|b'abc'|text|True|38600999|891568578",
    ),
    c(
      'bz2_lzma',
      py`
out = []
for name in ('bz2', 'lzma'):
    try:
        mod = __import__(name)
        out.append(name + ':' + str(mod.decompress(mod.compress(b'x' * 50)) == b'x' * 50))
    except ImportError as e:
        out.append(name + ': ImportError')
return '|'.join(out)`,
      'bz2:True|lzma:True',
    ),
    c(
      'pickle_uuid',
      py`
import pickle, uuid
from collections import OrderedDict
data = {'a': [1, 2.5, None, (3, 'x')], 'b': {1, 2}, 'c': OrderedDict(z=1), 'd': b'\x00', 'e': 10**30}
same = all(pickle.loads(pickle.dumps(data, protocol=p)) == data for p in range(pickle.HIGHEST_PROTOCOL + 1))
u = uuid.uuid4()
return '|'.join(str(x) for x in [same, u.version, len(str(u)), uuid.UUID('12345678123456781234567812345678'),
    uuid.uuid5(uuid.NAMESPACE_DNS, 'python.org'), uuid.uuid3(uuid.NAMESPACE_URL, 'x').version,
    pickle.loads(pickle.dumps(uuid.UUID(int=5))).int])`,
      'True|4|36|12345678-1234-5678-1234-567812345678|886313e1-3b8a-5372-9b90-0c9aee199e5d|3|5',
    ),
  ],

  files: [
    c(
      'io',
      py`
import io
s = io.StringIO()
s.write('line1\nline2\n')
s.seek(0)
b = io.BytesIO(b'abc')
b.seek(0, io.SEEK_END)
b.write(b'd')
w = io.TextIOWrapper(io.BytesIO(), encoding='utf-8', newline='')
w.write('é')
w.flush()
return '|'.join(str(x) for x in [s.readlines(), b.getvalue(), w.buffer.getvalue(),
    io.BufferedReader(io.BytesIO(b'xyz')).read(2), isinstance(s, io.TextIOBase)])`,
      "['line1\\n', 'line2\\n']|b'abcd'|b'\\xc3\\xa9'|b'xy'|True",
    ),
    c(
      'pathlib_os_path',
      py`
import os, os.path, pathlib
root = pathlib.Path('/tmp/sweep')
(root / 'sub').mkdir(parents=True, exist_ok=True)
(root / 'sub' / 'a.txt').write_text('hello')
(root / 'b.bin').write_bytes(b'\x01')
names = sorted(str(p.relative_to(root)) for p in root.rglob('*'))
p = pathlib.PurePosixPath('/a/b/c.tar.gz')
return '|'.join(str(x) for x in [names, (root / 'sub' / 'a.txt').read_text(), p.suffixes, p.stem, p.parent,
    os.path.join('a', 'b'), os.path.splitext('x/y.py'), os.path.basename('/q/r.txt'), os.path.exists('/tmp/sweep/b.bin'),
    os.path.getsize('/tmp/sweep/sub/a.txt'), os.path.isdir('/tmp/sweep/sub'), os.path.normpath('/a/./b/../c'),
    os.path.relpath('/a/b/c', '/a'), sorted(os.listdir('/tmp/sweep')), os.getcwd() != '',
    [f for _, _, fs in os.walk('/tmp/sweep') for f in fs]])`,
      "['b.bin', 'sub', 'sub/a.txt']|hello|['.tar', '.gz']|c.tar|/a/b|a/b|('x/y', '.py')|r.txt|True|5|True|/a/c|b/c|['b.bin', 'sub']|True|['b.bin', 'a.txt']",
    ),
    c(
      'tempfile_shutil_glob',
      py`
import glob, os, shutil, tempfile
with tempfile.TemporaryDirectory() as d:
    open(os.path.join(d, 'one.txt'), 'w').write('1')
    os.mkdir(os.path.join(d, 'inner'))
    open(os.path.join(d, 'inner', 'two.txt'), 'w').write('22')
    shutil.copy(os.path.join(d, 'one.txt'), os.path.join(d, 'copy.txt'))
    shutil.copytree(os.path.join(d, 'inner'), os.path.join(d, 'tree'))
    shutil.move(os.path.join(d, 'copy.txt'), os.path.join(d, 'moved.txt'))
    found = sorted(os.path.relpath(p, d) for p in glob.glob(os.path.join(d, '**', '*.txt'), recursive=True))
    shutil.rmtree(os.path.join(d, 'tree'))
    left = sorted(os.listdir(d))
    existed = os.path.isdir(d)
with tempfile.NamedTemporaryFile('w+', suffix='.csv', delete=True) as f:
    f.write('x')
    f.seek(0)
    named = f.read() + ' ' + str(f.name.endswith('.csv'))
fd, path = tempfile.mkstemp()
os.write(fd, b'abc')
os.close(fd)
size = os.path.getsize(path)
os.remove(path)
with tempfile.TemporaryFile() as t:
    t.write(b'zz')
    t.seek(0)
    tdata = t.read()
return '|'.join(str(x) for x in [found, left, existed, os.path.exists(d), named, size, tdata, tempfile.gettempdir()])`,
      "['inner/two.txt', 'moved.txt', 'one.txt', 'tree/two.txt']|['inner', 'moved.txt', 'one.txt']|True|False|x True|3|b'zz'|/tmp",
    ),
    c(
      'csv_tomllib',
      py`
import csv, io, tomllib
out = io.StringIO()
w = csv.writer(out)
w.writerow(['a', 'b,c', 'd"e'])
w.writerow([1, None, 2.5])
dw = csv.DictWriter(out, fieldnames=['x', 'y'])
dw.writeheader()
dw.writerow({'x': 1, 'y': 2})
rows = list(csv.reader(io.StringIO('p,"q,r"\n1,2\n')))
dicts = list(csv.DictReader(io.StringIO('h1,h2\nv1,v2\n')))
conf = tomllib.loads('title = "t"\n[owner]\nage = 3\nlist = [1, 2]\n')
return '|'.join(str(x) for x in [out.getvalue(), rows, dicts, conf, csv.Sniffer().sniff('a;b\n1;2\n').delimiter])`,
      "a,\"b,c\",\"d\"\"e\"\r\n1,,2.5\r\nx,y\r\n1,2\r\n|[['p', 'q,r'], ['1', '2']]|[{'h1': 'v1', 'h2': 'v2'}]|{'title': 't', 'owner': {'age': 3, 'list': [1, 2]}}|;",
    ),
    c(
      'sqlite3',
      py`
try:
    import sqlite3
except ImportError:
    return 'ImportError'
con = sqlite3.connect(':memory:')
con.execute('create table t (x int)')
con.executemany('insert into t values (?)', [(1,), (2,)])
return str(con.execute('select sum(x) from t').fetchone())`,
      '(3,)',
    ),
  ],

  introspection: [
    c(
      'inspect',
      py`
import inspect
def sample(a, b: int = 2, *args, c, **kw) -> str:
    'Doc.'
    return 'x'
class K:
    def m(self):
        pass
sig = inspect.signature(sample)
try:
    src = inspect.getsource(sample).splitlines()[0].strip()
except OSError as e:
    src = 'OSError: ' + str(e)
return '|'.join(str(x) for x in [sig, list(sig.parameters), sig.parameters['b'].default, inspect.getdoc(sample),
    inspect.isfunction(sample), inspect.isclass(K), [n for n, _ in inspect.getmembers(K, inspect.isfunction)],
    inspect.iscoroutinefunction(sample), src, inspect.getfullargspec(sample).kwonlyargs,
    sig.bind(1, c=3).arguments])`,
      "(a, b: int = 2, *args, c, **kw) -> str|['a', 'b', 'args', 'c', 'kw']|2|Doc.|True|True|['m']|False|def sample(a, b: int = 2, *args, c, **kw) -> str:|['c']|{'a': 1, 'c': 3}",
      { fails: `inspect.getsource: ${NO_SOURCE}` },
    ),
    c(
      'traceback',
      py`
import sys, traceback
def boom():
    return 1 / 0
try:
    boom()
except ZeroDivisionError:
    text = traceback.format_exc()
    info = sys.exc_info()[0].__name__
    summary = traceback.extract_tb(sys.exc_info()[2])
    one = traceback.format_exception_only(*sys.exc_info()[:2])
lines = text.splitlines()
return '|'.join(str(x) for x in [lines[0], lines[-1], 'in boom' in text, 'return 1 / 0' in text, info,
    [f.name for f in summary][-1], one])`,
      "Traceback (most recent call last):|ZeroDivisionError: division by zero|True|True|ZeroDivisionError|boom|['ZeroDivisionError: division by zero\\n']",
      { fails: `the traceback has no source lines: ${NO_SOURCE}` },
    ),
    c(
      'warnings_logging',
      py`
import io, logging, warnings
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter('always')
    warnings.warn('careful', UserWarning)
    warnings.warn('old', DeprecationWarning)
with warnings.catch_warnings():
    warnings.simplefilter('error')
    try:
        warnings.warn('now an error')
        raised = False
    except UserWarning:
        raised = True
stream = io.StringIO()
logger = logging.getLogger('sweep')
handler = logging.StreamHandler(stream)
handler.setFormatter(logging.Formatter('%(levelname)s:%(name)s:%(funcName)s:%(message)s'))
logger.addHandler(handler)
logger.setLevel(logging.INFO)
logger.info('hello %s', 'there')
logger.debug('hidden')
try:
    1 / 0
except ZeroDivisionError:
    logger.exception('failed')
logger.removeHandler(handler)
root_stream = io.StringIO()
logging.basicConfig(stream=root_stream, level=logging.WARNING, format='%(levelname)s %(message)s', force=True)
logging.warning('w1')
logging.info('i1')
logged = stream.getvalue().splitlines()
return '|'.join(str(x) for x in [[str(w.message) for w in caught], [w.category.__name__ for w in caught], raised,
    logged[0], logged[1], logged[-1], root_stream.getvalue()])`,
      "['careful', 'old']|['UserWarning', 'DeprecationWarning']|True|INFO:sweep:s_warnings_logging:hello there|ERROR:sweep:s_warnings_logging:failed|ZeroDivisionError: division by zero|WARNING w1\n",
    ),
    c(
      'argparse',
      py`
import argparse, io
parser = argparse.ArgumentParser(prog='tool', exit_on_error=False)
parser.add_argument('path')
parser.add_argument('-n', '--count', type=int, default=1)
parser.add_argument('--verbose', action='store_true')
parser.add_argument('--mode', choices=['a', 'b'], default='a')
sub = parser.add_subparsers(dest='cmd')
sub.add_parser('go').add_argument('--fast', action='store_true')
ns = parser.parse_args(['file.txt', '-n', '3', '--verbose', 'go', '--fast'])
err = io.StringIO()
parser.print_usage(err)
try:
    parser.parse_args(['x', '--count', 'notint'])
    bad = 'parsed'
except argparse.ArgumentError as e:
    bad = 'ArgumentError'
except SystemExit:
    bad = 'SystemExit'
return '|'.join(str(x) for x in [vars(ns), err.getvalue().startswith('usage: tool'), bad])`,
      "{'path': 'file.txt', 'count': 3, 'verbose': True, 'mode': 'a', 'cmd': 'go', 'fast': True}|True|ArgumentError",
    ),
    c(
      'contextlib',
      py`
import contextlib, io
out = io.StringIO()
with contextlib.redirect_stdout(out):
    print('captured')
err = io.StringIO()
with contextlib.redirect_stderr(err):
    import sys
    print('to err', file=sys.stderr)
with contextlib.suppress(KeyError):
    {}['x']
log = []
@contextlib.contextmanager
def tag(name):
    log.append('<' + name + '>')
    try:
        yield name.upper()
    finally:
        log.append('</' + name + '>')
with tag('b') as t:
    log.append(t)
with contextlib.ExitStack() as stack:
    stack.callback(log.append, 'exit')
    stack.enter_context(tag('i'))
with contextlib.nullcontext(5) as five:
    pass
return '|'.join(str(x) for x in [out.getvalue(), err.getvalue(), log, five])`,
      "captured\n|to err\n|['<b>', 'B', '</b>', '<i>', '</i>', 'exit']|5",
    ),
    c(
      'unittest',
      py`
import io, unittest
class T(unittest.TestCase):
    def test_ok(self):
        self.assertEqual(1 + 1, 2)
    def test_fail(self):
        self.assertIn(3, [1, 2])
    def test_raises(self):
        with self.assertRaises(ValueError):
            int('x')
    @unittest.skip('no')
    def test_skip(self):
        pass
stream = io.StringIO()
suite = unittest.defaultTestLoader.loadTestsFromTestCase(T)
result = unittest.TextTestRunner(stream=stream, verbosity=0).run(suite)
text = stream.getvalue()
return '|'.join(str(x) for x in [result.testsRun, len(result.failures), len(result.errors), len(result.skipped),
    result.wasSuccessful(), 'AssertionError: 3 not found in [1, 2]' in text, 'FAILED (failures=1, skipped=1)' in text])`,
      '4|1|0|1|False|True|True',
    ),
    c(
      'doctest',
      py`
import doctest
def add(a, b):
    """
    >>> add(1, 2)
    3
    >>> add('a', 'b')
    'ab'
    """
    return a + b
finder = doctest.DocTestFinder()
runner = doctest.DocTestRunner(verbose=False)
out = []
for test in finder.find(add, 'add', globs={'add': add}):
    runner.run(test, out=out.append)
return str(runner.summarize(verbose=False))`,
      'TestResults(failed=0, attempted=2)',
      {
        notes: [
          {
            note: 'adds builtin _',
            why: 'doctest runs each example as interactive input, whose displayhook sets builtins._',
          },
        ],
      },
    ),
    c(
      'timeit_sys',
      py`
import sys, timeit
t = timeit.timeit('sum(range(100))', number=100)
t2 = timeit.Timer(lambda: sorted([3, 1, 2])).repeat(repeat=2, number=10)
return '|'.join(str(x) for x in [t > 0, len(t2), sys.getsizeof(0) > 0, sys.getrecursionlimit() >= 1000,
    sys.version_info.major, sys.maxsize > 2**30, sys.platform, sys.byteorder, isinstance(sys.argv, list),
    sys.getdefaultencoding(), sys.float_info.max > 1e300, sys.intern('ab') == 'ab'])`,
      'True|2|True|True|3|True|emscripten|little|True|utf-8|True|True',
    ),
    c(
      'gettext_locale',
      py`
import gettext, locale
t = gettext.NullTranslations()
return '|'.join(str(x) for x in [gettext.gettext('hello'), t.ngettext('one', 'many', 2), locale.getpreferredencoding(False) != '',
    locale.setlocale(locale.LC_ALL, 'C'), locale.format_string('%d', 1234567, grouping=False), locale.localeconv()['decimal_point']])`,
      'hello|many|True|C|1234567|.',
    ),
  ],

  runtime: [
    c(
      'asyncio',
      py`
import asyncio
async def work(n, log):
    await asyncio.sleep(0.01 * n)
    log.append(n)
    return n * n
async def main():
    log = []
    results = await asyncio.gather(work(3, log), work(1, log), work(2, log))
    q = asyncio.Queue()
    async def producer():
        for i in range(3):
            await q.put(i)
        await q.put(None)
    async def consumer():
        got = []
        while (item := await q.get()) is not None:
            got.append(item)
        return got
    _, consumed = await asyncio.gather(producer(), consumer())
    task = asyncio.create_task(asyncio.sleep(10))
    await asyncio.sleep(0)
    task.cancel()
    try:
        await task
        cancelled = False
    except asyncio.CancelledError:
        cancelled = True
    try:
        await asyncio.wait_for(asyncio.sleep(10), timeout=0.01)
        timed_out = False
    except TimeoutError:
        timed_out = True
    async with asyncio.timeout(1):
        await asyncio.sleep(0)
    lock = asyncio.Lock()
    async with lock:
        locked = lock.locked()
    event = asyncio.Event()
    asyncio.get_running_loop().call_later(0.01, event.set)
    await event.wait()
    async def agen():
        for i in range(3):
            yield i
    collected = [x async for x in agen()]
    return [results, log, consumed, cancelled, timed_out, locked, event.is_set(), collected]
loop = asyncio.new_event_loop()
try:
    direct = loop.run_until_complete(asyncio.sleep(0, result='direct'))
finally:
    loop.close()
return '|'.join(str(x) for x in asyncio.run(main()) + [direct])`,
      '[9, 1, 4]|[1, 2, 3]|[0, 1, 2]|True|True|True|True|[0, 1, 2]|direct',
    ),
    c(
      'types_coroutine',
      py`
import asyncio, inspect, types
@types.coroutine
def legacy():
    yield
    return 'legacy'
async def main():
    return await legacy()
return '|'.join(str(x) for x in [asyncio.run(main()), inspect.isgeneratorfunction(legacy),
    bool(legacy.__code__.co_flags & 0x100)])`,
      'legacy|True|True',
    ),
    c(
      'pickle_own_class',
      py`
import copy, pickle
global Rec
class Rec:
    def __init__(self, a):
        self.a = a
    def __eq__(self, o):
        return type(o) is Rec and o.a == self.a
r = Rec([1, 2])
back = pickle.loads(pickle.dumps(r))
return '|'.join(str(x) for x in [back == r, back is not r, copy.deepcopy(r) == r, Rec.__qualname__, Rec.__module__])`,
      'True|True|True|Rec|__main__',
    ),
    c(
      'import_own_module',
      py`
import importlib, importlib.util, os, sys
os.makedirs('/tmp/pkgdir', exist_ok=True)
with open('/tmp/pkgdir/sweepmod.py', 'w') as f:
    f.write('VALUE = 41\ndef bump():\n    return VALUE + 1\n')
sys.path.insert(0, '/tmp/pkgdir')
try:
    import sweepmod
    first = sweepmod.bump()
    with open('/tmp/pkgdir/sweepmod.py', 'w') as f:
        f.write('VALUE = 1\ndef bump():\n    return VALUE + 1\n')
    importlib.invalidate_caches()
    importlib.reload(sweepmod)
    second = sweepmod.bump()
    spec = importlib.util.spec_from_file_location('other', '/tmp/pkgdir/sweepmod.py')
    other = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(other)
    third = other.VALUE
    dynamic = importlib.import_module('json.decoder').__name__
finally:
    sys.path.remove('/tmp/pkgdir')
    sys.modules.pop('sweepmod', None)
return '|'.join(str(x) for x in [first, second, third, dynamic])`,
      '42|2|1|json.decoder',
    ),
    c(
      'gc_os_sys',
      py`
import gc, os, sys
gc.collect()
was = gc.isenabled()
gc.disable()
off = gc.isenabled()
gc.enable()
os.environ['SWEEP_VAR'] = 'v'
env = os.getenv('SWEEP_VAR')
del os.environ['SWEEP_VAR']
def depth(n):
    return n if n == 0 else depth(n - 1)
return '|'.join(str(x) for x in [was, off, len(gc.get_count()), gc.is_tracked([]), env, os.getenv('SWEEP_VAR'),
    os.getpid() > 0, len(os.urandom(8)), os.cpu_count() >= 1, os.path.isdir('/tmp'), os.sep,
    os.linesep == '\n', depth(500), sys.getrecursionlimit() >= 1000, sys.getsizeof([]) > 0])`,
      'True|False|3|True|v|None|True|8|True|True|/|True|0|True|True',
    ),
    c(
      'help_pydoc_platform',
      py`
import contextlib, io, platform, pydoc
buf = io.StringIO()
with contextlib.redirect_stdout(buf):
    help(len)
text = pydoc.render_doc(str.split, renderer=pydoc.plaintext)
return '|'.join(str(x) for x in ['len(obj, /)' in buf.getvalue(), 'split' in text,
    platform.python_version().startswith('3.'), platform.python_implementation(), platform.system() != ''])`,
      'True|True|True|CPython|True',
    ),
    c(
      'ast_dis_compile',
      py`
import ast, dis, io
tree = ast.parse('x = 1 + 2\ny = x * 2')
ns = {}
exec(compile(tree, '<ast>', 'exec'), ns)
out = io.StringIO()
dis.dis(lambda a: a + 1, file=out)
return '|'.join(str(x) for x in [[type(n).__name__ for n in tree.body], ns['y'], 'BINARY_OP' in out.getvalue(),
    eval(compile('2 ** 10', '<expr>', 'eval')), ast.unparse(ast.parse('f(a,b=1)')),
    ast.literal_eval("{'a': [1, 2.5, None]}")])`,
      "['Assign', 'Assign']|6|True|1024|f(a, b=1)|{'a': [1, 2.5, None]}",
    ),
    c(
      'threading_queue',
      py`
import queue, threading
lock = threading.RLock()
with lock:
    with lock:
        pass
q = queue.Queue()
q.put(1)
local = threading.local()
local.x = 5
ev = threading.Event()
ev.set()
return '|'.join(str(x) for x in [q.get_nowait(), local.x, threading.current_thread().name, ev.wait(0),
    threading.active_count(), threading.Lock().acquire(timeout=0)])`,
      '1|5|MainThread|True|1|True',
    ),
    c(
      'cprofile',
      py`
import cProfile, io, pstats
prof = cProfile.Profile()
prof.enable()
sorted(range(100), key=lambda v: -v)
prof.disable()
out = io.StringIO()
pstats.Stats(prof, stream=out).sort_stats('cumulative').print_stats(3)
return str('function calls' in out.getvalue())`,
      'True',
      {
        fails:
          'profile and trace functions are refused to the program while the judge records (by design)',
        notes: [
          {
            note: 'sets a trace or profile function (sys.monitoring.register_callback)',
            why: 'cProfile.enable',
          },
          { note: 'uses sys.monitoring', why: 'cProfile.enable' },
        ],
      },
    ),
    c(
      'tracemalloc_input',
      py`
import tracemalloc
tracemalloc.start()
blob = [bytes(1000) for _ in range(10)]
current, peak = tracemalloc.get_traced_memory()
tracemalloc.stop()
try:
    input()
    read = 'read'
except EOFError:
    read = 'EOFError'
return '|'.join(str(x) for x in [peak >= 10000, len(blob), read])`,
      'True|10|EOFError',
    ),
  ],

  web: [
    c(
      'xml_etree',
      py`
import xml.etree.ElementTree as ET
root = ET.fromstring('<r a="1"><c n="x">t1</c><c n="y">t2</c></r>')
new = ET.SubElement(root, 'd', k='v')
new.text = 'z'
return '|'.join(str(x) for x in [root.tag, root.attrib, [c.get('n') for c in root.findall('c')],
    root.find("c[@n='y']").text, ET.tostring(new, encoding='unicode'), len(list(root.iter())),
    [e.text for e in ET.parse(__import__('io').StringIO('<a><b>q</b></a>')).getroot()]])`,
      "r|{'a': '1'}|['x', 'y']|t2|<d k=\"v\">z</d>|4|['q']",
    ),
    c(
      'xml_minidom',
      py`
from xml.dom import minidom
doc = minidom.parseString('<a><b>x</b></a>')
return doc.getElementsByTagName('b')[0].firstChild.data + '|' + doc.documentElement.toxml()`,
      'x|<a><b>x</b></a>',
    ),
    c(
      'urllib_ipaddress',
      py`
import ipaddress
from urllib.parse import parse_qs, quote, unquote, urlencode, urljoin, urlparse, urlsplit
u = urlparse('https://user@example.com:8080/p/a;x?q=1&q=2&r=%20#frag')
net = ipaddress.ip_network('192.168.0.0/30')
return '|'.join(str(x) for x in [u.scheme, u.hostname, u.port, u.path, parse_qs(u.query), u.fragment,
    urlencode({'a': 'b c', 'd': 1}), quote('a b/é'), unquote('%7E%20'), urljoin('http://h/a/b', '../c'),
    urlsplit('//h/p').netloc, ipaddress.ip_address('10.0.0.1').is_private, list(net.hosts()),
    ipaddress.ip_address('::1').version, ipaddress.ip_interface('10.1.2.3/24').network])`,
      "https|example.com|8080|/p/a|{'q': ['1', '2'], 'r': [' ']}|frag|a=b+c&d=1|a%20b/%C3%A9|~ |http://h/c|h|True|[IPv4Address('192.168.0.1'), IPv4Address('192.168.0.2')]|6|10.1.2.0/24",
    ),
    c(
      'email',
      py`
from email.message import EmailMessage
from email import message_from_string
from email.utils import formataddr, parseaddr
msg = EmailMessage()
msg['Subject'] = 'Hi'
msg['To'] = formataddr(('Ann', 'ann@example.com'))
msg.set_content('body text')
parsed = message_from_string(msg.as_string())
return '|'.join(str(x) for x in [parsed['Subject'], parsed['To'], parsed.get_payload().strip(), parseaddr('Bob <b@x.org>')])`,
      "Hi|Ann <ann@example.com>|body text|('Bob', 'b@x.org')",
    ),
  ],
};

/** A call that fails in Pyodide whatever the lockdown does, with what it gives in the sandbox. */
export interface PyodideLimit {
  /** The call, an expression. */
  call: string;
  /** `! ExceptionType`, or `-> repr` of what it returns. */
  expected: string;
  why: string;
}

const NO_THREADS = 'no threads: Pyodide is built without pthreads';
const NO_PROCESSES = 'no processes in a browser tab';
const NO_SOCKETS =
  "no sockets: a browser tab has none (and the worker's network globals are deleted)";

/** What a browser tab's Python cannot do; each is called in one program (execute only). */
export const PYODIDE_LIMITS: PyodideLimit[] = [
  { call: 'threading.Thread(target=int).start()', expected: '! RuntimeError', why: NO_THREADS },
  {
    call: 'concurrent.futures.ThreadPoolExecutor(1).submit(int).result()',
    expected: '! RuntimeError',
    why: NO_THREADS,
  },
  { call: 'asyncio.run(asyncio.to_thread(int))', expected: '! RuntimeError', why: NO_THREADS },
  { call: "subprocess.run(['ls'])", expected: '! OSError', why: NO_PROCESSES },
  { call: "os.popen('ls').read()", expected: '! OSError', why: NO_PROCESSES },
  { call: 'os.fork()', expected: '! OSError', why: NO_PROCESSES },
  { call: "os.system('ls')", expected: '-> -1', why: `${NO_PROCESSES} (no shell)` },
  {
    call: "__import__('multiprocessing').Pool(1)",
    expected: '! ModuleNotFoundError',
    why: `${NO_PROCESSES} (no _multiprocessing)`,
  },
  {
    call: "socket.create_connection(('example.com', 80), timeout=1)",
    expected: '! PermissionError',
    why: NO_SOCKETS,
  },
  { call: 'socket.socketpair()', expected: '! PermissionError', why: NO_SOCKETS },
  {
    call: "urllib.request.urlopen('http://example.com', timeout=1)",
    expected: '! URLError',
    why: NO_SOCKETS,
  },
  {
    call: "asyncio.run(asyncio.open_connection('example.com', 80))",
    expected: '! RuntimeError',
    why: `${NO_SOCKETS}; name resolution runs in a thread`,
  },
  {
    call: "hashlib.pbkdf2_hmac('sha256', b'pw', b'salt', 1)",
    expected: '! AttributeError',
    why: 'no OpenSSL in the build (hashlib has only its builtin hashes)',
  },
  {
    call: "zoneinfo.ZoneInfo('Europe/Paris')",
    expected: '! ZoneInfoNotFoundError',
    why: 'no time-zone database: tzdata is a separate Pyodide package',
  },
  { call: 'signal.alarm(1)', expected: '! AttributeError', why: 'no alarm signals in WebAssembly' },
  {
    call: "__import__('webbrowser').open('http://example.com')",
    expected: '! ImportError',
    why: "Pyodide's webbrowser opens tabs through the js module, which the lockdown refuses",
  },
  ...['tkinter', 'curses', 'readline', 'dbm'].map((name) => ({
    call: `__import__('${name}')`,
    expected: '! ModuleNotFoundError',
    why: 'not in the Pyodide build',
  })),
];

/** The program that makes every PYODIDE_LIMITS call and prints `call` then what it gave. */
export function limitsProgram(): string {
  const calls = PYODIDE_LIMITS.map(
    (limit) => `    (${pyString(limit.call)}, lambda: ${limit.call}),`,
  );
  return `import asyncio, concurrent.futures, hashlib, os, signal, socket, subprocess, threading
import urllib.request, zoneinfo
for _call, _fn in [
${calls.join('\n')}
]:
    try:
        _out = '-> ' + repr(_fn())
    except BaseException as _e:
        _out = '! ' + type(_e).__name__
    print('${MARK}' + _call)
    print(_out)
`;
}

/** The marker line before each case's result in the execute form's output. */
export const MARK = '~~~case~~~ ';

function definitions(cases: readonly StdlibCase[]): string {
  return cases
    .map((one) => `def s_${one.name}():\n${one.body.replace(/^(?=.)/gm, '    ')}\n`)
    .join('\n');
}

/** The execute form: every case's function, then a loop printing each result after a marker. */
export function executeProgram(cases: readonly StdlibCase[]): string {
  const table = cases.map((one) => `('${one.name}', s_${one.name})`).join(', ');
  return `${definitions(cases)}
for _name, _fn in [${table}]:
    try:
        _out = _fn()
    except BaseException as _e:
        _out = '!' + type(_e).__name__ + ': ' + str(_e)
    print('${MARK}' + _name)
    print(_out)
`;
}

/** The execute form's output back to one result per case name. */
export function parseResults(stdout: string): Map<string, string> {
  const results = new Map<string, string>();
  const parts = stdout.split(new RegExp(`^${MARK}`, 'm')).slice(1);
  for (const part of parts) {
    const newline = part.indexOf('\n');
    results.set(part.slice(0, newline), part.slice(newline + 1).replace(/\n$/, ''));
  }
  return results;
}

/** The judged form: the same functions as the program, one `assert s_name() == '…'` per case. */
export function judgedForm(cases: readonly StdlibCase[]): { code: string; tests: string } {
  const tests = cases.map((one) => `assert s_${one.name}() == ${pyString(one.expected)}`);
  return { code: definitions(cases), tests: tests.join('\n') };
}

/** A Python string literal for `text` (JSON's escapes are Python's too). */
export function pyString(text: string): string {
  return JSON.stringify(text);
}
