"""MCPMark's task format: a folder with the instruction, the verifier and its metadata.

As in the benchmark, a task is `tasks/<service>/<category>/<task>/` holding `description.md`
(what the model reads), `verify.py` (a standalone script: exit 0 = pass, reading the state it
judges from the environment: FILESYSTEM_TEST_DIR, or POSTGRES_HOST/PORT/DATABASE/USERNAME/
PASSWORD) and `meta.json`. The category names the initial state: a filesystem template folder
or a template database. We add `oracle.py`: a scripted solution, a list of MCP tool calls that
the oracle agent sends through the same loop as a model, so every verifier is shown to pass on a
correct end state (and to fail on the untouched one, the null agent's).
"""

from __future__ import annotations

import importlib.util
import json
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType

ROOT = Path(__file__).parent / "tasks"
SERVICES = ("filesystem", "postgres")

# The benchmark's own prompt parts (src/base/task_manager.py, the postgres task manager and
# src/agents/mcpmark_agent.py), in our words.
SYSTEM_PROMPT = ("You are a helpful agent that uses tools iteratively to complete the user's "
                 "task. When the task is done, give your final answer, or just say 'Task "
                 "completed', without calling any more tools.")
SUFFIX = {
    "filesystem": ("Note: complete the whole task by yourself in one go, using the tools; do not "
                   "ask the user for confirmation or opinions."),
    "postgres": ("Note: use the PostgreSQL MCP tools to complete the task. The database "
                 "connection is already configured."),
}


@dataclass(frozen=True)
class Task:
    service: str
    category: str
    name: str
    folder: Path
    meta: dict

    @property
    def id(self) -> str:
        """MCPMark's task name: <category>__<task>."""
        return f"{self.category}__{self.name}"

    @property
    def description(self) -> str:
        return (self.folder / "description.md").read_text()

    @property
    def template_db(self) -> str | None:
        """The database a postgres run is cloned from: meta.json's template_db where the task
        sets it (null: an empty database), else the category's name, as in MCPMark."""
        if self.service != "postgres":
            return None
        return self.meta.get("template_db", self.category) or None

    @property
    def verifier(self) -> Path:
        return self.folder / "verify.py"

    def instruction(self) -> str:
        return self.description.rstrip() + "\n\n" + SUFFIX[self.service]

    def oracle(self) -> ModuleType:
        path = self.folder / "oracle.py"
        spec = importlib.util.spec_from_file_location(
            f"mcpmark_oracle_{self.service}_{self.category}_{self.name}", path)
        if spec is None or spec.loader is None:
            raise FileNotFoundError(path)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        return module


def discover(services: list[str] | tuple[str, ...] = SERVICES, root: Path = ROOT) -> list[Task]:
    """Every task folder (both description.md and verify.py present), sorted. Folders are
    absolute: the harness runs each verifier with its task folder as the working directory."""
    out, root = [], Path(root).resolve()
    for service in services:
        if service not in SERVICES:
            raise ValueError(f"unknown service {service!r}; known: {', '.join(SERVICES)}")
        for d in sorted((root / service).glob("*/*")):
            if (d / "description.md").exists() and (d / "verify.py").exists():
                meta = json.loads((d / "meta.json").read_text()) if (d / "meta.json").exists() \
                    else {}
                out.append(Task(service, meta.get("category_id", d.parent.name),
                                meta.get("task_id", d.name), d, meta))
    return out


def select(names: list[str], services: list[str] | tuple[str, ...] = SERVICES,
           root: Path = ROOT) -> list[Task]:
    """The tasks a config names ("<service>/<category>/<task>", or "<service>/*" for all of a
    service's); an unknown name fails with the known ones listed."""
    known = {f"{t.service}/{t.category}/{t.name}": t for t in discover(services, root)}
    out: list[Task] = []
    for n in names:
        if n.endswith("/*"):
            hits = [t for k, t in known.items() if k.startswith(n[:-1])]
        else:
            hits = [known[n]] if n in known else []
        if not hits:
            raise ValueError(f"no task {n!r}; known: {', '.join(sorted(known))}")
        out += [t for t in hits if t not in out]
    return out


def _files(folder: Path) -> list[str]:
    return [str(p) for p in sorted(folder.rglob("*"))
            if p.is_file() and "__pycache__" not in p.parts and p.suffix != ".pyc"]


# The rules name their inputs relative to the checkout they run in (the Snakefile's folder):
# at parse time `repro` may be imported from another checkout (an editable install), so these
# take the checkout-relative folder rather than this module's own location.
CHECKOUT_TASKS = Path("src/repro/papers/mcpmark/tasks")
CHECKOUT_TEMPLATES = Path("src/repro/papers/mcpmark/templates")


def task_files(service: str, root: Path = CHECKOUT_TASKS) -> list[str]:
    """Every file of a service's tasks (the rules list them as the run jobs' code)."""
    return _files(root / service)


def template_files(root: Path = CHECKOUT_TEMPLATES) -> list[str]:
    """The filesystem template builders (the templates rule's code)."""
    return _files(root)
