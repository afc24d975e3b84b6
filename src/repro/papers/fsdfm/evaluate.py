"""CLI: sample one system at every NFE of the sweep and score the samples, one seed.

    python -m repro.papers.fsdfm.evaluate --config src/repro/papers/fsdfm/config.yaml \\
        --scale small \\
        --system fsdfm_cumulative --seed 0 --data data/fsdfm/small/data.npz \\
        --model results/small/fsdfm/models/fsdfm_cumulative/seed0 \\
        --out results/small/fsdfm/eval/fsdfm_cumulative_seed0.json

A system is a model and an update rule (`SYSTEMS`): the DFM with its own Euler sampler (the
standard scalar: the paper's 1,024-step baseline), the same DFM with the cumulative-scalar rule,
and FS-DFM students (trained with the cumulative or the standard rule inside the teacher's jumps)
sampled with the rule they were trained with, given the step size. For every NFE: `n_samples`
sequences in batches, each batch drawn from its own generator (seed, NFE, batch), the sampling
wall time per sequence measured, and the samples scored (`metrics.sample_metrics`): generative
perplexity under the true law (markov2; at full a judge model's NLL), per-sample unigram
entropy, distinct n-grams, repeats. Writes the metrics JSON and the samples (`.npz` beside it).

Resumable (repro.core.checkpoint): each (NFE, batch) is a unit; the samples and times so far are
the saved state, so a stopped job redoes at most the batch it was in.
"""

from __future__ import annotations

import io
import time
import zlib
from pathlib import Path
from typing import Any

import numpy as np
import torch

from repro.core.checkpoint import Resumable, settings_key
from repro.core.config import job_parser
from repro.core.device import pick_device
from repro.core.io import atomic_path, write_json
from repro.core.progress import get_logger
from repro.core.seeding import seed_everything
from repro.papers.fsdfm.data import load_data
from repro.papers.fsdfm.flow import sample
from repro.papers.fsdfm.metrics import sample_metrics
from repro.papers.fsdfm.settings import Settings, load
from repro.papers.fsdfm.train import load_model, path_of

# system -> (model stage, the rule it is sampled with)
SYSTEMS = {
    "dfm_standard": ("dfm", "euler"),
    "dfm_cumulative": ("dfm", "cumulative"),
    "fsdfm_cumulative": ("fsdfm", "cumulative"),
    "fsdfm_standard": ("fsdfm", "standard"),
}


def unit_seed(seed: int, system: str, nfe: int, batch: int) -> int:
    return int(np.random.SeedSequence([seed, zlib.crc32(system.encode()), nfe, batch])
               .generate_state(1)[0])


def evaluate(cfg: Settings, system: str, seed: int, model_dir: Path, data: dict[str, Any],
             out: Path, log: Any = print, device: str = "cpu") -> tuple[dict, dict]:
    if system not in SYSTEMS:
        raise SystemExit(f"unknown system {system!r}: allowed are {', '.join(SYSTEMS)}")
    stage, rule = SYSTEMS[system]
    model, meta = load_model(model_dir / "model.pt", cfg, device)
    if (meta["stage"] != stage or (stage == "fsdfm" and meta["rule"] != rule)):
        raise SystemExit(f"{model_dir}: a {meta['stage']} model (rule {meta['rule']}), not "
                         f"what {system} samples")
    path = path_of(cfg, int(data["vocab"]))
    length = int(data["length"])
    e = cfg.eval
    batches = [min(e.batch_size, e.n_samples - i) for i in range(0, e.n_samples, e.batch_size)]
    units = [(nfe, b) for nfe in e.nfe for b in range(len(batches))]

    def denoise(x: torch.Tensor, t: torch.Tensor, h: torch.Tensor) -> torch.Tensor:
        return model(x, t, h) if meta["dt_conditioned"] else model(x, t)

    def one(unit: tuple[int, int]) -> dict[str, Any]:
        nfe, b = unit
        gen = torch.Generator().manual_seed(unit_seed(seed, system, nfe, b))
        c0 = time.perf_counter()
        with torch.no_grad():
            x = sample(denoise, path, batches[b], length, nfe, rule, gen, e.time_epsilon,
                       device)
        wall = time.perf_counter() - c0
        log(f"{system} seed {seed}: NFE {nfe} batch {b + 1}/{len(batches)}: "
            f"{wall / batches[b] * 1000:.1f} ms per sequence")
        return {"x": x.cpu().numpy().astype(np.int32), "wall_s": wall}

    key = {"settings": settings_key({"eval": e.__dict__, "path": cfg.path.__dict__}),
           "system": system, "seed": seed}
    with Resumable(out, key, every=1, inputs=[model_dir / "model.pt"],
                   what=f"{system} seed {seed}") as ck:
        done = ck.map(one, units)
    by_nfe: dict[int, list[dict[str, Any]]] = {}
    for (nfe, _), r in zip(units, done, strict=True):
        by_nfe.setdefault(nfe, []).append(r)
    chain = data.get("chain")
    samples, results = {}, []
    for nfe, rs in by_nfe.items():
        x = np.concatenate([r["x"] for r in rs])
        samples[f"nfe{nfe}"] = x
        if chain is not None:
            m = sample_metrics(x, chain, e.ngram)
        else:  # text (full): the paper's judge model
            from repro.papers.fsdfm.judge import judge_nll

            m = sample_metrics(x, None, e.ngram, nll=judge_nll(x, e.judge, device))
        results.append({"nfe": nfe, **m,
                        "ms_per_sequence": 1000 * sum(r["wall_s"] for r in rs) / len(x)})
    return ({"system": system, "seed": seed, "stage": stage, "rule": rule,
             "n_samples": e.n_samples, "length": length, "device": device, "by_nfe": results},
            samples)


def main(argv: list[str] | None = None) -> None:
    ap = job_parser(__doc__.splitlines()[0], log=True)
    ap.add_argument("--system", required=True)
    ap.add_argument("--seed", required=True, type=int)
    ap.add_argument("--model", required=True, type=Path, help="the trained model's directory")
    ap.add_argument("--data", required=True, type=Path)
    ap.add_argument("--samples", type=Path, help="where the samples go (.npz)")
    a = ap.parse_args(argv)
    cfg = load(a.config, a.scale)
    seed_everything(a.seed)
    log = get_logger(f"fsdfm.evaluate.{a.system}", a.log)
    result, samples = evaluate(cfg, a.system, a.seed, a.model, load_data(a.data), Path(a.out),
                               log=log.info, device=pick_device())
    if a.samples:
        buf = io.BytesIO()
        np.savez_compressed(buf, **samples)
        with atomic_path(a.samples) as tmp:
            tmp.write_bytes(buf.getvalue())
    write_json(a.out, result)
    for r in result["by_nfe"]:
        log.info(f"NFE {r['nfe']}: gen. perplexity {r['gen_ppl']:.3f}, entropy "
                 f"{r['entropy_bits']:.3f} bits, {r['ms_per_sequence']:.1f} ms/sequence")


if __name__ == "__main__":
    main()
