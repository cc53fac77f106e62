# The search tool's offline docs index, as the tab runs it (src/env/search/index.ts): BM25+ with
# per-field boosts and prefix matching (MiniSearch 7's scoring), over the entries in docs.json. The
# exporter writes docs.json from the tab's own index (src/env/search/index.ts searchIndexData): the
# entries, the stopwords, the options, MiniSearch's serialized terms and field lengths, and its IDF
# values as V8 computed them; this file only tokenizes the query and adds up the scores in the
# order MiniSearch does, so the ranking and the observation text are the tab's (test/run/
# trl_search_parity.test.ts compares them).
#
# JavaScript's strings count UTF-16 code units and its regular expressions without the u flag are
# ASCII-minded; where that shows (a word's length, the 500-character cut of a query, \b and \s,
# case-insensitive letters) the code below does the same.
import json
import os
import re
import unicodedata

DOCS_FILE = os.path.join(os.path.dirname(os.path.abspath(__file__)), 'docs.json')
TOP_K = 3

# JavaScript's \s (WhiteSpace and LineTerminator).
JS_SPACE = '\t\n\v\f\r \u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000\ufeff'
STANDARD_LIBRARY = re.compile(r'\bstandard[' + JS_SPACE + r']+library\b', re.IGNORECASE | re.ASCII)
CAMEL = re.compile(r'([a-z])([A-Z])')
DIGITS = re.compile(r'[0-9]+')
PLURAL_S = re.compile(r'(ss|us|is)$')

_data = None


def data():
    global _data
    if _data is None:
        with open(DOCS_FILE, encoding='utf-8') as f:
            loaded = json.load(f)
        if loaded['serialization_version'] != 2:
            raise ValueError('docs.json holds an index this port does not read: export the run again')
        fields = loaded['fields']
        field_ids = [str(loaded['field_ids'][field]) for field in fields]
        terms = {}
        order = []
        for term, per_field in loaded['index']:
            terms[term] = per_field
            order.append(term)
        loaded['_terms'] = terms
        loaded['_order'] = order
        loaded['_field_ids'] = field_ids
        loaded['_stopwords'] = frozenset(loaded['stopwords'])
        _data = loaded
    return _data


def js_length(text):
    """A string's length as JavaScript counts it (UTF-16 code units)."""
    return len(text) + sum(1 for ch in text if ord(ch) > 0xFFFF)


def js_slice_start(text, units):
    """text.slice(0, units) in UTF-16 code units (a cut astral character keeps its high half)."""
    out = []
    count = 0
    for ch in text:
        width = 2 if ord(ch) > 0xFFFF else 1
        if count + width > units:
            if width == 2 and count < units:
                out.append(chr(0xD800 + ((ord(ch) - 0x10000) >> 10)))
            break
        out.append(ch)
        count += width
    return ''.join(out)


def stem(word):
    """The tab's suffix stripper (index.ts stem), lengths in UTF-16 code units."""
    w = word
    if js_length(w) <= 3:
        return w
    if w.endswith('ies') and js_length(w) > 4:
        w = w[:-3] + 'y'
    elif w.endswith('sses'):
        w = w[:-2]
    elif w.endswith('s') and not PLURAL_S.search(w):
        w = w[:-1]
    for suffix in ('ing', 'ed'):
        if w.endswith(suffix) and js_length(w) - len(suffix) >= 3:
            w = w[:-len(suffix)]
            # /([^aeiouls])\1$/ on code units: an astral character's two halves never repeat
            if len(w) >= 2 and w[-1] == w[-2] and w[-1] not in 'aeiouls' and ord(w[-1]) <= 0xFFFF:
                w = w[:-1]
            break
    if w.endswith('ment') and js_length(w) > 7:
        w = w[:-4]
    if w.endswith('e') and js_length(w) > 3:
        w = w[:-1]
    return w


