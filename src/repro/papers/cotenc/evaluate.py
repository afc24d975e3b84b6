"""One seed's evaluation: how well the rubrics recover the planted strategies, the strategy
predictor, steering, and the per-response strategy reports.

    python -m repro.papers.cotenc.evaluate --config ... --scale small --seed 0 --data ... \\
        --generations ... --fixed judged/fixed.json --judged judged/seed0.json \\
        --encyclopedia encyclopedia/seed0.json --out eval/seed0.json --reports reports/seed0.md

The seed splits the questions (stratified by family) into a training and a held-out half; the
held-out half is never used to pick anything.

- Labels: a rubric's scores become A/B at their median on the training CoTs (a judge that leans
  to one letter is calibrated away; the ranking is the judge's own).
- Recovery of a planted axis: the rubric and orientation that agree best with the axis on the
  training CoTs (balanced accuracy), scored on the held-out CoTs. The same for the predefined
  list and for the axes' true rubrics (the judge's ceiling).
- Purity and ARI: the held-out templated CoTs grouped (k-means on their standardised rubric
  scores, k = the planted combinations present) against their planted combination; raw CoT
  embeddings grouped the same way are the reference without any rubric.
- Predictor (the paper's section 4.2: one classifier per criterion, question -> pattern):
  logistic regression on the question's embedding, trained on the pipeline's own labels of the
  training CoTs (the bottom-up rubric matched to each axis), scored against the planted labels
  of the held-out questions; beside it the same trained on the planted labels, and the majority.
- Steering (section 4.3): on held-out questions, the reasoner's accuracy with no instruction,
  with the dataset-optimal combination (the pattern of each axis with the higher P(correct |
  pattern) on the training questions), its opposite (sub-optimal), a random combination per
  question, and the question-specific one (a classifier per axis, trained on the training
  questions' correct answers, labelled with the pattern they followed); `oracle` counts a
  question solved under any combination.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from repro.core.config import job_parser
from repro.core.io import atomic_path, read_json, write_json
from repro.core.progress import get_logger
from repro.papers.cotenc import backends
from repro.papers.cotenc.encyclopedia import cots_of
from repro.papers.cotenc.generate import NONE, combinations, condition_name
from repro.papers.cotenc.judge import sentences
from repro.papers.cotenc.settings import Settings, load


def split(ids_by_family: dict[str, list[str]], fraction: float, seed: int) -> set[str]:
    """The held-out ids: `fraction` of each family, drawn with the seed (at least one each)."""
    rng = np.random.default_rng([seed, 4])
    test: set[str] = set()
    for fam in sorted(ids_by_family):
        ids = sorted(set(ids_by_family[fam]))
        k = min(len(ids) - 1, max(1, int(round(fraction * len(ids))))) if len(ids) > 1 else 0
        test |= {ids[int(i)] for i in rng.permutation(len(ids))[:k]}
    return test


def balanced_accuracy(pred: np.ndarray, y: np.ndarray) -> float:
    """Mean of the two classes' recalls (0.5 for a constant prediction); a class absent from
    `y` is left out."""
    rec = [float(np.mean(pred[y == c] == c)) for c in (0, 1) if np.any(y == c)]
    return float(np.mean(rec)) if rec else float("nan")


def calibrate(x: np.ndarray, train: np.ndarray) -> np.ndarray:
    """A/B labels (1 = A) at each rubric's median score on the training rows."""
    thr = np.median(x[train], axis=0) if train.any() else np.zeros(x.shape[1])
    return (x > thr).astype(int)


def match_axis(z: np.ndarray, y: np.ndarray, train: np.ndarray) -> tuple[int, bool]:
    """The rubric (column of z) and orientation (flip) that agree best with y on train."""
    best = (-1.0, 0, False)
    for j in range(z.shape[1]):
        for flip in (False, True):
            s = balanced_accuracy(1 - z[train, j] if flip else z[train, j], y[train])
            if s > best[0]:
                best = (s, j, flip)
    return best[1], best[2]


