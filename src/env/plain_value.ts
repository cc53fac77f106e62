// Plain data, the only thing a value test's result may be (docs/sandbox.md "The judge"): what
// Python's harness returns for it (python/judge.py), and equality by Python's `==` rules for these
// types, computed here, outside the interpreter the program controls.
//   1 == 1.0 == True; a list never equals a tuple; dicts and sets compare regardless of order;
//   str exactly; nested containers element by element; nan equals nothing.

/** A Python value of a plain type. Ints are bigints (arbitrary size); set covers frozenset. */
export type PlainValue =
  | { type: 'int'; value: bigint }
  | { type: 'float'; value: number }
  | { type: 'bool'; value: boolean }
  | { type: 'str'; value: string }
  | { type: 'none' }
  | { type: 'list' | 'tuple' | 'set'; items: PlainValue[] }
  | { type: 'dict'; entries: [PlainValue, PlainValue][] };

/** The harness's encoding (python/judge.py `plain`): a tag, then the payload. */
export type EncodedValue =
  | ['s', string]
  | ['b', boolean]
  | ['n']
  | ['i', string]
  | ['f', string]
  | ['l' | 't' | 'S', EncodedValue[]]
  | ['d', [EncodedValue, EncodedValue][]];

const MAX_DEPTH = 128;

/** Hex digits with an optional minus sign (Python's format(x, 'x')) as a bigint. */
function hexInt(text: string): bigint {
  const negative = text.startsWith('-');
  const digits = negative ? text.slice(1) : text;
  if (!/^[0-9a-f]+$/.test(digits)) throw new Error(`not a hex integer: ${text.slice(0, 40)}`);
  const value = BigInt(`0x${digits}`);
  return negative ? -value : value;
}

/** A float's repr (inf, nan included) as a number. */
function floatRepr(text: string): number {
  if (text === 'inf') return Infinity;
  if (text === '-inf') return -Infinity;
  if (text === 'nan' || text === '-nan') return NaN;
  const value = Number(text);
  if (Number.isNaN(value)) throw new Error(`not a float repr: ${text.slice(0, 40)}`);
  return value;
}

/** Decodes what the harness returned; throws on anything malformed. */
export function decodePlain(encoded: unknown, depth = 0): PlainValue {
  if (depth > MAX_DEPTH) throw new Error('plain value nested too deeply');
  if (!Array.isArray(encoded) || typeof encoded[0] !== 'string')
    throw new Error('malformed plain value');
  const [tag, payload] = encoded as [string, unknown];
  const list = (): unknown[] => {
    if (!Array.isArray(payload)) throw new Error('malformed plain value');
    return payload;
  };
  switch (tag) {
    case 's':
      if (typeof payload !== 'string') break;
      return { type: 'str', value: payload };
    case 'b':
      if (typeof payload !== 'boolean') break;
      return { type: 'bool', value: payload };
    case 'n':
      return { type: 'none' };
    case 'i':
      if (typeof payload !== 'string') break;
      return { type: 'int', value: hexInt(payload) };
    case 'f':
      if (typeof payload !== 'string') break;
      return { type: 'float', value: floatRepr(payload) };
    case 'l':
      return { type: 'list', items: list().map((item) => decodePlain(item, depth + 1)) };
    case 't':
      return { type: 'tuple', items: list().map((item) => decodePlain(item, depth + 1)) };
    case 'S':
      return { type: 'set', items: list().map((item) => decodePlain(item, depth + 1)) };
    case 'd':
      return {
        type: 'dict',
        entries: list().map((pair) => {
          if (!Array.isArray(pair) || pair.length !== 2) throw new Error('malformed plain value');
          return [decodePlain(pair[0], depth + 1), decodePlain(pair[1], depth + 1)] as [
            PlainValue,
            PlainValue,
          ];
        }),
      };
    default:
      break;
  }
  throw new Error(`malformed plain value (tag ${JSON.stringify(tag)})`);
}

/** A number in Python's numeric tower (bool, int, float), or null. */
function numeric(value: PlainValue): bigint | number | null {
  if (value.type === 'bool') return value.value ? 1n : 0n;
  if (value.type === 'int' || value.type === 'float') return value.value;
  return null;
}

function numbersEqual(a: bigint | number, b: bigint | number): boolean {
  if (typeof a === 'bigint' && typeof b === 'bigint') return a === b;
  if (typeof a === 'number' && typeof b === 'number') return a === b;
  const [int, float] = typeof a === 'bigint' ? [a, b as number] : [b as bigint, a];
  return Number.isFinite(float) && Number.isInteger(float) && BigInt(float) === int;
}

/** Python's `a == b` for plain values. */
export function plainEquals(a: PlainValue, b: PlainValue): boolean {
  const x = numeric(a);
  const y = numeric(b);
  if (x !== null || y !== null) return x !== null && y !== null && numbersEqual(x, y);
  switch (a.type) {
    case 'str':
      return b.type === 'str' && a.value === b.value;
    case 'none':
      return b.type === 'none';
    case 'list':
    case 'tuple':
      return (
        b.type === a.type &&
        a.items.length === b.items.length &&
        a.items.every((item, i) => plainEquals(item, b.items[i]!))
      );
    case 'set':
      return b.type === 'set' && sameMembers(a.items, b.items);
    case 'dict': {
      if (b.type !== 'dict' || a.entries.length !== b.entries.length) return false;
      return a.entries.every(([key, value]) => {
        const match = b.entries.find(([other]) => plainEquals(key, other));
        return match !== undefined && plainEquals(value, match[1]);
      });
    }
    default:
      return false;
  }
}

/** Set equality: every member of each has an equal member in the other (members are distinct). */
function sameMembers(a: PlainValue[], b: PlainValue[]): boolean {
  return (
    a.length === b.length &&
    a.every((item) => b.some((other) => plainEquals(item, other))) &&
    b.every((item) => a.some((other) => plainEquals(item, other)))
  );
}

/** Python's repr of a plain value, for messages. */
export function formatPlain(value: PlainValue): string {
  switch (value.type) {
    case 'int':
      return value.value.toString();
    case 'float': {
      if (Number.isNaN(value.value)) return 'nan';
      if (!Number.isFinite(value.value)) return value.value > 0 ? 'inf' : '-inf';
      return Number.isInteger(value.value) && Math.abs(value.value) < 1e16
        ? `${value.value}.0`
        : String(value.value);
    }
    case 'bool':
      return value.value ? 'True' : 'False';
    case 'none':
      return 'None';
    case 'str':
      return `'${value.value.replace(/\\/g, '\\\\').replace(/'/g, "\\'").replace(/\n/g, '\\n')}'`;
    case 'list':
      return `[${value.items.map(formatPlain).join(', ')}]`;
    case 'tuple':
      return value.items.length === 1
        ? `(${formatPlain(value.items[0]!)},)`
        : `(${value.items.map(formatPlain).join(', ')})`;
    case 'set':
      return value.items.length === 0 ? 'set()' : `{${value.items.map(formatPlain).join(', ')}}`;
    case 'dict':
      return `{${value.entries.map(([k, v]) => `${formatPlain(k)}: ${formatPlain(v)}`).join(', ')}}`;
  }
}
