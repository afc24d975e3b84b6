"""Gradient temporal collinearity (GTC): how closely the loss gradients of different time steps
point the same way. For a layer l with input s_t at time step t (the encoded image at the input
layer, spikes deeper in), g_t = dL/ds_t for one image, and

    GTC_l = E_x [ 2 / (T (T - 1)) sum_{i<j} cos(g_i, g_j) ]

(the paper defines GTC as the directional alignment of the gradient components across time
steps; its exact normalisation was not reachable, so this is the mean pairwise cosine; at the
input layer of direct encoding, sum_t g_t is the attack's gradient on x). Also reported per time
step: cos(g_t, sum_s g_s), how much each step's gradient agrees with the one an attack uses.
The model is in eval mode; the loss is summed over the batch, so every image's gradients are its
own. Images whose gradient at a time step is exactly zero (no spike path) are left out of that
layer's mean, and their share is reported."""

from __future__ import annotations

import itertools
from typing import Any

import torch
import torch.nn.functional as F

from repro.papers.stod.model import SpikingNet


def layer_gradients(model: SpikingNet, x: torch.Tensor, y: torch.Tensor
                    ) -> dict[str, torch.Tensor]:
    """Per layer, the gradient on its input: (T, B, features)."""
    captured: dict[str, torch.Tensor] = {}

    def hook(name: str):
        def pre(_mod, args):
            s = args[0]
            if s.requires_grad:
                s.retain_grad()
            captured[name] = s
        return pre

    handles = [m.register_forward_pre_hook(hook(n)) for n, m in model.weight_layers()]
    try:
        seq = model.encode(x).detach().requires_grad_(True)
        loss = F.cross_entropy(model.forward_seq(seq), y, reduction="sum")
        loss.backward()
    finally:
        for h in handles:
            h.remove()
    model.zero_grad(set_to_none=True)
    out = {}
    for name, s in captured.items():
        g = s.grad if s.grad is not None else torch.zeros_like(s)
        out[name] = g.detach().reshape(g.shape[0], g.shape[1], -1)
    return out


def collinearity(g: torch.Tensor) -> dict[str, Any]:
    """GTC of one layer's gradients g (T, B, F): the mean pairwise cosine over images with a
    non-zero gradient at every time step, the T x T mean cosine matrix, and per time step the
    cosine with the summed gradient."""
    T = g.shape[0]
    norms = g.norm(dim=2)  # (T, B)
    ok = (norms > 0).all(dim=0)
    u = g[:, ok] / norms[:, ok].unsqueeze(-1)
    n = int(ok.sum())
    mat = torch.eye(T, dtype=torch.float64)
    pair_vals = []
    for i, j in itertools.combinations(range(T), 2):
        c = (u[i] * u[j]).sum(-1).double()
        mat[i, j] = mat[j, i] = c.mean() if n else float("nan")
        pair_vals.append(c)
    tot = g[:, ok].sum(0)
    tot = tot / tot.norm(dim=1, keepdim=True).clamp_min(1e-30)
    per_step = [float((u[t] * tot).sum(-1).double().mean()) if n else float("nan")
                for t in range(T)]
    gtc = float(torch.stack(pair_vals).mean()) if n and pair_vals else float("nan")
    return {"gtc": gtc, "matrix": mat.tolist(), "per_step": per_step, "images": n,
            "zero_share": 1.0 - n / g.shape[1]}


def measure(model: SpikingNet, x: torch.Tensor, y: torch.Tensor, batch: int) -> dict[str, Any]:
    """GTC per layer over the images x (in batches), gradients pooled over batches."""
    grads: dict[str, list[torch.Tensor]] = {}
    for i in range(0, len(y), batch):
        for name, g in layer_gradients(model, x[i:i + batch], y[i:i + batch]).items():
            grads.setdefault(name, []).append(g)
    order = [n for n, _ in model.weight_layers()]
    return {name: collinearity(torch.cat(grads[name], dim=1)) for name in order if name in grads}