def group_scores(x: np.ndarray, combo: list[str], seed: int) -> tuple[float, float]:
    """Purity and ARI of k-means groups of rows x against their combination labels."""
    from sklearn.cluster import KMeans
    from sklearn.metrics import adjusted_rand_score

    k = len(set(combo))
    if k < 2 or len(x) <= k:
        return float("nan"), float("nan")
    lab = KMeans(n_clusters=k, n_init=10, random_state=seed).fit_predict(x)
    purity = sum(max(np.sum((lab == g) & (np.array(combo) == c)) for c in set(combo))
                 for g in set(lab)) / len(lab)
    return float(purity), float(adjusted_rand_score(combo, lab))


def classifier(x: np.ndarray, y: np.ndarray, seed: int):
    """Logistic regression on embeddings; a constant predictor where y has one class."""
    from sklearn.linear_model import LogisticRegression

    if len(set(y.tolist())) < 2:
        const = int(y[0]) if len(y) else 0
        return lambda q: np.full(len(q), const)
    m = LogisticRegression(max_iter=2000, random_state=seed).fit(x, y)
    return m.predict


def main(argv: list[str] | None = None) -> None:
    ap = job_parser("cotenc: one seed's recovery, predictor, steering and reports", log=True)
    for k in ("data", "generations", "fixed", "judged", "encyclopedia"):
        ap.add_argument(f"--{k}", required=True)
    ap.add_argument("--seed", type=int, required=True)
    ap.add_argument("--reports", type=Path, required=True)
    a = ap.parse_args(argv)
    cfg = load(a.config, a.scale)
    log = get_logger("cotenc.evaluate", a.log)
    device = backends.job_setup(a.scale, a.seed)
    data, gens = read_json(a.data), read_json(a.generations)
    fixed, judged, enc = read_json(a.fixed), read_json(a.judged), read_json(a.encyclopedia)
    cots = cots_of("templated", data, gens) + cots_of("model", data, gens)
    assert [c["id"] for c in cots] == fixed["cots"] == judged["cots"], "judged CoTs differ"
    embed = backends.Embedder(cfg.embedder, device)
    fam_of = {p["id"]: p["family"] for p in data["problems"]} | {
        q["id"]: q["family"] for q in data["steer"]}
    by_fam: dict[str, list[str]] = {}
    for pid, fam in fam_of.items():
        by_fam.setdefault(fam, []).append(pid)
    test_ids = split(by_fam, cfg.split.test_fraction, a.seed)
    is_test = np.array([c["problem"] in test_ids for c in cots])
    templ = np.array([c["source"] == "templated" for c in cots])
    train = ~is_test
    recs: list[dict] = []

    def rec(method: str, metric: str, value: float) -> None:
        if value is not None and np.isfinite(value):
            recs.append({"method": method, "metric": metric, "seed": a.seed,
                         "value": float(value)})

    planted = list(cfg.planted)
    y_planted = {x: np.array([int(c["labels"].get(x) == "a") if x in c["labels"] else -1
                              for c in cots]) for x in planted + [s for s in cfg.steer
                                                                  if s not in planted]}
    combo = [",".join(c["labels"].get(x, "?") for x in planted) for c in cots]
    matched: dict[tuple[str, str], dict[str, tuple[int, bool]]] = {}
    labels: dict[tuple[str, str], np.ndarray] = {}
    for judge in cfg.judge.judges:
        sets = {**fixed["scores"][judge], **judged["scores"][judge]}
        for name, rows in sets.items():
            x = np.array(rows, dtype=float).reshape(len(cots), -1)
            z = calibrate(x, train)
            labels[(name, judge)] = z
            method = f"{name}/{judge}"
            got, m = [], {}
            for ax in planted:
                y = y_planted[ax]
                tr, te = train & templ, is_test & templ
                j, flip = match_axis(z, y, tr)
                m[ax] = (j, flip)
                pred = 1 - z[:, j] if flip else z[:, j]
                s = balanced_accuracy(pred[te], y[te])
                rec(method, f"recovery_{ax}", s)
                got.append(s)
            rec(method, "recovery_mean", float(np.nanmean(got)))
            matched[(name, judge)] = m
            model_rows = ~templ
            got = []
            for ax in cfg.steer:
                y = y_planted[ax]
                sel = model_rows & (y >= 0)
                if not (sel & train).any() or not (sel & is_test).any():
                    continue
                j, flip = match_axis(z, y, sel & train)
                pred = 1 - z[:, j] if flip else z[:, j]
                got.append(balanced_accuracy(pred[sel & is_test], y[sel & is_test]))
            if got:
                rec(method, "model_recovery_mean", float(np.mean(got)))
            te = is_test & templ
            mu, sd = x[train].mean(0), x[train].std(0) + 1e-9
            pur, ari = group_scores((x[te] - mu) / sd, [combo[i] for i in np.flatnonzero(te)],
                                    a.seed)
            rec(method, "purity", pur)
            rec(method, "ari", ari)
    te = is_test & templ
    raw = embed([cots[i]["text"] for i in np.flatnonzero(te)])
    pur, ari = group_scores(raw, [combo[i] for i in np.flatnonzero(te)], a.seed)
    rec("raw_embedding", "purity", pur)
    rec("raw_embedding", "ari", ari)

    # the encyclopedia itself
    rec("bottom_up", "k_clusters", enc["k"])
    rec("bottom_up", "silhouette", max(enc["silhouette"].values()) if enc["silhouette"]
        else float("nan"))
    rec("bottom_up", "rubrics_parsed", float(np.mean([r["parsed"] for r in enc["rubrics"]])))
    rec("bottom_up", "criteria", enc["n_criteria"])

    # the predictor: question -> pattern, per planted axis
    judge0 = "llm" if "llm" in cfg.judge.judges else cfg.judge.judges[0]
    qx = embed([c["question"] for c in cots])
    tr, te = train & templ, is_test & templ
    for name, source in (("pipeline", ("bottom_up", judge0)), ("planted", None)):
        accs = []
        for ax in planted:
            y = y_planted[ax]
            if source is None:
                target = y
            else:
                j, flip = matched[source][ax]
                z = labels[source][:, j]
                target = 1 - z if flip else z
            f = classifier(qx[tr], target[tr], a.seed)
            acc = float(np.mean(f(qx[te]) == y[te]))
            rec(f"predictor/{name}", f"accuracy_{ax}", acc)
            accs.append(acc)
        rec(f"predictor/{name}", "accuracy", float(np.mean(accs)))
    maj = [float(np.mean(y_planted[ax][te] == int(np.mean(y_planted[ax][tr]) >= 0.5)))
           for ax in planted]
    rec("predictor/majority", "accuracy", float(np.mean(maj)))
    # how well the pipeline's labels themselves carry the planted truth on training CoTs
    for ax in planted:
        j, flip = matched[("bottom_up", judge0)][ax]
        z = labels[("bottom_up", judge0)][:, j]
        rec("predictor/pipeline", f"label_agreement_{ax}",
            float(np.mean((1 - z if flip else z)[tr] == y_planted[ax][tr])))

    steering(cfg, data, gens, test_ids, embed, a.seed, rec)
    write_reports(a.reports, cots, is_test, judged["sets"]["bottom_up"],
                  labels[("bottom_up", judge0)], embed, judge0)
    write_json(a.out, {"seed": a.seed, "records": recs, "n_cots": len(cots),
                       "n_test_cots": int(is_test.sum()), "judge_for_reports": judge0,
                       "matched": {f"{k[0]}/{k[1]}": {ax: [int(v[0]), bool(v[1])]
                                                      for ax, v in m.items()}
                                   for k, m in matched.items()}})
    log.info(f"wrote {a.out}: {len(recs)} records")


