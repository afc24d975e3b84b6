"""Peak memory and time of one diffusion-DFL training step, reparameterisation against the
score function, as the number of DDIM sampling steps grows (the paper's memory comparison).

    python -m repro.papers.diffdfl.memory --config src/repro/papers/diffdfl/config.yaml \
        --scale small --data data/diffdfl/small/power.npz \
        --out results/small/diffdfl/memory.json

Each (estimator, steps) configuration runs in its own child process, forked from a parent
that has imported torch and run nothing (so allocator caches of one do not hide another's
peak, and no child pays torch's import): the small-scale diffusion model (weights at
initialisation; memory and time do not depend on their values), one warm-up step, then
`repeats` timed steps of the real training step (`method.dfl_step`, the paper's combined
loss) on a fixed batch. Three measures per step:
- autograd bytes: the distinct tensor storages autograd saves for the backward passes of
  one step (torch.autograd.graph.saved_tensors_hooks, every graph of the step, measured in
  an extra step that holds them all): deterministic, the part that grows with steps;
- peak memory: on CUDA torch.cuda.max_memory_allocated; on CPU the process's peak resident
  set (VmHWM, reset before the step through /proc/self/clear_refs) above its resident set
  just before the step, with glibc made to return freed memory (a fixed mmap threshold for
  the child, malloc_trim before the step) so a cached heap does not hide the step's peak;
- seconds per step (median).
"""

from __future__ import annotations

import multiprocessing as mp
import time
from pathlib import Path
from typing import Any

import numpy as np

from repro.core.config import job_parser
from repro.core.io import write_json
from repro.papers.diffdfl.settings import load

ESTIMATORS = ("dfl_diffusion_rp", "dfl_diffusion_sf")


def _status_kb(field: str) -> int:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1])
    return 0


def _reset_peak() -> bool:
    """Return freed heap memory to the OS, then reset the peak resident set to the current."""
    import ctypes

    try:
        ctypes.CDLL("libc.so.6").malloc_trim(0)
    except OSError:
        pass
    try:
        Path("/proc/self/clear_refs").write_text("5")
        return True
    except OSError:
        return False


def measure_one(config: str, scale: str, data: str, method: str, steps: int) -> dict[str, Any]:
    """One configuration, in the calling process (run it in a fresh one)."""
    from dataclasses import replace

    import torch

    from repro.core.device import limit_cpu_threads, pick_device
    from repro.papers.diffdfl.method import dfl_step
    from repro.papers.diffdfl.models import Diffusion
    from repro.papers.diffdfl.problems import make_problem

    cfg = load(config, scale)
    limit_cpu_threads(cfg.threads)
    torch.manual_seed(0)
    device = pick_device()
    mc = cfg.memory
    with np.load(data) as z:
        x = torch.as_tensor(z["x"][: mc.batch], dtype=torch.float32, device=device)
        y = torch.as_tensor(z["y"][: mc.batch], dtype=torch.float32, device=device)
    model = Diffusion(x.shape[1], y.shape[1],
                      replace(cfg.models.diffusion, sample_steps=steps)).to(device)
    model.set_scale(y)
    opt = torch.optim.Adam(model.parameters(), lr=cfg.dfl.lr)
    problem = make_problem(mc.task, cfg)
    gen = torch.Generator().manual_seed(0)

    def step() -> None:
        dfl_step(method, model, opt, problem, x, y, mc.mc_samples, cfg.dfl.alpha,
                 cfg.dfl.sf_timesteps, cfg.dfl.sf_weighting, gen)

    step()  # warm-up: allocator, solver set-up, first-call costs
    secs, peaks = [], []
    for _ in range(mc.repeats):
        if device == "cuda":
            torch.cuda.synchronize()
            torch.cuda.reset_peak_memory_stats()
            base = torch.cuda.memory_allocated()
        else:
            reset = _reset_peak()
            base = _status_kb("VmRSS") * 1024
        t0 = time.perf_counter()
        step()
        if device == "cuda":
            torch.cuda.synchronize()
            peaks.append(torch.cuda.max_memory_allocated() - base)
        else:
            peaks.append(_status_kb("VmHWM") * 1024 - base if reset else float("nan"))
        secs.append(time.perf_counter() - t0)
    # one more step for the autograd bytes: every saved tensor is held to the end of the step,
    # so no storage is freed and its address reused (distinct storages, counted once each)
    held: list[torch.Tensor] = []

    def pack(t: torch.Tensor) -> torch.Tensor:
        held.append(t)
        return t

    with torch.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
        step()
    storages = {t.untyped_storage().data_ptr(): t.untyped_storage().nbytes() for t in held}
    saved_bytes = sum(storages.values())
    held.clear()
    return {"method": method, "sample_steps": steps, "device": device,
            "peak_bytes": float(np.median(peaks)), "saved_bytes": float(saved_bytes),
            "secs_per_step": float(np.median(secs)),
            "peak_measure": "cuda max_memory_allocated" if device == "cuda"
            else "VmHWM above VmRSS before the step"}


def _child(args: tuple, q: Any) -> None:
    try:
        q.put(measure_one(*args))
    except BaseException as e:  # the parent reports it
        q.put({"error": f"{type(e).__name__}: {e}"})


def main(argv: list[str] | None = None) -> None:
    ap = job_parser(__doc__.splitlines()[0])
    ap.add_argument("--data", required=True, type=Path)
    a = ap.parse_args(argv)
    cfg = load(a.config, a.scale)
    import os

    # the children's large tensors come from mmap and go back on free (no dynamic threshold;
    # glibc reads it at start-up, so the parent re-executes itself once with it set)
    if os.environ.get("MALLOC_MMAP_THRESHOLD_") is None:
        import sys

        os.environ["MALLOC_MMAP_THRESHOLD_"] = str(128 * 1024)
        os.execv(sys.executable, [sys.executable, "-m", "repro.papers.diffdfl.memory",
                                  *(argv if argv is not None else sys.argv[1:])])
    import torch  # noqa: F401  (imported once here, inherited by every forked child)

    ctx = mp.get_context("spawn" if torch.cuda.is_available() else "fork")
    rows = []
    for steps in cfg.memory.sample_steps:
        for method in ESTIMATORS:
            q = ctx.Queue()
            p = ctx.Process(target=_child, args=((str(a.config), a.scale, str(a.data), method,
                                                  steps), q))
            p.start()
            r = q.get()
            p.join()
            if "error" in r:
                raise SystemExit(f"memory: {method} at {steps} steps failed: {r['error']}")
            print(f"{method} steps={steps}: autograd {r['saved_bytes'] / 2**20:.1f} MiB, peak "
                  f"{r['peak_bytes'] / 2**20:.1f} MiB, {r['secs_per_step']:.3f} s/step",
                  flush=True)
            rows.append(r)
    write_json(a.out, {"task": cfg.memory.task, "batch": cfg.memory.batch,
                       "mc_samples": cfg.memory.mc_samples, "rows": rows})


if __name__ == "__main__":
    main()
