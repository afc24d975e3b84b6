"""NFT's loss as the official code writes it, its method switches, dynamic sampling, and
Prop. 4.2 (NFT = GRPO / Dr.GRPO gradients on-policy) checked on a real model's gradients."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from repro.core.manifest import Manifest
from repro.core.rlvr.objectives import PPOObjective, RLConfig, grpo_loss
from repro.core.rlvr.policy import build_policy, sample
from repro.core.rlvr.trainer import dynamic_rollouts
from repro.papers.nft import equivalence as eq
from repro.papers.nft.algos import (
    NFTObjective,
    clamp_preserve_grad,
    correct_rates,
    make_objective,
    method_settings,
    nft_token_losses,
)

TINY_MODEL = {"kind": "scratch", "hidden_size": 32, "intermediate_size": 64, "num_layers": 1,
              "num_heads": 2, "max_positions": 48}


def test_clamp_preserve_grad_clamps_the_value_not_the_gradient():
    x = torch.tensor([0.3, 2.0], requires_grad=True)
    y = clamp_preserve_grad(x, 1.0)
    assert y.tolist() == [1.0, 2.0]
    (y * torch.tensor([3.0, 5.0])).sum().backward()
    assert x.grad.tolist() == [3.0, 5.0]


def _token_grad(ratio: float, correct: float, rate: float, **kw) -> float:
    old = torch.tensor([[-1.0]], dtype=torch.float64)
    logp = (old + np.log(ratio)).clone().requires_grad_(True)
    loss = nft_token_losses(logp, old, torch.tensor([correct], dtype=torch.float64),
                            torch.tensor([rate], dtype=torch.float64), **kw).sum()
    loss.backward()
    return float(logp.grad[0, 0])


@pytest.mark.parametrize("rate", [0.125, 0.5, 0.875])
def test_on_policy_gradients_are_the_group_advantages(rate):
    """ratio = 1: positive d/dlogp = -w(r), negative = +w(r) r/(1-r) (paper's Prop. 4.2)."""
    w1, w2 = 1 - rate, np.sqrt((1 - rate) / rate)
    assert _token_grad(1.0, 1.0, rate, normalize=1) == pytest.approx(-w1)
    assert _token_grad(1.0, 0.0, rate, normalize=1) == pytest.approx(rate)  # Dr.GRPO: -(c - r)
    assert _token_grad(1.0, 1.0, rate, normalize=2) == pytest.approx(-w2)
    std = np.sqrt(rate * (1 - rate))  # GRPO: -(c - r) / std
    assert _token_grad(1.0, 0.0, rate, normalize=2) == pytest.approx(rate / std)
    assert _token_grad(1.0, 1.0, rate, normalize=2) == pytest.approx(-(1 - rate) / std)
    assert _token_grad(1.0, 1.0, rate, normalize=0) == pytest.approx(-1.0)


def test_rft_ignores_negatives_and_neg_weight_scales_them():
    assert _token_grad(1.3, 0.0, 0.4, neg_weight=0.0) == 0.0
    full = _token_grad(0.8, 0.0, 0.4, neg_weight=1.0)
    assert _token_grad(0.8, 0.0, 0.4, neg_weight=0.5) == pytest.approx(0.5 * full)
    assert _token_grad(0.8, 1.0, 0.4, neg_weight=0.0) == _token_grad(0.8, 1.0, 0.4)


def test_negative_proxy_is_clamped_with_a_straight_through_gradient():
    """r ratio >= 1 makes the implicit negative policy's proxy <= 0: its value is clamped at
    1 (loss 0) but the gradient is the proxy's own, -d proxy = r/(1-r) ratio d logp."""
    rate, ratio = 0.5, 2.5  # proxy = (1 - 1.25) / 0.5 < 0
    old = torch.tensor([[-1.0]])
    logp = (old + np.log(ratio)).clone().requires_grad_(True)
    loss = nft_token_losses(logp, old, torch.tensor([0.0]), torch.tensor([rate]), normalize=0)
    assert float(loss.detach()) == 0.0 and torch.isfinite(loss).all()
    loss.sum().backward()
    assert float(logp.grad) == pytest.approx(rate / (1 - rate) * ratio, rel=1e-5)
    # unclamped region (ratio < 1): -d log proxy = r ratio / (1 - r ratio) d logp
    g = _token_grad(0.5, 0.0, 0.5, normalize=0)
    assert g == pytest.approx(0.5 * 0.5 / (1 - 0.25))


def test_correct_rate_is_clamped_to_002_098():
    assert _token_grad(1.0, 1.0, 1.0, normalize=1) == pytest.approx(-0.02)
    assert _token_grad(1.0, 0.0, 0.0, normalize=1) == pytest.approx(0.02)
    assert correct_rates(torch.tensor([1.0, 0, 0, 1, 1, 1]), 3).tolist() == pytest.approx(
        [1 / 3] * 3 + [1.0] * 3)


def test_dapo_branch_is_the_ppo_clipped_surrogate():
    torch.manual_seed(0)
    logp, old = torch.randn(4, 5), torch.randn(4, 5)
    mask = (torch.rand(4, 5) > 0.3).float()
    obj = NFTObjective(neg_weight=-1.0, clip_eps=0.2, clip_eps_high=0.28)
    terms = obj.batch_terms(torch.tensor([1.0, 0, 1, 1]), torch.tensor([1.0, 0, 1, 1]), 2, 1e-6)
    loss, _ = obj.loss({"logp": logp}, {"logp": old}, terms, mask, None)
    ref, _ = grpo_loss(logp, old, terms["adv"], mask, 0.2, 0.28)
    assert torch.equal(loss, ref)


def _block():
    from repro.core.config import load_settings
    from repro.core.rlvr.tasks import TaskConfig

    return TaskConfig.from_settings(
        load_settings("src/repro/papers/nft/config.yaml", "small")["countdown"], "countdown"
    )


def test_every_scale_types_its_task_blocks():
    from repro.core.config import load_settings
    from repro.core.rlvr.tasks import TaskConfig

    for scale in ("tiny", "small", "full"):
        s = load_settings("src/repro/papers/nft/config.yaml", scale)
        for name in ("countdown", "math"):
            cfg = TaskConfig.from_settings(s[name], name)
            assert set(cfg.methods) <= set(cfg.method_settings)


def test_methods_are_the_official_switches():
    block = _block()
    rft, nft, dapo = (make_objective(m, block) for m in ("rft", "nft", "dapo_lite"))
    assert isinstance(rft, NFTObjective) and rft.neg_weight == 0.0 and rft.dynamic_sampling
    assert nft.neg_weight == 1.0 and nft.normalize == 1 and nft.clamp_negative == 1.0
    assert dapo.neg_weight == -1.0 and dapo.clip_eps_high == 0.28 and dapo.dynamic_sampling
    grpo, dr = make_objective("grpo", block), make_objective("dr_grpo", block)
    assert isinstance(grpo, PPOObjective) and grpo.advantage == "grpo" and grpo.agg_norm == 0
    assert not grpo.dynamic_sampling and grpo.clip_eps_high == 0.2
    assert dr.advantage == "centred" and dr.agg_norm == block.rl.max_new_tokens
    assert nft.agg_norm == dr.agg_norm  # the same aggregation constant: Dr.GRPO = NFT(norm 1)
    assert method_settings("nft", block)["lr"] == block.rl.lr  # shared schedule


def test_bad_methods_and_settings_fail_clearly():
    block = _block()
    with pytest.raises(SystemExit, match="rft, nft, grpo, dr_grpo, dapo_lite"):
        make_objective("ppo", block)
    with pytest.raises(SystemExit, match="normalize must be 0, 1 or 2"):
        NFTObjective(normalize=3)


class _ParityTask:
    """A stand-in task: a response is 'correct' when its length is even (mixed groups)."""

    name = "parity"

    def prompt_ids(self, tok, p):
        return tok.encode(p)

    def score(self, response, p):
        ok = len(response) % 2 == 0
        return float(ok), ok


def test_dynamic_sampling_keeps_only_mixed_groups_and_counts_every_rollout():
    torch.manual_seed(0)
    policy = build_policy(TINY_MODEL, "cpu")
    problems = ["1 2 3=6:", "4 4 2=8:", "9 1 1=9:", "3 5 7=22:", "2 2 2=8:", "5 1 3=8:"]
    cfg = RLConfig(prompts_per_step=3, group_size=4, gen_prompts_per_step=2, max_gen_batches=5,
                   max_new_tokens=6)
    ro, info = dynamic_rollouts(cfg, policy, problems, np.random.default_rng(0),
                                torch.Generator().manual_seed(0), _ParityTask())
    kept = int(info["kept_groups"])
    assert len(ro["responses"]) == 4 * kept and kept <= 3
    assert info["rollouts_sampled"] == info["gen_rounds"] * 2 * 4
    assert kept == 3 or info["gen_rounds"] == 5
    acc = np.asarray(ro["correct"]).reshape(-1, 4)
    assert np.all((acc.min(1) == 0) & (acc.max(1) == 1))
    assert 0 <= info["accuracy"] <= 1 and info["entropy"] > 0  # over every sampled rollout


@pytest.fixture(scope="module")
def batch():
    """A real on-policy batch of a scratch model (float64), with varied correct rates."""
    torch.manual_seed(0)
    policy = build_policy(TINY_MODEL, "cpu")
    policy.model.double()
    tok, g = policy.tokenizer, 8
    prompts = [tok.encode(p) for p in ("3 5 7=22:", "1 2 3=6:", "4 4 2=8:", "9 1 1=9:")
               for _ in range(g)]
    responses, _ = sample(policy, prompts, 12, 1.0, 1.0, torch.Generator().manual_seed(0))
    correct = torch.zeros(len(prompts))
    for i, k in enumerate((1, 3, 5, 7)):  # correct rates 1/8 .. 7/8
        correct[i * g: i * g + k] = 1.0
    objs = [o for pair in eq.pairs(12.0).values() for o in pair]
    b = eq.make_batch(policy.model, prompts, responses, correct, correct, g, tok.pad_id, objs,
                      1.0)
    return policy.model, b


def test_prop_4_2_on_policy_gradients_coincide(batch):
    model, b = batch
    res = eq.check(model, b, 12.0, updates=4, lr=1e-3, temperature=1.0)
    on = {k: v["on_policy"] for k, v in res.items()}
    assert on["nft_norm2_vs_grpo"]["cosine"] == pytest.approx(1.0, abs=1e-10)
    assert on["nft_norm2_vs_grpo"]["rel_diff_scaled"] < 1e-5  # GRPO's std eps (1e-6) only
    assert on["nft_norm1_vs_dr_grpo"]["rel_diff"] < 1e-10  # equal, not only collinear
    # controls: other prompt weights, or no negatives, are not GRPO
    assert on["control_nft_norm0_vs_grpo"]["cosine"] < 0.999
    assert on["control_rft_vs_grpo"]["cosine"] < 0.99
    # off-policy (pi != pi_old after updates) the equivalence breaks, more with each update
    off = [s["cosine"] for s in res["nft_norm2_vs_grpo"]["off_policy"]]
    assert off[-1] < 0.9999 and off[-1] < off[0]
    assert res["nft_norm2_vs_grpo"]["off_policy"][-1]["mean_abs_log_ratio"] > 0


def test_records_name_the_last_update():
    res = {"p": {"on_policy": {"cosine": 1.0}, "off_policy": [
        {"cosine": 0.9, "mean_abs_log_ratio": 0.1}, {"cosine": 0.8, "mean_abs_log_ratio": 0.2}]}}
    recs = {(r["metric"], r["value"]) for r in eq.records(res, 0)}
    assert ("cosine_after_last", 0.8) in recs and ("cosine_after_1", 0.9) in recs
    assert ("cosine_on_policy", 1.0) in recs


def test_full_math_data_reads_the_authors_files_from_a_mirror(tmp_path):
    """Full scale's DAPO-Math-17k + six benchmarks (verl format) come from <mirror>/nft-math/
    when present (else their URLs); held-out problems never leak into training."""
    import pandas as pd

    from repro.core.config import load_settings, typed
    from repro.core.rlvr import math_task as mt

    data = load_settings("src/repro/papers/nft/config.yaml", "full")["math"]["data"]
    d = tmp_path / data["benchmark_dir"]
    d.mkdir()

    def frame(qs):
        return pd.DataFrame({
            "prompt": [[{"role": "user", "content": q}] for q in qs],
            "reward_model": [{"ground_truth": f"answer of {q}"} for q in qs],
        })

    for name, f in data["benchmarks"].items():
        frame([f"{name} q{i}" for i in range(3)]).to_parquet(d / f)
    frame(["train q0", "train q1", "aime24 q0"]).to_parquet(d / data["train"]["file"])
    manifest = Manifest("nft", tmp_path / "manifest.json")  # what these stand-in files are
    for f in d.iterdir():
        manifest.record(f"{d.name}/{f.name}", f, origin="mirror")
    train, test, src = mt.fetch(typed(mt.MathData, data), tmp_path, manifest, "full",
                                tmp_path / "cache")
    assert [p.question for p in train] == ["train q0", "train q1"]  # aime24 q0 is held out
    assert len(test) == 3 * len(data["benchmarks"])
    assert {p.source for p in test} == set(data["test"])
    assert src["train"].startswith("mirror ") and src["train"].endswith(data["train"]["file"])
    bad = typed(mt.MathData, {**data, "train": {"source": "nowhere"}})
    with pytest.raises(SystemExit, match="deepscaler, benchmark, file"):
        mt.fetch(bad, tmp_path, manifest, "full", tmp_path / "cache")
    with pytest.raises(ValueError, match="math.data: unknown key"):
        typed(mt.MathData, {**data, "benchmark_files": {}}, "math.data")
