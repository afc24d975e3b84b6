"""The offline speech-emotion corpus: espeak-ng (repro.core.speech) speaking generated sentences
in emotion-like prosody classes, each voice variant a pseudo-speaker.

A class is a distribution over prosody, not a fixed setting: per utterance its base pitch, pitch
range (the variability of the contour), rate, volume and word gap are drawn from the class's
normal distributions (mean, sd in config) and clipped to espeak-ng's ranges, on top of the
voice's own pitch and formants. Classes overlap, and the voices differ in base pitch and timbre,
so no single cue separates them. Speakers are disjoint between train, validation and test, and
validation and test speakers say sentences the training speakers never say: a model has to hear
prosody, not memorise voices or words.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from multiprocessing import Pool

import numpy as np

from repro.core import speech

SUBJECTS = ("the old man", "my sister", "the teacher", "our neighbour", "the driver", "a child",
            "the doctor", "his friend", "the farmer", "your brother", "the baker", "her mother",
            "the pilot", "a stranger", "the lawyer", "my uncle")
VERBS = ("found", "sold", "painted", "carried", "opened", "broke", "washed", "moved", "lost",
         "bought", "fixed", "counted", "dropped", "cleaned", "hid", "borrowed")
OBJECTS = ("the red box", "a letter", "the kitchen door", "two chairs", "the new car",
           "a blue cup", "the garden gate", "some books", "the window", "an umbrella",
           "the old piano", "a basket of apples", "the map", "three keys", "the small boat",
           "a wooden table")
TAILS = ("", " yesterday", " this morning", " again", " last night", " at noon", " on Sunday",
         " before dinner")
KNOBS = ("pitch", "range", "rate", "volume", "gap")
LIMITS = {"pitch": (0, 99), "range": (0, 400), "rate": (80, 450), "volume": (0, 200),
          "gap": (0, 1000)}


def sentences(n: int, rng: np.random.Generator) -> list[str]:
    """n distinct sentences from the grammar (subject verb object tail)."""
    total = len(SUBJECTS) * len(VERBS) * len(OBJECTS) * len(TAILS)
    if n > total:
        raise ValueError(f"{n} sentences asked, the grammar has {total}")
    picks = rng.choice(total, size=n, replace=False)
    out = []
    for k in picks:
        k, t = divmod(int(k), len(TAILS))
        k, o = divmod(k, len(OBJECTS))
        s, v = divmod(k, len(VERBS))
        text = f"{SUBJECTS[s]} {VERBS[v]} {OBJECTS[o]}{TAILS[t]}."
        out.append(text[0].upper() + text[1:])
    return out


@dataclass(frozen=True)
class Item:
    """One utterance to synthesise."""

    speaker: str  # the voice, e.g. en+m3
    split: str  # train | val | test
    label: int
    text: str
    prosody: speech.Prosody


def draw_prosody(spec: dict[str, Sequence[float]], rng: np.random.Generator) -> speech.Prosody:
    vals = {}
    for k in KNOBS:
        mean, sd = spec.get(k, (speech.Prosody.__dataclass_fields__[k].default, 0))
        lo, hi = LIMITS[k]
        vals[k] = int(np.clip(round(rng.normal(mean, sd)), lo, hi))
    return speech.Prosody(**vals)


def plan(cfg, classes: Sequence[str], available: Sequence[str]) -> list[Item]:
    """Every utterance of the corpus (settings.Synth `cfg`), from its seed alone."""
    rng = np.random.default_rng(cfg.seed)
    voices = sorted(v for v in available if v not in set(cfg.exclude))
    need = cfg.speakers.train + cfg.speakers.val + cfg.speakers.test
    if len(voices) < need:
        raise ValueError(f"{need} speakers asked, espeak-ng has {len(voices)} usable variants "
                         f"({len(available)} minus the {len(cfg.exclude)} excluded)")
    voices = [f"{cfg.language}+{v}" for v in rng.permutation(voices)[:need]]
    n_tr, n_va = cfg.speakers.train, cfg.speakers.val
    split_of = {v: "train" if i < n_tr else "val" if i < n_tr + n_va else "test"
                for i, v in enumerate(voices)}
    texts = sentences(cfg.sentences.train + cfg.sentences.heldout, rng)
    pool = {"train": texts[: cfg.sentences.train], "heldout": texts[cfg.sentences.train:]}
    items = []
    for v in voices:
        split = split_of[v]
        said = pool["train" if split == "train" else "heldout"]
        labels = np.resize(np.arange(len(classes)), cfg.per_speaker)
        for y in rng.permutation(labels):
            items.append(Item(v, split, int(y), str(rng.choice(said)),
                              draw_prosody(cfg.prosody[classes[y]], rng)))
    return items


def _say(args: tuple[Item, int]) -> np.ndarray:
    item, sr = args
    return speech.synthesize(item.text, item.speaker, item.prosody, sr)


def synthesise(items: Sequence[Item], sample_rate: int, processes: int = 1, log=None
               ) -> list[np.ndarray]:
    """Each item's samples (float32) at `sample_rate`; in `processes` workers (the order and
    the samples do not depend on how many)."""
    jobs = [(it, sample_rate) for it in items]
    out: list[np.ndarray] = []
    step = max(1, len(jobs) // 10)
    if processes <= 1:
        it = map(_say, jobs)
        pool = None
    else:
        pool = Pool(processes)
        it = pool.imap(_say, jobs, chunksize=8)
    try:
        for k, x in enumerate(it, 1):
            out.append(x)
            if log is not None and (k % step == 0 or k == len(jobs)):
                log.info("synthesised %d of %d utterances", k, len(jobs))
    finally:
        if pool is not None:
            pool.close()
            pool.join()
    return out
