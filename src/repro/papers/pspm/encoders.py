"""Frame encoders at the paper's 50 frames per second (20 ms hop, 25 ms window, 16 kHz).

- `wav2vec2` (full, the paper's default): facebook/wav2vec2-large-lv60, hidden state 2 (the
  output of the second transformer block; the official code's default layer), through
  transformers' `from_pretrained` (downloaded once into the Hugging Face cache, or read from
  `REPRO_HF_MIRROR`/<name> where that folder exists), fp16 on a GPU. WavLM and HuBERT load the
  same way (the official code's other backbones).
- `logmel` (tiny and small): 64 log-mel bands of a 25 ms Hann window every 20 ms. No
  pretrained speech model can be read offline here, and a randomly initialised wav2vec2 is not
  an encoder (its features carry no learned perceptual structure), so below full the
  measures run on a fixed, deterministic filterbank front-end that keeps what the distortions
  change (spectral envelope, harmonics, noise floor) and drops the waveform's phase.
- `raw`: the official code's weight-free mode, each 20 ms frame's 320 samples as the feature
  (sensitive to sub-frame time shifts; an ablation).

Every encoder returns (T, D) with T = floor((N - 400) / 320) + 1, wav2vec2's frame count, so
the activity mask is resized the same way for all of them.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from functools import lru_cache
from pathlib import Path

import numpy as np

RATE = 16000
HOP = 320
WINDOW = 400
CHECKPOINTS = {
    "wav2vec2": "facebook/wav2vec2-large-lv60",
    "wavlm": "microsoft/wavlm-large",
    "hubert": "facebook/hubert-large-ll60k",
}


def n_frames(n: int) -> int:
    if n < WINDOW:
        raise ValueError(f"{n} samples is shorter than one 25 ms encoder window")
    return (n - WINDOW) // HOP + 1


def logmel(x: np.ndarray, bands: int = 64) -> np.ndarray:
    import librosa

    s = librosa.feature.melspectrogram(y=np.asarray(x, dtype=np.float32), sr=RATE,
                                       n_fft=512, win_length=WINDOW, hop_length=HOP,
                                       center=False, n_mels=bands, fmin=20.0, fmax=7600.0,
                                       power=2.0)
    db = 10 * np.log10(np.maximum(s, 1e-10))
    db = np.maximum(db, db.max() - 80.0)  # an 80 dB floor, so silence does not dominate
    t = n_frames(len(x))
    return db.T[:t].astype(np.float64)


def raw(x: np.ndarray) -> np.ndarray:
    x = np.asarray(x, dtype=np.float64)
    t = n_frames(len(x))
    return np.stack([x[i * HOP: i * HOP + HOP] for i in range(t)])


def _source(name: str) -> str:
    mirror = os.environ.get("REPRO_HF_MIRROR")
    if mirror and (Path(mirror) / name).is_dir():
        return str(Path(mirror) / name)
    return name


@lru_cache(maxsize=2)
def _pretrained(kind: str):
    import torch
    from transformers import AutoFeatureExtractor, AutoModel

    name = _source(CHECKPOINTS[kind])
    gpu = torch.cuda.is_available()
    model = AutoModel.from_pretrained(name, torch_dtype=torch.float16 if gpu else torch.float32)
    model.eval().to("cuda" if gpu else "cpu")
    return AutoFeatureExtractor.from_pretrained(name), model


def hidden_states(x: np.ndarray, extractor, model, layer: int) -> np.ndarray:
    """hidden_states[layer] (0 = the transformer's input, k = block k's output) of one
    utterance, (T, D) float64."""
    import torch

    inputs = extractor(np.asarray(x, dtype=np.float32), sampling_rate=RATE,
                       return_tensors="pt")
    p = next(model.parameters())
    values = inputs["input_values"].to(p.device, p.dtype)
    with torch.inference_mode():
        h = model(values, output_hidden_states=True).hidden_states[layer][0]
    return h.float().cpu().numpy().astype(np.float64)


def encoder(kind: str, layer: int = 2, bands: int = 64) -> Callable[[np.ndarray], np.ndarray]:
    """The encoder named in the config: signal (N,) -> (T, D)."""
    if kind == "logmel":
        return lambda x: logmel(x, bands)
    if kind == "raw":
        return raw
    if kind in CHECKPOINTS:
        def enc(x: np.ndarray) -> np.ndarray:
            extractor, model = _pretrained(kind)
            return hidden_states(x, extractor, model, layer)
        return enc
    raise ValueError(f"unknown encoder {kind!r} (logmel, raw, {', '.join(CHECKPOINTS)})")
