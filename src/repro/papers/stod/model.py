"""Spiking networks with direct, rate and STOD input encodings (spikingjelly LIF neurons,
multi-step mode, surrogate gradients through BPTT).

Every network maps a batch of images x in [0, 1] to logits averaged over T time steps and
resets its neurons at the start of each forward pass, so an attack can call it like any
classifier. The input sequence (T, B, C, H, W) is an explicit tensor (`encode`), so the
per-time-step input gradients that GTC compares are the gradients on it:

- direct: x repeated T times, one shared input convolution;
- rate: a Bernoulli(x) spike per pixel and time step; the attack's and training's gradient
  through the draw is the straight-through one (d spike / d x = 1);
- stod: x repeated T times, but time step t has its own input kernel W_t, held on the Stiefel
  manifold (orthonormal columns or rows) by torch's orthogonal parametrisation, and training adds
  the global regulariser `temporal_overlap` that pushes the kernels of different time steps
  towards mutually orthogonal subspaces, so the input gradients W_t^T delta_t of different time
  steps point in different directions;
- stod_noreg: the same per-time-step orthogonal kernels without the regulariser (an ablation).
"""

from __future__ import annotations

import itertools
from typing import Any

import torch
import torch.nn.functional as F
from spikingjelly.activation_based import functional, layer, neuron, surrogate
from torch import nn

from repro.papers.stod.settings import SNN, Arch


def make_surrogate(snn: SNN) -> nn.Module:
    if snn.surrogate == "atan":
        return surrogate.ATan(alpha=snn.surrogate_alpha)
    if snn.surrogate == "sigmoid":
        return surrogate.Sigmoid(alpha=snn.surrogate_alpha)
    raise ValueError(f"unknown surrogate {snn.surrogate!r} (atan or sigmoid)")


def lif(snn: SNN) -> nn.Module:
    return neuron.LIFNode(tau=snn.tau, v_threshold=snn.v_threshold, detach_reset=snn.detach_reset,
                          surrogate_function=make_surrogate(snn), step_mode="m")


class TemporalOrthogonalConv(nn.Module):
    """The STOD input layer: T convolution kernels, one per time step, each an orthonormal
    (out, in*k*k) matrix (columns if out >= in*k*k, else rows)."""

    def __init__(self, cin: int, cout: int, k: int, T: int, orthogonal_map: str) -> None:
        super().__init__()
        from torch.nn.utils import parametrizations

        self.cin, self.cout, self.k = cin, cout, k
        self.kernels = nn.ModuleList()
        for _ in range(T):
            lin = nn.Linear(cin * k * k, cout, bias=False)
            nn.init.orthogonal_(lin.weight)
            parametrizations.orthogonal(lin, "weight", orthogonal_map=orthogonal_map)
            self.kernels.append(lin)

    def weights(self) -> list[torch.Tensor]:
        return [m.weight for m in self.kernels]

    def forward(self, seq: torch.Tensor) -> torch.Tensor:
        out = [F.conv2d(seq[t], w.view(self.cout, self.cin, self.k, self.k), padding=self.k // 2)
               for t, w in enumerate(self.weights())]
        return torch.stack(out)

    def temporal_overlap(self) -> torch.Tensor:
        """Mean over time-step pairs of ||A_i^T A_j||_F^2 / r, with A_t the kernel arranged to
        have orthonormal columns and r their number: 0 when the kernels of different time steps
        span mutually orthogonal subspaces, 1 when they span the same one."""
        ws = self.weights()
        a = [w if w.shape[0] >= w.shape[1] else w.T for w in ws]
        r = a[0].shape[1]
        pairs = list(itertools.combinations(range(len(a)), 2))
        return sum(((a[i].T @ a[j]) ** 2).sum() for i, j in pairs) / (r * len(pairs))


class SpikingNet(nn.Module):
    def __init__(self, method: str, in_shape: list[int], classes: int, arch: Arch, snn: SNN,
                 orthogonal_map: str = "householder") -> None:
        super().__init__()
        c, h, w = in_shape
        self.method, self.T = method, snn.T
        self.gen: torch.Generator | None = None  # rate encoding's draws (None: global RNG)
        first = arch.channels[0]
        if not isinstance(first, int):
            raise ValueError("arch.channels must start with the input layer's width")
        if method in ("stod", "stod_noreg"):
            self.input_layer = TemporalOrthogonalConv(c, first, 3, snn.T, orthogonal_map)
        elif method in ("direct", "rate"):
            self.input_layer = layer.Conv2d(c, first, 3, padding=1, bias=False, step_mode="m")
        else:
            raise ValueError(f"unknown method {method!r}")
        mods: list[nn.Module] = [layer.BatchNorm2d(first, step_mode="m"), lif(snn)]
        width = first
        for item in arch.channels[1:]:
            if item == "M":
                mods.append(layer.AvgPool2d(2, step_mode="m"))
                h, w = h // 2, w // 2
            else:
                mods += [layer.Conv2d(width, int(item), 3, padding=1, bias=False, step_mode="m"),
                         layer.BatchNorm2d(int(item), step_mode="m"), lif(snn)]
                width = int(item)
        mods.append(layer.Flatten(step_mode="m"))
        feat = width * h * w
        for hid in arch.hidden:
            mods += [layer.Linear(feat, hid, step_mode="m"), lif(snn)]
            feat = hid
        mods.append(layer.Linear(feat, classes, step_mode="m"))
        self.body = nn.Sequential(*mods)

    def train(self, mode: bool = True) -> SpikingNet:
        """Batch norm follows `mode`; the LIF neurons always take spikingjelly's training path:
        its eval path fires through a Heaviside with no surrogate, so an attack (or GTC) on an
        eval-mode network would get no gradient. Both paths compute the same spikes."""
        super().train(mode)
        for m in self.modules():
            if isinstance(m, neuron.BaseNode):
                m.training = True
        return self

    def encode(self, x: torch.Tensor) -> torch.Tensor:
        seq = x.unsqueeze(0).expand(self.T, *x.shape)
        if self.method == "rate":
            draw = torch.rand(seq.shape, generator=self.gen, device=x.device) < seq
            return seq + (draw.to(seq.dtype) - seq).detach()  # straight-through
        return seq + 0  # a tensor of its own (T copies), whose gradient is per time step

    def forward_seq(self, seq: torch.Tensor) -> torch.Tensor:
        functional.reset_net(self)
        return self.body(self.input_layer(seq)).mean(0)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.forward_seq(self.encode(x))

    def regulariser(self) -> torch.Tensor | None:
        if self.method == "stod":
            return self.input_layer.temporal_overlap()
        return None

    def weight_layers(self) -> list[tuple[str, nn.Module]]:
        """The layers whose inputs GTC is measured at: the input layer, then every convolution
        and linear layer of the body, in order."""
        named = [("1 input", self.input_layer)]
        for m in self.body:
            if isinstance(m, (nn.Conv2d, nn.Linear)):
                kind = "conv" if isinstance(m, nn.Conv2d) else "fc"
                named.append((f"{len(named) + 1} {kind}", m))
        return named


def build(method: str, info: dict[str, Any], arch: Arch, snn: SNN, orthogonal_map: str
          ) -> SpikingNet:
    return SpikingNet(method, info["shape"], info["classes"], arch, snn, orthogonal_map)
