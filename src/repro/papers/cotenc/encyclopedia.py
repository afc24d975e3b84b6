"""Building the encyclopedia: criteria extraction, embedding, clustering and contrastive rubrics
(the paper's section 3; the official code, LGAI-Research/CoT-Encyclopedia, was read).

    python -m repro.papers.cotenc.encyclopedia extract --config ... --scale small \\
        --data data/cotenc/small/data.json [--generations ...] --source templated --out ...
    python -m repro.papers.cotenc.encyclopedia build --config ... --scale small --seed 0 \\
        --criteria criteria_templated.json criteria_model.json --out encyclopedia/seed0.json

1. extract: the analyst reads one CoT and writes several criteria, one per line, each as
   "Criterion name (Pattern A vs. Pattern B)" (greedy, as the official code runs GPT-4o at
   temperature 0). Lines that do not follow the form are kept as criterion names alone.
2. build (per seed): each criterion is embedded on its own (name, pattern A and pattern B
   concatenated: the paper's e_j = E(c_j, s_A, s_B); the official script embeds a response's
   whole list instead); the seed draws a subsample; agglomerative clustering with cosine distance
   (average linkage) and k chosen by silhouette in [k_min, k_max]; each cluster's medoid (in the
   embedding space) is its representative; the analyst writes a contrastive rubric for each
   medoid (Pattern A and Pattern B with a definition each; temperature 0.7, as the official
   rubric_generation.py samples).
"""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np

from repro.core.checkpoint import Resumable, settings_key
from repro.core.config import job_parser
from repro.core.io import read_json, write_json
from repro.core.progress import get_logger
from repro.papers.cotenc import backends
from repro.papers.cotenc.settings import Settings, load

TRIPLET = re.compile(r"^(?P<name>.+?)\s*\((?P<a>.+?)\s+(?:vs\.?|versus)\s+(?P<b>.+?)\)\s*\.?$",
                     re.I)
LOOSE = re.compile(r"^(?P<name>.+?)[:\-]\s*(?P<a>.+?)\s+(?:vs\.?|versus)\s+(?P<b>.+?)\.?$", re.I)
BULLET = re.compile(r"^\s*(?:[-*\u2022]|\d+[.)]|criterion\s*\d*[:.)]?)\s*", re.I)
PATTERN_LINE = re.compile(r"pattern\s*([AB])\s*[:.)-]\s*(.+)", re.I)


