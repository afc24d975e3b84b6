"""Evaluate one aligned model (or the starting model, `none`): refusal of held-out harmful prompts
per language, over-refusal of benign prompts per language, and the cross-lingual collinearity of
held-out prompts' representations.

    python -m repro.papers.mlc.evaluate --config src/repro/papers/mlc/config.yaml --scale small \\
        --data data/mlc/small/data.json --method mlc --seed 0 \\
        --adapter results/small/mlc/adapters/mlc/seed0 --out results/small/mlc/eval/mlc_seed0.json

Responses are greedy (`eval.max_new_tokens` tokens) and judged by judge.is_refusal; every
response is kept in the output, so the judge can be audited. Collinearity is sigma_1 / sum sigma
of the held-out prompt's unit representations in all languages (method.collinearity), at the
layer and pooling the consistency term trains, read off the generation's own prefill and
averaged over prompts; the mean cosine of each
language's representation to the English one is kept beside it. Resumable per batch
(repro.core.checkpoint).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import torch

from repro.core.checkpoint import Resumable, settings_key
from repro.core.config import job_parser
from repro.core.io import read_json, write_json
from repro.core.progress import get_logger, progress
from repro.papers.mlc import judge
from repro.papers.mlc import model as M
from repro.papers.mlc.method import collinearity, unit_rows
from repro.papers.mlc.settings import REFERENCE, load


def items(data: dict, batch: int, n_tokens) -> list[tuple]:
    """The work, in resumable units: (kind, language, prompt ids) generation batches of the
    harmful test set and of the benign set, each language's prompts sorted by length first
    (less padding: a batch of Thai prompts runs several times the English length)."""
    out = []
    for kind, rows in (("harmful", data["test"]), ("benign", data["benign"])):
        for lang in data["langs"]:
            ids = [r["id"] for r in sorted(rows, key=lambda r: (n_tokens(r["prompts"][lang]),
                                                                r["id"]))]
            out += [(kind, lang, ids[i:i + batch]) for i in range(0, len(ids), batch)]
    return out


def geometry(states: dict[tuple[int, str], np.ndarray], ids: list[int], langs: list[str]
             ) -> list[dict]:
    """Per held-out prompt: collinearity of its languages' states and each one's cosine to
    English."""
    h = torch.tensor(np.stack([np.stack([states[(i, g)] for g in langs]) for i in ids]))
    u = unit_rows(h)
    cos = (u * u[:, :1]).sum(-1)
    return [{"id": i, "collinearity": float(c), "cos_en": [float(x) for x in row]}
            for i, c, row in zip(ids, collinearity(h), cos, strict=True)]


def main(argv: list[str] | None = None) -> None:
    ap = job_parser(__doc__.splitlines()[0], log=True)
    ap.add_argument("--data", required=True, type=Path)
    ap.add_argument("--method", required=True)
    ap.add_argument("--seed", required=True, type=int)
    ap.add_argument("--adapter", type=Path)
    a = ap.parse_args(argv)
    cfg = load(a.config, a.scale)
    if a.method != REFERENCE and a.method not in cfg.methods:
        raise SystemExit(f"unknown method {a.method!r}; {a.config} has {list(cfg.methods)} "
                         f"and the reference {REFERENCE!r}")
    if (a.adapter is None) != (a.method == REFERENCE):
        raise SystemExit(f"--adapter is needed for a trained method and refused for "
                         f"{REFERENCE!r} (the starting model)")
    device = M.job_device(a.scale, a.seed)
    log = get_logger("mlc.evaluate", a.log)
    data = read_json(a.data)
    langs = data["langs"]
    prompts = {("harmful", r["id"]): r["prompts"] for r in data["test"]}
    prompts |= {("benign", r["id"]): r["prompts"] for r in data["benign"]}
    tok, lm = M.load(cfg.model.ref, device, a.adapter)
    work = items(data, cfg.eval.batch, lambda t: len(tok(t, add_special_tokens=False)
                                                    ["input_ids"]))
    bar = iter(progress(range(len(work)), desc=f"evaluate {a.method} seed {a.seed}"))

    def run_one(item: tuple) -> list:
        kind, lang, ids = item
        texts = [M.render(tok, prompts[(kind, i)][lang], cfg.model.system) for i in ids]
        outs, h = M.greedy(lm, tok, texts, cfg.eval.max_new_tokens, device,
                           layer=cfg.train.layer if kind == "harmful" else None,
                           pooling=cfg.train.pooling)
        res = [{"id": i, "response": o, "refusal": judge.is_refusal(o)}
               for i, o in zip(ids, outs, strict=True)]
        if h is not None:
            for r, v in zip(res, h.cpu().numpy(), strict=True):
                r["state"] = v
        next(bar, None)
        return res

    key = {"job": "mlc.evaluate", "method": a.method, "seed": a.seed, "device": device,
           "model": vars(cfg.model), "eval": settings_key(vars(cfg.eval)),
           "layer": cfg.train.layer, "pooling": cfg.train.pooling}
    with Resumable(a.out, key, every=1, inputs=[a.data] + ([a.adapter / "adapter_model.safetensors"]
                                                          if a.adapter else []),
                   what=f"mlc evaluate {a.method} seed {a.seed}") as ck:
        results = ck.map(run_one, work)
    out: dict = {"method": a.method, "seed": a.seed, "langs": langs,
                 "consistency": cfg.methods.get(a.method, "none"),
                 "objective": None if a.method == REFERENCE else cfg.train.objective,
                 "harmful": {g: [] for g in langs}, "benign": {g: [] for g in langs}}
    states = {}
    for (kind, lang, _), res in zip(work, results, strict=True):
        for r in res:
            if "state" in r:
                states[(r["id"], lang)] = r.pop("state")
        out[kind][lang].extend(res)
    for kind, rows in (("harmful", data["test"]), ("benign", data["benign"])):
        rank = {r["id"]: k for k, r in enumerate(rows)}
        for lang in langs:   # back to the data's order
            out[kind][lang].sort(key=lambda r: rank[r["id"]])
    out["states"] = geometry(states, [r["id"] for r in data["test"]], langs)
    out["refusal"] = {g: float(np.mean([r["refusal"] for r in out["harmful"][g]]))
                      for g in langs}
    out["over_refusal"] = {g: float(np.mean([r["refusal"] for r in out["benign"][g]]))
                           for g in langs}
    out["collinearity"] = float(np.mean([s["collinearity"] for s in out["states"]]))
    out["cos_en"] = {g: float(np.mean([s["cos_en"][k] for s in out["states"]]))
                     for k, g in enumerate(langs)}
    write_json(a.out, out)
    log.info(f"wrote {a.out}: refusal " + " ".join(f"{g} {v:.2f}" for g, v in
                                                   out["refusal"].items())
             + f"; over-refusal {np.mean(list(out['over_refusal'].values())):.2f}; "
             f"collinearity {out['collinearity']:.3f}")


if __name__ == "__main__":
    main()
