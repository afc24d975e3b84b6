"""The alternative measures PS and PM are compared with, on the same outputs: SI-SDR (our
own, the scale-invariant definition of Le Roux et al.), BSS Eval SDR / SIR / SAR (fast-bss-eval,
512-tap distortion filters, the sources in their known order), wide-band PESQ (the ITU P.862.2
C code, `pesq`), STOI and extended STOI (`pystoi`). Every measure is "higher is better"; the
decibel measures are clamped at 60 dB, so a perfect output does not become infinite."""

from __future__ import annotations

import math
import warnings

import numpy as np

from repro.papers.pspm.distortions import RATE

MEASURES = ("si_sdr", "sdr", "sir", "sar", "pesq", "stoi", "estoi")
CLAMP_DB = 60.0


def si_sdr(ref: np.ndarray, est: np.ndarray) -> float:
    ref, est = np.asarray(ref, np.float64), np.asarray(est, np.float64)
    scale = float(est @ ref) / max(float(ref @ ref), 1e-20)
    target = scale * ref
    noise = est - target
    ratio = float(target @ target) / max(float(noise @ noise), 1e-20)
    return min(10 * math.log10(max(ratio, 1e-20)), CLAMP_DB)


def _pesq(ref, est) -> float | None:
    from pesq import pesq

    try:
        return float(pesq(RATE, ref.astype(np.float32), est.astype(np.float32), "wb"))
    except Exception:  # no utterance detected, or a signal PESQ refuses: not a number
        return None


def baselines(refs: np.ndarray, outs: np.ndarray) -> dict[str, list[float | None]]:
    """Per source, every baseline measure of outs[s] against refs[s]."""
    import torch
    from fast_bss_eval import bss_eval_sources
    from pystoi import stoi

    refs, outs = np.asarray(refs, np.float64), np.asarray(outs, np.float64)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        # fast-bss-eval's numpy back end breaks on numpy 2's solve(); its torch one does not
        sdr, sir, sar = (v.numpy() for v in bss_eval_sources(
            torch.from_numpy(refs), torch.from_numpy(outs), compute_permutation=False,
            clamp_db=CLAMP_DB))
    res: dict[str, list[float | None]] = {m: [] for m in MEASURES}
    for s in range(len(refs)):
        res["si_sdr"].append(si_sdr(refs[s], outs[s]))
        res["sdr"].append(float(sdr[s]))
        res["sir"].append(float(sir[s]))
        res["sar"].append(float(sar[s]))
        res["pesq"].append(_pesq(refs[s], outs[s]))
        res["stoi"].append(float(stoi(refs[s], outs[s], RATE, extended=False)))
        res["estoi"].append(float(stoi(refs[s], outs[s], RATE, extended=True)))
    return res


def main(argv: list[str] | None = None) -> None:
    from pathlib import Path

    from repro.core.config import job_parser
    from repro.core.io import write_json

    ap = job_parser("the baseline measures of every output in one data file")
    ap.add_argument("--data", required=True, type=Path)
    a = ap.parse_args(argv)
    z = np.load(a.data)
    records = []
    for m in range(sum(1 for k in z.files if k.startswith("refs"))):
        refs, outs = z[f"refs{m}"], z[f"outputs{m}"]
        for c in range(len(outs)):
            b = baselines(refs, outs[c])
            records += [{"mixture": m, "system": c, "source": s, **{k: b[k][s] for k in MEASURES}}
                        for s in range(len(refs))]
    write_json(a.out, {"measures": list(MEASURES), "records": records})


if __name__ == "__main__":
    main()
