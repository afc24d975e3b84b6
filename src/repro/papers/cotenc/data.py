"""cotenc data: problems with planted-strategy CoTs, and the questions the reasoner answers.

    python -m repro.papers.cotenc.data --config src/repro/papers/cotenc/config.yaml --scale small \\
        --out data/cotenc/small/data.json

- Templated CoTs (problems.py): Countdown problems from ROVER's `countdown/test.parquet` (the
  TinyZero set, downloaded from ROVER's repository at a pinned commit, or read from the optional
  data mirror; at tiny a committed excerpt; checked against src/repro/papers/cotenc/manifest.json),
  generated arithmetic
  expressions and height-ordering puzzles, each written by the simulated reasoner under
  planted strategies.
- Steer questions: generated single-digit additions and two-person orderings below full; the
  paper's benchmarks at full (BENCHMARKS: GPQA-Diamond, MMLU-Redux, MATH-500 from the hub
  through `datasets`; GPQA is gated, so HF_TOKEN must be set).
"""

from __future__ import annotations

import io
from pathlib import Path

import numpy as np

from repro.core.config import job_parser
from repro.core.io import write_json
from repro.core.progress import get_logger
from repro.papers.cotenc import problems
from repro.papers.cotenc.settings import Settings, load

CONFIG = Path("src/repro/papers/cotenc/config.yaml")
COUNTDOWN = "countdown/test.parquet"
BENCHMARKS = {
    "gpqa_diamond": ("Idavidrein/gpqa", "gpqa_diamond", "train"),
    "mmlu_redux": ("edinburgh-dawg/mmlu-redux-2.0", None, "test"),
    "math500": ("HuggingFaceH4/MATH-500", None, "test"),
}
LETTERS = "ABCDEFGHIJ"


def countdown_file(url: str, mirror: Path | None, raw: Path, scale: str) -> tuple[Path, str]:
    """ROVER's Countdown test parquet, checked against the manifest: at tiny the committed
    excerpt, above it the file from its URL (or the cache, or the optional data mirror)."""
    from repro.core.fetch import data_file
    from repro.core.manifest import Manifest

    return data_file(Manifest.for_config(CONFIG), COUNTDOWN, scale, mirror=mirror, cache=raw,
                     url=url)


def read_countdown(path: Path) -> list[tuple[list[int], int]]:
    import pandas as pd

    df = pd.read_parquet(io.BytesIO(path.read_bytes()))
    return [([int(x) for x in n], int(t)) for n, t in zip(df["nums"], df["target"], strict=True)]


def benchmark_questions(name: str, n: int, seed: int) -> list[dict]:
    """One of the paper's benchmarks as steer questions (full): multiple choice as letters,
    MATH-500 as a boxed answer."""
    from datasets import get_dataset_config_names, load_dataset

    repo, conf, split = BENCHMARKS[name]
    rng = np.random.default_rng([seed, len(name)])
    out: list[dict] = []
    if name == "gpqa_diamond":
        for i, r in enumerate(load_dataset(repo, conf, split=split)):
            opts = [r["Correct Answer"], r["Incorrect Answer 1"], r["Incorrect Answer 2"],
                    r["Incorrect Answer 3"]]
            order = rng.permutation(4)
            body = "\n".join(f"{LETTERS[k]}. {opts[j].strip()}" for k, j in enumerate(order))
            out.append({"id": f"{name}-{i}", "family": name, "kind": "choice",
                        "question": f"{r['Question'].strip()}\n{body}\nAnswer with the letter.",
                        "answer": LETTERS[int(np.argwhere(order == 0)[0][0])]})
    elif name == "mmlu_redux":
        for sub in get_dataset_config_names(repo):
            for i, r in enumerate(load_dataset(repo, sub, split=split)):
                if r.get("error_type", "ok") != "ok":
                    continue  # MMLU-Redux's point: questions with annotated errors are left out
                body = "\n".join(f"{LETTERS[k]}. {c}" for k, c in enumerate(r["choices"]))
                out.append({"id": f"{name}-{sub}-{i}", "family": name, "kind": "choice",
                            "question": f"{r['question'].strip()}\n{body}\n"
                                        "Answer with the letter.",
                            "answer": LETTERS[int(r["answer"])]})
    else:
        for i, r in enumerate(load_dataset(repo, split=split)):
            out.append({"id": f"{name}-{i}", "family": name, "kind": "math",
                        "question": r["problem"] + "\nPut the final answer in \\boxed{}.",
                        "answer": r["answer"]})
    if n and len(out) > n:
        out = [out[int(i)] for i in sorted(rng.choice(len(out), n, replace=False))]
    return out


def build(cfg: Settings, mirror: Path, raw: Path, scale: str) -> tuple[dict, dict]:
    d = cfg.data
    rng = np.random.default_rng(d.seed)
    made: list[problems.Problem] = []
    source: dict = {"families": {}}
    for fam in d.families:
        if fam == "countdown":
            path, where = countdown_file(d.countdown_url, mirror, raw, scale)
            made += problems.countdown_problems(read_countdown(path), d.n_templated, rng)
            source["families"][fam] = where
        elif fam == "arithmetic":
            made += problems.arithmetic_problems(d.n_templated, rng)
            source["families"][fam] = "generator (problems.arithmetic_problems)"
        else:
            made += problems.logic_problems(d.n_templated, rng)
            source["families"][fam] = "generator (problems.logic_problems)"
    cots = []
    for p in made:
        text, plan = problems.planted_cot(p, list(cfg.planted), d.noise, rng)
        preferred = problems.preference(p)
        cots.append({"id": f"t-{p.id}", "source": "templated", "problem": p.id,
                     "family": p.family, "question": p.question, "text": text,
                     "labels": plan, "preferred": {x: preferred[x] for x in cfg.planted}})
    steer: list[dict] = []
    for fam in d.steer_families:
        if fam == "addition":
            steer += problems.addition_questions(d.n_steer, rng)
        elif fam == "ordering":
            steer += problems.ordering_questions(d.n_steer, rng)
        else:
            steer += benchmark_questions(fam, d.n_benchmark, d.seed)
        source["families"][fam] = source["families"].get(fam, "generator" if fam in (
            "addition", "ordering") else f"hub {BENCHMARKS[fam][0]}")
    source |= {"templated_cots": len(cots), "steer_questions": len(steer),
               "planted": list(cfg.planted), "noise": d.noise}
    return {"problems": [p.to_dict() for p in made], "cots": cots, "steer": steer}, source


def main(argv: list[str] | None = None) -> None:
    ap = job_parser("cotenc data: planted-strategy CoTs and steer questions", log=True)
    from repro.core.fetch import mirror_arg  # fetch code: imported where the job runs

    mirror_arg(ap)
    a = ap.parse_args(argv)
    cfg = load(a.config, a.scale)
    log = get_logger("cotenc.data", a.log)
    data, source = build(cfg, a.mirror, a.out.parent / "raw", a.scale)
    write_json(a.out, data)
    write_json(a.out.with_name("source.json"), source)
    log.info(f"{len(data['cots'])} templated CoTs, {len(data['steer'])} steer questions: "
             f"wrote {a.out}")


if __name__ == "__main__":
    main()
