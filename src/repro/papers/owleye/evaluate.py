"""Score the unseen domains: one trained detector (OWLEYE, its ablations, ARC) or one per-graph
baseline (DOMINANT, IsolationForest, LOF), one seed.

    python -m repro.papers.owleye.evaluate --config src/repro/papers/owleye/config.yaml \
        --scale small \
        --model results/small/owleye/runs/owleye/seed0.pt \
        --aligned data/owleye/small/aligned.npz --out results/small/owleye/eval/owleye/seed0.json
    python -m repro.papers.owleye.evaluate ... --baseline dominant --seed 0 \
        --graphs data/owleye/small/graphs/wine.npz ... \
        --out results/small/owleye/eval/dominant/seed0.json

Protocols for the in-context detectors: `zero_shot` (the paper's main table: `eval.context`
random target nodes, labels unseen, as OWLEYE's test patterns and as ARC's context) and
`ten_shot` (that many labelled normal target nodes). Context nodes are left out of the
metrics. OWLEYE's dictionary-growth curve: the auxiliary domains' normal patterns are added to
the trained model's dictionary one domain at a time, with no training, and the unseen domains
are scored zero-shot again (the same context nodes) after each. The per-graph baselines are
fitted on each target's own features (DOMINANT also on its edges), unsupervised, and scored on
all its nodes. Every draw comes from (seed, domain, protocol), so results do not depend on the
order of work or on a resume (each (protocol, domain) is one resumable item).
"""

from __future__ import annotations

import json
import time
import zlib
from pathlib import Path
from typing import Any

import numpy as np

from repro.core.checkpoint import Resumable, settings_key
from repro.core.config import job_parser
from repro.core.io import write_json
from repro.core.progress import get_logger
from repro.papers.owleye.settings import BASELINES, PROTOCOLS, Settings, load


def context_nodes(y: np.ndarray, protocol: str, k: int, seed: int, domain: str) -> np.ndarray:
    rng = np.random.default_rng([seed, zlib.crc32(domain.encode()), PROTOCOLS.index(protocol)])
    pool = np.arange(len(y)) if protocol == "zero_shot" else np.flatnonzero(y == 0)
    return np.sort(rng.permutation(pool)[:k])


def metrics(y: np.ndarray, score: np.ndarray, context: np.ndarray | None) -> dict[str, Any]:
    from repro.papers.owleye.baselines import auroc_auprc

    keep = np.ones(len(y), bool)
    if context is not None:
        keep[context] = False
    if not np.isfinite(score[keep]).all():
        raise SystemExit("non-finite anomaly scores: the model diverged")
    auroc, auprc = auroc_auprc(y[keep], score[keep])
    return {"auroc": auroc, "auprc": auprc, "nodes": int(keep.sum()),
            "anomalies": int(y[keep].sum())}


def score_trained(model, method: str, dom, context: np.ndarray, cfg: Settings) -> np.ndarray:
    import torch

    with torch.no_grad():
        if method == "arc":
            s = model.score(dom.hops, context, cfg.eval.chunk)
        else:
            s = model.score(dom, context, cfg.eval.chunk)
    return s.cpu().numpy().astype(np.float64)


def evaluate_trained(model, meta: dict[str, Any], z: Any, cfg: Settings, device: str,
                     ck: Resumable, log) -> dict[str, Any]:
    from repro.papers.owleye.train import domain_of

    method, seed = meta["method"], meta["seed"]
    tests = {d: domain_of(z, d, method, cfg, device) for d in cfg.domains.test}
    items: list[tuple[Any, ...]] = [("score", p, d) for p in cfg.eval.protocols
                                    for d in cfg.domains.test]
    growth = method == "owleye" and cfg.domains.aux
    if growth:
        items += [("growth", k) for k in range(1, len(cfg.domains.aux) + 1)]
    base = list(model.dictionary) if method != "arc" else []

    def one(item: tuple[Any, ...]) -> Any:
        if item[0] == "score":
            _, protocol, d = item
            ctx = context_nodes(tests[d].y, protocol, cfg.eval.context, seed, d)
            res = {"protocol": protocol, "domain": d,
                   **metrics(tests[d].y, score_trained(model, method, tests[d], ctx, cfg), ctx)}
            log.info("%s %s: AUROC %.4f AUPRC %.4f", protocol, d, res["auroc"], res["auprc"])
            return res
        k = item[1]
        model.dictionary = list(base)
        for a in cfg.domains.aux[:k]:
            rng = np.random.default_rng([seed, zlib.crc32(a.encode()), 7])
            model.add_domain(domain_of(z, a, method, cfg, device), rng)
        out = []
        for d in cfg.domains.test:
            ctx = context_nodes(tests[d].y, "zero_shot", cfg.eval.context, seed, d)
            out.append({"domain": d, **metrics(tests[d].y, score_trained(
                model, method, tests[d], ctx, cfg), ctx)})
        model.dictionary = list(base)
        log.info("growth: %d auxiliary domain(s) added, mean AUPRC %.4f", k,
                 float(np.mean([r["auprc"] for r in out])))
        return {"aux": k, "added": list(cfg.domains.aux[:k]), "results": out}

    done = ck.map(one, items)
    scored = [r for r, it in zip(done, items, strict=True) if it[0] == "score"]
    grown = [r for r, it in zip(done, items, strict=True) if it[0] == "growth"]
    if growth:
        grown = [{"aux": 0, "added": [], "results": [
            {k: v for k, v in r.items() if k != "protocol"} for r in scored
            if r["protocol"] == "zero_shot"]}, *grown]
    return {"results": scored, "growth": grown}


