"""Supervised warm-up of the base policy on random valid-format answers (`--task`, default
countdown; math: a boxed answer of a random training problem, scratch model only).

    python -m repro.core.rlvr.sft --config src/repro/papers/<paper>/config.yaml --scale small \
        --data data/<paper>/small --out results/small/<paper>/countdown/base

The answers are random expressions over the problem's numbers (each used once, random order,
operators and bracketing), with no regard to the target: the model learns the answer format,
not the arithmetic, so its pass@1 starts low but nonzero and RL has something to improve. This
base checkpoint is shared by every method and seed, like the paper's fixed base model; it uses
the first config seed. At full scale `sft.steps: 0`: the pretrained model is the base as is.
A stopped run (SIGTERM, SIGINT) saves its state at the end of the step, as it does every
`sft.checkpoint_every` steps, and a rerun resumes from it (repro.core.checkpoint).
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import torch

from repro.core.checkpoint import Resumable
from repro.core.io import atomic_path, write_json
from repro.core.progress import get_logger, progress
from repro.core.rlvr.policy import (
    Policy,
    build_policy,
    job_setup,
    n_params,
    pack,
    save_policy,
    token_stats,
)
from repro.core.rlvr.tasks import Task, job_parser, load_job, resume_key

log = get_logger("rlvr.sft")


def sft_batch(
    policy: Policy,
    problems: list,
    rng: np.random.Generator,
    batch_size: int,
    task: Task,
    correct_fraction: float = 0.0,
):
    """A batch of (prompt, answer + eos) pairs, packed for the causal LM. Countdown: a random
    valid-format equation, or with probability `correct_fraction` a random correct one; math:
    see `math_task.MathTask.warmup_answer`."""
    tok = policy.tokenizer
    idx = rng.integers(0, len(problems), size=batch_size)
    prompts, answers = [], []
    for i in idx:
        p = problems[int(i)]
        eq = task.warmup_answer(p, rng, correct_fraction)
        prompts.append(task.prompt_ids(tok, p))
        answers.append(tok.encode(eq) + [tok.eos_id])
    return pack(prompts, answers, tok.pad_id)


def lr_at(step: int, steps: int, lr: float, warmup: int) -> float:
    """Linear warm-up, then cosine decay to 10% of `lr`."""
    if step < warmup:
        return lr * (step + 1) / warmup
    frac = (step - warmup) / max(1, steps - warmup)
    return lr * (0.1 + 0.9 * 0.5 * (1 + math.cos(math.pi * frac)))


def main(argv: list[str] | None = None) -> None:
    ap = job_parser("SFT warm-up (the shared base model of a task)")
    args = ap.parse_args(argv)
    seeds, block, task = load_job(args)
    cfg = block.sft
    seed = seeds[0]
    device = job_setup(args.scale, seed)
    rng = np.random.default_rng(seed)
    problems = task.read_problems(Path(args.data) / "train.jsonl")
    policy = build_policy(block.model, device)
    curve: list[dict[str, float]] = []
    running: list[float] = []
    opt = torch.optim.AdamW(policy.model.parameters(), lr=cfg.lr, weight_decay=0.01)
    policy.model.train()
    with Resumable(args.out, resume_key("rlvr.sft", args, block), every=cfg.checkpoint_every,
                   total=cfg.steps, rngs={"rng": rng}, inputs=[Path(args.data) / "train.jsonl"],
                   what="sft", map_location=device) as ck:
        st = ck.load()
        if st is not None:
            policy.model.load_state_dict(st["model"])
            opt.load_state_dict(st["opt"])
            running, curve = st["running"], st["curve"]
        for step in progress(range(ck.start, cfg.steps), desc="sft", total=cfg.steps):
            for g in opt.param_groups:
                g["lr"] = lr_at(step, cfg.steps, cfg.lr, cfg.warmup)
            ids, attn, act = sft_batch(
                policy, problems, rng, cfg.batch_size, task, cfg.correct_fraction
            )
            ids, attn, act = ids.to(device), attn.to(device), act.to(device)
            logp = token_stats(policy.model, ids, attn, 1.0)["logp"]
            loss = -(logp * act).sum() / act.sum()  # cross-entropy on the answer tokens
            opt.zero_grad(set_to_none=True)
            loss.backward()
            torch.nn.utils.clip_grad_norm_(policy.model.parameters(), 1.0)
            opt.step()
            running.append(float(loss.detach()))
            if (step + 1) % cfg.log_every == 0 or step + 1 == cfg.steps:
                curve.append({"step": step + 1, "loss": float(np.mean(running))})
                running = []
            ck.step(step + 1, lambda r=running: {"model": policy.model.state_dict(),
                                                 "opt": opt.state_dict(), "running": r,
                                                 "curve": curve})
        if cfg.steps > 0:
            log.info("sft done: final loss %.4f", curve[-1]["loss"])
        sft_log = {
            "seed": seed,
            "n_params": n_params(policy.model),
            "model": block.model,
            "sft": cfg.logged(),
            "steps": curve,
            "note": "pretrained base used as is"
            if cfg.steps == 0
            else "random valid-format equations"
            if args.task == "countdown"
            else "boxed answers of random training problems",
        }
        with atomic_path(args.out) as tmp:
            save_policy(policy, tmp, weights=cfg.steps > 0)
            write_json(tmp / "sft_log.json", sft_log)


if __name__ == "__main__":
    main()
