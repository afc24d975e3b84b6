"""Helpers the Snakefile uses at parse time. Light on purpose: yaml and jsonschema only,
since every `snakemake -n` pays for what is imported here."""

from __future__ import annotations

import os
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, NoReturn

from repro.core.config import SCALES, load_yaml, resolve_scale
from repro.core.validate import ConfigError, validate


def fail(err: Exception) -> NoReturn:
    """One line naming the key and the allowed values, then stop before any job runs."""
    print(err, file=sys.stderr)
    sys.exit(1)


def setup_job_env(basedir: str | Path) -> None:
    """Jobs run this checkout's code with the interpreter running snakemake.

    `python` resolves to that interpreter unless `--use-conda` puts its env first on PATH.
    """
    src = str(Path(basedir) / "src")
    os.environ["PYTHONPATH"] = os.pathsep.join(filter(None, [src, os.environ.get("PYTHONPATH")]))
    first = [str(Path(sys.executable).parent)]
    warm = os.environ.get("REPRO_WARMSTART")  # opt-in warm interpreters: repro.core.warmstart
    if warm:
        from repro.core.warmstart import shim_path

        if shim_path(warm).exists():
            first.insert(0, str(shim_path(warm).parent))
    os.environ["PATH"] = os.pathsep.join([*first, os.environ["PATH"]])


def check_config(config: dict[str, Any]) -> None:
    try:
        validate(config, "workflow/schemas/config.schema.yaml",
                 "config (config/config.yaml, --config)")
    except ConfigError as err:
        fail(err)


def _has(node: Any, path: list[Any]) -> bool:
    for part in path:
        if isinstance(node, dict) and part in node:
            node = node[part]
        elif isinstance(node, list) and isinstance(part, int) and 0 <= part < len(node):
            node = node[part]
        else:
            return False
    return True


def _written_at(raw: dict[str, Any], scale: str, path: list[Any]) -> str:
    """Where a key of the merged settings of `scale` is written in the paper config, as a
    dotted key: `scales.<scale>.<path>` where the scale's block has it (its values win the
    merge), else `defaults.<path>`."""
    for block, node in ((f"scales.{scale}", (raw.get("scales") or {}).get(scale)),
                        ("defaults", raw.get("defaults"))):
        if path and _has(node, path):
            return ".".join([block, *map(str, path)])
    return ".".join(map(str, path)) or "<top level>"


ROOT = Path(__file__).resolve().parents[3]
"""The checkout this code is in (rule files are modules, whose relative paths resolve from
their own folder, so paths that must not depend on it are absolute from here)."""
PAPERS_DIR = "src/repro/papers"
"""A paper is one folder, src/repro/papers/<id>/: its code, its Snakemake module (rules.smk),
its settings (config.yaml) and their schema (schema.yaml), its report captions (captions/), its
data manifest (manifest.json), its excerpts and its published results."""


def paper_file(pid: str, name: str) -> str:
    """A file of the paper's folder, relative to the checkout (`config.yaml`, `rules.smk`)."""
    return f"{PAPERS_DIR}/{pid}/{name}"


def check_paper(pid: str, root: str | Path = ".", first: str | None = None) -> dict[str, Any]:
    """The paper's config.yaml, checked whole: its structure (paper.schema.yaml), then the
    settings of every scale (`defaults` merged with `scales.<scale>`, for tiny, small and full,
    not only the scale being run) against the paper's schema.yaml, `first` first.
    The first violation raises ConfigError: one line naming the file, the scale and the dotted
    key as the file writes it (`scales.full.toy.epsilon`, `defaults.toy.lr`)."""
    root = Path(root)
    path = paper_file(pid, "config.yaml")
    raw = load_yaml(root / path)
    validate(raw, root / "workflow/schemas/paper.schema.yaml", path)
    for scale in sorted(SCALES, key=lambda s: s != first):  # stable: the others in order
        validate(resolve_scale(raw, scale), root / paper_file(pid, "schema.yaml"),
                 f"{path} (scale {scale})",
                 locate=lambda p, scale=scale: _written_at(raw, scale, p))
    return raw


