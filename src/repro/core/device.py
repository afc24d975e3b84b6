"""Device choice: cuda when present, else cpu; one code path for both."""

from __future__ import annotations

import sys


class NoGPUError(RuntimeError):
    """Raised when a full-scale job that needs a GPU finds none."""


def pick_device(require_gpu: bool = False) -> str:
    import torch

    if torch.cuda.is_available():
        return "cuda"
    if require_gpu:
        raise NoGPUError(
            "this step needs a GPU at full scale but torch sees none: run it on a GPU machine "
            "(or the slurm profile), or pick --config scale=small"
        )
    return "cpu"


def limit_cpu_threads(n: int = 1) -> None:
    """Snakemake runs jobs side by side; one intra-op thread each keeps them from fighting.

    Also makes CPU results reproducible across machines with different core counts.
    """
    if "torch" in sys.modules:
        import torch

        torch.set_num_threads(n)
