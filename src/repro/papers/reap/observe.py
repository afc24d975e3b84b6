"""Calibration: one forward pass over calibration samples with a hook on every MoE layer,
collecting what every compression method needs (the official observer's statistics).

For tokens x routed to expert j (j among x's top-k), with g_j(x) the gate value the model uses
(softmax over the experts, top-k, renormalised when the model renormalises) and E_j(x) the
expert's output:

    frequency_j = |X_j|                                   (routed-token count)
    ean_sum_j   = sum_{x in X_j} ||E_j(x)||_2             (EAN, expert activation norm)
    reap_j      = (1/|X_j|) sum_{x in X_j} g_j(x) ||E_j(x)||_2   (REAP saliency)

and, for the merging baselines, every expert's output on *every* calibration token:

    characteristic_activation_j = mean_x E_j(x)           (HC-SMoE's expert representation)
    router_logit_distance[i, j] = 1 - cos(l_i, l_j)       (M-SMoE; l_i = expert i's router
                                  logits over a sequence's tokens, token-weighted mean)

Experts are evaluated densely on all tokens (as the official observer does), one expert at a
time so memory stays at one [T, H] output. Sums are kept in float64.

Resumable (repro.core.checkpoint): the running sums after a batch and the batch count are
saved every `calibration.checkpoint_every` batches, every REPRO_CHECKPOINT_MINUTES minutes and
on SIGTERM / SIGINT, beside `--out`. The calibration batches are drawn from the seed before the
pass and the forward passes draw no random numbers, so a rerun goes on at the next batch and
writes the same bytes as an uninterrupted pass on CPU.

    python -m repro.papers.reap.observe --config src/repro/papers/reap/config.yaml --scale small \
        --seed 0 --model results/small/reap/model --data data/reap/small \
        --out results/small/reap/observe/seed0.pt --summary results/small/reap/observe/seed0.json
"""

from __future__ import annotations

import contextlib
import json
import math
from collections.abc import Iterator, Sequence
from dataclasses import asdict
from pathlib import Path
from typing import Any

import numpy as np
import torch
import torch.nn.functional as F

from repro.core.checkpoint import Resumable, settings_key
from repro.core.config import job_parser
from repro.core.io import atomic_path, write_json
from repro.core.progress import get_logger, progress
from repro.core.seeding import seed_everything
from repro.papers.reap.data import random_windows, read_docs, stream
from repro.papers.reap.model import ExpertBank, job_device, load_model, model_device, moe_layers
from repro.papers.reap.settings import CalibrationConfig, load

log = get_logger("reap.observe")


def _on(state: dict[str, Any], device: torch.device | str) -> dict[str, Any]:
    """`state` with its tensors on `device` (a resumed state is loaded on the CPU)."""
    return {k: v.to(device) if torch.is_tensor(v) else v for k, v in state.items()}


def _new_state(n_experts: int, hidden: int, device: torch.device) -> dict[str, Any]:
    """Running sums, kept on the layer's device (no per-expert host syncs on a GPU)."""
    z = lambda *s: torch.zeros(*s, dtype=torch.float64, device=device)  # noqa: E731
    return {
        "total_tokens": 0,
        "expert_frequency": torch.zeros(n_experts, dtype=torch.long, device=device),
        "ean_sum": z(n_experts),
        "reap_sum": z(n_experts),
        "weighted_frequency_sum": z(n_experts),
        "ca_sum": z(n_experts, hidden),
        "router_logit_distance_sum": z(n_experts, n_experts),
        "router_entropy_sum": z(()),
    }


@torch.no_grad()
def layer_update(state: dict[str, Any], bank: ExpertBank, hidden: torch.Tensor,
                 mask: torch.Tensor | None, renormalize: bool) -> None:
    """Add one batch [B, T, H] of a layer's inputs (valid tokens where mask is 1)."""
    b, t, h = hidden.shape
    x = hidden.reshape(-1, h)
    valid = torch.ones(b * t, dtype=torch.bool, device=x.device) if mask is None \
        else mask.reshape(-1).bool().to(x.device)
    x = x[valid]
    logits = bank.router_logits(x).float()
    probs = F.softmax(logits, dim=-1)
    w, idx = torch.topk(probs, bank.top_k, dim=-1)
    if renormalize and bank.norm_topk_prob:
        w = w / w.sum(dim=-1, keepdim=True)
    n_exp = bank.num_experts
    state["total_tokens"] += int(x.shape[0])
    state["router_entropy_sum"] += -(probs * probs.clamp_min(1e-12).log()).sum().double()
    for e in range(n_exp):
        out = bank.expert_out(e, x).float()  # [T, H]: every token, routed or not
        norm = out.norm(dim=-1)
        sel = idx == e
        routed = sel.any(dim=-1)
        g = (w * sel).sum(dim=-1)  # the gate value where routed, 0 elsewhere
        state["expert_frequency"][e] += routed.sum()
        state["ean_sum"][e] += norm[routed].double().sum()
        state["reap_sum"][e] += (g[routed] * norm[routed]).double().sum()
        state["weighted_frequency_sum"][e] += g[routed].double().sum()
        state["ca_sum"][e] += out.double().sum(dim=0)
    # M-SMoE: router-logit cosine distance between experts, per sequence, token-weighted
    rows = valid.reshape(b, t).sum(dim=1).tolist()
    start = 0
    for n in rows:
        if n == 0:
            continue
        seq = logits[start: start + n]  # [n, E]
        start += n
        cols = F.normalize(seq.double(), dim=0)
        state["router_logit_distance_sum"] += (1.0 - cols.T @ cols) * n


