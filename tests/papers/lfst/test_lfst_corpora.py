"""LFST corpora: the EMO-DB and IEMOCAP loaders, audio reading and the EMO-DB download, on tiny
directory trees and zips built here (no internet), and the leave-one-group-out folds."""

from __future__ import annotations

import hashlib
import logging
import urllib.request
import zipfile
from pathlib import Path

import numpy as np
import pytest
from scipy.io import wavfile

from repro.papers.lfst.corpora import (
    EMODB_LABELS,
    IEMOCAP_CLASSES,
    Utterance,
    emodb_utterances,
    fetch_emodb,
    iemocap_utterances,
    leave_one_group_out,
    n_folds,
    read_audio,
)

SR = 16000


def sine(freq: float = 440.0, rate: int = SR, seconds: float = 0.05, amp: float = 0.5):
    t = np.arange(int(rate * seconds)) / rate
    return amp * np.sin(2 * np.pi * freq * t)


def write_wav(path: Path, x=None, rate: int = SR) -> Path:
    """A 16-bit wav (a short sine unless `x` is given)."""
    x = sine(rate=rate) if x is None else x
    path.parent.mkdir(parents=True, exist_ok=True)
    wavfile.write(path, rate, np.round(np.asarray(x) * 32767).astype(np.int16))
    return path


# ---------------------------------------------------------------- EMO-DB

EMODB_TAILS = ["a01Wa", "a02Nb", "b01Tc", "b10Fa"]  # text, emotion, version
EMODB_NAMES = [spk + tail for spk in ("03", "08", "16") for tail in EMODB_TAILS]


def emodb_tree(root: Path, names=EMODB_NAMES) -> Path:
    for name in names:
        write_wav(root / "wav" / f"{name}.wav")
    (root / "wav" / "readme.txt").write_text("not audio")  # ignored: not a wav
    return root


def test_emodb_parses_ids_labels_speakers_groups(tmp_path):
    utts = emodb_utterances(emodb_tree(tmp_path / "emodb"))
    assert [u.id for u in utts] == sorted(EMODB_NAMES)
    by_id = {u.id: u for u in utts}
    assert by_id["03a01Wa"].label == "anger"
    assert by_id["08a02Nb"].label == "neutral"
    assert by_id["16b01Tc"].label == "sadness"
    assert by_id["16b10Fa"].label == "happiness"
    assert {u.speaker for u in utts} == {"03", "08", "16"}
    assert all(u.group == u.speaker == u.id[:2] for u in utts)
    assert all(u.path == tmp_path / "emodb" / "wav" / f"{u.id}.wav" for u in utts)
    assert n_folds(utts) == 3


def test_emodb_labels_are_the_seven_classes():
    assert EMODB_LABELS == {
        "W": "anger", "L": "boredom", "E": "disgust", "A": "fear",
        "F": "happiness", "T": "sadness", "N": "neutral",
    }  # fmt: skip


@pytest.mark.parametrize("bad", ["03a01Xa", "3a01Wa", "03a01W", "recording", "03a01Wa_copy"])
def test_emodb_bad_name_names_the_file(tmp_path, bad):
    root = emodb_tree(tmp_path / "emodb", EMODB_NAMES[:2])
    write_wav(root / "wav" / f"{bad}.wav")
    with pytest.raises(ValueError, match=f"{bad}.wav"):
        emodb_utterances(root)


def test_emodb_missing_dir_says_what_to_download(tmp_path):
    with pytest.raises(FileNotFoundError, match=r"emodb\.bilderbar\.info/download"):
        emodb_utterances(tmp_path / "nowhere")


# ---------------------------------------------------------------- IEMOCAP

HEADER = "% [START_TIME - END_TIME] TURN_NAME EMOTION [V, A, D]\n\n"


