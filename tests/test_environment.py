"""The locked environment: requirements.lock pins every package exactly with hashes, covers
pyproject.toml, agrees with environment.yml and setup.sh, and provenance reports where the
installed environment differs from it."""

from __future__ import annotations

import subprocess
import sys
import tomllib
from pathlib import Path

import pytest
import yaml
from packaging.requirements import Requirement
from packaging.version import Version

from repro.core import lockfile, provenance

ROOT = Path(__file__).resolve().parents[1]
LOCK = ROOT / lockfile.LOCK


@pytest.fixture(scope="module")
def pins() -> dict[str, lockfile.Pin]:
    """The lock as Debian 12's Python 3.11 reads it (whatever Python runs the suite)."""
    return lockfile.read(LOCK, lockfile.PY311_LINUX)


def env(python: str) -> dict[str, str]:
    return {**lockfile.PY311_LINUX, "python_version": python, "python_full_version": python + ".1"}


def test_every_entry_is_an_exact_pin_with_hashes(pins):
    assert len(pins) > 100
    for key, pin in pins.items():
        assert key == lockfile.normalize(pin.name)
        Version(pin.version)  # a valid, exact version
        assert pin.hashes, f"{pin.name} has no --hash"
        assert all(h.startswith("sha256:") and len(h) == 71 for h in pin.hashes)
    # nothing but pins: no options (--index-url, -e), ranges or URLs slip in
    text = LOCK.read_text()
    for line in text.splitlines():
        s = line.strip()
        assert not s or s.startswith(("#", "--hash=")) or "==" in s, line


def test_parse_rejects_what_is_not_a_pin():
    with pytest.raises(ValueError, match="not an exact pin"):
        lockfile.parse("numpy>=2 \\\n    --hash=sha256:" + "0" * 64 + "\n")
    with pytest.raises(ValueError, match="not an exact pin"):
        lockfile.parse("-e .\n")
    with pytest.raises(ValueError, match="pinned twice"):
        lockfile.parse("PyYAML==6.0\npyyaml==6.0.1\n")
    # one entry per Python is one pin on each; two that both hold are not
    forked = "a==1 ; python_version < '3.12'\na==2 ; python_version >= '3.12'\n"
    assert lockfile.parse(forked, env("3.11"))["a"].version == "1"
    assert lockfile.parse(forked, env("3.13"))["a"].version == "2"
    with pytest.raises(ValueError, match="pinned twice"):
        lockfile.parse("a==1 ; python_version >= '3.11'\na==2 ; python_version >= '3.12'\n",
                       env("3.12"))
    p = lockfile.parse("# c\nzc.lockfile==4.0 ; python_version >= '3.9' \\\n"
                       "    --hash=sha256:" + "a" * 64 + "\n    # via dvc\n")
    assert p["zc-lockfile"].version == "4.0" and p["zc-lockfile"].marker == (
        "python_version >= '3.9'") and len(p["zc-lockfile"].hashes) == 1


def test_lock_covers_pyproject(pins):
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())
    reqs = [*project["project"]["dependencies"],
            *project["project"]["optional-dependencies"]["dev"],
            *project["build-system"]["requires"]]  # setup.sh builds without isolation
    env = {"python_version": "3.11", "sys_platform": "linux", "platform_machine": "x86_64",
           "platform_system": "Linux", "os_name": "posix", "extra": "dev"}
    for text in reqs:
        req = Requirement(text)
        if req.marker and not req.marker.evaluate(env):
            continue
        pin = pins.get(lockfile.normalize(req.name))
        assert pin is not None, f"{req.name} (pyproject.toml) is not in {lockfile.LOCK}"
        assert req.specifier.contains(pin.version, prereleases=True), (
            f"{lockfile.LOCK} pins {pin.name}=={pin.version}, outside pyproject's {text}")


def test_torch_is_the_cpu_build_of_the_lock_constraints(pins):
    constraints = [Requirement(line) for line in
                   (ROOT / "scripts/lock-constraints.txt").read_text().splitlines()
                   if line.strip() and not line.startswith("#")]
    on311 = [r for r in constraints if r.name == "torch" and r.marker.evaluate(env("3.11"))]
    assert [str(r.specifier) for r in on311] == [f"=={pins['torch'].version}"]
    assert pins["torch"].version.endswith("+cpu") and len(pins["torch"].hashes) >= 1


@pytest.mark.parametrize("python", ["3.12", "3.13"])
def test_newer_pythons_have_a_whole_lock_with_pypis_torch(pins, python):
    """Ubuntu 24.04 (3.12) and Debian 13 (3.13): every package of the 3.11 lock has one pin,
    with wheels' hashes, and torch is PyPI's build of the same release with its CUDA libraries
    (PyTorch's CPU wheels are outside PyPI, so their hashes are not in the lock)."""
    newer = lockfile.read(LOCK, env(python))
    assert set(pins) <= set(newer)
    torch = newer["torch"]
    assert torch.version == pins["torch"].version.removesuffix("+cpu") and len(torch.hashes) > 4
    assert any(k.startswith("nvidia-") for k in set(newer) - set(pins))
    assert all(p.hashes for p in newer.values())


