"""The mixtures PS and PM are scored on, one file per data set and seed, in one format for the
synthesised and the real data: for each mixture m, `refs{m}` (S, N) loudness-normalised
references, `outputs{m}` (C, S, N) the outputs of C systems (for the synthesised data, the
grid cells of controlled leakage x distortion), `leak{m}` / `dist{m}` (C,) their level
indices (-1: unknown) and `mos{m}` (C, S) the listeners' scores (NaN: none).

    python -m repro.papers.pspm.data synth  --dataset speech_en --seed 0 ...
    python -m repro.papers.pspm.data fetch  (full: SASSEC.zip into sassec.root)
    python -m repro.papers.pspm.data sassec --dataset sassec_en ... (full)

Full: SASSEC's references (Signals/orig/<mixture>_<k>.wav) and its systems' outputs
(Signals/<system>/<mixture>_<k>.wav), from the SEBASS download; the human MOS is not in that
archive, so it is read from `sassec.mos` (a CSV: item, system, source, mos) that a user puts
there by hand (README); without it the DAG still scores every system, and the report says
that no MOS correlation can be computed.
"""

from __future__ import annotations

import csv
import hashlib
import io
import logging
import math
import urllib.request
import zipfile
import zlib
from pathlib import Path

import numpy as np

from repro.core.config import job_parser
from repro.core.io import atomic_path, write_json
from repro.papers.pspm import mixtures
from repro.papers.pspm.distortions import RATE, normalise
from repro.papers.pspm.settings import SASSEC, Settings, load

log = logging.getLogger("pspm.data")


def _save(path: Path, arrays: dict[str, np.ndarray]) -> None:
    buf = io.BytesIO()
    np.savez_compressed(buf, **arrays)
    with atomic_path(path) as tmp:
        tmp.write_bytes(buf.getvalue())


def synthesise(cfg: Settings, dataset: str, seed: int) -> tuple[dict[str, np.ndarray], dict]:
    """Every mixture of one synthesised data set and seed, with its grid of degraded outputs."""
    from repro.core import speech

    rng = np.random.default_rng([seed, zlib.crc32(dataset.encode())])
    s = cfg.synth
    cells = [(i, j) for i in range(len(s.leakage_itr_db)) for j in range(len(s.distortion_p))]
    arrays: dict[str, np.ndarray] = {}
    items = []
    for m in range(s.mixtures):
        if dataset == "music":
            refs, labels = mixtures.music_sources(s.seconds, rng)
        else:
            lang = dataset.split("_")[1]
            refs, labels = mixtures.speech_sources(s.texts[lang], lang, s.voices, 2, s.seconds, rng)
        refs = np.stack([normalise(r) for r in refs])
        outs = [mixtures.degrade(refs, s.leakage_itr_db[i], s.distortion_p[j], rng)
                for i, j in cells]
        arrays[f"refs{m}"] = refs.astype(np.float32)
        arrays[f"outputs{m}"] = np.stack(outs).astype(np.float32)
        arrays[f"leak{m}"] = np.array([i for i, _ in cells])
        arrays[f"dist{m}"] = np.array([j for _, j in cells])
        arrays[f"mos{m}"] = np.full((len(cells), len(refs)), np.nan)
        items.append({"mixture": m, "sources": labels})
        log.info("%s seed %d: mixture %d/%d (%s)", dataset, seed, m + 1, s.mixtures,
                 "; ".join(labels))
    info = {"dataset": dataset, "seed": seed, "kind": "synthesised", "rate": RATE,
            "seconds": s.seconds, "mixtures": items, "systems": len(cells),
            "leakage_itr_db": s.leakage_itr_db, "distortion_p": s.distortion_p,
            "espeak_ng": speech.version() if dataset != "music" else None}
    return arrays, info


# ---------------------------------------------------------------- full: SASSEC (SEBASS)


