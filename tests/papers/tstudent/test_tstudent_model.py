"""Transformers as students: the teachers are the models they claim to be, the student is the
paper's (position-only attention, zero init, online GD), the teacher class is exactly
representable by the student (the bilinear structure), and the measurements are right."""

from __future__ import annotations

import dataclasses
import math

import numpy as np
import pytest
import torch

from repro.core.config import typed
from repro.papers.tstudent.settings import StudentRun
from repro.papers.tstudent.student import (
    DTYPE,
    Student,
    attention_distance,
    empirical_loss,
    orthogonal_positions,
    population_loss,
    teacher_as_student,
    value_cosine,
)
from repro.papers.tstudent.teachers import (
    activation,
    bilinear_output,
    cycle_gcn_adjacency,
    make_teacher,
)
from repro.papers.tstudent.train import checkpoints, fit_slope, run_student, support_recovery

SETTINGS = [("conv", 36, 4, "relu"), ("conv", 36, 4, "leaky_relu"), ("gcn", 20, 3, "relu"),
            ("gcn", 20, 3, "leaky_relu"), ("sparse_token", 20, 4, "linear"),
            ("group_sparse", 20, 1, "linear")]


def _X(B, d, D, seed=0):
    return torch.randn(B, d, D, dtype=DTYPE, generator=torch.Generator().manual_seed(seed))


def test_conv_teacher_is_a_sliding_window_average_then_1x1_conv():
    t = make_teacher("conv", 36, 5, 4, "relu", seed=3)
    X = _X(7, 5, 36)
    grid = X.reshape(7, 5, 6, 6)
    want = torch.zeros(7, 1, 36, dtype=DTYPE)
    for r in range(6):
        for c in range(6):
            win = sum(grid[:, :, (r + a) % 6, (c + b) % 6] for a in range(2) for b in range(2)) / 4
            want[:, 0, r * 6 + c] = torch.relu(win @ t.V[0])
    torch.testing.assert_close(t.forward(X), want)


def test_gcn_teacher_on_a_cycle_averages_each_node_with_its_two_neighbours():
    A_hat = cycle_gcn_adjacency(20)
    assert torch.allclose(A_hat, A_hat.T) and torch.allclose(A_hat.sum(1), torch.ones(20,
                                                                                   dtype=DTYPE))
    t = make_teacher("gcn", 20, 4, 3, "leaky_relu", seed=1)
    X = _X(5, 4, 20)
    agg = (X.roll(1, dims=2) + X + X.roll(-1, dims=2)) / 3  # (x_{i-1} + x_i + x_{i+1}) / 3
    want = torch.nn.functional.leaky_relu(torch.einsum("c,bci->bi", t.V[0], agg), 0.01)
    torch.testing.assert_close(t.forward(X)[:, 0], want)


def test_sparse_token_and_group_sparse_teachers():
    t = make_teacher("sparse_token", 20, 3, 4, "linear", seed=2)
    X = _X(4, 3, 20)
    for i, sub in enumerate(t.meta["subsets"]):
        assert len(set(sub)) == 4
        torch.testing.assert_close(t.forward(X)[:, 0, i], X[:, :, sub].mean(2) @ t.V[0])
    g = make_teacher("group_sparse", 20, 3, 1, "linear", seed=2)
    y = g.forward(X)
    torch.testing.assert_close(y[:, 0, 0], X[:, :, g.meta["group"]] @ g.V[0])
    assert torch.equal(y, y[:, :, :1].expand_as(y))  # every position predicts the same label


@pytest.mark.parametrize("kind,D,K,act", SETTINGS)
def test_every_teacher_has_the_bilinear_structure(kind, D, K, act):
    t = make_teacher(kind, D, 6, K, act, seed=0)
    torch.testing.assert_close(t.S.sum(0), torch.ones(D, dtype=DTYPE))
    assert ((t.S > 0).sum(0) == K).all()
    assert math.isclose(float(t.V.norm()), 1.0)
    X = _X(8, 6, D)
    torch.testing.assert_close(t.forward(X), t.bilinear_forward(X))