def test_environment_yml_carries_the_lock(pins):
    env = yaml.safe_load((ROOT / "environment.yml").read_text())
    deps = env["dependencies"]
    assert "python=3.11" in deps and "pip" in deps
    pip = next(d["pip"] for d in deps if isinstance(d, dict))
    listed = {}
    for line in pip:
        if line.startswith("-"):
            assert line in ("-e .", "--extra-index-url https://download.pytorch.org/whl/cpu")
            continue
        req = Requirement(line)
        (spec,) = req.specifier
        assert spec.operator == "==", line
        listed[lockfile.normalize(req.name)] = spec.version
    nodeps = lockfile.read(ROOT / lockfile.NODEPS)
    runtime = {k: p.version for k, p in nodeps.items() if k in lockfile.NODEPS_RUNTIME}
    assert runtime and set(runtime) < set(nodeps)  # the tests-only pins stay out of conda
    assert listed == {**{k: p.version for k, p in pins.items()}, **runtime}, (
        "environment.yml differs from requirements.lock: run bash scripts/lock.sh")
    assert (ROOT / "environment.yml").read_text() == lockfile.conda_env(pins, nodeps=nodeps)


def test_nodeps_pins_are_exact_hashed_and_outside_the_lock(pins):
    """requirements-nodeps.lock: exact pins with hashes, none of them in the lock, installed by
    setup.sh with --no-deps (their declared dependencies are why they cannot join the lock)."""
    nodeps = lockfile.read(ROOT / lockfile.NODEPS)
    assert {"spikingjelly", "torchattacks"} <= set(nodeps)
    for key, pin in nodeps.items():
        Version(pin.version)
        assert pin.hashes and key not in pins, pin.name
    setup = (ROOT / "scripts/setup.sh").read_text()
    assert "pip install -q --no-deps --require-hashes -r requirements-nodeps.lock" in setup


def test_setup_installs_the_lock_with_hashes():
    setup = (ROOT / "scripts/setup.sh").read_text()
    assert "LOCK=requirements.lock" in setup
    assert 'pip install -q --require-hashes -r "$LOCK"' in setup
    assert "--no-deps --no-build-isolation -e ." in setup and "TORCH_SPEC" in setup
    assert "--generate-hashes" in (ROOT / "scripts/lock.sh").read_text()


def test_without_drops_whole_entries(pins):
    text = lockfile.without(LOCK.read_text(), ["torch"])
    rest = lockfile.parse(text, lockfile.PY311_LINUX)
    assert "torch" not in rest and set(rest) == set(pins) - {"torch"}
    assert all(rest[k].hashes == pins[k].hashes for k in rest)


def test_check_cli(tmp_path):
    lock = tmp_path / "lock.txt"
    lock.write_text("pytest==0.0.1 \\\n    --hash=sha256:" + "0" * 64 + "\n")
    run = [sys.executable, str(ROOT / "src/repro/core/lockfile.py"), "check", str(lock)]
    bad = subprocess.run(run, capture_output=True, text=True)
    assert bad.returncode == 1 and "pytest locked 0.0.1, installed" in bad.stderr
    ok = subprocess.run([*run, "--ignore", "pytest"], capture_output=True, text=True)
    assert ok.returncode == 0, ok.stderr


def test_provenance_records_the_lock_and_its_mismatches(tmp_path, monkeypatch):
    pins = lockfile.read(LOCK)  # the entries for the Python that runs the suite, as provenance
    (tmp_path / lockfile.LOCK).write_bytes(LOCK.read_bytes())
    locked = {k: p.version for k, p in pins.items()}
    fake = {**locked, "numpy": "1.0.0"}
    del fake["pyyaml"]
    monkeypatch.setattr(lockfile, "installed_version",
                        lambda name: fake.get(lockfile.normalize(name)))
    prov = provenance.collect("p", "tiny", {"a": 1}, [0], None, root=tmp_path)
    env = prov["environment"]
    assert env["lock"] == lockfile.LOCK and env["lock_sha256"] == lockfile.sha256(LOCK)
    assert env["locked_packages"] == len(pins) and env["matches_lock"] is False
    assert env["differs_from_lock"] == [
        {"package": "numpy", "locked": locked["numpy"], "installed": "1.0.0"},
        {"package": pins["pyyaml"].name, "locked": locked["pyyaml"], "installed": None}]
    assert "environment" not in provenance.footer_text(prov)  # the footer's format is unchanged

    monkeypatch.setattr(lockfile, "installed_version",
                        lambda name: locked.get(lockfile.normalize(name)))
    env = provenance.collect("p", "tiny", {}, [], None, root=tmp_path)["environment"]
    assert env["matches_lock"] is True and env["differs_from_lock"] == []
    assert provenance.lock_state(tmp_path / "nowhere") == {"lock": None}
