"""How far each of pspm's two controlled axes moves an output in each offline encoder's space:
the relative distance ||E(x) - E(s)|| / ||E(s) - mean E(s)|| between a degraded output x and its
reference s, both loudness-normalised, for every leakage and distortion level of the small
config. It explains the small run's finding that PM (logmel) moves with leakage more than with
distortion: log compression magnifies another talker's energy in the target's quiet regions.

Run: .venv/bin/python benchmarks/pspm_axis_visibility.py [--language en] [--seeds 3]
"""

from __future__ import annotations

import argparse

import numpy as np

from repro.papers.pspm import encoders, mixtures
from repro.papers.pspm.distortions import normalise
from repro.papers.pspm.settings import load


def rel_distance(s: np.ndarray, x: np.ndarray, encode) -> float:
    a, b = encode(normalise(s)), encode(normalise(x))
    return float(np.linalg.norm(b - a) / np.linalg.norm(a - a.mean(0)))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--language", default="en", choices=["en", "es"])
    ap.add_argument("--seeds", type=int, default=3)
    args = ap.parse_args()
    cfg = load("src/repro/papers/pspm/config.yaml", "small")
    syn = cfg.synth
    kinds = {"logmel": encoders.encoder("logmel"), "raw": encoders.encoder("raw")}
    rows: dict[str, dict[str, list[float]]] = {}
    for seed in range(args.seeds):
        rng = np.random.default_rng(seed)
        refs, _ = mixtures.speech_sources(syn.texts[args.language], args.language,
                                          syn.voices, 2, syn.seconds, rng)
        s, other = normalise(refs[0]), normalise(refs[1])
        cases = {f"leakage ITR {itr} dB": s + other * np.sqrt(
            np.mean(s ** 2) / np.mean(other ** 2) * 10 ** (itr / 10))
            for itr in syn.leakage_itr_db if itr is not None}
        cases |= {f"distortion p = {p}": mixtures.drop_bins(s, p, np.random.default_rng(seed))
                  for p in syn.distortion_p if p > 0}
        for name, x in cases.items():
            for k, enc in kinds.items():
                rows.setdefault(name, {}).setdefault(k, []).append(rel_distance(s, x, enc))
    print(f"relative distance to the reference ({args.language} speech, {args.seeds} seeds)")
    print(f"{'degradation':<24}" + "".join(f"{k:>10}" for k in kinds))
    for name, r in rows.items():
        print(f"{name:<24}" + "".join(f"{np.mean(r[k]):>10.3f}" for k in kinds))


if __name__ == "__main__":
    main()
