"""Decision-focused learning through a stochastic program (the paper's method, in one place).

A model draws M scenarios y_1..M ~ p_theta(y | x); the decision is the sample-average solution
z*(x) = argmin_z (1/M) sum_j g(z, y_j) s.t. G z <= h; training minimises the realised task
loss g(z*, y). Its gradient in theta goes through z*, by the implicit function theorem on the
KKT conditions F(z, lam; y) = [grad_z f + G^T lam ; diag(lam)(G z - h)] = 0:

    K = [[H, G^T], [diag(lam) G, diag(G z - h)]],   v = K^-T [dL/dz ; 0]   (the adjoint)

- reparameterisation (`decide`): dL/dy_j = -v_z^T d(grad_z f)/dy_j, and autograd carries it
  back through the sampler (for the diffusion model: through every DDIM step);
- score function (`sf_weights`, the paper's estimator): dz*/dtheta = -K^-1 [E grad_z g(z*, y)
  grad_theta log p_theta(y)] at the population problem, so dL/dtheta = E[w(y) grad_theta log
  p_theta(y)] with w(y) = -v_z^T grad_z g(z*, y): the scenarios are drawn without a graph, and
  log p_theta(y_j) is replaced by minus the denoising loss of a few forward-diffusion passes
  (`Diffusion.denoise_losses`), so memory does not grow with the sampling steps.

Both as the official code (GT-KOALA/Diffusion_DFL, solver_reparam*.py, solver_distribution_kkt.py),
written here; the KKT solve is torch.linalg on the solver's duals.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import torch

from repro.papers.diffdfl.problems import Problem

KKT_REG = 1e-9  # keeps rows of constraints with zero dual and zero slack solvable (dlam = 0)


def kkt_adjoint(problem: Problem, z: torch.Tensor, Y: torch.Tensor, lam: torch.Tensor,
                dl_dz: torch.Tensor) -> torch.Tensor:
    """v_z (B, n): the z block of K^-T [dL/dz ; 0], in float64."""
    z, Y, lam, g = z.double(), Y.double(), lam.double(), dl_dz.double()
    B, n = z.shape
    G = torch.as_tensor(problem.G, dtype=torch.float64)
    h = torch.as_tensor(problem.h, dtype=torch.float64)
    m = len(G)
    H = problem.hess(z, Y) + KKT_REG * torch.eye(n, dtype=torch.float64)
    slack = z @ G.T - h  # <= 0
    top = torch.cat([H, G.T.expand(B, n, m)], -1)
    bottom = torch.cat([lam[:, :, None] * G, torch.diag_embed(slack - KKT_REG)], -1)
    K = torch.cat([top, bottom], 1)
    rhs = torch.cat([g, torch.zeros(B, m, dtype=torch.float64)], -1)
    return torch.linalg.solve(K.transpose(1, 2), rhs)[:, :n]


class _Decision(torch.autograd.Function):
    @staticmethod
    def forward(ctx, Y: torch.Tensor, problem: Problem) -> torch.Tensor:
        z, lam = problem.solve(Y.detach().double().cpu().numpy())
        z_t = torch.as_tensor(z, dtype=Y.dtype)
        ctx.problem, ctx.device = problem, Y.device
        ctx.save_for_backward(Y.detach().cpu(), z_t, torch.as_tensor(lam, dtype=Y.dtype))
        return z_t.to(Y.device)

    @staticmethod
    def backward(ctx, dl_dz: torch.Tensor):
        Y, z, lam = ctx.saved_tensors
        v = kkt_adjoint(ctx.problem, z, Y, lam, dl_dz.cpu())
        with torch.enable_grad():
            Yd = Y.double().requires_grad_()
            gsaa = ctx.problem.grad_z(z.double(), Yd).mean(1)
            (dY,) = torch.autograd.grad(gsaa, Yd, grad_outputs=-v)
        return dY.to(dtype=Y.dtype, device=ctx.device), None


def decide(problem: Problem, Y: torch.Tensor) -> torch.Tensor:
    """z*(Y) for draws Y (B, M, n), differentiable in Y (reparameterisation); with
    `problem.pool_batch` one problem over all B M draws, its decision for every row."""
    if problem.pool_batch:
        return _Decision.apply(Y.reshape(1, -1, Y.shape[-1]), problem).expand(len(Y), -1)
    return _Decision.apply(Y, problem)


def solve(problem: Problem, Y: torch.Tensor) -> tuple[np.ndarray, np.ndarray, torch.Tensor]:
    """Decisions and duals for draws Y (B, M, n) without a graph, and the draws as the
    program saw them ((1, B M, n) when pooled)."""
    Yp = Y.reshape(1, -1, Y.shape[-1]) if problem.pool_batch else Y
    z, lam = problem.solve(Yp.detach().double().cpu().numpy())
    return z, lam, Yp


def sf_weights(problem: Problem, z: torch.Tensor, Y: torch.Tensor, lam: torch.Tensor,
               dl_dz: torch.Tensor) -> torch.Tensor:
    """w_bj = -v_z^T grad_z g(z*_b, y_bj): each draw's weight in the score-function gradient."""
    v = kkt_adjoint(problem, z, Y, lam, dl_dz)
    return -(v[:, None, :] * problem.grad_z(z.double(), Y.double())).sum(-1)