@pytest.mark.parametrize("kind,D,K,act", SETTINGS)
def test_the_teacher_is_exactly_representable_by_the_student(kind, D, K, act):
    """W_V = V*, P^T W P = log S* (finite -60 off the support): the student is the teacher."""
    t = make_teacher(kind, D, 6, K, act, seed=4)
    st = teacher_as_student(t, orthogonal_positions(D, 9))
    torch.testing.assert_close(st.attention(), t.S, atol=1e-12, rtol=0)
    X = _X(16, 6, D)
    torch.testing.assert_close(st.forward(X), t.forward(X), atol=1e-12, rtol=0)
    assert population_loss(st.W_V, st.attention(), t.V, t.S, act) < 1e-15  # fp floor


def test_student_at_zero_init():
    t = make_teacher("conv", 36, 8, 4, "relu", seed=0)
    st = Student(P=orthogonal_positions(36, 1), d=8, act="relu")
    assert torch.equal(st.W_V, torch.zeros(1, 8, dtype=DTYPE)) and not st.W.any()
    torch.testing.assert_close(st.attention(), torch.full((36, 36), 1 / 36, dtype=DTYPE))
    X = _X(4096, 8, 36)
    assert not st.forward(X).any()  # sigma(0) = 0
    dW_V, dW, _ = st.gradients(X, t.forward(X))
    assert not dW.any()  # the attention gradient is proportional to W_V: it waits for values
    assert value_cosine(-dW_V, t.V) > 0.95  # the first step points the values at V*


@pytest.mark.parametrize("act", ["leaky_relu", "linear", "relu"])
def test_written_out_gradients_match_autograd(act):
    t = make_teacher("gcn", 20, 5, 3, act, seed=0)
    st = Student(P=orthogonal_positions(20, 2), d=5, act=act)
    g = torch.Generator().manual_seed(5)
    st.W_V = torch.randn(1, 5, dtype=DTYPE, generator=g)
    st.W = torch.randn(20, 20, dtype=DTYPE, generator=g)
    X = _X(32, 5, 20, seed=1)
    y = t.forward(X)
    dW_V, dW, loss = st.gradients(X, y)
    Wv, W = st.W_V.clone().requires_grad_(), st.W.clone().requires_grad_()
    A = torch.softmax(st.P.T @ W @ st.P, dim=0)
    f = activation(torch.einsum("kc,bcj,ji->bki", Wv, X, A), act)
    L = 0.5 * ((f - y) ** 2).sum(1).mean()
    L.backward()
    assert math.isclose(loss, float(L.detach()), rel_tol=1e-12)
    torch.testing.assert_close(dW_V, Wv.grad)
    torch.testing.assert_close(dW, W.grad)


@pytest.mark.parametrize("act,slope", [("relu", 0.0), ("leaky_relu", 0.1), ("linear", 0.0)])
def test_exact_population_loss_matches_monte_carlo(act, slope):
    t = make_teacher("gcn", 20, 3, 3, act, seed=0, slope=slope)
    g = torch.Generator().manual_seed(0)
    W_V = t.V + 0.3 * torch.randn(1, 3, dtype=DTYPE, generator=g)
    A = torch.softmax(torch.randn(20, 20, dtype=DTYPE, generator=g), 0)
    exact = population_loss(W_V, A, t.V, t.S, act, slope)
    X = _X(100_000, 3, 20, seed=3)
    r = bilinear_output(X, W_V, A, act, slope) - t.forward(X)
    mc = 0.5 * float((r**2).sum(1).mean())
    assert abs(mc - exact) < 0.02 * exact


def test_attention_trajectory_does_not_depend_on_the_orthogonal_P():
    t = make_teacher("gcn", 20, 4, 3, "relu", seed=0)
    students = [Student(P=orthogonal_positions(20, s), d=4, act="relu") for s in (1, 2)]
    students.append(Student(P=torch.eye(20, dtype=DTYPE), d=4, act="relu"))
    for step in range(8):
        X = _X(16, 4, 20, seed=step)
        for st in students:
            st.step(X, t.forward(X), 1.0, 300.0)
    for st in students[1:]:
        torch.testing.assert_close(st.attention(), students[0].attention())
        torch.testing.assert_close(st.W_V, students[0].W_V)


