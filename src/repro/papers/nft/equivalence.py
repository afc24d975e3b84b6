"""Prop. 4.2 checked on real gradients: in strict on-policy training NFT's gradient is GRPO's.

    python -m repro.papers.nft.equivalence --config src/repro/papers/nft/config.yaml --scale small \
        --data data/nft/small --base results/small/nft/countdown/base \
        --out results/small/nft/equivalence.json

Per seed: the warmed-up base policy (in float64, so agreement is limited by arithmetic, not
by fp32 noise) samples one rollout batch of Countdown problems whose groups have mixed
correctness (as dynamic sampling keeps them). On that batch, with pi == pi_old, we take the
full parameter gradient of each objective and compare pairs:

    nft (normalize 2)  vs  GRPO       (token-mean clipped surrogate, (c - mean)/std advantages)
    nft (normalize 1)  vs  Dr.GRPO    (token sums / response cap, c - mean advantages)
and controls that should *not* agree: nft (normalize 0) vs GRPO, RFT vs GRPO.

cosine = <g_a, g_b> / (|g_a| |g_b|); rel_diff = |g_a - g_b| / |g_b| (exact match, meaningful
where the aggregation constants agree: the Dr.GRPO pair); rel_diff_scaled = the same after the
best scalar rescaling of g_b (collinearity, independent of aggregation constants).

Off-policy: the pair's NFT objective then takes `off_policy_updates` AdamW steps on the same
batch (pi_old frozen at the sampling policy, as PPO-style minibatch epochs do), and the pair's
cosine is measured again after each: ratio != 1 breaks the equivalence (NFT's positive term
has gradient -grad log pi whatever the ratio; GRPO's is A ratio grad log pi, zeroed past the
clip).
"""

from __future__ import annotations

import copy
import time
from dataclasses import asdict, dataclass, replace
from pathlib import Path
from typing import Any

import numpy as np
import torch

from repro.core.config import job_parser, load_settings, typed
from repro.core.device import limit_cpu_threads
from repro.core.io import write_json
from repro.core.progress import get_logger
from repro.core.rlvr.objectives import Objective, PPOObjective, RLConfig
from repro.core.rlvr.policy import load_policy, pack, token_stats
from repro.core.rlvr.tasks import TaskConfig, get_task
from repro.core.rlvr.trainer import dynamic_rollouts
from repro.core.seeding import seed_everything
from repro.papers.nft.algos import NFTObjective

log = get_logger("nft.equivalence")


@dataclass
class EquivalenceConfig:
    """The gradient check's `equivalence:` block."""

    n_prompts: int  # groups with mixed correctness in the on-policy batch
    group_size: int  # rollouts per group
    off_policy_updates: int  # AdamW steps of the NFT side on the same batch (pi_old frozen)
    lr: float  # their learning rate
    inject_solutions: bool = False  # tiny plumbing: see with_injected_solutions


def pairs(response_cap: float, clip_eps: float = 0.2) -> dict[str, tuple[Objective, Objective]]:
    """name -> (NFT-side objective, RL-side objective); the first two are Prop. 4.2."""
    grpo = PPOObjective("grpo", clip_eps, clip_eps, advantage="grpo")
    dr_grpo = PPOObjective(
        "dr_grpo", clip_eps, clip_eps, advantage="centred", agg_norm=response_cap
    )

    def nft(name: str, normalize: int, neg_weight: float = 1.0) -> NFTObjective:
        return NFTObjective(name, neg_weight=neg_weight, normalize=normalize,
                            agg_norm=response_cap)

    return {
        "nft_norm2_vs_grpo": (nft("nft_norm2", 2), grpo),
        "nft_norm1_vs_dr_grpo": (nft("nft_norm1", 1), dr_grpo),
        "control_nft_norm0_vs_grpo": (nft("nft_norm0", 0), grpo),
        "control_rft_vs_grpo": (nft("rft", 1, 0.0), grpo),
    }


