"""LEAF learnable audio front-end (Zeghidour et al., ICLR 2021), the LFST baseline front-end.

Follows google-research/leaf-audio: complex Gabor filterbank (mel-initialised) -> squared
modulus -> learnable Gaussian lowpass pooling -> learnable sPCEN. Constraints are applied by
clamping at every forward pass, as the original does, so the raw parameters may drift out of
range while the filters actually used never do.
"""

from __future__ import annotations

import math

import torch
import torch.nn.functional as F
from torch import nn

_FWHM_COEF = math.sqrt(2.0 * math.log(2.0))  # Gaussian sigma <-> full width at half maximum
_ENERGY_FLOOR = 1e-5  # applied after pooling, as in leaf-audio


def _hz_to_mel(f: torch.Tensor) -> torch.Tensor:
    return 1127.0 * torch.log1p(f / 700.0)


def _mel_to_hz(m: torch.Tensor) -> torch.Tensor:
    return 700.0 * torch.expm1(m / 1127.0)


def mel_triangles(
    n_filters: int, n_fft: int, sample_rate: int, min_freq: float, max_freq: float
) -> torch.Tensor:
    """HTK-mel triangles on the rfft bins, shape (n_filters, n_fft // 2 + 1).

    Like ``tf.signal.linear_to_mel_weight_matrix`` (what leaf-audio uses): HTK formula
    mel = 1127 ln(1 + f / 700), band edges equally spaced in mel, slopes linear in mel, and the
    DC bin zeroed.
    """
    bins = _hz_to_mel(torch.linspace(0.0, sample_rate / 2, n_fft // 2 + 1, dtype=torch.float64))
    edges = torch.linspace(
        _hz_to_mel(torch.tensor(float(min_freq))).item(),
        _hz_to_mel(torch.tensor(float(max_freq))).item(),
        n_filters + 2,
        dtype=torch.float64,
    )
    lower, centre, upper = edges[:-2, None], edges[1:-1, None], edges[2:, None]
    rising = (bins - lower) / (centre - lower)
    falling = (upper - bins) / (upper - centre)
    tri = torch.clamp(torch.minimum(rising, falling), min=0.0)
    tri[:, 0] = 0.0
    return tri


def gabor_init_from_mel(
    n_filters: int, sample_rate: int, min_freq: float, max_freq: float, n_fft: int = 512
) -> tuple[torch.Tensor, torch.Tensor]:
    """Gabor (mu [rad/sample], sigma [samples]) matching mel filters, as leaf-audio initialises.

    Centre = peak bin of the area-normalised triangle; the width is the number of bins where
    the square root of the filter is at least half its peak, converted to a time-domain sigma.
    """
    tri = mel_triangles(n_filters, n_fft, sample_rate, min_freq, max_freq)
    tri = tri / tri.sum(dim=1, keepdim=True).clamp_min(1e-12)
    root = tri.sqrt()
    peak_bin = root.argmax(dim=1).to(torch.float64)
    fwhm = (root >= 0.5 * root.amax(dim=1, keepdim=True)).sum(dim=1).to(torch.float64)
    mu = peak_bin * 2.0 * math.pi / n_fft
    sigma = _FWHM_COEF * n_fft / (math.pi * fwhm)
    return mu.float(), sigma.float()


class GaborConv1d(nn.Module):
    """Complex Gabor filterbank: 2 learnable params per filter, 2n real output channels."""

    def __init__(self, mu: torch.Tensor, sigma: torch.Tensor, kernel_size: int) -> None:
        super().__init__()
        self.kernel_size = kernel_size
        self.mu = nn.Parameter(mu.clone())
        self.sigma = nn.Parameter(sigma.clone())
        t = torch.arange(-(kernel_size // 2), (kernel_size + 1) // 2, dtype=torch.float32)
        self.register_buffer("t", t, persistent=False)

    def params(self) -> tuple[torch.Tensor, torch.Tensor]:
        """Clamped (mu, sigma): mu in [0, pi], FWHM of the frequency response in [1, pi/2]."""
        mu = self.mu.clamp(0.0, math.pi)
        sigma = self.sigma.clamp(4 * _FWHM_COEF / math.pi, self.kernel_size * _FWHM_COEF / math.pi)
        return mu, sigma

    def _real_imag(self) -> tuple[torch.Tensor, torch.Tensor]:
        mu, sigma = self.params()
        sigma = sigma[:, None]
        envelope = torch.exp(-self.t**2 / (2 * sigma**2)) / (math.sqrt(2 * math.pi) * sigma)
        phase = mu[:, None] * self.t
        return envelope * torch.cos(phase), envelope * torch.sin(phase)

    def impulse_responses(self) -> torch.Tensor:
        """Complex impulse responses (n, K) on t = -(K//2) ... (K+1)//2 - 1."""
        return torch.complex(*self._real_imag())

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        """(B, 1, N) -> (B, 2n, N), channels interleaved (re_0, im_0, re_1, im_1, ...)."""
        real, imag = self._real_imag()
        kernels = torch.stack([real, imag], dim=1).reshape(-1, 1, self.kernel_size)
        return F.conv1d(x, kernels, padding="same")


class GaussianLowpass(nn.Module):
    """Depthwise Gaussian lowpass + downsampling, one learnable width per channel."""

    def __init__(self, n_channels: int, kernel_size: int, stride: int, init: float = 0.4) -> None:
        super().__init__()
        self.kernel_size = kernel_size
        self.stride = stride
        self.sigma = nn.Parameter(torch.full((n_channels,), init))
        self.register_buffer("k", torch.arange(kernel_size, dtype=torch.float32), persistent=False)

    def widths(self) -> torch.Tensor:
        """Clamped widths, relative to the half window: [2 / K, 0.5]."""
        return self.sigma.clamp(2.0 / self.kernel_size, 0.5)

    def windows(self) -> torch.Tensor:
        """Unnormalised Gaussian windows (n, K), as leaf-audio (no sum-to-one)."""
        half = 0.5 * (self.kernel_size - 1)
        return torch.exp(-0.5 * ((self.k - half) / (self.widths()[:, None] * half)) ** 2)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        """(B, n, N) -> (B, n, ceil(N / stride)), TensorFlow-style 'SAME' padding."""
        n_in = x.shape[-1]
        n_out = -(-n_in // self.stride)
        total = max((n_out - 1) * self.stride + self.kernel_size - n_in, 0)
        x = F.pad(x, (total // 2, total - total // 2))
        w = self.windows()[:, None, :]
        return F.conv1d(x, w, stride=self.stride, groups=w.shape[0])


class SPCEN(nn.Module):
    """Per-channel energy normalisation with learnable per-channel smoother (sPCEN).

    The floor is a constant, as in leaf-audio. The smoother is a plain loop over frames: T is
    only ~100-300 after pooling, and it avoids the underflow of closed-form (1 - s)^t weights.
    """

    def __init__(
        self,
        n_channels: int,
        alpha: float = 0.96,
        delta: float = 2.0,
        root: float = 2.0,
        smooth: float = 0.04,
        floor: float = 1e-12,
        learnable: bool = True,
    ) -> None:
        super().__init__()
        self.floor = floor

        def param(value: float) -> nn.Parameter:
            return nn.Parameter(torch.full((n_channels,), value), requires_grad=learnable)

        self.alpha = param(alpha)
        self.delta = param(delta)
        self.root = param(root)
        self.smooth = param(smooth)

    def constrained(self) -> dict[str, torch.Tensor]:
        """Clamped parameters: alpha <= 1, root >= 1, smooth in [0, 1]."""
        return {
            "alpha": self.alpha.clamp(max=1.0),
            "delta": self.delta,
            "root": self.root.clamp(min=1.0),
            "smooth": self.smooth.clamp(0.0, 1.0),
        }

    def smoother(self, x: torch.Tensor) -> torch.Tensor:
        """M_t = s x_t + (1 - s) M_{t-1}, M_0 = x_0, per channel; x is (B, n, T)."""
        s = self.constrained()["smooth"]
        frames = x.unbind(dim=-1)
        state = frames[0]
        out = [state]
        for frame in frames[1:]:
            state = s * frame + (1.0 - s) * state
            out.append(state)
        return torch.stack(out, dim=-1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        """(B, n, T) energies -> (B, n, T) compressed, (x / (floor + M)^a + d)^(1/r) - d^(1/r)."""
        p = self.constrained()
        alpha, delta, inv_root = p["alpha"][:, None], p["delta"][:, None], 1.0 / p["root"][:, None]
        smoothed = self.smoother(x)
        return (x / (self.floor + smoothed) ** alpha + delta) ** inv_root - delta**inv_root


class Leaf(nn.Module):
    """LEAF: waveform (B, N) -> learnable time-frequency features (B, n_filters, ceil(N / hop))."""

    def __init__(
        self,
        n_filters: int = 40,
        sample_rate: int = 16000,
        window_ms: float = 25.0,
        hop: int | None = None,
        min_freq: float = 60.0,
        max_freq: float | None = None,
        learnable_pcen: bool = True,
    ) -> None:
        super().__init__()
        nyquist = sample_rate / 2
        # the paper uses 7800 Hz at 16 kHz; any value is capped at Nyquist
        max_freq = min(nyquist - 200.0 if max_freq is None else max_freq, nyquist)
        if not 0.0 <= min_freq < max_freq:
            raise ValueError(f"need 0 <= min_freq < max_freq, got {min_freq}, {max_freq}")
        self.sample_rate = sample_rate
        self.kernel_size = int(sample_rate * window_ms / 1000) + 1
        self.hop = hop if hop is not None else max(1, int(sample_rate / 100))
        mu, sigma = gabor_init_from_mel(n_filters, sample_rate, min_freq, max_freq)
        self.gabor = GaborConv1d(mu, sigma, self.kernel_size)
        self.pool = GaussianLowpass(n_filters, self.kernel_size, self.hop)
        self.pcen = SPCEN(n_filters, learnable=learnable_pcen)

    def centre_hz(self) -> torch.Tensor:
        """Current (clamped) centre frequencies of the Gabor filters, in Hz."""
        mu, _ = self.gabor.params()
        return mu.detach() * self.sample_rate / (2 * math.pi)

    def energies(self, x: torch.Tensor) -> torch.Tensor:
        """Pooled squared-modulus filterbank energies (B, n, T), before sPCEN."""
        if x.dim() != 2:
            raise ValueError(f"expected a (batch, samples) waveform, got shape {tuple(x.shape)}")
        z = self.gabor(x[:, None, :])
        power = z.reshape(z.shape[0], -1, 2, z.shape[-1]).pow(2).sum(dim=2)
        return self.pool(power).clamp_min(_ENERGY_FLOOR)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        """(B, N) float waveform -> (B, n_filters, ceil(N / hop)) sPCEN features."""
        return self.pcen(self.energies(x))
