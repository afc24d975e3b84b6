"""Environment steps per second of our PPO / PPO+RV loop on Atari against a cleanrl-style
reference PPO loop written here (same envs, network size, rollout and update schedule), as a
ratio. Target: our PPO within 1.5x of the reference (ratio >= 0.67).

Run: .venv/bin/python benchmarks/relval_throughput.py [--env ALE/Breakout-v5] [--steps 8192]

Both loops run on one CPU thread (the pipeline's jobs do) unless --threads says otherwise.
"""

from __future__ import annotations

import argparse
import time

import numpy as np
import torch
from torch import nn

from repro.core.config import load_settings


def reference_ppo(game: str, steps: int, s: dict, seed: int = 0) -> float:
    """cleanrl's ppo_atari shape: Nature CNN, GAE, clipped surrogate and value loss."""
    from ale_py.vector_env import AtariVectorEnv

    torch.manual_seed(seed)
    n_envs, n_steps = s["n_envs"], s["n_steps"]
    envs = AtariVectorEnv(game=game, num_envs=n_envs)
    n_act = envs.single_action_space.n

    def layer(m: nn.Module, std: float = np.sqrt(2)) -> nn.Module:
        nn.init.orthogonal_(m.weight, std)
        nn.init.constant_(m.bias, 0.0)
        return m

    body = nn.Sequential(
        layer(nn.Conv2d(4, 32, 8, stride=4)), nn.ReLU(),
        layer(nn.Conv2d(32, 64, 4, stride=2)), nn.ReLU(),
        layer(nn.Conv2d(64, 64, 3, stride=1)), nn.ReLU(),
        nn.Flatten(), layer(nn.Linear(64 * 7 * 7, 512)), nn.ReLU(),
    )
    actor, critic = layer(nn.Linear(512, n_act), 0.01), layer(nn.Linear(512, 1), 1.0)
    params = [*body.parameters(), *actor.parameters(), *critic.parameters()]
    opt = torch.optim.Adam(params, lr=s["lr"], eps=1e-5)
    obs_buf = torch.zeros((n_steps, n_envs, 4, 84, 84))
    act_buf = torch.zeros((n_steps, n_envs), dtype=torch.long)
    logp_buf, rew_buf, done_buf, val_buf = (torch.zeros((n_steps, n_envs)) for _ in range(4))
    obs, _ = envs.reset(seed=seed)
    obs = torch.as_tensor(obs, dtype=torch.float32)
    done = torch.zeros(n_envs)
    n_updates = max(1, steps // (n_envs * n_steps))
    t0 = time.perf_counter()
    for _ in range(n_updates):
        for t in range(n_steps):
            obs_buf[t], done_buf[t] = obs, done
            with torch.no_grad():
                h = body(obs / 255.0)
                dist = torch.distributions.Categorical(logits=actor(h))
                a = dist.sample()
                logp_buf[t], val_buf[t] = dist.log_prob(a), critic(h).squeeze(-1)
            act_buf[t] = a
            o, r, term, trunc, _ = envs.step(a.numpy())
            rew_buf[t] = torch.as_tensor(np.sign(r), dtype=torch.float32)
            obs = torch.as_tensor(o, dtype=torch.float32)
            done = torch.as_tensor(np.logical_or(term, trunc), dtype=torch.float32)
        with torch.no_grad():
            nxt = critic(body(obs / 255.0)).squeeze(-1)
        adv = torch.zeros_like(rew_buf)
        last = torch.zeros(n_envs)
        for t in reversed(range(n_steps)):
            nd = 1.0 - (done if t == n_steps - 1 else done_buf[t + 1])
            nv = nxt if t == n_steps - 1 else val_buf[t + 1]
            delta = rew_buf[t] + s["gamma"] * nv * nd - val_buf[t]
            last = delta + s["gamma"] * s["gae_lambda"] * nd * last
            adv[t] = last
        ret = adv + val_buf
        b = {k: v.reshape(n_steps * n_envs, *v.shape[2:]) for k, v in
             dict(obs=obs_buf, act=act_buf, logp=logp_buf, adv=adv, ret=ret).items()}
        n = n_steps * n_envs
        mb = n // s["n_minibatches"]
        for _ in range(s["update_epochs"]):
            idx = torch.randperm(n)
            for start in range(0, n, mb):
                i = idx[start:start + mb]
                h = body(b["obs"][i] / 255.0)
                dist = torch.distributions.Categorical(logits=actor(h))
                ratio = torch.exp(dist.log_prob(b["act"][i]) - b["logp"][i])
                a_mb = b["adv"][i]
                a_mb = (a_mb - a_mb.mean()) / (a_mb.std() + 1e-8)
                c = s["clip_coef"]
                pg = torch.max(-a_mb * ratio, -a_mb * ratio.clamp(1 - c, 1 + c)).mean()
                v = critic(h).squeeze(-1)
                loss = pg + s["vf_coef"] * 0.5 * ((v - b["ret"][i]) ** 2).mean() \
                    - s["ent_coef"] * dist.entropy().mean()
                opt.zero_grad()
                loss.backward()
                nn.utils.clip_grad_norm_(params, s["max_grad_norm"])
                opt.step()
    envs.close()
    return n_updates * n_envs * n_steps / (time.perf_counter() - t0)


def ours(env_id: str, agent: str, steps: int, s: dict, rv: dict, seed: int = 0) -> float:
    from repro.papers.relval.ppo import train

    settings = {**s, "total_steps": steps, "rv": rv}
    return float(train(settings, env_id, agent, seed, log=lambda *a, **k: None)["sps"])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--env", default="ALE/Breakout-v5")
    ap.add_argument("--steps", type=int, default=8192)
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--config", default="src/repro/papers/relval/config.yaml")
    a = ap.parse_args()
    torch.set_num_threads(a.threads)
    cfg = load_settings(a.config, "small")
    s = cfg["ppo"]
    game = a.env.split("/")[1].split("-")[0].lower()
    ref = reference_ppo(game, a.steps, s)
    print(f"reference cleanrl-style PPO: {ref:8.1f} env steps/s")
    for agent in cfg["agents"]:
        sps = ours(a.env, agent, a.steps, s, cfg["rv"])
        print(f"ours {agent:8s}:             {sps:8.1f} env steps/s  (ratio {sps / ref:.2f})")


if __name__ == "__main__":
    main()
