"""The RL loop every method shares: sample a rollout batch from the current policy, score it,
take `minibatches` gradient steps on the method's objective (objectives.py), repeat.

`--task countdown` (default; config block `countdown:`) or `--task math` (block `math:`): the
same loop, only problems, prompts and rewards differ (tasks.py). A paper's train CLI calls
`main(argv, make_objective, methods, description)` with its own objectives, e.g.

    python -m repro.papers.<paper>.train --config src/repro/papers/<paper>/config.yaml \
        --scale small \
        --method <method> --seed 0 --data data/<paper>/small \
        --base results/small/<paper>/countdown/base \
        --out results/small/<paper>/countdown/<method>/seed0

Every method sees the same schedule: `steps` rollout batches of `prompts_per_step` problems x
`group_size` samples, each batch split into `minibatches` gradient steps (so after the first
one pi_old, the policy that sampled the batch, lags pi: PPO clipping and objectives that read
pi_old matter). With dynamic sampling (DAPO) a step draws rounds of problems until
`prompts_per_step` groups with mixed correctness are kept (at most `max_gen_batches` rounds);
the log counts every rollout sampled. Writes the trained policy and `train_log.json`. A run
stopped mid-way (SIGTERM, SIGINT, a SLURM time limit) saves its state at the end of the step and
a rerun resumes from it (`.<out>.resume/`, repro.core.checkpoint), as it does from the state
saved every `checkpoint_every` steps after a kill: same bytes as an uninterrupted run on CPU.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, is_dataclass
from pathlib import Path
from typing import Any

import numpy as np
import torch

from repro.core.io import atomic_path, write_json
from repro.core.progress import get_logger, progress
from repro.core.rlvr.objectives import Objective, RLConfig, masked_mean
from repro.core.rlvr.policy import (
    Policy,
    job_setup,
    load_policy,
    pack,
    sample,
    save_policy,
    token_stats,
)
from repro.core.rlvr.tasks import Task, TaskConfig, job_parser, load_job, resume_key

log = get_logger("rlvr.train")


def _micro_slices(n: int, size: int) -> list[slice]:
    return [slice(i, min(i + size, n)) for i in range(0, n, size)]


def _trim(ids: torch.Tensor, attn: torch.Tensor, act: torch.Tensor, sl: slice):
    """Rows `sl`, cut to their longest sequence (saves compute at long response caps)."""
    length = int(attn[sl].sum(1).max())
    return ids[sl, :length], attn[sl, :length], act[sl, : length - 1]


@torch.no_grad()
def _stats(model: torch.nn.Module, ids, attn, act, cfg: RLConfig, mean_vocab: bool) -> dict:
    """Per-token log-probs (and vocab means) of a whole rollout batch, padded to its width."""
    out: dict[str, torch.Tensor] = {}
    width = act.shape[1]
    for sl in _micro_slices(ids.shape[0], cfg.micro_batch_size or ids.shape[0]):
        i, a, _ = _trim(ids, attn, act, sl)
        st = token_stats(model, i, a, cfg.temperature, mean_vocab=mean_vocab)
        for k, v in st.items():
            buf = out.setdefault(k, torch.zeros((ids.shape[0], width), device=v.device))
            buf[sl, : v.shape[1]] = v
    return out


def rollouts(
    cfg: RLConfig,
    policy: Policy,
    problems: list,
    chosen: np.ndarray,
    gen: torch.Generator,
    task: Task,
) -> dict[str, Any]:
    """`group_size` sampled responses per chosen problem, scored; groups are contiguous."""
    tok = policy.tokenizer
    batch = [problems[int(i)] for i in chosen for _ in range(cfg.group_size)]
    prompts = [task.prompt_ids(tok, p) for p in batch]
    responses, ent_sums = sample(
        policy,
        prompts,
        cfg.max_new_tokens,
        cfg.temperature,
        cfg.top_p,
        gen,
        batch_size=cfg.gen_batch_size or len(prompts),
    )
    graded = [task.score(tok.decode(r), p) for r, p in zip(responses, batch, strict=True)]
    return {
        "prompts": prompts,
        "responses": responses,
        "ent_sums": ent_sums,
        "rewards": [s for s, _ in graded],
        "correct": [float(ok) for _, ok in graded],
    }


def _keep_groups(ro: dict[str, Any], keep: list[int], g: int) -> dict[str, Any]:
    rows = [gi * g + j for gi in keep for j in range(g)]
    return {k: [v[r] for r in rows] for k, v in ro.items()}


def dynamic_rollouts(
    cfg: RLConfig,
    policy: Policy,
    problems: list,
    rng: np.random.Generator,
    gen: torch.Generator,
    task: Task,
) -> tuple[dict[str, Any], dict[str, float]]:
    """DAPO's dynamic sampling: rounds of fresh problems until `prompts_per_step` groups whose
    correctness varies are kept (groups that are all right or all wrong carry no signal)."""
    g, want = cfg.group_size, cfg.prompts_per_step
    per_round = min(len(problems), cfg.gen_prompts_per_step or want)
    kept: dict[str, list] = {}
    every: dict[str, list] = {}
    n_kept = sampled = rounds = 0
    while n_kept < want and rounds < cfg.max_gen_batches:
        chosen = rng.choice(len(problems), size=per_round, replace=False)
        ro = rollouts(cfg, policy, problems, chosen, gen, task)
        for k, v in ro.items():
            every.setdefault(k, []).extend(v)
        rounds += 1
        sampled += len(ro["responses"])
        acc = np.asarray(ro["correct"]).reshape(-1, g)
        mixed = [int(i) for i in np.flatnonzero(acc.min(1) < acc.max(1))][: want - n_kept]
        for k, v in _keep_groups(ro, mixed, g).items():
            kept.setdefault(k, []).extend(v)
        n_kept += len(mixed)
    if not n_kept:
        kept = {k: [] for k in ("prompts", "responses", "ent_sums", "rewards", "correct")}
    # the policy's statistics over every rollout sampled (the kept ones are a biased subset)
    return kept, {**sample_metrics(every), "rollouts_sampled": float(sampled),
                  "gen_rounds": float(rounds), "kept_groups": float(n_kept)}


def sample_metrics(ro: dict[str, Any]) -> dict[str, float]:
    """Reward, accuracy, token entropy and length of a set of rollouts."""
    n = len(ro["responses"])
    n_tokens = sum(len(r) for r in ro["responses"])
    return {
        "reward_mean": float(torch.tensor(ro["rewards"], dtype=torch.float32).mean()),
        "accuracy": float(np.mean(ro["correct"])),
        "entropy": float(sum(ro["ent_sums"]) / max(1, n_tokens)),
        "response_length": n_tokens / max(1, n),
    }


def rl_step(
    cfg: RLConfig,
    obj: Objective,
    policy: Policy,
    ref_model: torch.nn.Module | None,
    opt: torch.optim.Optimizer,
    problems: list,
    rng: np.random.Generator,
    gen: torch.Generator,
    task: Task,
) -> dict[str, Any]:
    """One rollout batch and its `minibatches` gradient steps; returns the step's metrics."""
    tok, model, dev = policy.tokenizer, policy.model, policy.device
    g = cfg.group_size
    if obj.dynamic_sampling:
        ro, out = dynamic_rollouts(cfg, policy, problems, rng, gen, task)
    else:
        chosen = rng.choice(len(problems), size=cfg.prompts_per_step, replace=False)
        ro = rollouts(cfg, policy, problems, chosen, gen, task)
        out = {**sample_metrics(ro), "rollouts_sampled": float(len(ro["responses"]))}
    responses = ro["responses"]
    n = len(responses)
    if n < g * cfg.minibatches:  # dynamic sampling kept too few groups: no update this step
        out["skipped"] = 1.0
        return out
    rewards = torch.tensor(ro["rewards"], dtype=torch.float32, device=dev)
    correct = torch.tensor(ro["correct"], dtype=torch.float32, device=dev)
    ids, attn, act = (t.to(dev) for t in pack(ro["prompts"], responses, tok.pad_id))
    model.eval()
    with policy.amp():
        old = _stats(model, ids, attn, act, cfg, mean_vocab=obj.mean_vocab)
        ref_logp = (
            _stats(ref_model, ids, attn, act, cfg, False)["logp"] if ref_model is not None else None
        )
    terms = obj.batch_terms(rewards, correct, g, cfg.adv_eps)
    model.train()
    mb = n // cfg.minibatches
    infos: list[dict[str, float]] = []
    for m in range(cfg.minibatches):
        rows = slice(m * mb, n if m == cfg.minibatches - 1 else (m + 1) * mb)
        micro = _micro_slices(rows.stop - rows.start, cfg.micro_batch_size or mb)
        opt.zero_grad(set_to_none=True)
        info_mb: dict[str, float] = {"loss": 0.0}
        for s in micro:
            sl = slice(rows.start + s.start, rows.start + s.stop)
            i, a, k = _trim(ids, attn, act, sl)
            w = k.shape[1]
            old_sl = {key: v[sl, :w] for key, v in old.items()}
            ref_sl = ref_logp[sl, :w] if ref_logp is not None else None
            terms_sl = {key: v[sl] for key, v in terms.items()}
            with policy.amp():
                cur = token_stats(model, i, a, cfg.temperature, mean_vocab=obj.mean_vocab)
                loss, info = obj.loss(cur, old_sl, terms_sl, k, ref_sl)
            (loss / len(micro)).backward()
            info_mb["loss"] += float(loss.detach()) / len(micro)
            for key, v in info.items():
                info_mb[key] = info_mb.get(key, 0.0) + v / len(micro)
        info_mb["grad_norm"] = float(
            torch.nn.utils.clip_grad_norm_(model.parameters(), cfg.grad_clip)
        )
        opt.step()
        infos.append(info_mb)
    out["signal_abs_mean"] = float(next(iter(terms.values())).abs().mean())
    for key in infos[0]:
        out[key] = float(np.mean([d[key] for d in infos]))
    out["old_logp_mean"] = float(masked_mean(old["logp"], act))
    return out


