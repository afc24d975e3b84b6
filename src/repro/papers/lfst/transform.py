"""The learnable fractional superlet transform's pieces (issue 25, groundwork: the paper's rules,
STEE and the front-ends come next; the sources and what each fact rests on are in NOTES.md).

- `morlet_bank`: analytic Morlet wavelets on a fixed L-tap support, Gaussian width
  sigma = c / (k_sd f) (k_sd = 5: the c cycles span +-2.5 sigma), each normalised by its
  Gaussian's tap sum (a tone of amplitude a at the wavelet's frequency gives |W| ~ a / 2), and
  DC-corrected: the carrier minus its Gaussian-weighted mean over the sampled support, so every
  sampled kernel sums to zero exactly (admissibility after truncation).
- `responses`: the complex responses of a batch of signals to every (frequency, order) wavelet,
  by FFT convolution (centred, same length as the input).
- `superlet`: the log-domain weighted geometric mean over orders, exp(sum_o w_o log(|W_o| +
  eps)); with w = (1/n, ..., 1/n, 0, ...) it is Moca et al.'s superlet of order n, with
  w_{n+1} = alpha / (n + alpha) their fractional order n + alpha.
- `phase_congruency`: |sum_o w_o W_o / (|W_o| + eps)|, in [0, 1]: how well the orders' phases
  agree.
- `log_grid`: a strictly increasing log-spaced frequency grid from free parameters (softplus
  increments between fixed end points).
- `laht`: learnable asymmetric hard thresholding, x (sigmoid(a (x - t+)) + sigmoid(-a (x + t-))).
- `reference_superlet`: Moca et al.'s (multiplicative, fractional) superlet written directly in
  numpy, time-domain convolution over each wavelet's own +-3 sigma support, no DC correction:
  the independent reference the tests compare the transform with.
"""

from __future__ import annotations

import math

import numpy as np
import torch
import torch.nn.functional as F


def morlet_bank(freqs: torch.Tensor, cycles: torch.Tensor, sr: float, length: int,
                k_sd: float = 5.0, dc: bool = True) -> torch.Tensor:
    """Complex kernels (F, O, L) for centre frequencies `freqs` (F,) and cycle counts `cycles`
    (F, O); differentiable in both. L is odd, so each kernel has a centre sample."""
    if length % 2 == 0:
        raise ValueError(f"kernel length {length} must be odd (a centre sample)")
    t = (torch.arange(length, dtype=freqs.dtype, device=freqs.device) - (length - 1) / 2) / sr
    sigma = cycles / (k_sd * freqs[:, None])  # (F, O) seconds
    g = torch.exp(-0.5 * (t / sigma[..., None]) ** 2)  # (F, O, L)
    g = g / g.sum(-1, keepdim=True)  # taps summing to 1: kappa below is a weighted mean
    phase = 2 * math.pi * freqs[:, None, None] * t
    carrier = torch.polar(torch.ones_like(phase), phase)
    if dc:
        carrier = carrier - (g * carrier).sum(-1, keepdim=True)
    return g * carrier


def responses(x: torch.Tensor, kernels: torch.Tensor) -> torch.Tensor:
    """Complex responses (B, F, O, N) of real signals x (B, N) to kernels (F, O, L), centred:
    output n is the kernel's centre at sample n (zero padding outside the signal)."""
    n = x.shape[-1]
    length = kernels.shape[-1]
    size = n + length - 1
    # the CWT sum_tau x(tau) conj(psi(tau - t)) is the convolution x * psi, as psi(-t) =
    # conj(psi(t)) for these kernels (symmetric envelope, real DC term)
    fx = torch.fft.fft(x.to(kernels.real.dtype), size)  # (B, size)
    fk = torch.fft.fft(kernels, size)
    full = torch.fft.ifft(fx[:, None, None, :] * fk[None], size)
    start = (length - 1) // 2
    return full[..., start:start + n]


