"""Published results: a paper's records, ledger and tables at one scale, with their provenance,
committed under src/repro/papers/<id>/results/<scale>/ (small text files only) and shown in the
paper's README between markers, so the README's numbers are never pasted by hand.

    python -m repro publish <id> --scale small   # after `snakemake paper_<id>` at that scale
    python -m repro status                       # computed / published / stale, per paper

tests/test_published.py recomputes every published ledger from its committed records and
claim definitions with the current core/claims.py, and checks each README shows exactly what
is published.
"""

from __future__ import annotations

import ast
import json
import re
import shutil
import subprocess
from pathlib import Path
from typing import Any

import yaml

from repro.core.claims import claims_markdown, evaluate_claims, load_provenance, read_claims
from repro.core.config import load_yaml, resolve_scale
from repro.core.io import write_json, write_text
from repro.core.provenance import footer, settings_hash, strip_footer
from repro.core.workflow import paper_file

SCALES = ("tiny", "small", "full")
MAX_FILE_BYTES = 512 * 1024  # published results are small text files; bulk stays in DVC
SPEC = "claims_spec.json"
# besides the code and config its jobs list as inputs, the workflow files every paper's DAG
# depends on (its own rule file is added per paper): for `status` (stale or not). Schemas are
# not among them: they only validate, and the settings a run used are compared by their hash;
# nor is workflow/rules/common.smk (validation, the lock guard, job environments, GPU pool).
WORKFLOW_FILES = ("Snakefile",)
# plus each module of workflow/modules/ that the paper's rule file uses (`module <name>:`)
# Code whose effect on the published results `status` checks by recomputing them: a change to
# it makes the results stale only if the ledger it gives on the published records differs.
LEDGER_CODE = "src/repro/core/claims.py"
# Code that records how a result was made (provenance footers, the environment's lock check),
# never a value in it: a change there does not make published results stale.
METADATA_CODE = ("src/repro/core/provenance.py", "src/repro/core/lockfile.py")
# Code that only draws the ledger (the claims figure): publish redraws it from the published
# verdicts, so a change there does not make published results stale either.
FIGURE_CODE = ("src/repro/core/forest.py",)
FIGURE = "claims.svg"  # the published claims figure (SVG: small, text, diffable)


def summary_figure(repo: Path, scale: str) -> Path:
    """Where the figure of every published ledger at `scale` lives (the repo README shows the
    small one)."""
    return repo / "docs" / f"published_{scale}.svg"


class PublishError(Exception):
    """Something to fix before publishing; the message says what."""


def published_dir(repo: Path, pid: str, scale: str) -> Path:
    return repo / "src" / "repro" / "papers" / pid / "results" / scale


def _markers(scale: str) -> tuple[str, str]:
    return (f"<!-- published results: {scale} -->", f"<!-- end published results: {scale} -->")


def readme_block(repo: Path, pid: str, scale: str) -> str:
    """What the README shows for a published scale: the ledger and every table, from the
    committed files, each with its provenance footer."""
    d = published_dir(repo, pid, scale)
    start, end = _markers(scale)
    rel = d.relative_to(repo / "src" / "repro" / "papers" / pid)
    parts = [start,
             f"<!-- written by `python -m repro publish {pid} --scale {scale}` from {rel}/; "
             "do not edit by hand -->", "",
             f"### Published results at scale `{scale}`", "",
             _demote(strip_footer((d / "claims.md").read_text()).strip()), "",
             f"![{pid}: claims at scale {scale} (forest plot)]({rel}/{FIGURE})", ""]
    for t in sorted((d / "tables").glob("*.md")):
        parts += [f"#### Table `{t.stem}`", "", strip_footer(t.read_text()).strip(), ""]
    prov = load_provenance(d / "claims.json")
    if prov:
        parts += [footer(prov).strip(), ""]
    parts.append(end)
    return "\n".join(parts)


def _demote(md: str) -> str:
    """The ledger's headings one level down (it sits inside the README's own sections)."""
    return "\n".join("###" + ln if ln.startswith("#") else ln for ln in md.splitlines())


def update_readme(repo: Path, pid: str, scale: str) -> Path:
    readme = repo / "src" / "repro" / "papers" / pid / "README.md"
    text = readme.read_text() if readme.exists() else f"# {pid}\n"
    block = readme_block(repo, pid, scale)
    start, end = _markers(scale)
    if start in text and end in text:
        head, rest = text.split(start, 1)
        text = head + block + rest.split(end, 1)[1]
    else:
        text = text.rstrip("\n") + "\n\n## Results\n\n" + block + "\n"
    write_text(readme, text)
    return readme


