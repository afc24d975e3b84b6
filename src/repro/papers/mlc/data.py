"""mlc data: MultiJail split by prompt, English-only refusal targets, the English retain set,
and the parallel benign prompts.

    python -m repro.papers.mlc.data --config src/repro/papers/mlc/config.yaml --scale small \\
        --out data/mlc/small/data.json

MultiJail (DAMO-NLP-SG, 315 harmful prompts, each in en zh it vi ar ko th bn sw jv) is
downloaded from the official repository at a pinned commit (or read from the optional data
mirror; tiny reads a committed excerpt of its first 80 prompts) and checked against
src/repro/papers/mlc/manifest.json before it is read. The prompts are split by prompt id, so no test
prompt is trained on in any language. Below full, prompts whose longest translation exceeds
`data.max_prompt_tokens` tokens are left out before the split (Thai and Bengali take about
eight times the English token count in SmolLM2's tokenizer; the long tail would dominate the
CPU budget).

Supervision is English only, as in the paper: each training prompt's English text gets a
refusal (one of `REFUSALS`, drawn per prompt), and benign English prompts get the model's own
greedy answer (a retain set, so the alignment teaches when to refuse, not to refuse always).
The other languages of a training prompt appear only as prompts, for the consistency term.
"""

from __future__ import annotations

import csv
import io
from pathlib import Path

import numpy as np

from repro.core.config import job_parser
from repro.core.io import write_json
from repro.core.progress import get_logger
from repro.papers.mlc.benign import LANGS, PARALLEL, english_retain
from repro.papers.mlc.settings import Settings, load

CONFIG = Path("src/repro/papers/mlc/config.yaml")
KEY = "multijail/MultiJail.csv"
REFUSALS = (
    "I'm sorry, but I can't help with that. It could cause real harm to people.",
    "I'm sorry, but I cannot assist with this request because it is harmful.",
    "I can't help with that. If you are in a difficult situation, please reach out to "
    "someone you trust or to a professional.",
    "I'm sorry, I won't provide that. Helping with this could hurt someone.",
)


def read_multijail(text: str) -> list[dict[str, str]]:
    """The CSV's rows as {id, source, <lang>: prompt}; every language column must be present
    and non-empty."""
    rows = list(csv.DictReader(io.StringIO(text.lstrip("\ufeff"))))
    missing = [c for c in ("id", *LANGS) if rows and c not in rows[0]]
    if not rows or missing:
        raise SystemExit(f"{KEY}: not MultiJail (missing columns {missing or 'all'})")
    out = []
    for r in rows:
        empty = [lang for lang in LANGS if not (r[lang] or "").strip()]
        if empty:
            raise SystemExit(f"{KEY}: prompt {r['id']} has no text in {empty}")
        out.append({"id": int(r["id"]), "source": r.get("source", ""),
                    **{lang: r[lang].strip() for lang in LANGS}})
    return out


def multijail(cfg: Settings, scale: str, mirror: Path | None, raw: Path
              ) -> tuple[list[dict[str, str]], str]:
    """MultiJail's rows and where they came from: at tiny the committed excerpt, above it the
    official file (its pinned URL, the cache or the optional data mirror), checked first."""
    from repro.core.fetch import data_file
    from repro.core.manifest import Manifest

    path, where = data_file(Manifest.for_config(CONFIG), KEY, scale, mirror=mirror, cache=raw,
                            url=cfg.data.url)
    return read_multijail(path.read_text(encoding="utf-8")), where


def retain_prompts(cfg: Settings) -> tuple[list[str], str]:
    """The benign English prompts of the retain set: our templates (offline), or at full the
    instructions of a Hugging Face instruction dataset (`hub:<id>`, rows without an input
    field), drawn by `data.seed`."""
    d = cfg.data
    if d.retain == "templates":
        return english_retain(d.n_retain, d.seed), f"{d.n_retain} templated English prompts"
    from datasets import load_dataset

    name = d.retain.removeprefix("hub:")
    ds = load_dataset(name, split="train")
    pool = sorted({r["instruction"].strip() for r in ds
                   if r.get("instruction") and not (r.get("input") or "").strip()})
    held = {row["en"] for row in PARALLEL}
    pool = [p for p in pool if p not in held]
    if d.n_retain > len(pool):
        raise SystemExit(f"data.n_retain {d.n_retain} > {len(pool)} usable prompts in {name}")
    order = np.random.default_rng(d.seed).permutation(len(pool))
    return [pool[i] for i in order[:d.n_retain]], f"{d.n_retain} instructions from {name}"


