"""Train the small Qwen3-MoE from scratch on stdlib code + reference-manual prose, until its
router specialises, once per training seed (`models`); every pruning and merging job of that
model then reuses its checkpoint.

The loss is the causal LM loss plus Qwen3-MoE's load-balancing loss (router_aux_loss_coef),
applied to each layer (`train.load_balancing: per_layer`, as MoE LLMs are trained;
transformers' helper pools all layers, which leaves single layers with dead experts). The log
records, at initialisation and every `log_every` steps, the mean per-token router entropy
(normalised by log E: 1 = the uniform router of a fresh model) and the expert-usage balance
(entropy of the top-k selection counts, normalised the same way), so specialisation is visible,
not assumed.

At `full` nothing is trained: the output is a pointer to the hub checkpoint (the paper prunes
Qwen/Qwen3-30B-A3B as released).

Resumable (repro.core.checkpoint): the state after a step (model, optimiser, the step log, the
window sampler's generator and the global RNGs) is saved every `train.checkpoint_every` steps,
every REPRO_CHECKPOINT_MINUTES minutes and on SIGTERM / SIGINT, beside `--out`; a rerun goes on
from it and writes the same weights and log as an uninterrupted run on CPU (but `wall_s`, which
adds the time before the stop).

    python -m repro.papers.reap.train --config src/repro/papers/reap/config.yaml --scale small \
        --data data/reap/small --seed 0 --out results/small/reap/models/seed0
"""

from __future__ import annotations

import math
import os
import time
from dataclasses import asdict
from pathlib import Path
from typing import Any

# Training uses both cores. OpenMP's default spin-waiting makes each step ~10x slower when other
# jobs share the cores; sleeping threads (OMP_WAIT_POLICY=PASSIVE) halve the speed on an idle
# machine. A short spin keeps idle speed and degrades gently under load. Read when torch loads
# OpenMP (libgomp), so it is set before the import.
os.environ.setdefault("GOMP_SPINCOUNT", "1000")

import numpy as np  # noqa: E402
import torch  # noqa: E402
import torch.nn.functional as F  # noqa: E402

from repro.core.checkpoint import Resumable, settings_key
from repro.core.config import job_parser
from repro.core.io import atomic_path, write_json
from repro.core.progress import get_logger, progress
from repro.core.seeding import seed_everything
from repro.papers.reap.data import random_windows, read_docs, stream, tokenizer
from repro.papers.reap.model import count_params, new_model, save_model
from repro.papers.reap.settings import Settings, TrainConfig, load

log = get_logger("reap.train")


def router_stats(router_logits: tuple[torch.Tensor, ...] | list[torch.Tensor], top_k: int,
                 mask: torch.Tensor | None = None) -> dict[str, Any]:
    """Per layer: mean token router entropy / log E, and usage balance = entropy of the top-k
    selection frequencies / log E (1 = perfectly even use of the experts)."""
    ent, bal, top_share = [], [], []
    for logits in router_logits:
        logits = logits.detach().float().reshape(-1, logits.shape[-1])
        if mask is not None:
            logits = logits[mask.reshape(-1).bool()]
        e = logits.shape[-1]
        p = F.softmax(logits, dim=-1)
        h = -(p * torch.log(p.clamp_min(1e-12))).sum(-1).mean()
        ent.append(float(h / math.log(e)))
        counts = torch.bincount(torch.topk(logits, top_k, dim=-1).indices.reshape(-1),
                                minlength=e).double()
        q = counts / counts.sum()
        hq = -(q * torch.log(q.clamp_min(1e-12))).sum()
        bal.append(float(hq / math.log(e)))
        top_share.append(float(q.max()))
    return {
        "router_entropy": ent,
        "usage_balance": bal,
        "max_expert_share": top_share,
        "router_entropy_mean": float(np.mean(ent)),
        "usage_balance_mean": float(np.mean(bal)),
    }


def balance_loss(router_logits: tuple[torch.Tensor, ...], m: dict[str, Any], how: str
                 ) -> torch.Tensor:
    """Switch-Transformer load balancing (Qwen3-MoE's load_balancing_loss_func). `per_layer`:
    each layer balanced on its own, the mean over layers (as MoE LLMs are trained);
    `pooled`: transformers' default, one balance over all layers' routing decisions together,
    which lets single layers keep dead experts."""
    from transformers.models.qwen3_moe.modeling_qwen3_moe import load_balancing_loss_func

    e, k = m["num_experts"], m["top_k"]
    if how == "pooled":
        return load_balancing_loss_func(tuple(router_logits), e, k)
    return torch.stack([load_balancing_loss_func((g,), e, k) for g in router_logits]).mean()


def batch(code: np.ndarray, prose: np.ndarray, n: int, seq_len: int, prose_fraction: float,
          rng: np.random.Generator) -> torch.Tensor:
    """`n` random windows, round(n * prose_fraction) of them prose, the rest code."""
    n_prose = int(round(n * prose_fraction)) if len(prose) > seq_len else 0
    parts = [random_windows(code, n - n_prose, seq_len, rng)]
    if n_prose:
        parts.append(random_windows(prose, n_prose, seq_len, rng))
    return torch.from_numpy(np.concatenate(parts))


def lr_at(t: TrainConfig, step: int) -> float:
    """Linear warm-up, then cosine decay to 10% of the peak."""
    if step < t.warmup:
        return t.lr * (step + 1) / t.warmup
    frac = (step - t.warmup) / max(1, t.steps - t.warmup)
    return t.lr * (0.1 + 0.9 * 0.5 * (1 + math.cos(math.pi * min(1.0, frac))))


