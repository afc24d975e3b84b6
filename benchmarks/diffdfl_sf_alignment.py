"""How well the score-function gradient follows the reparameterisation gradient on the power
task, and why (prints a table; no test asserts it).

    .venv/bin/python benchmarks/diffdfl_sf_alignment.py

Part 1 (the model-free check): y ~ N(mu, s^2 I) per hour with the density known exactly, one
instance, many draws. The score-function estimator E[w(y) grad_mu log p(y)] is computed with
the KKT Hessian the official code uses (H = I, the sample-average problem's Hessian almost
everywhere) and with the population problem's Hessian, I + (gamma_under + gamma_over)
diag(p_h(z_h)) (the positive parts' kinks smoothed by the density), and compared with the
reparameterisation gradient of the sample-average solution (cosine). Part 2: the two-stage
diffusion model of a finished small run (if present): cosine of the two estimators' gradients
on one batch, for several numbers of forward-diffusion draws and both weightings.
"""

from __future__ import annotations

import math
import sys
from pathlib import Path

import torch

from repro.papers.diffdfl.method import decide, kkt_adjoint
from repro.papers.diffdfl.problems import PowerProblem


def gaussian_check(M: int = 20000, seed: int = 0) -> None:
    torch.manual_seed(seed)
    prob = PowerProblem(24, 0.4, 50.0, 0.5)
    h = torch.arange(24, dtype=torch.float64)
    mu = (1.6 + 0.3 * torch.sin(h / 4)).requires_grad_()
    s = 0.15
    y_true = (1.6 + 0.3 * torch.sin(h / 4) + 0.1)[None]
    Y = mu + s * torch.randn(1, M, 24, dtype=torch.float64)
    (g_rp,) = torch.autograd.grad(prob.cost(decide(prob, Y), y_true).sum(), mu)
    z, lam = (torch.as_tensor(a) for a in prob.solve(Y.detach().numpy()))
    zt = z.clone().requires_grad_()
    (dl_dz,) = torch.autograd.grad(prob.cost(zt, y_true).sum(), zt)
    score = (Y.detach() - mu.detach()) / s**2
    gz = prob.grad_z(z, Y.detach())
    dens = torch.exp(-0.5 * ((z - mu.detach()) / s) ** 2) / (s * math.sqrt(2 * math.pi))
    rows = []
    for name, extra in (("H = I (official)", None),
                        ("H = I + (gu + go) p(z) (population)", (prob.gu + prob.go) * dens)):
        hess = prob.hess
        if extra is not None:
            prob.hess = lambda z_, Y_, e=extra: torch.diag_embed(1.0 + e.expand(len(z_), -1))
        v = kkt_adjoint(prob, z, Y.detach(), lam, dl_dz)
        prob.hess = hess
        w = -(v[:, None, :] * gz).sum(-1)
        g_sf = (w[..., None] * score).mean(1)[0]
        cos = float(torch.nn.functional.cosine_similarity(g_sf, g_rp, 0))
        rows.append((name, cos, float(g_sf.norm() / g_rp.norm())))
    print(f"Gaussian scenarios (exact log-density), {M} draws, one instance:")
    print("| KKT Hessian in the score function | cos(SF, RP) | |SF| / |RP| |")
    print("|---|---|---|")
    for name, cos, ratio in rows:
        print(f"| {name} | {cos:.3f} | {ratio:.2f} |")


def diffusion_check(run: Path, data: Path) -> None:
    from repro.papers.diffdfl.method import task_gradient
    from repro.papers.diffdfl.settings import load
    from repro.papers.diffdfl.train import load_model, load_task

    cfg = load("src/repro/papers/diffdfl/config.yaml", "small")
    d = load_task(cfg, "power", data, 0)
    m = load_model(run, "two_stage_diffusion", d["x"].shape[1], 24, cfg)
    prob = PowerProblem(24, cfg.power.c_ramp, cfg.power.gamma_under, cfg.power.gamma_over)
    x, y = d["x"][:32], d["y"][:32]

    def flat(g):
        return torch.cat([t.reshape(-1) for t in g])

    g_rp = flat(task_gradient("dfl_diffusion_rp", m, prob, x, y, 16, 1, "simple",
                              torch.Generator().manual_seed(3))[0])
    print("\nTwo-stage diffusion model of the small run, one batch of 32, M = 16, the same "
          "draws for both estimators:")
    print("| forward-diffusion draws | weighting | cos(SF, RP) |")
    print("|---|---|---|")
    for k in (16, 128):
        for wt in ("simple", "elbo"):
            g_sf = flat(task_gradient("dfl_diffusion_sf", m, prob, x, y, 16, k, wt,
                                      torch.Generator().manual_seed(3))[0])
            print(f"| {k} | {wt} | "
                  f"{float(torch.nn.functional.cosine_similarity(g_sf, g_rp, 0)):.3f} |")


if __name__ == "__main__":
    gaussian_check()
    run = Path("results/small/diffdfl/runs/power/two_stage_diffusion/seed0.pt")
    data = Path("data/diffdfl/small/power.npz")
    if run.exists() and data.exists():
        diffusion_check(run, data)
    else:
        print(f"\n(no {run}: run `snakemake paper_diffdfl` for part 2)", file=sys.stderr)
