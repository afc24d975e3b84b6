"""The learners: the paper's reduction with OFUL and with logdet-FTRL, the bandit baseline of
Harris, Wu & Balcan (2024), and the references (full information, the oracle).

Every learner sees, each round, the context z and the arms (the extreme points of the
best-response regions as utility vectors phi; see `environments.py`), picks an arm index, and
then gets the round's `Observation`, of which it uses only what its feedback model allows:

- `OFUL` (the reduction, stochastic followers / adversarial contexts; Abbasi-Yadkori, Pal &
  Szepesvari 2011): ridge estimate theta_hat = V^-1 sum phi_s r_s, V = lambda I + sum phi phi^T,
  and the arm maximising <phi, theta_hat> + beta_t ||phi||_{V^-1} with the confidence radius of
  their Theorem 2: beta_t = R sqrt(log(det V_t / det(lambda I)) + 2 log(1/delta)) + sqrt(lambda) S.
  Uses the realized utility only (bandit feedback).
- `LogDetFTRL` (the reduction, stochastic contexts / adversarial followers; Liu, Wei & Zimmert
  2023, as the paper uses it): FTRL over policies with a log-determinant barrier on the lifted
  second moment H(pi) = E_z E_{a~pi(z)} [a~ a~^T], a~ = (phi, 1), the context distribution
  replaced by a uniform sample of past contexts; importance-weighted estimates
  y_hat = H^-1 a~_t r_t. Uses the realized utility only.
- `ExploreThenCommit` (Harris et al. 2024's bandit algorithm for stochastic followers):
  explore with the arms of a barycentric spanner of the outcome-indicator vectors
  w(x, o) = (1{b_k(x) = o})_k (P(o | x) = <p, w(x, o)>), each for N = c T^(2/3) (log T)^(1/3)
  rounds, estimate p from the outcome frequencies, then play greedily. Uses the follower's
  action (the outcome).
- `FullInformation`: sees the follower's type (and, in the auction, her value) every round and
  plays greedily against the empirical type distribution (the full-feedback reference).
- `Oracle`: knows theta* (the benchmark policy; its regret is 0 by definition).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from repro.papers.stackelberg.environments import Arms, Observation


class OFUL:
    """Optimism in the face of uncertainty for linear bandits (see module docstring)."""

    name = "oful"

    def __init__(self, D: int, R: float, S: float, lam: float = 1.0, delta: float = 0.05,
                 beta_scale: float = 1.0):
        self.R, self.S, self.lam, self.delta, self.beta_scale = R, S, lam, delta, beta_scale
        self.Vinv = np.eye(D) / lam
        self.b = np.zeros(D)
        self.logdet_ratio = 0.0  # log det V_t - log det (lambda I), by the determinant lemma

    def beta(self) -> float:
        """Theorem 2 of Abbasi-Yadkori et al. (2011): ||theta_hat - theta*||_V <= beta w.p.
        1 - delta, simultaneously for all t."""
        radius = self.R * math.sqrt(self.logdet_ratio + 2.0 * math.log(1.0 / self.delta))
        return self.beta_scale * (radius + math.sqrt(self.lam) * self.S)

    @property
    def theta_hat(self) -> np.ndarray:
        return self.Vinv @ self.b

    def choose(self, features: np.ndarray) -> np.ndarray:
        """The arm OFUL plays now at each of several contexts, features (..., N, D) -> (...,),
        without updating anything: `act` is this rule at one context. Vectorised for the
        adversary that simulates OFUL (`environments.sequence_against_learner`)."""
        F = features.reshape(-1, features.shape[-1])
        width = np.sqrt(np.maximum(np.einsum("nd,nd->n", F @ self.Vinv, F), 0.0))
        ucb = (F @ self.theta_hat + self.beta() * width).reshape(features.shape[:-1])
        return np.argmax(ucb, axis=-1)

    def act(self, t: int, z: np.ndarray, arms: Arms, rng: np.random.Generator) -> int:
        return int(self.choose(arms.features))

    def update(self, t: int, z: np.ndarray, arms: Arms, i: int, obs: Observation) -> None:
        phi = arms.features[i]
        Vphi = self.Vinv @ phi
        q = float(phi @ Vphi)
        self.Vinv -= np.outer(Vphi, Vphi) / (1.0 + q)  # Sherman-Morrison
        self.logdet_ratio += math.log1p(q)
        self.b += obs.reward * phi


class LogDetFTRL:
    """FTRL with a log-determinant barrier over policies (see module docstring).

    Each round the policy maximises, over pi(. | z) for z in the sample (a reservoir of up to
    `sample_size` past contexts plus the current one, equally weighted),

        eta_t * E_z E_{a~pi(z)} <a~, Y_hat> + log det( H(pi) + ridge I ),

    Y_hat the sum of past estimates, by Frank-Wolfe with exact line search: every context
    starts at its vertex maximising eta_t <a~, Y_hat> + a~^T H^-1 a~ under the last round's H
    (the form the FTRL solution takes, by duality), then `fw_iters` steps. The action is drawn
    from pi(. | z_t); y_hat_t = H_past^-1 a~_t r_t with H_past the policy's second moment over
    the sampled past contexts (not the current one, which would correlate H with a_t).
    eta_t = eta_scale * sqrt(log(t + 2) / (t + 1)) / reward_range (anytime: no horizon)."""

    name = "logdet_ftrl"

    def __init__(self, D: int, rng: np.random.Generator, sample_size: int = 64,
                 fw_iters: int = 4, eta_scale: float = 1.0, ridge: float = 1e-6,
                 reward_range: float = 1.0):
        self.Dl = D + 1
        self._rng_slot = rng  # reservoir replacement draws
        self.M, self.fw_iters, self.eta_scale = sample_size, fw_iters, eta_scale
        self.ridge, self.reward_range = ridge, reward_range
        self.Y = np.zeros(self.Dl)
        self.A = np.zeros((0, 0, self.Dl))  # (slots, N_max, D+1) lifted arms, zero-padded
        self.mask = np.zeros((0, 0), dtype=bool)  # which entries are real arms
        self.n_seen = 0  # contexts offered to the reservoir so far
        self.Hinv: np.ndarray | None = None
        self.H_est_inv: np.ndarray | None = None
        self._cur: tuple[np.ndarray, np.ndarray] | None = None
        self._slots: tuple[np.ndarray, np.ndarray] | None = None

    def eta(self, t: int) -> float:
        return self.eta_scale * math.sqrt(math.log(t + 2) / (t + 1)) / self.reward_range

    def _lift(self, F: np.ndarray) -> np.ndarray:
        return np.concatenate([F, np.ones((len(F), 1))], axis=1)

    @staticmethod
    def _pad(X: np.ndarray, N: int, axis: int) -> np.ndarray:
        if X.shape[axis] >= N:
            return X
        widths = [(0, 0)] * X.ndim
        widths[axis] = (0, N - X.shape[axis])
        return np.pad(X, widths)

    def _second_moment(self, A: np.ndarray, pi: np.ndarray) -> np.ndarray:
        A2 = A.reshape(-1, self.Dl)
        return (A2 * pi.reshape(-1, 1)).T @ A2 / len(A) + self.ridge * np.eye(self.Dl)

    @staticmethod
    def _line_search(H: np.ndarray, Hs: np.ndarray, dlin: float) -> float:
        """argmax over gamma in [0, 1] of gamma dlin + log det((1-gamma) H + gamma Hs).

        Concave, with derivative dlin + sum_i (l_i - 1) / (1 - gamma + gamma l_i), l_i the
        eigenvalues of H^-1 Hs: safeguarded Newton on that derivative."""
        C = np.linalg.cholesky(H)
        Ci = np.linalg.inv(C)
        lam = [max(v, 0.0) - 1.0 for v in np.linalg.eigvalsh(Ci @ Hs @ Ci.T).tolist()]  # l_i - 1
        if dlin + sum(lam) <= 0.0:  # derivative at 0
            return 0.0
        if min(lam) > -1.0 and dlin + sum(v / (1.0 + v) for v in lam) >= 0.0:
            return 1.0
        lo, hi, g = 0.0, 1.0, 0.5
        for _ in range(60):
            r = [v / (1.0 + g * v) for v in lam]
            d1 = dlin + sum(r)
            if d1 > 0.0:
                lo = g
            else:
                hi = g
            if hi - lo < 1e-10 or abs(d1) < 1e-12:
                break
            d2 = -sum(v * v for v in r)
            step = g - d1 / d2 if d2 < 0.0 else 0.5 * (lo + hi)
            g = step if lo < step < hi else 0.5 * (lo + hi)
        return g

    def act(self, t: int, z: np.ndarray, arms: Arms, rng: np.random.Generator) -> int:
        cur = self._lift(arms.features)
        N = max(len(cur), self.A.shape[1])
        eta = self.eta(t)
        A = np.concatenate([self._pad(self.A, N, 1), self._pad(cur, N, 0)[None]])
        mask = np.concatenate([self._pad(self.mask, N, 1), (np.arange(N) < len(cur))[None]])
        n_slots = len(A)
        padded = not mask.all()
        rows = np.arange(n_slots)
        AY = A @ self.Y  # (slots, N)
        A2 = A.reshape(-1, self.Dl)
        pi = np.zeros((n_slots, N))
        if self.Hinv is None:
            pi[mask] = 1.0
            pi /= pi.sum(axis=1, keepdims=True)
        else:  # every context (current and sampled alike) starts at its best vertex under the
            # last H: one rule for all, so H below is the second moment of the rule we play
            g = eta * AY + np.einsum("ij,ij->i", A2 @ self.Hinv, A2).reshape(n_slots, N)
            if padded:
                g[~mask] = -np.inf
            pi[rows, np.argmax(g, axis=1)] = 1.0
        H = self._second_moment(A, pi)
        for _ in range(self.fw_iters):
            Hinv = np.linalg.inv(H)
            bonus = np.einsum("ij,ij->i", A2 @ Hinv, A2).reshape(n_slots, N)
            g = eta * AY + bonus
            if padded:
                g[~mask] = -np.inf
            s = np.argmax(g, axis=1)
            As = A[rows, s]
            Hs = As.T @ As / n_slots + self.ridge * np.eye(self.Dl)
            dlin = eta * (float(AY[rows, s].sum()) - float(np.vdot(pi, AY))) / n_slots
            gamma = self._line_search(H, Hs, dlin)
            if gamma <= 0.0:
                break
            pi *= 1.0 - gamma
            pi[rows, s] += gamma
            H = (1.0 - gamma) * H + gamma * Hs
        self.Hinv = np.linalg.inv(H)
        # the estimator's H: the second moment of the played rule over the *past* contexts of
        # the sample; including the current one would correlate H with a_t (a rare arm played
        # now would inflate its own direction of H and shrink its estimate)
        self.H_est_inv = (np.linalg.inv(self._second_moment(A[:-1], pi[:-1]))
                          if n_slots > 2 * self.Dl else self.Hinv)
        p = np.clip(pi[-1, : len(cur)], 0.0, None)
        self.pi_cur = p / p.sum()  # the action distribution at z_t (kept for checks)
        i = int(rng.choice(len(cur), p=self.pi_cur))
        self._cur = (A[-1], mask[-1])
        self._slots = (A[:-1], mask[:-1])
        return i

    def update(self, t: int, z: np.ndarray, arms: Arms, i: int, obs: Observation) -> None:
        assert self.H_est_inv is not None and self._cur is not None and self._slots is not None
        a = self._lift(arms.features[i][None])[0]
        self.Y += self.H_est_inv @ a * obs.reward  # importance-weighted estimate of (y, 0)
        A, mask = self._slots
        self.n_seen += 1
        if len(A) < self.M:  # reservoir sampling: a uniform sample of all past contexts
            A = np.concatenate([A, self._cur[0][None]])
            mask = np.concatenate([mask, self._cur[1][None]])
        else:
            j = int(self._rng_slot.integers(self.n_seen))
            if j < self.M:
                A, mask = A.copy(), mask.copy()
                A[j], mask[j] = self._cur
        self.A, self.mask = A, mask


def barycentric_spanner(W: np.ndarray, C: float = 1.0 + 1e-9) -> tuple[np.ndarray, np.ndarray]:
    """Awerbuch & Kleinberg (2004): rows of W indexing a C-approximate barycentric spanner of
    the span of W (every row of W is a combination of them with coefficients in [-C, C]).

    W is first written in an orthonormal basis Q of its span (rank r), so repeated or
    dependent rows are fine. Returns (indices (r,), Q (dim, r))."""
    W = np.asarray(W, float)
    _, sv, Vt = np.linalg.svd(W, full_matrices=False)
    r = int(np.sum(sv > 1e-9 * max(sv.max(), 1.0)))
    Q = Vt[:r].T
    X = W @ Q  # (n, r)
    B = np.eye(r)
    idx = np.full(r, -1)
    for j in range(r):  # greedy: maximise |det| column by column
        Binv = np.linalg.inv(B)
        coef = np.abs(X @ Binv[j])  # det(B with column j := x) / det(B), up to sign
        idx[j] = int(np.argmax(coef))
        B[:, j] = X[idx[j]]
    for _ in range(100 * r):  # swap while some row raises |det| by more than C
        coef = np.abs(X @ np.linalg.inv(B).T)  # (n, r): coordinates of every row in basis B
        row, col = np.unravel_index(int(np.argmax(coef)), coef.shape)
        if coef[row, col] <= C:
            break
        idx[col] = row
        B[:, col] = X[row]
    return idx, Q


class ExploreThenCommit:
    """Harris, Wu & Balcan (2024), bandit feedback, stochastic followers (see module docstring).

    The arms must be the same at every context (their outcomes fixed), as in their bandit
    setting, where only the leader's utility depends on the context."""

    name = "harris_etc"

    def __init__(self, env: Any, horizon: int, explore_scale: float = 1.0,
                 log_factor: bool = True):
        arms0 = env.arms(np.zeros(env.d))
        outcomes = arms0.outcomes  # (N, K)
        pairs, W = [], []
        for i in range(len(outcomes)):
            for o in range(env.n_outcomes):
                w = (outcomes[i] == o).astype(float)
                if w.any():
                    pairs.append((i, o))
                    W.append(w)
        idx, self.Q = barycentric_spanner(np.array(W))
        self.spanner = [pairs[j] for j in idx]  # (arm, outcome) pairs
        self.Wc = np.array(W)[idx] @ self.Q  # (r, r)
        self.explore_arms = sorted({i for i, _ in self.spanner})
        # N = T^(2/3) (log T)^(1/3) plays of each spanner arm: the exploration length that
        # balances N r (exploring) against T r sqrt(log T / N) (committing to estimates with
        # error ~ sqrt(log T / N) per spanner coordinate), constants set to 1; without
        # log_factor N = T^(2/3) (the ablation's variant)
        log_term = math.log(horizon) ** (1.0 / 3.0) if log_factor else 1.0
        per_arm = math.ceil(explore_scale * horizon ** (2.0 / 3.0) * log_term)
        self.T0 = min(horizon, per_arm * len(self.explore_arms))
        self.env, self.K = env, env.K
        self.counts = np.zeros((len(outcomes), env.n_outcomes))
        self.zz, self.zv = np.zeros((env.d, env.d)), np.zeros(env.d)
        self.theta_hat: np.ndarray | None = None
        self.p_hat: np.ndarray | None = None

    def act(self, t: int, z: np.ndarray, arms: Arms, rng: np.random.Generator) -> int:
        if t < self.T0:
            return self.explore_arms[t % len(self.explore_arms)]
        assert self.theta_hat is not None
        return int(np.argmax(arms.features @ self.theta_hat))

    def update(self, t: int, z: np.ndarray, arms: Arms, i: int, obs: Observation) -> None:
        if t >= self.T0:
            return
        self.counts[i, obs.outcome] += 1
        if obs.value_seen:
            self.zz += np.outer(z, z)
            self.zv += obs.value * z
        if t == self.T0 - 1:
            q = np.array([self.counts[a, o] / max(self.counts[a].sum(), 1.0)
                          for a, o in self.spanner])
            self.p_hat = self.Q @ np.linalg.solve(self.Wc, q)  # <p_hat, w> = q on the spanner
            self.theta_hat = self.env.plugin_theta(self.p_hat, self.zz, self.zv)