def fetch(url: str, root: Path) -> Path:
    """Download SASSEC.zip and unpack its Signals/ into `root` (a no-op once it is there)."""
    if (root / "Signals" / "orig").is_dir():
        log.info("SASSEC already at %s", root)
        return root
    root.parent.mkdir(parents=True, exist_ok=True)
    h, buf = hashlib.sha256(), io.BytesIO()
    with urllib.request.urlopen(url, timeout=60) as resp:
        while block := resp.read(1 << 20):
            buf.write(block)
            h.update(block)
            if buf.tell() % (20 << 20) < (1 << 20):
                log.info("downloading %s: %.0f MB", url, buf.tell() / 1e6)
    log.info("SASSEC.zip sha256 %s (record it in src/repro/papers/pspm/manifest.json)",
             h.hexdigest())
    with atomic_path(root) as tmp, zipfile.ZipFile(buf) as z:
        for info in z.infolist():
            parts = Path(info.filename).parts
            if "Signals" not in parts or info.is_dir() or ".." in parts:
                continue
            dest = tmp.joinpath(*parts[parts.index("Signals"):])
            dest.parent.mkdir(parents=True, exist_ok=True)
            dest.write_bytes(z.read(info))
    return root


def _read(path: Path) -> np.ndarray:
    import soundfile
    from scipy.signal import resample_poly

    x, rate = soundfile.read(path, dtype="float64", always_2d=True)
    x = x.mean(1)
    if rate != RATE:
        g = math.gcd(rate, RATE)
        x = resample_poly(x, RATE // g, rate // g)
    return x


def read_mos(path: Path) -> dict[tuple[str, str, int], float]:
    if not path.exists():
        return {}
    with path.open() as f:
        return {(r["item"], r["system"], int(r["source"])): float(r["mos"])
                for r in csv.DictReader(f)}


def sassec(cfg: Settings, dataset: str) -> tuple[dict[str, np.ndarray], dict]:
    part = getattr(cfg.sassec, SASSEC[dataset])
    root = Path(cfg.sassec.root) / "Signals"
    if not (root / "orig").is_dir():
        raise SystemExit(f"{root}/orig not found: run the fetch rule (SASSEC.zip) first")
    systems = sorted(p.name for p in root.iterdir() if p.is_dir() and p.name != "orig")
    mos = read_mos(Path(cfg.sassec.mos))
    arrays: dict[str, np.ndarray] = {}
    items = []
    for m, name in enumerate(part.mixtures):
        refs = [_read(root / "orig" / f"{name}_{k}.wav") for k in part.sources]
        outs = [[_read(root / sy / f"{name}_{k}.wav") for k in part.sources] for sy in systems]
        n = min(len(x) for x in [*refs, *(o for row in outs for o in row)])
        arrays[f"refs{m}"] = np.stack([normalise(r[:n]) for r in refs]).astype(np.float32)
        arrays[f"outputs{m}"] = np.array([[o[:n] for o in row] for row in outs], np.float32)
        arrays[f"leak{m}"] = np.full(len(systems), -1)
        arrays[f"dist{m}"] = np.full(len(systems), -1)
        arrays[f"mos{m}"] = np.array([[mos.get((name, sy, k), np.nan) for k in part.sources]
                                      for sy in systems])
        items.append({"mixture": name, "sources": [f"{name}_{k}" for k in part.sources]})
    info = {"dataset": dataset, "seed": 0, "kind": "sassec", "rate": RATE, "systems": systems,
            "mixtures": items, "mos_found": bool(mos)}
    return arrays, info


def main(argv: list[str] | None = None) -> None:
    ap = job_parser("the PS/PM mixtures of one data set and seed")
    ap.add_argument("what", choices=("synth", "fetch", "sassec"))
    ap.add_argument("--dataset")
    ap.add_argument("--seed", type=int, default=0)
    a = ap.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s: %(message)s")
    cfg = load(a.config, a.scale)
    if a.what == "fetch":
        fetch(cfg.sassec.url, Path(cfg.sassec.root))
        write_json(a.out, {"url": cfg.sassec.url, "root": cfg.sassec.root})
        return
    if a.dataset not in cfg.datasets:
        raise SystemExit(f"--dataset {a.dataset!r} is not one of {cfg.datasets}")
    arrays, info = (synthesise(cfg, a.dataset, a.seed) if a.what == "synth"
                    else sassec(cfg, a.dataset))
    _save(a.out, arrays)
    write_json(a.out.with_suffix(".json"), info)


if __name__ == "__main__":
    main()
