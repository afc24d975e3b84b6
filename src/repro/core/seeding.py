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
            _deterministic_torch(torch)
            os.environ.setdefault("CUBLAS_WORKSPACE_CONFIG", ":4096:8")
    return np.random.default_rng(seed)


def _deterministic_torch(torch) -> None:
    """torch.use_deterministic_algorithms(True, warn_only=True), without its import of
    torch._inductor.config (which loads torch._dynamo: ~2.5 CPU-s in every job, measured with
    torch 2.13) when nothing compiles: the flag is what eager kernels read. Where inductor is
    loaded already (a job that compiles), the public call also sets its copy of the flag."""
    setter = getattr(torch._C, "_set_deterministic_algorithms", None)
    if setter is None or "torch._inductor.config" in sys.modules:
        torch.use_deterministic_algorithms(True, warn_only=True)
    else:
        setter(True, warn_only=True)