def evaluation(rows) -> str:
    """An EmoEvaluation file: header, then per turn its line, annotator lines, a blank line."""
    out = [HEADER]
    for i, (utt, label) in enumerate(rows):
        out.append(f"[{i}.2901 - {i}.9357]\t{utt}\t{label}\t[2.5000, 3.0000, 2.0000]\n")
        out.append("C-E2:\tNeutral;\tsad\t()\n")
        out.append("C-E3:\tExcited; Happiness;\t()\n")
        out.append("A-E3:\tval 3; act 2; dom  2;\t()\n\n")
    return "".join(out)


IEMOCAP_DIALOGS = {
    1: {
        "Ses01F_impro01": [
            ("Ses01F_impro01_F000", "neu", True),
            ("Ses01F_impro01_M001", "exc", True),
            ("Ses01F_impro01_F002", "fru", True),  # dropped: not a kept class
            ("Ses01F_impro01_M003", "ang", False),  # dropped: no wav
        ],
        "Ses01M_script01_1": [
            ("Ses01M_script01_1_F000", "hap", True),
            ("Ses01M_script01_1_M001", "xxx", True),
        ],
    },
    2: {
        "Ses02F_impro02": [
            ("Ses02F_impro02_M000", "sad", True),
            ("Ses02F_impro02_F001", "sur", True),
            ("Ses02F_impro02_F002", "ang", True),
        ],
    },
}


def iemocap_tree(root: Path) -> Path:
    for n, dialogs in IEMOCAP_DIALOGS.items():
        session = root / f"Session{n}"
        labels = session / "dialog" / "EmoEvaluation"
        labels.mkdir(parents=True)
        (labels / "Categorical").mkdir()  # a sub-folder of per-annotator files, not read
        (labels / "Categorical" / "x.txt").write_text("[1.0 - 2.0]\tSes01F_impro01_F002\tang\t[]")
        for dialog, rows in dialogs.items():
            (labels / f"{dialog}.txt").write_text(evaluation([r[:2] for r in rows]))
            for utt, _, has_wav in rows:
                if has_wav:
                    write_wav(session / "sentences" / "wav" / dialog / f"{utt}.wav")
        # a wav nobody labelled is not an utterance
        write_wav(session / "sentences" / "wav" / "unlabelled" / f"Ses0{n}F_x_F000.wav")
    return root


def test_iemocap_maps_drops_and_sexes(tmp_path):
    root = iemocap_tree(tmp_path / "IEMOCAP_full_release")
    utts = iemocap_utterances(root)
    got = {u.id: (u.label, u.speaker, u.group) for u in utts}
    assert got == {
        "Ses01F_impro01_F000": ("neutral", "Ses01F", "Session1"),
        "Ses01F_impro01_M001": ("happy", "Ses01M", "Session1"),  # exc merged, male speaker
        "Ses01M_script01_1_F000": ("happy", "Ses01F", "Session1"),  # female in a Ses01M dialog
        "Ses02F_impro02_M000": ("sad", "Ses02M", "Session2"),
        "Ses02F_impro02_F002": ("angry", "Ses02F", "Session2"),
    }
    assert [u.id for u in utts] == sorted(got)
    assert {u.label for u in utts} <= set(IEMOCAP_CLASSES)
    for u in utts:
        session = root / u.group
        assert u.path == session / "sentences" / "wav" / u.id.rsplit("_", 1)[0] / f"{u.id}.wav"
        assert u.path.is_file()


def test_iemocap_classes():
    assert IEMOCAP_CLASSES == ("angry", "happy", "neutral", "sad")


def test_iemocap_without_sessions_points_at_the_release_form(tmp_path):
    (tmp_path / "IEMOCAP_full_release").mkdir()
    for root in (tmp_path / "IEMOCAP_full_release", tmp_path / "missing"):
        with pytest.raises(FileNotFoundError, match=r"sail\.usc\.edu/iemocap.*Session1"):
            iemocap_utterances(root)


# ---------------------------------------------------------------- audio


def peak_hz(x: np.ndarray, rate: int) -> float:
    spectrum = np.abs(np.fft.rfft(x * np.hanning(len(x))))
    return float(np.fft.rfftfreq(len(x), 1 / rate)[np.argmax(spectrum)])


