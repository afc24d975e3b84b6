"""Evaluate a policy on the held-out problems of its task (Countdown or math).

    python -m repro.core.rlvr.evaluate --config src/repro/papers/<paper>/config.yaml --scale small \
        --method <method> --seed 0 --data data/<paper>/small \
        --policy results/small/<paper>/countdown/<method>/seed0 \
        --out results/small/<paper>/countdown/eval/<method>_seed0.json

n samples per problem (temperature/top-p from config). Metrics, each the mean over problems:
avg@n (mean strict accuracy of the n samples), pass@k for k <= n with the unbiased estimator
1 - C(n-c, k) / C(n, k), distinct_correct (distinct correct equations per problem, after
canonicalisation), entropy (mean token entropy of the sampled responses, full temperature-scaled
distribution).

A stopped run (SIGTERM, SIGINT, a SLURM time limit) saves the problems scored so far and the
sampler's generator after the sampling call in progress, as it does every `eval.checkpoint_every`
calls, and a rerun goes on from there (repro.core.checkpoint): same bytes as one run.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import numpy as np
import torch

from repro.core.checkpoint import Resumable
from repro.core.io import write_json
from repro.core.metrics import pass_at_k
from repro.core.progress import get_logger, progress
from repro.core.rlvr.policy import job_setup, load_policy, sample
from repro.core.rlvr.tasks import job_parser, load_job, resume_key

log = get_logger("rlvr.evaluate")


def _metrics(per_problem: list[dict[str, Any]], n: int, ks: list[int], prefix: str) -> dict:
    """avg@n, pass@k and distinct_correct, each the mean over problems, names prefixed."""
    return {
        f"{prefix}avg@{n}": float(np.mean([r["correct"] / n for r in per_problem])),
        **{
            f"{prefix}pass@{k}": float(
                np.mean([pass_at_k(n, r["correct"], k) for r in per_problem])
            )
            for k in ks
        },
        f"{prefix}distinct_correct": float(np.mean([r["distinct_correct"] for r in per_problem])),
    }


def main(argv: list[str] | None = None) -> None:
    ap = job_parser("Evaluation: avg@n, pass@k, diversity")
    ap.add_argument("--method", required=True, help="method name for the records, or `base`")
    ap.add_argument("--seed", type=int, required=True)
    ap.add_argument("--policy", required=True)
    args = ap.parse_args(argv)
    _, block, task = load_job(args)
    ev = block.eval
    if args.method not in [*block.methods, "base"]:
        raise SystemExit(
            f"unknown method {args.method!r}: allowed are {', '.join([*block.methods, 'base'])}"
        )
    device = job_setup(args.scale, args.seed)
    problems = task.read_problems(Path(args.data) / "test.jsonl")
    if ev.n_problems:
        problems = problems[: ev.n_problems]
    policy = load_policy(args.policy, device)
    tok, n = policy.tokenizer, int(ev.n_samples)
    gen = torch.Generator(device=device).manual_seed(args.seed)
    t0 = time.time()
    per_problem: list[dict[str, Any]] = []
    ent_total, tok_total = 0.0, 0
    chunk = max(1, int(ev.batch_size) // n)  # problems per sampling call
    starts = range(0, len(problems), chunk)
    with Resumable(args.out, resume_key("rlvr.evaluate", args, block),
                   every=ev.checkpoint_every, total=len(starts), rngs={"gen": gen},
                   inputs=[Path(args.data) / "test.jsonl", args.policy],
                   what=f"eval {args.method} seed {args.seed}") as ck:
        st = ck.load()
        if st is not None:
            per_problem, ent_total, tok_total = st["per_problem"], st["ent_total"], st["tok_total"]
        for call in progress(range(ck.start, len(starts)), desc=f"eval {args.method}",
                             total=len(starts)):
            group = problems[starts[call] : starts[call] + chunk]
            prompts = [task.prompt_ids(tok, p) for p in group for _ in range(n)]
            resp, ents = sample(
                policy,
                prompts,
                ev.max_new_tokens,
                ev.temperature,
                ev.top_p,
                gen,
                batch_size=1024 if ev.gen_batch_size is None else int(ev.gen_batch_size),
            )
            ent_total += sum(ents)
            tok_total += sum(len(r) for r in resp)
            for j, p in enumerate(group):
                keys = [task.correct_key(tok.decode(r), p) for r in resp[j * n : (j + 1) * n]]
                good = [k for k in keys if k is not None]
                per_problem.append(
                    {
                        **task.record(p),
                        "n": n,
                        "correct": len(good),
                        "distinct_correct": len(set(good)),
                    }
                )
            ck.step(call + 1, lambda e=ent_total, t=tok_total: {
                "per_problem": per_problem, "ent_total": e, "tok_total": t})
        _write(args, task, ev, n, problems, per_problem, ent_total, tok_total, t0)


def _write(args, task, ev, n: int, problems: list, per_problem: list[dict[str, Any]],
           ent_total: float, tok_total: int, t0: float) -> None:
    ks = [k for k in ev.ks if k <= n]
    metrics = _metrics(per_problem, n, ks, "" if task.name == "countdown" else f"{task.name}_")
    metrics[f"{'' if task.name == 'countdown' else task.name + '_'}entropy"] = ent_total / max(
        1, tok_total
    )
    if task.name == "math":  # per benchmark too (the pooled numbers average them, as Fig. 1)
        for source in dict.fromkeys(r["source"] for r in per_problem):
            rows = [r for r in per_problem if r["source"] == source]
            metrics.update(_metrics(rows, n, ks, f"math_{source}_"))
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
            "settings": {"task": task.name, "n_problems": len(problems), **ev.given()},
        },
    )


if __name__ == "__main__":
    main()
