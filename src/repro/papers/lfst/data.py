"""The LFST paper's speech: one job synthesises the offline corpus, one job per condition makes
the array the models read.

    python -m repro.papers.lfst.data synth --config src/repro/papers/lfst/config.yaml \
        --scale small \
        --out data/lfst/small/synth.npz
    python -m repro.papers.lfst.data prepare --config src/repro/papers/lfst/config.yaml \
        --scale small \
        --condition phone --synth data/lfst/small/synth.npz --out data/lfst/small/phone.npz

Below full every condition is the synthesised corpus (synth.py) through a channel: `clean`, or
`telephone` (noise at a given SNR, then the 300-3,400 Hz band, 8 kHz and mu-law:
repro.core.speech), the noise drawn per utterance from (synth seed, utterance index). At full
the conditions are the paper's corpora: EMO-DB (downloaded and checked against
src/repro/papers/lfst/manifest.json) and IEMOCAP (licensed: a manual download, see corpora.py).

Every condition's array: `audio` int16 (n, seconds x rate, zero-padded), `length` (samples),
`label`, `speaker`, `group` (the cross-validation unit: speaker or session) and `split`
(train/val/test for the synthesised corpus; empty for the real ones, whose folds are
leave-one-group-out).
"""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any

import numpy as np

from repro.core.config import job_parser
from repro.core.io import atomic_path, write_json
from repro.core.progress import get_logger
from repro.papers.lfst.settings import Settings, classes_of, load


def save_npz(path: Path, **arrays: Any) -> None:
    buf = io.BytesIO()
    np.savez(buf, **arrays)
    with atomic_path(path) as tmp:
        tmp.write_bytes(buf.getvalue())


def to_int16(clips: list[np.ndarray], n: int) -> tuple[np.ndarray, np.ndarray]:
    """Crop / zero-pad each clip to n samples: (audio int16 (k, n), lengths)."""
    audio = np.zeros((len(clips), n), np.int16)
    lengths = np.zeros(len(clips), np.int64)
    for i, x in enumerate(clips):
        x = np.clip(x[:n], -1, 1)
        audio[i, : len(x)] = np.round(x * 32767).astype(np.int16)
        lengths[i] = len(x)
    return audio, lengths


def synth_corpus(cfg: Settings, out: Path, processes: int, log) -> dict[str, Any]:
    from repro.core import speech
    from repro.papers.lfst.synth import plan, synthesise

    items = plan(cfg.synth, cfg.classes, speech.variants())
    log.info("synthesising %d utterances (%d speakers, espeak-ng %s)", len(items),
             len({i.speaker for i in items}), speech.version())
    clips = synthesise(items, cfg.sample_rate, processes=max(1, processes), log=log)
    n = int(round(cfg.seconds * cfg.sample_rate))
    audio, lengths = to_int16(clips, n)
    full = np.array([len(c) for c in clips])
    save_npz(out, audio=audio, length=lengths, label=np.array([i.label for i in items]),
             speaker=np.array([i.speaker for i in items]),
             group=np.array([i.speaker for i in items]),
             split=np.array([i.split for i in items]),
             text=np.array([i.text for i in items]),
             prosody=np.array([[getattr(i.prosody, k) for k in ("pitch", "range", "rate",
                                                                 "volume", "gap")]
                               for i in items]))
    per = {s: {c: int(sum(1 for i in items if i.split == s and cfg.classes[i.label] == c))
               for c in cfg.classes} for s in ("train", "val", "test")}
    return {"source": f"espeak-ng {speech.version()} (synthesised)", "utterances": len(items),
            "speakers": {s: sorted({i.speaker for i in items if i.split == s})
                         for s in ("train", "val", "test")},
            "per_class": per, "sentences": {"train": cfg.synth.sentences.train,
                                            "heldout": cfg.synth.sentences.heldout},
            "seconds_mean": float(full.mean() / cfg.sample_rate),
            "cropped": int((full > n).sum()), "sample_rate": cfg.sample_rate}


