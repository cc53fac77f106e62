"""Tiny random Llama, Qwen2 and Qwen3 models in the Hugging Face layout, with golden logits.

An independent float64 PyTorch implementation written from the Hugging Face architecture
definitions (LlamaForCausalLM, Qwen2ForCausalLM, Qwen3ForCausalLM in transformers'
modeling_llama.py, modeling_qwen2.py and modeling_qwen3.py), not from our TypeScript. Run with
Debian's python3 (torch, numpy):

    /usr/bin/python3 scripts/golden/tiny_models.py

tiny-qwen3 has a head width (16) other than hidden / heads (8) and its config in transformers 5's
form (rope_parameters instead of rope_theta, layer_types).

Writes test/fixtures/models/tiny-{llama,qwen2,qwen3}{,-bf16}/: config.json, model.safetensors
(F32 or BF16 holding the same bf16-representable values, so both share one golden file),
golden.json, and the byte-level tokenizer files when test/fixtures/tokenizers/bytes/ exists.
"""
import json
import math
import shutil
import struct
from pathlib import Path

import numpy as np
import torch

ROOT = Path(__file__).resolve().parents[2]
OUT = ROOT / "test" / "fixtures" / "models"
TOKENIZER = ROOT / "test" / "fixtures" / "tokenizers" / "bytes"

# Token ids for the golden forward pass (vocab >= 259 so the byte tokenizer fits).
GOLDEN_IDS = [257, 72, 105, 33, 258, 10, 287, 0, 200]
GOLDEN_TEMPERATURE = 0.7

BASE = dict(
    vocab_size=288, hidden_size=32, intermediate_size=48, num_hidden_layers=2,
    num_attention_heads=4, num_key_value_heads=2, max_position_embeddings=256,
    hidden_act="silu", bos_token_id=256, eos_token_id=258, torch_dtype="float32",
)
MODELS = {
    "tiny-llama": dict(BASE, model_type="llama", architectures=["LlamaForCausalLM"],
                       rms_norm_eps=1e-5, rope_theta=10000.0, rope_scaling=None,
                       tie_word_embeddings=False, attention_bias=False, mlp_bias=False),
    "tiny-qwen2": dict(BASE, model_type="qwen2", architectures=["Qwen2ForCausalLM"],
                       rms_norm_eps=1e-6, rope_theta=1000000.0, tie_word_embeddings=True,
                       use_sliding_window=False, sliding_window=256, max_window_layers=2),
    "tiny-qwen3": dict(BASE, model_type="qwen3", architectures=["Qwen3ForCausalLM"], head_dim=16,
                       rms_norm_eps=1e-6, rope_parameters=dict(rope_type="default", rope_theta=1000000.0),
                       tie_word_embeddings=True, attention_bias=False, use_sliding_window=False,
                       layer_types=["full_attention", "full_attention"]),
}

# A Llama 3 rope_scaling example: we check our inverse frequencies against this formula.
LLAMA3_ROPE = dict(head_dim=64, rope_theta=500000.0, factor=32.0, low_freq_factor=1.0,
                   high_freq_factor=4.0, original_max_position_embeddings=8192)


def bf16_round(a: np.ndarray) -> np.ndarray:
    """Rounds float32 values to the nearest bfloat16 (ties to even), returned as float32."""
    bits = a.astype(np.float32).view(np.uint32).astype(np.uint64)
    rounded = ((bits + 0x7FFF + ((bits >> 16) & 1)) >> 16) << 16
    return rounded.astype(np.uint32).view(np.float32)


