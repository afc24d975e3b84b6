"""PS/PM's signal side: both distortion banks (sizes, loudness, the reference-adaptive
parameters), the controlled degradations (leakage at the exact interference-to-target ratio,
bin dropping), the encoders' frame counts (the wav2vec2 path on a small randomly initialised
model: the code path only), the frame engine (activity, a perfect output, swapped outputs),
and the baselines on cases with known answers."""

from __future__ import annotations

import math

import numpy as np
import pytest

from repro.papers.pspm import baselines, distortions, encoders, engine, mixtures
from repro.papers.pspm.distortions import FRAME, RATE, normalise, pm_bank, ps_bank


def tone_mix(seconds=0.6, seed=0):
    """Two normalised harmonic sources with different pitches and envelopes."""
    rng = np.random.default_rng(seed)
    t = np.arange(int(seconds * RATE)) / RATE
    a = sum(np.sin(2 * np.pi * 220 * k * t) / k for k in range(1, 6)) * (1.2 + np.sin(6 * t))
    b = sum(np.sin(2 * np.pi * 330 * k * t) / k ** 1.5 for k in range(1, 8)) * (
        1.2 + np.cos(9 * t)) + 0.02 * rng.standard_normal(len(t))
    return np.stack([normalise(a), normalise(b)])


def loudness(x):
    import pyloudnorm

    return pyloudnorm.Meter(RATE).integrated_loudness(np.asarray(x, np.float64))


