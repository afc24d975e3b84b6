"""The denoiser: a DiT-style bidirectional transformer over tokens, conditioned on the time t
and, for FS-DFM's student, on the step size dt (as the paper's code builds it, at our sizes).

- token embedding (V, plus one MASK row with a mask source) -> `layers` blocks -> adaLN final
  layer -> logits of the posterior p(x_1 | x_t) at every position;
- a block: bias-free LayerNorm with adaLN shift/scale/gate from the condition, full
  (non-causal) multi-head attention with rotary positions, a 4x GELU(tanh) MLP, gated residuals;
  the adaLN projections and the output head start at zero (the model starts at uniform logits);
- the condition: a sinusoidal embedding of raw t in [0, 1] through an MLP; without dt it enters
  the blocks as SiLU(emb_t). With dt (the student), a second embedder of raw dt, the two fused
  by SiLU(Linear([emb_t, emb_dt])), and each block (and the final layer) maps the fused
  condition to its own by SiLU(Linear(.)) before its adaLN projection. A student is built from a
  trained DFM by loading its weights; the dt modules start at random, as in the paper's code
  (`dt_fusion: fuser`). `dt_fusion: additive` (ours, for short finetuning budgets) adds the dt
  embedding to the t embedding instead, its last layer zero-initialised: the student starts as
  exactly the DFM it is built from.
"""

from __future__ import annotations

import math

import torch
import torch.nn.functional as F
from torch import nn

FREQ_DIM = 256


def timestep_embedding(t: torch.Tensor, dim: int = FREQ_DIM, max_period: float = 10000.0
                       ) -> torch.Tensor:
    """Sinusoidal features of a scalar per sequence (raw t or dt in [0, 1], unscaled)."""
    half = dim // 2
    freqs = torch.exp(-math.log(max_period) * torch.arange(half, dtype=torch.float32,
                                                           device=t.device) / half)
    args = t.float()[:, None] * freqs[None]
    return torch.cat([torch.cos(args), torch.sin(args)], dim=-1)


class Embedder(nn.Module):
    def __init__(self, cond: int, zero_out: bool = False) -> None:
        super().__init__()
        self.mlp = nn.Sequential(nn.Linear(FREQ_DIM, cond), nn.SiLU(), nn.Linear(cond, cond))
        if zero_out:
            nn.init.zeros_(self.mlp[2].weight)
            nn.init.zeros_(self.mlp[2].bias)

    def forward(self, t: torch.Tensor) -> torch.Tensor:
        return self.mlp(timestep_embedding(t))


class LayerNorm(nn.Module):
    """LayerNorm with a weight and no bias (the paper's blocks)."""

    def __init__(self, dim: int) -> None:
        super().__init__()
        self.weight = nn.Parameter(torch.ones(dim))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return F.layer_norm(x.float(), (x.shape[-1],), self.weight, None, 1e-5).to(x.dtype)


def rotary(x: torch.Tensor) -> torch.Tensor:
    """Rotary positions (base 10000, half rotation) on (B, H, L, d_head)."""
    L, d = x.shape[-2], x.shape[-1]
    half = d // 2
    inv = 1.0 / (10000 ** (torch.arange(half, dtype=torch.float32, device=x.device) / half))
    ang = torch.arange(L, dtype=torch.float32, device=x.device)[:, None] * inv[None]
    cos, sin = ang.cos().to(x.dtype), ang.sin().to(x.dtype)
    x1, x2 = x[..., :half], x[..., half:]
    return torch.cat([x1 * cos - x2 * sin, x1 * sin + x2 * cos], dim=-1)


def modulate(x: torch.Tensor, shift: torch.Tensor, scale: torch.Tensor) -> torch.Tensor:
    return x * (1 + scale[:, None]) + shift[:, None]


