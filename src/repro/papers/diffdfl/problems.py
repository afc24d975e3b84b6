"""The two stochastic programs of the paper, each as the sample-average problem
min_z (1/M) sum_j g(z, y_j) s.t. G z <= h over M draws y_j of the uncertain parameters.

The forward solve is a kept solver (scipy's L-BFGS-B for the smooth box-constrained synthetic
problem, Clarabel for the power-scheduling QP); `repro.papers.diffdfl.
layer` differentiates the solution through its KKT conditions. Each problem supplies what that
needs: the per-sample gradient in z (torch, so autograd gives its derivative in y), the SAA
Hessian, and the constraint matrices with the duals the solve found.
"""

from __future__ import annotations

from typing import Protocol

import numpy as np
import torch

BOUND_TOL = 1e-9  # a coordinate this close to a bound is on it (L-BFGS-B projects exactly)


class Problem(Protocol):
    n: int
    # one sample-average problem over all draws of a batch (the decision is shared): right
    # when y does not depend on x, as in the synthetic task (the official code does this)
    pool_batch: bool
    G: np.ndarray  # (m, n): G z <= h
    h: np.ndarray  # (m,)

    def solve(self, Y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """z* (B, n) and the inequality duals (B, m) for draws Y (B, M, n), float64."""
        ...

    def grad_z(self, z: torch.Tensor, Y: torch.Tensor) -> torch.Tensor:
        """Per-draw gradient d g(z, y_j) / dz, (B, M, n)."""
        ...

    def hess(self, z: torch.Tensor, Y: torch.Tensor) -> torch.Tensor:
        """Hessian in z of the sample average at z, (B, n, n)."""
        ...

    def cost(self, z: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
        """Realised task loss g(z, y) per instance, (B,)."""
        ...

    def oracle(self, y: np.ndarray) -> np.ndarray:
        """The perfect-information decision for realised y (B, n)."""
        ...


class SyntheticProblem:
    """min_z (1/M) sum_j exp(-y_j^T z), 0 <= z <= C (official cvxpy_toy_kkt)."""

    def __init__(self, n: int, box: float, pool_batch: bool = False):
        self.n, self.box, self.pool_batch = n, float(box), pool_batch
        eye = np.eye(n)
        self.G = np.vstack([-eye, eye])
        self.h = np.concatenate([np.zeros(n), np.full(n, self.box)])

    def solve(self, Y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """All B problems in one L-BFGS-B call: the objective is a sum of independent blocks,
        so its minimiser is theirs stacked (one call instead of B: ~15x faster)."""
        from scipy.optimize import minimize

        Y = np.asarray(Y, np.float64)
        B, M, n = Y.shape

        def fg(zf: np.ndarray) -> tuple[float, np.ndarray]:
            a = np.exp(-np.einsum("bmi,bi->bm", Y, zf.reshape(B, n)))
            return float(a.mean(1).sum()), (-(Y * a[..., None]).sum(1) / M).reshape(-1)

        res = minimize(fg, np.full(B * n, 0.5 * self.box), jac=True, method="L-BFGS-B",
                       bounds=[(0.0, self.box)] * (B * n),
                       options={"gtol": 1e-10, "ftol": 1e-15, "maxiter": 5000, "maxcor": 20})
        z = res.x.reshape(B, n)
        g = fg(res.x)[1].reshape(B, n)
        lower = np.where(z <= BOUND_TOL, np.maximum(g, 0.0), 0.0)
        upper = np.where(z >= self.box - BOUND_TOL, np.maximum(-g, 0.0), 0.0)
        return z, np.concatenate([lower, upper], axis=1)

    def grad_z(self, z: torch.Tensor, Y: torch.Tensor) -> torch.Tensor:
        a = torch.exp(-(Y * z[:, None, :]).sum(-1))
        return -Y * a[..., None]

    def hess(self, z: torch.Tensor, Y: torch.Tensor) -> torch.Tensor:
        a = torch.exp(-(Y * z[:, None, :]).sum(-1))  # (B, M)
        return torch.einsum("bm,bmi,bmj->bij", a, Y, Y) / Y.shape[1]

    def cost(self, z: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
        return torch.exp(-(y * z).sum(-1))

    def oracle(self, y: np.ndarray) -> np.ndarray:
        return np.where(y > 0, self.box, 0.0)  # exp is decreasing in y^T z


class PowerProblem:
    """min_z (1/M) sum_j sum_h [gu (y_jh - z_h)_+ + go (z_h - y_jh)_+ + (z_h - y_jh)^2 / 2]
    s.t. |z_{h+1} - z_h| <= c_ramp (official cvxpy_powers_sched). Solved as a QP by Clarabel
    (interior point: ~10 iterations, exact duals; OSQP, the official solver, needed 500+ ADMM
    iterations per instance here), with go (z - y)_+ = go (z - y) + go (y - z)_+ so one
    auxiliary u_jh >= (y_jh - z_h)_+ per draw and hour carries both positive parts."""

    def __init__(self, n: int, c_ramp: float, gamma_under: float, gamma_over: float):
        self.n, self.c = n, float(c_ramp)
        self.gu, self.go = float(gamma_under), float(gamma_over)
        self.pool_batch = False
        D = np.zeros((n - 1, n))
        D[np.arange(n - 1), np.arange(1, n)] = 1.0
        D[np.arange(n - 1), np.arange(n - 1)] = -1.0
        self.D = D
        self.G = np.vstack([D, -D])
        self.h = np.full(2 * (n - 1), self.c)
        self._mats: dict[int, tuple] = {}

    def _matrices(self, M: int) -> tuple:
        """P, A and the fixed parts of q and b for M draws: Clarabel's min x'Px/2 + q'x,
        A x + s = b, s >= 0, over x = [z, u]."""
        if M not in self._mats:
            import scipy.sparse as sp

            n, k = self.n, M * self.n
            P = sp.diags(np.r_[np.ones(n), np.zeros(k)]).tocsc()
            Ez = sp.csr_matrix(np.tile(np.eye(n), (M, 1)))  # row (j, h) picks z_h
            A = sp.vstack([
                -sp.hstack([Ez, sp.identity(k)]),                          # z + u_j >= y_j
                -sp.hstack([sp.csr_matrix((k, n)), sp.identity(k)]),       # u >= 0
                sp.hstack([sp.csr_matrix(self.G), sp.csr_matrix((len(self.G), k))]),  # ramp
            ]).tocsc()
            q = np.r_[np.zeros(n), np.full(k, (self.gu + self.go) / M)]
            b = np.r_[np.zeros(2 * k), self.h]
            self._mats[M] = (P, A, q, b, k)
        return self._mats[M]

    def _solve_one(self, Y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        import clarabel

        P, A, q0, b0, k = self._matrices(len(Y))
        q, b = q0.copy(), b0.copy()
        q[: self.n] = self.go - Y.mean(0)
        b[:k] = -Y.reshape(-1)
        st = clarabel.DefaultSettings()
        st.verbose = False
        sol = clarabel.DefaultSolver(P, q, A, b, [clarabel.NonnegativeConeT(len(b))], st).solve()
        if str(sol.status) not in ("Solved", "AlmostSolved"):
            raise RuntimeError(f"Clarabel: {sol.status}")
        z = np.asarray(sol.x[: self.n])
        lam = np.maximum(np.asarray(sol.z[2 * k:]), 0.0)  # duals of the ramp rows, G's order
        return z, lam

    def solve(self, Y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        out = [self._solve_one(np.asarray(Yb, np.float64)) for Yb in Y]
        return np.stack([o[0] for o in out]), np.stack([o[1] for o in out])

    def grad_z(self, z: torch.Tensor, Y: torch.Tensor) -> torch.Tensor:
        d = z[:, None, :] - Y
        return -self.gu * (d < 0).to(Y.dtype) + self.go * (d > 0).to(Y.dtype) + d

    def hess(self, z: torch.Tensor, Y: torch.Tensor) -> torch.Tensor:
        # the positive parts are piecewise linear: the SAA Hessian is I almost everywhere
        return torch.eye(self.n, dtype=Y.dtype).expand(len(z), self.n, self.n)

    def cost(self, z: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
        d = z - y
        return (self.gu * torch.clamp(-d, min=0) + self.go * torch.clamp(d, min=0)
                + 0.5 * d**2).sum(-1)

    def oracle(self, y: np.ndarray) -> np.ndarray:
        return self.solve(np.asarray(y, np.float64)[:, None, :])[0]


def make_problem(task: str, cfg) -> SyntheticProblem | PowerProblem:
    """The task's program from its settings (`Settings.synthetic` / `Settings.power`)."""
    if task == "synthetic":
        return SyntheticProblem(cfg.synthetic.y_dim, cfg.synthetic.box, cfg.synthetic.pool_batch)
    if task == "power":
        p = cfg.power
        return PowerProblem(24, p.c_ramp, p.gamma_under, p.gamma_over)
    raise ValueError(f"unknown task {task!r}: synthetic or power")
