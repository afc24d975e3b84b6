"""A front-end and the STEE encoder as one classifier, and the batches it reads."""

from __future__ import annotations

import numpy as np
import torch
from torch import nn

from repro.papers.lfst.frontends import build, trainable
from repro.papers.lfst.stee import STEE


class Classifier(nn.Module):
    def __init__(self, frontend: str, cfg, n_classes: int) -> None:
        super().__init__()
        self.frontend = build(frontend, cfg.frontend, cfg.sample_rate)
        self.hop = cfg.frontend.hop
        k, d = self.probe()
        s = cfg.stee
        self.encoder = STEE(k, d, n_classes, s.channels, s.k_t, s.k_f, s.heads, s.window,
                            s.stride, s.dropout).to(memory_format=torch.channels_last)

    @torch.no_grad()
    def probe(self) -> tuple[int, int]:
        """The front-end's channels K and descriptor width D."""
        maps, desc = self.frontend(torch.zeros(1, 4 * self.hop))
        return maps.shape[1], desc.shape[1]

    def frames(self, lengths: torch.Tensor) -> torch.Tensor:
        return -(-lengths // self.hop)

    def features(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        return self.frontend(x)

    def forward(self, x: torch.Tensor, lengths: torch.Tensor,
                maps: tuple[torch.Tensor, torch.Tensor] | None = None) -> torch.Tensor:
        m, desc = self.frontend(x) if maps is None else maps
        return self.encoder(m, desc, self.frames(lengths))

    @property
    def fixed_frontend(self) -> bool:
        return not trainable(self.frontend)


def waveforms(audio: np.ndarray, lengths: np.ndarray) -> torch.Tensor:
    """int16 (n, N) -> float32 peak-normalised over each clip's valid samples (the paper's
    preprocessing), padding left at zero."""
    x = audio.astype(np.float32) / 32768
    peak = np.array([np.abs(r[:n]).max() if n else 1.0 for r, n in zip(x, lengths, strict=True)])
    return torch.from_numpy(x / np.maximum(peak, 1e-4)[:, None])


def fold_split(split: np.ndarray, groups: np.ndarray, fold: int
               ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(train, val, test) indices: the synthesised corpus's own split, or leave-one-group-out
    (fold k tests group k of the sorted groups, validates on the next one)."""
    if all(split):
        if fold != 0:
            raise ValueError(f"the synthesised corpus has one split (fold 0), not fold {fold}")
        return tuple(np.flatnonzero(split == s) for s in ("train", "val", "test"))
    from repro.papers.lfst.corpora import leave_one_group_out

    return tuple(np.asarray(i, dtype=np.int64)
                 for i in leave_one_group_out(groups.tolist(), fold))