def finalize(state: dict[str, Any]) -> dict[str, torch.Tensor]:
    """Means and the per-method saliencies from the running sums (never-routed experts: 0)."""
    state = {k: v.cpu() if torch.is_tensor(v) else v for k, v in state.items()}
    freq = state["expert_frequency"].double()
    safe = freq.clamp_min(1)
    n = max(1, state["total_tokens"])
    n_exp = freq.shape[0]
    return {
        "total_tokens": torch.tensor(state["total_tokens"]),
        "expert_frequency": state["expert_frequency"],
        "expert_proba": freq / n,
        "ean_sum": state["ean_sum"],
        "ean_mean": torch.where(freq > 0, state["ean_sum"] / safe, 0.0),
        "reap": torch.where(freq > 0, state["reap_sum"] / safe, 0.0),
        "weighted_ean_sum": state["reap_sum"],
        "weighted_frequency_sum": state["weighted_frequency_sum"],
        "characteristic_activation": state["ca_sum"] / n,
        "router_logit_distance": state["router_logit_distance_sum"] / n,
        "router_entropy": state["router_entropy_sum"] / n / math.log(n_exp),
    }


class Observer:
    """Forward hooks on every MoE layer; `observe(batches)` returns per-layer statistics."""

    def __init__(self, model: torch.nn.Module, renormalize: bool = True):
        self.model = model
        self.renormalize = renormalize
        self.state: dict[int, dict[str, Any]] = {}
        self.mask: torch.Tensor | None = None
        self.hooks = [
            bank.block.register_forward_hook(self._hook(i, bank))
            for i, bank in moe_layers(model)
        ]
        if not self.hooks:
            raise ValueError(f"{type(model).__name__} has no MoE layers to observe")

    def _hook(self, layer: int, bank: ExpertBank):
        def fn(module, args, output):
            hidden = args[0]
            if layer not in self.state:
                self.state[layer] = _new_state(bank.num_experts, hidden.shape[-1], hidden.device)
            elif self.state[layer]["ean_sum"].device != hidden.device:  # resumed
                self.state[layer] = _on(self.state[layer], hidden.device)
            layer_update(self.state[layer], bank, hidden, self.mask, self.renormalize)
        return fn

    @contextlib.contextmanager
    def masked(self, mask: torch.Tensor | None) -> Iterator[None]:
        self.mask = mask
        try:
            yield
        finally:
            self.mask = None

    @torch.no_grad()
    def observe(self, batches: Sequence[dict[str, torch.Tensor]], ck: Resumable | None = None
                ) -> dict[int, dict[str, Any]]:
        """Per-layer statistics over `batches`. With `ck` (a `Resumable` over the batches) the
        pass starts from the sums saved last, if any, and offers them after every batch."""
        dev = model_device(self.model)
        first = 0
        if ck is not None:
            st = ck.load()
            if st is not None:
                self.state, first = dict(st["state"]), ck.start
        for i in progress(range(first, len(batches)), desc="calibration", total=len(batches)):
            bt = batches[i]
            mask = bt.get("attention_mask")
            with self.masked(mask):
                self.model(input_ids=bt["input_ids"].to(dev),
                           attention_mask=None if mask is None else mask.to(dev))
            if ck is not None:
                ck.step(i + 1, lambda: {"state": {k: _on(s, "cpu")
                                                  for k, s in self.state.items()}})
        return {i: finalize(s) for i, s in sorted(self.state.items())}

    def close(self) -> None:
        for h in self.hooks:
            h.remove()
        self.hooks = []


# ----------------------------------------------------------------------------- samples
def stdlib_batches(data: Path, cal: CalibrationConfig, tok: Any, seed: int
                   ) -> list[dict[str, torch.Tensor]]:
    """Random windows of the calib split (code and prose, prose_fraction of them prose),
    drawn with the calibration seed."""
    docs = read_docs(data / "docs.jsonl", split="calib")
    code = stream([d for d in docs if d["kind"] == "code"], tok)
    prose = stream([d for d in docs if d["kind"] == "prose"], tok)
    rng = np.random.default_rng(seed)
    n, L = cal.n_samples, cal.seq_len
    n_prose = int(round(n * cal.prose_fraction)) if len(prose) > L else 0
    wins = [random_windows(code, n - n_prose, L, rng)]
    if n_prose:
        wins.append(random_windows(prose, n_prose, L, rng))
    ids = torch.from_numpy(np.concatenate(wins))
    ids = ids[torch.from_numpy(rng.permutation(len(ids)))]
    bs = cal.batch_size
    return [{"input_ids": ids[i: i + bs]} for i in range(0, len(ids), bs)]


