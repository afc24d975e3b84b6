"""ROVER and GRPO-family losses: the paper's equations, checked numerically on tiny inputs."""

from __future__ import annotations

import math

import pytest
import torch

from repro.core.config import load_settings
from repro.core.rlvr.objectives import (
    RLConfig,
    grpo_advantages,
    grpo_loss,
    kl_k3,
    masked_mean,
)
from repro.core.rlvr.policy import build_policy, pack, sample, token_stats
from repro.core.rlvr.tasks import TaskConfig
from repro.papers.rove.algos import make_objective, rover_loss, rover_rewards

TINY_MODEL = {
    "kind": "scratch",
    "hidden_size": 16,
    "intermediate_size": 32,
    "num_layers": 1,
    "num_heads": 2,
    "max_positions": 32,
}


def _task(rl: dict) -> TaskConfig:
    """rove's tiny Countdown block with these `rl:` settings."""
    block = load_settings("src/repro/papers/rove/config.yaml", "tiny")["countdown"]
    task = TaskConfig.from_settings(block, "countdown")
    task.rl = RLConfig.from_settings(rl)
    return task


def test_every_scale_types_its_task_blocks():
    for scale in ("tiny", "small", "full"):
        for name in ("countdown", "math"):
            settings = load_settings("src/repro/papers/rove/config.yaml", scale)
            cfg = TaskConfig.from_settings(settings[name], name)
            assert cfg.methods and cfg.eval.n_samples > 0
    with pytest.raises(ValueError, match="countdown.sft: unknown key"):
        TaskConfig.from_settings({**block_of("tiny"), "sft": {"stepz": 1}}, "countdown")


def block_of(scale: str) -> dict:
    return load_settings("src/repro/papers/rove/config.yaml", scale)["countdown"]


def _tiny_batch(seed: int = 0):
    torch.manual_seed(seed)
    policy = build_policy(TINY_MODEL, "cpu")
    tok = policy.tokenizer
    prompts = [tok.encode("3 5 7=22:"), tok.encode("12 4=3:"), tok.encode("1 2=3:")]
    responses = [tok.encode("3*5+7") + [tok.eos_id], tok.encode("12/4"), tok.encode("1+2") + [1]]
    ids, attn, act = pack(prompts, responses, tok.pad_id)
    return policy, prompts, responses, ids, attn, act


def test_pack_marks_exactly_the_response_tokens():
    policy, prompts, responses, ids, attn, act = _tiny_batch()
    for i, (p, r) in enumerate(zip(prompts, responses, strict=True)):
        predicted = ids[i, 1:][act[i].bool()].tolist()  # tokens predicted at action positions
        assert predicted == r
        assert int(attn[i].sum()) == len(p) + len(r)


def test_token_stats_mean_is_over_the_vocabulary():
    policy, _, _, ids, attn, _ = _tiny_batch()
    st = token_stats(policy.model, ids, attn, temperature=0.7, mean_vocab=True, entropy=True)
    logits = policy.model(input_ids=ids, attention_mask=attn).logits[:, :-1] / 0.7
    lsm = torch.log_softmax(logits, -1)
    assert torch.allclose(st["mlp"], lsm.sum(-1) / policy.tokenizer.vocab_size, atol=1e-5)
    assert torch.allclose(st["logp"], lsm.gather(-1, ids[:, 1:, None]).squeeze(-1), atol=1e-5)
    assert torch.all(st["entropy"] >= 0) and torch.all(
        st["entropy"] <= math.log(lsm.shape[-1]) + 1e-5
    )


@pytest.mark.parametrize("rho", [1.0, 0.5])
def test_rover_gradient_on_policy_is_reinforce_with_centred_reward(rho: float):
    """With pi == pi_old, Q = 0 and the bootstrap term is 0, so
    grad L = mean_t 2 (0 - r~) rho grad log pi = -2 rho r~ grad log pi averaged over tokens."""
    policy, _, _, ids, attn, act = _tiny_batch()
    model = policy.model
    r_tilde = torch.tensor([0.7, -0.2, -0.5])
    with torch.no_grad():
        old = token_stats(model, ids, attn, 1.0, mean_vocab=True)
    cur = token_stats(model, ids, attn, 1.0, mean_vocab=True)
    loss, _ = rover_loss(cur["logp"], old["logp"], cur["mlp"], old["mlp"], r_tilde, act, rho)
    g_rover = torch.autograd.grad(loss, list(model.parameters()))
    cur = token_stats(model, ids, attn, 1.0)
    surrogate = masked_mean(-2.0 * rho * r_tilde[:, None] * cur["logp"], act)
    g_ref = torch.autograd.grad(surrogate, list(model.parameters()))
    for a, b in zip(g_rover, g_ref, strict=True):
        assert torch.allclose(a, b, atol=1e-6, rtol=1e-4)
    assert any(float(g.abs().max()) > 0 for g in g_ref)


def test_rover_target_bootstraps_the_next_state_vocab_mean_and_stops_gradient():
    rho = 2.0
    # one response of 3 tokens at action positions 1..3 (position 0 is prompt), then padding
    mask = torch.tensor([[0.0, 1.0, 1.0, 1.0, 0.0]])
    logp = torch.tensor([[0.0, -1.0, -2.0, -0.5, 0.0]], requires_grad=True)
    old_logp = torch.tensor([[0.0, -1.2, -1.9, -0.7, 0.0]])
    mlp = torch.tensor([[9.0, -3.0, -3.1, -2.8, 9.0]], requires_grad=True)
    old_mlp = torch.tensor([[9.0, -3.2, -3.0, -3.0, -9.0]])
    r = torch.tensor([0.4])
    loss, _ = rover_loss(logp, old_logp, mlp, old_mlp, r, mask, rho)
    q = rho * (logp.detach() - old_logp)[0, 1:4]
    v = rho * (mlp.detach() - old_mlp)[0]
    target = torch.stack([r[0] + v[2], r[0] + v[3], r[0]])  # last token: no bootstrap
    expected = ((q - target) ** 2).mean()
    assert torch.allclose(loss, expected)
    loss.backward()
    assert mlp.grad is None or torch.all(mlp.grad == 0)  # the target is stop-gradient
    assert logp.grad is not None and torch.all(logp.grad[0, [0, 4]] == 0)
    # whatever sits after the last response token never enters the loss
    mlp2 = mlp.detach().clone()
    mlp2[0, 4] = -100.0
    loss2, _ = rover_loss(logp.detach(), old_logp, mlp2, old_mlp, r, mask, rho)
    assert torch.allclose(loss2, expected)


