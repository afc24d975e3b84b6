"""The policy: a tokenizer plus a causal LM, built from config, saved and loaded as a directory.

One code path for every scale; only config differs:
- `model.kind: scratch`: a small transformers Llama trained from scratch with our character
  tokenizer (tiny/small, CPU; the math task's tiny model uses the byte-level tokenizer);
- `model.kind: pretrained`: a hub model (e.g. Qwen/Qwen2.5-3B) with its own tokenizer behind the
  same interface (full, GPU, bf16).

A checkpoint directory holds `policy.json` (what kind it is), the tokenizer, and the weights
(`save_pretrained`). A base checkpoint of a pretrained model may instead point at the hub id
(`weights: hub`), so the 6 GB base is not copied into results/.
"""

from __future__ import annotations

import contextlib
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import torch

from repro.core.io import write_json
from repro.core.tokenizers import CHARSET, ByteTokenizer, CharTokenizer


class HFTokenizer:
    """A hub tokenizer behind the CharTokenizer interface (plain-text prompts, no chat template:
    the paper's Countdown runs prompt a *base* model with the raw TinyZero text)."""

    kind = "hf"

    def __init__(self, tok: Any) -> None:
        self.tok = tok
        self.eos_id = int(tok.eos_token_id)
        self.pad_id = int(tok.pad_token_id if tok.pad_token_id is not None else tok.eos_token_id)

    @property
    def vocab_size(self) -> int:
        return len(self.tok)

    def encode(self, text: str) -> list[int]:
        return list(self.tok(text, add_special_tokens=False)["input_ids"])

    def decode(self, ids: list[int]) -> str:
        if self.eos_id in ids:
            ids = ids[: ids.index(self.eos_id)]
        return self.tok.decode(ids, skip_special_tokens=True)

    def save(self, path: Path) -> None:
        self.tok.save_pretrained(path)


@dataclass
class Policy:
    """A causal LM and its tokenizer, on one device."""

    model: torch.nn.Module
    tokenizer: CharTokenizer | ByteTokenizer | HFTokenizer
    meta: dict[str, Any]

    @property
    def device(self) -> torch.device:
        return next(self.model.parameters()).device

    def amp(self) -> contextlib.AbstractContextManager:
        """bf16 autocast around forwards when configured (full scale: fp32 master weights, so
        lr 1e-6 updates are not rounded away, with bf16 compute); a no-op on CPU."""
        dtype = self.meta.get("autocast")
        if dtype and self.device.type == "cuda":
            return torch.autocast("cuda", dtype=_dtype(dtype))
        return contextlib.nullcontext()


def _dtype(name: str) -> torch.dtype:
    return {"float32": torch.float32, "bfloat16": torch.bfloat16, "float16": torch.float16}[name]


def build_policy(model_cfg: dict[str, Any], device: str) -> Policy:
    """A fresh policy from a task's `model` config block (`tokenizer: byte` for a byte-level
    scratch model, else the char tokenizer over `charset`)."""
    kind = model_cfg["kind"]
    if kind == "scratch":
        from transformers import LlamaConfig, LlamaForCausalLM

        tok = (
            ByteTokenizer()
            if model_cfg.get("tokenizer") == "byte"
            else CharTokenizer(model_cfg.get("charset", CHARSET))
        )
        cfg = LlamaConfig(
            vocab_size=tok.vocab_size,
            hidden_size=model_cfg["hidden_size"],
            intermediate_size=model_cfg["intermediate_size"],
            num_hidden_layers=model_cfg["num_layers"],
            num_attention_heads=model_cfg["num_heads"],
            num_key_value_heads=model_cfg["num_heads"],
            max_position_embeddings=model_cfg["max_positions"],
            tie_word_embeddings=True,
            bos_token_id=None,
            eos_token_id=tok.eos_id,
            pad_token_id=tok.pad_id,
        )
        model = LlamaForCausalLM(cfg)
        meta = {"kind": "scratch", "weights": "local"}
        return Policy(model.to(device), tok, meta)
    if kind == "pretrained":
        return _from_hub(model_cfg, device)
    raise ValueError(f"model.kind {kind!r} is not one of scratch, pretrained")


