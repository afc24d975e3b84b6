"""FS-DFM's method checked numerically: the mixture path, the generalized KL, the two update
rules (the cumulative scalar's jump probability is the exact mixture-path transition, the
standard one under-jumps), the samplers against an exact posterior, the step-size draws, the RK-4
shortcut target, the denoiser's initialisation and the student built from a DFM, and that
training and evaluation resume after a stop with the same bytes."""

from __future__ import annotations

import json
import math
import signal

import numpy as np
import pytest
import torch
import yaml
from conftest import REPO
from test_resume import files, resumed_at, run, run_stopped

from repro.papers.fsdfm.flow import (
    MixturePath,
    categorical,
    distillation_kl,
    generalized_kl,
    probs,
    rate_step,
    sample,
    sample_dt_t,
    scalar,
    shortcut_target,
)
from repro.papers.fsdfm.model import Denoiser, student_from
from repro.papers.fsdfm.settings import Model


def gen(seed: int = 0) -> torch.Generator:
    return torch.Generator().manual_seed(seed)


def test_mixture_path_keeps_data_with_probability_kappa():
    path = MixturePath(16, "uniform", exponent=2.0)
    x1 = torch.full((4000, 50), 3)
    t = torch.full((4000,), 0.6)
    xt = path.sample_xt(x1, t, gen())
    # x_t = x_1 w.p. kappa + (1 - kappa)/V (the uniform source can draw x_1 too)
    kappa = 0.36
    assert (xt == 3).float().mean().item() == pytest.approx(kappa + (1 - kappa) / 16, abs=0.005)
    masked = MixturePath(16, "mask").sample_xt(x1, t, gen())
    assert set(masked.unique().tolist()) == {3, 16}


def test_generalized_kl_is_zero_at_the_true_posterior_and_positive_elsewhere():
    path = MixturePath(8)
    x1 = torch.randint(8, (64, 10), generator=gen(1))
    t = torch.rand(64, generator=gen(2)) * 0.99
    xt = path.sample_xt(x1, t, gen(3))
    perfect = torch.nn.functional.one_hot(x1, 8).float() * 60.0  # p = delta_{x_1}
    assert generalized_kl(perfect, x1, xt, t, path).abs().max().item() < 1e-6
    noisy = torch.randn(64, 10, 8, generator=gen(4))
    assert (generalized_kl(noisy, x1, xt, t, path) > 0).all()


def test_cumulative_scalar_is_the_exact_transition_and_standard_under_jumps():
    """Leaving x_t for a posterior that puts no mass on it: the cumulative rule jumps with the
    mixture path's exact probability (kappa(t+h) - kappa(t)) / (1 - kappa(t)) for any h; the
    standard one with 1 - exp(-h kappa'/(1-kappa)), below it (0.39 instead of 0.5 here)."""
    path = MixturePath(4, exponent=1.0)
    n = 200_000
    x = torch.zeros((n, 1), dtype=torch.long)
    p = torch.tensor([0.0, 1.0, 0.0, 0.0]).expand(n, 1, 4)
    t, h = torch.zeros(n), torch.full((n,), 0.5)
    for rule, want in (("cumulative", 0.5), ("standard", 1 - math.exp(-0.5))):
        left = (rate_step(x, p, t, h, path, rule, gen()) == 1).float().mean().item()
        assert left == pytest.approx(want, abs=0.004), rule
    # at t = 0.5 a step of 0.5 reaches t = 1: the cumulative rule jumps surely, never past it
    s = scalar(path, torch.tensor([0.5]), torch.tensor([0.5]), "cumulative")
    assert 1 - math.exp(-s.item()) == pytest.approx(1.0, abs=1e-6)


def exact_posterior(q: torch.Tensor, path: MixturePath):
    """The true p(x_1 | x_t) for independent tokens with marginal q (uniform source)."""
    V = len(q)

    def denoise(x, t, h):
        k = path.kappa(t)[:, None, None]
        lik = k * torch.nn.functional.one_hot(x, V).float() + (1 - k) / V
        post = lik * q
        return torch.log(post / post.sum(-1, keepdim=True))
    return denoise


Q = torch.tensor([0.5, 0.25, 0.125, 0.0625, 0.0625])


