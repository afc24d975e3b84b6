"""REAP's calibration statistics, pruning and merging on a real (tiny) transformers Qwen3-MoE:
exactness of the pruned model, brute-force saliencies, merge identities, linear assignment and
clustering, the generation judgements, and deterministic training."""

from __future__ import annotations

import itertools
import json
from dataclasses import replace

import numpy as np
import pytest
import torch
import torch.nn.functional as F

from repro.core.config import load_settings
from repro.papers.reap import data as rdata
from repro.papers.reap import settings as rsettings
from repro.papers.reap.evaluate import compress, edit_distance, first_divergence
from repro.papers.reap.merge import (
    average_linkage,
    hungarian,
    m_smoe_labels,
    merge_layer,
    weight_matching,
)
from repro.papers.reap.model import ExpertBank, load_model, moe_layers, new_model, save_model
from repro.papers.reap.observe import Observer
from repro.papers.reap.prune import apply_prune, experts_to_keep, prune

TINY = {"kind": "scratch", "hidden_size": 32, "num_layers": 2, "num_heads": 2,
        "num_kv_heads": 1, "num_experts": 8, "top_k": 2, "moe_intermediate_size": 16,
        "norm_topk_prob": True, "router_aux_loss_coef": 0.01, "max_positions": 64}
TOK = rdata.tokenizer()


def _model(seed: int = 0, **over) -> torch.nn.Module:
    m = new_model({**TINY, **over}, TOK, seed).eval()
    # a fresh router is nearly uniform; larger weights give distinct, confident routing
    with torch.no_grad():
        for _, bank in moe_layers(m):
            bank.gate.weight.normal_(0, 1.0)
            if bank.fused:
                bank.experts.gate_up_proj.normal_(0, 0.3)
                bank.experts.down_proj.normal_(0, 0.3)
    return m


def _ids(n: int = 2, length: int = 24, seed: int = 0) -> torch.Tensor:
    g = torch.Generator().manual_seed(seed)
    return torch.randint(0, 256, (n, length), generator=g)


def _observe(model, ids, renormalize=True):
    obs = Observer(model, renormalize=renormalize)
    out = obs.observe([{"input_ids": ids}])
    obs.close()
    return out


# ----------------------------------------------------------------------------- layout
def test_transformers_stores_qwen3_moe_experts_fused():
    m = _model()
    bank = next(moe_layers(m))[1]
    assert bank.fused  # transformers 5.x: 3-D gate_up_proj / down_proj
    assert tuple(bank.experts.gate_up_proj.shape) == (8, 2 * 16, 32)
    assert tuple(bank.experts.down_proj.shape) == (8, 32, 16)
    assert tuple(bank.gate.weight.shape) == (8, 32)


def test_expert_view_reproduces_the_moe_block():
    """sum_j g_j(x) E_j(x) over the top-k, from ExpertBank, equals the block's own output."""
    m = _model()
    bank = next(moe_layers(m))[1]
    x = torch.randn(10, 32)
    with torch.no_grad():
        want = bank.block(x.unsqueeze(0)).squeeze(0)
        w, idx = bank.route(bank.router_logits(x))
        got = torch.zeros_like(x)
        for t in range(10):
            for k in range(bank.top_k):
                e = int(idx[t, k])
                got[t] += w[t, k] * bank.expert_out(e, x[t: t + 1])[0]
    assert torch.allclose(w.sum(-1), torch.ones(10), atol=1e-6)  # renormalised top-k gates
    assert torch.allclose(got, want, atol=1e-5)


# ----------------------------------------------------------------------------- saliency
def _brute_force(model, ids):
    """Per layer: frequency, EAN sum and REAP recomputed token by token from the raw weights."""
    xs = {}
    hooks = [bank.block.register_forward_hook(
        lambda mod, a, o, i=i: xs.__setitem__(i, a[0].reshape(-1, a[0].shape[-1]).clone()))
        for i, bank in moe_layers(model)]
    with torch.no_grad():
        model(input_ids=ids)
    for h in hooks:
        h.remove()
    out = {}
    for i, bank in moe_layers(model):
        x = xs[i]
        gu, dn = bank.experts.gate_up_proj, bank.experts.down_proj
        inter = dn.shape[-1]
        n_exp = gu.shape[0]
        freq = np.zeros(n_exp)
        ean = np.zeros(n_exp)
        reap = np.zeros(n_exp)
        with torch.no_grad():
            for t in range(x.shape[0]):
                p = torch.softmax(x[t] @ bank.gate.weight.T, -1)
                top = torch.topk(p, bank.top_k).indices.tolist()
                z = sum(float(p[j]) for j in top)
                for j in top:
                    h = F.silu(gu[j, :inter] @ x[t]) * (gu[j, inter:] @ x[t])
                    norm = float(torch.linalg.norm(dn[j] @ h))
                    freq[j] += 1
                    ean[j] += norm
                    reap[j] += float(p[j]) / z * norm
        out[i] = (freq, ean, np.where(freq > 0, reap / np.maximum(freq, 1), 0.0))
    return out


