// Python literals parsed in JavaScript, so a value test's expected value never enters the sandbox
// (src/tasks/tests_harness.ts splits `assert EXPR == VALUE`). Supported: ints of any size (decimal,
// 0x, 0o, 0b, underscores), floats, strings (single, double and triple quotes, r/u prefixes,
// adjacent literals concatenated, the usual escapes), True, False, None, and lists, tuples,
// dicts and sets of those, with unary minus and plus on numbers. Anything else (bytes, f-strings,
// complex numbers, names, calls, operators) is not a literal: parsePythonLiteral returns null.
import type { PlainValue } from '../env/plain_value.ts';

class NotLiteral extends Error {}

const SIMPLE_ESCAPES: Record<string, string> = {
  '\\': '\\',
  "'": "'",
  '"': '"',
  a: '\x07',
  b: '\b',
  f: '\f',
  n: '\n',
  r: '\r',
  t: '\t',
  v: '\v',
};

/** Parses a whole Python literal; null when `source` is not exactly one literal. */
export function parsePythonLiteral(source: string): PlainValue | null {
  try {
    const parser = new LiteralParser(source);
    const value = parser.value();
    parser.skipSpace();
    return parser.atEnd() ? value : null;
  } catch (error) {
    if (error instanceof NotLiteral || error instanceof RangeError || error instanceof SyntaxError)
      return null;
    throw error;
  }
}

class LiteralParser {
  private pos = 0;
  private depth = 0;
  constructor(private readonly text: string) {}

  atEnd(): boolean {
    return this.pos >= this.text.length;
  }

  skipSpace(): void {
    for (;;) {
      const c = this.text[this.pos];
      if (c === ' ' || c === '\t' || c === '\n' || c === '\r' || c === '\f') this.pos++;
      else if (c === '\\' && this.text[this.pos + 1] === '\n') this.pos += 2;
      else return;
    }
  }

  private fail(): never {
    throw new NotLiteral();
  }

  private peek(): string | undefined {
    return this.text[this.pos];
  }

  value(): PlainValue {
    if (++this.depth > 100) this.fail();
    try {
      this.skipSpace();
      const c = this.peek();
      if (c === undefined) this.fail();
      if (c === '[') return { type: 'list', items: this.sequence(']').items };
      if (c === '(') {
        const { items, trailingComma } = this.sequence(')');
        if (items.length === 1 && !trailingComma) return items[0]!;
        return { type: 'tuple', items };
      }
      if (c === '{') return this.braces();
      if (c === '-' || c === '+') {
        this.pos++;
        const operand = this.value();
        if (operand.type === 'int')
          return c === '-' ? { type: 'int', value: -operand.value } : operand;
        if (operand.type === 'float')
          return c === '-' ? { type: 'float', value: -operand.value } : operand;
        if (operand.type === 'bool')
          return { type: 'int', value: (operand.value ? 1n : 0n) * (c === '-' ? -1n : 1n) };
        this.fail();
      }
      if (/[0-9.]/.test(c)) return this.number();
      const word = /^[A-Za-z_][A-Za-z0-9_]*/.exec(this.text.slice(this.pos))?.[0];
      if (word !== undefined) {
        const quote = this.text[this.pos + word.length];
        if ((quote === "'" || quote === '"') && /^(r|u|R|U)$/.test(word)) return this.strings();
        this.pos += word.length;
        if (word === 'True') return { type: 'bool', value: true };
        if (word === 'False') return { type: 'bool', value: false };
        if (word === 'None') return { type: 'none' };
        this.fail();
      }
      if (c === "'" || c === '"') return this.strings();
      this.fail();
    } finally {
      this.depth--;
    }
  }

  private sequence(close: string): { items: PlainValue[]; trailingComma: boolean } {
    this.pos++; // the opening bracket
    const items: PlainValue[] = [];
    let trailingComma = false;
    for (;;) {
      this.skipSpace();
      if (this.peek() === close) {
        this.pos++;
        return { items, trailingComma };
      }
      items.push(this.value());
      this.skipSpace();
      trailingComma = false;
      if (this.peek() === ',') {
        this.pos++;
        trailingComma = true;
        continue;
      }
      if (this.peek() === close) {
        this.pos++;
        return { items, trailingComma };
      }
      this.fail();
    }
  }

  private braces(): PlainValue {
    this.pos++; // {
    this.skipSpace();
    if (this.peek() === '}') {
      this.pos++;
      return { type: 'dict', entries: [] };
    }
    const first = this.value();
    this.skipSpace();
    if (this.peek() === ':') {
      const entries: [PlainValue, PlainValue][] = [];
      let key = first;
      for (;;) {
        this.skipSpace();
        if (this.peek() !== ':') this.fail();
        this.pos++;
        const value = this.value();
        if (!hashable(key)) this.fail();
        // A repeated key keeps its first position and its last value, as in Python.
        const existing = entries.find(([k]) => plainEqualsKey(k, key));
        if (existing) existing[1] = value;
        else entries.push([key, value]);
        this.skipSpace();
        if (this.peek() === ',') {
          this.pos++;
          this.skipSpace();
        } else if (this.peek() !== '}') this.fail();
        if (this.peek() === '}') {
          this.pos++;
          return { type: 'dict', entries };
        }
        key = this.value();
      }
    }
    const items: PlainValue[] = [];
    let item = first;
    for (;;) {
      if (!hashable(item)) this.fail();
      if (!items.some((other) => plainEqualsKey(other, item))) items.push(item);
      this.skipSpace();
      if (this.peek() === ',') {
        this.pos++;
        this.skipSpace();
      } else if (this.peek() !== '}') this.fail();
      if (this.peek() === '}') {
        this.pos++;
        return { type: 'set', items };
      }
      item = this.value();
    }
  }

