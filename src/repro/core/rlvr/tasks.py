"""The task a ROVER RL job works on: Countdown or math, one interface for sft/train/evaluate.

    task = get_task("math", settings["math"])
    ids = task.prompt_ids(policy.tokenizer, problem)
    reward, correct = task.score(response_text, problem)

`get_task(name, block)` takes the config block of that name (`countdown:` or `math:`); each task
module is imported only when asked for, so a Countdown job never imports the math code (and the
workflow lists as inputs exactly the modules a job runs).
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any, Protocol

import numpy as np

TASKS = ("countdown", "math")


def job_parser(description: str) -> argparse.ArgumentParser:
    """The arguments every sft/train/evaluate job takes; each CLI adds its own."""
    from repro.core import config

    ap = config.job_parser(description)
    ap.add_argument("--task", default="countdown", choices=TASKS)
    ap.add_argument("--data", required=True)
    return ap


def load_job(args: argparse.Namespace) -> tuple[dict[str, Any], dict[str, Any], Task]:
    """The merged settings at the job's scale, its task's config block, and the task."""
    from repro.core.config import load_settings

    settings = load_settings(args.config, args.scale)
    block = settings[args.task]
    return settings, block, get_task(args.task, block)


class Task(Protocol):
    name: str

    def read_problems(self, path: str | Path) -> list[Any]: ...

    def prompt_ids(self, tok: Any, p: Any) -> list[int]: ...

    def score(self, response: str, p: Any) -> tuple[float, bool]: ...

    def correct_key(self, response: str, p: Any) -> str | None:
        """None if the response is wrong, else its canonical form (distinct-correct counting)."""
        ...

    def record(self, p: Any) -> dict[str, Any]: ...

    def warmup_answer(self, p: Any, rng: np.random.Generator, correct_fraction: float) -> str: ...


class CountdownTask:
    """Countdown (countdown.py): `prompt` style char|tinyzero, reward with format_score."""

    name = "countdown"

    def __init__(self, block: dict[str, Any]) -> None:
        from repro.core.rlvr import countdown

        self.cd = countdown
        self.style = block["prompt"]
        self.format_score = float(block["rl"].get("format_score", 0.1))

    def read_problems(self, path):
        return self.cd.read_problems(path)

    def prompt_ids(self, tok, p):
        return tok.encode(self.cd.make_prompt(p, self.style))

    def score(self, response, p):
        return self.cd.score(response, p, self.style, self.format_score)

    def correct_key(self, response, p):
        eq = self.cd.extract_equation(response, self.style)
        return self.cd.canonical(eq) if self.cd.check_equation(eq, p) else None

    def record(self, p):
        return p.to_json()

    def warmup_answer(self, p, rng, correct_fraction):
        eq = self.cd.random_equation(p.nums, rng)
        if correct_fraction > 0 and rng.random() < correct_fraction:
            good = self.cd.solutions(p)
            eq = good[int(rng.integers(len(good)))] if good else eq
        return eq


def get_task(name: str, block: dict[str, Any]) -> Task:
    """The task called `name`, configured by its settings block."""
    if name == "countdown":
        return CountdownTask(block)
    if name == "math":
        from repro.core.rlvr.math_task import MathTask

        return MathTask(block)
    raise SystemExit(f"unknown task {name!r}: one of {', '.join(TASKS)}")
