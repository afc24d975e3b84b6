"""OWLEYE groundwork (issue 24): the two-branch encoder, truncated attention, the dictionary
and its continual growth, training, and the ablations' switches."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import torch

from repro.papers.owleye.align import normalised_adjacency, owleye_normalise, project, propagate
from repro.papers.owleye.baselines import auroc_auprc
from repro.papers.owleye.graphs import inject, sbm_domain, sklearn_domain
from repro.papers.owleye.model import Domain, Owleye, OwleyeConfig, train_owleye

CFG = OwleyeConfig(hidden=32, support=60, target_patterns=10)


def domains():
    graphs = [inject(g, 3, 8, 24, 40, np.random.default_rng(i)) for i, g in enumerate([
        sbm_domain("s0", [120, 120], 0.08, 0.005, 5, seed=0),
        sbm_domain("s1", [100, 140], 0.08, 0.005, 9, seed=1),
        sklearn_domain("wine", 6)])]
    z = [project(g.x) for g in graphs]
    train, test, _ = owleye_normalise(z[:2], z[2:], mode="released")
    out = []
    for g, x in zip(graphs, [*train, *test], strict=True):
        adj = normalised_adjacency(g.n, g.edges)
        out.append(Domain([torch.as_tensor(h) for h in propagate(x, adj, 4)],
                          adj, g.y))
    return out


def test_encoder_shapes_and_structure_branch_sees_only_topology():
    torch.manual_seed(0)
    src = domains()
    m = Owleye(CFG)
    h, r = m.embed(src[0])
    assert h.shape == (240, 32 * 4) and r.shape == (240, 10 * 4)
    # the structure branch ignores the features
    other = Domain([x * 0 + 1 for x in src[0].hops], src[0].adj, src[0].y)
    assert torch.allclose(m.embed(other)[1], r)
    assert Owleye(replace(CFG, structure=False)).embed(src[0])[1] is None  # the -S ablation


def test_truncation_removes_the_lowest_scores_and_minus_t_keeps_them():
    torch.manual_seed(0)
    m = Owleye(replace(CFG, temperature=1.0))
    q, p = torch.randn(5, 128), torch.randn(20, 128)
    a = torch.nn.functional.leaky_relu(m.wq(q)) @ torch.nn.functional.leaky_relu(m.wk(p)).T
    lowest = a.topk(2, dim=1, largest=False).indices  # 10% of 20 patterns
    k = torch.nn.functional.leaky_relu(m.wk(p))
    full = m.attend(q, p, k, m.wq)
    w = (a / m.scale).scatter(1, lowest, float("-inf"))
    assert torch.allclose(full, w.softmax(1) @ p, atol=1e-6)
    # so a pattern among a query's lowest scores gets no weight at all
    weights = w.softmax(1)
    assert (weights.gather(1, lowest) == 0).all()
    plain = Owleye(replace(CFG, temperature=1.0, truncation=False))
    plain.load_state_dict(m.state_dict())
    assert not torch.allclose(plain.attend(q, p, k, plain.wq), full)


def test_training_lowers_the_loss_scores_an_unseen_domain_and_the_dictionary_grows():
    torch.manual_seed(0)
    src = domains()
    m = Owleye(CFG)
    curve = train_owleye(m, src[:2], epochs=30, lr=1e-3, weight_decay=0.0, seed=0)
    assert curve[-1] < curve[0] and len(m.dictionary) == 2
    assert all(d[0].shape[0] <= CFG.support for d in m.dictionary)
    with torch.no_grad():
        s = m.score(src[2], np.random.default_rng(1).permutation(178)[:10], chunk=50).numpy()
        again = m.score(src[2], np.random.default_rng(1).permutation(178)[:10]).numpy()
    assert np.allclose(s, again, atol=1e-5)  # chunking changes nothing
    auroc, auprc = auroc_auprc(src[2].y, s)
    assert s.shape == (178,) and np.isfinite(s).all() and auroc > 0.5
    m.add_domain(src[2], np.random.default_rng(2))  # continual: one forward pass, no training
    assert len(m.dictionary) == 3
    normal = np.flatnonzero(src[2].y == 0)
    assert m.dictionary[2][0].shape[0] == min(CFG.support, len(normal))


def test_encoding_only_the_rows_needed_gives_the_full_encodings_rows():
    """Training and the dictionary encode only the nodes they use; that must be the same as
    encoding the whole graph and indexing (OWLEYE and ARC both)."""
    from repro.papers.owleye.arc import ARC, ArcConfig

    torch.manual_seed(0)
    dom = domains()[0]
    rows = np.array([5, 0, 17, 239, 5])
    m = Owleye(CFG)
    h, r = m.embed(dom)
    hs, rs = m.embed(dom, rows)
    assert torch.allclose(hs, h[rows], atol=1e-6) and torch.allclose(rs, r[rows], atol=1e-6)
    arc = ARC(64, ArcConfig(hidden=16))
    assert torch.allclose(arc.embed(dom.hops, rows), arc.embed(dom.hops)[rows], atol=1e-6)