def channel(cfg: Settings, condition: str, synth: Path) -> tuple[dict[str, np.ndarray], dict]:
    from repro.core import speech

    d = cfg.datasets[condition]
    z = dict(np.load(synth))
    if d.channel == "clean":
        return z, {"channel": "clean"}
    audio = z["audio"].astype(np.float32) / 32768
    out = np.zeros_like(z["audio"])
    for i, (x, n) in enumerate(zip(audio, z["length"], strict=True)):
        y = x[:n]
        if d.snr_db is not None:
            rng = np.random.default_rng([cfg.synth.seed, i])
            y = speech.add_noise(y, d.snr_db, rng, d.noise)
        y = speech.telephone(y, cfg.sample_rate)
        out[i, :n] = np.round(np.clip(y, -1, 1) * 32767).astype(np.int16)
    z["audio"] = out
    return z, {"channel": "telephone 300-3400 Hz, 8 kHz mu-law", "noise": d.noise,
               "snr_db": d.snr_db}


def real_corpus(cfg: Settings, condition: str, config: Path, mirror: Path | None, log
                ) -> tuple[dict[str, np.ndarray], dict]:
    """EMO-DB from the mirror's copy or its URL (checked against the manifest's sha256 where
    one is recorded; none is published), IEMOCAP from its manual download."""
    from repro.core.manifest import Manifest
    from repro.papers.lfst import corpora

    d = cfg.datasets[condition]
    if d.kind == "emodb":
        root = Path(d.root or f"data/lfst/raw/{condition}")
        mirrored = mirror / "lfst" / "emodb.zip" if mirror else None
        url = mirrored.resolve().as_uri() if mirrored and mirrored.exists() else d.url
        sha = Manifest.for_config(config).entry("emodb/download.zip").get("sha256")
        corpora.fetch_emodb(root, url, sha)
        utts = corpora.emodb_utterances(root)
    else:
        Manifest.for_config(config).entry("iemocap/IEMOCAP_full_release")
        utts = corpora.iemocap_utterances(Path(d.root))
    classes = classes_of(cfg, condition)
    log.info("%s: %d utterances, %d groups", condition, len(utts), corpora.n_folds(utts))
    clips = [corpora.read_audio(u.path, cfg.sample_rate) for u in utts]
    audio, lengths = to_int16(clips, int(round(cfg.seconds * cfg.sample_rate)))
    z = {"audio": audio, "length": lengths,
         "label": np.array([classes.index(u.label) for u in utts]),
         "speaker": np.array([u.speaker for u in utts]),
         "group": np.array([u.group for u in utts]), "split": np.array([""] * len(utts))}
    return z, {"source": d.kind, "utterances": len(utts), "groups": corpora.n_folds(utts)}


def main(argv: list[str] | None = None) -> None:
    ap = job_parser("lfst speech data: synthesise the corpus, or prepare one condition",
                    log=True)
    ap.add_argument("step", choices=("synth", "prepare"))
    ap.add_argument("--condition")
    ap.add_argument("--synth", type=Path)
    ap.add_argument("--processes", type=int, default=1, help="synth: espeak-ng workers")
    from repro.core.fetch import mirror_arg  # argument parsing only: not a rule input
    mirror_arg(ap)  # EMO-DB's zip at <mirror>/lfst/emodb.zip
    a = ap.parse_args(argv)
    cfg = load(a.config, a.scale)
    log = get_logger("lfst.data", a.log)
    if a.step == "synth":
        info = synth_corpus(cfg, a.out, a.processes, log)
    else:
        if a.condition not in cfg.datasets:
            raise SystemExit(f"unknown condition {a.condition!r}: {sorted(cfg.datasets)}")
        if cfg.datasets[a.condition].kind == "synth":
            if a.synth is None:
                raise SystemExit("--synth (the synthesised corpus) is needed for "
                                 f"{a.condition}")
            z, info = channel(cfg, a.condition, a.synth)
        else:
            z, info = real_corpus(cfg, a.condition, a.config, a.mirror, log)
        info = {"condition": a.condition, "classes": classes_of(cfg, a.condition), **info}
        save_npz(a.out, **z)
    write_json(a.out.with_suffix(".json"), info)
    log.info("wrote %s", a.out)


if __name__ == "__main__":
    main()
