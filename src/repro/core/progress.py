"""Progress bars and logging for long steps, and the line that closes every job's log.

A job's stderr is its Snakemake log file. On a terminal `progress` draws a tqdm bar; in a log
file (stderr not a terminal) a redrawn bar would be one endless line of carriage returns, so it
writes one line every PROGRESS_EVERY seconds instead: done/total, percent, rate, elapsed time and
ETA. `job_footer` (installed by every job's argument parser) ends the log with the job's wall
time and peak memory, also when the job fails.
"""

from __future__ import annotations

import atexit
import logging
import os
import resource
import sys
import time
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any, TextIO, TypeVar

from tqdm.auto import tqdm

T = TypeVar("T")

PROGRESS_EVERY = float(os.environ.get("REPRO_PROGRESS_EVERY", "5"))  # seconds, log files
LOG_FORMAT = ("{desc}: {n_fmt}/{total_fmt} ({percentage:.0f}%), {rate_fmt}, "
              "elapsed {elapsed}, ETA {remaining}")
FOOTER = "job finished"  # the footer line starts with this


class _Lines:
    """A stream for tqdm that turns its redraws into whole lines (log files)."""

    def __init__(self, stream: TextIO) -> None:
        self.stream = stream
        self.last = ""

    def write(self, s: str) -> None:
        s = " ".join(s.replace("\r", " ").split())
        if s and s != self.last:  # closing redraws the last state once more
            self.stream.write(s + "\n")
            self.last = s

    def flush(self) -> None:
        self.stream.flush()


def progress(it: Iterable[T], desc: str, total: int | None = None) -> Iterator[T]:
    """A tqdm bar on a terminal (redrawn at most twice a second); in a log file, a line with
    rate and ETA every PROGRESS_EVERY seconds and a last one with the total time."""
    if sys.stderr.isatty():
        return iter(tqdm(it, desc=desc, total=total, file=sys.stderr, mininterval=0.5,
                         leave=False))
    fmt = LOG_FORMAT if total is not None or hasattr(it, "__len__") else (
        "{desc}: {n_fmt} done, {rate_fmt}, elapsed {elapsed}")
    return iter(tqdm(it, desc=desc, total=total, file=_Lines(sys.stderr),
                     mininterval=PROGRESS_EVERY, maxinterval=PROGRESS_EVERY, miniters=1,
                     bar_format=fmt, leave=True, ascii=True, dynamic_ncols=False))


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


def _process_start() -> float:
    """When this process started (epoch seconds): from /proc on Linux, so the wall time
    includes the interpreter's start and the imports; else now."""
    try:
        stat = Path("/proc/self/stat").read_text()
        ticks = int(stat.rsplit(")", 1)[1].split()[19])  # field 22, starttime
        btime = next(int(line.split()[1]) for line in Path("/proc/stat").read_text()
                     .splitlines() if line.startswith("btime"))
        return btime + ticks / os.sysconf("SC_CLK_TCK")
    except (OSError, ValueError, IndexError, StopIteration):
        return time.time()


def peak_memory_mb() -> dict[str, float]:
    """Peak resident memory (MB) of this process and of its finished children, and the peak
    GPU memory torch allocated per device where this process used CUDA."""
    scale = 1 / 1024 ** 2 if sys.platform == "darwin" else 1 / 1024  # bytes vs KB
    out = {"rss": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * scale,
           "children_rss": resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss * scale}
    torch = sys.modules.get("torch")
    try:
        if torch is not None and torch.cuda.is_initialized():
            for i in range(torch.cuda.device_count()):
                out[f"cuda:{i}"] = torch.cuda.max_memory_allocated(i) / 1024 ** 2
    except Exception:  # noqa: BLE001  (a broken CUDA state must not hide the footer)
        pass
    return out


def footer_line(start: float, failed: bool = False) -> str:
    """The job's last log line: its wall time and peak memory."""
    mem = peak_memory_mb()
    parts = [f"peak memory {mem['rss']:.0f} MB"]
    if mem["children_rss"] > 0:
        parts.append(f"children {mem['children_rss']:.0f} MB")
    parts += [f"{k} {v:.0f} MB allocated" for k, v in mem.items() if k.startswith("cuda")]
    status = " (failed)" if failed else ""
    return (f"{FOOTER}{status}: wall time {time.time() - start:.1f} s, " + ", ".join(parts)
            + f" [{os.path.basename(sys.argv[0]) or 'python'} pid {os.getpid()}]")


_state: dict[str, Any] = {}


def job_footer() -> None:
    """At exit, write `footer_line` to stderr (the job's log); once per process, and only in
    a process started as a job (`python -m repro...`), not in one that calls a job's `main`
    in-process (the test suite)."""
    spec = getattr(sys.modules.get("__main__"), "__spec__", None)
    if _state or spec is None or not spec.name.startswith("repro."):
        return
    _state["start"] = _process_start()
    _state["failed"] = False
    previous = sys.excepthook

    def hook(*exc: Any) -> None:
        _state["failed"] = True
        previous(*exc)

    sys.excepthook = hook

    def write() -> None:
        try:
            sys.stderr.write(footer_line(_state["start"], _state["failed"]) + "\n")
            sys.stderr.flush()
        except (OSError, ValueError):
            pass

    atexit.register(write)