def publish(repo: Path, pid: str, scale: str, results_dir: str = "results") -> list[Path]:
    """Copy a finished run's records, ledger and tables into the package; update the README."""
    src = repo / results_dir / scale / pid
    if not (src / "claims.json").exists():
        raise PublishError(f"no finished {scale} run of {pid} in {src}: run "
                           f"`snakemake paper_{pid} --config scale={scale}` first")
    prov = load_provenance(src / "claims.json")
    if not prov:
        raise PublishError(f"{src}/claims.json has no provenance (written before provenance "
                           "existed): rerun its report")
    cfg = load_yaml(repo / paper_file(pid, "config.yaml"))
    if settings_hash(resolve_scale(cfg, scale)) != prov["settings_sha256"]:
        raise PublishError(f"{paper_file(pid, 'config.yaml')} at {scale} differs from the settings "
                           f"the run used: rerun `snakemake paper_{pid} --config scale={scale}`")
    files = [src / "claims.json", src / "claims.md", src / "records.json",
             *sorted((src / "tables").glob("*.md")), *sorted((src / "tables").glob("*.csv"))]
    big = [f"{f.relative_to(repo)} ({f.stat().st_size // 1024} KB)" for f in files
           if f.stat().st_size > MAX_FILE_BYTES]
    if big:
        raise PublishError(f"too large to commit (limit {MAX_FILE_BYTES // 1024} KB a file; "
                           f"keep it in DVC): {', '.join(big)}")
    dest = published_dir(repo, pid, scale)
    if dest.exists():
        shutil.rmtree(dest)
    written = []
    for f in files:
        target = dest / f.relative_to(src)
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(f, target)
        written.append(target)
    write_json(dest / SPEC, cfg.get("claims", []))
    written.append(dest / SPEC)
    written += [draw_claims(repo, pid, scale), draw_summary(repo, scale)]
    written.append(update_readme(repo, pid, scale))
    return written


def draw_claims(repo: Path, pid: str, scale: str, path: Path | None = None) -> Path:
    """The published claims figure, drawn from the published verdicts."""
    from repro.core.forest import plot_claims

    d = published_dir(repo, pid, scale)
    path = path or d / FIGURE
    plot_claims(read_claims(d / "claims.json")[0], path, pid, scale, fmt="svg")
    return path


def draw_summary(repo: Path, scale: str, path: Path | None = None) -> Path:
    """Claims per paper by verdict over every published ledger at `scale`."""
    from repro.core.forest import plot_summary

    by_paper = {d.parent.parent.name: read_claims(d / "claims.json")[0]
                for d in sorted((repo / "src" / "repro" / "papers").glob(f"*/results/{scale}"))
                if (d / "claims.json").exists()}
    path = path or summary_figure(repo, scale)
    path.parent.mkdir(parents=True, exist_ok=True)
    plot_summary(by_paper, path, f"Published results at scale {scale}: claims per paper by "
                 "verdict", fmt="svg")
    return path


def recompute_ledger(repo: Path, pid: str, scale: str) -> str:
    """The ledger the current core/claims.py gives on the published records and claims."""
    d = published_dir(repo, pid, scale)
    records = json.loads((d / "records.json").read_text())
    spec = json.loads((d / SPEC).read_text())
    return claims_markdown(pid, scale, evaluate_claims(spec, records))


def ledger_is_current(repo: Path, pid: str, scale: str) -> bool:
    """Whether the current core/claims.py gives the published ledger on the published records."""
    d = published_dir(repo, pid, scale)
    try:
        return recompute_ledger(repo, pid, scale) == strip_footer((d / "claims.md").read_text())
    except (OSError, ValueError, KeyError):
        return False