def _from_hub(model_cfg: dict[str, Any], device: str, path: str | None = None) -> Policy:
    """Load a hub model (or a local save of one); network and cache handled by transformers."""
    from transformers import AutoModelForCausalLM, AutoTokenizer

    src = path or model_cfg["model_id"]
    rev = None if path else model_cfg.get("revision")
    try:
        tok = AutoTokenizer.from_pretrained(src, revision=rev)
        model = AutoModelForCausalLM.from_pretrained(
            src, revision=rev, dtype=_dtype(model_cfg.get("dtype", "float32"))
        )
    except OSError as e:
        raise SystemExit(
            f"cannot load model {src!r} ({e.__class__.__name__}): check the network or set "
            "HF_ENDPOINT / HF_HOME to a reachable mirror or a cache that holds it"
        ) from None
    keys = ("model_id", "revision", "dtype", "autocast", "gradient_checkpointing")
    meta = {k: model_cfg[k] for k in keys if k in model_cfg}
    meta.update(kind="pretrained", weights="hub" if path is None else "local")
    if meta.get("gradient_checkpointing"):  # renamed activation_checkpointing in transformers 5.x
        enable = getattr(model, "activation_checkpointing_enable", None)
        (enable or model.gradient_checkpointing_enable)()
    return Policy(model.to(device), HFTokenizer(tok), meta)


def save_policy(policy: Policy, path: str | Path, weights: bool = True) -> None:
    """Write a checkpoint into the (already created, temporary) directory `path`.

    `weights=False` (pretrained base only) writes just a pointer to the hub id."""
    path = Path(path)
    path.mkdir(parents=True, exist_ok=True)
    meta = dict(policy.meta)
    if weights or meta["kind"] == "scratch":
        policy.model.save_pretrained(path, safe_serialization=True)
        policy.tokenizer.save(path)
        meta["weights"] = "local"
    write_json(path / "policy.json", meta)


def load_policy(path: str | Path, device: str) -> Policy:
    """Load a checkpoint directory written by `save_policy`."""
    path = Path(path)
    meta_file = path / "policy.json"
    if not meta_file.exists():
        raise SystemExit(f"{path} is not a policy checkpoint (no policy.json): run the sft step")
    meta = json.loads(meta_file.read_text())
    if meta["kind"] == "scratch":
        from transformers import LlamaForCausalLM

        model = LlamaForCausalLM.from_pretrained(path, dtype=torch.float32)
        byte = (path / "byte_tokenizer.json").exists()
        tok = ByteTokenizer.load(path) if byte else CharTokenizer.load(path)
        return Policy(model.to(device), tok, meta)
    return _from_hub(meta, device, path=None if meta["weights"] == "hub" else str(path))


def n_params(model: torch.nn.Module) -> int:
    return sum(p.numel() for p in model.parameters())


@torch.no_grad()
def sample(
    policy: Policy,
    prompts: list[list[int]],
    max_new_tokens: int,
    temperature: float,
    top_p: float,
    generator: torch.Generator,
    batch_size: int = 1024,
) -> tuple[list[list[int]], list[float]]:
    """Sample one response per prompt (temperature + nucleus sampling, KV cache).

    `generator` lives on the policy's device and is the only source of sampling randomness, so
    a seed fixes the samples.
    Returns the response ids (ending with eos unless cut at `max_new_tokens`) and, per response,
    the summed entropy of the temperature-scaled next-token distribution over its tokens (the
    full distribution, before nucleus truncation), so callers can report token entropy.
    """
    was_training = policy.model.training
    policy.model.eval()
    responses: list[list[int]] = []
    entropies: list[float] = []
    with policy.amp():
        for start in range(0, len(prompts), batch_size):
            chunk = prompts[start : start + batch_size]
            r, e = _sample_batch(policy, chunk, max_new_tokens, temperature, top_p, generator)
            responses += r
            entropies += e
    policy.model.train(was_training)
    return responses, entropies


def _sample_batch(
    policy: Policy,
    prompts: list[list[int]],
    max_new_tokens: int,
    temperature: float,
    top_p: float,
    generator: torch.Generator,
) -> tuple[list[list[int]], list[float]]:
    tok, dev = policy.tokenizer, policy.device
    b, lp = len(prompts), max(len(p) for p in prompts)
    ids = torch.full((b, lp), tok.pad_id, dtype=torch.long)
    attn = torch.zeros((b, lp), dtype=torch.long)
    for i, p in enumerate(prompts):  # left padding: every prompt ends at the same column
        ids[i, lp - len(p) :] = torch.tensor(p)
        attn[i, lp - len(p) :] = 1
    ids, attn = ids.to(dev), attn.to(dev)
    pos = (attn.cumsum(-1) - 1).clamp(min=0)
    step = _stepper(policy.model)
    logits, past = step(ids, attn, pos, None)
    done = torch.zeros(b, dtype=torch.bool, device=dev)
    ent_sum = torch.zeros(b, dtype=torch.float64, device=dev)
    steps = []
    for _ in range(max_new_tokens):
        logp = torch.log_softmax(logits.float() / temperature, dim=-1)
        probs = logp.exp()
        ent_sum += torch.where(done, 0.0, -(probs * logp).sum(-1)).double()
        if top_p < 1.0:
            probs = _nucleus(probs, top_p)
        nxt = torch.multinomial(probs, 1, generator=generator).squeeze(1)
        nxt = torch.where(done, torch.full_like(nxt, tok.pad_id), nxt)
        steps.append(nxt)
        done |= nxt == tok.eos_id
        if bool(done.all()):
            break
        attn = torch.cat([attn, torch.ones_like(attn[:, :1])], dim=1)
        pos = pos[:, -1:] + 1
        logits, past = step(nxt[:, None], attn, pos, past)
    gen = torch.stack(steps, dim=1).cpu().tolist()
    responses = []
    for row in gen:
        resp = []
        for t in row:
            resp.append(t)
            if t == tok.eos_id:
                break
        responses.append(resp)
    return responses, ent_sum.cpu().tolist()