@dataclass
class StepOut:
    task_loss: float  # the batch's realised task loss at the decisions of this step
    fit_loss: float  # the model's own fitting loss on the batch


def _flat(grads: tuple[torch.Tensor | None, ...], params: list[torch.nn.Parameter]
          ) -> list[torch.Tensor]:
    return [torch.zeros_like(p) if g is None else g for g, p in zip(grads, params, strict=True)]


def task_gradient(method: str, model: torch.nn.Module, problem: Problem, x: torch.Tensor,
                  y: torch.Tensor, mc: int, sf_timesteps: int, sf_weighting: str,
                  gen: torch.Generator | None = None) -> tuple[list[torch.Tensor], float]:
    """The gradient of the batch's mean task loss in the model's parameters, by the method's
    estimator; returns it and the loss."""
    params = [p for p in model.parameters() if p.requires_grad]
    if method == "dfl_diffusion_sf":
        with torch.no_grad():
            Y = model.draws(x, mc, gen)
        z, lam, Yp = solve(problem, Y)
        z_t = torch.as_tensor(z, dtype=torch.float32, device=y.device).requires_grad_()
        loss = problem.cost(z_t.expand(len(y), -1), y).mean()
        (dl_dz,) = torch.autograd.grad(loss, z_t)
        w = sf_weights(problem, z_t.detach().cpu(), Yp.cpu(), torch.as_tensor(lam),
                       dl_dz.cpu()).float().to(y.device)
        logp = -model.denoise_losses(Y.reshape(-1, Y.shape[-1]), x.repeat_interleave(mc, 0),
                                     sf_timesteps, sf_weighting, gen)
        surrogate = (w.reshape(-1) * logp).sum() / mc
        return _flat(torch.autograd.grad(surrogate, params, allow_unused=True), params), \
            float(loss.detach())
    m = 1 if method == "dfl_deterministic" else mc
    Y = model.draws(x, m, gen)
    loss = problem.cost(decide(problem, Y), y).mean()
    return _flat(torch.autograd.grad(loss, params, allow_unused=True), params), \
        float(loss.detach())


def dfl_step(method: str, model: torch.nn.Module, opt: torch.optim.Optimizer, problem: Problem,
             x: torch.Tensor, y: torch.Tensor, mc: int, alpha: float, sf_timesteps: int,
             sf_weighting: str, gen: torch.Generator | None = None) -> StepOut:
    """One optimiser step on alpha * task + (1 - alpha) * fit, the fit gradient rescaled to the
    task gradient's norm (official nets.py: keeps the model a density while it moves)."""
    params = [p for p in model.parameters() if p.requires_grad]
    g_task, task = task_gradient(method, model, problem, x, y, mc, sf_timesteps, sf_weighting,
                                 gen)
    fit = model.fit_loss(x, y)
    g_fit = _flat(torch.autograd.grad(fit, params, allow_unused=True), params)
    n_task = torch.sqrt(sum((g**2).sum() for g in g_task))
    n_fit = torch.sqrt(sum((g**2).sum() for g in g_fit))
    scale = (1 - alpha) * n_task / (n_fit + 1e-12)
    for p, gt, gf in zip(params, g_task, g_fit, strict=True):
        p.grad = alpha * gt + scale * gf
    opt.step()
    return StepOut(task, float(fit.detach()))


@torch.no_grad()
def decisions(method: str, model: torch.nn.Module, problem: Problem, x: torch.Tensor, mc: int,
              gen: torch.Generator | None = None, chunk: int = 256) -> np.ndarray:
    """The method's decisions for x (point models: one scenario; the rest: mc draws)."""
    m = 1 if method in ("two_stage_mlp", "dfl_deterministic") else mc
    out = []
    for i in range(0, len(x), chunk):
        Y = model.draws(x[i: i + chunk], m, gen)
        z = solve(problem, Y)[0]
        out.append(np.broadcast_to(z, (len(Y), z.shape[1])))
    return np.concatenate(out)