def steering(cfg: Settings, data: dict, gens: dict, test_ids: set[str], embed,
             seed: int, rec) -> None:
    rows = gens["rows"]
    qids = [q["id"] for q in data["steer"]]
    qtext = {q["id"]: q["question"] for q in data["steer"]}
    correct = {(r["question"], r["condition"]): bool(r["correct"]) for r in rows}
    plans = combinations(cfg)
    names = [condition_name(p) for p in plans]
    train_q = [q for q in qids if q not in test_ids]
    test_q = [q for q in qids if q in test_ids]
    if not test_q or not train_q:
        return

    def acc(choice: dict[str, str]) -> float:
        return float(np.mean([correct[(q, choice[q])] for q in test_q]))

    rec("steer/none", "accuracy", acc({q: NONE for q in test_q}))
    for n in names:
        rec(f"steer/fixed:{n}", "accuracy", acc({q: n for q in test_q}))
    best = {}
    for ax in cfg.steer:
        p = {v: np.mean([correct[(q, condition_name(pl))] for q in train_q for pl in plans
                         if pl[ax] == v]) for v in "ab"}
        best[ax] = "a" if p["a"] >= p["b"] else "b"
    opt = condition_name({ax: best[ax] for ax in cfg.steer})
    sub = condition_name({ax: {"a": "b", "b": "a"}[best[ax]] for ax in cfg.steer})
    rec("steer/dataset_optimal", "accuracy", acc({q: opt for q in test_q}))
    rec("steer/sub_optimal", "accuracy", acc({q: sub for q in test_q}))
    rng = np.random.default_rng([seed, 5])
    rec("steer/random", "accuracy", acc({q: names[int(rng.integers(len(names)))]
                                         for q in test_q}))
    emb = dict(zip(qids, embed([qtext[q] for q in qids]), strict=True))
    chosen: dict[str, dict[str, str]] = {q: {} for q in test_q}
    for ax in cfg.steer:
        xs, ys = [], []
        for q in train_q:
            for pl in plans:
                if correct[(q, condition_name(pl))]:
                    xs.append(emb[q])
                    ys.append(int(pl[ax] == "a"))
        if ys:
            f = classifier(np.array(xs), np.array(ys), seed)
            pred = f(np.array([emb[q] for q in test_q]))
        else:
            pred = np.full(len(test_q), int(best[ax] == "a"))
        for q, v in zip(test_q, pred, strict=True):
            chosen[q][ax] = "a" if int(v) == 1 else "b"
    rec("steer/question_specific", "accuracy",
        acc({q: condition_name(chosen[q]) for q in test_q}))
    rec("steer/oracle", "accuracy", float(np.mean([any(correct[(q, n)] for n in names)
                                                   for q in test_q])))


