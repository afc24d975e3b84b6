"""Resumable long loops: a job that is stopped (SIGTERM, SIGINT, a SLURM time limit or
preemption) or killed picks up where it was when it is run again, and ends with the same bytes
as a run that was never interrupted.

    with Resumable(out, key={"settings": ..., "seed": seed}, every=cfg.checkpoint_every,
                   total=steps, rngs={"rng": rng, "gen": gen}, inputs=[data]) as ck:
        st = ck.load()                            # None, or the state saved last
        if st: model.load_state_dict(st["model"]); ...
        for step in range(ck.start, steps):
            ...                                   # one step of the loop
            ck.step(step + 1, lambda: {"model": model.state_dict(), ...})
        write the outputs (atomically)
    # leaving the block normally removes the saved state; an exception keeps it

What is saved, in `<out's directory>/.<out's name>.resume/state.pt` (written to a temporary
file, then renamed: a kill never leaves a torn one): the loop's own state (model, optimiser,
counters, logs so far: what `step` is given), the named generators (`rngs`: numpy Generators and
torch Generators) and the global RNG states (python `random`, numpy's legacy global state,
torch's CPU and CUDA generators). `load` restores all of them, so the rest of the run draws the
same numbers as an uninterrupted one (on CPU, byte-identical outputs).

When: every `every` steps (0: never by count), every `REPRO_CHECKPOINT_MINUTES` minutes of wall
time (default 30; 0: never by time), and when a stop signal arrives. Frequency never changes a
result, so it is left out of the key.

The key: a sha256 of `key` (the job's settings and arguments; drop the checkpoint frequency
from it, see `settings_key`), the size and mtime of each file under `inputs`, the source of
every `repro` module the job has imported, and the numpy (and torch) versions. A saved state made
for another key (settings, inputs or code changed since) is discarded and the job starts over,
saying so.

A loop over independent units (cells of a grid, seeds, sources) needs no state of its own
beyond the results so far: `ck.map(fn, items)` runs `fn` on each item in order, saving the
list of finished results as the state, and on a rerun starts after the last one saved.

Blocks nest (a job made of several resumable loops, each with its own `out`): a stop signal
that reaches an inner block after its last step is passed on to the enclosing block when the
inner one ends, so the job still stops at the next boundary of the outer loop; one that reached
the outer block between inner loops makes the next inner loop stop at its first boundary.

Signals: inside the block SIGTERM and SIGINT do not kill the job at once. The step that is
running finishes, the state is saved, and the job exits with status 128 + the signal (143, 130).
If no step boundary is reached within `REPRO_STOP_GRACE_S` seconds (default 20: SLURM's
default KillWait is 30), the job exits without saving; the last saved state stays. A second
SIGINT (Ctrl-C again, two seconds or more after the first) stops at once.
"""

from __future__ import annotations

import hashlib
import importlib.metadata
import json
import os
import pickle
import random
import shutil
import signal
import sys
import threading
import time
import zipfile
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from repro.core.io import atomic_path
from repro.core.progress import get_logger

log = get_logger("resume")

STOP_SIGNALS = (signal.SIGTERM, signal.SIGINT)
FORMAT = 1
PACKAGE_DIR = Path(__file__).resolve().parents[1]  # src/repro


def resume_dir(out: str | os.PathLike[str]) -> Path:
    """Where a job writing `out` keeps its saved state: a hidden sibling of `out` (Snakemake
    removes a failed job's outputs, never this)."""
    out = Path(out)
    return out.parent / f".{out.name}.resume"


def settings_key(settings: Any, drop: Iterable[str] = ("checkpoint_every",)) -> Any:
    """`settings` (nested dicts and lists) without the keys in `drop`, at every depth: how
    often a job saves its state never changes what it computes."""
    drop = frozenset(drop)
    if isinstance(settings, Mapping):
        return {str(k): settings_key(v, drop) for k, v in settings.items() if k not in drop}
    if isinstance(settings, list | tuple):
        return [settings_key(v, drop) for v in settings]
    return settings


def code_fingerprint() -> dict[str, str]:
    """sha256 of the source of every module of this package the process has imported (and of
    its `__main__`; not of aliases such as a warm server's `__mp_main__`)."""
    out = {}
    for name, mod in list(sys.modules.items()):
        if not (name == "__main__" or name == "repro" or name.startswith("repro.")):
            continue
        f = getattr(mod, "__file__", None)
        if not f:
            continue
        p = Path(f).resolve()
        if p.suffix == ".py" and PACKAGE_DIR in p.parents:
            out[str(p.relative_to(PACKAGE_DIR))] = hashlib.sha256(p.read_bytes()).hexdigest()
    return dict(sorted(out.items()))


def input_stamps(paths: Iterable[str | os.PathLike[str]]) -> list[list[Any]]:
    """(path, size, mtime_ns) of each file under `paths` (files or directories)."""
    rows = []
    for p in map(Path, paths):
        files = sorted(q for q in p.rglob("*") if q.is_file()) if p.is_dir() else [p]
        for q in files:
            try:
                st = q.stat()
            except OSError:
                rows.append([str(q), None, None])
                continue
            rows.append([str(q), st.st_size, st.st_mtime_ns])
    return rows


