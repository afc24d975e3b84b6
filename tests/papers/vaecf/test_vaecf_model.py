"""VAE-CF model and metrics: Liang et al.'s Recall/NDCG on hand-computed cases, Mult-VAE
shapes, KL, the anchor loss on a hand case, the annealing schedule, determinism, and the
latent-proximity measurements."""

from __future__ import annotations

import dataclasses
import math
from pathlib import Path

import numpy as np
import pytest
import torch

from repro.papers.vaecf.data import CSR, save
from repro.papers.vaecf.metrics import all_metrics, ndcg_at_k, recall_at_k, topk
from repro.papers.vaecf.model import (
    MultVAE,
    VAEConfig,
    anchor_loss,
    beta_at,
    gaussian_kl,
    loss_terms,
    multinomial_nll,
    sparse_linear,
)
from repro.papers.vaecf.proximity import transfer_matrix, w2_distances
from repro.papers.vaecf.settings import TrainConfig, load
from repro.papers.vaecf.train import check_split, fit, run

ROOT = Path(__file__).resolve().parents[3]


def test_topk_orders_best_first():
    assert topk(np.array([[0.1, 0.9, 0.5, 0.7]]), 3).tolist() == [[1, 3, 2]]


def test_recall_normalised_by_min_k_and_heldout():
    scores = np.array([[5.0, 4.0, 3.0, 2.0, 1.0]])
    held = np.array([[1, 0, 1, 1, 0]])  # 3 held-out items, ranks 1, 3, 4
    assert recall_at_k(scores, held, 2)[0] == pytest.approx(1 / 2)  # 1 hit / min(2, 3)
    assert recall_at_k(scores, held, 4)[0] == pytest.approx(3 / 3)
    assert recall_at_k(scores, held, 3)[0] == pytest.approx(2 / 3)
    assert np.isnan(recall_at_k(scores, np.zeros_like(held), 2)[0])  # no held-out items


def test_ndcg_hand_case():
    scores = np.array([[5.0, 4.0, 3.0, 2.0, 1.0]])
    held = np.array([[1, 0, 1, 1, 0]])
    dcg = 1 + 1 / math.log2(4) + 1 / math.log2(5)
    idcg = 1 + 1 / math.log2(3) + 1 / math.log2(4)
    assert ndcg_at_k(scores, held, 5)[0] == pytest.approx(dcg / idcg)
    # k = 2: DCG = 1 (rank 1 only); IDCG over min(2, 3) = 2 slots
    assert ndcg_at_k(scores, held, 2)[0] == pytest.approx(1 / (1 + 1 / math.log2(3)))
    assert ndcg_at_k(scores, np.array([[1, 0, 0, 0, 0]]), 100)[0] == pytest.approx(1.0)


def test_fold_in_items_are_never_recommended():
    scores = np.array([[9.0, 1.0, 2.0, 0.0]])
    fold_in = np.array([[1, 0, 0, 0]])  # the top-scored item was already seen
    held = np.array([[0, 0, 1, 0]])
    m = all_metrics(scores, fold_in, held)
    assert m["ndcg@100"][0] == pytest.approx(1.0) and m["recall@20"][0] == pytest.approx(1.0)


def _model(n_items=7, **kw):
    torch.manual_seed(0)
    return MultVAE(VAEConfig(n_items=n_items, hidden=5, latent=3, **kw))


def test_mult_vae_shapes_and_modes():
    m = _model(dropout=0.5)
    x = (torch.rand(4, 7) < 0.5).float()
    x[:, 0] = 1
    m.train()
    logits, mu, logvar = m(x)
    assert logits.shape == (4, 7) and mu.shape == logvar.shape == (4, 3)
    m.eval()
    a, b = m(x)[0], m(x)[0]
    assert torch.equal(a, b)  # eval: no masking, z = mu
    assert torch.allclose(m(x)[1], m.encode(x)[0])


def test_sparse_linear_equals_the_dense_product():
    layer = torch.nn.Linear(7, 5)
    x = torch.tensor([[0.0, 0.5, 0, 0, 0.5, 0, 0], [0, 0, 0, 0, 0, 0, 0], [1.0, 0, 0, 0, 0, 0, 2]])
    assert torch.allclose(sparse_linear(x, layer), layer(x), atol=1e-6)


def test_kl_and_nll_hand_cases():
    assert gaussian_kl(torch.zeros(1, 3), torch.zeros(1, 3)).item() == pytest.approx(0.0)
    mu = torch.tensor([[1.0, 0.0]])
    assert gaussian_kl(mu, torch.zeros(1, 2)).item() == pytest.approx(0.5)
    lv = torch.tensor([[math.log(2.0)]])  # sigma^2 = 2: 0.5 (2 - log 2 - 1)
    assert gaussian_kl(torch.zeros(1, 1), lv).item() == pytest.approx(0.5 * (1 - math.log(2)))
    logits = torch.zeros(1, 4)  # uniform: -log(1/4) per item
    x = torch.tensor([[1.0, 1.0, 0, 0]])
    assert multinomial_nll(logits, x).item() == pytest.approx(2 * math.log(4))