def train(cfg: Settings, data: Path, out: Path, seed: int) -> None:
    """Train the MoE of `cfg.model` with `cfg.train` from training seed `seed`; writes the
    model and train_log.json."""
    t, m = cfg.train, cfg.model
    torch.set_num_threads(int(t.threads))
    seed_everything(seed)
    tok = tokenizer()
    docs = read_docs(data / "docs.jsonl", split="train")
    code = stream([d for d in docs if d["kind"] == "code"], tok)
    prose = stream([d for d in docs if d["kind"] == "prose"], tok)
    log.info("train stream: %d code + %d prose tokens", len(code), len(prose))
    model = new_model(m, tok, seed)
    model.train()
    opt = torch.optim.AdamW(model.parameters(), lr=t.lr, betas=(0.9, 0.95),
                            weight_decay=t.weight_decay)
    rng = np.random.default_rng(seed)
    steps: list[dict[str, Any]] = []
    key = {"job": "reap.train", "seed": seed, "model": m, "train": settings_key(asdict(t))}
    with Resumable(out, key, every=t.checkpoint_every, total=t.steps, rngs={"rng": rng},
                   inputs=[data / "docs.jsonl"], what=f"reap model seed {seed}") as ck:
        st = ck.load()
        elapsed = 0.0
        if st is not None:
            model.load_state_dict(st["model"])
            opt.load_state_dict(st["opt"])
            steps, elapsed = st["steps"], st["wall_s"]
        t0 = time.time() - elapsed
        for step in progress(range(ck.start, t.steps), desc="reap train", total=t.steps):
            for g in opt.param_groups:
                g["lr"] = lr_at(t, step)
            x = batch(code, prose, t.batch_size, t.seq_len, t.prose_fraction, rng)
            out_ = model(input_ids=x, labels=x, output_router_logits=True)
            lm = out_.loss - model.router_aux_loss_coef * out_.aux_loss
            aux = balance_loss(out_.router_logits, m, t.load_balancing)
            opt.zero_grad(set_to_none=True)
            (lm + m["router_aux_loss_coef"] * aux).backward()
            torch.nn.utils.clip_grad_norm_(model.parameters(), t.grad_clip)
            rec: dict[str, Any] = {"step": step + 1, "lm_loss": float(lm.detach()),
                                   "aux_loss": float(aux.detach())}
            if step == 0 or (step + 1) % t.log_every == 0 or step + 1 == t.steps:
                rs = router_stats(out_.router_logits, m["top_k"])
                rec.update({k: rs[k] for k in ("router_entropy_mean", "usage_balance_mean")})
                log.info("step %d lm %.3f aux %.3f router entropy %.3f usage balance %.3f "
                         "(%.0fs)", step + 1, rec["lm_loss"], rec["aux_loss"],
                         rec["router_entropy_mean"], rec["usage_balance_mean"], time.time() - t0)
            opt.step()
            steps.append(rec)
            ck.step(step + 1, lambda: {"model": model.state_dict(), "opt": opt.state_dict(),
                                       "steps": steps, "wall_s": time.time() - t0})
        _finish(cfg, model, tok, code, prose, steps, out, seed, time.time() - t0)


def _finish(cfg: Settings, model: torch.nn.Module, tok: Any, code: np.ndarray,
            prose: np.ndarray, steps: list[dict[str, Any]], out: Path, seed: int,
            wall: float) -> None:
    """Router statistics of the initial and the trained model; the model and its log."""
    t, m = cfg.train, cfg.model
    # Router statistics of the initial and the trained model on the same fresh training windows.
    model.eval()
    probe = batch(code, prose, t.probe_windows, t.seq_len, t.prose_fraction,
                  np.random.default_rng(seed + 1))
    with torch.no_grad():
        trained = router_stats(model(input_ids=probe, output_router_logits=True).router_logits,
                               m["top_k"])
        init = router_stats(new_model(m, tok, seed).eval()(
            input_ids=probe, output_router_logits=True).router_logits, m["top_k"])
    log.info("trained %d steps in %.0fs: router entropy %.3f -> %.3f, usage balance %.3f",
             t.steps, wall, init["router_entropy_mean"], trained["router_entropy_mean"],
             trained["usage_balance_mean"])
    meta = {"kind": "scratch", "tokenizer": "byte", "seed": seed, **count_params(model)}
    train_log = {"steps": steps, "wall_s": wall, "router_init": init, "router_trained": trained,
                 "tokens_seen": t.steps * t.batch_size * t.seq_len, **meta}
    with atomic_path(out) as tmp:
        save_model(model, tmp, meta)
        write_json(tmp / "train_log.json", train_log)


def main(argv: list[str] | None = None) -> None:
    ap = job_parser(__doc__)
    ap.add_argument("--data", required=True, type=Path)
    ap.add_argument("--seed", required=True, type=int, help="training seed (one of `models`)")
    a = ap.parse_args(argv)
    cfg = load(a.config, a.scale)
    if a.seed not in cfg.models:
        raise SystemExit(f"--seed {a.seed} is not one of the configured models {cfg.models}")
    m = cfg.model
    if m["kind"] == "pretrained":  # full: the released checkpoint, not trained here
        with atomic_path(a.out) as tmp:
            tmp.mkdir(parents=True)
            keys = ("model_id", "revision", "dtype")
            write_json(tmp / "model.json", {"kind": "pretrained", "seed": a.seed,
                                            **{k: m[k] for k in keys}})
            write_json(tmp / "train_log.json", {"steps": [], "pretrained": m["model_id"]})
        return
    train(cfg, a.data, a.out, a.seed)


if __name__ == "__main__":
    main()
