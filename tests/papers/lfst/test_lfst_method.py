"""LFST's front-ends and STEE: the framed (strided) transform equals the full-rate one, the
fixed superlet front-end is Moca et al.'s adaptive superlet, LFST's learnable parts (grid,
cycles, orders, LAHT) receive gradients and keep their constraints, the integer-order ablation
is an exact integer superlet with a straight-through gradient; STEE ignores padded frames; the
focal loss and class weights; the synthesised corpus's plan (speakers and sentences held out,
classes balanced, deterministic)."""

from __future__ import annotations

import math
from types import SimpleNamespace

import numpy as np
import pytest
import torch

from repro.papers.lfst.frontends import STFT, Superlets, adaptive_weights, build
from repro.papers.lfst.stee import STEE, class_weights, focal_loss
from repro.papers.lfst.transform import (
    framed_responses,
    morlet_bank,
    order_weights,
    reference_superlet,
    responses,
    superlet,
)

SR = 8000
FE = SimpleNamespace(bands=6, orders=3, f_min=100.0, f_max=3000.0, kernel=255, hop=40, c1=1.5,
                     cwt_cycles=5.0, stft_window_ms=32.0, laht_slope=8.0, laht_bound=5.0,
                     laht_init=0.3, subframes=4)


def test_framed_responses_are_the_full_rate_responses_every_hop():
    torch.manual_seed(0)
    x = torch.randn(2, 3001, dtype=torch.float64)
    f = torch.tensor([150.0, 700.0, 2500.0], dtype=torch.float64)
    c = torch.tensor([[1.5, 3.0], [2.0, 4.0], [3.0, 6.0]], dtype=torch.float64)
    k = morlet_bank(f, c, SR, 201)
    full = responses(x, k)
    for hop in (1, 40, 77):
        framed = framed_responses(x, k, hop)
        assert framed.shape[-1] == math.ceil(3001 / hop)
        torch.testing.assert_close(framed, full[..., ::hop], rtol=0, atol=1e-12)


def test_the_fixed_superlet_front_end_is_moca_et_als_adaptive_superlet():
    """Orders rising linearly 1..O over the bands, fractional in between: each band's output
    (before the log compression) equals the reference superlet of that order, on the
    front-end's own grid, away from the edges (same support, no DC term at c1 = 3)."""
    fe = Superlets(SR, 1, bands=5, orders=3, f_min=300.0, f_max=2000.0, length=1201, c1=3.0,
                   fixed_weights=adaptive_weights(5, 3)).double()
    w = fe.weights()
    orders = torch.linspace(1, 3, 5).tolist()
    for row, o in zip(w, orders, strict=True):
        torch.testing.assert_close(row, order_weights(o, 3))
    rng = np.random.default_rng(1)
    x = rng.standard_normal(4000)
    cycles = fe.c1().detach().double()[:, None] * torch.arange(1, 4.0).double()[None]
    kern = morlet_bank(fe.freqs().detach().double(), cycles, SR, 1201, dc=False)

    s = superlet(framed_responses(torch.from_numpy(x)[None], kern, 1), w.double())[0].numpy()
    for i, (f, o) in enumerate(zip(fe.freqs().detach().tolist(), orders, strict=True)):
        ref = reference_superlet(x, f, 3.0, o, SR)
        edge = 700
        # the reference truncates each wavelet at +-3 sigma; ours at the fixed support
        a, b = s[i, edge:-edge], ref[edge:-edge]
        assert np.linalg.norm(a - b) < 5e-3 * np.linalg.norm(b), (f, o)


def test_lfst_learns_grid_cycles_orders_and_thresholds_within_their_constraints():
    torch.manual_seed(0)
    fe = build("lfst", FE, SR)
    x = torch.randn(3, 2000)
    maps, desc = fe(x)
    assert maps.shape == (3, 2, FE.bands, math.ceil(2000 / FE.hop))
    assert desc.shape == (FE.bands, 1)
    kappa = maps[:, 1]
    assert (kappa >= 0).all() and (kappa <= 1 + 1e-5).all()  # phase congruency in [0, 1]
    maps.sum().backward()
    for name in ("grid_raw", "c1_raw", "logits", "t_pos_raw"):
        g = getattr(fe, name).grad
        assert g is not None and g.abs().sum() > 0, name
    with torch.no_grad():  # push every raw parameter far out: the constraints still hold
        for p, r in ((fe.grid_raw, 8), (fe.c1_raw, 30), (fe.t_pos_raw, 30)):
            p.copy_(torch.linspace(-r, r, p.numel()))
    f = fe.freqs()
    f = f.detach()
    assert (f.diff() > 0).all() and float(f[0]) == pytest.approx(FE.f_min, rel=1e-5)
    assert float(f[-1]) == pytest.approx(FE.f_max, rel=1e-5)
    assert (fe.c1() >= 1).all()
    t_pos, _ = fe.thresholds()
    assert (t_pos > 0).all() and (t_pos <= math.log1p(math.exp(FE.laht_bound)) + 1e-5).all()
    assert torch.isfinite(fe(x)[0]).all()


