"""Progress bars and logging for long steps: tqdm to stderr, log lines to the rule's log file."""

from __future__ import annotations

import logging
import sys
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import TypeVar

from tqdm.auto import tqdm

T = TypeVar("T")


def progress(it: Iterable[T], desc: str, total: int | None = None) -> Iterator[T]:
    """A tqdm bar that updates at most twice a second, so log files stay readable."""
    return iter(tqdm(it, desc=desc, total=total, file=sys.stderr, mininterval=0.5, leave=False))


def get_logger(name: str, log_file: str | Path | None = None) -> logging.Logger:
    logger = logging.getLogger(name)
    if not logger.handlers:
        logger.setLevel(logging.INFO)
        fmt = logging.Formatter("%(asctime)s %(name)s %(levelname)s %(message)s")
        h = logging.StreamHandler(sys.stderr)
        h.setFormatter(fmt)
        logger.addHandler(h)
        if log_file is not None:
            Path(log_file).parent.mkdir(parents=True, exist_ok=True)
            fh = logging.FileHandler(log_file)
            fh.setFormatter(fmt)
            logger.addHandler(fh)
    return logger