def evaluate_baseline(name: str, seed: int, graphs: dict[str, Any], cfg: Settings, device: str,
                      ck: Resumable, log) -> dict[str, Any]:
    from repro.papers.owleye import baselines
    from repro.papers.owleye.dominant import DominantConfig, dominant_scores

    def one(d: str) -> dict[str, Any]:
        g = graphs[d]
        if name == "iforest":
            s = baselines.isolation_forest(g.x, seed, cfg.iforest_trees)
        elif name == "lof":
            s = baselines.lof(g.x, cfg.lof_neighbours)
        else:
            dc = cfg.dominant
            s = dominant_scores(g.x, g.edges, DominantConfig(dc.hidden, dc.lr, dc.epochs,
                                                             dc.alpha), seed, device)
        res = {"protocol": "zero_shot", "domain": d, **metrics(g.y, np.asarray(s, float), None)}
        log.info("%s on %s: AUROC %.4f AUPRC %.4f", name, d, res["auroc"], res["auprc"])
        return res

    return {"results": ck.map(one, list(cfg.domains.test)), "growth": []}


def main(argv: list[str] | None = None) -> None:
    ap = job_parser("owleye: score the unseen domains (one detector, one seed)", log=True)
    ap.add_argument("--model", type=Path, help="a trained detector (train.py)")
    ap.add_argument("--aligned", type=Path, help="with --model: the aligned features")
    ap.add_argument("--baseline", choices=BASELINES, help="or a per-graph baseline")
    ap.add_argument("--seed", type=int, help="with --baseline")
    ap.add_argument("--graphs", nargs="+", type=Path, help="with --baseline: the test graphs")
    a = ap.parse_args(argv)
    if (a.model is None) == (a.baseline is None):
        raise SystemExit("give --model (with --aligned) or --baseline (with --seed, --graphs)")
    cfg = load(a.config, a.scale)

    import torch  # noqa: F401  (imported first: limit_cpu_threads sets its threads)

    from repro.core.device import limit_cpu_threads, pick_device
    from repro.core.seeding import seed_everything

    limit_cpu_threads(cfg.threads)
    device = pick_device(require_gpu=a.scale == "full" and a.baseline not in ("iforest", "lof"))
    log = get_logger("owleye.evaluate", a.log)
    t0 = time.time()
    if a.model is not None:
        if a.aligned is None:
            raise SystemExit("--model needs --aligned")
        from repro.papers.owleye.train import load_model

        model, meta = load_model(a.model, cfg, device)
        method, seed = meta["method"], meta["seed"]
        seed_everything(seed)
        z = np.load(a.aligned)
        inputs = [a.model, a.aligned]
    else:
        if a.seed is None or not a.graphs:
            raise SystemExit("--baseline needs --seed and --graphs")
        from repro.papers.owleye.data import load_graph

        method, seed = a.baseline, a.seed
        seed_everything(seed)
        graphs = {p.stem: load_graph(p) for p in a.graphs}
        missing = [d for d in cfg.domains.test if d not in graphs]
        if missing:
            raise SystemExit(f"--graphs lacks the test domain(s) {', '.join(missing)}")
        inputs = list(a.graphs)
    key = {"settings": settings_key(cfg), "method": method, "seed": seed}
    with Resumable(a.out, key, inputs=inputs, what=f"owleye evaluate {method}/seed{seed}") as ck:
        if a.model is not None:
            res = evaluate_trained(model, meta, z, cfg, device, ck, log)
        else:
            res = evaluate_baseline(method, seed, graphs, cfg, device, ck, log)
    res.update({"method": method, "seed": seed,
                "curve": meta["curve"] if a.model is not None else None})
    write_json(a.out, res)
    log.info("%s / seed %d evaluated in %.1f s", method, seed, time.time() - t0)
    print(json.dumps({"method": method, "seed": seed, "mean_auprc": float(np.mean(
        [r["auprc"] for r in res["results"] if r["protocol"] == "zero_shot"]))}))


if __name__ == "__main__":
    main()
