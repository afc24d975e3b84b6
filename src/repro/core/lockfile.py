"""The committed lock (`requirements.lock`): exact, hash-checked versions of everything
`pip install -e ".[dev]"` installs on Python >= 3.11. It is universal (`uv pip compile
--universal`): an entry may carry an environment marker, and a package may have one entry per
Python (torch: the CPU build on 3.11, PyPI's build on 3.12 and newer, for PyTorch publishes its
CPU builds outside PyPI and their hashes cannot be taken here); the entries whose markers hold
for an interpreter are its lock.

`scripts/lock.sh` writes it (`uv pip compile --generate-hashes`) and environment.yml's pins
from it (`conda_env`); `scripts/setup.sh` installs it with `pip install --require-hashes` and
asks `check` first, so a rerun that finds the environment already matching costs well under a
second; provenance records the lock's sha256 and every locked package whose installed version
differs (`mismatches`).

Standard library only (plus `packaging`, or the copy pip carries before anything is installed,
for markers and versions), so setup.sh can run this file as a script in a bare venv:

    python src/repro/core/lockfile.py check requirements.lock [--ignore torch] [--editable .]
    python src/repro/core/lockfile.py conda requirements.lock     # environment.yml's text
    python src/repro/core/lockfile.py without requirements.lock torch   # the lock less torch
"""

from __future__ import annotations

import hashlib
import json
import re
import sys
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path
from urllib.parse import unquote, urlparse

LOCK = "requirements.lock"
# pins installed with --no-deps after the lock (the file says why); conda users get the runtime
# ones, whose declared dependencies pip resolves there against the CPU index's torch
NODEPS = "requirements-nodeps.lock"
NODEPS_RUNTIME = ("spikingjelly",)
_PIN = re.compile(r"^([A-Za-z0-9][A-Za-z0-9._-]*)(\[[^\]]*\])?\s*==\s*([^\s;\\]+)\s*(;[^\\#]*)?")
_HASH = re.compile(r"--hash=(sha256:[0-9a-f]{64})")


@dataclass(frozen=True)
class Pin:
    name: str  # as the lock writes it
    version: str
    hashes: tuple[str, ...]
    marker: str | None = None
    text: str = ""  # the entry's lines, continuation and hashes included


def normalize(name: str) -> str:
    """PEP 503 name: `PyYAML`, `pyyaml` and `py_yaml` compare equal."""
    return re.sub(r"[-_.]+", "-", name).lower()


def _entries(text: str) -> Iterable[str]:
    """The lock's requirement entries, each with its continuation lines, comments dropped."""
    entry: list[str] = []
    for line in text.splitlines():
        if entry:
            entry.append(line)
        elif line.strip() and not line.lstrip().startswith("#"):
            entry = [line]
        else:
            continue
        if not line.rstrip().endswith("\\"):
            yield "\n".join(entry)
            entry = []
    if entry:
        yield "\n".join(entry)


# the environment environment.yml and the suite's lock checks speak for: Debian 12's Python
PY311_LINUX = {"python_version": "3.11", "python_full_version": "3.11.2", "sys_platform": "linux",
               "platform_system": "Linux", "platform_machine": "x86_64", "os_name": "posix",
               "implementation_name": "cpython", "platform_python_implementation": "CPython"}


def marker_holds(marker: str | None, environment: Mapping[str, str] | None = None) -> bool:
    """Whether a PEP 508 marker holds for `environment` (default: this interpreter)."""
    if not marker:
        return True
    try:
        from packaging.markers import Marker
    except ImportError:  # a bare venv: the copy pip vendors
        from pip._vendor.packaging.markers import Marker
    return Marker(marker).evaluate(dict(environment) if environment else None)


def parse(text: str, environment: Mapping[str, str] | None = None) -> dict[str, Pin]:
    """Normalized name -> Pin, for the entries whose markers hold in `environment` (default:
    this interpreter). Raises ValueError on an entry that is not `name==version` (an option
    line, a range, a URL: a lock pins every package exactly) and on two entries of one package
    that both hold."""
    out: dict[str, Pin] = {}
    for entry in _entries(text):
        first = entry.splitlines()[0].strip()
        m = _PIN.match(first)
        if not m:
            raise ValueError(f"not an exact pin: {first!r}")
        name, version, marker = m.group(1), m.group(3), m.group(4)
        marker = marker[1:].strip() if marker else None
        if not marker_holds(marker, environment):
            continue
        key = normalize(name)
        if key in out:
            raise ValueError(f"{name} pinned twice")
        out[key] = Pin(name, version, tuple(_HASH.findall(entry)), marker, entry)
    return out


def read(path: str | Path = LOCK, environment: Mapping[str, str] | None = None
         ) -> dict[str, Pin]:
    return parse(Path(path).read_text(), environment)


def sha256(path: str | Path = LOCK) -> str:
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


