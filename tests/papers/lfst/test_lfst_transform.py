"""LFST's transform: its stated properties checked numerically:
admissibility (zero mean), negative-frequency leakage against its bound as a function of the
cycles, continuity in order weights and frequency, agreement with Moca et al.'s superlet at
integer (and fractional) orders; the grid, phase congruency and LAHT."""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch
from scipy.special import erfc

from repro.papers.lfst.transform import (
    laht,
    log_grid,
    morlet_bank,
    order_weights,
    phase_congruency,
    reference_superlet,
    responses,
    superlet,
)

SR = 16000
K_SD = 5.0


def bank(f, cycles, length=4001, dc=True):
    return morlet_bank(torch.tensor([f], dtype=torch.float64),
                       torch.tensor([cycles], dtype=torch.float64), SR, length, dc=dc)[0]


def negative_share(k: np.ndarray) -> float:
    spec = np.abs(np.fft.fft(k, 1 << 16)) ** 2
    return float(spec[np.fft.fftfreq(1 << 16, 1 / SR) < 0].sum() / spec.sum())


@pytest.mark.parametrize("c", [1.0, 1.5, 2.0, 3.0, 6.0])
def test_dc_correction_gives_zero_mean_and_without_it_the_known_dc_term(c):
    corrected, plain = bank(800.0, [c]), bank(800.0, [c], dc=False)
    peak = float(corrected.abs().max())
    assert abs(complex(corrected.sum())) < 1e-12 * peak * corrected.shape[-1]
    # the uncorrected Morlet's mean is exp(-2 pi^2 c^2 / k_sd^2) of its response (continuous)
    assert abs(complex(plain.sum())) == pytest.approx(math.exp(-2 * math.pi**2 * c**2 / K_SD**2),
                                                      rel=1e-6, abs=1e-15)


@pytest.mark.parametrize("c", [1.0, 1.5, 2.0, 3.0])
def test_negative_frequency_leakage_is_within_its_bound(c):
    """A Gaussian-window Morlet puts erfc(2 pi c / k_sd) / 2 of its energy at negative
    frequencies (the envelope's spectrum has sd 1 / (2 sqrt(2) pi sigma)); the DC correction
    adds at most kappa G(nu), which by Minkowski bounds the corrected kernel's share by
    (sqrt(erfc(.)/2) + kappa / sqrt 2)^2 / (1 + kappa^2 - 2 kappa^1.5)."""
    gauss = 0.5 * erfc(2 * math.pi * c / K_SD)
    plain = negative_share(bank(1000.0, [c], dc=False)[0].numpy())
    assert plain == pytest.approx(gauss, rel=0.01)
    kappa = math.exp(-2 * math.pi**2 * c**2 / K_SD**2)
    bound = (math.sqrt(gauss) + kappa / math.sqrt(2)) ** 2 / (1 + kappa**2 - 2 * kappa**1.5)
    assert negative_share(bank(1000.0, [c])[0].numpy()) <= bound
    # leakage falls fast with the cycles: c = 3 is analytic to ~1e-7
    if c == 3.0:
        assert negative_share(bank(1000.0, [c])[0].numpy()) < 1e-6


def _signal(seconds=0.5, seed=0):
    rng = np.random.default_rng(seed)
    t = np.arange(int(seconds * SR)) / SR
    return (np.sin(2 * np.pi * 500 * t) + 0.5 * np.sin(2 * np.pi * 530 * t + 1)
            + 0.3 * rng.standard_normal(len(t)))


@pytest.mark.parametrize("order", [1, 2, 3, 2.5, 3.7])
def test_the_transform_agrees_with_moca_et_als_superlet(order):
    """Weights (1/o, ..., alpha/o, 0, ...) over orders with c1, 2 c1, ... cycles give the
    (fractional) multiplicative superlet, here against a direct numpy implementation (own
    +-3 sigma supports; the transform's fixed support adds the Gaussian tails beyond 3 sigma)."""
    x = _signal()
    c1, f = 3.0, 500.0
    cycles = torch.tensor([[c1 * (i + 1) for i in range(4)]], dtype=torch.float64)
    k = morlet_bank(torch.tensor([f], dtype=torch.float64), cycles, SR, 2001, dc=False)
    s = superlet(responses(torch.tensor(x)[None], k), order_weights(order, 4)[None])[0, 0]
    ref = reference_superlet(x, f, c1, order, SR)
    inner = slice(1500, len(x) - 1500)  # away from the edges, where the supports differ
    assert np.abs(s.numpy()[inner] - ref[inner]).max() < 3e-3 * ref[inner].max()