def test_reap_saliency_from_hooks_equals_brute_force():
    m = _model()
    ids = _ids()
    obs = _observe(m, ids)
    for layer, (freq, ean, reap) in _brute_force(m, ids).items():
        st = obs[layer]
        assert st["expert_frequency"].tolist() == freq.tolist()
        np.testing.assert_allclose(st["ean_sum"].numpy(), ean, rtol=1e-5, atol=1e-6)
        np.testing.assert_allclose(st["reap"].numpy(), reap, rtol=1e-5, atol=1e-7)
    # REAP ranks differently from frequency on this model (a criterion, not a relabelling)
    st = obs[0]
    assert experts_to_keep(st["reap"], 4) != experts_to_keep(st["expert_frequency"].double(), 4)


def test_frequency_counts_sum_to_tokens_times_top_k():
    m = _model()
    obs = _observe(m, _ids(3, 17))
    for st in obs.values():
        assert int(st["total_tokens"]) == 3 * 17
        assert int(st["expert_frequency"].sum()) == 3 * 17 * TINY["top_k"]
        assert float(st["expert_proba"].sum()) == pytest.approx(TINY["top_k"])
        d = st["router_logit_distance"]
        assert torch.allclose(d, d.T)
        assert torch.allclose(torch.diagonal(d), torch.zeros(8, dtype=d.dtype), atol=1e-9)


# ----------------------------------------------------------------------------- pruning
def _unused_plan(model, ids):
    """Prune, in every layer, the same number of experts that no token of `ids` routes to."""
    obs = _observe(model, ids)
    unused = {i: [e for e in range(8) if st["expert_frequency"][e] == 0] for i, st in obs.items()}
    k = min(len(u) for u in unused.values())
    assert k >= 2, unused
    return {i: [e for e in range(8) if e not in u[:k]] for i, u in unused.items()}, k


@pytest.mark.parametrize("norm_topk_prob", [True, False])
def test_pruning_never_routed_experts_keeps_the_output(norm_topk_prob):
    """Tokens that never reach the pruned experts see the same top-k; with the renormalised
    gate (Qwen3, norm_topk_prob) their gate values, hence the logits, are unchanged too. Without
    renormalisation the softmax over fewer experts changes the gates (the control)."""
    m = _model(norm_topk_prob=norm_topk_prob)
    ids = _ids(1, 3)  # 3 tokens x top-2 reach at most 6 of the 8 experts per layer
    with torch.no_grad():
        before = m(input_ids=ids).logits
    plan, k = _unused_plan(m, ids)
    apply_prune(m, plan)
    assert m.config.num_experts == 8 - k
    with torch.no_grad():
        after = m(input_ids=ids).logits
    same = torch.allclose(before, after, atol=1e-5)
    assert same == norm_topk_prob


def test_pruned_model_is_smaller_runs_and_reloads(tmp_path):
    m = _model()
    n_before = sum(p.numel() for p in m.parameters())
    obs = _observe(m, _ids())
    plan = prune(m, obs, "reap", 50)
    assert all(len(v) == 4 for v in plan.values())
    assert m.config.num_experts == 4
    for _, bank in moe_layers(m):
        assert bank.num_experts == 4 and bank.gate.num_experts == 4
        assert tuple(bank.experts.gate_up_proj.shape) == (4, 32, 32)
        assert bank.experts.num_experts == 4
    assert sum(p.numel() for p in m.parameters()) < n_before
    ids = _ids(2, 16, seed=5)
    with torch.no_grad():
        logits = m(input_ids=ids).logits
        gen = m.generate(input_ids=ids[:, :4], max_new_tokens=4, do_sample=False,
                         pad_token_id=TOK.pad_id)
    assert torch.isfinite(logits).all() and gen.shape == (2, 8)
    save_model(m, tmp_path / "pruned", {"kind": "scratch"})
    from transformers import Qwen3MoeConfig

    assert Qwen3MoeConfig.from_pretrained(tmp_path / "pruned").num_experts == 4
    m2, _, _ = load_model(tmp_path / "pruned")
    with torch.no_grad():
        assert torch.allclose(m2(input_ids=ids).logits, logits, atol=1e-6)


