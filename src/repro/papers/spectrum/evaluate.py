"""Score one model on one seed's held-out sets: the paper's three desiderata, as its code does.

    python -m repro.papers.spectrum.evaluate --config src/repro/papers/spectrum/config.yaml \\
        --scale small \\
        --suite data/spectrum/small/suite.json --model spectrum --seed 0 \\
        [--adapter results/small/spectrum/adapters/seed0] \\
        --out results/small/spectrum/eval/spectrum_seed0.json

- In-context steerability: each held-out context (k+1 outputs) in the model's format; the loss
  of output j is the summed NLL (nats) of its tokens (content + end token) given everything
  before it; the paper's `loss_geq_1` is the mean over outputs 1..k (the first has no context).
- Distributional alignment: zero-shot (description and input, no examples); each option's
  probability exactly (exp of the summed log-probabilities of its tokens, no sampling), the sum
  over options is the coverage of the valid set, the renormalised options the model's
  distribution Q; P and Q smoothed with 1e-6 and renormalised; JS(P, Q) and KL(P || Q) in nats.
- Valid output coverage: `eval.coverage_samples` samples at temperature 1 (top-p 1) from the
  description and/or three example outputs, each cut at the end token or a newline and
  stripped; % valid = valid / N, % unique = distinct valid / valid, yield = distinct valid.

Resumable per item (repro.core.checkpoint.map): every finished context, item or coverage task is
kept, so a stopped job goes on after the last one; each item draws from its own seed.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import numpy as np

from repro.core.checkpoint import Resumable, settings_key
from repro.core.config import job_parser
from repro.core.io import read_json, write_json
from repro.core.progress import get_logger, progress
from repro.papers.spectrum import models
from repro.papers.spectrum.formats import (
    DIST_SYSTEM,
    FAMILIES,
    option_text,
    prompt,
    render,
    stop_strings,
)
from repro.papers.spectrum.settings import Settings, load
from repro.papers.spectrum.suite import Context, coverage_tasks

EPS = 1e-6


def divergences(p: np.ndarray, q: np.ndarray, eps: float = EPS) -> dict[str, float]:
    """JS(P, Q), KL(P || Q) and KL(Q || P) in nats after adding `eps` to both and
    renormalising (the official evaluation's smoothing)."""
    p = (np.asarray(p, float) + eps)
    q = (np.asarray(q, float) + eps)
    p, q = p / p.sum(), q / q.sum()
    m = (p + q) / 2

    def kl(a: np.ndarray, b: np.ndarray) -> float:
        return float(np.sum(a * np.log(a / b)))

    return {"js": 0.5 * kl(p, m) + 0.5 * kl(q, m), "kl": kl(p, q), "reverse_kl": kl(q, p)}


def coverage_stats(samples: list[str], valid) -> dict[str, float]:
    ok = [s for s in samples if valid(s)]
    distinct = set(ok)
    return {"valid_pct": 100.0 * len(ok) / len(samples),
            "unique_pct": 100.0 * len(distinct) / len(ok) if ok else 0.0,
            "yield": float(len(distinct))}


def checkpoint_ref(cfg: Settings, name: str) -> str:
    which = cfg.models[name].checkpoint
    return cfg.model.instruct if which == "tuned" else getattr(cfg.model, which)


def main(argv: list[str] | None = None) -> None:
    ap = job_parser(__doc__.splitlines()[0], log=True)
    ap.add_argument("--suite", required=True, type=Path)
    ap.add_argument("--model", required=True)
    ap.add_argument("--seed", required=True, type=int)
    ap.add_argument("--adapter", type=Path, default=None)
    a = ap.parse_args(argv)
    cfg = load(a.config, a.scale)
    if a.model not in cfg.models:
        raise SystemExit(f"unknown model {a.model!r} (configured: {', '.join(cfg.models)})")
    spec = cfg.models[a.model]
    if (spec.checkpoint == "tuned") != (a.adapter is not None):
        raise SystemExit(f"model {a.model!r} ({spec.checkpoint}) "
                         + ("needs --adapter" if spec.checkpoint == "tuned" else
                            "takes no --adapter"))
    from repro.core.device import NoGPUError, limit_cpu_threads, pick_device
    from repro.core.seeding import seed_everything

    try:
        device = pick_device(require_gpu=a.scale == "full")
    except NoGPUError as e:
        raise SystemExit(str(e)) from None
    limit_cpu_threads(1)
    seed_everything(a.seed)
    log = get_logger("spectrum.evaluate", a.log)
    fam, fmt = FAMILIES[cfg.model.family], spec.format
    suite = read_json(a.suite)
    sets = suite["eval"][str(a.seed)]
    tasks = coverage_tasks()
    t0 = time.time()
    tok, model = models.load(checkpoint_ref(cfg, a.model), device, adapter=a.adapter)
    stops = stop_strings(fmt, fam)
    stop_ids = models.stop_token_ids(tok, [*stops, *([tok.eos_token] if tok.eos_token else [])])

    def ids_of(segs) -> list[int]:
        return models.encode(segs, tok, fam).ids

    def run(item: tuple) -> dict[str, Any]:
        kind, i = item[0], item[1]
        if kind == "steer":
            ctx = Context.from_json(sets["steer"][i])
            enc = models.encode(render(ctx, fmt, fam), tok, fam, cfg.eval.max_tokens)
            losses = models.output_losses(model, enc, device)
            return {"family": ctx.family, "described": ctx.description is not None,
                    "losses": {str(j): v for j, v in losses.items()}}
        if kind == "dist":
            it = sets["dist"][i]
            ids = ids_of(prompt(fmt, fam, it["description"], [], it["input"], DIST_SYSTEM))
            lp = models.option_logprobs(model, tok, ids,
                                        [option_text(fmt, o) for o in it["options"]], device)
            prob = np.exp(lp)
            mass = float(prob.sum())
            q = prob / mass if mass > 0 else np.full(len(prob), 1 / len(prob))
            return {"task": it["task"], "coverage": mass, "q": q.tolist(),
                    **divergences(np.array(it["target"]), q)}
        name, comp = item[1], item[2]
        t = tasks[name]
        ids = ids_of(prompt(fmt, fam, t.description if comp != "examples" else None,
                            t.examples if comp != "description" else []))
        seed = int(np.random.default_rng([a.seed, 11, *map(ord, name + comp)]).integers(2**31))
        samples = models.sample(model, tok, ids, cfg.eval.coverage_samples,
                                t.max_new_tokens, cfg.eval.temperature, seed, stops, device,
                                stop_ids)
        return {"task": name, "component": comp, "samples": samples,
                **coverage_stats(samples, t.valid)}

    items = [("steer", i) for i in range(len(sets["steer"]))]
    items += [("dist", i) for i in range(len(sets["dist"]))]
    items += [("cov", n, c) for n in suite["coverage_tasks"] for c in cfg.eval.components]
    key = {"job": "spectrum.evaluate", "model": a.model, "seed": a.seed, "device": device,
           "refs": vars(cfg.model), "spec": vars(spec), "eval": settings_key(vars(cfg.eval))}
    inputs = [a.suite] + ([a.adapter] if a.adapter else [])
    with Resumable(a.out, key, inputs=inputs, what=f"{a.model} seed {a.seed}",
                   map_location=device) as ck:
        bar = progress(range(len(items)), desc=f"evaluate {a.model} seed {a.seed}")

        def run_one(item: tuple) -> dict[str, Any]:
            r = run(item)
            next(bar, None)
            return r

        results = ck.map(run_one, items)
        out = {"model": a.model, "seed": a.seed, "checkpoint": spec.checkpoint,
               "format": fmt, "ref": checkpoint_ref(cfg, a.model),
               "steer": [r for r, it in zip(results, items, strict=True) if it[0] == "steer"],
               "dist": [r for r, it in zip(results, items, strict=True) if it[0] == "dist"],
               "coverage": [r for r, it in zip(results, items, strict=True)
                            if it[0] == "cov"]}
        write_json(a.out, out)
    log.info(f"wrote {a.out}: {len(items)} items in {time.time() - t0:.0f} s")


if __name__ == "__main__":
    main()