def test_a_tone_gives_half_its_amplitude_and_full_phase_congruency():
    t = np.arange(SR // 2) / SR
    x = torch.tensor(0.8 * np.cos(2 * np.pi * 1000 * t))[None]
    cycles = torch.tensor([[1.5 * (i + 1) for i in range(3)]], dtype=torch.float64)
    w = responses(x, morlet_bank(torch.tensor([1000.0], dtype=torch.float64), cycles, SR, 1025))
    mid = slice(2000, 6000)
    weights = torch.full((1, 3), 1 / 3, dtype=torch.float64)
    s, kappa = superlet(w, weights)[0, 0, mid], phase_congruency(w, weights)[0, 0, mid]
    assert torch.allclose(s, torch.full_like(s, 0.4), rtol=0.02)
    assert (kappa > 0.99).all() and (kappa <= 1 + 1e-9).all()
    noise = torch.tensor(np.random.default_rng(1).standard_normal(SR // 2))[None]
    kn = phase_congruency(responses(noise, morlet_bank(
        torch.tensor([1000.0], dtype=torch.float64), cycles, SR, 1025)), weights)[0, 0, mid]
    assert float(kn.mean()) < float(kappa.mean()) - 0.05


def test_the_transform_is_continuous_in_order_weights_and_frequency():
    x = torch.tensor(_signal(0.25))[None]
    cycles = torch.tensor([[1.5 * (i + 1) for i in range(4)]], dtype=torch.float64)
    f = torch.tensor([700.0], dtype=torch.float64)
    w = responses(x, morlet_bank(f, cycles, SR, 1025))
    base = order_weights(2.0, 4)[None]
    s0 = superlet(w, base)
    gaps = []
    for d in (1e-2, 1e-3, 1e-4):
        s1 = superlet(w, order_weights(2.0 + d, 4)[None])
        gaps.append(float((s1 - s0).abs().max()))
    assert gaps[1] < 0.2 * gaps[0] and gaps[2] < 0.2 * gaps[1]  # O(delta): continuous in order
    k0 = morlet_bank(f, cycles, SR, 1025)
    kgaps = [float((morlet_bank(f + d, cycles, SR, 1025) - k0).abs().max()) for d in (1.0, 0.1)]
    assert kgaps[1] < 0.2 * kgaps[0]  # and in frequency
    # and differentiable: gradients reach the frequencies and the cycles
    fr = f.clone().requires_grad_()
    cy = cycles.clone().requires_grad_()
    superlet(responses(x, morlet_bank(fr, cy, SR, 1025)), base).sum().backward()
    assert torch.isfinite(fr.grad).all() and fr.grad.abs().sum() > 0 and cy.grad.abs().sum() > 0


def test_the_learnable_grid_is_monotone_log_spaced_with_fixed_ends():
    g = log_grid(torch.zeros(95), 50.0, 8000.0)
    assert len(g) == 96 and float(g[0]) == pytest.approx(50.0)
    assert float(g[-1]) == pytest.approx(8000.0)
    ratios = g[1:] / g[:-1]
    assert torch.allclose(ratios, ratios[0].expand_as(ratios))  # log-uniform at init
    raw = torch.randn(95, generator=torch.Generator().manual_seed(0)) * 3
    h = log_grid(raw.requires_grad_(), 50.0, 8000.0)
    assert (h[1:] > h[:-1]).all() and float(h[-1]) == pytest.approx(8000.0)
    h.sum().backward()
    assert raw.grad.abs().sum() > 0


def test_laht_keeps_what_is_beyond_its_thresholds():
    x = torch.linspace(-3, 3, 601)
    y = laht(x, torch.tensor(1.0), torch.tensor(2.0), slope=15.0)
    assert torch.allclose(y[x > 1.6], x[x > 1.6], atol=1e-3)
    assert torch.allclose(y[x < -2.6], x[x < -2.6], atol=1e-3)
    inside = (x > -1.5) & (x < 0.5)
    assert y[inside].abs().max() < 1e-2  # asymmetric: -2 < x < 1 is cut
