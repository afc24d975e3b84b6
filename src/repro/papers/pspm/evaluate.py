"""Score every system output of one data file with PS and PM under one encoder.

Per mixture: each reference's PS and PM banks (one generator, seeded with `bank_seed`, drawn
in order, as the official code seeds once per experiment), their encodings (shared by all
systems), then per system the frame-level PS / PM with radius and half-width, pooled per
source over the scored frames. One record per (mixture, system, source).
"""

from __future__ import annotations

import logging
import time
from pathlib import Path

import numpy as np

from repro.core.config import job_parser
from repro.core.io import write_json
from repro.papers.pspm import engine
from repro.papers.pspm.distortions import pm_bank, ps_bank
from repro.papers.pspm.encoders import encoder
from repro.papers.pspm.settings import load

log = logging.getLogger("pspm.evaluate")


def mixtures_in(z) -> int:
    return sum(1 for k in z.files if k.startswith("refs"))


def score_file(data: Path, kind: str, cfg) -> tuple[list[dict], dict]:
    z = np.load(data)
    enc = encoder(kind, layer=cfg.layer, bands=cfg.mel_bands)
    rng = np.random.default_rng(cfg.bank_seed)
    records, dims = [], {"ps": [], "pm": []}
    for m in range(mixtures_in(z)):
        t0 = time.time()
        refs = z[f"refs{m}"].astype(np.float64)
        ps_banks = [ps_bank(r, rng)[0] for r in refs]
        pm_banks = [pm_bank(r, rng)[0] for r in refs]
        mix = engine.Mixture.encode(refs, ps_banks, pm_banks, enc)
        outs = z[f"outputs{m}"]
        for c in range(len(outs)):
            u = engine.utterance(engine.score(mix, engine.encode_outputs(outs[c], enc),
                                              alpha=cfg.alpha, cutoff=cfg.cutoff,
                                              delta=cfg.delta))
            for s in range(len(refs)):
                records.append({
                    "mixture": m, "system": c, "source": s,
                    "leak": int(z[f"leak{m}"][c]), "dist": int(z[f"dist{m}"][c]),
                    "mos": None if np.isnan(z[f"mos{m}"][c, s]) else float(z[f"mos{m}"][c, s]),
                    **{k: u[k][s] for k in ("ps", "pm", "ps_radius", "ps_half", "pm_radius",
                                            "pm_half", "frames")}})
            dims["ps"] += [x for x in u["ps_dims"] if x is not None]
            dims["pm"] += [x for x in u["pm_dims"] if x is not None]
        log.info("mixture %d/%d: %d systems x %d sources scored in %.1f s (PM bank %d per "
                 "reference)", m + 1, mixtures_in(z), len(outs), len(refs), time.time() - t0,
                 mix.pm_bank.shape[1])
    summary = {"ps_bank": int(mix.ps_bank.shape[1]), "pm_bank": int(mix.pm_bank.shape[1]),
               "frames_per_signal": int(mix.ref.shape[1]),
               "mean_kept_dims": {k: float(np.mean(v)) if v else None for k, v in dims.items()}}
    return records, summary


def main(argv: list[str] | None = None) -> None:
    ap = job_parser("PS and PM of every output in one data file, under one encoder")
    ap.add_argument("--data", required=True, type=Path)
    ap.add_argument("--encoder", required=True)
    a = ap.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s: %(message)s")
    cfg = load(a.config, a.scale)
    if a.encoder not in cfg.encoders:
        raise SystemExit(f"--encoder {a.encoder!r} is not one of {cfg.encoders}")
    records, summary = score_file(a.data, a.encoder, cfg)
    write_json(a.out, {"encoder": a.encoder, **summary, "records": records})


if __name__ == "__main__":
    main()