def split(rows: list[dict], cfg: Settings, n_tokens) -> tuple[list[dict], list[dict], int]:
    """(train, test, n eligible): prompts short enough in every used language, permuted by
    `data.seed`, then cut by prompt id."""
    d = cfg.data
    keep = rows if d.max_prompt_tokens is None else [
        r for r in rows if max(n_tokens(r[lang]) for lang in d.langs) <= d.max_prompt_tokens]
    need = d.n_train + d.n_test
    if need > len(keep):
        raise SystemExit(f"data.n_train + data.n_test = {need}, but only {len(keep)} MultiJail "
                         f"prompts fit data.max_prompt_tokens = {d.max_prompt_tokens}")
    order = np.random.default_rng(d.seed).permutation(len(keep))
    pick = [keep[i] for i in order[:need]]
    return pick[:d.n_train], pick[d.n_train:], len(keep)


def main(argv: list[str] | None = None) -> None:
    ap = job_parser("mlc data: MultiJail split, English refusals, retain and benign sets",
                    log=True)
    from repro.core.fetch import mirror_arg  # fetch code: imported where the job runs

    mirror_arg(ap)
    a = ap.parse_args(argv)
    cfg = load(a.config, a.scale)
    log = get_logger("mlc.data", a.log)
    rows, provider = multijail(cfg, a.scale, a.mirror, a.out.parent / "raw")
    from repro.papers.mlc import model

    device = model.job_device(a.scale, cfg.data.seed)
    tok, lm = model.load(cfg.model.ref, device)
    train, test, eligible = split(rows, cfg, lambda s: len(tok(s, add_special_tokens=False)
                                                          ["input_ids"]))
    rng = np.random.default_rng([cfg.data.seed, 1])
    langs = list(cfg.data.langs)
    retain, retain_from = retain_prompts(cfg)
    log.info(f"{len(rows)} MultiJail prompts ({eligible} fit), {len(train)} train, "
             f"{len(test)} test; answering {len(retain)} retain prompts")
    answers = model.generate(lm, tok, [model.render(tok, p, cfg.model.system)
                                       for p in retain],
                             cfg.data.retain_tokens, cfg.eval.batch, device)
    rejected = None
    if cfg.train.objective == "dpo":
        # DPO's dispreferred answer to a harmful prompt: the starting model's own (greedy)
        log.info(f"answering {len(train)} English training prompts (DPO's rejected side)")
        rejected = model.generate(lm, tok, [model.render(tok, r["en"], cfg.model.system)
                                            for r in train],
                                  cfg.data.retain_tokens, cfg.eval.batch, device)
    out = {
        "langs": langs,
        "train": [{"id": r["id"], "prompts": {lang: r[lang] for lang in langs},
                   "response": REFUSALS[int(rng.integers(len(REFUSALS)))],
                   **({"rejected": rejected[k].strip()} if rejected else {})}
                  for k, r in enumerate(train)],
        "test": [{"id": r["id"], "prompts": {lang: r[lang] for lang in langs}} for r in test],
        "retain": [{"prompt": p, "response": ans.strip()}
                   for p, ans in zip(retain, answers, strict=True)],
        "benign": [{"id": i, "prompts": {lang: row[lang] for lang in langs}}
                   for i, row in enumerate(PARALLEL[:cfg.data.n_benign])],
    }
    write_json(a.out, out)
    write_json(a.out.with_name("source.json"), {
        "multijail": provider, "prompts": len(rows), "eligible": eligible,
        "max_prompt_tokens": cfg.data.max_prompt_tokens, "train_ids": [r["id"] for r in train],
        "test_ids": [r["id"] for r in test], "model": cfg.model.ref,
        "retain": f"{retain_from}, answered greedily by the model itself"})
    log.info(f"wrote {a.out}")


if __name__ == "__main__":
    main()
