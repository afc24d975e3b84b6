# Shared helpers: config validation (before any job runs), scale resolution, paths.
# Only yaml and jsonschema are imported here: `snakemake -n` must stay cheap.
import sys
from pathlib import Path

sys.path.insert(0, str(Path(workflow.basedir) / "src"))

from repro.core.config import load_yaml, resolve_scale  # noqa: E402
from repro.core.validate import ConfigError, validate  # noqa: E402


def _fail(err):
    # One line naming the key and the allowed values, then stop before any job runs.
    print(err, file=sys.stderr)
    sys.exit(1)


try:
    validate(config, "workflow/schemas/config.schema.yaml", "config (config/config.yaml, --config)")
except ConfigError as err:
    _fail(err)

SCALE = config["scale"]
RESULTS = f"{config['results_dir']}/{SCALE}"
LOGS = f"{config['logs_dir']}/{SCALE}"
DATA = config["data_dir"]
MIRROR = config["data_mirror"]
PY = sys.executable  # the interpreter running snakemake has the `repro` package

# Registry of papers: id -> {"targets": [...final outputs...], "claims": path}
PAPERS = {}


def paper_settings(pid):
    """Load config/papers/<pid>.yaml, validate its structure and its settings at SCALE."""
    path = f"config/papers/{pid}.yaml"
    raw = load_yaml(path)
    try:
        validate(raw, "workflow/schemas/paper.schema.yaml", path)
        settings = resolve_scale(raw, SCALE)
        validate(settings, f"workflow/schemas/{pid}.schema.yaml", f"{path} (scale {SCALE})")
    except ConfigError as err:
        _fail(err)
    return path, settings


def src(pid, *modules):
    """Source files of a paper's package that a rule runs (rule inputs, so edits rerun it)."""
    return [f"src/repro/papers/{pid}/{m}.py" for m in modules]


def core(*modules):
    return [f"src/repro/core/{m}.py" for m in modules]


# The core modules every job imports.
CORE_JOB = core("config", "io", "seeding", "progress")
