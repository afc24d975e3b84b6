"""Evaluate a Countdown policy on the held-out problems.

    python -m repro.papers.rove.evaluate --config config/papers/rove.yaml --scale small \
        --method rover --seed 0 --data data/rove/small \
        --policy results/small/rove/countdown/rover/seed0 \
        --out results/small/rove/countdown/rover/seed0/eval.json

n samples per problem (temperature/top-p from config). Metrics, each the mean over problems:
avg@n (mean strict accuracy of the n samples), pass@k for k <= n with the unbiased estimator
1 - C(n-c, k) / C(n, k), distinct_correct (distinct correct equations per problem, after
canonicalisation), entropy (mean token entropy of the sampled responses, full temperature-scaled
distribution).
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path
from typing import Any

import numpy as np
import torch

from repro.core.config import load_settings
from repro.core.io import write_json
from repro.core.metrics import pass_at_k
from repro.core.progress import get_logger, progress
from repro.papers.rove.countdown import (
    canonical,
    check_equation,
    extract_equation,
    make_prompt,
    read_problems,
)
from repro.papers.rove.policy import job_setup, load_policy, sample

log = get_logger("rove.evaluate")


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description="Countdown evaluation: avg@n, pass@k, diversity")
    ap.add_argument("--config", required=True)
    ap.add_argument("--scale", required=True)
    ap.add_argument("--method", required=True, help="method name for the records, or `base`")
    ap.add_argument("--seed", type=int, required=True)
    ap.add_argument("--data", required=True)
    ap.add_argument("--policy", required=True)
    ap.add_argument("--out", required=True)
    args = ap.parse_args(argv)
    settings = load_settings(args.config, args.scale)
    cd = settings["countdown"]
    ev = cd["eval"]
    if args.method not in [*cd["methods"], "base"]:
        raise SystemExit(
            f"unknown method {args.method!r}: allowed are {', '.join([*cd['methods'], 'base'])}"
        )
    device = job_setup(args.scale, args.seed)
    problems = read_problems(Path(args.data) / "test.jsonl")
    if ev.get("n_problems"):
        problems = problems[: ev["n_problems"]]
    policy = load_policy(args.policy, device)
    tok, style, n = policy.tokenizer, cd["prompt"], int(ev["n_samples"])
    gen = torch.Generator(device=device).manual_seed(args.seed)
    t0 = time.time()
    per_problem: list[dict[str, Any]] = []
    ent_total, tok_total = 0.0, 0
    chunk = max(1, int(ev["batch_size"]) // n)  # problems per sampling call
    for start in progress(range(0, len(problems), chunk), desc=f"eval {args.method}"):
        group = problems[start : start + chunk]
        prompts = [tok.encode(make_prompt(p, style)) for p in group for _ in range(n)]
        resp, ents = sample(
            policy, prompts, ev["max_new_tokens"], ev["temperature"], ev["top_p"], gen
        )
        ent_total += sum(ents)
        tok_total += sum(len(r) for r in resp)
        for j, p in enumerate(group):
            eqs = [extract_equation(tok.decode(r), style) for r in resp[j * n : (j + 1) * n]]
            good = [e for e in eqs if check_equation(e, p)]
            per_problem.append(
                {
                    "nums": list(p.nums),
                    "target": p.target,
                    "n": n,
                    "correct": len(good),
                    "distinct_correct": len({canonical(e) for e in good}),
                }
            )
    ks = [k for k in ev["ks"] if k <= n]
    metrics: dict[str, float] = {
        f"avg@{n}": float(np.mean([r["correct"] / n for r in per_problem])),
        **{
            f"pass@{k}": float(np.mean([pass_at_k(n, r["correct"], k) for r in per_problem]))
            for k in ks
        },
        "distinct_correct": float(np.mean([r["distinct_correct"] for r in per_problem])),
        "entropy": ent_total / max(1, tok_total),
    }
    records = [
        {"method": args.method, "metric": m, "seed": args.seed, "value": v}
        for m, v in metrics.items()
    ]
    log.info(
        "%s seed %d: %s (%.1fs)",
        args.method,
        args.seed,
        ", ".join(f"{k}={v:.3f}" for k, v in metrics.items()),
        time.time() - t0,
    )
    write_json(
        args.out,
        {
            "records": records,
            "per_problem": per_problem,
            "settings": {"n_problems": len(problems), **ev},
        },
    )


if __name__ == "__main__":
    main()
