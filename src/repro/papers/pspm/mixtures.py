"""Offline stand-ins for the paper's listening-test data, and the controlled degradations.

Sources: English and Spanish sentences spoken by espeak-ng voice variants (two talkers per
mixture, never the same variant or sentence twice in one mixture), and three-stem music from
additive synthesis (a bass line, a lead with vibrato, drums), the SASSEC speech / music split.

Degraded "separated outputs" move along two axes with known levels:
- leakage: the other sources added to the target at an interference-to-target energy ratio
  (ITR, dB; -inf = none);
- distortion: the target's STFT bins dropped at random with probability p ("musical noise", the
  artefact of spectral-masking separators; not an operator of either distortion bank, so no
  output coincides with a bank member).
"""

from __future__ import annotations

import math

import numpy as np
from scipy.signal import istft, stft

from repro.papers.pspm.distortions import RATE


def _fit(x: np.ndarray, n: int) -> np.ndarray:
    """Leading silence trimmed, then cropped or zero-padded to n samples."""
    idx = np.flatnonzero(np.abs(x) > 0.01 * np.abs(x).max())
    x = x[idx[0]:] if len(idx) else x
    return np.pad(x, (0, max(0, n - len(x))))[:n].astype(np.float64)


def speech_sources(texts: list[str], language: str, voices: list[str], n_sources: int,
                   seconds: float, rng: np.random.Generator) -> tuple[np.ndarray, list[str]]:
    """(S, N) espeak-ng utterances for one mixture, and 'voice: text' labels."""
    from repro.core.speech import Prosody, synthesize

    n = int(seconds * RATE)
    vi = rng.choice(len(voices), n_sources, replace=False)
    ti = rng.choice(len(texts), n_sources, replace=False)
    out, labels = [], []
    for v, t in zip(vi, ti, strict=True):
        voice = f"{language}+{voices[v]}"
        x = synthesize(texts[t], voice=voice, prosody=Prosody(rate=int(rng.integers(150, 190))),
                       sample_rate=RATE)
        out.append(_fit(x, n))
        labels.append(f"{voice}: {texts[t]}")
    return np.stack(out), labels


def _note(f0: float, n: int, harmonics: int, decay: float, rng, vibrato: float = 0.0):
    t = np.arange(n) / RATE
    f = f0 * (1 + vibrato * np.sin(2 * np.pi * rng.uniform(4.5, 6.5) * t))
    phase = 2 * np.pi * np.cumsum(f) / RATE
    x = sum(np.sin(k * phase) / k ** decay for k in range(1, harmonics + 1))
    env = np.minimum(1.0, t / 0.01) * np.exp(-t * rng.uniform(1.0, 3.0))
    return x * env


def music_sources(seconds: float, rng: np.random.Generator) -> tuple[np.ndarray, list[str]]:
    """(3, N) bass, lead and drums in one random key and tempo."""
    n = int(seconds * RATE)
    root = 55.0 * 2 ** (rng.integers(0, 12) / 12)
    scale = np.array([0, 2, 4, 5, 7, 9, 11])
    beat = int(RATE * 60 / rng.uniform(90, 140))
    bass, lead, drums = np.zeros(n), np.zeros(n), np.zeros(n)
    for start in range(0, n, beat):
        m = min(beat, n - start)
        deg = scale[rng.integers(0, 7)]
        bass[start:start + m] += _note(root * 2 ** (deg / 12), m, 12, 1.0, rng)
        for half in (0, beat // 2):
            s0 = start + half
            if s0 >= n:
                continue
            k = min(beat // 2, n - s0)
            deg = scale[rng.integers(0, 7)] + 12 * int(rng.integers(2, 4))
            lead[s0:s0 + k] += _note(root * 2 ** (deg / 12), k, 5, 1.6, rng, vibrato=0.006)
            hat = rng.standard_normal(k) * np.exp(-np.arange(k) / (0.01 * RATE))
            drums[s0:s0 + k] += 0.3 * np.diff(hat, prepend=0.0)  # a bright noise burst
        t = np.arange(m) / RATE
        kick = np.sin(2 * np.pi * (50 + 100 * np.exp(-t * 30)) * t) * np.exp(-t * 12)
        drums[start:start + m] += kick
    stems = np.stack([bass, lead, drums])
    return stems / np.abs(stems).max(1, keepdims=True), ["bass", "lead", "drums"]


def drop_bins(x: np.ndarray, p: float, rng: np.random.Generator) -> np.ndarray:
    """Each STFT bin (512-point, 75% overlap) zeroed with probability p."""
    if p <= 0:
        return np.asarray(x, dtype=np.float64).copy()
    _, _, z = stft(x, fs=RATE, nperseg=512, noverlap=384)
    z = z * (rng.random(z.shape) >= p)
    _, y = istft(z, fs=RATE, nperseg=512, noverlap=384)
    return np.pad(y, (0, max(0, len(x) - len(y))))[: len(x)]


def degrade(refs: np.ndarray, itr_db: float | None, p: float, rng: np.random.Generator
            ) -> np.ndarray:
    """(S, N) outputs: each source's distorted reference plus the others at `itr_db` (None: no
    leakage)."""
    refs = np.asarray(refs, dtype=np.float64)
    outs = []
    for i in range(len(refs)):
        target = drop_bins(refs[i], p, rng)
        if itr_db is not None:
            other = refs[np.arange(len(refs)) != i].sum(0)
            pt, po = float(np.mean(refs[i] ** 2)), float(np.mean(other ** 2))
            target = target + math.sqrt(pt / max(po, 1e-20) * 10 ** (itr_db / 10)) * other
        outs.append(target)
    return np.stack(outs)