  private number(): PlainValue {
    const rest = this.text.slice(this.pos);
    const radix = /^0([xX][0-9a-fA-F_]+|[oO][0-7_]+|[bB][01_]+)(?![0-9A-Za-z_.])/.exec(rest);
    if (radix) {
      this.pos += radix[0].length;
      const digits = radix[1]!.slice(1);
      if (digits.startsWith('_') === false && (digits.includes('__') || digits.endsWith('_')))
        this.fail();
      const prefix = radix[1]![0]!.toLowerCase();
      return {
        type: 'int',
        value: BigInt(`0${prefix}${digits.replace(/^_/, '').replace(/_/g, '')}`),
      };
    }
    const decimal = /^(?:\d(?:_?\d)*)?(?:\.(?:\d(?:_?\d)*)?)?(?:[eE][+-]?\d(?:_?\d)*)?/.exec(
      rest,
    )![0];
    if (decimal === '' || decimal === '.' || !/\d/.test(decimal.split(/[eE]/)[0]!)) this.fail();
    const after = rest[decimal.length];
    if (after !== undefined && /[0-9A-Za-z_.]/.test(after)) this.fail(); // 1j, 1abc, 1..
    this.pos += decimal.length;
    const clean = decimal.replace(/_/g, '');
    if (/[.eE]/.test(clean))
      return {
        type: 'float',
        value: Number(clean.startsWith('.') ? `0${clean}` : clean.replace(/\.(?=[eE]|$)/, '')),
      };
    if (/^0+\d/.test(clean) && /[1-9]/.test(clean)) this.fail(); // 012 is a syntax error in Python 3
    return { type: 'int', value: BigInt(clean) };
  }

  /** One or more adjacent string literals, concatenated. */
  private strings(): PlainValue {
    let value = '';
    let any = false;
    for (;;) {
      this.skipSpace();
      const prefix = /^[A-Za-z]*/.exec(this.text.slice(this.pos))![0];
      const quote = this.text[this.pos + prefix.length];
      if (quote !== "'" && quote !== '"') break;
      if (!/^(r|u|R|U)?$/.test(prefix)) this.fail();
      this.pos += prefix.length;
      value += this.string(prefix.toLowerCase() === 'r');
      any = true;
    }
    if (!any) this.fail();
    return { type: 'str', value };
  }

  private string(raw: boolean): string {
    const q = this.text[this.pos]!;
    const triple = this.text.startsWith(q.repeat(3), this.pos);
    const end = triple ? q.repeat(3) : q;
    this.pos += end.length;
    let out = '';
    for (;;) {
      if (this.atEnd()) this.fail();
      if (this.text.startsWith(end, this.pos)) {
        this.pos += end.length;
        return out;
      }
      const c = this.text[this.pos]!;
      if (c === '\n' && !triple) this.fail();
      if (c !== '\\') {
        const code = this.text.codePointAt(this.pos)!;
        const ch = String.fromCodePoint(code);
        out += ch;
        this.pos += ch.length;
        continue;
      }
      const next = this.text[this.pos + 1];
      if (next === undefined) this.fail();
      if (raw) {
        out += next === '\n' ? '\\\n' : `\\${next}`;
        this.pos += 2;
        continue;
      }
      this.pos += 2;
      if (next === '\n') continue;
      if (next in SIMPLE_ESCAPES) {
        out += SIMPLE_ESCAPES[next];
        continue;
      }
      if (/[0-7]/.test(next)) {
        let digits = next;
        while (digits.length < 3 && /[0-7]/.test(this.text[this.pos] ?? ''))
          digits += this.text[this.pos++];
        out += String.fromCodePoint(parseInt(digits, 8));
        continue;
      }
      const hexLength = next === 'x' ? 2 : next === 'u' ? 4 : next === 'U' ? 8 : 0;
      if (hexLength > 0) {
        const digits = this.text.slice(this.pos, this.pos + hexLength);
        if (!new RegExp(`^[0-9a-fA-F]{${hexLength}}$`).test(digits)) this.fail();
        const code = parseInt(digits, 16);
        if (code > 0x10ffff) this.fail();
        out += String.fromCodePoint(code);
        this.pos += hexLength;
        continue;
      }
      if (next === 'N') this.fail(); // \N{NAME}: not supported here
      out += `\\${next}`; // an unknown escape keeps its backslash, as in Python
    }
  }
}

/** Whether a value can be a dict key or set member (no list, dict or set inside). */
function hashable(value: PlainValue): boolean {
  if (value.type === 'list' || value.type === 'dict' || value.type === 'set') return false;
  return value.type !== 'tuple' || value.items.every(hashable);
}

/** Key equality for literal dicts and sets (Python's ==, numbers across types). */
function plainEqualsKey(a: PlainValue, b: PlainValue): boolean {
  return keyOf(a) === keyOf(b);
}

function keyOf(value: PlainValue): string {
  switch (value.type) {
    case 'bool':
      return `n:${value.value ? 1 : 0}`;
    case 'int':
      return `n:${value.value}`;
    case 'float':
      return Number.isInteger(value.value) && Number.isFinite(value.value)
        ? `n:${BigInt(value.value)}`
        : `f:${value.value}`;
    case 'str':
      return `s:${JSON.stringify(value.value)}`;
    case 'none':
      return 'none';
    case 'tuple':
      return `t:[${value.items.map(keyOf).join(',')}]`;
    default:
      return `?:${Math.random()}`;
  }
}
