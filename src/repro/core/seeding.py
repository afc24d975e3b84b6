"""One call that seeds every RNG a job may touch, so a seed from config fixes the run."""

from __future__ import annotations

import os
import random
import sys

import numpy as np


def seed_everything(seed: int, deterministic: bool = True) -> np.random.Generator:
    """Seed python, numpy and (if the job imported it) torch; return a numpy Generator.

    Torch is seeded only when already imported, so light jobs never pay for importing it.
    On CPU, `deterministic=True` plus a single intra-op thread gives byte-identical results.
    """
    random.seed(seed)
    np.random.seed(seed % (2**32))
    os.environ.setdefault("PYTHONHASHSEED", str(seed))
    if "torch" in sys.modules:
        import torch

        torch.manual_seed(seed)
        if deterministic:
            torch.use_deterministic_algorithms(True, warn_only=True)
            os.environ.setdefault("CUBLAS_WORKSPACE_CONFIG", ":4096:8")
    return np.random.default_rng(seed)