def paper_settings(pid: str, scale: str) -> tuple[str, dict[str, Any]]:
    """Load the paper's config.yaml, validate all of it (every scale: `check_paper`), and
    return its path and its settings at `scale`."""
    path = paper_file(pid, "config.yaml")
    try:
        raw = check_paper(pid, ".", first=scale)
    except (ConfigError, FileNotFoundError) as err:
        fail(err)
    return path, resolve_scale(raw, scale)


def src(pid: str, *modules: str) -> list[str]:
    """Source files of a paper's package that a rule runs (rule inputs, so edits rerun it)."""
    return [paper_file(pid, f"{m}.py") for m in modules]


def core(*modules: str) -> list[str]:
    return [f"src/repro/core/{m}.py" for m in modules]


def slug(name: str) -> str:
    """File-name form of an id with slashes (ALE/Breakout-v5 -> ALE_Breakout-v5)."""
    return name.replace("/", "_")


PHASES = ("fetch", "train", "evaluate", "report")
DECLARED: dict[str, tuple[str, str]] = {}
"""Snakemake rule name -> (the paper whose module declared it, its phase), filled by each paper
module while the workflow is parsed (`Paper.phases`); `repro.dag` reads it after Snakemake has
parsed the Snakefile in-process."""


def registered_papers(root: str | Path = ".", only: str = "all") -> list[str]:
    """The registry, discovered by folder: every src/repro/papers/<id>/ with a config.yaml.
    Each must also have its rules.smk and schema.yaml, and a folder with a rules.smk must have a
    config.yaml; a missing one stops the parse with one line naming it. `only` (the `papers`
    config key: `all` or ids with commas) loads a subset, which plans identically."""
    root = Path(root)
    ids = sorted(p.parent.name for p in (root / PAPERS_DIR).glob("*/config.yaml"))
    for pid in ids:
        for need in (paper_file(pid, "rules.smk"), paper_file(pid, "schema.yaml")):
            if not (root / need).exists():
                fail(ConfigError(f"paper {pid!r} ({paper_file(pid, 'config.yaml')}) has no "
                                 f"{need}"))
    rules = {p.parent.name for p in (root / PAPERS_DIR).glob("*/rules.smk")}
    for extra in sorted(rules - set(ids)):
        fail(ConfigError(f"{paper_file(extra, 'rules.smk')} has no config.yaml beside it: "
                         "shared rule files belong in workflow/modules/"))
    if only != "all":
        unknown = sorted(set(only.split(",")) - set(ids))
        if unknown:
            fail(ConfigError(f"config error in config (config/config.yaml, --config): key "
                             f"'papers' names unregistered paper(s) {', '.join(unknown)} "
                             f"(registered: {', '.join(ids)})"))
        ids = [p for p in ids if p in only.split(",")]
    DECLARED.clear()  # one parse, one registry (the API may parse twice in one process)
    return ids


def module_config(config: dict[str, Any], pid: str) -> dict[str, Any]:
    """What the Snakefile hands a paper's module: the global config and the paper's id."""
    return {**config, "paper": pid}


