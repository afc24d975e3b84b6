"""The real speech-emotion corpora of the LFST paper: EMO-DB and IEMOCAP at full scale.

Each corpus is read into a flat, sorted list of `Utterance`s that carry the cross-validation
group the paper holds out (EMO-DB: the speaker; IEMOCAP: the session), so that every split is
speaker- (or session-) independent and the same list gives the same folds on any machine.
EMO-DB can be fetched (`fetch_emodb`); IEMOCAP needs a licence and is downloaded by hand.
No torch here: the loaders run in the data step, before any model exists.
"""

from __future__ import annotations

import hashlib
import logging
import math
import re
import tempfile
import urllib.request
import zipfile
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from repro.core.io import atomic_path

log = logging.getLogger("repro.lfst.corpora")


@dataclass(frozen=True)
class Utterance:
    """One labelled recording; `group` is the unit a fold holds out."""

    id: str
    label: str
    speaker: str
    group: str
    path: Path


# ---------------------------------------------------------------- EMO-DB

EMODB_LABELS: dict[str, str] = {
    "W": "anger",
    "L": "boredom",
    "E": "disgust",
    "A": "fear",
    "F": "happiness",
    "T": "sadness",
    "N": "neutral",
}

# speaker (2 digits), text code (3 chars, e.g. "a01"), emotion letter, version letter
_EMODB_NAME = re.compile(
    r"(?P<speaker>\d{2})(?P<text>[a-z0-9]{3})(?P<emotion>[A-Z])(?P<version>[a-z])"
)

_EMODB_HELP = (
    "EMO-DB (Berlin Database of Emotional Speech) is free: download "
    "http://emodb.bilderbar.info/download/download.zip (or call fetch_emodb) and unpack it so "
    "that {wav}/03a01Fa.wav exists"
)


def emodb_utterances(root: Path) -> list[Utterance]:
    """All EMO-DB utterances under `root`/wav, sorted by id; the speaker is the fold group."""
    wav_dir = Path(root) / "wav"
    if not wav_dir.is_dir():
        raise FileNotFoundError(f"no EMO-DB at {wav_dir}. " + _EMODB_HELP.format(wav=wav_dir))
    utts = [_emodb_utterance(p) for p in wav_dir.glob("*.wav")]
    if not utts:
        raise FileNotFoundError(f"no .wav files in {wav_dir}. " + _EMODB_HELP.format(wav=wav_dir))
    return sorted(utts, key=lambda u: u.id)


def _emodb_utterance(path: Path) -> Utterance:
    """Parse one EMO-DB file name; a name off the scheme is an error, not a silent skip."""
    m = _EMODB_NAME.fullmatch(path.stem)
    if m is None or m["emotion"] not in EMODB_LABELS:
        raise ValueError(
            f"EMO-DB file name {path.name!r} ({path}) does not fit the scheme "
            "<speaker 2 digits><text 3 chars><emotion letter in "
            f"{''.join(EMODB_LABELS)}><version letter>.wav, e.g. 03a01Fa.wav"
        )
    speaker = m["speaker"]
    return Utterance(path.stem, EMODB_LABELS[m["emotion"]], speaker, speaker, path)


# ---------------------------------------------------------------- IEMOCAP

IEMOCAP_CLASSES = ("angry", "happy", "neutral", "sad")

# the usual 4-class set: excited is merged into happy; every other label is dropped
_IEMOCAP_MAP = {"ang": "angry", "hap": "happy", "exc": "happy", "neu": "neutral", "sad": "sad"}

# "[6.2901 - 8.2357]\tSes01F_impro01_F000\tneu\t[2.5000, 2.5000, 2.5000]"
_IEMOCAP_LINE = re.compile(r"\[[^\]]*\]\t(?P<id>[^\t]+)\t(?P<label>[^\t]+)(\t.*)?")
_IEMOCAP_TURN = re.compile(r"(?P<gender>[FM])\d{3}$")
_SESSION_DIR = re.compile(r"Session(?P<n>\d+)")

