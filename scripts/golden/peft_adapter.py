"""A LoRA adapter for the tiny Llama fixture in Hugging Face PEFT's format, with golden logits.

Independent of our TypeScript: PEFT's LoRA forward is y = x W^T + (alpha / r) * x A^T B^T with
A stored as (r, in) and B as (out, r) under keys base_model.model.<module>.lora_{A,B}.weight; so
the adapted model equals the base with W replaced by W + (alpha / r) B A. We merge that way and
run the float64 reference forward of tiny_models.py. Run with Debian's python3 (torch, numpy):

    /usr/bin/python3 scripts/golden/peft_adapter.py

Writes test/fixtures/adapters/tiny-llama-r4/: adapter_config.json, adapter_model.safetensors,
golden.json (logits of the adapted model for tiny_models.GOLDEN_IDS).
"""
import json
import sys
from pathlib import Path

import numpy as np
import torch

sys.path.insert(0, str(Path(__file__).resolve().parent))
import tiny_models  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
MODEL = ROOT / "test" / "fixtures" / "models" / "tiny-llama"
OUT = ROOT / "test" / "fixtures" / "adapters" / "tiny-llama-r4"
RANK, ALPHA = 4, 8.0
TARGETS = ["q_proj", "k_proj", "v_proj", "o_proj", "gate_proj", "up_proj", "down_proj"]


def read_safetensors(path: Path) -> dict:
    raw = path.read_bytes()
    n = int.from_bytes(raw[:8], "little")
    header = json.loads(raw[8:8 + n])
    out = {}
    for name, entry in header.items():
        if name == "__metadata__":
            continue
        begin, end = entry["data_offsets"]
        data = raw[8 + n + begin:8 + n + end]
        assert entry["dtype"] == "F32", entry["dtype"]
        out[name] = np.frombuffer(data, dtype="<f4").reshape(entry["shape"]).copy()
    return out


def main() -> None:
    cfg = json.loads((MODEL / "config.json").read_text())
    base = read_safetensors(MODEL / "model.safetensors")
    gen = torch.Generator().manual_seed(99)
    adapter, merged = {}, dict(base)
    for i in range(cfg["num_hidden_layers"]):
        for target in TARGETS:
            group = "mlp" if target in ("gate_proj", "up_proj", "down_proj") else "self_attn"
            module = f"model.layers.{i}.{group}.{target}"
            w = base[module + ".weight"]  # (out, in)
            a = (torch.randn(RANK, w.shape[1], generator=gen, dtype=torch.float64) * 0.3).numpy().astype(np.float32)
            b = (torch.randn(w.shape[0], RANK, generator=gen, dtype=torch.float64) * 0.3).numpy().astype(np.float32)
            adapter[f"base_model.model.{module}.lora_A.weight"] = a
            adapter[f"base_model.model.{module}.lora_B.weight"] = b
            merged[module + ".weight"] = (w.astype(np.float64) + (ALPHA / RANK) * b.astype(np.float64) @ a.astype(np.float64))
    logits = tiny_models.forward(cfg, merged, tiny_models.GOLDEN_IDS)
    OUT.mkdir(parents=True, exist_ok=True)
    tiny_models.write_safetensors(OUT / "adapter_model.safetensors", adapter, "F32")
    config = {"peft_type": "LORA", "task_type": "CAUSAL_LM", "base_model_name_or_path": "tiny-llama", "r": RANK,
              "lora_alpha": ALPHA, "lora_dropout": 0.0, "target_modules": TARGETS, "bias": "none", "fan_in_fan_out": False}
    (OUT / "adapter_config.json").write_text(json.dumps(config, indent=2) + "\n")
    golden = {"generator": "scripts/golden/peft_adapter.py (float64 PyTorch, merged W + alpha/r B A)",
              "ids": tiny_models.GOLDEN_IDS, "logits": [tiny_models.rounded(row.tolist()) for row in logits]}
    (OUT / "golden.json").write_text(json.dumps(golden, separators=(",", ":")) + "\n")
    print(OUT.relative_to(ROOT), sum(f.stat().st_size for f in OUT.iterdir()), "bytes")


if __name__ == "__main__":
    main()