def _same_version(a: str, b: str) -> bool:
    if a == b:
        return True
    try:
        from packaging.version import InvalidVersion, Version
    except ImportError:  # before anything is installed: string comparison only
        return False
    try:
        return Version(a) == Version(b)
    except InvalidVersion:
        return False


def installed_version(name: str) -> str | None:
    try:
        return metadata.version(name)
    except metadata.PackageNotFoundError:
        return None


def mismatches(pins: Mapping[str, Pin], ignore: Iterable[str] = (),
               installed: Callable[[str], str | None] | None = None) -> list[dict]:
    """Each locked package whose installed version differs from the lock (installed None:
    missing), sorted by name. `installed` maps a name to its version (default
    `installed_version`, looked up at call time so tests can fake it)."""
    installed = installed or installed_version
    skip = {normalize(n) for n in ignore}
    out = []
    for key, pin in sorted(pins.items()):
        if key in skip:
            continue
        have = installed(pin.name)
        if have is None or not _same_version(have, pin.version):
            out.append({"package": pin.name, "locked": pin.version, "installed": have})
    return out


def editable_at(name: str, root: str | Path) -> bool:
    """Whether `name` is installed editable (pip install -e) from the directory `root`."""
    try:
        raw = metadata.distribution(name).read_text("direct_url.json")
    except metadata.PackageNotFoundError:
        return False
    try:
        info = json.loads(raw or "")
    except ValueError:
        return False
    url = urlparse(info.get("url", ""))
    return (url.scheme == "file" and bool(info.get("dir_info", {}).get("editable"))
            and Path(unquote(url.path)).resolve() == Path(root).resolve())


def without(text: str, names: Iterable[str]) -> str:
    """The lock's text less the entries of `names` (setup.sh with TORCH_SPEC: all but torch)."""
    drop = {normalize(n) for n in names}
    keep = [e for e in _entries(text)
            if normalize(_PIN.match(e.splitlines()[0].strip()).group(1)) not in drop]
    return "\n".join(keep) + "\n"


def conda_env(pins: Mapping[str, Pin], python: str = "3.11",
              nodeps: Mapping[str, Pin] | None = None) -> str:
    """environment.yml with the lock's exact versions (conda gives Python and pip only, so
    every Python package is the lock's; pip cannot check hashes next to `-e .`)."""
    lines = [
        "# Conda users: `conda env create -f environment.yml && conda activate papers-repro`",
        "# (or `snakemake --use-conda`). Generated by scripts/lock.sh from requirements.lock:",
        "# the same exact versions (without the hashes, which pip cannot check beside `-e .`);",
        "# do not edit by hand. torch is the CPU build, from download.pytorch.org's CPU index.",
        "name: papers-repro",
        "channels: [conda-forge]",
        "dependencies:",
        f"  - python={python}",
        "  - pip",
        "  - pip:",
        "      - --extra-index-url https://download.pytorch.org/whl/cpu",
    ]
    extra = {k: p for k, p in (nodeps or {}).items() if k in NODEPS_RUNTIME}
    for _, pin in sorted({**pins, **extra}.items()):
        marker = f"; {pin.marker}" if pin.marker else ""
        lines.append(f"      - {pin.name}=={pin.version}{marker}")
    lines.append("      - -e .")
    return "\n".join(lines) + "\n"


def main(argv: list[str]) -> int:
    import argparse

    ap = argparse.ArgumentParser(prog="lockfile.py", description=__doc__.split("\n\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    c = sub.add_parser("check", help="exit 0 when the environment matches the lock")
    c.add_argument("lock")
    c.add_argument("--ignore", action="append", default=[], help="a package not to check")
    c.add_argument("--editable", metavar="ROOT", help="also require `repro` editable from ROOT")
    c.add_argument("-q", "--quiet", action="store_true")
    e = sub.add_parser("conda", help="print environment.yml for the lock")
    e.add_argument("lock")
    w = sub.add_parser("without", help="print the lock less some packages")
    w.add_argument("lock")
    w.add_argument("names", nargs="+")
    args = ap.parse_args(argv)
    if args.cmd == "conda":
        side = Path(args.lock).parent / NODEPS
        nodeps = read(side, PY311_LINUX) if side.exists() else None
        sys.stdout.write(conda_env(read(args.lock, PY311_LINUX), nodeps=nodeps))
        return 0
    if args.cmd == "without":
        sys.stdout.write(without(Path(args.lock).read_text(), args.names))
        return 0
    bad = mismatches(read(args.lock), args.ignore)
    if args.editable and not editable_at("repro", args.editable):
        bad.append({"package": "repro", "locked": f"editable from {args.editable}",
                    "installed": None})
    if bad and not args.quiet:
        for b in bad[:20]:
            print(f"lockfile: {b['package']} locked {b['locked']}, installed {b['installed']}",
                  file=sys.stderr)
        if len(bad) > 20:
            print(f"lockfile: ... and {len(bad) - 20} more", file=sys.stderr)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