def _git(repo: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run(["git", *args], cwd=repo, capture_output=True, text=True)


def _inputs(repo: Path, pid: str, scale: str) -> list[str]:
    """The source and config files the paper's jobs at `scale` list as inputs (the rules'
    honest inputs: exactly what its results depend on), plus its rule file and the shared
    workflow files (another paper's rule file is not among them)."""
    from repro.dag import plan

    jobs = plan(repo, f"paper_{pid}", {"scale": scale, "papers": pid}, forceall=True)
    files = {i for j in jobs for i in j.inputs if i.startswith(("src/", "config/"))}
    own = f"src/repro/papers/{pid}/rules.smk"
    rules = (repo / own).read_text() if (repo / own).exists() else ""
    modules = [f"workflow/modules/{m.stem}.smk" for m in sorted((repo / "workflow/modules")
                                                                 .glob("*.smk"))
               if re.search(rf"^module\s+{re.escape(m.stem)}\s*:", rules, re.M)]
    return sorted(files | {f for f in (*WORKFLOW_FILES, own, *modules) if (repo / f).exists()})


def _changed_since(repo: Path, commit: str, paths: list[str]) -> list[str] | None:
    """Which of `paths` differ in meaning now from `commit` (None: this checkout lacks the
    commit). A YAML file that parses to the same data, or a Python file with the same syntax
    tree but for docstrings, changed only comments, docstrings or layout: that cannot change a
    result, so it is left out; so is a file moved unchanged."""
    if _git(repo, "cat-file", "-e", f"{commit}^{{commit}}").returncode != 0:
        return None
    out = _git(repo, "diff", "--name-only", commit, "--", *paths)
    changed = [f for f in out.stdout.splitlines() if f]
    moved = _moved_since(repo, commit) if changed else {}
    return [f for f in changed if not _same_meaning(repo, commit, f, moved.get(f, f))]


def _moved_since(repo: Path, commit: str) -> dict[str, str]:
    """Files moved since `commit` (git's rename detection): new path -> old path. A moved file
    is compared with what it was, so reorganising the tree leaves results current."""
    out = _git(repo, "diff", "--name-status", "-M", commit)
    return {p[2]: p[1] for p in (line.split("\t") for line in out.stdout.splitlines())
            if len(p) == 3 and p[0].startswith("R")}


def _same_meaning(repo: Path, commit: str, path: str, before: str | None = None) -> bool:
    old = _git(repo, "show", f"{commit}:{before or path}")
    new = repo / path
    if old.returncode != 0 or not new.is_file():
        return False
    if old.stdout == new.read_text():  # moved, not changed
        return True
    try:
        if path.endswith((".yaml", ".yml")):
            return yaml.safe_load(old.stdout) == yaml.safe_load(new.read_text())
        if path.endswith(".py"):
            return _code(old.stdout) == _code(new.read_text())
    except (yaml.YAMLError, SyntaxError, ValueError):
        return False
    return False


def _code(source: str) -> str:
    """A module's syntax tree without its docstrings (they cannot change a result)."""
    tree = ast.parse(source)
    for node in ast.walk(tree):
        body = getattr(node, "body", None)
        scoped = isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef,
                                   ast.AsyncFunctionDef))
        first = body[0] if scoped and body else None
        if (isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant)
                and isinstance(first.value.value, str)):
            node.body = body[1:] or [ast.Pass()]
    return ast.dump(tree)


def status(repo: Path, papers: list[str], results_dir: str = "results") -> list[dict[str, Any]]:
    """Per paper and scale: computed here, published, and whether the published results are
    older than the paper's code or config."""
    rows = []
    for pid in papers:
        cfg = load_yaml(repo / paper_file(pid, "config.yaml"))
        for scale in SCALES:
            computed = repo / results_dir / scale / pid / "claims.json"
            pub = published_dir(repo, pid, scale) / "claims.json"
            row: dict[str, Any] = {"paper": pid, "scale": scale, "computed": computed.exists(),
                                   "published": pub.exists(), "stale": None, "why": ""}
            if pub.exists():
                claims, prov = read_claims(pub)
                prov = prov or {}
                why = []
                if prov.get("settings_sha256") != settings_hash(resolve_scale(cfg, scale)):
                    why.append("its config changed")
                commit = prov.get("commit")
                changed = (_changed_since(repo, commit, _inputs(repo, pid, scale))
                           if commit else None)
                if not commit:
                    why.append("computed outside a git checkout: its age is unknown")
                elif changed is None:
                    why.append(f"computed at {commit[:10]}, which this checkout does not have")
                else:
                    changed = [f for f in changed if f not in (*METADATA_CODE, *FIGURE_CODE)]
                    if LEDGER_CODE in changed and ledger_is_current(repo, pid, scale):
                        changed.remove(LEDGER_CODE)  # it changed, not the published ledger
                if changed:
                    why.append(f"{len(changed)} file(s) of its code changed since "
                               f"{prov['commit'][:10]}: {', '.join(changed[:3])}"
                               + (" ..." if len(changed) > 3 else ""))
                row["stale"] = bool(why)
                row["why"] = "; ".join([*why, *(["published from a dirty tree"]
                                                if prov.get("dirty") else [])])
                row["verdicts"] = _counts(claims)
            rows.append(row)
    return rows


def _counts(claims: list[dict[str, Any]]) -> str:
    n: dict[str, int] = {}
    for c in claims:
        n[c["verdict"]] = n.get(c["verdict"], 0) + 1
    return ", ".join(f"{k} {v}" for k, v in sorted(n.items()))


def status_table(rows: list[dict[str, Any]]) -> str:
    lines = ["paper        scale  computed  published  state"]
    for r in rows:
        if r["published"]:
            state = ("STALE" if r["stale"] else "current") + (
                f" ({r['why']})" if r["why"] else "") + f"; {r['verdicts']}"
        else:
            state = "-"
        lines.append(f"{r['paper']:<12} {r['scale']:<6} {'yes' if r['computed'] else 'no':<9} "
                     f"{'yes' if r['published'] else 'no':<10} {state}")
    return "\n".join(lines)
