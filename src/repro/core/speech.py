"""Speech synthesis for the papers that need speech (lfst, pspm): espeak-ng, the Debian package
(`apt-get install espeak-ng`, which scripts/setup.sh does), driven through its command line, so
no model is downloaded. espeak-ng is a formant synthesiser: the same text, voice and prosody give
the same samples, which keeps synthesised corpora deterministic.

- Voices: a language voice plus one of espeak-ng's variants (`en+m3`, `en-us+f2`, ...): each
  variant sets its own base pitch and range, formants, breathiness and roughness, so variants
  serve as pseudo-speakers (`variants()` lists what the installed data has).
- Prosody: base pitch (`-p`, 0-99), speed (`-s`, words per minute), amplitude (`-a`, 0-200)
  and the gap between words (`-g`, 10 ms units) on the command line; the pitch range through
  SSML `<prosody range="N%">` (Debian 12's espeak-ng 1.51 has no `-P`, which came in 1.52).
- Output: espeak-ng writes 16-bit mono WAV at 22,050 Hz to a file (`-w`; the header it writes to
  stdout is never patched); `synthesize` resamples it to the rate asked for (polyphase, scipy).
- Channels: `telephone` band-limits to 300-3,400 Hz, resamples through 8 kHz and applies G.711
  mu-law companding; `add_noise` adds white or pink noise at a given SNR.
"""

from __future__ import annotations

import math
import shutil
import subprocess
import tempfile
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from xml.sax.saxutils import escape

import numpy as np

ESPEAK_RATE = 22050
INSTALL = "apt-get install espeak-ng (bash scripts/setup.sh does it, as root or with sudo)"


class SpeechError(RuntimeError):
    """espeak-ng is missing or refused the input; the message says what to do."""


def espeak() -> str:
    path = shutil.which("espeak-ng")
    if path is None:
        raise SpeechError(f"espeak-ng is not installed: {INSTALL}")
    return path


@lru_cache(maxsize=1)
def version() -> str:
    """e.g. '1.51' (recorded with a corpus: another version may synthesise other samples)."""
    out = subprocess.run([espeak(), "--version"], capture_output=True, text=True, check=True)
    words = out.stdout.split()
    i = words.index("text-to-speech:") if "text-to-speech:" in words else -1
    return words[i + 1] if i >= 0 and i + 1 < len(words) else out.stdout.strip()


@lru_cache(maxsize=1)
def variants() -> tuple[str, ...]:
    """The voice variants the installed espeak-ng data has (m1, f2, klatt, ...), sorted."""
    out = subprocess.run([espeak(), "--voices=variant"], capture_output=True, text=True,
                         check=True).stdout
    names = set()
    for line in out.splitlines()[1:]:
        cols = line.split()
        if len(cols) >= 5 and cols[4].startswith("!v/"):
            names.add(cols[4][3:])
    return tuple(sorted(names))


@dataclass(frozen=True)
class Prosody:
    pitch: int = 50  # base pitch, espeak-ng's 0-99 scale (-p)
    range: int = 100  # pitch range, % of the voice's own (SSML prosody range)
    rate: int = 175  # words per minute (-s; espeak-ng accepts 80-450)
    volume: int = 100  # amplitude, 0-200 (-a)
    gap: int = 0  # extra pause between words, in 10 ms units (-g)

    def check(self) -> None:
        bad = [f"{k}={v} (expected {lo}-{hi})" for k, v, lo, hi in (
            ("pitch", self.pitch, 0, 99), ("range", self.range, 0, 400),
            ("rate", self.rate, 80, 450), ("volume", self.volume, 0, 200),
            ("gap", self.gap, 0, 1000)) if not lo <= v <= hi]
        if bad:
            raise ValueError("prosody out of espeak-ng's range: " + ", ".join(bad))


def ssml(text: str, prosody: Prosody) -> str:
    return f'<speak><prosody range="{prosody.range}%">{escape(text)}</prosody></speak>'


