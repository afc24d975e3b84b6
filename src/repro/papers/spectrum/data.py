"""The suite job: draw the training pool and every seed's held-out sets, once, into suite.json.

    python -m repro.papers.spectrum.data --config src/repro/papers/spectrum/config.yaml \\
        --scale small \\
        --out data/spectrum/small/suite.json

The generated families (repro.papers.spectrum.suite) come from `suite.seed` and, for the
held-out sets, the run seed. At full the real sources (`suite.sources`, fetched into --cache by
repro.papers.spectrum.sources) add their contexts: held-out ones to every seed's steerability set
(a fresh choice per seed), the others to the training pool. The training pool is one (the tuned
adapters differ by seed in initialisation and batch order); the held-out contexts and
distribution items differ per seed, so each seed is an independent draw of the evaluation too.
The coverage tasks are fixed prompts (their samples differ per seed). The official README's
two-dice prompt, scored the way its demo scores it, rides along as `readme_dice`.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from repro.core.config import job_parser
from repro.core.io import write_json
from repro.core.progress import get_logger
from repro.papers.spectrum.settings import load
from repro.papers.spectrum.sources import SOURCES, load_source
from repro.papers.spectrum.suite import DIST_TASKS, Context, DistItem, make_context

README_DICE = DistItem("readme_dice", "Roll two six-sided dice. What is the sum of their values?",
                       None, [str(i) for i in range(2, 13)],
                       (np.convolve(np.ones(6), np.ones(6)) / 36).tolist())


def _cut(c: Context, n: int) -> dict:
    return Context(c.family, c.description, c.samples[:n], c.meta).to_json()


def real_contexts(cfg, cache: Path, log) -> dict[str, list[Context]]:
    """The configured real sources, fetched into `cache` (full scale), as contexts."""
    s = cfg.suite
    out = {}
    for i, name in enumerate(s.sources):
        rng = np.random.default_rng([s.seed, 3, i])
        out[name] = load_source(name, cache / name, rng, s.description_prob,
                                max(s.samples_per_context, s.steer_k + 1))
        log.info(f"{name}: {len(out[name])} contexts "
                 f"({'held out' if SOURCES[name].heldout else 'training'})")
    return out


def build(cfg, seeds: list[int], real: dict[str, list[Context]] | None = None) -> dict:
    s = cfg.suite
    real = real or {}
    rng = np.random.default_rng([s.seed, 0])
    train = [make_context(f, rng, s.samples_per_context, s.description_prob).to_json()
             for f in s.train_families for _ in range(s.train_contexts)]
    for name, ctxs in real.items():  # a real training source: up to train_contexts of it
        if not SOURCES[name].heldout:
            pick = rng.permutation(len(ctxs))[: s.train_contexts]
            train += [_cut(ctxs[int(i)], s.samples_per_context) for i in sorted(pick)]
    order = rng.permutation(len(train))
    evals = {}
    for seed in seeds:
        r = np.random.default_rng([s.seed, 1, seed])
        steer = [make_context(f, r, s.steer_k + 1, s.description_prob).to_json()
                 for f in s.heldout_families for _ in range(s.steer_contexts)]
        for name, ctxs in real.items():  # a held-out source: contexts long enough to steer
            if SOURCES[name].heldout:
                ok = [c for c in ctxs if len(c.samples) >= 2]
                pick = r.permutation(len(ok))[: s.steer_contexts]
                steer += [_cut(ok[int(i)], s.steer_k + 1) for i in sorted(pick)]
        dist = [DIST_TASKS[t](r).to_json() for t in s.dist_tasks for _ in range(s.dist_items)]
        evals[str(seed)] = {"steer": steer, "dist": dist + [README_DICE.to_json()]}
    return {"source": "generated (repro.papers.spectrum.suite)"
            + (f" and {', '.join(real)} (repro.papers.spectrum.sources)" if real else ""),
            "seed": s.seed,
            "train": [train[i] for i in order], "eval": evals,
            "coverage_tasks": list(s.coverage_tasks)}


def main(argv: list[str] | None = None) -> None:
    ap = job_parser("draw the Spectrum Suite: generated families, and real sources at full")
    ap.add_argument("--cache", type=Path, default=None,
                    help="where the real sources are downloaded (and manual files placed)")
    a = ap.parse_args(argv)
    cfg = load(a.config, a.scale)
    log = get_logger("spectrum.data")
    real = {}
    if cfg.suite.sources:
        from repro.papers.spectrum.sources import SourceUnavailable

        if a.cache is None:
            raise SystemExit("suite.sources are configured: give --cache")
        try:
            real = real_contexts(cfg, a.cache, log)
        except SourceUnavailable as e:
            raise SystemExit(str(e)) from None
    suite = build(cfg, cfg.seeds, real)
    write_json(a.out, suite)
    log.info(f"wrote {a.out}: {len(suite['train'])} training contexts over "
             f"{len(cfg.suite.train_families)} families; per seed "
             f"{len(next(iter(suite['eval'].values()))['steer'])} held-out contexts")


if __name__ == "__main__":
    main()
