"""Offline initial states for MCPMark's filesystem tasks, one module per category.

MCPMark's templates are zips on storage.mcpmark.ai (not in its repository, not reachable
offline); each task's meta.json lists the template's tree. Each module here rebuilds a
category's template to that tree and to what its tasks' descriptions need, from a seed:
`build(root, rng)` fills the empty folder `root`. The verifiers recompute their answers from the
template (MCPMARK_INITIAL_STATE), so a rebuilt template with other content is still judged
right, and the tests build two seeds to show no answer is hard-coded.
"""

from __future__ import annotations

import importlib
import os
import pkgutil
from pathlib import Path

import numpy as np

# Files get this fixed modification time unless a builder sets its own (the time
# classification task sets them on purpose), so a template is byte- and stat-identical
# whenever it is rebuilt from the same seed.
EPOCH = 1_735_689_600  # 2025-01-01 00:00:00 UTC


def categories() -> list[str]:
    return sorted(m.name for m in pkgutil.iter_modules(__path__) if not m.name.startswith("_"))


def build(category: str, out: Path, seed: int) -> Path:
    """Build one category's template into out/<category> (which must not exist)."""
    if category not in categories():
        raise ValueError(f"no template builder for {category!r}; known: "
                         f"{', '.join(categories())}")
    module = importlib.import_module(f"{__name__}.{category}")
    root = out / category
    root.mkdir(parents=True)
    rng = np.random.default_rng([seed, sum(category.encode())])
    module.build(root, rng)
    if not getattr(module, "STAMPS_TIMES", False):  # a builder that sets its own times
        for p in sorted(root.rglob("*"), reverse=True):
            os.utime(p, (EPOCH, EPOCH), follow_symlinks=False)
    os.utime(root, (EPOCH, EPOCH))
    return root
