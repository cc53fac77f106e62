// Methods of str, list, dict and set, as of CPython 3.12. Same rules as docs_builtins.ts.
import { entries } from './entries.ts';

export const METHOD_DOCS = entries([
  [
    'str.join(iterable)',
    'Concatenate the strings of an iterable with this string between them. `", ".join(["a", "b"]) == "a, b"`',
  ],
  [
    'str.split(sep=None, maxsplit=-1)',
    'Split a string into a list of words at each sep; without sep it splits on runs of whitespace and drops empty strings. `"a b  c".split() == ["a", "b", "c"]`',
  ],
  [
    'str.rsplit(sep=None, maxsplit=-1)',
    'Like str.split, but maxsplit counts splits from the right end of the string.',
  ],
  [
    'str.strip(chars=None)',
    'Copy with leading and trailing whitespace (or the given characters) removed from both ends. `" hi ".strip() == "hi"`',
  ],
  [
    'str.lstrip(chars=None)',
    'Copy with leading whitespace (or the given characters) removed from the left end.',
  ],
  [
    'str.rstrip(chars=None)',
    'Copy with trailing whitespace (or the given characters) removed from the right end.',
  ],
  [
    'str.replace(old, new, count=-1)',
    'Copy with every occurrence of substring old replaced by new, or only the first count of them. `"aaa".replace("a", "b", 2) == "bba"`',
  ],
  [
    'str.find(sub[, start[, end]])',
    'Lowest index where substring sub occurs (its first position), or -1 if it is not found. `"hello".find("l") == 2`',
  ],
  [
    'str.rfind(sub[, start[, end]])',
    'Highest index where substring sub occurs (its last position), or -1 if it is not found.',
  ],
  [
    'str.index(sub[, start[, end]])',
    'Like str.find, but raises ValueError when the substring is not found.',
  ],
  [
    'str.count(sub[, start[, end]])',
    'Number of non-overlapping occurrences of substring sub in the string. `"banana".count("an") == 2`',
  ],
  [
    'str.startswith(prefix[, start[, end]])',
    'True if the string begins with prefix; prefix may be a tuple of strings to try.',
  ],
  [
    'str.endswith(suffix[, start[, end]])',
    'True if the string ends with suffix; suffix may be a tuple of strings to try.',
  ],
  ['str.upper()', 'Copy with all letters converted to uppercase (capital letters).'],
  ['str.lower()', 'Copy with all letters converted to lowercase (small letters).'],
  [
    'str.title()',
    'Copy where every word starts with an uppercase letter and the rest are lowercase (title case); letters after an apostrophe are capitalized too. `"hello world".title() == "Hello World"`',
  ],
  [
    'str.capitalize()',
    'Copy with the first character uppercase and the rest lowercase. `"hELLO".capitalize() == "Hello"`',
  ],
  [
    'str.swapcase()',
    'Copy with uppercase letters made lowercase and lowercase letters made uppercase (invert the case). `"Hello".swapcase() == "hELLO"`',
  ],
  ['str.isdigit()', 'True if the string is non-empty and every character is a digit.'],
  ['str.isalpha()', 'True if the string is non-empty and every character is a letter.'],
  [
    'str.isalnum()',
    'True if the string is non-empty and every character is a letter or a digit (alphanumeric).',
  ],
  [
    'str.isupper()',
    'True if the string has at least one cased letter and all its cased letters are uppercase.',
  ],
  [
    'str.islower()',
    'True if the string has at least one cased letter and all its cased letters are lowercase.',
  ],
  ['str.isspace()', 'True if the string is non-empty and every character is whitespace.'],
  [
    'str.zfill(width)',
    'Pad a numeric string on the left with zeros to the given width, keeping a leading sign in front. `"7".zfill(3) == "007"`',
  ],
  [
    "str.center(width, fillchar=' ')",
    'Center the string in a field of the given width, padded with fillchar on both sides. `"ab".center(6, "*") == "**ab**"`',
  ],
  [
    "str.ljust(width, fillchar=' ')",
    'Left-justify: pad the string on the right with fillchar to the given width.',
  ],
  [
    "str.rjust(width, fillchar=' ')",
    'Right-justify: pad the string on the left with fillchar to the given width.',
  ],
  [
    'str.translate(table)',
    'Copy with each character mapped or deleted through a table made by str.maketrans: replace or remove several characters at once.',
  ],
  [
    'str.maketrans(x[, y[, z]])',
    'Translation table for str.translate: each character of x maps to the one at the same position in y, and characters of z are deleted. `"abc".translate(str.maketrans("ab", "xy", "c")) == "xy"`',
  ],
  [
    'str.format(*args, **kwargs)',
    'Fill the {} placeholders of a template string with the arguments, with format specs such as {:.2f} or {:>5}. `"{}-{:03d}".format("a", 7) == "a-007"`',
  ],
  [
    'str.partition(sep)',
    'Split at the first occurrence of sep into a 3-tuple (before, sep, after). `"k=v".partition("=") == ("k", "=", "v")`',
  ],
  [
    'str.splitlines(keepends=False)',
    'List of the lines in the string, split at line breaks, without the newline characters.',
  ],
  [
    'str.removeprefix(prefix)',
    'Copy with prefix removed from the start if the string starts with it.',
  ],
  ['str.removesuffix(suffix)', 'Copy with suffix removed from the end if the string ends with it.'],
  ['list.append(x)', 'Add one item to the end of the list, in place.'],
  ['list.extend(iterable)', 'Add all the items of an iterable to the end of the list, in place.'],
  ['list.insert(i, x)', 'Insert item x before position i of the list; insert(0, x) puts it first.'],
  [
    'list.remove(x)',
    'Remove the first item equal to x from the list; raises ValueError if there is none.',
  ],
  [
    'list.pop([i])',
    'Remove and return the item at position i, the last item by default (use the list as a stack).',
  ],
  [
    'list.index(x[, start[, end]])',
    'Position of the first item equal to x in the list; raises ValueError if there is none.',
  ],
  ['list.count(x)', 'Number of times x occurs in the list. `[1, 2, 1].count(1) == 2`'],
  [
    'list.sort(*, key=None, reverse=False)',
    'Sort the list in place in ascending order (returns None); key and reverse=True work as in sorted().',
  ],
  ['list.reverse()', 'Reverse the order of the list items in place.'],
  ['list.copy()', 'A shallow copy of the list, the same as lst[:].'],
  [
    'dict.get(key, default=None)',
    'Value for key if it is in the dictionary, else default, without a KeyError; d[k] = d.get(k, 0) + 1 counts things.',
  ],
  [
    'dict.items()',
    'View of the (key, value) pairs, to loop over keys and values together. `list({"a": 1}.items()) == [("a", 1)]`',
  ],
  ['dict.keys()', 'View of the keys of the dictionary, in insertion order.'],
  ['dict.values()', 'View of the values of the dictionary, in insertion order.'],
  [
    'dict.setdefault(key, default=None)',
    'Return d[key], first inserting key with value default if it is missing.',
  ],
  [
    'dict.pop(key[, default])',
    'Remove key and return its value, or default if the key is missing (KeyError without one).',
  ],
  [
    'dict.update([other])',
    'Add or overwrite keys from another dictionary, from (key, value) pairs, or from keyword arguments.',
  ],
  [
    'dict.fromkeys(iterable, value=None)',
    'New dictionary whose keys come from an iterable, each set to value; list(dict.fromkeys(items)) removes duplicates keeping the first-seen order.',
  ],
  ['set.add(elem)', 'Add an element to the set (nothing happens if it is already there).'],
  ['set.remove(elem)', 'Remove an element from the set; raises KeyError if it is not there.'],
  ['set.discard(elem)', 'Remove an element from the set if it is there, with no error otherwise.'],
  [
    'set.union(*others)',
    'New set with the elements that are in this set or in any of the others, the same as a | b.',
  ],
  [
    'set.intersection(*others)',
    'New set with the elements common to this set and all the others, the same as a & b.',
  ],
  [
    'set.difference(*others)',
    'New set with the elements of this set that are not in the others, the same as a - b.',
  ],
  [
    'set.symmetric_difference(other)',
    'New set with the elements in exactly one of the two sets, the same as a ^ b.',
  ],
  ['set.issubset(other)', 'True if every element of this set is in other, the same as a <= b.'],
  ['set.issuperset(other)', 'True if every element of other is in this set, the same as a >= b.'],
  ['set.isdisjoint(other)', 'True if the two sets have no elements in common.'],
]);
