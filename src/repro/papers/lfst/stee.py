"""STEE, the spectro-temporal emotion encoder (NOTES.md 2.6), and the focal loss (2.7).

Input: maps (B, K, F, T) (channel 0 the log magnitude, channel 1 LFST's phase congruency),
per-band descriptors (F, D) and the utterances' lengths in frames. The blocks in order:
1. temporal depthwise stem (1 x k_t per input channel) then pointwise to C channels;
2. spectral residual block: depthwise k_f x 1 along frequency, pointwise, residual;
3. TF-mixing residual block: parallel time and frequency depthwise branches, summed, pointwise,
   squeeze-and-excitation over channels, residual;
4. adaptive FiLM frequency gating: an MLP on each band's statistics (mean and std over the
   valid frames of every input channel, plus the descriptors) gives per-band, per-channel
   multiplicative gates 2 sigmoid(.) (1 at zero: the gating starts as the identity);
5. temporal downsampling (stride), the mean over frequency, then axial local multi-head
   self-attention along time (each frame sees +-window/2 frames, padded frames masked);
6. attentive statistics pooling (masked softmax weights over time: weighted mean and std),
   LayerNorm, dropout, a linear classifier.
The paper does not give the block counts, the stride or the MLP widths: one block each, stride
2 and width C here (settings: channels, stride).
"""

from __future__ import annotations

import torch
from torch import nn
from torch.nn import functional as F


def frame_mask(lengths: torch.Tensor, frames: int) -> torch.Tensor:
    """(B, T) True on the valid frames."""
    return torch.arange(frames, device=lengths.device)[None] < lengths[:, None]


