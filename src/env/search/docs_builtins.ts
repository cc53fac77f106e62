// Python's built-in functions and types, as of CPython 3.12 (Pyodide's runtime has them all). Every
// name must resolve in Python and every `expr == value` example in backticks must hold: a test
// runs them.
import { entries } from './entries.ts';

export const BUILTIN_DOCS = entries([
  [
    'abs(x)',
    'Absolute value of a number: its distance from zero, so a negative number becomes positive. `abs(-7) == 7`',
  ],
  [
    'all(iterable)',
    'True if every element is true (or the iterable is empty); with a generator, checks that all items meet a condition. `all(x > 0 for x in [1, 2]) == True`',
  ],
  [
    'any(iterable)',
    'True if at least one element is true, False for an empty iterable; checks whether any item meets a condition. `any(x > 1 for x in [0, 2]) == True`',
  ],
  [
    'bin(x)',
    'Binary representation of an integer as a string prefixed with "0b" (base 2). `bin(10) == "0b1010"`',
  ],
  [
    'bool(x=False)',
    'Truth value of x: False for 0, empty strings and containers, None and False; True otherwise.',
  ],
  [
    'chr(i)',
    'The character whose Unicode code point is the integer i; the inverse of ord. `chr(97) == "a"`',
  ],
  [
    'complex(real=0, imag=0)',
    'A complex number real + imag*1j; its .real and .imag parts and abs() give the magnitude.',
  ],
  [
    'dict(iterable, **kwargs)',
    'Make a dictionary mapping keys to values from (key, value) pairs or keyword arguments; dict(zip(keys, values)) pairs up two lists.',
  ],
  [
    'divmod(a, b)',
    'Quotient and remainder of integer division as a pair (a // b, a % b). `divmod(23, 7) == (3, 2)`',
  ],
  [
    'enumerate(iterable, start=0)',
    'Pairs each element with its index, counting from start, as (index, value) tuples: loop over positions and items together.',
  ],
  [
    'filter(function, iterable)',
    'Iterator over the elements for which function returns true: keeps only the items that pass a test.',
  ],
  [
    'float(x=0.0)',
    'Convert a string or number to a floating-point number, one with a fractional part; float("inf") is infinity.',
  ],
  [
    "format(value, format_spec='')",
    'Format a value with a format spec: fixed decimals, thousands separators, padding or another base. `format(1234.5, ",.2f") == "1,234.50"`',
  ],
  [
    'frozenset(iterable)',
    'An immutable set of unique items, usable as a dictionary key or as a member of another set.',
  ],
  [
    'hex(x)',
    'Hexadecimal representation of an integer as a lowercase string prefixed with "0x" (base 16). `hex(255) == "0xff"`',
  ],
  [
    'int(x, base=10)',
    'Convert a number or string to an integer, truncating a float toward zero; with base, parse digits written in that base (2 for binary, 16 for hex). `int("1f", 16) == 31`',
  ],
  [
    'isinstance(object, classinfo)',
    'True if object is an instance of the class or of any class in a tuple of classes: check the type of a value.',
  ],
  [
    'iter(object)',
    'An iterator over an iterable object; next() then takes its items one at a time.',
  ],
  [
    'len(s)',
    'Number of items in a sequence or collection: the length of a string, list, tuple, dict or set.',
  ],
  [
    'list(iterable)',
    'Make a new list from the items of an iterable, e.g. the characters of a string; list() is an empty list.',
  ],
  [
    'map(function, iterable, *iterables)',
    'Apply a function to every item and iterate over the results; with several iterables the function takes one item from each.',
  ],
  [
    'max(iterable, *, key=None)',
    'Largest item of an iterable, or of two or more arguments; key picks what to compare (key=len gives the longest), and default= is returned for an empty iterable.',
  ],
  [
    'min(iterable, *, key=None)',
    'Smallest item of an iterable, or of two or more arguments; key picks what to compare (key=len gives the shortest), and default= is returned for an empty iterable.',
  ],
  [
    'next(iterator[, default])',
    'The next item of an iterator, or default when it is exhausted (StopIteration without one).',
  ],
  [
    'oct(x)',
    'Octal representation of an integer as a string prefixed with "0o" (base 8). `oct(8) == "0o10"`',
  ],
  [
    'ord(c)',
    'The Unicode code point (an integer) of a one-character string; the inverse of chr. `ord("a") == 97`',
  ],
  [
    'pow(base, exp, mod=None)',
    'base raised to the power exp; with mod, computes (base ** exp) % mod efficiently, and exp=-1 with mod gives the modular inverse. `pow(3, 4, 5) == 1`',
  ],
  [
    "print(*objects, sep=' ', end='\\n', file=None, flush=False)",
    'Write the objects to standard output separated by sep and followed by end; end="" prints without a newline.',
  ],
  [
    'range(start, stop, step=1)',
    'Sequence of integers from start up to but not including stop, moving by step; range(n) counts 0 to n - 1 and a negative step counts down.',
  ],
  [
    'repr(object)',
    'String form of an object as Python source would write it, e.g. with quotes around strings. `repr("a") == "\'a\'"`',
  ],
  [
    'reversed(seq)',
    'Iterator over a sequence in reverse order, last item first; "".join(reversed(s)) reverses a string.',
  ],
  [
    'round(number, ndigits=None)',
    'Round a number to ndigits decimal places, or to the nearest integer without ndigits; exact halves go to the even neighbour. `round(2.5) == 2`',
  ],
  [
    'set(iterable)',
    'Make a set: an unordered collection of unique items, which removes duplicates; supports union |, intersection & and difference -.',
  ],
  [
    'sorted(iterable, /, *, key=None, reverse=False)',
    'New sorted list of the items in ascending order; key gives what to sort by and reverse=True sorts in descending order. The sort is stable.',
  ],
  [
    "str(object='')",
    'Text form of an object: converts a number or other value to a string. `str(42) == "42"`',
  ],
  [
    'sum(iterable, /, start=0)',
    'Total of the numbers in an iterable (add them all up), plus start. `sum([1, 2, 3]) == 6`',
  ],
  ['tuple(iterable)', 'Make an immutable sequence (a tuple) from the items of an iterable.'],
  [
    'type(object)',
    'The type (class) of an object, e.g. int for 3 and str for "a". `type(3) == int`',
  ],
  [
    'zip(*iterables, strict=False)',
    'Iterate over several iterables in parallel as tuples of the items at the same position; stops at the shortest, and zip(*rows) transposes a matrix.',
  ],
]);
