"""lfst: the LEAF baseline front-end (Gabor -> |.|^2 -> Gaussian pooling -> sPCEN)."""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch

from repro.papers.lfst.leaf import Leaf

SR = 16000


@pytest.fixture(scope="module")
def leaf() -> Leaf:
    torch.manual_seed(0)
    return Leaf(n_filters=40, sample_rate=SR)


def _mel(f):
    return 1127.0 * np.log1p(np.asarray(f, dtype=float) / 700.0)


def _tone(freq: float, seconds: float = 0.25) -> torch.Tensor:
    t = torch.arange(int(SR * seconds), dtype=torch.float32) / SR
    return 0.5 * torch.sin(2 * math.pi * freq * t)[None, :]


@pytest.mark.parametrize("n_samples, n_frames", [(8000, 50), (8001, 51), (100, 1)])
def test_output_shape_and_finite(leaf, n_samples, n_frames):
    x = torch.randn(3, n_samples)
    with torch.no_grad():
        y = leaf(x)
    assert leaf.kernel_size == 401 and leaf.hop == 160
    assert y.shape == (3, 40, n_frames)
    assert torch.isfinite(y).all()


def test_silence_hits_the_energy_floor(leaf):
    with torch.no_grad():
        e = leaf.energies(torch.zeros(1, 1600))
        y = leaf(torch.zeros(1, 1600))
    assert torch.equal(e, torch.full_like(e, 1e-5))
    assert torch.isfinite(y).all()


def test_rejects_non_batched_input(leaf):
    with pytest.raises(ValueError, match="batch"):
        leaf(torch.randn(1000))


def test_centres_at_init_are_mel_spaced(leaf):
    c = leaf.centre_hz().numpy()
    assert np.all(np.diff(c) > 0)
    # expected triangle peaks: n + 2 HTK-mel points from 60 Hz to the default 7800 Hz
    edges = np.linspace(_mel(60.0), _mel(7800.0), 42)
    spacing = edges[1] - edges[0]
    peaks = 700.0 * np.expm1(edges[1:-1] / 1127.0)
    assert abs(c[0] - peaks[0]) <= 0.2 * peaks[0]
    assert abs(c[-1] - 7800.0) <= 0.1 * 7800.0 and c[-1] <= 7800.0
    # the 31.25 Hz rfft bins quantise the centres; still within half a mel step everywhere
    assert np.max(np.abs(_mel(c) - edges[1:-1])) <= 0.5 * spacing


def test_custom_band_and_nyquist_cap():
    c = Leaf(n_filters=20, sample_rate=SR, min_freq=300.0, max_freq=4000.0).centre_hz()
    assert 300.0 < c[0] < 600.0 and 3000.0 < c[-1] <= 4000.0
    capped = Leaf(n_filters=20, sample_rate=SR, max_freq=20000.0).centre_hz()
    assert capped[-1] <= SR / 2 and capped[-1] > 7000.0
    with pytest.raises(ValueError, match="min_freq"):
        Leaf(min_freq=5000.0, max_freq=4000.0)


@pytest.mark.parametrize("k", [6, 18, 31])
def test_tone_excites_nearest_filter(leaf, k):
    c = leaf.centre_hz()
    freq = float(0.8 * c[k] + 0.2 * c[k + 1])  # nearest centre: filter k
    with torch.no_grad():
        e = leaf.energies(_tone(freq))
    assert e.shape[:2] == (1, 40)
    profile = e[0, :, 5:-5].mean(dim=1)  # drop the zero-padded edges
    assert int(profile.argmax()) == int((c - freq).abs().argmin()) == k


def test_gabor_frequency_response_peaks_at_mu(leaf):
    n_fft = 8192
    resolution = 2 * math.pi / n_fft
    for mu_values in (leaf.gabor.params()[0].detach(), torch.linspace(0.05, 3.1, 40)):
        model = Leaf(n_filters=40, sample_rate=SR)
        with torch.no_grad():
            model.gabor.mu.copy_(mu_values)
        h = model.gabor.impulse_responses().detach().numpy()
        mu, sigma = (v.detach().numpy()[:, None] for v in model.gabor.params())
        t = np.arange(-200, 201)
        gabor = np.exp(-(t**2) / (2 * sigma**2) + 1j * mu * t) / (np.sqrt(2 * np.pi) * sigma)
        np.testing.assert_allclose(h, gabor, rtol=1e-4, atol=1e-7)
        peak = np.abs(np.fft.fft(h, n=n_fft, axis=1)).argmax(axis=1) * resolution
        assert np.max(np.abs(peak - mu_values.numpy())) <= resolution