class Block(nn.Module):
    def __init__(self, dim: int, heads: int, cond: int, dropout: float, fuse: bool) -> None:
        super().__init__()
        self.heads = heads
        self.norm1, self.norm2 = LayerNorm(dim), LayerNorm(dim)
        self.q, self.k, self.v = (nn.Linear(dim, dim, bias=False) for _ in range(3))
        self.proj = nn.Linear(dim, dim, bias=False)
        self.mlp = nn.Sequential(nn.Linear(dim, 4 * dim), nn.GELU(approximate="tanh"),
                                 nn.Linear(4 * dim, dim))
        self.drop = nn.Dropout(dropout)
        self.fuser = (nn.Sequential(nn.Linear(2 * cond, cond), nn.SiLU()) if fuse else None)
        self.ada = nn.Linear(cond, 6 * dim)
        nn.init.zeros_(self.ada.weight)
        nn.init.zeros_(self.ada.bias)

    def forward(self, x: torch.Tensor, c: torch.Tensor) -> torch.Tensor:
        if self.fuser is not None:
            c = self.fuser(c)
        sh1, sc1, g1, sh2, sc2, g2 = self.ada(c).chunk(6, dim=-1)
        B, L, D = x.shape
        h = modulate(self.norm1(x), sh1, sc1)
        q, k, v = (m(h).view(B, L, self.heads, D // self.heads).transpose(1, 2)
                   for m in (self.q, self.k, self.v))
        a = F.scaled_dot_product_attention(rotary(q), rotary(k), v)
        x = x + g1[:, None] * self.drop(self.proj(a.transpose(1, 2).reshape(B, L, D)))
        h = modulate(self.norm2(x), sh2, sc2)
        return x + g2[:, None] * self.drop(self.mlp(h))


class FinalLayer(nn.Module):
    def __init__(self, dim: int, cond: int, out: int, fuse: bool) -> None:
        super().__init__()
        self.norm = LayerNorm(dim)
        self.fuser = (nn.Sequential(nn.Linear(2 * cond, cond), nn.SiLU()) if fuse else None)
        self.ada = nn.Linear(cond, 2 * dim)
        self.head = nn.Linear(dim, out)
        for m in (self.ada, self.head):
            nn.init.zeros_(m.weight)
            nn.init.zeros_(m.bias)

    def forward(self, x: torch.Tensor, c: torch.Tensor) -> torch.Tensor:
        if self.fuser is not None:
            c = self.fuser(c)
        shift, scale = self.ada(c).chunk(2, dim=-1)
        return self.head(modulate(self.norm(x), shift, scale))


class Denoiser(nn.Module):
    """logits of p(x_1 | x_t) (B, L, V); `dt_conditioned` for the FS-DFM student."""

    def __init__(self, vocab: int, hidden: int, cond: int, layers: int, heads: int,
                 dropout: float = 0.0, mask_token: bool = False,
                 dt_conditioned: bool = False, dt_fusion: str = "fuser") -> None:
        super().__init__()
        if dt_fusion not in ("fuser", "additive"):
            raise ValueError(f"dt_fusion {dt_fusion!r}: allowed are fuser, additive")
        self.vocab, self.dt_conditioned = vocab, dt_conditioned
        self.additive = dt_conditioned and dt_fusion == "additive"
        fused = dt_conditioned and not self.additive
        n_in = vocab + int(mask_token)
        self.embed = nn.Embedding(n_in, hidden)
        self.t_embed = Embedder(cond)
        if dt_conditioned:
            self.dt_embed = Embedder(cond, zero_out=self.additive)
        if fused:
            self.fuse = nn.Sequential(nn.Linear(2 * cond, 2 * cond), nn.SiLU())
        self.blocks = nn.ModuleList(Block(hidden, heads, cond, dropout, fused)
                                    for _ in range(layers))
        self.final = FinalLayer(hidden, cond, n_in, fused)

    def forward(self, x: torch.Tensor, t: torch.Tensor, dt: torch.Tensor | None = None
                ) -> torch.Tensor:
        t = torch.as_tensor(t, device=x.device).expand(x.shape[0])
        if self.dt_conditioned:
            if dt is None:
                raise ValueError("the FS-DFM student needs the step size dt")
            dt = torch.as_tensor(dt, device=x.device).expand(x.shape[0])
            if self.additive:
                c = F.silu(self.t_embed(t) + self.dt_embed(dt))
            else:
                c = self.fuse(torch.cat([self.t_embed(t), self.dt_embed(dt)], dim=-1))
        else:
            c = F.silu(self.t_embed(t))
        h = self.embed(x)
        for block in self.blocks:
            h = block(h, c)
        return self.final(h, c)


def build(cfg_model, vocab: int, mask_token: bool, dt_conditioned: bool) -> Denoiser:
    """The denoiser of the given settings (`settings.Model`)."""
    return Denoiser(vocab, cfg_model.hidden, cfg_model.cond, cfg_model.layers, cfg_model.heads,
                    cfg_model.dropout, mask_token=mask_token, dt_conditioned=dt_conditioned,
                    dt_fusion=cfg_model.dt_fusion)


def student_from(dfm: Denoiser, cfg_model, mask_token: bool) -> Denoiser:
    """The FS-DFM student: the DFM's weights, plus dt modules at their random initialisation
    (the paper's code loads the DFM checkpoint non-strictly into a dt-conditioned model)."""
    student = build(cfg_model, dfm.vocab, mask_token, dt_conditioned=True)
    missing, unexpected = student.load_state_dict(dfm.state_dict(), strict=False)
    if unexpected:
        raise ValueError(f"DFM weights the student does not have: {unexpected}")
    if any(not ("dt_embed" in k or "fuse" in k) for k in missing):
        raise ValueError(f"student weights the DFM lacks: {missing}")
    return student
