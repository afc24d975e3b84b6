"""The suite job: draw the training pool and every seed's held-out sets, once, into suite.json.

    python -m repro.papers.spectrum.data --config config/papers/spectrum.yaml --scale small \\
        --out data/spectrum/small/suite.json

Everything is generated (repro.papers.spectrum.suite) from `suite.seed` and, for the held-out
sets, the run seed: the training pool is one (the tuned adapters differ by seed in their
initialisation and batch order), the held-out contexts and distribution items differ per seed,
so each seed is an independent draw of the evaluation too. The coverage tasks are fixed prompts
(their samples differ per seed). The README's two-dice prompt, scored the way the official
README's demo scores it, rides along as `readme_dice`.
"""

from __future__ import annotations

import numpy as np

from repro.core.config import job_parser
from repro.core.io import write_json
from repro.core.progress import get_logger
from repro.papers.spectrum.settings import load
from repro.papers.spectrum.suite import DIST_TASKS, DistItem, make_context

README_DICE = DistItem("readme_dice", "Roll two six-sided dice. What is the sum of their values?",
                       None, [str(i) for i in range(2, 13)],
                       (np.convolve(np.ones(6), np.ones(6)) / 36).tolist())


def build(cfg, seeds: list[int]) -> dict:
    s = cfg.suite
    rng = np.random.default_rng([s.seed, 0])
    train = [make_context(f, rng, s.samples_per_context, s.description_prob).to_json()
             for f in s.train_families for _ in range(s.train_contexts)]
    order = rng.permutation(len(train))
    evals = {}
    for seed in seeds:
        r = np.random.default_rng([s.seed, 1, seed])
        steer = [make_context(f, r, s.steer_k + 1, s.description_prob).to_json()
                 for f in s.heldout_families for _ in range(s.steer_contexts)]
        dist = [DIST_TASKS[t](r).to_json() for t in s.dist_tasks for _ in range(s.dist_items)]
        evals[str(seed)] = {"steer": steer, "dist": dist + [README_DICE.to_json()]}
    return {"source": "generated (repro.papers.spectrum.suite)", "seed": s.seed,
            "train": [train[i] for i in order], "eval": evals,
            "coverage_tasks": list(s.coverage_tasks)}


def main(argv: list[str] | None = None) -> None:
    a = job_parser("draw the Spectrum Suite's offline parts").parse_args(argv)
    cfg = load(a.config, a.scale)
    log = get_logger("spectrum.data")
    suite = build(cfg, cfg.seeds)
    write_json(a.out, suite)
    log.info(f"wrote {a.out}: {len(suite['train'])} training contexts over "
             f"{len(cfg.suite.train_families)} families; per seed "
             f"{len(next(iter(suite['eval'].values()))['steer'])} held-out contexts")


if __name__ == "__main__":
    main()