def test_pruning_keeps_the_most_salient_experts():
    sal = torch.tensor([0.5, 0.1, 0.9, 0.1, 0.3])
    assert experts_to_keep(sal, 2) == [0, 2, 4]  # ties: the lower index goes first
    m = _model()
    obs = _observe(m, _ids())
    plan = prune(m, obs, "frequency", 25)
    for layer, keep in plan.items():
        f = obs[layer]["expert_frequency"]
        dropped = [e for e in range(8) if e not in keep]
        assert max(f[dropped]) <= min(f[keep])


# ----------------------------------------------------------------------------- merging
def test_merging_identical_experts_is_the_identity():
    m = _model()
    bank = next(moe_layers(m))[1]
    with torch.no_grad():  # experts 1 and 5 become copies of expert 0; 3 of 2
        for a, b in ((0, 1), (0, 5), (2, 3)):
            bank.set(b, *[t.clone() for t in bank.get(a)])
    before = [tuple(t.clone() for t in bank.get(e)) for e in range(8)]
    labels = [0, 0, 1, 1, 2, 0, 3, 4]
    proba = torch.tensor([0.1, 0.3, 0.2, 0.05, 0.1, 0.05, 0.1, 0.1], dtype=torch.float64)
    for permute in (False, True):
        merge_layer(bank, labels, proba, permute=permute)
        for e in range(8):
            for t0, t1 in zip(before[e], bank.get(e), strict=True):
                assert torch.allclose(t0, t1, atol=1e-6)


def test_weight_matching_undoes_a_neuron_permutation():
    m = _model()
    bank = next(moe_layers(m))[1]
    gate, up, down = (t.detach().clone() for t in bank.get(0))
    perm = torch.randperm(16, generator=torch.Generator().manual_seed(3))
    other = (gate[perm], up[perm], down[:, perm])  # the same function, neurons reordered
    x = torch.randn(5, 32)
    with torch.no_grad():
        y0 = down @ (F.silu(gate @ x.T) * (up @ x.T))
        y1 = other[2] @ (F.silu(other[0] @ x.T) * (other[1] @ x.T))
    assert torch.allclose(y0, y1, atol=1e-5)
    p = weight_matching((gate, up, down), other)
    assert torch.equal(other[0][p], gate) and torch.equal(other[2][:, p], down)
    # merging the permuted copy with its original (aligned) gives the original back
    bank.set(1, *other)
    merge_layer(bank, [0, 0, 1, 2, 3, 4, 5, 6], torch.full((8,), 0.125, dtype=torch.float64),
                permute=True)
    assert torch.allclose(bank.get(1)[0], gate, atol=1e-6)


def test_hungarian_matches_brute_force():
    rng = np.random.default_rng(0)
    for n in (1, 2, 3, 5, 6):
        for _ in range(5):
            c = rng.normal(size=(n, n))
            cols = hungarian(c)
            best = min(itertools.permutations(range(n)), key=lambda p: c[range(n), p].sum())
            assert np.isclose(c[range(n), cols].sum(), c[range(n), best].sum())
            assert sorted(cols.tolist()) == list(range(n))


def test_average_linkage_groups_nearby_points():
    pts = np.array([0.0, 1.0, 10.0, 11.5, 30.0, 10.5])
    d = np.abs(pts[:, None] - pts[None, :])
    assert average_linkage(d, 3) == [0, 0, 1, 1, 2, 1]
    assert average_linkage(d, 6) == [0, 1, 2, 3, 4, 5]
    assert average_linkage(d, 1) == [0] * 6


def test_m_smoe_picks_dominant_experts_globally():
    """L * k dominants over all layers, at least one per layer, by frequency."""
    def layer(freq):
        f = torch.tensor(freq, dtype=torch.float64)
        dist = torch.rand(4, 4, generator=torch.Generator().manual_seed(1))
        return {"expert_proba": f / f.sum(), "router_logit_distance": dist}
    obs = {0: layer([40, 30, 20, 10]), 1: layer([1, 1, 1, 97])}
    labels = m_smoe_labels(obs, 50)  # 2 layers x 2 groups = 4 groups in all
    assert len(set(labels[0])) == 3 and len(set(labels[1])) == 1
    # layer 1's single group is the dominant expert 3 with everyone else
    assert labels[1] == [0, 0, 0, 0]


def test_merged_model_keeps_the_router_and_shares_weights():
    m = _model()
    obs = _observe(m, _ids())
    cfg = rsettings.load("src/repro/papers/reap/config.yaml", "tiny")
    cfg = replace(cfg, ean_criterion="ean_sum",
                  merge=replace(cfg.merge, hc_smoe=rsettings.MergeSettings(False, "average")))
    info = compress(m, obs, "hc_smoe", 50, cfg)
    assert m.config.num_experts == 8 and info["unique_experts"] == 2 * 4
    for layer, bank in moe_layers(m):
        labels = info["groups"][str(layer)]
        for a, b in itertools.combinations(range(8), 2):
            same = torch.equal(bank.get(a)[0], bank.get(b)[0])
            assert same == (labels[a] == labels[b])