_IEMOCAP_HELP = (
    "IEMOCAP needs a licence: fill in the release form at https://sail.usc.edu/iemocap/, "
    "download IEMOCAP_full_release by hand and unpack it so that {root}/Session1 exists"
)


def iemocap_utterances(root: Path) -> list[Utterance]:
    """The 4-class IEMOCAP utterances that have a wav, sorted by id; the session is the group."""
    root = Path(root)
    sessions = _iemocap_sessions(root)
    if not sessions:
        raise FileNotFoundError(
            f"no IEMOCAP Session directories in {root}. " + _IEMOCAP_HELP.format(root=root)
        )
    utts = [u for s in sessions for u in _session_utterances(s)]
    return sorted(utts, key=lambda u: u.id)


def _iemocap_sessions(root: Path) -> list[Path]:
    """Session<n> directories of `root` (none when `root` is missing)."""
    if not root.is_dir():
        return []
    return sorted(p for p in root.iterdir() if p.is_dir() and _SESSION_DIR.fullmatch(p.name))


def _session_utterances(session: Path) -> list[Utterance]:
    """One session's kept utterances: a mapped label and an existing wav."""
    wav_root = session / "sentences" / "wav"
    utts = []
    for label_file in sorted((session / "dialog" / "EmoEvaluation").glob("*.txt")):
        for utt_id, raw in _label_lines(label_file):
            label = _IEMOCAP_MAP.get(raw)
            dialog = utt_id.rsplit("_", 1)[0]
            wav = wav_root / dialog / f"{utt_id}.wav"
            if label is None or not wav.is_file():
                continue
            speaker = _iemocap_speaker(utt_id, label_file)
            utts.append(Utterance(utt_id, label, speaker, session.name, wav))
    return utts


def _label_lines(path: Path) -> list[tuple[str, str]]:
    """(utterance id, raw label) of each evaluation line; headers and annotator lines skipped."""
    pairs = []
    for line in path.read_text(errors="replace").splitlines():
        m = _IEMOCAP_LINE.fullmatch(line.strip())
        if m is not None:
            pairs.append((m["id"].strip(), m["label"].strip()))
    return pairs


def _iemocap_speaker(utt_id: str, source: Path) -> str:
    """Session + gender of the one speaking (the letter of the turn, not of the dialog)."""
    turn = utt_id.rsplit("_", 1)[-1]
    m = _IEMOCAP_TURN.search(turn)
    if "_" not in utt_id or m is None:
        raise ValueError(
            f"IEMOCAP utterance id {utt_id!r} in {source} does not end in _<F|M><3 digits>"
        )
    return utt_id[:5] + m["gender"]


# ---------------------------------------------------------------- audio


def read_audio(path: Path, sample_rate: int) -> np.ndarray:
    """The file as float32 mono in [-1, 1] at `sample_rate`, whatever it was stored as."""
    if sample_rate <= 0:
        raise ValueError(f"sample_rate must be positive, got {sample_rate}")
    x, rate = _read_raw(Path(path))
    if x.ndim == 2:
        x = x.mean(axis=1)
    if rate != sample_rate:
        x = _resample(x, rate, sample_rate)
    return np.clip(x, -1.0, 1.0).astype(np.float32)


def _read_raw(path: Path) -> tuple[np.ndarray, int]:
    """Samples (float, [-1, 1]) and rate; soundfile reads more formats, scipy is the fallback."""
    try:
        import soundfile
    except ImportError:
        from scipy.io import wavfile

        rate, data = wavfile.read(path)
        return _to_float(data), int(rate)
    data, rate = soundfile.read(path, dtype="float64", always_2d=False)
    return data, int(rate)


def _to_float(data: np.ndarray) -> np.ndarray:
    """Integer PCM scaled to [-1, 1] (unsigned 8-bit is offset); floats kept as they are."""
    if np.issubdtype(data.dtype, np.unsignedinteger):
        half = (np.iinfo(data.dtype).max + 1) / 2
        return (data.astype(np.float64) - half) / half
    if np.issubdtype(data.dtype, np.integer):
        return data.astype(np.float64) / (np.iinfo(data.dtype).max + 1)
    return data.astype(np.float64)


