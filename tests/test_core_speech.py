"""The shared speech synthesis (repro.core.speech): espeak-ng's prosody controls do what they
say, synthesis is deterministic, and the telephone and noise channels meet their definitions."""

from __future__ import annotations

import numpy as np
import pytest
from conftest import needs_programs

from repro.core import speech

needs_espeak = needs_programs("espeak-ng")
SR = 16000
TEXT = "The quick brown fox jumps over the lazy dog near the river bank."


def voiced_pitch(x: np.ndarray, sr: int = SR) -> np.ndarray:
    """Autocorrelation pitch (60-500 Hz) of every voiced 40 ms frame, in Hz."""
    n, out = int(0.04 * sr), []
    lo, hi = sr // 500, sr // 60
    for i in range(0, len(x) - n, n):
        fr = x[i:i + n] - x[i:i + n].mean()
        if np.sqrt(np.mean(fr ** 2)) < 0.02:
            continue
        ac = np.correlate(fr, fr, "full")[n - 1:]
        lag = lo + int(np.argmax(ac[lo:hi]))
        if ac[lag] > 0.5 * ac[0]:
            out.append(sr / lag)
    return np.array(out)


def f0(x: np.ndarray) -> float:
    return float(np.median(voiced_pitch(x)))


def spread(x: np.ndarray) -> float:
    """Spread of the voiced frames' pitch in semitones (the pitch range's effect)."""
    st = 12 * np.log2(voiced_pitch(x))
    return float(np.percentile(st, 90) - np.percentile(st, 10))


@needs_espeak
def test_synthesis_is_deterministic_audio_at_the_rate_asked():
    a = speech.synthesize(TEXT, "en+m3")
    b = speech.synthesize(TEXT, "en+m3")
    assert a.dtype == np.float32 and np.array_equal(a, b)
    assert 2.0 < len(a) / SR < 8.0 and 0.1 < np.abs(a).max() <= 1.0
    c = speech.synthesize(TEXT, "en+m3", sample_rate=8000)
    assert abs(len(c) / 8000 - len(a) / SR) < 0.01
    assert speech.version()[0].isdigit()
    assert {"m1", "f2"} <= set(speech.variants())


@needs_espeak
def test_prosody_controls_pitch_rate_volume_and_range():
    base = speech.Prosody()
    low = f0(speech.synthesize(TEXT, "en+m3", speech.Prosody(pitch=20)))
    high = f0(speech.synthesize(TEXT, "en+m3", speech.Prosody(pitch=85)))
    assert high > 1.3 * low
    slow = speech.synthesize(TEXT, "en+m3", speech.Prosody(rate=110))
    fast = speech.synthesize(TEXT, "en+m3", speech.Prosody(rate=260))
    assert len(fast) < 0.65 * len(slow)
    quiet = speech.synthesize(TEXT, "en+m3", speech.Prosody(volume=40))
    loud = speech.synthesize(TEXT, "en+m3", base)
    assert np.sqrt(np.mean(loud ** 2)) > 1.8 * np.sqrt(np.mean(quiet ** 2))
    flat = spread(speech.synthesize(TEXT, "en+m3", speech.Prosody(range=20)))
    wide = spread(speech.synthesize(TEXT, "en+m3", speech.Prosody(range=250)))
    assert wide > 1.5 * flat
    # variants are different speakers: another voice gives another pitch
    assert abs(f0(speech.synthesize(TEXT, "en+f2")) - f0(loud)) > 20


@needs_espeak
def test_markup_in_the_text_is_spoken_not_interpreted_and_bad_input_is_refused():
    x = speech.synthesize("five < six & seven > four", "en")
    assert len(x) > SR // 2
    with pytest.raises(ValueError, match="pitch=120"):
        speech.synthesize("hello", prosody=speech.Prosody(pitch=120))
    with pytest.raises(ValueError, match="empty"):
        speech.synthesize("  ")
    with pytest.raises(speech.SpeechError, match="voice 'xx-nonexistent'"):
        speech.synthesize("hello", "xx-nonexistent")


def test_noise_is_added_at_the_snr_asked():
    rng = np.random.default_rng(0)
    x = np.sin(2 * np.pi * 220 * np.arange(SR) / SR).astype(np.float32)
    for colour in ("white", "pink"):
        for snr in (0.0, 10.0, 25.0):
            y = speech.add_noise(x, snr, rng, colour)
            n = y.astype(np.float64) - x
            got = 10 * np.log10(np.mean(x.astype(np.float64) ** 2) / np.mean(n ** 2))
            assert abs(got - snr) < 0.01
    n = speech.add_noise(np.zeros(SR, np.float32) + 1e-3, 0.0, rng, "pink") - 1e-3
    spec = np.abs(np.fft.rfft(n)) ** 2
    f = np.fft.rfftfreq(SR, 1 / SR)
    assert spec[(f > 50) & (f < 100)].mean() > 10 * spec[(f > 4000) & (f < 8000)].mean()


def test_the_telephone_channel_keeps_300_to_3400_hz_only():
    t = np.arange(SR) / SR
    tone = lambda hz: (0.5 * np.sin(2 * np.pi * hz * t)).astype(np.float32)  # noqa: E731
    rms = lambda v: float(np.sqrt(np.mean(v[SR // 10:-SR // 10] ** 2)))  # noqa: E731
    inside = speech.telephone(tone(1000), SR)
    assert len(inside) == SR and abs(rms(inside) / rms(tone(1000)) - 1) < 0.05
    for hz in (100, 5000):
        assert rms(speech.telephone(tone(hz), SR)) < 0.1 * rms(tone(hz))
    # mu-law: 8-bit companding keeps the signal within a few per cent (relative, not absolute)
    x = tone(1000)
    err = speech.mu_law(x) - x
    assert np.abs(err).max() < 0.05 * np.abs(x).max()