def test_energies_match_numpy_reference():
    # complex Gabor response -> squared modulus -> per-channel Gaussian window, TF 'SAME' pooling
    rng = np.random.default_rng(2)
    model = Leaf(n_filters=3, sample_rate=SR, window_ms=5.0, hop=20)
    k, hop, widths = model.kernel_size, model.hop, np.array([0.1, 0.25, 0.45])
    with torch.no_grad():
        model.pool.sigma.copy_(torch.from_numpy(widths))
    x = rng.standard_normal(333)
    h = model.gabor.impulse_responses().detach().numpy().astype(complex)
    frames = np.lib.stride_tricks.sliding_window_view(np.pad(x, k // 2), k)
    power = np.abs(frames @ h.T).T ** 2  # (3, N)
    n_frames = -(-x.size // hop)
    total = max((n_frames - 1) * hop + k - x.size, 0)
    padded = np.pad(power, ((0, 0), (total // 2, total - total // 2)))
    half = (k - 1) / 2
    win = np.exp(-0.5 * ((np.arange(k) - half) / (widths[:, None] * half)) ** 2)
    expected = np.stack(
        [[padded[c, t * hop : t * hop + k] @ win[c] for t in range(n_frames)] for c in range(3)]
    )
    expected = np.maximum(expected, 1e-5)
    with torch.no_grad():
        got = model.energies(torch.from_numpy(x).float()[None])[0].numpy()
    assert got.shape == (3, 17)
    np.testing.assert_allclose(got, expected, rtol=1e-4, atol=1e-6)


def test_gradients_reach_every_learnable_part():
    torch.manual_seed(1)
    model = Leaf(n_filters=16, sample_rate=SR)
    model(torch.randn(2, 4000)).sum().backward()
    params = {
        "mu": model.gabor.mu,
        "sigma": model.gabor.sigma,
        "pool": model.pool.sigma,
        "alpha": model.pcen.alpha,
        "delta": model.pcen.delta,
        "root": model.pcen.root,
        "smooth": model.pcen.smooth,
    }
    for name, p in params.items():
        assert p.grad is not None, name
        assert torch.isfinite(p.grad).all(), name
        assert (p.grad != 0).all(), name


def test_fixed_pcen_is_not_trained():
    model = Leaf(n_filters=8, learnable_pcen=False)
    assert not any(p.requires_grad for p in model.pcen.parameters())
    assert model.gabor.mu.requires_grad and model.pool.sigma.requires_grad


def test_clamping_holds_for_out_of_range_raw_params():
    model = Leaf(n_filters=4, sample_rate=SR)
    k = model.kernel_size
    coef = math.sqrt(2 * math.log(2)) / math.pi
    with torch.no_grad():
        model.gabor.mu.copy_(torch.tensor([-1.0, 4.0, 1.0, math.pi]))
        model.gabor.sigma.copy_(torch.tensor([0.01, 1e6, 20.0, k * coef]))
        model.pool.sigma.copy_(torch.tensor([-1.0, 5.0, 0.3, 1e-6]))
        model.pcen.alpha.copy_(torch.tensor([2.0, 0.5, 1.0, 1.5]))
        model.pcen.root.copy_(torch.tensor([0.1, -3.0, 3.0, 1.0]))
        model.pcen.smooth.copy_(torch.tensor([-0.5, 1.5, 0.2, 0.0]))
    mu, sigma = model.gabor.params()
    assert mu.tolist() == pytest.approx([0.0, math.pi, 1.0, math.pi])
    assert sigma.tolist() == pytest.approx([4 * coef, k * coef, 20.0, k * coef])
    assert model.pool.widths().tolist() == pytest.approx([2 / k, 0.5, 0.3, 2 / k])
    p = model.pcen.constrained()
    assert p["alpha"].tolist() == pytest.approx([1.0, 0.5, 1.0, 1.0])
    assert p["root"].tolist() == pytest.approx([1.0, 1.0, 3.0, 1.0])
    assert p["smooth"].tolist() == pytest.approx([0.0, 1.0, 0.2, 0.0])
    c = model.centre_hz()
    assert float(c.min()) >= 0.0 and float(c.max()) <= SR / 2
    # the filters use the clamped values: filter 1 (raw mu 4, sigma 1e6) equals filter 3
    h = model.gabor.impulse_responses()
    torch.testing.assert_close(h[1], h[3])
    with torch.no_grad():
        assert torch.isfinite(model(torch.randn(1, 3000))).all()


def test_spcen_matches_numpy_loop():
    rng = np.random.default_rng(0)
    model = Leaf(n_filters=5, sample_rate=SR)
    pcen = model.pcen
    s = rng.uniform(0.01, 0.99, 5)
    alpha, delta, root = rng.uniform(0.5, 1.0, 5), rng.uniform(0.5, 3.0, 5), rng.uniform(1, 4, 5)
    with torch.no_grad():
        for p, v in ((pcen.smooth, s), (pcen.alpha, alpha), (pcen.delta, delta), (pcen.root, root)):
            p.copy_(torch.from_numpy(v))
    x = rng.uniform(1e-5, 3.0, (2, 5, 37))
    smooth = np.empty_like(x)
    smooth[..., 0] = x[..., 0]
    for t in range(1, x.shape[-1]):
        smooth[..., t] = s * x[..., t] + (1 - s) * smooth[..., t - 1]
    a, d, r = alpha[:, None], delta[:, None], root[:, None]
    expected = (x / (1e-12 + smooth) ** a + d) ** (1 / r) - d ** (1 / r)
    xt = torch.from_numpy(x).float()
    with torch.no_grad():
        np.testing.assert_allclose(pcen.smoother(xt).numpy(), smooth, rtol=1e-5)
        np.testing.assert_allclose(pcen(xt).numpy(), expected, rtol=1e-4, atol=1e-6)