def tokenize(text):
    """Runs of letters and digits (Unicode L and N), camel case split; numbers alone dropped."""
    text = CAMEL.sub(r'\1 \2', unicodedata.normalize('NFKC', text))
    words = []
    current = []
    for ch in text:
        if unicodedata.category(ch)[0] in 'LN':
            current.append(ch)
        elif current:
            words.append(''.join(current))
            current = []
    if current:
        words.append(''.join(current))
    return [w for w in words if not DIGITS.fullmatch(w)]


def process_term(term):
    lower = term.lower()
    return None if lower in data()['_stopwords'] else stem(lower)


def _term_results(source, derived, weight, results):
    d = data()
    per_field = d['_terms'].get(derived)
    if per_field is None:
        return
    bm25 = d['bm25']
    k, b, dd = bm25['k'], bm25['b'], bm25['d']
    for field, field_id in zip(d['fields'], d['_field_ids']):
        freqs = per_field.get(field_id)
        if freqs is None:
            continue
        boost = d['boost'].get(field) or 1
        idf = d['idf'][len(freqs)]
        average = d['average_field_length'][int(field_id)]
        for doc_id, freq in freqs.items():
            length = d['field_length'][doc_id][int(field_id)]
            raw = idf * (dd + freq * (k + 1) / (freq + k * (1 - b + b * length / average)))
            score = weight * 1 * boost * 1 * raw
            result = results.get(doc_id)
            if result is None:
                results[doc_id] = {'score': score, 'terms': [source]}
            else:
                result['score'] += score
                if source not in result['terms']:
                    result['terms'].append(source)


def _query_term(term):
    """MiniSearch executeQuerySpec: the term itself, then its prefix matches in index order."""
    d = data()
    results = {}
    _term_results(term, term, 1, results)
    if js_length(term) >= d['prefix_min_length']:
        for other in d['_order']:
            if other.startswith(term) and other != term:
                distance = js_length(other) - js_length(term)
                n = js_length(other)
                weight = d['prefix_weight'] * n / (n + 0.3 * distance)
                _term_results(term, other, weight, results)
    return results


def search_docs(query, k=TOP_K):
    """The k entries that best match the query, best first (index.ts searchDocs)."""
    if not isinstance(query, str) or k <= 0:
        return []
    d = data()
    text = STANDARD_LIBRARY.sub(' ', js_slice_start(query, d['max_query_chars']))
    terms = [t for t in (process_term(w) for w in tokenize(text)) if t]
    combined = None
    for term in terms:
        results = _query_term(term)
        if combined is None:
            combined = results
            continue
        for doc_id, result in results.items():
            existing = combined.get(doc_id)
            if existing is None:
                combined[doc_id] = result
            else:
                existing['score'] = existing['score'] + result['score']
                for source in result['terms']:
                    if source not in existing['terms']:
                        existing['terms'].append(source)
    hits = []
    for doc_id, result in (combined or {}).items():
        entry = d['entries'][d['document_ids'][doc_id]]
        hits.append({'name': entry['name'], 'signature': entry['signature'], 'summary': entry['summary'],
                     'score': result['score'] * (len(result['terms']) or 1)})
    # names are distinct and ASCII, so Python's order is JavaScript's
    hits.sort(key=lambda hit: (-hit['score'], hit['name']))
    return hits[:k]


def format_search_results(hits):
    """The observation after a search (index.ts formatSearchResults)."""
    if not hits:
        return 'Search results: nothing matched. Try other words.'
    lines = ['{}. {}\n   {}'.format(i + 1, hit['signature'], hit['summary']) for i, hit in enumerate(hits[:3])]
    return 'Search results:\n' + '\n'.join(lines)


def search(query):
    """The search tool's observation for a query, as the tab's searchTool returns it."""
    return format_search_results(search_docs(query, TOP_K))


if __name__ == '__main__':
    import sys
    # one JSON query per line in, one JSON line of [names, scores, observation] out (the parity test)
    for line in sys.stdin:
        query = json.loads(line)
        hits = search_docs(query, TOP_K)
        sys.stdout.write(json.dumps([[h['name'] for h in hits], [h['score'] for h in hits],
                                     format_search_results(hits)]) + '\n')
