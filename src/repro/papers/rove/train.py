"""RL from the shared base policy with one of ROVER's methods (GRPO, GRPO (KL), GRPO
clip-higher, ROVER); the loop is repro.core.rlvr.trainer, the objectives rove/algos.py.

    python -m repro.papers.rove.train --config src/repro/papers/rove/config.yaml --scale small \
        --method rover --seed 0 --data data/rove/small \
        --base results/small/rove/countdown/base --out results/small/rove/countdown/rover/seed0
"""

from __future__ import annotations

from repro.core.rlvr import trainer
from repro.papers.rove.algos import METHODS, make_objective


def main(argv: list[str] | None = None) -> None:
    trainer.main(argv, make_objective, METHODS, "RL on Countdown or math: GRPO variants or ROVER")


if __name__ == "__main__":
    main()