def _global_rng() -> dict[str, Any]:
    import numpy as np

    out: dict[str, Any] = {"python": random.getstate(), "numpy": np.random.get_state()}
    if "torch" in sys.modules:
        import torch

        out["torch"] = torch.get_rng_state()
        if torch.cuda.is_available() and torch.cuda.is_initialized():
            out["cuda"] = torch.cuda.get_rng_state_all()
    return out


def _set_global_rng(st: Mapping[str, Any]) -> None:
    import numpy as np

    random.setstate(st["python"])
    np.random.set_state(st["numpy"])
    if "torch" in st:
        import torch

        torch.set_rng_state(st["torch"].cpu())  # RNG states are CPU tensors, wherever loaded
        if "cuda" in st and torch.cuda.is_available() \
                and torch.cuda.device_count() == len(st["cuda"]):
            torch.cuda.set_rng_state_all([s.cpu() for s in st["cuda"]])


def _rng_state(g: Any) -> Any:
    if hasattr(g, "bit_generator"):  # numpy Generator
        return g.bit_generator.state
    return g.get_state()  # torch.Generator


def _set_rng_state(g: Any, st: Any) -> None:
    if hasattr(g, "bit_generator"):
        g.bit_generator.state = st
    else:
        g.set_state(st.cpu())  # a CUDA generator's state too is a CPU tensor


def _dist_version(name: str) -> str | None:
    try:
        return importlib.metadata.version(name)
    except importlib.metadata.PackageNotFoundError:
        return None


def _env_float(name: str, default: float) -> float:
    try:
        return float(os.environ.get(name, default))
    except ValueError:
        return default


