"""PS and PM of one separation system's outputs on one mixture, frame by frame (NOTES.md
sections 2-4, the official engine's order of work).

A source is active in a 20 ms frame when the frame's RMS exceeds 0.1 x its reference's global
RMS; only frames with at least two active sources are scored (PS needs a foreign cluster),
the rest are NaN and never averaged as zeros. In each scored frame, one diffusion map per
measure embeds every active source's reference, output and its bank's distortions together
(the PS bank for PS, the PM bank for PM); PS, PM, their deterministic radius and their
high-probability half-width follow per source. An utterance's score is the mean over its
scored frames (the official PM pooling; the paper's PS pooling, its appendix B.4, was not
reachable, so PS is pooled the same way).

The references' and distortions' encodings depend on the mixture only: `Mixture` holds them,
and every system on that mixture reuses them.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from repro.papers.pspm.bounds import pm_bounds, ps_bounds
from repro.papers.pspm.distortions import FRAME, normalise
from repro.papers.pspm.measures import diffusion_map, pm, ps

ACTIVE = 0.1  # a frame is active above this share of the reference's global RMS


def activity(refs: np.ndarray) -> np.ndarray:
    """(S, M) bool: source s is active in 20 ms frame m."""
    refs = np.asarray(refs, dtype=np.float64)
    m = refs.shape[1] // FRAME
    frames = refs[:, : m * FRAME].reshape(len(refs), m, FRAME)
    rms = np.sqrt((frames ** 2).mean(-1))
    glob = np.sqrt((refs ** 2).mean(-1, keepdims=True))
    return rms > ACTIVE * glob


def resize(mask: np.ndarray, t: int) -> np.ndarray:
    """Nearest-neighbour resize of (S, M) along the frame axis to (S, t) (torch's 'nearest':
    target frame i reads source frame floor(i * M / t))."""
    m = mask.shape[1]
    return mask[:, np.minimum((np.arange(t) * m) // t, m - 1)]


@dataclass
class Mixture:
    """Encodings of the normalised references and both banks, (S, T, D) / (S, P, T, D)."""

    ref: np.ndarray
    ps_bank: np.ndarray
    pm_bank: np.ndarray
    active: np.ndarray  # (S, T) bool

    @classmethod
    def encode(cls, refs: np.ndarray, ps_banks: list[np.ndarray], pm_banks: list[np.ndarray],
               enc: Callable[[np.ndarray], np.ndarray]) -> Mixture:
        ref = np.stack([enc(r) for r in refs])
        n_pm = min(len(b) for b in pm_banks)  # equal cluster sizes across sources
        ps_e = np.stack([np.stack([enc(d) for d in b]) for b in ps_banks])
        pm_e = np.stack([np.stack([enc(d) for d in b[:n_pm]]) for b in pm_banks])
        return cls(ref, ps_e, pm_e, resize(activity(refs), ref.shape[1]))


def _frame_points(mix: Mixture, bank: np.ndarray, out: np.ndarray, f: int, active: list[int]):
    pts, source, role = [], [], []
    for s in active:
        pts += [mix.ref[s, f], out[s, f], *bank[s, :, f]]
        source += [s] * (2 + bank.shape[1])
        role += ["ref", "out"] + ["dist"] * bank.shape[1]
    return np.stack(pts), np.array(source), np.array(role)


def score(mix: Mixture, outputs_encoded: np.ndarray, alpha: float = 1.0, cutoff: float = 0.99,
          delta: float = 0.05) -> dict[str, np.ndarray]:
    """Per frame and source (S, T): ps, pm, ps_radius, ps_half, pm_radius, pm_half, dims
    (the retained diffusion coordinates of the PS / PM maps); NaN where not scored."""
    s_n, t_n = mix.active.shape
    keys = ("ps", "pm", "ps_radius", "ps_half", "pm_radius", "pm_half", "ps_dims", "pm_dims")
    res = {k: np.full((s_n, t_n), np.nan) for k in keys}
    for f in range(t_n):
        act = [s for s in range(s_n) if mix.active[s, f]]
        if len(act) < 2:
            continue
        for name, bank, measure, bound in (("ps", mix.ps_bank, ps, ps_bounds),
                                           ("pm", mix.pm_bank, pm, pm_bounds)):
            x, source, role = _frame_points(mix, bank, outputs_encoded, f, act)
            dm = diffusion_map(x, alpha=alpha, cutoff=cutoff)
            values = measure(dm.coords, source, role)
            errs = bound(dm.coords, dm.rest, source, role, delta=delta)
            for s in act:
                res[name][s, f] = values[s]
                res[f"{name}_radius"][s, f], res[f"{name}_half"][s, f] = errs[s]
                res[f"{name}_dims"][s, f] = dm.coords.shape[1]
    return res


def utterance(frames: dict[str, np.ndarray]) -> dict[str, list[float | None]]:
    """Per source: the mean of each per-frame quantity over the source's scored frames."""
    out: dict[str, list[float | None]] = {}
    for k, v in frames.items():
        out[k] = [float(np.nanmean(row)) if np.isfinite(row).any() else None for row in v]
    out["frames"] = [int(np.isfinite(row).sum()) for row in frames["ps"]]
    return out


def encode_outputs(outputs: np.ndarray, enc: Callable[[np.ndarray], np.ndarray]) -> np.ndarray:
    return np.stack([enc(normalise(o)) for o in outputs])
