"""The time-frequency front-ends compared on the same STEE encoder (the paper's capacity-matched
front-end table): STFT, Morlet CWT, the fixed (adaptive, fractional) superlet of Moca et al.,
a LEAF learnable filterbank and LFST with its ablations.

Every front-end maps peak-normalised waveforms (B, N) to `(maps, desc)`: maps (B, K, F, T) with
K channels on F bands and T = ceil(N / hop) frames, and desc (F, D) per-band descriptors the
encoder's FiLM gating reads (LFST: the effective order). Channel 0 is always the log magnitude,
log(eps + m / mean(m)): each utterance's map divided by its own mean, so the level a speaker
was recorded at is gone before the encoder sees it. LFST (and its ablations) add the phase
congruency channel.

LFST's parameters (NOTES.md 2.3-2.5): the log-spaced grid's softplus increments between fixed
end points, per-band base cycles c1 = 1 + softplus(raw) (init 1.5), per-band logits over the
orders 1..O (multiplicative cycles o c1; softmax weights, init uniform), LAHT's per-band
positive threshold softplus(b tanh(raw / b)) with slope 8 on the mean-normalised magnitude, and
the negative one (inert on a non-negative map, kept as defined). Ablations: `fixed_grid`
freezes the grid, `integer_orders` rounds the effective order to an integer superlet in the
forward pass (weights 1/n on the first n orders; the softmax weights' gradient passes straight
through), `laht=False` drops the thresholding.
"""

from __future__ import annotations

import math

import torch
from torch import nn
from torch.nn import functional as F

from repro.papers.lfst.transform import (
    framed_responses,
    laht,
    log_grid,
    morlet_bank,
    order_weights,
    phase_congruency,
    superlet,
)

LOG_EPS = 1e-3  # floor under the mean-normalised magnitude before the log


def log_magnitude(m: torch.Tensor) -> torch.Tensor:
    """log(eps + m / mean(m)) per utterance: (B, F, T) -> (B, F, T)."""
    return torch.log(LOG_EPS + m / (m.mean((1, 2), keepdim=True) + 1e-12))


def odd(n: int) -> int:
    return n if n % 2 else n + 1