class Resumable:
    """Periodic, signal-aware saving and resuming of one job's loop (see the module doc)."""

    def __init__(self, out: str | os.PathLike[str], key: Any, *, every: int = 0,
                 total: int | None = None, rngs: Mapping[str, Any] | None = None,
                 inputs: Iterable[str | os.PathLike[str]] = (), what: str = "job",
                 map_location: Any = None) -> None:
        import numpy as np

        self.dir = resume_dir(out)
        self.path = self.dir / "state.pt"
        self.every = int(every or 0)
        self.every_s = 60.0 * _env_float("REPRO_CHECKPOINT_MINUTES", 30.0)
        self.grace_s = _env_float("REPRO_STOP_GRACE_S", 20.0)
        self.total = total
        self.rngs = dict(rngs or {})
        self.what = what
        self.map_location = map_location
        # torch's version from its metadata: numpy-only jobs never pay torch's import, and the
        # key is the same whether or not the process happened to load it (a warm fork has)
        versions = {"numpy": np.__version__, "torch": _dist_version("torch")}
        blob = json.dumps({"key": key, "inputs": input_stamps(inputs), "code": code_fingerprint(),
                           "versions": versions, "format": FORMAT},
                          sort_keys=True, default=str)
        self.key = hashlib.sha256(blob.encode()).hexdigest()
        self.start = 0  # the step the loop starts from (set by load)
        self.saved_step: int | None = None
        self.stop_signal: int | None = None
        self._stop_at = 0.0
        self._last_save = time.monotonic()
        self._timer: threading.Timer | None = None
        self._previous: dict[int, Any] = {}

    # ------------------------------------------------------------------ signals
    def __enter__(self) -> Resumable:
        if threading.current_thread() is threading.main_thread():
            for sig in STOP_SIGNALS:
                self._previous[sig] = signal.signal(sig, self._on_signal)
        outer = self._outer()
        if outer is not None and outer.stop_signal is not None:
            # the enclosing block was told to stop before this one began: stop at this
            # loop's first boundary rather than run it through
            self.stop_signal, self._stop_at = outer.stop_signal, outer._stop_at
        return self

    def _outer(self) -> Resumable | None:
        """The enclosing block whose handler this one replaced, if any."""
        handler = self._previous.get(signal.SIGTERM)
        owner = getattr(handler, "__self__", None)
        return owner if isinstance(owner, Resumable) else None

    def __exit__(self, exc_type: Any, exc: Any, tb: Any) -> None:
        if self._timer is not None:
            self._timer.cancel()
        outer = self._outer()
        for sig, handler in self._previous.items():
            signal.signal(sig, handler)
        self._previous.clear()
        if exc_type is None:
            shutil.rmtree(self.dir, ignore_errors=True)
            # a stop signal that came after the last step: the enclosing block acts on it
            if outer is not None and outer.stop_signal is None and self.stop_signal is not None:
                outer._on_signal(self.stop_signal, None)

    def _on_signal(self, signum: int, _frame: Any) -> None:
        name = signal.Signals(signum).name
        if self.stop_signal is not None:
            if signum == signal.SIGINT and time.monotonic() - self._stop_at >= 2.0:
                raise KeyboardInterrupt  # Ctrl-C again: stop now, the last saved state stays
            return
        self.stop_signal, self._stop_at = signum, time.monotonic()
        log.info("%s: %s received: stopping at the end of this step (state saved for a rerun "
                 "to resume)", self.what, name)
        if self.grace_s > 0:
            self._timer = threading.Timer(self.grace_s, self._expire)
            self._timer.daemon = True
            self._timer.start()

    def _expire(self) -> None:
        last = "none" if self.saved_step is None else f"step {self.saved_step}"
        log.info("%s: no step ended within %.0fs of the stop signal: exiting without saving "
                 "(last saved state: %s)", self.what, self.grace_s, last)
        for stream in (sys.stdout, sys.stderr):
            try:
                stream.flush()
            except (OSError, ValueError):
                pass
        os._exit(128 + int(self.stop_signal or signal.SIGTERM))

    # ------------------------------------------------------------------ state
    def load(self) -> dict[str, Any] | None:
        """The state saved last, with every generator restored, or None (nothing saved, or
        saved for another key: then it is removed and the job starts over)."""
        if not self.path.exists():
            return None
        try:
            if zipfile.is_zipfile(self.path):  # torch.save's format
                import torch

                saved = torch.load(self.path, map_location=self.map_location,
                                   weights_only=False)
            else:
                with open(self.path, "rb") as f:
                    saved = pickle.load(f)
        except Exception as e:  # noqa: BLE001 - unreadable: start over, saying why
            log.info("%s: saved state %s is unreadable (%s): starting over",
                     self.what, self.path, e)
            shutil.rmtree(self.dir, ignore_errors=True)
            return None
        if not isinstance(saved, dict) or saved.get("key") != self.key:
            log.info("%s: saved state %s was made for other settings, inputs or code: "
                     "starting over", self.what, self.path)
            shutil.rmtree(self.dir, ignore_errors=True)
            return None
        _set_global_rng(saved["global_rng"])
        for name, g in self.rngs.items():
            _set_rng_state(g, saved["rngs"][name])
        self.start = self.saved_step = int(saved["step"])
        of = f" of {self.total}" if self.total is not None else ""
        log.info("%s: resuming at step %d%s from %s", self.what, self.start, of, self.path)
        return saved["state"]

    def save(self, step: int, state: Mapping[str, Any]) -> None:
        """Save `state` as the state after `step` steps (atomically): with torch.save in a
        job that uses torch (tensors, any device), else with pickle."""
        saved = {"format": FORMAT, "key": self.key, "step": int(step), "state": dict(state),
                 "global_rng": _global_rng(),
                 "rngs": {n: _rng_state(g) for n, g in self.rngs.items()}}
        with atomic_path(self.path) as tmp:
            if "torch" in sys.modules:
                sys.modules["torch"].save(saved, tmp)
            else:
                with open(tmp, "wb") as f:
                    pickle.dump(saved, f, protocol=pickle.HIGHEST_PROTOCOL)
        self.saved_step = int(step)
        self._last_save = time.monotonic()

    def map(self, fn: Callable[[Any], Any], items: Sequence[Any]) -> list[Any]:
        """`[fn(x) for x in items]`, resumable: the results so far are the saved state, so a
        rerun starts after the last item saved (`fn` must draw its randomness from the item,
        or from generators passed as `rngs`)."""
        items = list(items)
        if self.total is None:
            self.total = len(items)
        elif self.total != len(items):
            raise ValueError(f"{self.what}: total {self.total} but {len(items)} items")
        st = self.load()
        done = list(st["done"]) if st else []
        if len(done) != self.start:
            raise ValueError(f"{self.what}: saved state has {len(done)} results for step "
                             f"{self.start}")
        for i in range(len(done), len(items)):
            done.append(fn(items[i]))
            self.step(i + 1, lambda: {"done": done})
        return done

    def step(self, done: int, state: Callable[[], Mapping[str, Any]]) -> None:
        """Call after each step, `done` steps in all: saves `state()` when one is due or a stop
        signal came, then exits (status 128 + the signal) if one came. Never saves or stops
        after the last step (`total`): the job is about to write its outputs."""
        if self.total is not None and done >= self.total:
            if self._timer is not None:  # stopping now would only lose the finished run
                self._timer.cancel()
            return
        stop = self.stop_signal
        due = (self.every and done % self.every == 0) or (
            self.every_s > 0 and time.monotonic() - self._last_save >= self.every_s)
        if stop is not None and self._timer is not None:
            self._timer.cancel()  # at a boundary now: the save below is the last thing done
        if due or stop is not None:
            self.save(done, state())
        if stop is not None:
            log.info("%s: stopped by %s after step %d%s; run it again to resume", self.what,
                     signal.Signals(stop).name, done,
                     f" of {self.total}" if self.total is not None else "")
            raise SystemExit(128 + int(stop))
