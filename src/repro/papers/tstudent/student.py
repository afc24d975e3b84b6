"""The student: a one-layer transformer with position-only attention, trained by online GD.

    f_i(X; W_V, W) = sigma( W_V X softmax(P^T W p_i) ),      i = 1 .. D,

with X in R^{d x D} (D tokens of dimension d), a fixed orthogonal positional matrix
P = [p_1 .. p_D] in R^{D x D}, the attention (key-query) matrix W in R^{D x D} and the value
matrix W_V in R^{C x d}. The attention scores depend on positions only (never on the tokens), so
the attention pattern A = softmax_columns(P^T W P) is the same for every input; query i reads
the tokens through column a_i of A. Both blocks start at zero (W_V = 0, W = 0: uniform
attention), and each step of online GD draws a fresh batch of N(0, I) inputs labelled by the
teacher and takes one gradient step on the half squared loss averaged over positions

    L = 1/(2BD) sum_b sum_i || f_i(X_b) - y_{b,i} ||^2.

The gradients are written out below (and checked against autograd in the tests): with
pre_i = W_V X a_i and g_i = (f_i - y_i) * sigma'(pre_i) / D,

    dL/dW_V   = E_b[ sum_i g_i (X a_i)^T ],
    dL/dA_ji  = E_b[ (W_V x_j)^T g_i ],
    dL/dZ_:i  = a_i * (dL/dA_:i - <a_i, dL/dA_:i>)        (column softmax),  Z = P^T W P,
    dL/dW     = P dL/dZ P^T.

Since P is orthogonal, GD on W moves Z = P^T W P by exactly -lr * dL/dZ: the trajectory of the
attention pattern does not depend on which orthogonal P is used (a test checks this).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np
import torch

from repro.papers.tstudent.teachers import Teacher, activation, activation_grad

DTYPE = torch.float64


def orthogonal_positions(D: int, seed: int) -> torch.Tensor:
    """A fixed random orthogonal D x D positional matrix (QR of a Gaussian, sign-fixed)."""
    rng = np.random.default_rng(seed)
    q, r = np.linalg.qr(rng.standard_normal((D, D)))
    return torch.tensor(q * np.sign(np.diag(r))[None, :], dtype=DTYPE)


@dataclass
class Student:
    """W_V (C x d), W (D x D) and the fixed orthogonal P (D x D); zero-initialised."""

    P: torch.Tensor
    d: int
    C: int = 1
    act: str = "relu"
    slope: float = 0.01
    W_V: torch.Tensor = field(init=False)
    W: torch.Tensor = field(init=False)

    def __post_init__(self) -> None:
        D = self.P.shape[0]
        self.W_V = torch.zeros(self.C, self.d, dtype=DTYPE)
        self.W = torch.zeros(D, D, dtype=DTYPE)

    @property
    def D(self) -> int:
        return self.P.shape[0]

    def attention(self) -> torch.Tensor:
        """A = softmax over keys (dim 0) of P^T W P: column i is query i's pattern."""
        return torch.softmax(self.P.T @ self.W @ self.P, dim=0)

    def forward(self, X: torch.Tensor) -> torch.Tensor:
        """X (B, d, D) -> (B, C, D): one output per position (query)."""
        pre = torch.einsum("kc,bcj,ji->bki", self.W_V, X, self.attention())
        return activation(pre, self.act, self.slope)

    def gradients(self, X: torch.Tensor, y: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor,
                                                                    float]:
        """(dL/dW_V, dL/dW, L) of the half squared loss on the batch (X, y)."""
        B = X.shape[0]
        A = self.attention()
        H = torch.einsum("bcj,ji->bci", X, A)  # X a_i for every query i: (B, d, D)
        pre = torch.einsum("kc,bci->bki", self.W_V, H)  # (B, C, D)
        r = activation(pre, self.act, self.slope) - y  # (B, C, D)
        g = r * activation_grad(pre, self.act, self.slope) / self.D
        dW_V = torch.einsum("bki,bci->kc", g, H) / B
        U = torch.einsum("kc,bcj->bkj", self.W_V, X)  # W_V x_j: (B, C, D)
        dA = torch.einsum("bkj,bki->ji", U, g) / B
        dZ = A * (dA - (A * dA).sum(dim=0, keepdim=True))
        dW = self.P @ dZ @ self.P.T
        return dW_V, dW, 0.5 * float((r**2).sum(dim=1).mean())

    def step(self, X: torch.Tensor, y: torch.Tensor, lr: float, lr_attn: float | None = None
             ) -> float:
        """One GD step on the batch; returns the batch loss before the step."""
        dW_V, dW, loss = self.gradients(X, y)
        self.W_V -= lr * dW_V
        self.W -= (lr if lr_attn is None else lr_attn) * dW
        return loss