class SE(nn.Module):
    def __init__(self, c: int, r: int = 4) -> None:
        super().__init__()
        self.fc = nn.Sequential(nn.Linear(c, max(4, c // r)), nn.GELU(),
                                nn.Linear(max(4, c // r), c), nn.Sigmoid())

    def forward(self, x: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        """Squeeze over the valid frames only (mask (B, T)): padding never reaches a clip."""
        m = mask[:, None, None, :].to(x.dtype)
        squeezed = (x * m).sum((2, 3)) / (m.sum((2, 3)) * x.shape[2]).clamp(min=1)
        return x * self.fc(squeezed)[:, :, None, None]


class STEE(nn.Module):
    def __init__(self, in_channels: int, desc_dim: int, n_classes: int, channels: int = 128,
                 k_t: int = 9, k_f: int = 5, heads: int = 4, window: int = 128,
                 stride: int = 2, dropout: float = 0.1) -> None:
        super().__init__()
        c = channels
        self.stride, self.window = stride, window
        self.stem = nn.Sequential(
            nn.Conv2d(in_channels, in_channels, (1, k_t), padding=(0, k_t // 2),
                      groups=in_channels),
            nn.Conv2d(in_channels, c, 1), nn.BatchNorm2d(c), nn.GELU())
        self.spectral = nn.Sequential(
            nn.Conv2d(c, c, (k_f, 1), padding=(k_f // 2, 0), groups=c),
            nn.BatchNorm2d(c), nn.GELU(), nn.Conv2d(c, c, 1))
        self.mix_t = nn.Conv2d(c, c, (1, k_t), padding=(0, k_t // 2), groups=c)
        self.mix_f = nn.Conv2d(c, c, (k_f, 1), padding=(k_f // 2, 0), groups=c)
        self.mix = nn.Sequential(nn.BatchNorm2d(c), nn.GELU(), nn.Conv2d(c, c, 1))
        self.se = SE(c)
        self.film = nn.Sequential(nn.Linear(2 * in_channels + desc_dim, c), nn.GELU(),
                                  nn.Linear(c, c))
        nn.init.zeros_(self.film[-1].weight)
        nn.init.zeros_(self.film[-1].bias)
        self.down = nn.Conv2d(c, c, (1, stride), stride=(1, stride), groups=c)
        self.norm = nn.LayerNorm(c)
        self.attn = nn.MultiheadAttention(c, heads, dropout=dropout, batch_first=True)
        self.ffn = nn.Sequential(nn.LayerNorm(c), nn.Linear(c, 2 * c), nn.GELU(),
                                 nn.Dropout(dropout), nn.Linear(2 * c, c))
        self.score = nn.Sequential(nn.Linear(c, c // 2), nn.Tanh(), nn.Linear(c // 2, 1))
        self.head = nn.Sequential(nn.LayerNorm(2 * c), nn.Dropout(dropout),
                                  nn.Linear(2 * c, n_classes))

    def band_stats(self, maps: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        """(B, F, 2K): mean and std over the valid frames of every channel, per band."""
        m = mask[:, None, None, :].to(maps.dtype)
        n = m.sum(-1).clamp(min=1)
        mean = (maps * m).sum(-1) / n
        var = ((maps - mean[..., None]) ** 2 * m).sum(-1) / n
        return torch.cat([mean, var.clamp(min=1e-8).sqrt()], 1).transpose(1, 2)

    def embed(self, maps: torch.Tensor, desc: torch.Tensor, lengths: torch.Tensor
              ) -> torch.Tensor:
        b, _, nf, nt = maps.shape
        mask = frame_mask(lengths, nt)
        # channels-last: the depthwise convolutions run ~2x faster on CPU (oneDNN)
        h = self.stem(maps.contiguous(memory_format=torch.channels_last))
        h = h + self.spectral(h)
        h = h + self.se(self.mix(self.mix_t(h) + self.mix_f(h)), mask)
        stats = torch.cat([self.band_stats(maps, mask), desc[None].expand(b, nf, -1)], -1)
        gate = 2 * torch.sigmoid(self.film(stats))  # (B, F, C)
        h = h * gate.permute(0, 2, 1)[..., None]
        t2 = -(-nt // self.stride)
        h = F.pad(h, (0, t2 * self.stride - nt))
        h = self.down(h).mean(2).transpose(1, 2)  # (B, T', C)
        lens = (-(-lengths // self.stride)).clamp(min=1)
        valid = frame_mask(lens, t2)
        idx = torch.arange(t2, device=h.device)
        local = (idx[None] - idx[:, None]).abs() > self.window // 2  # True: not attended
        q = self.norm(h)
        a, _ = self.attn(q, q, q, attn_mask=local, key_padding_mask=~valid, need_weights=False)
        h = h + a
        h = h + self.ffn(h)
        s = self.score(h).squeeze(-1).masked_fill(~valid, float("-inf"))
        alpha = torch.softmax(s, -1)[..., None]
        mu = (alpha * h).sum(1)
        sd = ((alpha * (h - mu[:, None]) ** 2).sum(1)).clamp(min=1e-6).sqrt()
        return torch.cat([mu, sd], -1)

    def forward(self, maps: torch.Tensor, desc: torch.Tensor, lengths: torch.Tensor
                ) -> torch.Tensor:
        return self.head(self.embed(maps, desc, lengths))


def focal_loss(logits: torch.Tensor, y: torch.Tensor, gamma: float = 2.0,
               alpha: torch.Tensor | None = None) -> torch.Tensor:
    """mean_n -alpha_{y_n} (1 - p_{y_n})^gamma log p_{y_n}, per sample (not SigWavNet's
    batch-mean variant, NOTES.md 2.7); gamma = 0 and alpha = None is cross-entropy."""
    logp = F.log_softmax(logits, -1).gather(1, y[:, None]).squeeze(1)
    loss = -((1 - logp.exp()) ** gamma) * logp
    if alpha is not None:
        loss = alpha[y] * loss
    return loss.mean()


def class_weights(y, n_classes: int) -> torch.Tensor:
    """alpha_c proportional to 1 / count_c, scaled to mean 1 over the training samples."""
    counts = torch.bincount(torch.as_tensor(y), minlength=n_classes).double().clamp(min=1)
    w = 1 / counts
    return (w / (w[torch.as_tensor(y)].mean())).float()
