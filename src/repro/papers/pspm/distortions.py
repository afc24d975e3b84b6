"""The two banks of fundamental distortions PS and PM measure against (NOTES.md section 1),
generated from each loudness-normalised reference and normalised again, as the official code
does: the level is normalised away, only the change of content remains.

- PS bank (71 per reference): whole-signal distortions, the same list for every signal (notch,
  comb, tremolo, coloured noise, added tones, reverb, noise gate, pitch shift, low/high-pass,
  echo, clipping, "vibrato" by time stretch).
- PM bank (up to 79 per reference): 20 ms frame-wise distortions whose parameters adapt to the
  reference (notches at its strongest peaks, cut-offs at its power quantiles, thresholds
  relative to each frame's level); reverb and echo are longer than a frame, so none.

Noise draws come from the generator passed in, in generation order, so a bank is a function
of (reference, seed).
"""

from __future__ import annotations

import math
import warnings

import numpy as np
from scipy.signal import butter, filtfilt, sosfiltfilt

RATE = 16000
FRAME = 320  # 20 ms at 16 kHz: the paper's frame and the official code's hop
LUFS = -23.0
MIN_SECONDS = 0.4  # BS.1770 needs a 400 ms gating block

NOISE_SNRS = tuple(range(-15, 30, 5))
NOISE_SKIP = {("white", -15), ("white", -10), ("white", -5)}
COMB = ((2.5, 0.4), (5.0, 0.5), (7.5, 0.6), (10.0, 0.7), (12.5, 0.9))  # (ms, gain)
TONES = (100.0, 500.0, 1000.0, 4000.0)
PITCH = (-4, -2, 2, 4)


def normalise(x: np.ndarray, rate: int = RATE) -> np.ndarray:
    """To -23 LUFS (ITU-R BS.1770, pyloudnorm), divided by the peak where that exceeds 1, then
    clipped; silence-gated signals fall back to an RMS of 10^(-23/20)."""
    import pyloudnorm

    x = np.asarray(x, dtype=np.float64)
    if len(x) < MIN_SECONDS * rate:
        raise ValueError(f"a signal of {len(x) / rate:.3f} s is shorter than the 0.4 s that "
                         "loudness normalisation (BS.1770) needs")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        loud = pyloudnorm.Meter(rate).integrated_loudness(x)
    if np.isfinite(loud):
        y = x * 10 ** ((LUFS - loud) / 20)
    else:
        rms = math.sqrt(float(np.mean(x ** 2)))
        y = x * (10 ** (LUFS / 20) / rms) if rms > 0 else x
    peak = float(np.abs(y).max())
    if peak > 1:
        y = y / peak
    return np.clip(y, -1.0, 1.0)


def _noise(kind: str, n: int, rng: np.random.Generator) -> np.ndarray:
    w = rng.standard_normal(n)
    if kind == "white":
        return w
    w = np.cumsum(w) if kind == "pink" else np.cumsum(np.cumsum(w))
    return w / (np.abs(w).max() + 1e-12)  # peak-normalised, as the official code does


def _add_noise(x, kind, snr, rng):
    n = _noise(kind, len(x), rng)
    scale = math.sqrt(float(np.mean(x ** 2))) / math.sqrt(10 ** (snr / 10))
    return x + scale * n if kind != "white" else x + scale * n / (n.std() + 1e-12)


def _notch_fft(x, centres, width, rate):
    spec = np.fft.rfft(x)
    f = np.fft.rfftfreq(len(x), 1 / rate)
    for c in centres:
        spec[np.abs(f - c) <= width] = 0
    return np.fft.irfft(spec, len(x))


def _comb(x, ms, gain, rate):
    d = int(round(ms * rate / 1000))
    y = x.copy()
    if 0 < d < len(x):
        y[:-d] += gain * x[d:]  # the official comb adds the future sample
    return y