# ---------------------------------------------------------------------------------------------
# Exact population loss under N(0, I) inputs (no Monte Carlo noise in the learning curves).


def _relu_kernel(va: torch.Tensor, vb: torch.Tensor, cov: torch.Tensor) -> torch.Tensor:
    """E[relu(a) relu(b)] for centred jointly Gaussian a, b (arc-cosine kernel of degree 1)."""
    sa, sb = torch.sqrt(va.clamp(min=0)), torch.sqrt(vb.clamp(min=0))
    denom = sa * sb
    safe = torch.where(denom > 0, denom, torch.ones_like(denom))
    rho = (cov / safe).clamp(-1.0, 1.0)
    k = safe / (2 * math.pi) * (torch.sqrt(1 - rho**2) + (math.pi - torch.arccos(rho)) * rho)
    return torch.where(denom > 0, k, torch.zeros_like(k))


def _act_kernel(va: torch.Tensor, vb: torch.Tensor, cov: torch.Tensor, act: str,
                slope: float) -> torch.Tensor:
    """E[sigma(a) sigma(b)]: leaky(z) = (1-s) relu(z) + s z and E[relu(a) b] = cov / 2."""
    if act == "linear":
        return cov
    if act == "relu":
        return _relu_kernel(va, vb, cov)
    if act == "leaky_relu":
        return (1 - slope) ** 2 * _relu_kernel(va, vb, cov) + slope * cov
    raise ValueError(f"activation {act!r}")


def population_loss(W_V: torch.Tensor, A: torch.Tensor, V_star: torch.Tensor,
                    S_star: torch.Tensor, act: str, slope: float = 0.01) -> float:
    """E_{X ~ N(0,I)} 1/(2D) sum_i ||f_i(X) - f*_i(X)||^2, exact. With X i.i.d. standard
    normal, u_i = w^T X a_i and u*_i = v*^T X s*_i are jointly Gaussian with Var(u_i) =
    |w|^2 |a_i|^2, Var(u*_i) = |v*|^2 |s*_i|^2 and Cov(u_i, u*_i) = (w.v*)(a_i.s*_i), so the
    loss is a sum of activation kernels."""
    total = 0.0
    for k in range(W_V.shape[0]):
        w, v = W_V[k], V_star[k]
        va = (A * A).sum(0) * (w @ w)
        vb = (S_star * S_star).sum(0) * (v @ v)
        cab = (A * S_star).sum(0) * (w @ v)
        per = (_act_kernel(va, va, va, act, slope) - 2 * _act_kernel(va, vb, cab, act, slope)
               + _act_kernel(vb, vb, vb, act, slope))
        total += float(per.mean())
    return 0.5 * total


def empirical_loss(student: Student, teacher: Teacher, X: torch.Tensor) -> float:
    """1/(2D) mean sum_i ||f_i(X) - f*_i(X)||^2 on a fixed sample (e.g. OOD inputs)."""
    with torch.no_grad():
        r = student.forward(X) - teacher.forward(X)
    return 0.5 * float((r**2).sum(dim=1).mean())


def value_cosine(W_V: torch.Tensor, V_star: torch.Tensor) -> float:
    """cos(W_V, V*) of the flattened value blocks (0 while W_V = 0)."""
    a, b = W_V.flatten(), V_star.flatten()
    n = float(a.norm() * b.norm())
    return float(a @ b) / n if n > 0 else 0.0


def attention_distance(A: torch.Tensor, S_star: torch.Tensor) -> float:
    """Mean over queries of the total-variation distance between a_i and s*_i: the attention
    mass that lies off the teacher's pattern (or misallocated on it); 0 = exact recovery."""
    return float(0.5 * (A - S_star).abs().sum(dim=0).mean())


def teacher_as_student(teacher: Teacher, P: torch.Tensor, big: float = 60.0) -> Student:
    """The bilinear structure made explicit: a student whose blocks are built from the
    teacher's (W_V = V*, P^T W P = log S* with -big off the support) computes the teacher's
    function up to exp(-big), i.e. the teacher class is representable by the student."""
    st = Student(P=P, d=teacher.d, C=teacher.C, act=teacher.act, slope=teacher.slope)
    st.W_V = teacher.V.clone()
    S = teacher.S
    Z = torch.where(S > 0, torch.log(S.clamp(min=1e-300)), torch.full_like(S, -big))
    st.W = P @ Z @ P.T  # so that P^T W P = Z
    return st
