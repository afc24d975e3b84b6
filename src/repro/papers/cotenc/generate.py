"""The reasoner answers every steer question with no instruction and under every combination
of the steering axes' patterns (the paper's control prompt, Figure 23: the selected pattern of
each criterion spelled out, and an order to follow it throughout).

    python -m repro.papers.cotenc.generate --config src/repro/papers/cotenc/config.yaml \\
        --scale small \\
        --data data/cotenc/small/data.json --out results/small/cotenc/generations.json

Every answer is scored (problems.is_correct) and kept. A few CoTs per combination, labelled
with the strategy they were asked for, join the encyclopedia as the reasoner's own CoTs.
Resumable per batch of conditions.
"""

from __future__ import annotations

import itertools

import numpy as np

from repro.core.checkpoint import Resumable, settings_key
from repro.core.config import job_parser
from repro.core.io import read_json, write_json
from repro.core.progress import get_logger
from repro.papers.cotenc import backends
from repro.papers.cotenc.problems import is_correct
from repro.papers.cotenc.settings import Settings, load

NONE = "none"
ANSWER_FORMAT = {
    "number": "Think step by step, then end with 'Answer: <number>'.",
    "name": "Think step by step, then end with 'Answer: <name>'.",
    "choice": "Think step by step, then end with 'Answer: <letter>'.",
    "math": "Think step by step.",
}


def combinations(cfg: Settings) -> list[dict[str, str]]:
    """Every assignment of a pattern (a/b) to each steering axis."""
    return [dict(zip(cfg.steer, c, strict=True))
            for c in itertools.product("ab", repeat=len(cfg.steer))]


def condition_name(plan: dict[str, str]) -> str:
    return "+".join(f"{x}={v}" for x, v in plan.items()) if plan else NONE


def steering_prompt(cfg: Settings, plan: dict[str, str]) -> str:
    lines = ["You are required to solve the following question using a specific reasoning "
             "strategy:"]
    for x, v in plan.items():
        ax = cfg.axes[x]
        p = ax.a if v == "a" else ax.b
        lines.append(f"- {ax.criterion}: {p.name}. {p.text}")
    lines.append("Make sure your entire reasoning process follows the selected strategy above.")
    return "\n".join(lines)


def conversation(cfg: Settings, q: dict, plan: dict[str, str]) -> list[dict]:
    msgs = [{"role": "system", "content": steering_prompt(cfg, plan)}] if plan else []
    return msgs + [{"role": "user", "content": f"{q['question']} {ANSWER_FORMAT[q['kind']]}"}]


def main(argv: list[str] | None = None) -> None:
    ap = job_parser("cotenc: the reasoner's CoTs, unguided and steered", log=True)
    ap.add_argument("--data", required=True)
    a = ap.parse_args(argv)
    cfg = load(a.config, a.scale)
    log = get_logger("cotenc.generate", a.log)
    device = backends.job_setup(a.scale, cfg.data.seed)
    questions = read_json(a.data)["steer"]
    plans = [{}] + combinations(cfg)
    model = backends.llm(cfg.reasoner, device)
    g = cfg.generate
    jobs = [(qi, pi) for pi in range(len(plans)) for qi in range(len(questions))]
    chunks = [jobs[i:i + g.batch] for i in range(0, len(jobs), g.batch)]
    from repro.core import llm as core

    def run(chunk: list[tuple[int, int]]) -> list[str]:
        convs = [conversation(cfg, questions[qi], plans[pi]) for qi, pi in chunk]
        out = core.generate_many(model, convs, g.max_tokens, cfg.reasoner.temperature,
                                 cfg.data.seed, batch_size=g.batch)
        done = sum(len(c) for c in chunks[:chunks.index(chunk) + 1])
        log.info(f"{done}/{len(jobs)} answers")
        return out

    key = {"settings": settings_key(cfg), "scale": a.scale}
    with Resumable(a.out, key, every=1, inputs=[a.data]) as ck:
        texts = [t for batch in ck.map(run, chunks) for t in batch]
    rng = np.random.default_rng([cfg.data.seed, 2])
    chosen = {pi: set(rng.permutation(len(questions))[:g.n_encyclopedia].tolist())
              for pi in range(1, len(plans))}
    rows = []
    for (qi, pi), text in zip(jobs, texts, strict=True):
        q = questions[qi]
        rows.append({"question": q["id"], "family": q["family"],
                     "condition": condition_name(plans[pi]), "plan": plans[pi],
                     "text": text.strip(), "correct": is_correct(text, q),
                     "encyclopedia": pi in chosen and qi in chosen[pi]})
    acc = {condition_name(p): float(np.mean([r["correct"] for r in rows
                                             if r["condition"] == condition_name(p)]))
           for p in plans}
    write_json(a.out, {"reasoner": cfg.reasoner.ref if cfg.reasoner.ref == "local"
                       else cfg.reasoner.model, "conditions": [condition_name(p) for p in plans],
                       "accuracy": acc, "rows": rows})
    log.info(f"accuracy by condition: {acc}")


if __name__ == "__main__":
    main()