def _pitch(x, steps, rate, n_fft):
    import librosa

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return librosa.effects.pitch_shift(x, sr=rate, n_steps=steps, n_fft=n_fft,
                                           hop_length=max(n_fft // 4, 1))


def _stretch(x, factor, n_fft):
    import librosa

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        y = librosa.effects.time_stretch(x, rate=factor, n_fft=n_fft,
                                         hop_length=max(n_fft // 4, 1))
    return librosa.util.fix_length(y, size=len(x))


def _butter(x, cut, kind, order, rate):
    b, a = butter(order, cut / (rate / 2), btype=kind)
    return filtfilt(b, a, x, padlen=min(3 * max(len(a), len(b)), len(x) - 1))


def ps_bank(ref: np.ndarray, rng: np.random.Generator, rate: int = RATE
            ) -> tuple[np.ndarray, list[str]]:
    """(71, N) whole-signal distortions of a normalised reference, each normalised, and names."""
    x = np.asarray(ref, dtype=np.float64)
    n = len(x)
    t = np.arange(n) / rate
    out: list[tuple[str, np.ndarray]] = []
    for c in (500, 1000, 2000, 4000, 8000):
        out.append((f"notch{c}", _notch_fft(x, [c], 50.0, rate)))
    for ms, g in COMB:
        out.append((f"comb{ms}", _comb(x, ms, g, rate)))
    for r, d in ((1, 0.3), (2, 0.5), (4, 0.8), (6, 1.0)):
        out.append((f"tremolo{r}", x * ((1 - d) + d * 0.5 * (1 + np.sin(2 * np.pi * r * t)))))
    for kind in ("white", "pink", "brown"):
        for snr in NOISE_SNRS:
            if (kind, snr) not in NOISE_SKIP:
                out.append((f"{kind}{snr}", _add_noise(x, kind, snr, rng)))
    for f, a in zip(TONES, (0.02, 0.03, 0.05, 0.08), strict=True):
        out.append((f"tone{int(f)}", x + a * np.sin(2 * np.pi * f * t)))
    for ms, decay in ((5, 0.3), (10, 0.5), (15, 0.7), (20, 0.9)):
        ir = decay * np.exp(-np.linspace(0, 3, int(ms * rate / 1000)))
        out.append((f"reverb{ms}", np.convolve(x, ir)[:n]))
    for thr in (0.005, 0.01, 0.02, 0.04):
        out.append((f"gate{thr}", np.where(np.abs(x) < thr, 0.0, x)))
    n_fft = int(min(2048, n // 2))
    for s in PITCH:
        out.append((f"pitch{s:+d}", _pitch(x, s, rate, n_fft)))
    for c in (2000, 3000, 4000, 6000):
        out.append((f"lowpass{c}", _butter(x, c, "low", 4, rate)))
    for c in (100, 300, 500, 800):
        out.append((f"highpass{c}", _butter(x, c, "high", 4, rate)))
    for ms, a in ((5, 0.3), (10, 0.5), (15, 0.7)):
        d = int(ms * rate / 1000)
        y = x.copy()
        y[d:] += a * x[:-d]
        out.append((f"echo{ms}", y))
    for c in (0.3, 0.5, 0.7):
        out.append((f"clip{c}", np.clip(x, -c, c)))
    for rate_hz, depth in ((3, 0.001), (5, 0.002), (7, 0.003)):
        factor = 1 + float(np.mean(depth * np.sin(2 * np.pi * rate_hz * t)))
        out.append((f"vibrato{rate_hz}", _stretch(x, factor, n_fft)))
    names = [k for k, _ in out]
    return np.stack([normalise(v, rate) for _, v in out]).astype(np.float32), names


def adaptive(ref: np.ndarray, rate: int = RATE) -> dict[str, list[float]]:
    """The PM bank's reference-adaptive parameters: up to 20 notch centres at the strongest
    spectral peaks (80 Hz-7.2 kHz, 300 Hz apart), low-pass cut-offs at 50/70/85/95% of the
    cumulative power, high-pass at 5/15/30/50% counted from the top (100 Hz steps)."""
    spec = np.abs(np.fft.rfft(ref))
    f = np.fft.rfftfreq(len(ref), 1 / rate)
    band = np.flatnonzero((f >= 80) & (f <= 7200))
    top = band[np.argsort(spec[band])[::-1][:60]]
    centres: list[float] = []
    for i in top:
        if all(abs(f[i] - c) > 300 for c in centres):
            centres.append(float(f[i]))
        if len(centres) == 20:
            break
    power = spec ** 2
    cum = np.cumsum(power) / max(power.sum(), 1e-20)
    rcum = np.cumsum(power[::-1])[::-1] / max(power.sum(), 1e-20)

    def cut(idx):
        v = round(float(f[min(idx, len(f) - 1)]) / 100) * 100
        return v if 20 < v < rate / 2 else None

    low = [cut(int(np.searchsorted(cum, q))) for q in (0.5, 0.7, 0.85, 0.95)]
    high = [cut(int(np.flatnonzero(rcum >= q)[-1])) if (rcum >= q).any() else None
            for q in (0.05, 0.15, 0.3, 0.5)]
    return {"notch": centres, "lowpass": sorted({c for c in low if c}),
            "highpass": sorted({c for c in high if c})}


def _bandpassed_noise(kind, n, rng, rate):
    w = _noise(kind, n, rng)
    sos = butter(5, [20, 7200], btype="bandpass", fs=rate, output="sos")
    w = sosfiltfilt(sos, w, padlen=min(n - 1, 30))
    return w / (math.sqrt(float(np.mean(w ** 2))) + 1e-12)


def pm_bank(ref: np.ndarray, rng: np.random.Generator, rate: int = RATE
            ) -> tuple[np.ndarray, list[str]]:
    """(<= 79, N) frame-wise distortions of a normalised reference (each 20 ms frame distorted
    alone and the frames concatenated, no overlap), each normalised, and their names."""
    x = np.asarray(ref, dtype=np.float64)
    n = len(x)
    pad = (-n) % FRAME
    xp = np.concatenate([x, np.zeros(pad)])
    frames = xp.reshape(-1, FRAME)
    nf = len(frames)
    par = adaptive(xp, rate)
    peak = np.maximum(np.abs(frames).max(1), 1e-4)
    rms = np.maximum(np.sqrt((frames ** 2).mean(1)), 1e-4)
    p95 = np.maximum(np.percentile(np.abs(frames), 95, axis=1), 1e-4)
    t = np.arange(FRAME) / rate
    centre_t = (np.arange(nf) + 0.5) * FRAME / rate
    specs: list[tuple[str, object]] = []
    for c in par["notch"]:
        specs.append((f"notch{int(c)}", lambda fr, k, c=c: _notch_fft(fr, [c], 60.0, rate)))
    for ms, g in COMB:
        specs.append((f"comb{ms}", lambda fr, k, ms=ms, g=g: _comb(fr, ms, g, rate)))
    for r in (1, 2, 4, 6):
        specs.append((f"tremolo{r}", lambda fr, k, r=r: fr * 0.5 * (
            1 + np.sin(2 * np.pi * r * centre_t[k]))))
    for kind in ("white", "pink", "brown"):
        for snr in NOISE_SNRS:
            if (kind, snr) in NOISE_SKIP:
                continue
            level = 10 ** (-min(snr, 15) / 20)  # floored at the 15 dB level
            specs.append((f"{kind}{snr}", lambda fr, k, kind=kind, level=level: fr + level * rms[k]
                          * _bandpassed_noise(kind, FRAME, rng, rate)))
    for f, a in zip(TONES, (0.4, 0.6, 0.8, 1.0), strict=True):
        specs.append((f"tone{int(f)}", lambda fr, k, f=f, a=a: fr + a * rms[k]
                      * np.sin(2 * np.pi * f * t)))
    for q in (0.05, 0.1, 0.2, 0.4):
        specs.append((f"gate{q}", lambda fr, k, q=q: np.where(np.abs(fr) < q * p95[k], 0.0, fr)))
    for s in PITCH:
        specs.append((f"pitch{s:+d}", lambda fr, k, s=s: _pitch(fr, s, rate, 160)))
    for c in par["lowpass"]:
        specs.append((f"lowpass{c}", lambda fr, k, c=c: _butter(fr, c, "low", 6, rate)))
    for c in par["highpass"]:
        specs.append((f"highpass{c}", lambda fr, k, c=c: _butter(fr, c, "high", 6, rate)))
    for q in (0.7, 0.5, 0.3):
        specs.append((f"clip{q}", lambda fr, k, q=q: np.clip(fr, -q * p95[k], q * p95[k])))
    for m in (1.0, 1.3, 1.6):
        specs.append((f"vibrato{m}", lambda fr, k, m=m: _stretch(
            fr, 1 + float(np.clip(0.03 * rms[k] / peak[k] * m, 0.01, 0.05)), 160)))
    out, names = [], []
    for name, fn in specs:
        y = np.concatenate([np.asarray(fn(frames[k], k), dtype=np.float64)[:FRAME]
                            for k in range(nf)])[:n]
        out.append(normalise(y, rate))
        names.append(name)
    return np.stack(out).astype(np.float32), names
