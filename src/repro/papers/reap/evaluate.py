"""Compress the trained MoE with one method at one ratio (calibration seed given) and evaluate
it, keeping discriminative and generative quality apart.

Discriminative (the model scores given text): held-out next-token loss (NLL, nats/token) and
top-1 accuracy on stdlib code and on reference-manual prose, separately.
Generative (the model writes): greedy continuations of function prefixes from held-out stdlib
files, judged by
    parse_rate     the completed function (prefix + generated complete lines, closed at the
                   first dedent to the `def`) parses with `ast`, with >= 1 generated line;
    next_line_em   the first generated line equals the file's next line (stripped);
    next_line_sim  1 - character edit distance between those two lines / the longer one;
    gen_agreement  1 - token edit distance to the unpruned model's continuation / length;
    first_div      position of the first token differing from the unpruned model's, / length;
and gen_score, the mean of `eval.gen_score_of` (this scale's "code avg").
At full the compressed model also writes EvalPlus and LiveCodeBench solutions, graded by their
own code as in the paper (`benchmarks.py`), and `code_avg` is the mean of their pass@1.

    python -m repro.papers.reap.evaluate --config src/repro/papers/reap/config.yaml --scale small \
        --method reap --ratio 50 --seed 0 --model results/small/reap/model \
        --data data/reap/small --obs results/small/reap/observe/seed0.pt \
        --reference results/small/reap/eval/unpruned.json \
        --out results/small/reap/eval/reap_r50_seed0.json
"""

from __future__ import annotations

import json
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import torch
import torch.nn.functional as F

from repro.core.config import job_parser
from repro.core.io import write_json
from repro.core.progress import get_logger
from repro.core.seeding import seed_everything
from repro.papers.reap.benchmarks import file_digest, run_benchmarks
from repro.papers.reap.data import complete_function, even_windows, parses, read_docs, stream
from repro.papers.reap.merge import merge
from repro.papers.reap.model import count_params, job_device, load_model, model_device
from repro.papers.reap.prune import prune
from repro.papers.reap.settings import Settings, load

log = get_logger("reap.evaluate")

PRUNING = ("frequency", "ean", "reap")
MERGING = ("m_smoe", "hc_smoe")
METHODS = ("unpruned", *PRUNING, *MERGING)


# ----------------------------------------------------------------------------- compression
def compress(model: torch.nn.Module, obs: dict[int, dict[str, Any]], method: str, ratio: int,
             cfg: Settings) -> dict[str, Any]:
    """Prune or merge in place; returns what was done (kept experts or groups per layer)."""
    if method in PRUNING:
        plan = prune(model, obs, method, ratio, cfg.ean_criterion)
        return {"kind": "pruning", "kept": {str(k): v for k, v in plan.items()},
                "unique_experts": sum(len(v) for v in plan.values())}
    if method in MERGING:
        labels = merge(model, obs, method, ratio, getattr(cfg.merge, method))
        return {"kind": "merging", "groups": {str(k): v for k, v in labels.items()},
                "unique_experts": sum(len(set(v)) for v in labels.values())}
    raise ValueError(f"unknown method {method!r}: one of {', '.join(METHODS)}")


# ----------------------------------------------------------------------------- discriminative
@torch.no_grad()
def heldout_loss(model: torch.nn.Module, windows: np.ndarray, batch_size: int) -> dict[str, float]:
    """Mean next-token NLL (nats) and top-1 accuracy over fixed held-out windows."""
    dev = model_device(model)
    nll, correct, n = 0.0, 0, 0
    for i in range(0, len(windows), batch_size):
        x = torch.as_tensor(windows[i: i + batch_size], device=dev)
        logits = model(input_ids=x).logits[:, :-1].float()
        y = x[:, 1:]
        nll += float(F.cross_entropy(logits.reshape(-1, logits.shape[-1]), y.reshape(-1),
                                     reduction="sum"))
        correct += int((logits.argmax(-1) == y).sum())
        n += y.numel()
    return {"nll": nll / n, "acc": correct / n}