def flat_grad(
    model: torch.nn.Module,
    obj: Objective,
    batch: dict[str, Any],
    temperature: float,
) -> torch.Tensor:
    """The full parameter gradient of `obj` on `batch` (old statistics fixed in the batch)."""
    model.zero_grad(set_to_none=True)
    cur = token_stats(model, batch["ids"], batch["attn"], temperature)
    loss, _ = obj.loss(cur, batch["old"], batch["terms"][obj.name], batch["act"], None)
    loss.backward()
    return torch.cat([p.grad.reshape(-1) for p in model.parameters() if p.grad is not None])


def compare(a: torch.Tensor, b: torch.Tensor) -> dict[str, float]:
    na, nb = a.norm(), b.norm()
    scale = (a @ b) / (nb * nb)
    return {
        "cosine": float((a @ b) / (na * nb)),
        "norm_ratio": float(na / nb),
        "rel_diff": float((a - b).norm() / nb),
        "rel_diff_scaled": float((a - scale * b).norm() / na),
    }


def make_batch(
    model: torch.nn.Module,
    prompts: list[list[int]],
    responses: list[list[int]],
    rewards: torch.Tensor,
    correct: torch.Tensor,
    group_size: int,
    pad_id: int,
    objectives: list[Objective],
    temperature: float,
    adv_eps: float = 1e-6,
) -> dict[str, Any]:
    """Packed rollouts, the sampling policy's log-probs (pi_old) and every objective's terms."""
    ids, attn, act = pack(prompts, responses, pad_id)
    dtype = next(model.parameters()).dtype
    rewards, correct = rewards.to(dtype), correct.to(dtype)
    with torch.no_grad():
        old = token_stats(model, ids, attn, temperature)
    terms = {o.name: o.batch_terms(rewards, correct, group_size, adv_eps) for o in objectives}
    return {"ids": ids, "attn": attn, "act": act.to(dtype), "old": old, "terms": terms}


def check(
    model: torch.nn.Module,
    batch: dict[str, Any],
    response_cap: float,
    updates: int,
    lr: float,
    temperature: float,
    clip_eps: float = 0.2,
) -> dict[str, dict[str, Any]]:
    """On-policy comparison of every pair, then `updates` off-policy steps of its NFT side."""
    out: dict[str, dict[str, Any]] = {}
    for name, (a, b) in pairs(response_cap, clip_eps).items():
        m = copy.deepcopy(model)
        row: dict[str, Any] = {"on_policy": compare(flat_grad(m, a, batch, temperature),
                                                    flat_grad(m, b, batch, temperature))}
        opt = torch.optim.AdamW(m.parameters(), lr=lr, weight_decay=0.0)
        after = []
        for _ in range(updates):
            flat_grad(m, a, batch, temperature)
            opt.step()
            with torch.no_grad():
                cur = token_stats(m, batch["ids"], batch["attn"], temperature)["logp"]
                dev = ((cur - batch["old"]["logp"]).abs() * batch["act"]).sum() / batch["act"].sum()
            after.append({**compare(flat_grad(m, a, batch, temperature),
                                    flat_grad(m, b, batch, temperature)),
                          "mean_abs_log_ratio": float(dev)})
        row["off_policy"] = after
        out[name] = row
    return out


def records(result: dict[str, dict[str, Any]], seed: int) -> list[dict[str, Any]]:
    recs = []
    for name, row in result.items():
        for k, v in row["on_policy"].items():
            recs.append({"method": name, "metric": f"{k}_on_policy", "seed": seed, "value": v})
        steps = row["off_policy"]
        for i, step in enumerate(steps, start=1):
            for k in ("cosine", "mean_abs_log_ratio"):
                for tag in (str(i), *(["last"] if i == len(steps) else [])):
                    recs.append(
                        {"method": name, "metric": f"{k}_after_{tag}", "seed": seed,
                         "value": step[k]}
                    )
    return recs


