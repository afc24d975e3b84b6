"""Where a result came from: the commit (and whether the tree was dirty), a hash of the paper's
resolved settings, the seeds, Python and key package versions, the environment against the
committed lock (the lock's sha256 and every locked package installed at another version, or
missing: with the lock, the versions of everything installed), the CPU/GPU, and each job's
wall time (Snakemake's `benchmark:` file of every rule, under logs/<scale>/<id>/benchmarks).

The report's last step (`write_ledger`) stamps it into claims.json, as the footer of
claims.md and of every Markdown table, and into every figure's PNG metadata; summary.md
repeats it per paper. Provenance changes from run to run (date, wall times), so same-seed
comparisons strip it first (`strip_footer`, `without_provenance`).
"""

from __future__ import annotations

import csv
import datetime as dt
import hashlib
import json
import platform
import subprocess
from collections.abc import Iterable, Mapping
from importlib import metadata
from pathlib import Path
from typing import Any

FOOTER = "<!-- provenance -->"
PACKAGES = ("torch", "transformers", "numpy", "scipy", "pandas", "scikit-learn", "gymnasium",
            "pyriemann", "snakemake")


def _git(root: Path, *args: str) -> str | None:
    try:
        proc = subprocess.run(["git", *args], cwd=root, capture_output=True, text=True,
                              timeout=30)
    except (OSError, subprocess.TimeoutExpired):
        return None
    return proc.stdout.strip() if proc.returncode == 0 else None


def git_state(root: Path) -> dict[str, Any]:
    """The checkout's commit and whether tracked files differ from it (None outside git)."""
    commit = _git(root, "rev-parse", "HEAD")
    if commit is None:
        return {"commit": None, "dirty": None}
    changes = _git(root, "status", "--porcelain", "--untracked-files=no")
    return {"commit": commit, "dirty": bool(changes)}


def settings_hash(settings: Mapping[str, Any]) -> str:
    """sha256 of the resolved settings as canonical JSON: equal hashes, equal settings."""
    text = json.dumps(settings, sort_keys=True, separators=(",", ":"), default=str)
    return hashlib.sha256(text.encode()).hexdigest()


def cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def gpu_models() -> list[str]:
    """The GPUs nvidia-smi lists (none on a CPU machine); torch is not imported for this."""
    try:
        out = subprocess.run(["nvidia-smi", "--query-gpu=name", "--format=csv,noheader"],
                             capture_output=True, text=True, timeout=20)
    except (OSError, subprocess.TimeoutExpired):
        return []
    return [ln.strip() for ln in out.stdout.splitlines() if ln.strip()] if (
        out.returncode == 0) else []


def versions(packages: Iterable[str] = PACKAGES) -> dict[str, str]:
    out = {}
    for name in packages:
        try:
            out[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            pass
    return out


def lock_state(root: Path = Path(".")) -> dict[str, Any]:
    """The environment against `requirements.lock` at `root`: the lock's sha256, how many
    packages it pins, and each one whose installed version differs from it (installed None:
    missing); `matches_lock` when none does. {"lock": None} without a lock."""
    # Imported here: the lock check records how a result was made, never a value in it, so it
    # is not an input of the report rules (repro.publish.METADATA_CODE).
    from repro.core import lockfile

    path = Path(root) / lockfile.LOCK
    if not path.is_file():
        return {"lock": None}
    try:
        pins = lockfile.read(path)
    except (OSError, ValueError) as e:
        return {"lock": lockfile.LOCK, "error": f"unreadable lock: {e}"}
    diff = lockfile.mismatches(pins)
    return {"lock": lockfile.LOCK, "lock_sha256": lockfile.sha256(path),
            "locked_packages": len(pins), "matches_lock": not diff, "differs_from_lock": diff}


def job_seconds(bench_dir: Path) -> dict[str, float]:
    """Wall seconds of each finished job from its Snakemake benchmark file (name -> s)."""
    out = {}
    for f in sorted(Path(bench_dir).glob("*.tsv")):
        try:
            with open(f) as fh:
                row = next(csv.DictReader(fh, delimiter="\t"))
            out[f.stem] = round(float(row["s"]), 3)
        except (OSError, StopIteration, KeyError, ValueError):
            continue
    return out


def collect(paper: str, scale: str, settings: Mapping[str, Any], seeds: Iterable[Any],
            bench_dir: Path | None, root: Path = Path(".")) -> dict[str, Any]:
    jobs = job_seconds(bench_dir) if bench_dir else {}
    return {
        "paper": paper, "scale": scale, **git_state(root),
        "settings_sha256": settings_hash(settings),
        "seeds": sorted({s for s in seeds if s is not None}, key=lambda s: (str(type(s)), s)),
        "python": platform.python_version(), "packages": versions(),
        "environment": lock_state(root),
        "cpu": cpu_model(), "gpus": gpu_models(),
        "date": dt.datetime.now(dt.UTC).strftime("%Y-%m-%d %H:%M UTC"),
        "job_seconds": jobs, "jobs": len(jobs), "job_seconds_total": round(sum(jobs.values()), 1),
    }


def footer_text(p: Mapping[str, Any]) -> str:
    """One line a reader can check a table against."""
    commit = (p["commit"][:10] + (" (dirty tree)" if p["dirty"] else "")) if p.get(
        "commit") else "no git checkout"
    pkgs = ", ".join(f"{k} {v}" for k, v in sorted(p.get("packages", {}).items()))
    gpus = ", ".join(p.get("gpus") or []) or "none"
    return (f"Provenance: {p['paper']} at scale {p['scale']}; commit {commit}; settings "
            f"sha256 {p['settings_sha256'][:12]}; seeds {', '.join(map(str, p['seeds'])) or '-'}"
            f"; Python {p['python']}, {pkgs}; CPU {p['cpu']}; GPU {gpus}; {p['jobs']} jobs, "
            f"{p['job_seconds_total']:g} s of job wall time; {p['date']}.")


def footer(p: Mapping[str, Any]) -> str:
    return f"\n{FOOTER}\n_{footer_text(p)}_\n"


def strip_footer(text: str) -> str:
    """The Markdown without its provenance footer (what same-seed comparisons compare)."""
    i = text.find(f"\n{FOOTER}\n")
    return text if i < 0 else text[:i]


def without_provenance(obj: Any) -> Any:
    return {k: v for k, v in obj.items() if k != "provenance"} if isinstance(obj, dict) else obj


def stamp_markdown(path: Path, p: Mapping[str, Any]) -> None:
    from repro.core.io import write_text

    write_text(path, strip_footer(path.read_text()).rstrip("\n") + "\n" + footer(p))


def stamp_png(path: Path, p: Mapping[str, Any]) -> None:
    """The provenance line as the PNG's Description text chunk (the figure's caption field)."""
    from PIL import Image, PngImagePlugin

    from repro.core.io import atomic_path

    with Image.open(path) as im:
        im.load()
        info = PngImagePlugin.PngInfo()
        for k, v in im.text.items() if hasattr(im, "text") else []:
            if k != "Description":
                info.add_text(k, v)
        info.add_text("Description", footer_text(p))
        with atomic_path(path) as tmp:
            im.save(tmp, format="PNG", pnginfo=info)


def stamp_outputs(out: Path, p: Mapping[str, Any]) -> None:
    """Footer on every Markdown table under out/tables, caption on every PNG under out."""
    for md in sorted((out / "tables").glob("*.md")):
        stamp_markdown(md, p)
    for png in sorted(out.rglob("*.png")):
        stamp_png(png, p)