def sampled_error(rule: str, nfe: int) -> float:
    """Largest error of the sampled token frequencies (40,000 tokens: s.e. <= 0.0025)."""
    path = MixturePath(5)
    x = sample(exact_posterior(Q, path), path, 4000, 10, nfe, rule, gen(nfe))
    return (torch.bincount(x.ravel(), minlength=5).float() / x.numel() - Q).abs().max().item()


@pytest.mark.parametrize("rule", ["euler", "cumulative", "standard"])
@pytest.mark.parametrize("nfe", [1, 64])
def test_samplers_with_the_exact_posterior_reach_the_data_law(rule, nfe):
    """One step is one exact draw from p(x_1 | x_0); many small steps follow the path."""
    assert sampled_error(rule, nfe) < 0.01


def test_at_few_steps_the_standard_scalar_misses_the_law_and_the_cumulative_does_not():
    """Three steps: the standard scalar under-jumps, so too many tokens stay at their uniform
    source draw (measured 0.02 off); the cumulative scalar stays within sampling error."""
    cumulative = sampled_error("cumulative", 3)
    assert cumulative < 0.01
    for rule in ("euler", "standard"):
        assert sampled_error(rule, 3) > max(0.015, 1.5 * cumulative), rule


def test_categorical_matches_its_probabilities_and_the_mask_column_is_dropped():
    p = torch.tensor([0.1, 0.6, 0.3]).expand(100_000, 3)
    draws = categorical(p, gen())
    assert torch.bincount(draws, minlength=3).float().div(1e5).sub(p[0]).abs().max() < 0.006
    logits = torch.tensor([[0.0, 0.0, 5.0]])  # V = 2 plus MASK
    assert probs(logits, MixturePath(2, "mask")).tolist() == [[0.5, 0.5]]


def test_step_sizes_follow_the_paper_weights_and_stay_on_the_lattice():
    dt, t = sample_dt_t(100_000, 16, gen())
    sizes, counts = dt.unique(return_counts=True)
    assert sizes.tolist() == [1 / 16, 1 / 8, 1 / 4, 1 / 2, 1.0]
    want = np.array([16, 8, 4, 2, 1]) / 31
    assert np.abs(counts.numpy() / 1e5 - want).max() < 0.006
    assert ((t + dt) <= 1 + 1e-6).all() and (t[dt == 1] == 0).all()
    assert torch.allclose(t * 16, (t * 16).round())


def test_rk4_target_combines_half_steps_one_two_two_one():
    """A teacher whose logits depend only on the time it is asked at: the RK-4 target is the
    1-2-2-1 average over t, t+dt/2 (twice) and t+dt, whatever the jumps did."""
    path = MixturePath(3)

    def teacher(x, t, h):
        return torch.stack([t, 2 * t, -t], dim=-1)[:, None, :].expand(x.shape[0], x.shape[1], 3)

    x = torch.zeros((2, 4), dtype=torch.long)
    t, dt = torch.tensor([0.0, 0.25]), torch.tensor([0.5, 0.5])
    target = shortcut_target(teacher, path, x, t, dt, "cumulative", gen())
    mean_t = (t + 2 * (t + 0.25) + 2 * (t + 0.25) + (t + 0.5)) / 6
    assert torch.allclose(target[:, 0, 0], mean_t)
    assert distillation_kl(target, target).abs().max() < 1e-6


def test_denoiser_starts_uniform_and_the_student_is_the_dfm_plus_dt_modules():
    cfg = Model(hidden=16, cond=8, layers=2, heads=2)
    dfm = Denoiser(7, 16, 8, 2, 2)
    x = torch.randint(7, (3, 5), generator=gen())
    out = dfm(x, torch.rand(3))
    assert out.shape == (3, 5, 7) and torch.allclose(out, torch.zeros_like(out))
    for p in dfm.parameters():  # as if trained
        torch.nn.init.normal_(p, std=0.1, generator=gen(5)) if p.dim() > 1 else None
    student = student_from(dfm, cfg, mask_token=False)
    shared = {k: v for k, v in dfm.state_dict().items()}
    for k, v in student.state_dict().items():
        if k in shared:
            assert torch.equal(v, shared[k]), k
        else:
            assert "dt_embed" in k or "fuse" in k, k
    assert student(x, torch.rand(3), torch.full((3,), 0.25)).shape == (3, 5, 7)
    with pytest.raises(ValueError, match="step size"):
        student(x, torch.rand(3))


