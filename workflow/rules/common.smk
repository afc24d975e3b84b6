# Shared setup: the lock guard, config validation (before any job runs), the registry of
# papers, the GPU pool.
# Only yaml and jsonschema are imported here: `snakemake -n` must stay cheap.
import sys
from pathlib import Path

sys.path.insert(0, str(Path(workflow.basedir) / "src"))

from repro.core.gpus import register_gpu_pool  # noqa: E402
from repro.core.locks import guard_locks  # noqa: E402
from repro.core.stopjobs import guard_signals  # noqa: E402
from repro.core.workflow import check_config, core, module_config, registered_papers  # noqa: E402
from repro.core.workflow import setup_job_env  # noqa: E402

# A run's lock on its files lives until that run ends (Snakemake 9.17+ lets any run that ends
# remove every run's lock): repro.core.locks, proven by tests/test_locks.py.
guard_locks()
# SIGTERM / SIGINT sent to Snakemake stop its running jobs within seconds (Snakemake 9.27 waits
# for them to finish); the long jobs save their state and resume when rerun: repro.core.stopjobs,
# repro.core.checkpoint, tests/test_resume.py.
guard_signals()
check_config(config)
setup_job_env(workflow.basedir)


# The HTML report's front page (snakemake all --report report.html); every paper's outputs
# carry their captions (workflow/report/, repro.core.workflow.caption_path).
report: "../report/workflow.rst"


SCALE = config["scale"]
RESULTS = f"{config['results_dir']}/{SCALE}"
LOGS = f"{config['logs_dir']}/{SCALE}"

# Local GPU pool: at most N `gpu=1` jobs at once on a workstation with N GPUs (override with
# --resources gpu=K). Rules that may use a GPU run their command through
# `python -m repro.core.gpus --gpus {resources.gpu} --`, which gives each job its own
# CUDA_VISIBLE_DEVICES; it is not a rule input, as it never changes what a job computes.
GPUS = register_gpu_pool(workflow)

# The registry: every paper with a src/repro/papers/<id>/config.yaml (and its rule file and schema);
# `--config papers=<id>[,<id>...]` loads only those.
PAPERS = registered_papers(workflow.basedir, config.get("papers", "all"))