def test_read_audio_resamples_keeping_length_ratio_and_pitch(tmp_path):
    path = write_wav(tmp_path / "a.wav", sine(440.0, 22050, seconds=1.0), rate=22050)
    x = read_audio(path, SR)
    assert x.dtype == np.float32 and x.ndim == 1
    assert abs(len(x) - 22050 * SR / 22050) <= 1
    assert abs(peak_hz(x, SR) - 440.0) <= 3.0
    assert np.abs(x).max() <= 1.0
    assert 0.45 < np.abs(x[100:-100]).max() < 0.55  # amplitude kept


def test_read_audio_averages_stereo(tmp_path):
    left = sine(440.0, SR, seconds=0.2, amp=0.8)
    stereo = np.stack([left, np.zeros_like(left)], axis=1)
    x = read_audio(write_wav(tmp_path / "s.wav", stereo), SR)
    assert x.shape == left.shape
    np.testing.assert_allclose(x, left / 2, atol=2e-4)


@pytest.mark.parametrize(
    ("dtype", "half"),
    [(np.int16, 2**14), (np.int32, 2**30), (np.uint8, 128 + 64), (np.float32, 0.5)],
)
def test_read_audio_scales_each_sample_type(tmp_path, dtype, half):
    path = tmp_path / "t.wav"
    wavfile.write(path, SR, np.full(64, half, dtype=dtype))
    np.testing.assert_allclose(read_audio(path, SR), 0.5, atol=1e-6)


# ---------------------------------------------------------------- EMO-DB download

ZIP_WAVS = ["03a01Fa.wav", "08b02Wb.wav"]


def emodb_zip(path: Path, with_wavs: bool = True) -> Path:
    """An archive laid out like EMO-DB's download.zip (wav/ plus folders we do not want)."""
    src = write_wav(path.parent / "one.wav")
    path.parent.mkdir(parents=True, exist_ok=True)
    with zipfile.ZipFile(path, "w") as zf:
        if with_wavs:
            zf.writestr("wav/", "")
            for name in ZIP_WAVS:
                zf.write(src, f"wav/{name}")
            zf.writestr("wav/notes.txt", "not a wav")
        zf.writestr("lablaut/03a01Fa.lab", "labels")
        zf.write(src, "silb/03a01Fa.wav")
        zf.writestr("erkennung.txt", "results")
    return path


def sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_fetch_emodb_extracts_only_wav_members(tmp_path, caplog, capsys):
    archive = emodb_zip(tmp_path / "server" / "download.zip")
    work = tmp_path / "data"
    dest = work / "emodb"
    with caplog.at_level(logging.INFO, logger="repro.lfst.corpora"):
        assert fetch_emodb(dest, archive.as_uri(), sha(archive).upper()) == dest
    assert sorted(p.name for p in dest.rglob("*")) == sorted(["wav", *ZIP_WAVS])
    one = (tmp_path / "server" / "one.wav").read_bytes()
    assert (dest / "wav" / ZIP_WAVS[0]).read_bytes() == one
    assert [p.name for p in work.iterdir()] == ["emodb"]  # no temporary left next to dest
    assert any("MB" in r.getMessage() for r in caplog.records if r.name == "repro.lfst.corpora")
    assert capsys.readouterr().out == ""
    assert [u.id for u in emodb_utterances(dest)] == ["03a01Fa", "08b02Wb"]


def test_fetch_emodb_wrong_sha256_leaves_nothing(tmp_path):
    archive = emodb_zip(tmp_path / "server" / "download.zip")
    work = tmp_path / "data"
    wrong = "0" * 64
    with pytest.raises(ValueError, match="sha256") as err:
        fetch_emodb(work / "emodb", archive.as_uri(), wrong)
    assert wrong in str(err.value) and sha(archive) in str(err.value)
    assert not (work / "emodb" / "wav").exists()
    assert list(work.iterdir()) == []