def resample(x: np.ndarray, src: int, dst: int) -> np.ndarray:
    from scipy.signal import resample_poly

    if src == dst:
        return x.astype(np.float32)
    g = math.gcd(src, dst)
    return resample_poly(x, dst // g, src // g).astype(np.float32)


def read_wav(path: Path) -> tuple[np.ndarray, int]:
    from scipy.io import wavfile

    sr, data = wavfile.read(path)
    if data.dtype != np.int16 or data.ndim != 1:
        raise SpeechError(f"{path}: expected 16-bit mono WAV, got {data.dtype} {data.shape}")
    return data.astype(np.float32) / 32768.0, int(sr)


def synthesize(text: str, voice: str = "en", prosody: Prosody = Prosody(),
               sample_rate: int = 16000) -> np.ndarray:
    """One utterance as float32 samples in [-1, 1] at `sample_rate` (resampling can ring a
    near-full-scale peak past 1: clipped, as writing 16-bit audio would)."""
    if not text.strip():
        raise ValueError("nothing to say: empty text")
    prosody.check()
    with tempfile.TemporaryDirectory(prefix="espeak-") as d:
        out = Path(d) / "u.wav"
        cmd = [espeak(), "-m", "-b", "1", "-z", "-v", voice, "-p", str(prosody.pitch),
               "-s", str(prosody.rate), "-a", str(prosody.volume), "-g", str(prosody.gap),
               "-w", str(out), ssml(text, prosody)]
        p = subprocess.run(cmd, capture_output=True, text=True)
        if p.returncode != 0 or not out.exists() or out.stat().st_size <= 44:
            raise SpeechError(f"espeak-ng failed for voice {voice!r} (exit {p.returncode}): "
                              f"{(p.stderr or p.stdout).strip()[:300] or 'no audio written'}")
        x, sr = read_wav(out)
    return np.clip(resample(x, sr, sample_rate), -1.0, 1.0)


def add_noise(x: np.ndarray, snr_db: float, rng: np.random.Generator, colour: str = "white"
              ) -> np.ndarray:
    """x plus noise scaled so that 10 log10(P_signal / P_noise) = snr_db exactly."""
    n = rng.standard_normal(len(x))
    if colour == "pink":  # 1/f power: shape white noise in the frequency domain
        f = np.fft.rfftfreq(len(x))
        spec = np.fft.rfft(n)
        spec[1:] /= np.sqrt(f[1:])
        spec[0] = 0
        n = np.fft.irfft(spec, len(x))
    elif colour != "white":
        raise ValueError(f"unknown noise colour {colour!r} (white or pink)")
    ps, pn = float(np.mean(x.astype(np.float64) ** 2)), float(np.mean(n ** 2))
    if ps == 0:
        return x.astype(np.float32)
    n = n * math.sqrt(ps / (pn * 10 ** (snr_db / 10)))
    return (x + n).astype(np.float32)


def mu_law(x: np.ndarray, mu: int = 255) -> np.ndarray:
    """G.711 mu-law companding with 8-bit quantisation, decoded back to linear samples."""
    y = np.sign(x) * np.log1p(mu * np.minimum(np.abs(x), 1.0)) / math.log1p(mu)
    q = np.round((y + 1) / 2 * mu) / mu * 2 - 1
    return (np.sign(q) * ((1 + mu) ** np.abs(q) - 1) / mu).astype(np.float32)


def telephone(x: np.ndarray, sample_rate: int, low: float = 300.0, high: float = 3400.0
              ) -> np.ndarray:
    """The narrow-band telephone channel: a 300-3,400 Hz band-pass (8th-order Butterworth, zero
    phase), through 8 kHz and mu-law, back at `sample_rate`."""
    from scipy.signal import butter, sosfiltfilt

    sos = butter(4, [low, high], btype="bandpass", fs=sample_rate, output="sos")
    band = sosfiltfilt(sos, x.astype(np.float64))
    narrow = mu_law(resample(band, sample_rate, 8000))
    return resample(narrow, 8000, sample_rate)[: len(x)]
