"""Golden GRPO loss and gradient of a whole tiny model (the `loss` CLI's job), in float64 PyTorch.

Independent of our TypeScript: the forward pass is tiny_models.forward (written from the HF
definitions), the per-token loss is grpo_loss.grpo_loss (written from the reference design), and
the gradient comes from torch autograd over every weight (full-parameter mode). Run with
Debian's python3 (torch, numpy):

    /usr/bin/python3 scripts/golden/grpo_model_loss.py

Writes test/fixtures/models/tiny-llama-ref/ (a perturbed copy of tiny-llama, the KL reference) and
test/fixtures/grpo_model_loss.json: batch files in the `loss` CLI format with loss, gradNorm and a
few gradient entries each.
"""
import json
import shutil
import sys
from pathlib import Path

import numpy as np
import torch

sys.path.insert(0, str(Path(__file__).resolve().parent))
import grpo_loss  # noqa: E402
import tiny_models  # noqa: E402
from peft_adapter import read_safetensors  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
MODELS = ROOT / "test" / "fixtures" / "models"
BASE, REF = MODELS / "tiny-llama", MODELS / "tiny-llama-ref"
CHECKED = ["model.layers.0.self_attn.q_proj.weight", "model.layers.1.mlp.down_proj.weight", "lm_head.weight", "model.embed_tokens.weight"]


def token_logprobs(cfg, weights, ids, temperature):
    """log p(ids[t] | ids[<t]) for t >= 1 (entry 0 is 0), differentiable."""
    logits = tiny_models.forward(cfg, weights, ids) / temperature
    lp = torch.log_softmax(logits, dim=-1)
    picked = lp[torch.arange(len(ids) - 1), torch.tensor(ids[1:])]
    return torch.cat([torch.zeros(1, dtype=torch.float64), picked])