def test_anchor_loss_hand_case():
    anchors = torch.tensor([[1.0, 0.0], [0.0, 2.0], [-1.0, -1.0]])
    mu = torch.tensor([[0.5, 0.5]])
    logvar = torch.log(torch.tensor([[0.1, 0.3]]))
    x = torch.tensor([[1.0, 0.0, 1.0]])  # the user's items: 0 and 2
    d0 = (0.5 - 1) ** 2 + 0.5**2
    d2 = 1.5**2 + 1.5**2
    want = (d0 + d2) / 2 + 0.1 + 0.3
    assert anchor_loss(mu, logvar, x, anchors).item() == pytest.approx(want, rel=1e-6)
    # the closed form is the expectation of ||z - e_i||^2 under q (Monte Carlo check)
    torch.manual_seed(0)
    z = mu + torch.randn(200_000, 2) * torch.exp(0.5 * logvar)
    mc = ((z[:, None, :] - anchors[[0, 2]][None]) ** 2).sum(-1).mean()
    assert mc.item() == pytest.approx(want, rel=1e-2)


def test_loss_terms_include_anchor_only_when_weighted():
    x = torch.tensor([[1.0, 0, 1, 0, 0, 1, 0]])
    assert "anchor" not in loss_terms(_model(), x, 0.2)
    m = _model(anchor_weight=0.5)
    torch.manual_seed(1)
    t = loss_terms(m, x, 0.2)
    assert t["loss"].item() == pytest.approx(
        (t["nll"] + 0.2 * t["kl"] + 0.5 * t["anchor"]).item(), rel=1e-6)
    t["loss"].backward()
    assert m.anchors.grad is not None and m.anchors.grad[1].abs().sum() == 0  # item 1 unseen


def test_beta_schedule():
    assert beta_at(0, 0.2, 1000) == 0.0
    assert beta_at(100, 0.2, 1000) == pytest.approx(0.1)
    assert beta_at(10**6, 0.2, 1000) == pytest.approx(0.2)
    assert beta_at(0, 1.0, 0) == 1.0  # constant beta-KL


def _toy_data(seed=0) -> dict[str, CSR]:
    rng = np.random.default_rng(seed)

    def mat(n):
        rows, cols = np.nonzero(rng.random((n, 12)) < 0.3)
        return CSR.from_pairs(rows, cols, n, 12)

    return {"train": mat(40), "val_tr": mat(8), "val_te": mat(8), "test_tr": mat(8),
            "test_te": mat(8)}


def test_same_seed_same_model():
    data = _toy_data()
    cfg = VAEConfig(n_items=12, hidden=8, latent=4, dropout=0.5, anchor_weight=0.1)
    tc = TrainConfig(epochs=3, batch_size=16, total_anneal_steps=10)
    torch.set_num_threads(1)
    m1, h1 = fit(data, cfg, tc, seed=3, log=lambda s: None)
    m2, h2 = fit(data, cfg, tc, seed=3, log=lambda s: None)
    assert h1["curve"] == h2["curve"]
    for (k, a), (_, b) in zip(m1.state_dict().items(), m2.state_dict().items(), strict=True):
        assert torch.equal(a, b), k
    _, h3 = fit(data, cfg, tc, seed=4, log=lambda s: None)
    assert h3["curve"] != h1["curve"]


def test_w2_between_diagonal_gaussians():
    mu = torch.tensor([[0.0, 0.0], [3.0, 4.0]])
    logvar = torch.log(torch.tensor([[1.0, 1.0], [4.0, 1.0]]))  # sd (1, 1) vs (2, 1)
    d = w2_distances(mu, logvar)
    assert d[0, 1] == pytest.approx(math.sqrt(25 + 1)) and d[0, 0] == pytest.approx(0, abs=1e-6)


def test_one_step_on_a_user_lowers_its_own_loss():
    m = _model(n_items=7)
    m.eval()
    x = torch.tensor([[1.0, 1, 0, 0, 0, 0, 0], [1.0, 1, 1, 0, 0, 0, 0], [0, 0, 0, 0, 1, 1, 1.0]])
    t, own = transfer_matrix(m, x, np.array([0, 2]), lr=1e-2)
    assert t.shape == (2, 3) and (own > 0).all()
    assert t[0, 0] == own[0] and t[1, 2] == own[1]


def test_run_records_name_their_unit_and_the_split_is_checked(tmp_path):
    """Each record names its unit (seed and data split); a prepared file of another split is
    refused, so a run is never scored on held-out users of another seed."""
    cfg = load(ROOT / "src/repro/papers/vaecf/config.yaml", "tiny")
    cfg = dataclasses.replace(cfg, model=dataclasses.replace(cfg.model, hidden=8, latent=4))
    result, _, _ = run(cfg, _toy_data(), "ml-100k", "masking", seed=3, log=lambda s: None)
    assert (result["seed"], result["split"], result["split_seed"]) == (3, 3, 98768)
    assert all(r["seed"] == 3 and r["split"] == 3 for r in result["records"])
    save(tmp_path / "p.npz", _toy_data(), split=2, split_seed=98767)
    check_split(tmp_path / "p.npz", split=2, seed=2)
    with pytest.raises(SystemExit, match="holds split 2, but seed 3 uses split 3"):
        check_split(tmp_path / "p.npz", split=3, seed=3)