# ---------------------------------------------------------------------------- resuming
@pytest.fixture(scope="module")
def fsdfm(tmp_path_factory):
    d = tmp_path_factory.mktemp("fsdfm")
    cfg = yaml.safe_load((REPO / "src/repro/papers/fsdfm/config.yaml").read_text())
    tiny = cfg["scales"]["tiny"]
    tiny["dfm"].update(steps=30, checkpoint_every=3)
    tiny["fsdfm"].update(steps=12, checkpoint_every=2)
    tiny["eval"].update(nfe=[1, 4, 16], n_samples=8, batch_size=2)
    (d / "fsdfm.yaml").write_text(yaml.safe_dump(cfg))
    run(["repro.papers.fsdfm.data", "--config", "fsdfm.yaml", "--scale", "tiny",
         "--out", "data.npz"], d)
    return d


JOB = ["--config", "fsdfm.yaml", "--scale", "tiny", "--seed", "0", "--data", "data.npz"]


def models(d):
    return {k: v for k, v in files(d).items() if k != "run.json"}


def check_training_resumes(args: list[str], d, a: str, b: str, total: int, n_models: int,
                           sig: int = signal.SIGTERM) -> None:
    """Uninterrupted into a, stopped and rerun into b: the same weights, the same run record
    but its wall time."""
    run([*args, "--out", a], d)
    run_stopped([*args, "--out", b], d, d / b, sig)
    step, n = resumed_at(run([*args, "--out", b], d))
    assert 0 < step < n == total
    assert models(d / a) == models(d / b) and len(models(d / a)) == n_models
    ra, rb = (json.loads((d / x / "run.json").read_text()) for x in (a, b))
    assert ra.pop("wall_s") > 0 and rb.pop("wall_s") > 0 and ra == rb


def test_dfm_and_student_training_resume_after_a_stop(fsdfm):
    check_training_resumes(["repro.papers.fsdfm.train", *JOB, "--stage", "dfm"], fsdfm,
                           "dfm", "dfm_b", 30, 1)
    # the student: its EMA teacher, the RK-4 jumps' generator and the dt/t draws come back
    check_training_resumes(["repro.papers.fsdfm.train", *JOB, "--stage", "fsdfm", "--rule",
                            "standard", "--init", "dfm"], fsdfm, "st_a", "st_b", 12, 2,
                           signal.SIGINT)


def test_evaluation_resumes_after_sigterm(fsdfm):
    if not (fsdfm / "dfm/model.pt").exists():
        run(["repro.papers.fsdfm.train", *JOB, "--stage", "dfm", "--out", "dfm"], fsdfm)
    args = ["repro.papers.fsdfm.evaluate", *JOB, "--system", "dfm_cumulative", "--model",
            "dfm"]
    run([*args, "--out", "ev_a.json", "--samples", "ev_a.npz"], fsdfm)
    stopped = [*args, "--out", "ev_b.json", "--samples", "ev_b.npz"]
    run_stopped(stopped, fsdfm, fsdfm / "ev_b.json")
    step, total = resumed_at(run(stopped, fsdfm))
    assert 0 < step < total == 12  # 3 NFEs x 4 batches
    a, b = (json.loads((fsdfm / f).read_text()) for f in ("ev_a.json", "ev_b.json"))
    for r in (a, b):
        for row in r["by_nfe"]:
            assert row.pop("ms_per_sequence") > 0
    assert a == b
    sa, sb = (np.load(fsdfm / f) for f in ("ev_a.npz", "ev_b.npz"))
    assert sorted(sa.files) == ["nfe1", "nfe16", "nfe4"]
    assert all(np.array_equal(sa[k], sb[k]) for k in sa.files)


def test_an_additive_dt_path_makes_the_student_start_as_the_dfm():
    cfg = Model(hidden=16, cond=8, layers=2, heads=2, dt_fusion="additive")
    dfm = Denoiser(7, 16, 8, 2, 2)
    for p in dfm.parameters():
        torch.nn.init.normal_(p, std=0.2, generator=gen(6))
    student = student_from(dfm, cfg, mask_token=False)
    x, t = torch.randint(7, (3, 5), generator=gen()), torch.rand(3, generator=gen(1))
    for dt in (1.0, 1 / 64):
        assert torch.allclose(student(x, t, torch.full((3,), dt)), dfm(x, t), atol=1e-6)