class STFT(nn.Module):
    """Magnitude STFT (Hann window) on the bins between f_min and f_max."""

    def __init__(self, sample_rate: int, hop: int, window_ms: float, f_min: float,
                 f_max: float) -> None:
        super().__init__()
        self.hop = hop
        self.n_fft = 2 ** math.ceil(math.log2(sample_rate * window_ms / 1000))
        freqs = torch.fft.rfftfreq(self.n_fft, 1 / sample_rate)
        keep = (freqs >= f_min) & (freqs <= f_max)
        self.register_buffer("keep", keep, persistent=False)
        self.register_buffer("window", torch.hann_window(self.n_fft), persistent=False)
        self.bands = int(keep.sum())

    def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        n = x.shape[-1]
        s = torch.stft(x, self.n_fft, self.hop, window=self.window, center=True,
                       return_complex=True).abs()[:, self.keep, : -(-n // self.hop)]
        return log_magnitude(s)[:, None], s.new_zeros(self.bands, 1)


class Superlets(nn.Module):
    """A bank of Morlet superlets on a log grid: the CWT (one order), the fixed adaptive
    superlet (Moca et al.: orders rising linearly from 1 to O over the bands, fractional) and
    LFST (everything learnable), one code path."""

    def __init__(self, sample_rate: int, hop: int, bands: int, orders: int, f_min: float,
                 f_max: float, length: int, c1: float, k_sd: float = 5.0, learn: bool = False,
                 learn_grid: bool = True, integer_orders: bool = False, use_laht: bool = True,
                 phase: bool = False, fixed_weights: torch.Tensor | None = None,
                 laht_slope: float = 8.0, laht_bound: float = 5.0,
                 laht_init: float = 0.3, subframes: int = 1) -> None:
        super().__init__()
        if hop % subframes:
            raise ValueError(f"hop {hop} is not a multiple of subframes {subframes}")
        self.subframes = subframes
        self.sr, self.hop, self.length, self.k_sd = sample_rate, hop, odd(length), k_sd
        self.f_min, self.f_max, self.orders, self.bands = f_min, f_max, orders, bands
        self.learn, self.integer_orders, self.use_laht, self.phase = (
            learn, integer_orders, use_laht and learn, phase)
        self.slope, self.bound = laht_slope, laht_bound
        self.grid_raw = nn.Parameter(torch.zeros(bands - 1), requires_grad=learn and learn_grid)
        raw_c1 = math.log(math.expm1(c1 - 1)) if c1 > 1 else -20.0
        self.c1_raw = nn.Parameter(torch.full((bands,), raw_c1), requires_grad=learn)
        self.logits = nn.Parameter(torch.zeros(bands, orders), requires_grad=learn)
        # threshold raw value so that softplus(b tanh(raw / b)) = laht_init at the start
        t = math.log(math.expm1(laht_init))
        self.t_pos_raw = nn.Parameter(torch.full((bands,), laht_bound * math.atanh(t / laht_bound)),
                                      requires_grad=self.use_laht)
        self.t_neg_raw = nn.Parameter(self.t_pos_raw.detach().clone(), requires_grad=self.use_laht)
        if fixed_weights is None:
            fixed_weights = torch.full((bands, orders), 1 / orders)
        self.register_buffer("fixed_weights", fixed_weights.float(), persistent=False)

    def freqs(self) -> torch.Tensor:
        return log_grid(self.grid_raw, self.f_min, self.f_max)

    def c1(self) -> torch.Tensor:
        return 1 + nn.functional.softplus(self.c1_raw)

    def weights(self) -> torch.Tensor:
        if not self.learn:
            return self.fixed_weights
        w = torch.softmax(self.logits, -1)
        if not self.integer_orders:
            return w
        o = torch.arange(1, self.orders + 1, dtype=w.dtype, device=w.device)
        n = (w * o).sum(-1).round().clamp(1, self.orders)  # nearest integer superlet
        hard = (o[None] <= n[:, None]).to(w.dtype) / n[:, None]
        return hard + w - w.detach()  # straight-through

    def effective_order(self) -> torch.Tensor:
        o = torch.arange(1, self.orders + 1, dtype=torch.float32, device=self.logits.device)
        return (self.weights() * o).sum(-1)

    def thresholds(self) -> tuple[torch.Tensor, torch.Tensor]:
        sp = nn.functional.softplus
        b = self.bound
        return sp(b * torch.tanh(self.t_pos_raw / b)), sp(b * torch.tanh(self.t_neg_raw / b))

    def kernels(self) -> torch.Tensor:
        o = torch.arange(1, self.orders + 1, dtype=torch.float32, device=self.c1_raw.device)
        return morlet_bank(self.freqs(), self.c1()[:, None] * o[None], self.sr, self.length,
                           self.k_sd)

    def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        frames = -(-x.shape[-1] // self.hop)
        w = framed_responses(x, self.kernels(), self.hop // self.subframes)
        weights = self.weights()
        s = self.pool(superlet(w, weights), frames)
        m = s / (s.mean((1, 2), keepdim=True) + 1e-12)
        if self.use_laht:
            t_pos, t_neg = self.thresholds()
            m = laht(m, t_pos[None, :, None], t_neg[None, :, None], self.slope)
        maps = [torch.log(LOG_EPS + m)]
        if self.phase:
            maps.append(self.pool(phase_congruency(w, weights), frames))
        return torch.stack(maps, 1), self.effective_order()[:, None] / self.orders

    def pool(self, v: torch.Tensor, frames: int) -> torch.Tensor:
        """(B, F, T_sub) -> (B, F, frames): the mean of the subframes centred on each frame. A
        short wavelet's magnitude varies within a frame; one sample per frame would alias it."""
        k = self.subframes
        if k == 1:
            return v[..., :frames]
        b, nf, _ = v.shape
        out = F.avg_pool1d(v.reshape(b * nf, 1, -1), k, k, padding=k // 2,
                           count_include_pad=False)
        return out.reshape(b, nf, -1)[..., :frames]


def adaptive_weights(bands: int, orders: int) -> torch.Tensor:
    """Moca et al.'s fractional adaptive superlet: order linspace(1, O) over the bands."""
    return torch.stack([order_weights(float(o), orders)
                        for o in torch.linspace(1, orders, bands).tolist()])


def build(name: str, s, sample_rate: int) -> nn.Module:
    """The front-end `name` with the paper's settings `s` (settings.Frontend)."""
    common = dict(sample_rate=sample_rate, hop=s.hop, bands=s.bands, f_min=s.f_min,
                  f_max=min(s.f_max, 0.45 * sample_rate), length=s.kernel,
                  subframes=s.subframes)
    if name == "stft":
        return STFT(sample_rate, s.hop, s.stft_window_ms, s.f_min, common["f_max"])
    if name == "cwt":
        return Superlets(orders=1, c1=s.cwt_cycles, **common)
    if name == "superlet":
        return Superlets(orders=s.orders, c1=s.c1, fixed_weights=adaptive_weights(
            s.bands, s.orders), **common)
    if name == "leaf":
        from repro.papers.lfst.leaf import Leaf

        return LeafMaps(Leaf(n_filters=s.bands, sample_rate=sample_rate, hop=s.hop,
                             min_freq=s.f_min, max_freq=common["f_max"]))
    lfst = dict(orders=s.orders, c1=s.c1, learn=True, phase=True, laht_slope=s.laht_slope,
                laht_bound=s.laht_bound, laht_init=s.laht_init)
    variants = {"lfst": {}, "lfst_fixed_grid": {"learn_grid": False},
                "lfst_integer_orders": {"integer_orders": True},
                "lfst_no_laht": {"use_laht": False}}
    if name not in variants:
        raise ValueError(f"unknown front-end {name!r}")
    return Superlets(**lfst, **variants[name], **common)


class LeafMaps(nn.Module):
    """LEAF's sPCEN output as channel 0 (already compressed: no log on top)."""

    def __init__(self, leaf: nn.Module) -> None:
        super().__init__()
        self.leaf = leaf

    def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        m = self.leaf(x)
        return m[:, None], m.new_zeros(m.shape[1], 1)


def trainable(frontend: nn.Module) -> bool:
    return any(p.requires_grad for p in frontend.parameters())
