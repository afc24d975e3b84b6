"""DOMINANT (Ding et al., SDM 2019), the per-graph baseline, as pygod 1.1 defines it (NOTES.md
3.4), on torch_geometric's GCN. pygod's own detector cannot run here: even full-batch it samples
through torch_geometric's NeighborLoader, which needs the compiled pyg-lib or torch-sparse (not
installable offline for this torch), so the same model is written to pygod's definition.

A GCN encoder (2 layers to `hidden`), a GCN attribute decoder (2 layers back to the features) and
a one-layer GCN structure decoder followed by Z Z^T; each node's score (and, averaged, the loss)
is alpha ||x - x_hat|| + (1 - alpha) ||a - a_hat|| with a the node's dense adjacency row.
Unsupervised and fitted on the target graph itself (no cross-graph training).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import torch
from torch import nn


@dataclass(frozen=True)
class DominantConfig:
    hidden: int = 64
    lr: float = 4e-3
    epochs: int = 100
    alpha: float = 0.5  # pygod's `weight`


class Dominant(nn.Module):
    def __init__(self, d: int, cfg: DominantConfig) -> None:
        super().__init__()
        from torch_geometric.nn import GCN

        h = cfg.hidden
        self.cfg = cfg
        self.encoder = GCN(d, h, num_layers=2, out_channels=h, act="relu")
        self.attr_decoder = GCN(h, h, num_layers=2, out_channels=d, act="relu")
        self.struct_decoder = GCN(h, h, num_layers=1, out_channels=h, act="relu")

    def forward(self, x: torch.Tensor, edge_index: torch.Tensor):
        z = torch.relu(self.encoder(x, edge_index))
        x_hat = self.attr_decoder(z, edge_index)
        s = self.struct_decoder(z, edge_index)
        return x_hat, s @ s.T

    def scores(self, x: torch.Tensor, edge_index: torch.Tensor, a: torch.Tensor) -> torch.Tensor:
        x_hat, a_hat = self(x, edge_index)
        al = self.cfg.alpha
        return al * (x - x_hat).norm(dim=1) + (1 - al) * (a - a_hat).norm(dim=1)


def dominant_scores(x: np.ndarray, edges: np.ndarray, cfg: DominantConfig, seed: int,
                    device: str = "cpu") -> np.ndarray:
    """Fit DOMINANT on one graph (full batch, Adam) and score its nodes in eval mode."""
    torch.manual_seed(seed)
    xt = torch.as_tensor(x, dtype=torch.float32, device=device)
    ei = torch.as_tensor(np.concatenate([edges, edges[:, ::-1]]).T.copy(), dtype=torch.long,
                         device=device)
    a = torch.zeros(len(x), len(x), device=device)
    a[ei[0], ei[1]] = 1.0
    model = Dominant(x.shape[1], cfg).to(device)
    opt = torch.optim.Adam(model.parameters(), lr=cfg.lr)
    model.train()
    for _ in range(cfg.epochs):
        opt.zero_grad()
        model.scores(xt, ei, a).mean().backward()
        opt.step()
    model.eval()
    with torch.no_grad():
        return model.scores(xt, ei, a).cpu().numpy()
