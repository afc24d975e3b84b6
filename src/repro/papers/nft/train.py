"""RL (or NFT's supervised objective) from the shared base policy with one of the NFT paper's
methods: RFT, NFT, GRPO, Dr.GRPO, DAPO-lite. The loop is repro.core.rlvr.trainer, the
objectives nft/algos.py.

    python -m repro.papers.nft.train --config src/repro/papers/nft/config.yaml --scale small \
        --method nft --seed 0 --data data/nft/small \
        --base results/small/nft/countdown/base --out results/small/nft/countdown/nft/seed0
"""

from __future__ import annotations

from repro.core.rlvr import trainer
from repro.papers.nft.algos import METHODS, make_objective


def main(argv: list[str] | None = None) -> None:
    trainer.main(argv, make_objective, METHODS, "NFT paper: RFT, NFT, GRPO, Dr.GRPO, DAPO-lite")


if __name__ == "__main__":
    main()