def evol_batches(data: Path, cal: CalibrationConfig, tok: Any, seed: int
                 ) -> list[dict[str, torch.Tensor]]:
    """The paper's calibration (official data.py, packed): evol-codealpaca rows in the chat
    template, drawn at random without replacement with the seed, packed into sequences of
    seq_len tokens (a row cut at the end of a sequence; one masked token between rows)."""
    rows = [json.loads(ln) for ln in (data / "calibration.jsonl").read_text().splitlines() if ln]
    if not rows:
        raise SystemExit(f"{data}/calibration.jsonl is empty: rerun reap_fetch at full scale")
    rng = np.random.default_rng(seed)
    order = iter(rng.permutation(len(rows)))
    L = cal.seq_len
    batches = []
    for _ in range(cal.n_samples):
        seq = torch.zeros((1, L), dtype=torch.long)
        mask = torch.zeros((1, L), dtype=torch.long)
        pos = 0
        while pos < L:
            r = rows[int(next(order))]
            msgs = [{"role": "user", "content": r["instruction"]},
                    {"role": "assistant", "content": r["output"]}]
            ids = tok.tok.apply_chat_template(msgs, tokenize=True, add_generation_prompt=False)
            ids = torch.as_tensor(ids if isinstance(ids, list) else ids["input_ids"])[: L - pos]
            seq[0, pos: pos + len(ids)] = ids
            mask[0, pos: pos + len(ids)] = 1
            pos += len(ids) + 1
        batches.append({"input_ids": seq, "attention_mask": mask})
    return batches


def summary(obs: dict[int, dict[str, Any]], top_k: int) -> dict[str, Any]:
    """Router statistics before pruning: entropy and usage balance per layer (JSON)."""
    layers = {}
    for i, st in obs.items():
        q = st["expert_frequency"].double()
        q = q / q.sum()
        n = len(q)
        bal = float(-(q * q.clamp_min(1e-12).log()).sum() / math.log(n))
        layers[str(i)] = {
            "router_entropy": float(st["router_entropy"]),
            "usage_balance": bal,
            "max_expert_share": float(q.max()),
            "min_expert_share": float(q.min()),
            "unused_experts": int((st["expert_frequency"] == 0).sum()),
            "tokens": int(st["total_tokens"]),
            "expert_frequency": st["expert_frequency"].tolist(),
            "reap": st["reap"].tolist(),
            "ean_sum": st["ean_sum"].tolist(),
        }
    return {
        "layers": layers,
        "router_entropy_mean": float(np.mean([v["router_entropy"] for v in layers.values()])),
        "usage_balance_mean": float(np.mean([v["usage_balance"] for v in layers.values()])),
        "routed_per_token": top_k,
    }


def main(argv: list[str] | None = None) -> None:
    ap = job_parser(__doc__)
    ap.add_argument("--seed", type=int, required=True, help="calibration-sample seed")
    ap.add_argument("--model", required=True, type=Path)
    ap.add_argument("--data", required=True, type=Path)
    ap.add_argument("--summary", required=True, type=Path)
    a = ap.parse_args(argv)
    cal = load(a.config, a.scale).calibration
    device = job_device(a.scale)
    seed_everything(a.seed)
    model, tok, meta = load_model(a.model, device)
    batches = (evol_batches if cal.source == "evol_codealpaca" else stdlib_batches)(
        a.data, cal, tok, a.seed)
    obs_model = Observer(model, renormalize=cal.renormalize_router_weights)
    key = {"job": "reap.observe", "seed": a.seed, "device": str(device),
           "calibration": settings_key(asdict(cal))}
    with Resumable(a.out, key, every=cal.checkpoint_every, total=len(batches),
                   inputs=[a.model, a.data / "docs.jsonl", a.data / "calibration.jsonl"],
                   what=f"calibration seed {a.seed}", map_location="cpu") as ck:
        obs = obs_model.observe(batches, ck)
        obs_model.close()
        top_k = next(moe_layers(model))[1].top_k
        for st in obs.values():  # every routed token picks top_k experts
            assert int(st["expert_frequency"].sum()) == int(st["total_tokens"]) * top_k
        with atomic_path(a.out) as tmp:
            torch.save({"layers": obs, "seed": a.seed, "model": meta.get("kind")}, tmp)
        write_json(a.summary, {"seed": a.seed, "model": meta.get("seed", 0),
                               **summary(obs, top_k)})
    log.info("calibration seed %d: %d tokens per layer", a.seed,
             int(next(iter(obs.values()))["total_tokens"]))


if __name__ == "__main__":
    main()