def test_the_ablations_switch_off_exactly_their_part():
    fixed = build("lfst_fixed_grid", FE, SR)
    assert not fixed.grid_raw.requires_grad and fixed.c1_raw.requires_grad
    no_laht = build("lfst_no_laht", FE, SR)
    assert not no_laht.use_laht and not no_laht.t_pos_raw.requires_grad
    for name in ("stft", "cwt", "superlet"):
        assert not any(p.requires_grad for p in build(name, FE, SR).parameters()), name
    with pytest.raises(ValueError, match="unknown front-end"):
        build("mfcc", FE, SR)


def test_integer_orders_are_exact_integer_superlets_with_a_straight_through_gradient():
    fe = build("lfst_integer_orders", FE, SR)
    with torch.no_grad():
        fe.logits.copy_(torch.tensor([[5.0, 0, 0], [0, 5.0, 0], [0, 0, 5.0], [0, 0, 0],
                                      [2.0, 2.0, 0], [-9, -9, 9]]))
    w = fe.weights()
    soft = torch.softmax(fe.logits, -1)
    n = (soft * torch.arange(1, 4.0)).sum(-1).round()
    for row, k in zip(w.detach(), n.tolist(), strict=True):
        torch.testing.assert_close(row, order_weights(k, 3).float())  # 1/n on orders 1..n
    w.sum(0)[0].backward()
    assert fe.logits.grad.abs().sum() > 0  # the softmax's gradient passes through


def test_stft_keeps_the_bins_between_its_limits_and_frames_every_hop():
    fe = STFT(SR, 80, 32.0, 100.0, 3000.0)
    maps, _ = fe(torch.randn(2, 1601))
    bins = np.fft.rfftfreq(256, 1 / SR)
    assert maps.shape == (2, 1, int(((bins >= 100) & (bins <= 3000)).sum()), math.ceil(1601 / 80))


def stee(k=2, nf=6):
    torch.manual_seed(0)
    return STEE(k, 1, 4, channels=8, heads=2, window=8, stride=2, dropout=0.0).eval()


def test_stee_ignores_the_frames_past_each_clips_length():
    """Beyond the convolutions' reach past the last valid frame (the time kernels and the
    stride), what the padded frames hold does not matter: attention and pooling mask them; and
    a clip's logits do not depend on the other clips of its batch."""
    model = stee()
    desc = torch.zeros(6, 1)
    maps = torch.randn(1, 2, 6, 30)
    reach = 12  # stem k_t 9 (+-4) + mixing k_t 9 (+-4) + stride 2, with room
    a = model(torch.cat([maps, torch.randn(1, 2, 6, 10)], -1), desc, torch.tensor([30 - reach]))
    b = model(torch.cat([maps, 50 * torch.randn(1, 2, 6, 10)], -1), desc,
              torch.tensor([30 - reach]))
    torch.testing.assert_close(a, b, rtol=1e-4, atol=1e-5)
    other = torch.randn(3, 2, 6, 30)
    batch = model(torch.cat([maps, other]), desc, torch.tensor([30, 25, 30, 9]))
    torch.testing.assert_close(batch[:1], model(maps, desc, torch.tensor([30])), rtol=1e-4,
                               atol=1e-5)


def test_stee_reads_band_statistics_through_film():
    model = stee()
    torch.nn.init.normal_(model.film[-1].weight)
    maps = torch.randn(2, 2, 6, 16)
    desc = torch.zeros(6, 1)
    a = model(maps, desc, torch.tensor([16, 12]))
    b = model(maps, desc + 1, torch.tensor([16, 12]))
    assert a.shape == (2, 4) and not torch.allclose(a, b)