def test_normalise_reaches_minus_23_lufs_and_refuses_short_signals():
    x = tone_mix()[0]
    assert loudness(x) == pytest.approx(-23.0, abs=0.01)
    assert np.abs(x).max() <= 1.0
    with pytest.raises(ValueError, match="0.4 s"):
        normalise(np.ones(RATE // 4))


def test_the_ps_bank_has_the_official_71_whole_signal_distortions():
    ref = tone_mix()[0]
    bank, names = ps_bank(ref, np.random.default_rng(42))
    assert bank.shape == (71, len(ref)) and len(set(names)) == 71
    families = {n.rstrip("0123456789.+-") for n in names}
    assert {"notch", "comb", "tremolo", "white", "pink", "brown", "tone", "reverb", "gate",
            "pitch", "lowpass", "highpass", "echo", "clip", "vibrato"} == families
    assert sum(n.startswith(("white", "pink", "brown")) for n in names) == 24
    assert np.isfinite(bank).all()
    for i in (0, 20, 50, 70):  # each one normalised again
        assert loudness(bank[i]) == pytest.approx(-23.0, abs=0.05)
    # the same generator state gives the same bank; noise makes another seed differ
    again, _ = ps_bank(ref, np.random.default_rng(42))
    other, _ = ps_bank(ref, np.random.default_rng(1))
    assert np.array_equal(bank, again) and not np.array_equal(bank, other)


def test_the_pm_bank_adapts_to_the_reference_frame_by_frame():
    ref = tone_mix()[0]
    par = distortions.adaptive(ref)
    c = np.array(par["notch"])
    assert 1 <= len(c) <= 20 and ((c >= 80) & (c <= 7200)).all()
    assert all(abs(x - y) > 300 for i, x in enumerate(c) for y in c[:i])
    assert par["lowpass"] == sorted(par["lowpass"]) and all(v % 100 == 0 for v in par["lowpass"])
    bank, names = pm_bank(ref, np.random.default_rng(0))
    # at most 20 notches, 5 combs, 4 tremolos, 24 noises, 4 tones, 4 gates, 4 pitch shifts,
    # 4 + 4 cut-offs, 3 clips, 3 stretches
    assert bank.shape[1] == len(ref) and 40 <= len(bank) <= 79
    assert not any(n.startswith(("reverb", "echo")) for n in names)  # longer than a frame
    assert sum(n.startswith("notch") for n in names) == len(c)
    # frame-wise: a gate at 40% of each frame's 95th percentile zeroes samples in every frame
    gate = bank[names.index("gate0.4")]
    frames = gate[: len(gate) // FRAME * FRAME].reshape(-1, FRAME)
    assert ((frames == 0).sum(1) > 0).mean() > 0.9


def test_leakage_is_added_at_the_exact_interference_to_target_ratio():
    refs = tone_mix()
    rng = np.random.default_rng(0)
    for itr in (-25.0, -5.0):
        out = mixtures.degrade(refs, itr, 0.0, rng)
        leak = out[0] - refs[0]
        ratio = 10 * math.log10(np.mean(leak ** 2) / np.mean(refs[0] ** 2))
        assert ratio == pytest.approx(itr, abs=1e-6)
    assert np.allclose(mixtures.degrade(refs, None, 0.0, rng), refs)
    dropped = mixtures.drop_bins(refs[0], 0.5, rng)
    assert dropped.shape == refs[0].shape
    assert 0.2 < np.mean(dropped ** 2) / np.mean(refs[0] ** 2) < 0.8  # ~half the energy


def test_encoders_run_at_50_frames_per_second():
    n = RATE  # one second: wav2vec2's (N - 400) // 320 + 1 = 49 frames
    x = tone_mix(1.0)[0]
    assert encoders.n_frames(n) == 49
    assert encoders.logmel(x).shape == (49, 64)
    assert encoders.raw(x).shape == (49, FRAME)
    with pytest.raises(ValueError, match="unknown encoder"):
        encoders.encoder("mfcc")


def test_the_wav2vec2_path_reads_the_asked_hidden_state():
    """The full scale's code path on a tiny randomly initialised wav2vec2 (not an encoder:
    only the frame count, the layer indexing and the dtype handling are checked)."""
    from transformers import Wav2Vec2Config, Wav2Vec2FeatureExtractor, Wav2Vec2Model

    cfg = Wav2Vec2Config(hidden_size=16, num_hidden_layers=3, num_attention_heads=2,
                         intermediate_size=32, conv_dim=(8,) * 7, num_conv_pos_embeddings=16,
                         num_conv_pos_embedding_groups=2)
    model = Wav2Vec2Model(cfg).eval()
    fx = Wav2Vec2FeatureExtractor(feature_size=1, sampling_rate=RATE, do_normalize=True)
    x = tone_mix(1.0)[0]
    h2 = encoders.hidden_states(x, fx, model, 2)
    assert h2.shape == (encoders.n_frames(len(x)), 16) and h2.dtype == np.float64
    assert not np.allclose(h2, encoders.hidden_states(x, fx, model, 3))


def test_activity_and_the_nearest_resize():
    refs = tone_mix()
    refs[1, : 10 * FRAME] = 0.0  # source 1 silent in the first 10 frames
    act = engine.activity(refs)
    assert act.shape == (2, len(refs[0]) // FRAME)
    assert not act[1, :10].any() and act[0].all()
    r = engine.resize(act, 10)
    assert r.shape == (2, 10) and np.array_equal(r[:, 0], act[:, 0])


@pytest.fixture(scope="module")
def scored():
    refs = tone_mix()
    rng = np.random.default_rng(42)
    enc = encoders.encoder("logmel")
    mix = engine.Mixture.encode(refs, [ps_bank(r, rng)[0] for r in refs],
                                [pm_bank(r, rng)[0] for r in refs], enc)
    def run(outs):
        return engine.utterance(engine.score(mix, engine.encode_outputs(outs, enc)))
    return refs, run


def test_a_perfect_output_scores_one_and_swapped_outputs_score_low(scored):
    refs, run = scored
    perfect = run(refs)
    assert min(perfect["ps"]) > 0.95 and min(perfect["pm"]) > 0.99
    assert all(f > 0 for f in perfect["frames"])
    swapped = run(refs[::-1].copy())
    assert max(swapped["ps"]) < 0.5 and max(swapped["pm"]) < 0.05
    for k in ("ps_radius", "ps_half", "pm_radius", "pm_half"):
        assert all(v >= 0 for v in perfect[k] + swapped[k])


def test_ps_falls_monotonically_with_leakage(scored):
    refs, run = scored
    rng = np.random.default_rng(0)
    ps = [np.mean(run(mixtures.degrade(refs, itr, 0.0, rng))["ps"]) for itr in (-30, -15, -5)]
    assert ps[0] > ps[1] > ps[2]


def test_baselines_on_known_cases():
    refs = tone_mix()
    assert baselines.si_sdr(refs[0], 0.5 * refs[0]) == baselines.CLAMP_DB  # scale-invariant
    rng = np.random.default_rng(0)
    noise = rng.standard_normal(len(refs[0]))
    noise *= math.sqrt(np.mean(refs[0] ** 2) / np.mean(noise ** 2)) / 10  # 20 dB
    assert baselines.si_sdr(refs[0], refs[0] + noise) == pytest.approx(20.0, abs=0.2)
    b = baselines.baselines(refs, mixtures.degrade(refs, -10.0, 0.0, rng))
    assert set(b) == set(baselines.MEASURES)
    assert b["sir"][0] == pytest.approx(10.0, abs=1.0) and b["sar"][0] > 30
    assert 0 < b["stoi"][0] <= 1
