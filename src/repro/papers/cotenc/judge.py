"""Classifying every CoT by every rubric (the paper's step 4: each response gets pattern A or B
per rubric, the binary matrix Z).

    python -m repro.papers.cotenc.judge --config ... --scale small --data ... --generations ... \\
        --rubrics fixed --out judged/fixed.json            # the predefined list and the truth
    python -m repro.papers.cotenc.judge ... --rubrics encyclopedia/seed0.json \\
        --out judged/seed0.json                            # one seed's bottom-up rubrics

Two judges, each giving a score (> 0 leans to pattern A):
- `llm`, the paper's: the analyst reads the CoT, the criterion and both patterns' definitions
  and answers with one letter; the score is log p(A) - log p(B) of its first token (the CoT
  comes first in the prompt, so the local model runs it once for all rubrics). The official
  code has GPT-4o write a report ending in its determination; a one-letter answer is the same
  decision without the report.
- `embed`, ours: the best cosine similarity (all-MiniLM-L6-v2) of any of the CoT's sentences
  to pattern A's definition minus that to pattern B's.
Scores become labels in evaluate.py, at a threshold fitted on the training split.
"""

from __future__ import annotations

import re

import numpy as np

from repro.core.checkpoint import Resumable, settings_key
from repro.core.config import job_parser
from repro.core.io import read_json, write_json
from repro.core.progress import get_logger
from repro.papers.cotenc import backends
from repro.papers.cotenc.encyclopedia import clip, cots_of
from repro.papers.cotenc.settings import Settings, load

FIXED = "fixed"
SENTENCE = re.compile(r"(?<=[.!?])\s+")


def fixed_rubrics(cfg: Settings) -> dict[str, list[dict]]:
    """The predefined strategy list (present vs absent) and the planted axes' true rubrics."""
    pre = [{"criterion": k.replace("_", " "), "a": {"name": "present", "text": v},
            "b": {"name": "absent", "text": f"The response shows no {k.replace('_', ' ')}."},
            "id": k} for k, v in cfg.predefined.items()]
    planted = [{"criterion": cfg.axes[x].criterion,
                "a": {"name": cfg.axes[x].a.name, "text": cfg.axes[x].a.text},
                "b": {"name": cfg.axes[x].b.name, "text": cfg.axes[x].b.text}, "id": x}
               for x in cfg.planted]
    return {"predefined": pre, "planted": planted}


def judge_prompt(cot: str, r: dict) -> list[dict]:
    return [{"role": "user", "content": (
        f"Response:\n{cot}\n\n"
        f"Criterion: {r['criterion']}\n"
        f"Pattern A ({r['a']['name']}): {r['a']['text']}\n"
        f"Pattern B ({r['b']['name']}): {r['b']['text']}\n"
        "Which pattern does the response follow? Answer with one letter, A or B.")}]


def sentences(text: str) -> list[str]:
    return [s for s in SENTENCE.split(text) if s.strip()] or [text]


def embed_scores(embed: backends.Embedder, cots: list[dict], rubrics: list[dict]) -> np.ndarray:
    sides = embed([f"{r[s]['name']}: {r[s]['text']}" for r in rubrics for s in ("a", "b")])
    out = np.zeros((len(cots), len(rubrics)))
    for i, c in enumerate(cots):
        sim = embed(sentences(c["text"])) @ sides.T  # sentences x (2 * rubrics)
        best = sim.max(axis=0).reshape(len(rubrics), 2)
        out[i] = best[:, 0] - best[:, 1]
    return out


def main(argv: list[str] | None = None) -> None:
    ap = job_parser("cotenc: classify every CoT by every rubric", log=True)
    ap.add_argument("--data", required=True)
    ap.add_argument("--generations", required=True)
    ap.add_argument("--rubrics", required=True, help=f"`{FIXED}` or an encyclopedia json")
    a = ap.parse_args(argv)
    cfg = load(a.config, a.scale)
    log = get_logger("cotenc.judge", a.log)
    seed = cfg.data.seed if a.rubrics == FIXED else read_json(a.rubrics)["seed"]
    device = backends.job_setup(a.scale, seed)
    data, gens = read_json(a.data), read_json(a.generations)
    cots = cots_of("templated", data, gens) + cots_of("model", data, gens)
    if a.rubrics == FIXED:
        sets = fixed_rubrics(cfg)
    else:
        enc = read_json(a.rubrics)
        sets = {"bottom_up": enc["rubrics"], "bottom_up_extractive": enc["extractive"]["rubrics"]}
    flat = [r for rs in sets.values() for r in rs]
    scores: dict[str, dict[str, list]] = {}
    if "embed" in cfg.judge.judges:
        e = embed_scores(backends.Embedder(cfg.embedder, device), cots, flat)
        scores["embed"] = split_sets(e, sets)
    if "llm" in cfg.judge.judges:
        from repro.core import llm as core

        model = backends.llm(cfg.analyst, device)
        step = 8
        chunks = [cots[i:i + step] for i in range(0, len(cots), step)]

        def run(chunk: list[dict]) -> list[list[float]]:
            rows = []
            for c in chunk:
                lp = core.option_logprobs(model, [judge_prompt(
                    clip(c["text"], cfg.extract.max_cot_tokens), r) for r in flat], ["A", "B"])
                rows.append([x[0] - x[1] for x in lp])
            log.info(f"judged {chunks.index(chunk) * step + len(chunk)}/{len(cots)} CoTs "
                     f"x {len(flat)} rubrics")
            return rows

        inputs = [a.data, a.generations] + ([] if a.rubrics == FIXED else [a.rubrics])
        with Resumable(a.out, {"settings": settings_key(cfg), "rubrics": str(a.rubrics)},
                       every=1, inputs=inputs) as ck:
            llm_scores = np.array([r for ch in ck.map(run, chunks) for r in ch])
        scores["llm"] = split_sets(llm_scores, sets)
    write_json(a.out, {"cots": [c["id"] for c in cots], "sets": sets, "scores": scores,
                       "seed": None if a.rubrics == FIXED else seed})
    log.info(f"wrote {a.out}: {len(cots)} CoTs x {len(flat)} rubrics, judges "
             f"{', '.join(scores)}")


def split_sets(x: np.ndarray, sets: dict[str, list[dict]]) -> dict[str, list]:
    out, k = {}, 0
    for name, rs in sets.items():
        out[name] = np.round(x[:, k:k + len(rs)], 6).tolist()
        k += len(rs)
    return out


if __name__ == "__main__":
    main()