@dataclass
class Paper:
    """Everything a paper's rule file needs at parse time, from its module config.

    Paths follow DESIGN.md: data/<id>/<scale>, results/<scale>/<id>, logs/<scale>/<id>.
    """

    id: str
    scale: str
    config: str
    """the paper's config.yaml: an input of every rule, so editing it reruns what reads it"""
    settings: dict[str, Any]
    """the validated settings at this scale"""
    out: str
    data: str
    logs: str
    mirror: str
    """the optional offline copy of the public data (`data_mirror`; empty: none)"""
    gpu: int
    """1 at full (rules that may use a GPU ask for one), 0 below"""
    env: str = str(ROOT / "environment.yml")
    """conda env for --use-conda (absolute: the paper's rules.smk and the shared modules it
    uses, workflow/modules/, sit at different depths)"""
    job: list[str] = field(default_factory=list)
    """the core modules every job imports"""

    @property
    def excerpts(self) -> list[str]:
        """At tiny, the committed data excerpts the paper's fetch reads (src/repro/papers/<id>/
        excerpts/, repro.core.fetch): fetch inputs, so an edited excerpt reruns it."""
        if self.scale != "tiny":
            return []
        root = Path(paper_file(self.id, "excerpts"))
        return sorted(str(p) for p in root.rglob("*")
                      if p.is_file() and p.suffix != ".md" and p.name != "LICENSE")

    @property
    def bench(self) -> str:
        """Where each job's Snakemake `benchmark:` file goes (its wall time, in the provenance
        the report stamps on every result)."""
        return f"{self.logs}/benchmarks"

    def src(self, *modules: str) -> list[str]:
        """The package's modules a rule runs, plus its settings.py where it has one (every job
        reads its typed settings through it, so its edits rerun them all)."""
        extra = ("settings",) if Path(src(self.id, "settings")[0]).exists() else ()
        return src(self.id, *dict.fromkeys([*modules, *extra]))

    def cluster(self, **sizes: int) -> dict[str, int]:
        """A rule's SLURM sizes (runtime, mem_mb, cpus_per_task), written for `full`, the
        paper's setting; below full the profile's defaults (60 min, 4 GB, 1 CPU) fit every job
        and the local demo cluster alike."""
        return sizes if self.scale == "full" else {}

    def report_outputs(self, tables: list[str], figures: list[str], category: str
                       ) -> dict[str, Any]:
        """What every paper's report writes: its tables and figures (shown in the Snakemake
        report under `category`, each with its caption: `caption_path`), the claims ledger
        (claims.md, claims.json), its figure (figures/claims.png, repro.core.forest) and
        records.json."""
        from snakemake.io import report

        def flagged(path: str, kind: str, sub: str) -> Any:
            caption = caption_path(self.id, kind, Path(path).stem)
            return report(path, category=category, subcategory=sub,
                          caption=str(caption) if caption.exists() else None)

        return {
            "tables": [flagged(t, "tables", "tables") for t in tables],
            "figures": [flagged(f, "figures", "figures") for f in figures],
            "claims": flagged(f"{self.out}/claims.md", "ledger", "claims"),
            "claims_figure": flagged(f"{self.out}/figures/claims.png", "ledger_figure",
                                     "claims"),
            "claims_json": f"{self.out}/claims.json",
            "records": f"{self.out}/records.json",
        }

    def phases(self, by_phase: dict[str, list[str]]) -> None:
        """Declare which of this paper's rules (local names) make up each phase; dvc.yaml and
        the restore step follow from it, and a test fails if a rule of the paper has none.
        (A dict, not keywords: Snakemake's parser reads a line starting `report=` as its
        `report` keyword.)"""
        for phase, rules in by_phase.items():
            if phase not in PHASES:
                fail(ConfigError(f"{paper_file(self.id, 'rules.smk')}: phase {phase!r} is not "
                                 f"one of {', '.join(PHASES)}"))
            for rule in rules:
                DECLARED[f"{self.id}_{rule}"] = (self.id, phase)


REPORT_DIR = ROOT / "workflow" / "report"


def caption_path(pid: str, kind: str, stem: str) -> Path:
    """The caption of one report output (absolute: rule files are modules, whose relative
    paths would resolve from the paper's folder): the paper's captions/{tables,figures}/
    <stem>.rst, and one caption for every paper's ledger and ledger figure
    (workflow/report/ledger*.rst,
    which read the paper's id from the module's config). Captions are Jinja templates that
    Snakemake renders at report time; they include the table's own caption line and the run's
    provenance from the results, so they say what the run was."""
    if kind in ("ledger", "ledger_figure"):
        return REPORT_DIR / f"{kind}.rst"
    own = ROOT / paper_file(pid, "captions") / kind
    exact = own / f"{stem}.rst"
    family = own / f"{stem.split('_', 1)[0]}.rst"
    # one caption for a family of outputs named by their setting (curves_<env>.png)
    return exact if exact.exists() or not family.exists() else family


def paper(config: dict[str, Any]) -> Paper:
    """Called at the top of the paper's rules.smk with the module's config."""
    pid, scale = config["paper"], config["scale"]
    path, settings = paper_settings(pid, scale)
    return Paper(
        id=pid, scale=scale, config=path, settings=settings,
        out=f"{config['results_dir']}/{scale}/{pid}",
        data=f"{config['data_dir']}/{pid}/{scale}",
        logs=f"{config['logs_dir']}/{scale}/{pid}",
        mirror=config.get("data_mirror") or "",
        gpu=1 if scale == "full" else 0,
        job=core("config", "io", "seeding", "progress"),
    )