# ----------------------------------------------------------------------------- generative
@torch.no_grad()
def greedy(model: torch.nn.Module, tok: Any, prompts: Sequence[list[int]], max_new: int,
           batch_size: int) -> list[list[int]]:
    """Greedy continuations (left-padded batches, KV cache), each cut at its first eos."""
    dev = model_device(model)
    outs = []
    for i in range(0, len(prompts), batch_size):
        chunk = prompts[i: i + batch_size]
        L = max(len(p) for p in chunk)
        ids = torch.full((len(chunk), L), tok.pad_id, dtype=torch.long)
        att = torch.zeros((len(chunk), L), dtype=torch.long)
        for r, p in enumerate(chunk):
            ids[r, L - len(p):] = torch.as_tensor(p)
            att[r, L - len(p):] = 1
        gen = model.generate(
            input_ids=ids.to(dev), attention_mask=att.to(dev), max_new_tokens=max_new,
            do_sample=False, pad_token_id=tok.pad_id, eos_token_id=tok.eos_id,
        )[:, L:].cpu().tolist()
        for g in gen:
            outs.append(g[: g.index(tok.eos_id) + 1] if tok.eos_id in g else g)
    return outs


def edit_distance(a: Sequence[int], b: Sequence[int]) -> int:
    """Levenshtein distance between two token sequences."""
    prev = list(range(len(b) + 1))
    for i, x in enumerate(a, 1):
        cur = [i] + [0] * len(b)
        for j, y in enumerate(b, 1):
            cur[j] = min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (x != y))
        prev = cur
    return prev[-1]


def first_divergence(a: Sequence[int], b: Sequence[int]) -> int:
    n = min(len(a), len(b))
    for i in range(n):
        if a[i] != b[i]:
            return i
    return n if len(a) != len(b) else len(a)


def prompt_ids(tok: Any, p: dict[str, Any], max_prompt: int) -> list[int]:
    """context + prefix, keeping the last max_prompt tokens (the prefix itself fits)."""
    return tok.encode(p["context"] + p["prefix"])[-max_prompt:]


def generation_metrics(prefixes: list[dict[str, Any]], gens: list[list[int]], tok: Any,
                       max_new: int, reference: list[list[int]] | None) -> tuple[dict, list]:
    """Per-prompt judgements and their means."""
    rows = []
    for k, (p, g) in enumerate(zip(prefixes, gens, strict=True)):
        text = tok.decode(g)
        ended = bool(g) and g[-1] == tok.eos_id
        func, n_lines = complete_function(p["prefix"], text, p["indent"], ended)
        first, want = text.split("\n")[0].strip(), p["next_line"].strip()
        row = {
            "id": p["id"],
            "text": text,
            "tokens": g,
            "parse": bool(n_lines > 0 and parses(func)),
            "next_line_em": first == want,
            "next_line_sim": 1.0 - edit_distance(first, want) / max(len(first), len(want), 1),
        }
        if reference is not None:
            r = reference[k]
            row["agreement"] = 1.0 - edit_distance(g, r) / max(len(g), len(r), 1)
            row["first_div"] = first_divergence(g, r) / max_new
        else:  # this is the reference
            row["agreement"], row["first_div"] = 1.0, 1.0
        rows.append(row)
    m = {
        "parse_rate": float(np.mean([r["parse"] for r in rows])),
        "next_line_em": float(np.mean([r["next_line_em"] for r in rows])),
        "next_line_sim": float(np.mean([r["next_line_sim"] for r in rows])),
        "gen_agreement": float(np.mean([r["agreement"] for r in rows])),
        "first_div": float(np.mean([r["first_div"] for r in rows])),
    }
    return m, rows