def _grad_of_grpo(ratio: float, adv: float, eps_low: float, eps_high: float) -> float:
    old = torch.tensor([[-1.0]])
    logp = (old + math.log(ratio)).clone().requires_grad_(True)
    loss, _ = grpo_loss(logp, old, torch.tensor([adv]), torch.ones(1, 1), eps_low, eps_high)
    loss.backward()
    return float(logp.grad[0, 0])


@pytest.mark.parametrize(
    ("ratio", "adv", "zero"),
    [(1.3, 1.0, True), (0.7, -1.0, True), (1.3, -1.0, False), (0.7, 1.0, False), (1.1, 1.0, False)],
)
def test_grpo_clip_zeroes_gradient_only_past_the_trust_region(ratio, adv, zero):
    g = _grad_of_grpo(ratio, adv, 0.2, 0.2)
    assert (g == 0.0) == zero
    if not zero:
        assert g == pytest.approx(-adv * ratio)


def test_clip_higher_is_asymmetric():
    # ratio 1.25: clipped for GRPO (eps 0.2) but inside DAPO's upper bound 1.28
    assert _grad_of_grpo(1.25, 1.0, 0.2, 0.2) == 0.0
    assert _grad_of_grpo(1.25, 1.0, 0.2, 0.28) != 0.0
    assert _grad_of_grpo(1.30, 1.0, 0.2, 0.28) == 0.0
    # the lower side is unchanged: ratio 0.75 with A < 0 is clipped in both
    assert _grad_of_grpo(0.75, -1.0, 0.2, 0.2) == 0.0
    assert _grad_of_grpo(0.75, -1.0, 0.2, 0.28) == 0.0
    rl = _task({"clip_eps": 0.2, "clip_eps_high": 0.28, "kl_beta": 0.01})
    obj = make_objective("grpo_clip_higher", rl)
    assert (obj.clip_eps, obj.clip_eps_high) == (0.2, 0.28)
    assert make_objective("grpo", rl).clip_eps_high == 0.2


def test_kl_k3_nonnegative_and_zero_at_equality():
    torch.manual_seed(0)
    a, b = torch.randn(1000), torch.randn(1000)
    assert torch.all(kl_k3(a, b) >= 0)
    assert torch.all(kl_k3(a, a) == 0)
    rl = _task({"kl_beta": 0.01})
    assert make_objective("grpo_kl", rl).kl_beta == 0.01 and make_objective("grpo", rl).kl_beta == 0
    assert make_objective("grpo_kl", rl).needs_ref and not make_objective("grpo", rl).needs_ref


def test_kl_term_enters_grpo_kl_loss():
    old = torch.zeros(1, 2)
    logp = torch.tensor([[-0.1, 0.2]])
    ref = torch.tensor([[0.3, -0.4]])
    mask = torch.ones(1, 2)
    base, _ = grpo_loss(logp, old, torch.tensor([1.0]), mask, 0.2, 0.2)
    with_kl, info = grpo_loss(logp, old, torch.tensor([1.0]), mask, 0.2, 0.2, ref, 0.01)
    assert float(with_kl - base) == pytest.approx(0.01 * info["kl"], rel=1e-5)
    assert info["kl"] > 0


def test_group_rewards():
    r = torch.tensor([1.0, 0.0, 0.0, 0.0, 0.1, 0.1, 1.0, 0.1])
    adv = grpo_advantages(r, 4)
    g = r.view(2, 4)
    assert torch.allclose(
        adv.view(2, 4), (g - g.mean(1, keepdim=True)) / (g.std(1, keepdim=True) + 1e-6)
    )
    rt = rover_rewards(r, 4)
    assert torch.allclose(rt.view(2, 4).sum(1), torch.zeros(2), atol=1e-6)
    assert torch.allclose(rover_rewards(r, 4, std_norm=True), adv, atol=1e-5)
    same = torch.ones(4)  # a group with one outcome carries no signal
    assert torch.all(grpo_advantages(same, 4) == 0) and torch.all(rover_rewards(same, 4) == 0)


def test_unknown_method_is_rejected_with_allowed_names():
    with pytest.raises(SystemExit, match="grpo, grpo_kl, grpo_clip_higher, rover"):
        make_objective("ppo", _task({}))


def test_sampling_is_seeded_and_stops_at_eos():
    policy, prompts, *_ = _tiny_batch()
    g1, g2 = torch.Generator().manual_seed(3), torch.Generator().manual_seed(3)
    r1, e1 = sample(policy, prompts * 4, 10, 1.0, 0.9, g1, batch_size=5)
    r2, e2 = sample(policy, prompts * 4, 10, 1.0, 0.9, g2, batch_size=5)
    assert r1 == r2 and e1 == e2
    eos = policy.tokenizer.eos_id
    for r in r1:
        assert 1 <= len(r) <= 10
        assert eos not in r[:-1] and (r[-1] == eos or len(r) == 10)