def make_batch(gen, cfg):
    sequences = []
    for length, advantage in ((14, 1.2), (9, -0.7), (17, 0.4)):
        ids = torch.randint(0, 259, (length,), generator=gen).tolist()
        mask = [0] * length
        for t in range(length // 3, length):
            mask[t] = 1 if torch.rand(1, generator=gen).item() < 0.8 else 0
        sequences.append({"ids": ids, "actionMask": mask, "advantage": advantage})
    return sequences


def make_group_batch(gen, cfg):
    """A GRPO group: four samples of one 7-token prompt (actions from token 7 on, an observation
    inside two of them), and one sample of another prompt."""
    prompt = torch.randint(0, 259, (7,), generator=gen).tolist()
    sequences = []
    for length, advantage, observation in ((9, 1.1, None), (3, -0.4, None), (12, 0.6, (4, 7)), (6, -1.3, (2, 3))):
        ids = prompt + torch.randint(0, 259, (length,), generator=gen).tolist()
        mask = [0] * 7 + [1] * length
        if observation:
            for t in range(7 + observation[0], 7 + observation[1]):
                mask[t] = 0
        sequences.append({"ids": ids, "actionMask": mask, "advantage": advantage})
    other = torch.randint(0, 259, (10,), generator=gen).tolist()
    sequences.append({"ids": other, "actionMask": [0] * 5 + [1] * 5, "advantage": 0.3})
    return sequences


def main():
    cfg = json.loads((BASE / "config.json").read_text())
    base = read_safetensors(BASE / "model.safetensors")
    gen = torch.Generator().manual_seed(7)
    # The reference: the same model with every weight nudged (so the KL term is not trivially 0).
    ref = {name: (value + 0.05 * torch.randn(value.shape, generator=gen, dtype=torch.float64).numpy()).astype(np.float32)
           for name, value in base.items()}
    REF.mkdir(exist_ok=True)
    shutil.copy(BASE / "config.json", REF / "config.json")
    tiny_models.write_safetensors(REF / "model.safetensors", ref, "F32")

    cases = []
    for name, aggregation, use_old, use_ref, temperature, batch in (
        ("seed_old_ref", "seed", True, True, 1.0, make_batch),
        ("token_no_ref", "token", True, False, 0.8, make_batch),
        ("dr_grpo_detached", "dr_grpo", False, True, 1.0, make_batch),
        # last, so the cases above keep their random draws
        ("group_shared_prompt", "token", True, True, 0.9, make_group_batch),
        # a batch mixing sequences with and without rollout-time log-probs: the one without takes
        # ratio 1 (old = new, detached) on its own, the others keep theirs; a group, so the update
        # runs them in one micro-batch
        ("seed_mixed_old", "seed", "mixed", True, 1.0, make_group_batch),
    ):
        sequences = batch(gen, cfg)
        weights = {k: torch.tensor(v, dtype=torch.float64, requires_grad=True) for k, v in base.items()}
        ref_weights = {k: torch.tensor(v, dtype=torch.float64) for k, v in ref.items()}
        T = max(len(s["ids"]) for s in sequences)
        new = torch.zeros(len(sequences), T, dtype=torch.float64)
        rows_new, rows_old, rows_ref, rows_mask = [], [], [], []
        for index, s in enumerate(sequences):
            lp = token_logprobs(cfg, weights, s["ids"], temperature)
            pad = T - len(s["ids"])
            rows_new.append(torch.cat([lp, torch.zeros(pad, dtype=torch.float64)]))
            if use_old == "mixed" and index == 1:
                s["oldLogprobs"] = None
                rows_old.append(torch.cat([lp.detach(), torch.zeros(pad, dtype=torch.float64)]))
            elif use_old:
                old = (lp.detach() + 0.3 * torch.randn(len(s["ids"]), generator=gen, dtype=torch.float64))
                s["oldLogprobs"] = [round(x, 9) for x in old.tolist()]
                old = torch.tensor(s["oldLogprobs"], dtype=torch.float64)
                rows_old.append(torch.cat([old, torch.zeros(pad, dtype=torch.float64)]))
            else:
                s["oldLogprobs"] = None
            with torch.no_grad():
                rows_ref.append(torch.cat([token_logprobs(cfg, ref_weights, s["ids"], temperature), torch.zeros(pad, dtype=torch.float64)]))
            rows_mask.append(torch.tensor(s["actionMask"] + [0] * pad, dtype=torch.float64))
        new = torch.stack(rows_new)
        old = torch.stack(rows_old) if use_old else None
        refl = torch.stack(rows_ref) if use_ref else None
        mask = torch.stack(rows_mask)
        adv = torch.tensor([s["advantage"] for s in sequences], dtype=torch.float64)
        max_tokens = 20
        loss, _ = grpo_loss.grpo_loss(new, old, refl, mask, adv, 0.2, 0.28, 0.04, aggregation, max_tokens)
        loss.backward()
        grad_norm = torch.sqrt(sum((w.grad ** 2).sum() for w in weights.values() if w.grad is not None)).item()
        cases.append({
            "name": name,
            "batch": {"sequences": sequences, "clipEps": 0.2, "clipEpsHigh": 0.28, "klCoef": 0.04,
                      "ref": "test/fixtures/models/tiny-llama-ref" if use_ref else None, "aggregation": aggregation,
                      "temperature": temperature, "maxTokens": max_tokens},
            "loss": loss.item(),
            "gradNorm": grad_norm,
            # d loss / d weight in HF layout (out, in), flattened, first 16 entries
            "gradients": {k: [float(f"{x:.9g}") for x in weights[k].grad.flatten()[:16].tolist()] for k in CHECKED},
        })
    out = ROOT / "test" / "fixtures" / "grpo_model_loss.json"
    out.write_text(json.dumps({"generator": "scripts/golden/grpo_model_loss.py (float64 PyTorch autograd)", "model": "test/fixtures/models/tiny-llama", "cases": cases}, indent=1) + "\n")
    print(out.relative_to(ROOT), out.stat().st_size, "bytes")


if __name__ == "__main__":
    main()