def test_focal_loss_is_cross_entropy_at_gamma_zero_and_down_weights_easy_samples():
    torch.manual_seed(0)
    logits, y = torch.randn(32, 4), torch.randint(0, 4, (32,))
    torch.testing.assert_close(focal_loss(logits, y, gamma=0.0),
                               torch.nn.functional.cross_entropy(logits, y))
    p = torch.softmax(logits, -1)[torch.arange(32), y]
    want = (-(1 - p) ** 2 * p.log()).mean()
    torch.testing.assert_close(focal_loss(logits, y, gamma=2.0), want)
    alpha = torch.tensor([1.0, 2.0, 0.5, 1.0])
    want = (-alpha[y] * (1 - p) ** 2 * p.log()).mean()
    torch.testing.assert_close(focal_loss(logits, y, 2.0, alpha), want)


def test_class_weights_are_inverse_frequencies_with_mean_one_over_the_samples():
    y = np.array([0] * 6 + [1] * 3 + [2] * 1)
    w = class_weights(y, 4)
    assert w[0] * 6 == pytest.approx(w[1] * 3) == pytest.approx(w[2] * 1)
    assert float(w[torch.as_tensor(y)].mean()) == pytest.approx(1.0)


def synth_cfg(**kw):
    base = dict(seed=3, language="en", exclude=["whisper"],
                speakers=SimpleNamespace(train=4, val=2, test=3),
                sentences=SimpleNamespace(train=10, heldout=6), per_speaker=8,
                prosody={"neutral": {"pitch": [50, 5]}, "angry": {"pitch": [60, 5],
                                                                   "rate": [200, 10]}})
    return SimpleNamespace(**{**base, **kw})


def test_the_corpus_plan_holds_out_speakers_and_sentences_and_balances_classes():
    from repro.papers.lfst.synth import plan

    voices = [f"v{i}" for i in range(12)] + ["whisper"]
    items = plan(synth_cfg(), ["neutral", "angry"], voices)
    assert items == plan(synth_cfg(), ["neutral", "angry"], voices)  # from the seed alone
    assert items != plan(synth_cfg(seed=4), ["neutral", "angry"], voices)
    by = {s: [i for i in items if i.split == s] for s in ("train", "val", "test")}
    spk = {s: {i.speaker for i in v} for s, v in by.items()}
    assert [len(spk[s]) for s in ("train", "val", "test")] == [4, 2, 3]
    assert not (spk["train"] & spk["val"]) and not (spk["train"] & spk["test"])
    assert "en+whisper" not in set().union(*spk.values())
    assert not {i.text for i in by["train"]} & {i.text for i in by["val"] + by["test"]}
    for v in set().union(*spk.values()):  # per speaker, each class equally often
        labels = [i.label for i in items if i.speaker == v]
        assert labels.count(0) == labels.count(1) == 4
    angry = [i.prosody.rate for i in items if i.label == 1]
    neutral = [i.prosody.rate for i in items if i.label == 0]
    assert np.mean(angry) > np.mean(neutral) + 10  # a class is a prosody distribution
    with pytest.raises(ValueError, match="usable variants"):
        plan(synth_cfg(speakers=SimpleNamespace(train=10, val=2, test=3)),
             ["neutral", "angry"], voices)


def test_superlet_frames_average_the_subframes_centred_on_them():
    """With subframes k, frame t is the mean of the magnitudes sampled every hop / k samples
    around t hop (before the normalisation and log); k = 1 samples one instant."""
    torch.manual_seed(0)
    x = torch.randn(1, 1000, dtype=torch.float64)
    kw = dict(bands=3, orders=2, f_min=200.0, f_max=2000.0, length=101, c1=2.0)
    pooled = Superlets(SR, 40, subframes=4, **kw).double()
    fine = Superlets(SR, 10, **kw).double()
    m = torch.exp(pooled(x)[0][0, 0])  # LOG_EPS + m / mean(m)
    s_fine = torch.exp(fine(x)[0][0, 0])  # the same map every 10 samples
    from repro.papers.lfst.frontends import LOG_EPS

    a, b = m - LOG_EPS, s_fine - LOG_EPS
    # undo each map's own mean normalisation: compare shapes up to one scale
    want = torch.stack([b[:, max(0, 4 * t - 2):4 * t + 2].mean(-1) for t in range(25)], -1)
    ratio = a / want
    torch.testing.assert_close(ratio, torch.full_like(ratio, float(ratio.mean())), rtol=1e-6,
                               atol=0)
    with pytest.raises(ValueError, match="multiple"):
        Superlets(SR, 40, subframes=3, **kw)