def test_slope_fit_on_synthetic_power_laws():
    t = np.array(checkpoints(10_000, 40), float)
    assert t[0] == 1 and t[-1] == 10_000
    assert math.isclose(fit_slope(t, 3.0 / t, 0.1), -1.0, abs_tol=1e-12)
    assert math.isclose(fit_slope(t, 0.2 / np.sqrt(t), 0.1), -0.5, abs_tol=1e-12)
    noisy = 5.0 / t * np.exp(0.01 * np.random.default_rng(0).standard_normal(len(t)))
    assert abs(fit_slope(t, noisy, 0.1) + 1.0) < 0.05


def test_attention_metrics():
    S = make_teacher("gcn", 20, 2, 3, "relu", seed=0).S
    assert attention_distance(S, S) == 0 and support_recovery(S, S) == 1.0
    U = torch.full((20, 20), 1 / 20, dtype=DTYPE)
    assert math.isclose(attention_distance(U, S), 1 - 3 / 20)
    mix = 0.7 * S + 0.3 * U
    assert support_recovery(mix, S) == 1.0
    assert math.isclose(attention_distance(mix, S), 0.3 * (1 - 3 / 20))


RUN = typed(StudentRun, {"iterations": 1200, "batch_size": 32, "lr_value": 1.0,
                         "lr_attn": 300.0, "n_checkpoints": 12, "fit_from": 0.1,
                         "ood": {"distribution": "exponential", "rate": 1.0,
                                 "n_samples": 256}})


def test_runs_are_deterministic_given_the_seed():
    t = make_teacher("gcn", 20, 6, 3, "relu", seed=0)
    short = dataclasses.replace(RUN, iterations=100, n_checkpoints=5)
    a = run_student(t, short, seed=0, log=lambda s: None)
    b = run_student(t, short, seed=0, log=lambda s: None)
    c = run_student(t, short, seed=1, log=lambda s: None)
    assert a == b and a["curve"] != c["curve"]


def test_online_gd_recovers_the_teacher():
    t = make_teacher("gcn", 20, 6, 3, "relu", seed=0)
    a = run_student(t, RUN, seed=0, log=lambda s: None)
    f = a["final"]
    assert f["cos"] > 0.99 and f["support_recovery"] == 1.0 and f["attn_tv"] < 0.1
    curve = a["curve"]
    assert curve["train_excess"][-1] < 0.01 * curve["train_excess"][0]
    assert curve["ood_excess"][-1] < 0.05 * curve["ood_excess"][0]
    assert -1.6 < f["train_slope"] < -0.6


def test_ood_loss_is_the_same_loss_on_exponential_inputs():
    t = make_teacher("sparse_token", 20, 3, 4, "linear", seed=0)
    st = teacher_as_student(t, orthogonal_positions(20, 0))
    X = torch.empty(64, 3, 20, dtype=DTYPE).exponential_(1.0)
    assert X.min() >= 0 and empirical_loss(st, t, X) < 1e-20
    st.W_V = st.W_V * 1.1
    assert empirical_loss(st, t, X) > 1e-4


def test_digits_tokens_and_idx_parsing(tmp_path):
    import gzip

    from repro.papers.tstudent.digits import _read_idx, fetch_mnist, to_tokens

    img = np.arange(2 * 8 * 8, dtype=float).reshape(2, 8, 8)
    tok = to_tokens(img, 4)  # 2x2 grid of 4x4 patches, d = 16
    assert tok.shape == (2, 16, 4)
    np.testing.assert_array_equal(tok[0, :, 1], img[0, 0:4, 4:8].ravel())  # token 1: top right
    np.testing.assert_array_equal(tok[1, :, 2], img[1, 4:8, 0:4].ravel())  # token 2: bottom left
    arr = np.arange(24, dtype=np.uint8).reshape(2, 3, 4)
    raw = bytes([0, 0, 8, 3]) + b"".join(n.to_bytes(4, "big") for n in arr.shape) + arr.tobytes()
    np.testing.assert_array_equal(_read_idx(gzip.compress(raw)), arr)
    with pytest.raises(SystemExit, match="full-scale"):
        fetch_mnist({}, tmp_path, "small", None)
