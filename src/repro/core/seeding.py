"""One call that seeds every RNG a job may touch, so a seed from config fixes the run."""

from __future__ import annotations

import os
import random
import sys

import numpy as np


def seed_everything(seed: int, deterministic: bool = True) -> np.random.Generator:
    """Seed python, numpy and (if already imported or importable) torch; return a numpy Generator.

    Torch is seeded only when it is importable, so light jobs do not pay for importing it.
    On CPU, `deterministic=True` plus a single intra-op thread gives byte-identical results.
    """
    random.seed(seed)
    np.random.seed(seed % (2**32))
    os.environ.setdefault("PYTHONHASHSEED", str(seed))
    if "torch" in sys.modules or _torch_available():
        import torch

        torch.manual_seed(seed)
        if deterministic:
            torch.use_deterministic_algorithms(True, warn_only=True)
            os.environ.setdefault("CUBLAS_WORKSPACE_CONFIG", ":4096:8")
    return np.random.default_rng(seed)


def _torch_available() -> bool:
    import importlib.util

    return importlib.util.find_spec("torch") is not None
