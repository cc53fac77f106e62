"""Golden fixture for src/rl/loss.ts: the GRPO loss and d loss / d logprobs from an independent
PyTorch implementation (float64, explicit per-trajectory loops, no shared code with the TS side).

Run with Debian's Python (torch 1.13):  /usr/bin/python3 scripts/golden/grpo_loss.py
Writes test/fixtures/grpo_loss.json. Inputs are rounded to float32 so both sides see equal numbers.
"""
import json
import os

import torch

torch.manual_seed(20240611)
OUT = os.path.join(os.path.dirname(__file__), '..', '..', 'test', 'fixtures', 'grpo_loss.json')


def f32(t):
    return t.to(torch.float32).to(torch.float64)


def grpo_loss(new, old, ref, mask, adv, clip_eps, clip_eps_high, kl_coef, aggregation, max_tokens):
    """Loss of a batch; new: (B, T) requires grad. old None = new detached; ref None = no KL."""
    B, T = new.shape
    old = new.detach() if old is None else old
    per_row = []        # per-trajectory lists of per-token losses on action tokens
    kls, ratios, clipped = [], [], []
    for b in range(B):
        row = []
        for t in range(T):
            if mask[b, t] == 0:
                continue
            ratio = torch.exp(new[b, t] - old[b, t])
            a = adv[b]
            unclipped = ratio * a
            clipped_term = torch.clamp(ratio, 1 - clip_eps, 1 + clip_eps_high) * a
            loss = -torch.minimum(unclipped, clipped_term)
            if ref is not None:
                delta = ref[b, t] - new[b, t]
                kl = torch.exp(delta) - delta - 1
                kls.append(kl.item())
                if kl_coef != 0:
                    loss = loss + kl_coef * kl
            ratios.append(ratio.item())
            clipped.append(1.0 if (a > 0 and ratio > 1 + clip_eps_high) or (a < 0 and ratio < 1 - clip_eps) else 0.0)
            row.append(loss)
        per_row.append(row)
    if aggregation == 'seed':
        means = [torch.stack(r).mean() for r in per_row if r]
        total = torch.stack(means).mean() if means else new.sum() * 0
    elif aggregation == 'token':
        tokens = [x for r in per_row for x in r]
        total = torch.stack(tokens).sum() / len(tokens)
    elif aggregation == 'dr_grpo':
        tokens = [x for r in per_row for x in r]
        total = torch.stack(tokens).sum() / (B * max_tokens)
    else:
        raise ValueError(aggregation)
    n = max(len(ratios), 1)
    diagnostics = {
        'kl': sum(kls) / n if ref is not None else 0.0,
        'clipFraction': sum(clipped) / n,
        'ratioMean': sum(ratios) / n,
        'actionTokens': len(ratios),
    }
    return total, diagnostics


def make_case(name, B, T, aggregation, old=True, ref=True, clip_eps=0.2, clip_eps_high=None, kl_coef=0.04,
              max_tokens=None, empty_row=None, zero_adv_row=None):
    new = f32(torch.rand(B, T) * -4 - 0.05)
    old_t = f32(new + torch.randn(B, T) * 0.35) if old else None
    ref_t = f32(new + torch.randn(B, T) * 0.25) if ref else None
    mask = (torch.rand(B, T) < 0.7).to(torch.float64)
    mask[:, 0] = 0
    mask[:, 1] = 1
    if empty_row is not None:
        mask[empty_row] = 0
    adv = f32(torch.randn(B))
    if zero_adv_row is not None:
        adv[zero_adv_row] = 0
    # Masked positions carry arbitrary finite junk, which the loss must ignore.
    junk = f32(torch.randn(B, T) * 3)
    old_in = torch.where(mask > 0, old_t, junk) if old else None
    ref_in = torch.where(mask > 0, ref_t, junk) if ref else None
    leaf = new.clone().requires_grad_(True)
    high = clip_eps if clip_eps_high is None else clip_eps_high
    loss, diagnostics = grpo_loss(leaf, old_in, ref_in, mask, adv, clip_eps, high, kl_coef, aggregation, max_tokens)
    loss.backward()
    options = {'clipEps': clip_eps, 'klCoef': kl_coef, 'aggregation': aggregation}
    if clip_eps_high is not None:
        options['clipEpsHigh'] = clip_eps_high
    if max_tokens is not None:
        options['maxTokens'] = max_tokens
    return {
        'name': name,
        'options': options,
        'logprobs': new.tolist(),
        'oldLogprobs': old_in.tolist() if old else None,
        'refLogprobs': ref_in.tolist() if ref else None,
        'actionMask': mask.tolist(),
        'advantages': adv.tolist(),
        'loss': loss.item(),
        'grad': leaf.grad.tolist(),
        **diagnostics,
    }


def main():
    cases = [
        make_case('seed, old and ref', 4, 12, 'seed'),
        make_case('seed, detached old (reference design)', 3, 10, 'seed', old=False),
        make_case('token, clip-higher, no KL', 4, 12, 'token', ref=False, clip_eps_high=0.28),
        make_case('dr_grpo, beta 0.1', 4, 12, 'dr_grpo', kl_coef=0.1, max_tokens=16),
        make_case('seed, empty row and zero advantage', 5, 9, 'seed', empty_row=2, zero_adv_row=4),
        make_case('token, empty row, wide clip', 3, 16, 'token', clip_eps=0.1, clip_eps_high=0.5, empty_row=0),
    ]
    with open(OUT, 'w') as f:
        json.dump({'generator': 'scripts/golden/grpo_loss.py', 'torch': torch.__version__, 'cases': cases}, f)
        f.write('\n')
    print(f'wrote {len(cases)} cases to {os.path.normpath(OUT)}')


if __name__ == '__main__':
    main()