# ----------------------------------------------------------------------------- data, metrics
def test_splits_are_deterministic_by_name():
    fr = {"train": 0.8, "calib": 0.1, "heldout": 0.1}
    names = [f"pkg/mod{i}.py" for i in range(400)]
    a = [rdata.split_of(n, fr) for n in names]
    assert a == [rdata.split_of(n, fr) for n in names]
    assert 0.7 < a.count("train") / 400 < 0.9 and a.count("calib") and a.count("heldout")


def test_every_scale_types_its_settings():
    for scale in ("tiny", "small", "full"):
        cfg = rsettings.load("src/repro/papers/reap/config.yaml", scale)
        assert cfg.methods and cfg.eval.prefixes.n > 0
    s = load_settings("src/repro/papers/reap/config.yaml", "tiny")
    del s["calibration"]["seq_len"]
    with pytest.raises(ValueError, match="reap.calibration: missing key seq_len"):
        rsettings.settings_of(s)


def test_function_prefixes_and_completion():
    src = (
        "import os\n\n\nclass A:\n    def f(self, x):\n        \"\"\"Doc.\"\"\"\n"
        "        y = x + 1\n        return os.path.join(y, 'z')\n\n    def g(self):\n"
        "        return 1\n"
    )
    cfg = rsettings.PrefixConfig(n=10, body_lines=1, min_next_line=4, max_prefix_chars=400,
                             context_chars=50)
    ps = rdata.function_prefixes([{"name": "m.py", "text": src}], cfg)
    assert [p["name"] for p in ps] == ["f"]
    p = ps[0]
    assert p["prefix"].endswith("y = x + 1\n") and p["next_line"].strip().startswith("return os")
    func, n = rdata.complete_function(p["prefix"], "        return y\n    def h(", p["indent"])
    assert n == 1 and rdata.parses(func) and func.startswith("def f(self, x):")
    func, n = rdata.complete_function(p["prefix"], "        if y:\n        z = (1,\n", p["indent"])
    assert n == 2 and not rdata.parses(func)  # an unclosed bracket cannot be closed by `pass`
    func, n = rdata.complete_function(p["prefix"], "        if y:\n", p["indent"])
    assert rdata.parses(func)  # a block opener at the end closes with `pass`
    assert TOK.decode(TOK.encode("déf ok") + [TOK.eos_id, 65]) == "déf ok"


def test_edit_distance_and_first_divergence():
    assert edit_distance([1, 2, 3], [1, 2, 3]) == 0
    assert edit_distance([1, 2, 3], [1, 3]) == 1
    assert edit_distance([], [4, 5]) == 2
    assert first_divergence([1, 2, 3], [1, 2, 4]) == 2
    assert first_divergence([1, 2], [1, 2, 3]) == 2
    assert first_divergence([1, 2], [1, 2]) == 2


# ----------------------------------------------------------------------------- training
def test_training_is_deterministic_for_a_fixed_seed(tmp_path):
    from repro.papers.reap.train import train

    s = rsettings.load("src/repro/papers/reap/config.yaml", "tiny")
    s.train = replace(s.train, steps=3, log_every=1)
    text = "def f(x):\n    return x + 1\n" * 40
    prose = "The if statement is used for conditional execution. " * 40
    with open(tmp_path / "docs.jsonl", "w") as f:
        for i in range(4):
            d = {"name": f"m{i}.py", "kind": "code", "split": "train", "text": text}
            f.write(json.dumps(d) + "\n")
        f.write(json.dumps({"name": "t", "kind": "prose", "split": "train", "text": prose}) + "\n")
    outs = []
    for run, seed in (("a", 0), ("b", 0), ("c", 1)):
        train(s, tmp_path, tmp_path / run, seed)
        m, _, meta = load_model(tmp_path / run)
        assert meta["seed"] == seed
        outs.append(m.state_dict())
    for k in outs[0]:
        assert torch.equal(outs[0][k], outs[1][k]), k
    assert not all(torch.equal(outs[0][k], outs[2][k]) for k in outs[0])  # another model
    log = json.loads((tmp_path / "a/train_log.json").read_text())
    assert len(log["steps"]) == 3 and "router_entropy" in log["router_trained"]
    assert ExpertBank(next(moe_layers(m))[1].block).num_experts == s.model["num_experts"]
