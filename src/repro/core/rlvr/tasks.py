"""The task an RLVR job works on: Countdown or math, one interface for sft/train/evaluate,
and the typed settings of a task's config block (`countdown:` or `math:`).

    seeds, cfg, task = load_job(args)        # cfg: TaskConfig of the block named --task
    ids = task.prompt_ids(policy.tokenizer, problem)
    reward, correct = task.score(response_text, problem)

`get_task(name, cfg)` builds the task of that name from its block; each task module is
imported only when asked for, so a Countdown job never imports the math code (and the
workflow lists as inputs exactly the modules a job runs).
"""

from __future__ import annotations

import argparse
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Protocol

import numpy as np

from repro.core.config import typed
from repro.core.rlvr.objectives import RLConfig

TASKS = ("countdown", "math")


@dataclass
class SFTConfig:
    """The supervised warm-up of the shared base policy (sft.py)."""

    steps: int = 0  # warm-up steps (0: a pretrained base is used as is)
    batch_size: int = 64  # (prompt, answer) pairs per step
    lr: float = 1e-3  # peak AdamW learning rate (linear warm-up, cosine decay to 10%)
    warmup: int = 50  # warm-up steps of the learning rate
    log_every: int = 50  # a loss-curve point every this many steps
    correct_fraction: float = 0.0  # share of warm-up answers that are correct (0: format only)
    checkpoint_every: int = 0  # save a resumable state every this many steps (0: on signals
    # and every REPRO_CHECKPOINT_MINUTES only; repro.core.checkpoint)

    def logged(self) -> dict[str, Any]:
        """The settings for the log (how often the state is saved changes no result)."""
        return {k: v for k, v in asdict(self).items() if k != "checkpoint_every"}


@dataclass
class EvalConfig:
    """Sampling-based evaluation on the held-out problems (evaluate.py)."""

    n_samples: int  # samples per problem (n of avg@n and pass@k)
    ks: list[int]  # pass@k for these k (those <= n_samples)
    temperature: float  # sampling temperature
    top_p: float  # nucleus sampling (1: off)
    max_new_tokens: int  # response length cap
    n_problems: int  # evaluate the first this many test problems (0: all)
    batch_size: int  # sequences sampled per sampling call
    gen_batch_size: int | None = None  # sequences decoded at once (unset: 1024)
    checkpoint_every: int = 0  # save a resumable state every this many sampling calls (0: on
    # signals and every REPRO_CHECKPOINT_MINUTES only; repro.core.checkpoint)

    def given(self) -> dict[str, Any]:
        """The settings as configured (unset ones left out), for the evaluation record; how
        often the state is saved is left out too (it changes no result)."""
        return {k: v for k, v in self.__dict__.items()
                if v is not None and k != "checkpoint_every"}


@dataclass
class TaskConfig:
    """One task's config block: what every sft / train / evaluate job of the task reads."""

    methods: list[str]  # the methods the paper trains on this task
    prompt: str  # prompt style (countdown: char | tinyzero; math: chat | plain)
    model: dict[str, Any]  # the policy's model block, handed to build_policy as is
    sft: SFTConfig  # the warm-up of the base policy
    rl: RLConfig  # the RL schedule shared by every method (+ the objectives' own keys)
    eval: EvalConfig  # the held-out evaluation
    data: dict[str, Any] = field(default_factory=dict)  # the fetch job's block (typed there)
    method_settings: dict[str, dict[str, Any]] = field(default_factory=dict)  # per-method keys
    enabled: bool = True  # math: only the scales that enable it run the math jobs
    max_prompt_chars: int = 0  # math `plain` prompts: keep the question's last chars (0: all)
    max_prompt_tokens: int = 0  # math: left-truncate prompts to this many tokens (0: off)

    @classmethod
    def from_settings(cls, block: dict[str, Any], where: str) -> TaskConfig:
        """The block typed; `rl` keeps the objectives' own keys in `RLConfig.extra`."""
        return typed(cls, {**block, "rl": RLConfig.from_settings(block.get("rl", {}))}, where)


def job_parser(description: str) -> argparse.ArgumentParser:
    """The arguments every sft/train/evaluate job takes; each CLI adds its own."""
    from repro.core import config

    ap = config.job_parser(description)
    ap.add_argument("--task", default="countdown", choices=TASKS)
    ap.add_argument("--data", required=True)
    return ap


def resume_key(job: str, args: argparse.Namespace, block: TaskConfig) -> dict[str, Any]:
    """What a job's saved state must have been made for (repro.core.checkpoint): the job, its
    arguments and its task's settings, less the checkpoint frequencies."""
    from repro.core.checkpoint import settings_key

    argv = {k: str(v) for k, v in vars(args).items() if k not in ("config", "out")}
    return {"job": job, "args": argv, "settings": settings_key(asdict(block))}


def load_job(args: argparse.Namespace) -> tuple[list[int], TaskConfig, Task]:
    """The config seeds, the typed block of the job's task at its scale, and the task."""
    from repro.core.config import load_settings

    settings = load_settings(args.config, args.scale)
    cfg = TaskConfig.from_settings(settings[args.task], args.task)
    return [int(s) for s in settings["seeds"]], cfg, get_task(args.task, cfg)


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
    """Countdown (countdown.py): `style` char|tinyzero, reward with format_score."""

    name = "countdown"

    def __init__(self, style: str, format_score: float = 0.1) -> None:
        from repro.core.rlvr import countdown

        self.cd = countdown
        self.style = style
        self.format_score = float(format_score)

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


def get_task(name: str, cfg: TaskConfig) -> Task:
    """The task called `name`, configured by its typed block."""
    if name == "countdown":
        return CountdownTask(cfg.prompt, cfg.rl.format_score)
    if name == "math":
        from repro.core.rlvr.math_task import MathTask

        return MathTask(cfg.prompt, cfg.max_prompt_chars, cfg.max_prompt_tokens)
    raise SystemExit(f"unknown task {name!r}: one of {', '.join(TASKS)}")