def _stepper(model: torch.nn.Module):
    """One decoding forward (last-position logits, KV cache) across transformers versions:
    5.x names the cache `cache`, 4.x `past_key_values`; only the last logits are kept, which
    matters for 150k-token vocabularies."""
    import inspect

    params = inspect.signature(model.forward).parameters
    cache_kw = "cache" if "cache" in params else "past_key_values"
    keep = {"logits_to_keep": 1} if "logits_to_keep" in params else {}

    def step(ids, attn, pos, past):
        kw = {cache_kw: past} if past is not None else {}
        out = model(
            input_ids=ids, attention_mask=attn, position_ids=pos, use_cache=True, **kw, **keep
        )
        new_past = out.cache if cache_kw == "cache" else out.past_key_values
        return out.logits[:, -1], new_past

    return step


def _nucleus(probs: torch.Tensor, top_p: float) -> torch.Tensor:
    """Keep the smallest set of most likely tokens whose mass reaches top_p; renormalise."""
    sp, idx = probs.sort(dim=-1, descending=True)
    drop = sp.cumsum(-1) - sp > top_p
    sp = sp.masked_fill(drop, 0.0)
    return torch.zeros_like(probs).scatter(-1, idx, sp) / sp.sum(-1, keepdim=True)


def job_setup(scale: str, seed: int) -> str:
    """Common start of every CLI: one CPU thread, all RNGs seeded, the device (GPU required at
    full scale, with one clear error line when there is none)."""
    from repro.core.device import NoGPUError, limit_cpu_threads, pick_device
    from repro.core.seeding import seed_everything

    limit_cpu_threads(1)
    seed_everything(seed)
    try:
        return pick_device(require_gpu=scale == "full")
    except NoGPUError as e:
        raise SystemExit(str(e)) from None


# ----------------------------------------------------------------------------- per-token stats


def pack(
    prompts: list[list[int]], responses: list[list[int]], pad_id: int
) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """Right-padded prompt+response ids, attention mask, and the action mask [N, L-1]."""
    seqs = [p + r for p, r in zip(prompts, responses, strict=True)]
    n, length = len(seqs), max(len(s) for s in seqs)
    ids = torch.full((n, length), pad_id, dtype=torch.long)
    attn = torch.zeros((n, length), dtype=torch.long)
    act = torch.zeros((n, length - 1), dtype=torch.float32)
    for i, (p, s) in enumerate(zip(prompts, seqs, strict=True)):
        ids[i, : len(s)] = torch.tensor(s)
        attn[i, : len(s)] = 1
        act[i, len(p) - 1 : len(s) - 1] = 1.0
    return ids, attn, act


def token_stats(
    model: torch.nn.Module,
    ids: torch.Tensor,
    attn: torch.Tensor,
    temperature: float,
    mean_vocab: bool = False,
    entropy: bool = False,
) -> dict[str, torch.Tensor]:
    """logp of the taken tokens, and optionally the vocabulary mean of log pi and the entropy,
    at every action position (temperature-scaled, as in the rollouts)."""
    logits = model(input_ids=ids, attention_mask=attn).logits[:, :-1]
    # at least fp32 (bf16 autocast), float64 kept (exact gradient checks)
    logits = logits.to(torch.promote_types(logits.dtype, torch.float32)) / temperature
    lsm = torch.log_softmax(logits, dim=-1)
    out = {"logp": lsm.gather(-1, ids[:, 1:, None]).squeeze(-1)}
    if mean_vocab:
        out["mlp"] = lsm.mean(-1)  # mean_a log pi(a|s_t) = mean logit - logsumexp
    if entropy:
        out["entropy"] = -(lsm.exp() * lsm).sum(-1)
    return out