def random_weights(cfg: dict, seed: int) -> dict:
    """HF parameter names -> float32 arrays in HF layout ((out, in) for linear layers)."""
    gen = torch.Generator().manual_seed(seed)
    D, F, V = cfg["hidden_size"], cfg["intermediate_size"], cfg["vocab_size"]
    H, Hkv = cfg["num_attention_heads"], cfg["num_key_value_heads"]
    hd = cfg.get("head_dim", D // H)

    def normal(*shape, std):
        return (torch.randn(*shape, generator=gen, dtype=torch.float64) * std).numpy()

    w = {"model.embed_tokens.weight": normal(V, D, std=1.0)}
    for i in range(cfg["num_hidden_layers"]):
        p = f"model.layers.{i}."
        w[p + "input_layernorm.weight"] = 1.0 + normal(D, std=0.1)
        w[p + "post_attention_layernorm.weight"] = 1.0 + normal(D, std=0.1)
        w[p + "self_attn.q_proj.weight"] = normal(H * hd, D, std=D ** -0.5)
        w[p + "self_attn.k_proj.weight"] = normal(Hkv * hd, D, std=D ** -0.5)
        w[p + "self_attn.v_proj.weight"] = normal(Hkv * hd, D, std=D ** -0.5)
        w[p + "self_attn.o_proj.weight"] = normal(D, H * hd, std=(H * hd) ** -0.5)
        if cfg["model_type"] == "qwen2":
            w[p + "self_attn.q_proj.bias"] = normal(H * hd, std=0.1)
            w[p + "self_attn.k_proj.bias"] = normal(Hkv * hd, std=0.1)
            w[p + "self_attn.v_proj.bias"] = normal(Hkv * hd, std=0.1)
        if cfg["model_type"] == "qwen3":
            w[p + "self_attn.q_norm.weight"] = 1.0 + normal(hd, std=0.3)
            w[p + "self_attn.k_norm.weight"] = 1.0 + normal(hd, std=0.3)
        w[p + "mlp.gate_proj.weight"] = normal(F, D, std=D ** -0.5)
        w[p + "mlp.up_proj.weight"] = normal(F, D, std=D ** -0.5)
        w[p + "mlp.down_proj.weight"] = normal(D, F, std=F ** -0.5)
    w["model.norm.weight"] = 1.0 + normal(D, std=0.1)
    if not cfg["tie_word_embeddings"]:
        w["lm_head.weight"] = normal(V, D, std=D ** -0.5)
    return {name: bf16_round(value.astype(np.float32)) for name, value in w.items()}


def write_safetensors(path: Path, weights: dict, dtype: str) -> None:
    """8-byte little-endian header length, JSON header, then the raw little-endian data."""
    header, chunks, offset = {"__metadata__": {"format": "pt"}}, [], 0
    for name in sorted(weights):
        value = np.ascontiguousarray(weights[name], dtype=np.float32)
        raw = value.tobytes() if dtype == "F32" else (value.view(np.uint32) >> 16).astype("<u2").tobytes()
        header[name] = {"dtype": dtype, "shape": list(value.shape), "data_offsets": [offset, offset + len(raw)]}
        chunks.append(raw)
        offset += len(raw)
    text = json.dumps(header, separators=(",", ":")).encode()
    text += b" " * (-len(text) % 8)  # the reference writer pads the header to 8 bytes
    path.write_bytes(struct.pack("<Q", len(text)) + text + b"".join(chunks))


def inverse_frequencies(head_dim: int, theta: float) -> torch.Tensor:
    return 1.0 / (theta ** (torch.arange(0, head_dim, 2, dtype=torch.float64) / head_dim))


def llama3_inverse_frequencies(c: dict) -> torch.Tensor:
    """Llama 3.1's rope scaling: long wavelengths slowed by `factor`, short ones kept, a smooth ramp between."""
    inv = inverse_frequencies(c["head_dim"], c["rope_theta"])
    wavelen = 2 * math.pi / inv
    low_wavelen = c["original_max_position_embeddings"] / c["low_freq_factor"]
    high_wavelen = c["original_max_position_embeddings"] / c["high_freq_factor"]
    smooth = (c["original_max_position_embeddings"] / wavelen - c["low_freq_factor"]) / (c["high_freq_factor"] - c["low_freq_factor"])
    out = torch.where(wavelen > low_wavelen, inv / c["factor"], inv)
    medium = (wavelen >= high_wavelen) & (wavelen <= low_wavelen)
    return torch.where(medium, (1 - smooth) * inv / c["factor"] + smooth * inv, out)


def rms_norm(x, weight, eps):
    return weight * (x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + eps))


def rotate_half(x):
    half = x.shape[-1] // 2
    return torch.cat((-x[..., half:], x[..., :half]), dim=-1)


