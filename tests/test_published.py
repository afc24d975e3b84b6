"""Published results (python -m repro publish / status): every committed ledger recomputes from
its committed records with the current core/claims.py, every paper README shows exactly what is
published, and publish/status work end to end on a finished tiny run in a git checkout."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from conftest import REPO, copy_finished, edit

from repro import publish as pub
from repro.core.provenance import strip_footer

PUBLISHED = sorted(p.parent for p in (REPO / "src/repro/papers").glob("*/results/*/claims.json"))
GIT_ENV = {"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@t", "GIT_COMMITTER_NAME": "t",
           "GIT_COMMITTER_EMAIL": "t@t"}


def _ids(d: Path) -> str:
    return f"{d.parent.parent.name}-{d.name}"


@pytest.mark.parametrize("published", PUBLISHED, ids=[_ids(d) for d in PUBLISHED])
def test_published_ledger_recomputes_from_its_records(published):
    pid, scale = published.parent.parent.name, published.name
    committed = strip_footer((published / "claims.md").read_text())
    assert pub.recompute_ledger(REPO, pid, scale) == committed, (
        f"{pid} {scale}: core/claims.py now gives another ledger on the published records; "
        f"rerun and publish again (python -m repro publish {pid} --scale {scale})")


@pytest.mark.parametrize("published", PUBLISHED, ids=[_ids(d) for d in PUBLISHED])
def test_published_claims_figure_is_drawn_from_its_verdicts(published, tmp_path):
    pid, scale = published.parent.parent.name, published.name
    fresh = pub.draw_claims(REPO, pid, scale, tmp_path / "claims.svg")
    assert fresh.read_bytes() == (published / pub.FIGURE).read_bytes(), (
        f"{pid} {scale}: the claims figure is not what core/forest.py draws from the published "
        f"verdicts: python -m repro publish {pid} --scale {scale}")
    svg = fresh.read_text()
    claims = json.loads((published / "claims.json").read_text())["claims"]
    assert all(c["id"] in svg for c in claims)  # SVG text stays text: one row per claim


@pytest.mark.parametrize("scale", sorted({d.name for d in PUBLISHED}))
def test_summary_figure_covers_every_published_paper(scale, tmp_path):
    fresh = pub.draw_summary(REPO, scale, tmp_path / "summary.svg")
    committed = pub.summary_figure(REPO, scale)
    assert committed.exists() and fresh.read_bytes() == committed.read_bytes(), (
        f"{committed} is not the figure of the published {scale} ledgers: publish again")
    svg = fresh.read_text()
    assert all(d.parent.parent.name in svg for d in PUBLISHED if d.name == scale)


@pytest.mark.parametrize("published", PUBLISHED, ids=[_ids(d) for d in PUBLISHED])
def test_paper_readme_shows_what_is_published(published):
    pid, scale = published.parent.parent.name, published.name
    readme = (REPO / "src/repro/papers" / pid / "README.md").read_text()
    assert pub.readme_block(REPO, pid, scale) in readme, (
        f"{pid}'s README differs from its published {scale} results: run python -m repro "
        f"publish {pid} --scale {scale}")
    for f in published.rglob("*"):
        assert f.stat().st_size <= pub.MAX_FILE_BYTES, f


def git(root: Path, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=root, capture_output=True, text=True, check=True,
                          env={**os.environ, **GIT_ENV}).stdout


def repro(root: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "repro", *args], cwd=root, capture_output=True,
                          text=True, env={**os.environ, "PYTHONPATH": str(root / "src")})


PAPER = "stackelberg"


def test_publish_then_status_follows_code_and_config(tiny_run, tmp_path):
    root = copy_finished(tiny_run(PAPER), tmp_path / "repo")
    git(root, "init", "-q")
    git(root, "add", "-A")
    git(root, "commit", "-qm", "code")
    # the run was computed in a copy that was not a git checkout: publishing it works, and
    # status says its age cannot be known
    proc = repro(root, "publish", PAPER, "--scale", "tiny")
    assert proc.returncode == 0, proc.stderr
    d = pub.published_dir(root, PAPER, "tiny")
    assert {p.name for p in d.iterdir()} >= {"claims.json", "claims.md", "records.json",
                                            "claims_spec.json", "tables"}
    assert pub.recompute_ledger(root, PAPER, "tiny") == strip_footer((d / "claims.md").read_text())
    readme = (root / f"src/repro/papers/{PAPER}/README.md").read_text()
    assert readme.count("<!-- published results: tiny -->") == 1
    assert "### Published results at scale `tiny`" in readme and "Provenance:" in readme
    row = {(r["paper"], r["scale"]): r for r in pub.status(root, [PAPER])}[PAPER, "tiny"]
    assert row["computed"] and row["published"] and row["stale"]
    assert "outside a git checkout" in row["why"]
    # stamp the run with this checkout's commit (as a report run in a git checkout does)
    head = git(root, "rev-parse", "HEAD").strip()
    claims = json.loads((root / f"results/tiny/{PAPER}/claims.json").read_text())
    claims["provenance"].update(commit=head, dirty=False)
    (root / f"results/tiny/{PAPER}/claims.json").write_text(json.dumps(claims))
    assert repro(root, "publish", PAPER, "--scale", "tiny").returncode == 0
    readme2 = (root / f"src/repro/papers/{PAPER}/README.md").read_text()
    assert readme2.count("<!-- published results: tiny -->") == 1  # replaced, not appended
    git(root, "add", "-A")
    git(root, "commit", "-qm", "results")
    out = repro(root, "status").stdout
    assert f"{PAPER:<12} tiny   yes       yes        current" in out, out
    # the ledger's code changes without changing the published ledger: still current (status
    # recomputes it); a schema edit only validates: still current
    with open(root / "src/repro/core/claims.py", "a") as f:
        f.write("\n# a comment\n")
    with open(root / f"src/repro/papers/{PAPER}/schema.yaml", "a") as f:
        f.write("\n# a comment\n")
    with open(root / "src/repro/core/provenance.py", "a") as f:  # records how, not what
        f.write("\nX = 1\n")
    with open(root / "workflow/modules/rlvr.smk", "a") as f:  # a module this paper does not use
        f.write("\nX = 1\n")
    row = {(r["paper"], r["scale"]): r for r in pub.status(root, [PAPER])}[PAPER, "tiny"]
    assert not row["stale"], row["why"]
    git(root, "checkout", "-q", "--", ".")
    # a comment in the paper's code cannot change a result: current; a statement can: stale
    edit(root / f"src/repro/papers/{PAPER}/run.py")
    assert not {(r["paper"], r["scale"]): r for r in pub.status(root, [PAPER])}[
        PAPER, "tiny"]["stale"]
    with open(root / f"src/repro/papers/{PAPER}/run.py", "a") as f:
        f.write("\nX = 1\n")
    row = {(r["paper"], r["scale"]): r for r in pub.status(root, [PAPER])}[PAPER, "tiny"]
    assert row["stale"] and f"src/repro/papers/{PAPER}/run.py" in row["why"]
    git(root, "checkout", "-q", "--", ".")
    # its config at this scale changes: stale, and publishing the old run is refused
    cfg_path = root / f"src/repro/papers/{PAPER}/config.yaml"
    cfg = yaml.safe_load(cfg_path.read_text())
    cfg["scales"]["tiny"]["seeds"] = [0, 1]
    cfg_path.write_text(yaml.safe_dump(cfg, sort_keys=False))
    row = {(r["paper"], r["scale"]): r for r in pub.status(root, [PAPER])}[PAPER, "tiny"]
    assert row["stale"] and "config changed" in row["why"]
    refused = repro(root, "publish", PAPER, "--scale", "tiny")
    assert refused.returncode == 2 and "differs from the settings the run used" in refused.stderr


def test_publish_refuses_what_it_cannot_publish(tiny_run, tmp_path, monkeypatch):
    root = copy_finished(tiny_run(PAPER), tmp_path / "repo")
    with pytest.raises(pub.PublishError, match="no finished small run"):
        pub.publish(root, PAPER, "small")
    monkeypatch.setattr(pub, "MAX_FILE_BYTES", 100)
    with pytest.raises(pub.PublishError, match="too large to commit"):
        pub.publish(root, PAPER, "tiny")
    assert not pub.published_dir(root, PAPER, "tiny").exists()
    assert repro(root, "publish", "nope").returncode == 2


def test_a_moved_file_or_a_docstring_edit_is_no_change(tmp_path):
    """Reorganising the tree (a file moved as it is) and rewording a docstring cannot change a
    result: status compares a moved file with what it was, and Python code without docstrings;
    a moved file whose code changed still counts."""
    (tmp_path / "old").mkdir()
    (tmp_path / "old/run.py").write_text('"""Run it."""\n\n\ndef f():\n    """Twice."""\n'
                                         '    return 2\n')
    (tmp_path / "old/rules.smk").write_text("rule a:\n    shell: 'true'\n")
    git(tmp_path, "init", "-q")
    git(tmp_path, "add", "-A")
    git(tmp_path, "commit", "-qm", "before")
    commit = git(tmp_path, "rev-parse", "HEAD").strip()
    git(tmp_path, "mv", "old", "new")
    paths = ["new/run.py", "new/rules.smk"]
    assert pub._changed_since(tmp_path, commit, paths) == []
    text = (tmp_path / "new/run.py").read_text()
    (tmp_path / "new/run.py").write_text(text.replace("Run it.", "Run it, in its new folder."))
    assert pub._changed_since(tmp_path, commit, paths) == []
    (tmp_path / "new/run.py").write_text(text.replace("return 2", "return 3"))
    assert pub._changed_since(tmp_path, commit, paths) == ["new/run.py"]