def write_reports(path: Path, cots: list[dict], is_test: np.ndarray, rubrics: list[dict],
                  z: np.ndarray, embed, judge: str) -> None:
    """The per-response strategy report of every held-out CoT: the pattern it follows on each
    bottom-up criterion, with the sentence that reads most like that pattern as evidence."""
    lines = ["# Per-response strategy reports (held-out CoTs, bottom-up rubrics, "
             f"{judge} judge)", ""]
    defs = embed([f"{r[s]['name']}: {r[s]['text']}" for r in rubrics for s in ("a", "b")])
    for i in np.flatnonzero(is_test):
        c = cots[i]
        sents = sentences(c["text"])
        sim = embed(sents) @ defs.T
        lines.append(f"## {c['id']} ({c['family']}; planted: "
                     f"{', '.join(f'{k}={v}' for k, v in c['labels'].items()) or '-'})")
        lines.append("")
        for j, r in enumerate(rubrics):
            side = "a" if z[i, j] == 1 else "b"
            ev = sents[int(np.argmax(sim[:, 2 * j + (side == "b")]))]
            lines.append(f"- **{r['criterion']}**: {r[side]['name']} (evidence: \"{ev}\")")
        lines.append("")
    path.parent.mkdir(parents=True, exist_ok=True)
    with atomic_path(path) as tmp:
        tmp.write_text("\n".join(lines) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