def test_fetch_emodb_archive_without_wavs_is_refused(tmp_path):
    archive = emodb_zip(tmp_path / "server" / "other.zip", with_wavs=False)
    with pytest.raises(ValueError, match="no wav/"):
        fetch_emodb(tmp_path / "data" / "emodb", archive.as_uri())
    assert not (tmp_path / "data" / "emodb" / "wav").exists()


def test_fetch_emodb_second_call_does_not_download(tmp_path, monkeypatch):
    archive = emodb_zip(tmp_path / "server" / "download.zip")
    dest = tmp_path / "data" / "emodb"
    fetch_emodb(dest, archive.as_uri(), sha(archive))
    before = {p: p.stat().st_mtime_ns for p in dest.rglob("*")}

    def no_network(*args, **kwargs):
        raise AssertionError("fetch_emodb downloaded again")

    monkeypatch.setattr(urllib.request, "urlopen", no_network)
    assert fetch_emodb(dest, archive.as_uri(), sha(archive)) == dest
    assert {p: p.stat().st_mtime_ns for p in dest.rglob("*")} == before


def test_fetch_emodb_uses_urlopen(tmp_path, monkeypatch):
    """The download goes through urllib.request.urlopen (so a proxy/opener set there applies)."""
    archive = emodb_zip(tmp_path / "server" / "download.zip")
    real = urllib.request.urlopen
    calls = []

    def spy(url, *args, **kwargs):
        calls.append(url)
        return real(archive.as_uri(), *args, **kwargs)

    monkeypatch.setattr(urllib.request, "urlopen", spy)
    dest = fetch_emodb(tmp_path / "emodb", "http://emodb.example/download.zip", sha(archive))
    assert calls == ["http://emodb.example/download.zip"]
    assert sorted(p.name for p in (dest / "wav").iterdir()) == ZIP_WAVS


# ---------------------------------------------------------------- folds


def fake_utts(sizes: dict[str, int]) -> list[Utterance]:
    """Utterances of uneven groups, interleaved so that a group's indices are not contiguous."""
    rows = [(g, i) for g, n in sizes.items() for i in range(n)]
    order = np.random.default_rng(0).permutation(len(rows))
    return [
        Utterance(f"{g}_{i}", "neutral", g, g, Path(f"{g}_{i}.wav"))
        for g, i in (rows[k] for k in order)
    ]


def test_leave_one_group_out_partitions_by_group():
    sizes = {"Session3": 4, "Session1": 7, "Session5": 2, "Session2": 5, "Session4": 3}
    utts = fake_utts(sizes)
    groups = sorted(sizes)
    assert n_folds(utts) == 5
    tested = []
    for fold in range(n_folds(utts)):
        train, val, test = leave_one_group_out([u.group for u in utts], fold)
        assert sorted(train + val + test) == list(range(len(utts)))  # disjoint and complete
        assert {utts[i].group for i in test} == {groups[fold]}
        assert {utts[i].group for i in val} == {groups[(fold + 1) % 5]}
        assert len(test) == sizes[groups[fold]] and len(val) == sizes[groups[(fold + 1) % 5]]
        train_groups = {utts[i].group for i in train}
        assert train_groups == set(groups) - {groups[fold], groups[(fold + 1) % 5]}
        assert all(sorted(s) == s for s in (train, val, test))
        tested += test
    assert sorted(tested) == list(range(len(utts)))  # every index tested exactly once


@pytest.mark.parametrize("fold", [-1, 3, 10])
def test_leave_one_group_out_rejects_bad_fold(fold):
    with pytest.raises(ValueError, match="fold"):
        leave_one_group_out([u.group for u in fake_utts({"a": 1, "b": 1, "c": 1})], fold)


def test_leave_one_group_out_needs_three_groups():
    with pytest.raises(ValueError, match="3 groups"):
        leave_one_group_out([u.group for u in fake_utts({"a": 2, "b": 2})], 0)