def forward(cfg: dict, weights: dict, ids: list) -> torch.Tensor:
    """Logits (T, V) of one sequence, in float64."""
    # numpy arrays (golden logits) or float64 tensors that may require grad (scripts/golden/grpo_model_loss.py)
    w = {name: value if torch.is_tensor(value) else torch.from_numpy(value.astype(np.float64)) for name, value in weights.items()}
    D, H, Hkv = cfg["hidden_size"], cfg["num_attention_heads"], cfg["num_key_value_heads"]
    hd, eps, T = cfg.get("head_dim", D // H), cfg["rms_norm_eps"], len(ids)
    theta = cfg["rope_theta"] if "rope_theta" in cfg else cfg["rope_parameters"]["rope_theta"]
    freqs = torch.outer(torch.arange(T, dtype=torch.float64), inverse_frequencies(hd, theta))
    cos, sin = torch.cat((freqs, freqs), -1).cos(), torch.cat((freqs, freqs), -1).sin()  # (T, hd)
    causal = torch.triu(torch.full((T, T), float("-inf"), dtype=torch.float64), diagonal=1)
    x = w["model.embed_tokens.weight"][torch.tensor(ids)]  # (T, D)

    def proj(h, name):
        out = h @ w[name + ".weight"].T
        return out + w[name + ".bias"] if name + ".bias" in w else out

    for i in range(cfg["num_hidden_layers"]):
        p = f"model.layers.{i}."
        h = rms_norm(x, w[p + "input_layernorm.weight"], eps)
        q = proj(h, p + "self_attn.q_proj").view(T, H, hd)
        k = proj(h, p + "self_attn.k_proj").view(T, Hkv, hd)
        if p + "self_attn.q_norm.weight" in w:  # Qwen3: RMSNorm over each head, before RoPE
            q = rms_norm(q, w[p + "self_attn.q_norm.weight"], eps)
            k = rms_norm(k, w[p + "self_attn.k_norm.weight"], eps)
        q, k = q.transpose(0, 1), k.transpose(0, 1)  # (H, T, hd), (Hkv, T, hd)
        v = proj(h, p + "self_attn.v_proj").view(T, Hkv, hd).transpose(0, 1)
        q, k = q * cos + rotate_half(q) * sin, k * cos + rotate_half(k) * sin
        k, v = k.repeat_interleave(H // Hkv, dim=0), v.repeat_interleave(H // Hkv, dim=0)  # HF repeat_kv
        att = torch.softmax(q @ k.transpose(-1, -2) / math.sqrt(hd) + causal, dim=-1)
        x = x + proj((att @ v).transpose(0, 1).reshape(T, H * hd), p + "self_attn.o_proj")
        h = rms_norm(x, w[p + "post_attention_layernorm.weight"], eps)
        gate, up = proj(h, p + "mlp.gate_proj"), proj(h, p + "mlp.up_proj")
        x = x + proj(torch.nn.functional.silu(gate) * up, p + "mlp.down_proj")
    x = rms_norm(x, w["model.norm.weight"], eps)
    head = w["lm_head.weight"] if "lm_head.weight" in w else w["model.embed_tokens.weight"]
    return x @ head.T


def rounded(values) -> list:
    return [float(f"{v:.7g}") for v in values]


def main() -> None:
    for seed, (name, cfg) in enumerate(MODELS.items()):
        weights = random_weights(cfg, seed=1234 + seed)
        logits = forward(cfg, weights, GOLDEN_IDS)
        logprobs = torch.log_softmax(logits / GOLDEN_TEMPERATURE, dim=-1)
        next_logprobs = [logprobs[t, GOLDEN_IDS[t + 1]].item() for t in range(len(GOLDEN_IDS) - 1)]
        golden = {
            "generator": "scripts/golden/tiny_models.py (float64 PyTorch)",
            "ids": GOLDEN_IDS,
            "logits": [rounded(row.tolist()) for row in logits],
            "temperature": GOLDEN_TEMPERATURE,
            "next_token_logprobs": rounded(next_logprobs),
            "llama3_rope": dict(LLAMA3_ROPE, inv_freq=rounded(llama3_inverse_frequencies(LLAMA3_ROPE).tolist())),
        }
        for suffix, dtype in (("", "F32"), ("-bf16", "BF16")):
            folder = OUT / (name + suffix)
            folder.mkdir(parents=True, exist_ok=True)
            (folder / "config.json").write_text(json.dumps(dict(cfg, torch_dtype="float32" if dtype == "F32" else "bfloat16"), indent=2) + "\n")
            write_safetensors(folder / "model.safetensors", weights, dtype)
            (folder / "golden.json").write_text(json.dumps(golden, separators=(",", ":")) + "\n")
            for file in ("tokenizer.json", "tokenizer_config.json"):
                if (TOKENIZER / file).exists():
                    shutil.copy(TOKENIZER / file, folder / file)
            print(folder.relative_to(ROOT), sum(f.stat().st_size for f in folder.iterdir()), "bytes")


if __name__ == "__main__":
    main()
