"""PyTorch reference for `train_step_ms` in src/bench/model.ts: the same full-parameter step
(forward, token log-prob loss, backward, gradient clipping, AdamW) of the same Llama shapes
(hidden 256, 4 layers, 4 heads, MLP 768, vocab 2000, batch 4 x 128 predicted tokens), float32.

    /usr/bin/python3 scripts/bench/pytorch_train_step.py [--threads N] [--steps N] [--serve]

Prints one JSON line: {"pytorch_train_step_ms": ..., "threads": ..., "blas_threads": ..., "torch": ...,
"blas": ...}. `blas` is the BLAS library this process loaded (read from /proc/self/maps): the step takes
~2.7 s on Debian's reference libblas and ~0.15-0.3 s on OpenBLAS, so the figure means little without it.
`--threads` sets torch's own threads; OpenBLAS keeps a pool of its own for the matrix products, every
core unless OPENBLAS_NUM_THREADS says otherwise (on a 2-core machine: ~150 ms with its default, ~290 ms
with OPENBLAS_NUM_THREADS=1); `blas_threads` is that pool's size as OpenBLAS reports it.

This is the bench's one PyTorch reference (docs/performance.md, "One PyTorch reference"): its defaults
are what `npm run bench` runs, torch on 1 thread and OpenBLAS on every core, PyTorch's fastest on these
VMs. torch given a thread per core of its own besides OpenBLAS's pool (`--threads 2` on 2 cores, "the
same threads as ours") oversubscribes the cores and reads ~3x slower (442-510 ms against 111-167 ms,
alternated on a 2-core VM); a script set up that way measures the oversubscription, not PyTorch.

With --serve it prints that line (without the timing) once warmed up, then reads requests from
stdin, one per line, "WARM COUNT": WARM steps unmeasured, then COUNT steps answered as a JSON list
of their milliseconds; so the benchmark can alternate PyTorch's steps with its own, on the same
machine in the same minute. After an idle second the first steps here run 1.5-3x slower
(~360, ~230, then ~150 ms), hence WARM.
"""
import argparse
import ctypes
import json
import math
import sys
import time

import torch
import torch.nn.functional as F

D, LAYERS, HEADS, MLP, VOCAB, BATCH, TOKENS = 256, 4, 4, 768, 2000, 4, 128


def blas_threads(path):
    """Threads of the loaded BLAS's pool, where it is OpenBLAS (None otherwise)."""
    if not path:
        return None
    try:
        return ctypes.CDLL(path).openblas_get_num_threads()
    except (OSError, AttributeError):
        return None


def loaded_blas():
    """Path of the BLAS shared library mapped into this process (None if none is found)."""
    with open("/proc/self/maps") as maps:
        paths = {line.split()[-1] for line in maps if "blas" in line.lower() and "/" in line}
    return sorted(paths)[0] if paths else None


class Block(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.input_norm = torch.nn.Parameter(torch.ones(D))
        self.post_norm = torch.nn.Parameter(torch.ones(D))
        self.q, self.k, self.v, self.o = (torch.nn.Linear(D, D, bias=False) for _ in range(4))
        self.gate, self.up = torch.nn.Linear(D, MLP, bias=False), torch.nn.Linear(D, MLP, bias=False)
        self.down = torch.nn.Linear(MLP, D, bias=False)

    def forward(self, x, cos, sin):
        B, T, _ = x.shape
        hd = D // HEADS
        h = rms_norm(x, self.input_norm)
        q, k, v = (proj(h).view(B, T, HEADS, hd).transpose(1, 2) for proj in (self.q, self.k, self.v))
        q, k = q * cos + rotate_half(q) * sin, k * cos + rotate_half(k) * sin
        mask = torch.triu(torch.full((T, T), float("-inf")), diagonal=1)
        att = torch.softmax(q @ k.transpose(-1, -2) / math.sqrt(hd) + mask, dim=-1) @ v  # (B, H, T, hd)
        x = x + self.o(att.transpose(1, 2).reshape(B, T, D))
        h = rms_norm(x, self.post_norm)
        return x + self.down(F.silu(self.gate(h)) * self.up(h))


def rms_norm(x, w, eps=1e-5):
    return w * (x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + eps))


def rotate_half(x):
    half = x.shape[-1] // 2
    return torch.cat((-x[..., half:], x[..., :half]), dim=-1)


class Llama(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.embed = torch.nn.Embedding(VOCAB, D)
        self.blocks = torch.nn.ModuleList(Block() for _ in range(LAYERS))
        self.norm = torch.nn.Parameter(torch.ones(D))
        self.head = torch.nn.Linear(D, VOCAB, bias=False)
        for p in self.parameters():
            if p.dim() == 2:
                torch.nn.init.normal_(p, std=0.02)

    def forward(self, ids):
        T = ids.shape[1]
        hd = D // HEADS
        inv = 1.0 / (10000 ** (torch.arange(0, hd, 2).float() / hd))
        freqs = torch.outer(torch.arange(T).float(), inv)
        cos, sin = torch.cat((freqs, freqs), -1).cos(), torch.cat((freqs, freqs), -1).sin()
        x = self.embed(ids)
        for block in self.blocks:
            x = block(x, cos, sin)
        return self.head(rms_norm(x, self.norm))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--threads", type=int, default=1, help="torch threads (tfjs-wasm in Node uses 1)")
    parser.add_argument("--steps", type=int, default=5)
    parser.add_argument("--serve", action="store_true", help="answer step counts read from stdin (see above)")
    args = parser.parse_args()
    torch.set_num_threads(args.threads)
    torch.manual_seed(0)
    model = Llama()
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-4, weight_decay=0.01)
    ids = torch.randint(0, VOCAB, (BATCH, TOKENS + 1))

    def step():
        """One training step; its milliseconds."""
        start = time.perf_counter()
        logits = model(ids[:, :-1])
        logprobs = torch.log_softmax(logits, -1).gather(-1, ids[:, 1:, None]).squeeze(-1)
        loss = -logprobs.mean()
        optimizer.zero_grad()
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        optimizer.step()
        return 1000 * (time.perf_counter() - start)

    for _ in range(3):  # the first steps warm up allocators and caches (measured: ~370, ~230, then ~150 ms)
        step()
    blas = loaded_blas()
    about = {
        "threads": args.threads,
        "blas_threads": blas_threads(blas),
        "torch": torch.__version__,
        "blas": blas,
    }
    if args.serve:
        print(json.dumps(about), flush=True)
        for line in sys.stdin:
            warm, count = (int(word) for word in line.split())
            for _ in range(warm):
                step()
            print(json.dumps([round(step(), 2) for _ in range(count)]), flush=True)
        return
    times = sorted(step() for _ in range(args.steps))
    print(json.dumps({"pytorch_train_step_ms": round(times[len(times) // 2], 1), **about}))


if __name__ == "__main__":
    main()