class FullInformation:
    """Greedy against the empirical type distribution (and value fit), seen every round."""

    name = "full_info"

    def __init__(self, env: Any):
        self.env = env
        self.counts = np.zeros(env.K)
        self.zz, self.zv = np.zeros((env.d, env.d)), np.zeros(env.d)

    def act(self, t: int, z: np.ndarray, arms: Arms, rng: np.random.Generator) -> int:
        n = self.counts.sum()
        p_hat = self.counts / n if n else np.full(self.env.K, 1.0 / self.env.K)
        return int(np.argmax(arms.features @ self.env.plugin_theta(p_hat, self.zz, self.zv)))

    def update(self, t: int, z: np.ndarray, arms: Arms, i: int, obs: Observation) -> None:
        self.counts[obs.follower_type] += 1
        if not math.isnan(obs.value):
            self.zz += np.outer(z, z)
            self.zv += obs.value * z


class Oracle:
    """Plays argmax <phi, theta*>: the benchmark policy pi*(z)."""

    name = "oracle"

    def __init__(self, theta: np.ndarray):
        self.theta = theta

    def act(self, t: int, z: np.ndarray, arms: Arms, rng: np.random.Generator) -> int:
        return int(np.argmax(arms.features @ self.theta))

    def update(self, t: int, z: np.ndarray, arms: Arms, i: int, obs: Observation) -> None:
        pass
