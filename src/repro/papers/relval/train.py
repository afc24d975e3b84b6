"""CLI: one PPO / PPO+RV training run on one env and seed, written as JSON.

    python -m repro.papers.relval.train --config src/repro/papers/relval/config.yaml \\
        --scale small \\
        --env CartPole-v1 --agent ppo_rv --seed 0 --out results/.../seed0.json

Settings: `ppo` deep-merged with `envs[<env>]` (per-env overrides), plus `rv` for the relative
critic, typed as `settings.PPOConfig` and passed down as that. CPU with one intra-op thread
(reproducible, and Snakemake runs jobs side by side) unless --device cuda; --scale full
requires a GPU. A run stopped by SIGTERM / SIGINT (or killed) resumes when rerun: see
`ppo.train` and repro.core.checkpoint (`ppo.checkpoint_every`).
"""

from __future__ import annotations

from dataclasses import asdict

from repro.core.checkpoint import settings_key
from repro.core.config import job_parser
from repro.core.io import write_json
from repro.core.progress import get_logger
from repro.papers.relval.agent import AGENTS
from repro.papers.relval.settings import load


def main(argv: list[str] | None = None) -> None:
    ap = job_parser(__doc__.splitlines()[0], log=True)
    ap.add_argument("--env", required=True)
    ap.add_argument("--agent", required=True)
    ap.add_argument("--seed", required=True, type=int)
    ap.add_argument("--device", default="cpu", choices=["cpu", "cuda"])
    args = ap.parse_args(argv)

    s = load(args.config, args.scale)
    agents = [a for a in s.all_agents() if s.base_agent(a) in AGENTS]
    if args.agent not in agents:
        raise SystemExit(f"unknown agent {args.agent!r}: allowed are {', '.join(agents)}")
    envs = s.allowed_envs()
    if args.agent in s.ablations:
        envs = list(s.ablations[args.agent].get("envs") or [])
    if args.env not in envs:
        raise SystemExit(f"unknown env {args.env!r} for {args.agent} at scale {args.scale}: "
                         f"allowed are {', '.join(envs)}")
    cfg = s.run_config(args.env, args.agent)

    import torch  # noqa: F401  (so seed_everything / limit_cpu_threads see it)

    from repro.core.device import NoGPUError, limit_cpu_threads, pick_device
    from repro.core.seeding import seed_everything
    from repro.papers.relval.ppo import train

    atari = args.env.startswith("ALE/")
    try:  # the paper's Atari runs need a GPU at full; classic control stays on the CPU
        device = pick_device(require_gpu=args.scale == "full" and atari)
    except NoGPUError as e:
        raise SystemExit(str(e)) from None
    if not atari or (args.device == "cpu" and args.scale != "full"):
        device = "cpu"
    limit_cpu_threads(1)
    seed_everything(args.seed)
    log = get_logger(f"relval.train.{args.agent}", args.log)
    key = {"job": "relval.train", "env": args.env, "agent": args.agent, "seed": args.seed,
           "device": device, "settings": settings_key(asdict(cfg))}
    result = train(cfg, args.env, s.base_agent(args.agent), args.seed, log=log.info,
                   device=device, resume=args.out, resume_key=key)
    result.update(env=args.env, agent=args.agent, seed=args.seed, scale=args.scale,
                  device=device, ablation=args.agent in s.ablations)
    result["records"] = [{"method": args.agent, "metric": f"{args.env}/final_return",
                          "seed": args.seed, "value": result["final_return"]}]
    write_json(args.out, result)
    log.info(f"wrote {args.out}: final_return={result['final_return']:.2f} "
             f"sps={result['sps']:.0f}")


if __name__ == "__main__":
    main()
