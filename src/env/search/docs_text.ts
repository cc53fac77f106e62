// The string and re modules, as of CPython 3.12. Same rules as docs_builtins.ts.
import { entries } from './entries.ts';

export const TEXT_DOCS = entries([
  [
    'string.ascii_lowercase',
    'The lowercase letters a to z of the English alphabet, as one string. `string.ascii_lowercase[:3] == "abc"`',
  ],
  [
    'string.ascii_uppercase',
    'The uppercase (capital) letters A to Z of the English alphabet, as one string.',
  ],
  [
    'string.ascii_letters',
    'All the ASCII letters, lowercase a to z then uppercase A to Z, as one string.',
  ],
  ['string.digits', 'The decimal digit characters, as one string. `string.digits == "0123456789"`'],
  [
    'string.hexdigits',
    'The hexadecimal digit characters 0 to 9, a to f and A to F, as one string.',
  ],
  ['string.octdigits', 'The octal digit characters 0 to 7, as one string.'],
  [
    'string.punctuation',
    'The 32 ASCII punctuation characters such as ! ? , . ; and quotes, as one string: use it to strip or remove punctuation from text. `len(string.punctuation) == 32`',
  ],
  [
    'string.whitespace',
    'The ASCII whitespace characters (space, tab, newline, return, formfeed, vertical tab), as one string.',
  ],
  [
    'string.capwords(s, sep=None)',
    'Capitalize every word: split into words, capitalize each and join them with single spaces; unlike str.title it leaves letters after an apostrophe lowercase. `string.capwords("it\'s ok") == "It\'s Ok"`',
  ],
  [
    're.findall(pattern, string, flags=0)',
    'List of all non-overlapping matches of a regular expression (regex) in a string (the groups when the pattern has groups). `re.findall(r"\\d+", "a1b22") == ["1", "22"]`',
  ],
  [
    're.finditer(pattern, string, flags=0)',
    'Iterator of Match objects for all the matches of a regular expression, with their positions.',
  ],
  [
    're.sub(pattern, repl, string, count=0, flags=0)',
    'Replace every match of a regular expression (regex) in a string with repl, a string or a function of the match. `re.sub(r"\\s+", " ", "a  b") == "a b"`',
  ],
  [
    're.subn(pattern, repl, string, count=0, flags=0)',
    'Like re.sub, but returns a tuple (new string, number of replacements made).',
  ],
  [
    're.split(pattern, string, maxsplit=0, flags=0)',
    'Split a string at every match of a regular expression (regex); groups in the pattern are kept in the result. `re.split(r"[,;]", "a,b;c") == ["a", "b", "c"]`',
  ],
  [
    're.search(pattern, string, flags=0)',
    'First match of a regular expression (regex) anywhere in the string, as a Match object, or None if there is none.',
  ],
  [
    're.match(pattern, string, flags=0)',
    'Match a regular expression at the beginning of the string only; a Match object or None.',
  ],
  [
    're.fullmatch(pattern, string, flags=0)',
    'Match only if the whole string matches the regular expression, else None: check that a string has a given format.',
  ],
  [
    're.compile(pattern, flags=0)',
    'Compile a regular expression into a Pattern object to reuse, with methods such as .search, .findall and .sub.',
  ],
  [
    're.escape(pattern)',
    'Escape the special characters of a string so that it matches literally inside a regular expression.',
  ],
  ['re.IGNORECASE', 'Flag for case-insensitive matching of a regular expression (also re.I).'],
  [
    're.Match.group([group1, ...])',
    'Text matched by the whole pattern (group 0) or by a numbered or named group of a Match object.',
  ],
  ['re.Match.groups(default=None)', 'Tuple of the text captured by every group of a Match object.'],
]);