def with_injected_solutions(
    rl: RLConfig, policy: Any, problems: list, seed: int, task: Any
) -> tuple[dict[str, Any], int]:
    """Plumbing runs (tiny) whose base never solves a problem: one sampled round where in each
    all-wrong group a random number (1..G-1) of responses is replaced by known solutions.
    The identity checked holds for any responses scored at ratio 1; the count is recorded."""
    from repro.core.rlvr import countdown
    from repro.core.rlvr.trainer import rollouts

    rng = np.random.default_rng(seed)
    chosen = rng.choice(len(problems), size=min(len(problems), rl.prompts_per_step), replace=False)
    ro = rollouts(rl, policy, problems, chosen, torch.Generator().manual_seed(seed), task)
    g, tok, injected = rl.group_size, policy.tokenizer, 0
    for gi, pi in enumerate(chosen):
        rows = range(gi * g, (gi + 1) * g)
        sols = countdown.solutions(problems[int(pi)])
        if sols and not any(ro["correct"][r] for r in rows):
            for r in range(gi * g, gi * g + int(rng.integers(1, g))):  # varied correct rates
                ro["responses"][r] = tok.encode(sols[int(rng.integers(len(sols)))]) + [tok.eos_id]
                ro["rewards"][r], ro["correct"][r] = 1.0, 1.0
                injected += 1
    mixed = [gi for gi in range(len(chosen))
             if 0 < sum(ro["correct"][gi * g:(gi + 1) * g]) < g]
    rows = [gi * g + j for gi in mixed for j in range(g)]
    return {k: [v[r] for r in rows] for k, v in ro.items()}, injected


def main(argv: list[str] | None = None) -> None:
    ap = job_parser("NFT = GRPO on-policy: gradient check")
    ap.add_argument("--data", required=True)
    ap.add_argument("--base", required=True)
    args = ap.parse_args(argv)
    settings = load_settings(args.config, args.scale)
    limit_cpu_threads(1)
    cd = TaskConfig.from_settings(settings["countdown"], "countdown")
    eq = typed(EquivalenceConfig, settings["equivalence"], "equivalence")
    task = get_task("countdown", cd)
    problems = task.read_problems(Path(args.data) / "train.jsonl")
    cap = float(cd.rl.max_new_tokens)
    temperature = float(cd.rl.temperature)
    all_recs: list[dict[str, Any]] = []
    per_seed: dict[str, Any] = {}
    t0 = time.time()
    for seed in settings["seeds"]:
        seed_everything(int(seed))
        device = "cpu"  # a float64 check of arithmetic: the CPU is exact and enough
        policy = load_policy(args.base, device)
        policy.model.double()
        rl = replace(cd.rl, prompts_per_step=eq.n_prompts, group_size=eq.group_size,
                     gen_prompts_per_step=eq.n_prompts * 4, max_gen_batches=50)
        ro, info = dynamic_rollouts(
            rl, policy, problems, np.random.default_rng(seed),
            torch.Generator(device=device).manual_seed(int(seed)), task,
        )
        injected = 0
        if not ro["responses"] and eq.inject_solutions:
            ro, injected = with_injected_solutions(rl, policy, problems, seed, task)
        if not ro["responses"]:
            raise SystemExit(
                "no group with mixed correctness was sampled: warm up the base longer "
                "(or set equivalence.inject_solutions for a plumbing run)"
            )
        objs = [o for pair in pairs(cap).values() for o in pair]
        batch = make_batch(
            policy.model, ro["prompts"], ro["responses"], torch.tensor(ro["rewards"]),
            torch.tensor(ro["correct"]),
            eq.group_size, policy.tokenizer.pad_id, objs, temperature, float(rl.adv_eps),
        )
        res = check(policy.model, batch, cap, eq.off_policy_updates, float(eq.lr), temperature)
        per_seed[str(seed)] = {"batch": {"groups": int(info["kept_groups"]),
                                         "rollouts": len(ro["responses"]),
                                         "accuracy": float(np.mean(ro["correct"])),
                                         "injected_solutions": injected},
                               "pairs": res}
        all_recs += records(res, int(seed))
        log.info("seed %s: %s", seed, ", ".join(
            f"{k} cos {v['on_policy']['cosine']:.12f}" for k, v in res.items()))
    write_json(args.out, {"records": all_recs, "per_seed": per_seed, "settings": asdict(eq),
                          "seconds": time.time() - t0})


if __name__ == "__main__":
    main()