def clip(text: str, max_tokens: int) -> str:
    """The text cut to about `max_tokens` tokens (3 words to 4 tokens), backend-independent."""
    words = text.split()
    keep = max(1, max_tokens * 3 // 4)
    return " ".join(words[:keep]) + (" ..." if len(words) > keep else "")


def extraction_prompt(cot: str) -> list[dict]:
    return [{"role": "user", "content": (
        "Analyze the reasoning strategies used in the following response. Identify several "
        "meaningful criteria that describe how it reasons. For each criterion give a descriptive "
        "name and two contrasting patterns, one criterion per line, in the form\n"
        "Criterion name (Pattern A vs. Pattern B)\n"
        "Write the lines between <patterns> and </patterns>.\n\n"
        f"Response:\n{cot}")}]


def parse_criteria(text: str, limit: int) -> list[dict]:
    """Criteria lines of an extraction: {name, a, b, triplet}; distinct, at most `limit`."""
    m = re.search(r"<patterns>(.*?)(?:</patterns>|$)", text, re.S | re.I)
    body = m.group(1) if m else text
    out: list[dict] = []
    seen: set[str] = set()
    for line in body.splitlines():
        line = BULLET.sub("", line).strip().strip("*").strip()
        if len(line.split()) < 2 or line.lower().startswith(("<", "response")):
            continue
        t = TRIPLET.match(line) or LOOSE.match(line)
        c = ({"name": t["name"].strip(" :-"), "a": t["a"].strip(), "b": t["b"].strip(),
              "triplet": True} if t else {"name": line, "a": "", "b": "", "triplet": False})
        key = criterion_text(c).lower()
        if key in seen:
            continue
        seen.add(key)
        out.append(c)
        if len(out) >= limit:
            break
    return out


def criterion_text(c: dict) -> str:
    return f"{c['name']} ({c['a']} vs. {c['b']})" if c.get("triplet") else c["name"]


def cots_of(source: str, data: dict, generations: dict | None) -> list[dict]:
    """The CoTs one source feeds into the encyclopedia: every templated CoT, or the
    reasoner's CoTs marked for it (labelled with the strategy they were asked for)."""
    if source == "templated":
        return data["cots"]
    rows = [r for r in (generations or {}).get("rows", []) if r["encyclopedia"]]
    return [{"id": f"m-{r['question']}-{r['condition']}", "source": "model",
             "problem": r["question"], "family": r["family"],
             "question": next(q["question"] for q in data["steer"] if q["id"] == r["question"]),
             "text": r["text"], "labels": r["plan"]} for r in rows]


def extract_main(argv: list[str]) -> None:
    ap = job_parser("cotenc: the analyst extracts reasoning criteria from every CoT", log=True)
    ap.add_argument("--data", required=True)
    ap.add_argument("--generations")
    ap.add_argument("--source", choices=["templated", "model"], required=True)
    a = ap.parse_args(argv)
    cfg = load(a.config, a.scale)
    log = get_logger("cotenc.extract", a.log)
    device = backends.job_setup(a.scale, cfg.data.seed)
    cots = cots_of(a.source, read_json(a.data),
                   read_json(a.generations) if a.generations else None)
    model = backends.llm(cfg.analyst, device)
    from repro.core import llm as core

    e = cfg.extract
    batches = [cots[i:i + cfg.generate.batch] for i in range(0, len(cots), cfg.generate.batch)]

    def run(batch: list[dict]) -> list[str]:
        out = core.generate_many(model, [extraction_prompt(clip(c["text"], e.max_cot_tokens))
                                         for c in batch], e.max_tokens, 0.0, None,
                                 batch_size=cfg.generate.batch)
        log.info(f"criteria of {batches.index(batch) * cfg.generate.batch + len(batch)}/"
                 f"{len(cots)} {a.source} CoTs")
        return out

    inputs = [a.data] + ([a.generations] if a.generations else [])
    with Resumable(a.out, {"settings": settings_key(cfg), "source": a.source}, every=1,
                   inputs=inputs) as ck:
        raw = [t for b in ck.map(run, batches) for t in b]
    rows = [{"cot": c["id"], "source": c["source"], "raw": r,
             "criteria": parse_criteria(r, e.max_criteria)} for c, r in zip(cots, raw,
                                                                             strict=True)]
    n = sum(len(r["criteria"]) for r in rows)
    trip = sum(c["triplet"] for r in rows for c in r["criteria"])
    write_json(a.out, {"source": a.source, "analyst": cfg.analyst.model or cfg.analyst.ref,
                       "rows": rows, "n_criteria": n, "n_triplets": trip})
    log.info(f"{n} criteria from {len(rows)} CoTs ({trip} in the A-vs-B form)")


# ----------------------------------------------------------------------------- clustering

def choose_k(x: np.ndarray, k_min: int, k_max: int, linkage: str) -> tuple[np.ndarray, dict]:
    """Agglomerative clustering (cosine distance) with k chosen by the silhouette score."""
    from sklearn.cluster import AgglomerativeClustering
    from sklearn.metrics import silhouette_score

    scores: dict[int, float] = {}
    best: tuple[float, np.ndarray] | None = None
    for k in range(k_min, min(k_max, len(x) - 1) + 1):
        lab = AgglomerativeClustering(n_clusters=k, metric="cosine",
                                      linkage=linkage).fit_predict(x)
        if len(set(lab)) < 2:
            continue
        s = float(silhouette_score(x, lab, metric="cosine"))
        scores[k] = s
        if best is None or s > best[0]:
            best = (s, lab)
    if best is None:
        return np.zeros(len(x), dtype=int), scores
    return best[1], scores


def medoid(x: np.ndarray) -> int:
    """The member with the least total cosine distance to the others."""
    d = 1.0 - x @ x.T
    return int(np.argmin(d.sum(axis=1)))


def rubric_prompt(c: dict) -> list[dict]:
    head = f"{c['name']}: {c['a']} vs. {c['b']}" if c.get("triplet") else c["name"]
    return [{"role": "user", "content": (
        "Create a concise rubric for the following reasoning strategy criterion, so that an "
        "evaluator can tell quickly which of two contrasting patterns a response follows.\n"
        f"Criterion: {head}\n"
        "Answer in exactly two lines:\n"
        "Pattern A: <name>: <one-sentence definition>\n"
        "Pattern B: <name>: <one-sentence definition>")}]


def parse_rubric(text: str, c: dict, max_words: int) -> dict:
    """{criterion, a: {name, text}, b: {name, text}, parsed}. Where the analyst's answer lacks a
    pattern, the medoid's own pattern names stand in (or, without them, "<criterion>" against
    "not <criterion>"), and `parsed` says so."""
    got: dict[str, tuple[str, str]] = {}
    for line in text.splitlines():
        m = PATTERN_LINE.search(line)
        if m and m.group(1).upper() not in got:
            body = m.group(2).strip()
            name, _, definition = body.partition(":")
            got[m.group(1).upper()] = (name.strip(" *"), (definition or body).strip())

    def words(s: str) -> str:
        w = s.split()
        return " ".join(w[:max_words])

    fallback = {"A": (c["a"], c["a"]) if c.get("triplet") else (c["name"], c["name"]),
                "B": (c["b"], c["b"]) if c.get("triplet") else (f"not {c['name']}",
                                                               f"Does not show: {c['name']}")}
    side = {k: got.get(k) or fallback[k] for k in "AB"}
    return {"criterion": c["name"],
            "a": {"name": words(side["A"][0]) or "A", "text": words(side["A"][1])},
            "b": {"name": words(side["B"][0]) or "B", "text": words(side["B"][1])},
            "parsed": "A" in got and "B" in got, "raw": text}


NUMBER = re.compile(r"\d+(?:[./]\d+)?")


def extractive_criteria(cots: list[dict]) -> list[dict]:
    """Our analyst-free control: every sentence of every CoT (numbers masked, the final answer
    line left out) as a criterion of its own, so clustering sees what the CoTs do rather than
    what an analyst says about them."""
    from repro.papers.cotenc.judge import sentences

    out, seen = [], set()
    for c in cots:
        for sent in sentences(c["text"]):
            t = NUMBER.sub("N", sent.strip())
            if len(t.split()) < 3 or t.lower().startswith("answer") or t in seen:
                continue
            seen.add(t)
            out.append({"name": t, "a": "", "b": "", "triplet": False, "cot": c["id"]})
    return out


def extractive_rubric(c: dict, max_words: int) -> dict:
    w = " ".join(c["name"].split()[:max_words])
    return {"criterion": f"Steps like: {w}", "a": {"name": "present", "text": w},
            "b": {"name": "absent", "text": f"No step like: {w}"}, "parsed": True, "raw": ""}


def cluster_medoids(crit: list[dict], emb: np.ndarray, cfg: Settings) -> tuple[list[dict], dict]:
    labels, scores = choose_k(emb, cfg.cluster.k_min, cfg.cluster.k_max, cfg.cluster.linkage)
    clusters = []
    for k in sorted(set(labels.tolist()), key=lambda k: -int((labels == k).sum())):
        idx = np.flatnonzero(labels == k)
        m = int(idx[medoid(emb[idx])])
        clusters.append({"size": len(idx), "medoid": crit[m],
                         "members": [criterion_text(crit[int(i)]) for i in idx[:8]]})
    return clusters, scores


def subsample(items: list, fraction: float, floor: int, rng: np.random.Generator) -> list:
    n = min(len(items), max(floor, int(round(fraction * len(items)))))
    return [items[int(i)] for i in np.sort(rng.choice(len(items), n, replace=False))]


def build_main(argv: list[str]) -> None:
    ap = job_parser("cotenc: cluster the criteria and write one rubric per cluster", log=True)
    ap.add_argument("--criteria", nargs="+", required=True, type=Path)
    ap.add_argument("--seed", type=int, required=True)
    ap.add_argument("--data", required=True)
    ap.add_argument("--generations", required=True)
    a = ap.parse_args(argv)
    cfg = load(a.config, a.scale)
    log = get_logger("cotenc.build", a.log)
    device = backends.job_setup(a.scale, a.seed)
    crit = [dict(c, cot=r["cot"], source=r["source"]) for p in a.criteria
            for r in read_json(p)["rows"] for c in r["criteria"]]
    if len(crit) < cfg.cluster.k_min + 1:
        raise SystemExit(f"only {len(crit)} criteria were extracted; the encyclopedia needs at "
                         f"least {cfg.cluster.k_min + 1} (see the extract logs)")
    rng = np.random.default_rng([a.seed, 3])
    floor = cfg.cluster.k_min + 1
    crit = subsample(crit, cfg.cluster.subsample, floor, rng)
    embed = backends.Embedder(cfg.embedder, device)
    clusters, scores = cluster_medoids(crit, embed([criterion_text(c) for c in crit]), cfg)
    data = read_json(a.data)
    gens = read_json(a.generations)
    sent = subsample(extractive_criteria(cots_of("templated", data, gens)
                                         + cots_of("model", data, gens)),
                     cfg.cluster.subsample, floor, rng)
    ext, ext_scores = cluster_medoids(sent, embed([c["name"] for c in sent]), cfg)
    model = backends.llm(cfg.analyst, device)
    from repro.core import llm as core

    raw = core.generate_many(model, [rubric_prompt(c["medoid"]) for c in clusters],
                             cfg.rubric.max_tokens, cfg.rubric.temperature, a.seed,
                             batch_size=cfg.generate.batch)
    rubrics = [parse_rubric(t, c["medoid"], cfg.rubric.max_words)
               for t, c in zip(raw, clusters, strict=True)]
    write_json(a.out, {"seed": a.seed, "n_criteria": len(crit), "k": len(clusters),
                       "silhouette": {str(k): v for k, v in scores.items()},
                       "clusters": clusters, "rubrics": rubrics,
                       "extractive": {"n_criteria": len(sent), "k": len(ext),
                                      "silhouette": {str(k): v for k, v in ext_scores.items()},
                                      "clusters": ext,
                                      "rubrics": [extractive_rubric(c["medoid"],
                                                                    cfg.rubric.max_words)
                                                  for c in ext]}})
    log.info(f"{len(crit)} criteria -> {len(clusters)} clusters (silhouette "
             f"{max(scores.values()) if scores else float('nan'):.3f}); "
             f"{sum(r['parsed'] for r in rubrics)}/{len(rubrics)} rubrics parsed")


def main(argv: list[str] | None = None) -> None:
    import sys

    args = list(sys.argv[1:] if argv is None else argv)
    if not args or args[0] not in ("extract", "build"):
        raise SystemExit("usage: python -m repro.papers.cotenc.encyclopedia {extract,build} ...")
    (extract_main if args[0] == "extract" else build_main)(args[1:])


if __name__ == "__main__":
    main()