def framed_responses(x: torch.Tensor, kernels: torch.Tensor, hop: int) -> torch.Tensor:
    """The same responses (B, F, O, T) sampled every `hop` samples (T = ceil(N / hop)), by a
    strided real convolution: only the frames the encoder sees are computed, which is what
    makes a learnable 96 x 8 bank affordable. Equal to `responses(x, kernels)[..., ::hop]`."""
    nf, no, length = kernels.shape
    # conv1d correlates: sum_u x(t + u) w(u); the CWT needs w = conj(psi)
    w = torch.cat([kernels.real, -kernels.imag]).reshape(2 * nf * no, 1, length)
    h = (length - 1) // 2
    out = F.conv1d(x.to(w.dtype)[:, None], w, stride=hop, padding=h)  # (B, 2 F O, T)
    out = out.reshape(x.shape[0], 2, nf, no, -1)
    return torch.complex(out[:, 0], out[:, 1])


def superlet(w: torch.Tensor, weights: torch.Tensor, eps: float = 1e-12) -> torch.Tensor:
    """exp(sum_o weights[f, o] log(|W| + eps)): (B, F, O, N) -> (B, F, N)."""
    return torch.exp((weights[None, :, :, None] * torch.log(w.abs() + eps)).sum(2))


def phase_congruency(w: torch.Tensor, weights: torch.Tensor, eps: float = 1e-12
                     ) -> torch.Tensor:
    unit = w / (w.abs() + eps)
    return (weights[None, :, :, None].to(unit.dtype) * unit).sum(2).abs()


def order_weights(order: float, orders: int) -> torch.Tensor:
    """Moca et al.'s (fractional) superlet of order n + alpha as weights over orders 1..O."""
    n, alpha = int(math.floor(order)), order - math.floor(order)
    if not 1 <= order <= orders:
        raise ValueError(f"order {order} outside 1..{orders}")
    w = torch.zeros(orders, dtype=torch.float64)
    w[:n] = 1 / order
    if alpha > 0:
        w[n] = alpha / order
    return w


def log_grid(raw: torch.Tensor, f_min: float, f_max: float) -> torch.Tensor:
    """F = len(raw) + 1 strictly increasing frequencies from f_min to f_max, log-spaced by the
    normalised softplus increments (equal raw values: a log-uniform grid)."""
    u = F.softplus(raw)
    frac = torch.cat([u.new_zeros(1), torch.cumsum(u, 0) / u.sum()])
    return torch.exp(math.log(f_min) + frac * (math.log(f_max) - math.log(f_min)))


def laht(x: torch.Tensor, t_pos: torch.Tensor, t_neg: torch.Tensor, slope: float
         ) -> torch.Tensor:
    """Learnable asymmetric hard thresholding: keeps x > t_pos and x < -t_neg, smoothly."""
    return x * (torch.sigmoid(slope * (x - t_pos)) + torch.sigmoid(-slope * (x + t_neg)))


def reference_superlet(x: np.ndarray, freq: float, c1: float, order: float, sr: float,
                       k_sd: float = 5.0) -> np.ndarray:
    """Moca et al.'s multiplicative superlet amplitude at one frequency, directly: wavelets
    with c1, 2 c1, ... cycles (plus the fractional one), each over +-3 sigma and normalised by
    its Gaussian's sum, no DC correction; the geometric mean of the magnitudes, the fractional
    wavelet's raised to its fractional part, to the power 1 / order."""
    n = int(math.floor(order))
    alpha = order - n
    logs = np.zeros(len(x))
    for i in range(1, n + 2):
        e = 1.0 if i <= n else alpha
        if e == 0:
            continue
        sigma = i * c1 / (k_sd * freq)
        half = int(math.ceil(3 * sigma * sr))
        t = np.arange(-half, half + 1) / sr
        g = np.exp(-0.5 * (t / sigma) ** 2)
        psi = g * np.exp(2j * math.pi * freq * t) / g.sum()
        resp = np.convolve(x, psi, mode="same")
        logs += e * np.log(np.abs(resp) + 1e-300)
    return np.exp(logs / order)