def _resample(x: np.ndarray, rate: int, target: int) -> np.ndarray:
    """Polyphase resampling by the gcd-reduced ratio (exact for 44.1k/22.05k -> 16k)."""
    from scipy.signal import resample_poly

    g = math.gcd(rate, target)
    return resample_poly(x, target // g, rate // g)


# ---------------------------------------------------------------- download


def fetch_emodb(dest: Path, url: str, sha256: str | None = None) -> Path:
    """Download the EMO-DB zip and unpack its wav/ into `dest`/wav; a no-op once it is there."""
    dest = Path(dest)
    wav_dir = dest / "wav"
    if wav_dir.is_dir() and any(wav_dir.glob("*.wav")):
        log.info("EMO-DB already at %s; not downloading", wav_dir)
        return dest
    dest.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix=f".{dest.name}.download.", dir=dest.parent) as tmp:
        archive = Path(tmp) / "emodb.zip"
        digest = _download(url, archive)
        log.info("EMO-DB archive sha256 %s (record it in src/repro/papers/lfst/manifest.json)",
                 digest)
        if sha256 is not None and digest != sha256.lower():
            raise ValueError(
                f"EMO-DB download from {url} has sha256 {digest}, expected {sha256.lower()}"
            )
        with atomic_path(wav_dir) as tmp_wav:
            n = _extract_wavs(archive, tmp_wav)
    log.info("EMO-DB: %d wav files in %s", n, wav_dir)
    return dest


def _download(url: str, out: Path, chunk: int = 1 << 20) -> str:
    """Stream `url` to `out` and return its sha256, logging progress every 10 MB."""
    h = hashlib.sha256()
    done = 0
    with urllib.request.urlopen(url, timeout=60) as resp, out.open("wb") as f:
        size = resp.headers.get("Content-Length") if resp.headers else None
        total = f" of {int(size) / 1e6:.1f} MB" if size else ""
        log.info("downloading %s%s", url, total)
        while block := resp.read(chunk):
            f.write(block)
            h.update(block)
            done += len(block)
            if done // (10 << 20) != (done - len(block)) // (10 << 20):
                log.info("downloading %s: %.1f MB%s", url, done / 1e6, total)
    log.info("downloaded %s: %.1f MB", url, done / 1e6)
    return h.hexdigest()


def _extract_wavs(archive: Path, out: Path) -> int:
    """Write the archive's wav/*.wav members flat into `out`; nothing else, no path escapes."""
    out.mkdir(parents=True)
    n = 0
    with zipfile.ZipFile(archive) as zf:
        for info in zf.infolist():
            parts = Path(info.filename).parts
            if info.is_dir() or len(parts) != 2 or parts[0] != "wav":
                continue
            if not parts[1].lower().endswith(".wav"):
                continue
            (out / parts[1]).write_bytes(zf.read(info))
            n += 1
    if n == 0:
        raise ValueError(f"{archive} has no wav/*.wav members: not the EMO-DB archive")
    return n


# ---------------------------------------------------------------- folds


def n_folds(utts: Sequence[Utterance]) -> int:
    """Number of distinct groups, i.e. of leave-one-group-out folds."""
    return len({u.group for u in utts})


def leave_one_group_out(
    groups: Sequence[str], fold: int
) -> tuple[list[int], list[int], list[int]]:
    """(train, val, test) indices of the utterances whose groups are `groups`: fold k tests on
    sorted group k and validates on group k+1.

    Whole groups move between the sets, so no speaker (session) is both trained and tested on.
    """
    names = sorted(set(groups))
    if len(names) < 3:
        raise ValueError(f"leave-one-group-out needs at least 3 groups, got {len(names)}")
    if not 0 <= fold < len(names):
        raise ValueError(f"fold {fold} out of range: there are {len(names)} folds")
    test_group, val_group = names[fold], names[(fold + 1) % len(names)]
    train, val, test = [], [], []
    for i, g in enumerate(groups):
        (test if g == test_group else val if g == val_group else train).append(i)
    return train, val, test