def _lr_at(cfg: RLConfig, step: int) -> float:
    if cfg.warmup_steps and step < cfg.warmup_steps:
        return cfg.lr * (step + 1) / cfg.warmup_steps
    return cfg.lr


def _config_log(cfg: RLConfig, obj: Objective) -> dict[str, Any]:
    out = asdict(cfg)
    out["objective"] = asdict(obj) if is_dataclass(obj) else {"name": obj.name}
    return out


def main(
    argv: list[str] | None,
    make_objective: Callable[[str, TaskConfig], Objective],
    methods: Sequence[str],
    description: str,
) -> None:
    """Train one method and seed; `make_objective(method, task_config)` builds its objective."""
    # here, not at the top: modules that reuse the loop's pieces (nft/equivalence.py) never save
    from repro.core.checkpoint import Resumable, settings_key

    ap = job_parser(description)
    ap.add_argument("--method", required=True)
    ap.add_argument("--seed", type=int, required=True)
    ap.add_argument("--base", required=True)
    args = ap.parse_args(argv)
    _, block, task = load_job(args)
    allowed = [m for m in block.methods if m in methods]
    if args.method not in allowed:
        raise SystemExit(f"unknown method {args.method!r}: allowed are {', '.join(allowed)}")
    cfg = block.rl
    obj = make_objective(args.method, block)
    device = job_setup(args.scale, args.seed)
    problems = task.read_problems(Path(args.data) / "train.jsonl")
    policy = load_policy(args.base, device)
    ref_model = None
    if obj.needs_ref:  # the KL reference is the base (SFT) model, frozen
        ref_model = load_policy(args.base, device).model.eval().requires_grad_(False)
    opt = torch.optim.AdamW(policy.model.parameters(), lr=cfg.lr, weight_decay=cfg.weight_decay)
    rng = np.random.default_rng(args.seed)
    gen = torch.Generator(device=device).manual_seed(args.seed)
    steps: list[dict[str, Any]] = []
    out = Path(args.out)
    key = {**resume_key("rlvr.train", args, block), "objective": _config_log(cfg, obj)}
    with Resumable(out, settings_key(key), every=cfg.checkpoint_every, total=cfg.steps,
                   rngs={"rng": rng, "gen": gen}, inputs=[Path(args.data) / "train.jsonl",
                                                          args.base],
                   what=f"{args.method} seed {args.seed}", map_location=device) as ck:
        st = ck.load()
        if st is not None:
            policy.model.load_state_dict(st["model"])
            opt.load_state_dict(st["opt"])
            steps = st["steps"]
        t0 = time.time()
        for step in progress(
            range(ck.start, cfg.steps), desc=f"{args.method} s{args.seed}", total=cfg.steps
        ):
            for group in opt.param_groups:
                group["lr"] = _lr_at(cfg, step)
            m = rl_step(cfg, obj, policy, ref_model, opt, problems, rng, gen, task)
            steps.append({"step": step + 1, **m})
            if (step + 1) % max(1, cfg.steps // 10) == 0:
                log.info(
                    "step %d reward %.3f acc %.3f entropy %.3f",
                    step + 1,
                    m.get("reward_mean", float("nan")),
                    m.get("accuracy", float("nan")),
                    m.get("entropy", float("nan")),
                )
            ck.step(step + 1, lambda: {"model": policy.model.state_dict(),
                                       "opt": opt.state_dict(), "steps": steps})
        _finish(args, cfg, obj, policy, steps, out, t0)


def _finish(args, cfg: RLConfig, obj: Objective, policy: Policy, steps: list[dict[str, Any]],
            out: Path, t0: float) -> None:
    log.info("%s seed %d: %d steps in %.1fs", args.method, args.seed, cfg.steps, time.time() - t0)
    train_log = {
        "method": args.method,
        "seed": args.seed,
        "config": _config_log(cfg, obj),
        "steps": steps,
    }
    with atomic_path(out) as tmp:
        save_policy(policy, tmp)
        write_json(tmp / "train_log.json", train_log)