# ----------------------------------------------------------------------------- CLI
def evaluate(cfg: Settings, method: str, ratio: int, seed: int, model_dir: Path, data: Path,
             obs_path: Path | None, ref_path: Path | None, out: Path, scale: str) -> dict[str, Any]:
    """Compress the trained model with `method` at `ratio` (calibration seed `seed`) and
    measure it; the result JSON of one evaluation."""
    device = job_device(scale)
    seed_everything(seed)
    model, tok, meta = load_model(model_dir, device)
    t0 = time.time()
    info: dict[str, Any] = {"kind": "none"}
    if method != "unpruned":
        if obs_path is None:
            raise SystemExit(f"{method} needs --obs (calibration statistics)")
        obs = torch.load(obs_path, weights_only=False)["layers"]
        info = compress(model, obs, method, ratio, cfg)
    t_compress = time.time() - t0
    model.eval()
    ev = cfg.eval
    metrics: dict[str, float] = {}
    for kind, n_win in (("code", ev.code_windows), ("prose", ev.prose_windows)):
        ids = stream(read_docs(data / "docs.jsonl", split="heldout", kind=kind), tok)
        r = heldout_loss(model, even_windows(ids, n_win, ev.seq_len), ev.batch_size)
        metrics[f"{kind}_nll"], metrics[f"{kind}_acc"] = r["nll"], r["acc"]
    metrics["nll"] = (metrics["code_nll"] + metrics["prose_nll"]) / 2
    metrics["acc"] = (metrics["code_acc"] + metrics["prose_acc"]) / 2
    prefixes = [json.loads(ln) for ln in (data / "prefixes.jsonl").read_text().splitlines() if ln]
    prompts = [prompt_ids(tok, p, ev.seq_len - ev.max_new_tokens) for p in prefixes]
    gens = greedy(model, tok, prompts, ev.max_new_tokens, ev.gen_batch_size)
    reference = None
    if ref_path is not None:
        reference = [g["tokens"] for g in json.loads(Path(ref_path).read_text())["generations"]]
    gm, rows = generation_metrics(prefixes, gens, tok, ev.max_new_tokens, reference)
    metrics.update(gm)
    metrics["gen_score"] = float(np.mean([metrics[k] for k in ev.gen_score_of]))
    if ev.benchmarks:
        key = {"method": method, "ratio": ratio, "seed": seed, "obs": file_digest(obs_path),
               "model": meta}
        bench = run_benchmarks(model, tok.tok, ev, out.parent / f".{out.stem}.work", key)
        metrics.update(bench)
        metrics["code_avg"] = float(np.mean(list(bench.values())))
    res = {
        "method": method, "ratio": 0 if method == "unpruned" else ratio, "seed": seed,
        "model": int(meta.get("seed", 0)),
        "metrics": metrics, "compression": info, **count_params(model),
        "num_experts_config": int(model.config.num_experts),
        "wall_s": {"compress": t_compress, "total": time.time() - t0},
        "generations": rows,
    }
    log.info("%s r%s seed %d: code nll %.3f, gen score %.3f (%.1fs)", method, ratio, seed,
             metrics["code_nll"], metrics["gen_score"], time.time() - t0)
    return res


def main(argv: list[str] | None = None) -> None:
    ap = job_parser(__doc__)
    ap.add_argument("--method", required=True, choices=METHODS)
    ap.add_argument("--ratio", type=int, default=0, help="% of experts removed per layer")
    ap.add_argument("--seed", type=int, required=True, help="calibration seed")
    ap.add_argument("--model", required=True, type=Path)
    ap.add_argument("--data", required=True, type=Path)
    ap.add_argument("--obs", type=Path, default=None)
    ap.add_argument("--reference", type=Path, default=None)
    a = ap.parse_args(argv)
    cfg = load(a.config, a.scale)
    if a.method != "unpruned" and a.ratio not in cfg.ratios:
        raise SystemExit(f"--ratio {a.ratio} is not one of the configured ratios {cfg.ratios}")
    res = evaluate(cfg, a.method, a.ratio, a.seed, a.model, a.data, a.obs, a.reference, a.out,
                   a.scale)
    write_json(a.out, res)


if __name__ == "__main__":
    main()
