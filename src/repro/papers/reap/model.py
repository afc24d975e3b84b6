"""The MoE model: a real transformers Qwen3-MoE (Qwen3MoeForCausalLM), built small from scratch
at tiny/small or loaded from the hub (Qwen/Qwen3-30B-A3B) at full, and one view of its experts
that the calibration, pruning and merging code share.

transformers 5.x stores a Qwen3-MoE layer's experts fused, as 3-D parameters of a
`Qwen3MoeExperts` module: `gate_up_proj` [E, 2I, H] (gate rows first, then up) and `down_proj`
[E, H, I]; the router `Qwen3MoeTopKRouter` holds `weight` [E, H] and takes softmax -> top-k ->
renormalise (norm_topk_prob). transformers 4.x kept an nn.ModuleList of per-expert MLPs
(gate_proj / up_proj / down_proj Linear layers) and an nn.Linear gate. `ExpertBank` reads and
writes either layout, so the same pruning and merging code runs on both.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import torch
import torch.nn.functional as F
from torch import nn

from repro.core.io import write_json


def job_device(scale: str) -> str:
    """One CPU thread per job (jobs run side by side); the GPU at full, or one clear error."""
    from repro.core.device import NoGPUError, limit_cpu_threads, pick_device

    limit_cpu_threads(1)
    try:
        return pick_device(require_gpu=scale == "full")
    except NoGPUError as e:
        raise SystemExit(str(e)) from None


# ----------------------------------------------------------------------------- building
def build_config(m: dict[str, Any], vocab_size: int, pad_id: int, bos_id: int, eos_id: int):
    """A small Qwen3MoeConfig from the paper config's `model` block (every layer sparse)."""
    from transformers import Qwen3MoeConfig

    return Qwen3MoeConfig(
        vocab_size=vocab_size,
        hidden_size=m["hidden_size"],
        intermediate_size=m["moe_intermediate_size"] * m["top_k"],  # unused: all layers MoE
        moe_intermediate_size=m["moe_intermediate_size"],
        num_hidden_layers=m["num_layers"],
        num_attention_heads=m["num_heads"],
        num_key_value_heads=m["num_kv_heads"],
        head_dim=m["hidden_size"] // m["num_heads"],
        num_experts=m["num_experts"],
        num_experts_per_tok=m["top_k"],
        norm_topk_prob=m["norm_topk_prob"],
        decoder_sparse_step=1,
        mlp_only_layers=[],
        router_aux_loss_coef=m["router_aux_loss_coef"],
        output_router_logits=False,
        max_position_embeddings=m["max_positions"],
        tie_word_embeddings=True,
        pad_token_id=pad_id,
        bos_token_id=bos_id,
        eos_token_id=eos_id,
        experts_implementation="eager",  # the reference loop; grouped_mm is slower on CPU
    )


def new_model(m: dict[str, Any], tok: Any, seed: int) -> nn.Module:
    from transformers import Qwen3MoeForCausalLM

    cfg = build_config(m, tok.vocab_size, tok.pad_id, tok.bos_id, tok.eos_id)
    torch.manual_seed(seed)
    return Qwen3MoeForCausalLM(cfg)


def save_model(model: nn.Module, path: str | Path, meta: dict[str, Any]) -> None:
    """Weights (safetensors) + config, and `model.json` saying what it is."""
    path = Path(path)
    path.mkdir(parents=True, exist_ok=True)
    model.save_pretrained(path, safe_serialization=True)
    write_json(path / "model.json", meta)


def load_model(path: str | Path, device: str = "cpu") -> tuple[nn.Module, Any, dict[str, Any]]:
    """A model directory written by train.py: (model, tokenizer, meta). A `pretrained` pointer
    (full scale) loads the hub checkpoint it names, from the HF cache the fetch step filled."""
    path = Path(path)
    meta_file = path / "model.json"
    if not meta_file.exists():
        raise SystemExit(f"{path} is not a REAP model directory (no model.json): run reap_train")
    meta = json.loads(meta_file.read_text())
    if meta["kind"] == "scratch":
        from transformers import Qwen3MoeForCausalLM

        from repro.papers.reap.data import tokenizer

        model = Qwen3MoeForCausalLM.from_pretrained(path, dtype=torch.float32)
        model.config._experts_implementation = "eager"
        return model.to(device).eval(), tokenizer(), meta
    model, tok = load_hub(meta, device)
    return model, tok, meta


class HubTokenizer:
    """A hub tokenizer behind the ByteTokenizer interface (plain text, no chat template)."""

    kind = "hub"

    def __init__(self, tok: Any):
        self.tok = tok
        self.eos_id = tok.eos_token_id
        self.pad_id = tok.pad_token_id if tok.pad_token_id is not None else tok.eos_token_id
        self.bos_id = tok.bos_token_id
        self.vocab_size = len(tok)

    def encode(self, text: str) -> list[int]:
        return self.tok(text, add_special_tokens=False)["input_ids"]

    def decode(self, ids: Sequence[int]) -> str:
        ids = list(map(int, ids))
        if self.eos_id in ids:
            ids = ids[: ids.index(self.eos_id)]
        return self.tok.decode(ids, skip_special_tokens=True)


def load_hub(meta: dict[str, Any], device: str) -> tuple[nn.Module, HubTokenizer]:
    """The hub checkpoint (e.g. Qwen/Qwen3-30B-A3B) in its own dtype, spread over the GPUs."""
    from transformers import AutoModelForCausalLM, AutoTokenizer

    src, rev = meta["model_id"], meta.get("revision")
    dtype = getattr(torch, meta.get("dtype", "bfloat16"))
    try:
        tok = AutoTokenizer.from_pretrained(src, revision=rev)
        model = AutoModelForCausalLM.from_pretrained(
            src, revision=rev, dtype=dtype, device_map="auto" if device == "cuda" else None
        )
    except OSError as e:
        raise SystemExit(
            f"cannot load {src!r} ({e.__class__.__name__}): run reap_fetch on a machine with the "
            "network first (it fills the HF cache), or set HF_HOME to a cache that holds it"
        ) from None
    return model.eval(), HubTokenizer(tok)


def model_device(model: nn.Module) -> torch.device:
    return next(model.parameters()).device


# ----------------------------------------------------------------------------- expert view
class ExpertBank:
    """One MoE layer's experts and router, whichever layout transformers uses.

    Every expert is (gate [I, H], up [I, H], down [H, I]); y = down @ (act(gate x) * up x)."""

    def __init__(self, block: nn.Module):
        self.block = block
        self.experts = block.experts
        self.gate = block.gate
        self.fused = hasattr(self.experts, "gate_up_proj")
        self.act = getattr(self.experts, "act_fn", None) or self.experts[0].act_fn

    @property
    def num_experts(self) -> int:
        return int(self.gate.weight.shape[0])

    @property
    def top_k(self) -> int:
        return int(getattr(self.gate, "top_k", None) or self.block.top_k)

    @property
    def norm_topk_prob(self) -> bool:
        return bool(getattr(self.gate, "norm_topk_prob", getattr(self.block, "norm_topk_prob", 0)))

    def get(self, e: int) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        if self.fused:
            gate, up = self.experts.gate_up_proj[e].chunk(2, dim=0)
            return gate, up, self.experts.down_proj[e]
        ex = self.experts[e]
        return ex.gate_proj.weight, ex.up_proj.weight, ex.down_proj.weight

    @torch.no_grad()
    def set(self, e: int, gate: torch.Tensor, up: torch.Tensor, down: torch.Tensor) -> None:
        if self.fused:
            self.experts.gate_up_proj.data[e] = torch.cat([gate, up], dim=0)
            self.experts.down_proj.data[e] = down
        else:
            ex = self.experts[e]
            ex.gate_proj.weight.data.copy_(gate)
            ex.up_proj.weight.data.copy_(up)
            ex.down_proj.weight.data.copy_(down)

    def router_logits(self, x: torch.Tensor) -> torch.Tensor:
        """[T, E] logits of tokens x [T, H]."""
        return F.linear(x, self.gate.weight)

    def route(self, logits: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """The model's own routing: softmax over experts, top-k, renormalised when
        norm_topk_prob (as Qwen3MoeTopKRouter). Returns (top-k weights, top-k indices)."""
        probs = F.softmax(logits, dim=-1, dtype=torch.float)
        w, idx = torch.topk(probs, self.top_k, dim=-1)
        if self.norm_topk_prob:
            w = w / w.sum(dim=-1, keepdim=True)
        return w, idx

    def expert_out(self, e: int, x: torch.Tensor) -> torch.Tensor:
        """E_e(x) for tokens x [T, H] (no gate weight applied)."""
        gate, up, down = self.get(e)
        h = self.act(F.linear(x, gate)) * F.linear(x, up)
        return F.linear(h, down)

    @torch.no_grad()
    def keep(self, indices: Sequence[int]) -> None:
        """Keep only these experts (in this order): slice the expert weights and the router's
        rows, and update every stored expert count. The top-k then runs over what remains."""
        idx = torch.as_tensor(list(indices), dtype=torch.long, device=self.gate.weight.device)
        n = len(indices)
        self.gate.weight = nn.Parameter(self.gate.weight.data[idx].clone())
        if getattr(self.gate, "bias", None) is not None:
            self.gate.bias = nn.Parameter(self.gate.bias.data[idx].clone())
        for obj in (self.gate, self.experts, self.block):
            for attr in ("num_experts", "out_features"):
                if hasattr(obj, attr) and isinstance(getattr(obj, attr), int):
                    setattr(obj, attr, n)
        if self.fused:
            self.experts.gate_up_proj = nn.Parameter(self.experts.gate_up_proj.data[idx].clone())
            self.experts.down_proj = nn.Parameter(self.experts.down_proj.data[idx].clone())
        else:
            self.block.experts = nn.ModuleList([self.experts[i] for i in indices])
            self.experts = self.block.experts


def moe_layers(model: nn.Module) -> Iterator[tuple[int, ExpertBank]]:
    """(layer index, ExpertBank) for every sparse layer of a Qwen3-MoE model."""
    for i, layer in enumerate(model.model.layers):
        if hasattr(layer.mlp, "experts") and hasattr(layer.mlp, "gate"):
            yield i, ExpertBank(layer.mlp)


def set_num_experts(model: nn.Module, n: int) -> None:
    """The config's expert count after a uniform compression (save_pretrained writes it)."""
    model.config.num_experts = n


def count_params(model: nn.Module) -> dict[str, int]:
    total = sum(p.numel() for p in model.parameters())
    experts = sum(
        p.numel() for _, b in moe_layers(model) for p in b.experts.parameters()
    )
    return {"params": int(total), "expert_params": int(experts)}
