"""Full-scale real-data sources of the Spectrum Suite, turned into our `Context` shape.

The offline suite (`suite.py`) only generates synthetic families; the paper trains and tests on
real sources too (survey answers, annotator ratings, prompts, chemistry measurements). This
module records, per official task key (icl_classes/dataloaders.py `default_data_map`), where the
rows come from and how the official dataset class groups them into contexts, so the full-scale
run can rebuild the same kind of contexts from the raw rows.

Loading is kept apart from conversion: `fetch_rows` needs the network (and the optional
`datasets` package for Hugging Face sources), `to_contexts` is pure and deterministic given its
generator, so the conversions are unit-tested on hand-made rows shaped like the real ones.

Grouping follows the official classes: a pooled source (`n_per=-1`) is shuffled and cut into
consecutive chunks whose sizes follow the official size law (geometric + Poisson around a mean,
or a fixed size); a grouped source (per individual, per country, per model, per value) gives one
context per group. Every context is cut to `max_samples` samples (the official code later cuts
each context to 1024 tokens, so only the first samples matter), its samples are put in random
order, and one description is drawn with probability `description_prob`. Single-variable inputs
and outputs are raw strings, several variables are `json.dumps` of a dict (official
`format_sample`). Descriptions are our own paraphrases of the official ones.
"""

from __future__ import annotations

import ast
import bz2
import csv
import io
import json
import random
import re
import urllib.request
import zipfile
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from repro.core.io import atomic_path
from repro.papers.spectrum.suite import Context, Sample

Gen = np.random.Generator
Rows = list[dict]
Converter = Callable[[Rows, Gen, float, int], list[Context]]

# official `include_in_test` prefixes (icl_classes/dataloaders.py): a task whose key starts with
# one of them is held out of training
HELDOUT_PREFIXES = ("wvs", "globaloqa", "habermas", "numbergame", "flight", "chatbotarena",
                    "novacomet", "mmlu", "hellaswag", "winogrande", "arc", "drop", "truthful_qa",
                    "gpqa", "chemistry_esol", "chemistry_oxidative")


def is_heldout(name: str) -> bool:
    """The official held-out rule: a prefix match against `include_in_test`."""
    return any(name.startswith(p) for p in HELDOUT_PREFIXES)


class SourceUnavailable(RuntimeError):
    """Raised with one line saying what to install, download or place where."""


@dataclass(frozen=True)
class Source:
    """One official task key: where its rows come from, held out or not, how they convert."""

    name: str
    heldout: bool
    convert: Converter | None
    hf_id: str | None = None          # Hugging Face dataset id
    hf_config: str | None = None
    split: str = "train"
    data_files: str | None = None     # a file inside the HF repo, where the official code reads one
    columns: tuple[str, ...] = ()     # keep only these columns (memory on big sources)
    urls: tuple[str, ...] = ()        # direct downloads (csv, parquet, zip of txt)
    manual: str = ""                  # where to obtain the file(s) by hand; "" if automatic
    files: tuple[str, ...] = ()       # manual: paths under cache_dir the reader expects
    note: str = ""
    hf_parts: tuple[tuple[str | None, str | None], ...] = ()  # several (config, data_files)
    max_rows: int | None = None       # HF: keep the first rows only (official streaming cut)
    url_root: str = ""                # urls: keep the path below this root (names collide)
    sample_lines: int = 0             # json lines: official reservoir sample of this many
    reader: Callable[[Path], Rows] | None = None  # manual: custom reader of cache_dir


# --------------------------------------------------------------------------- helpers

def _geom_poisson(rng: Gen, mean: float) -> int:
    """Official `geom_and_poisson_iter`: geometric(2/mean) + Poisson(mean/2) samples."""
    return int(rng.geometric(2.0 / mean) + rng.poisson(mean / 2.0))


def _fmt(row: dict, names: Sequence[str]) -> str | None:
    """Official `format_sample`: raw string for one variable, json of a dict for several."""
    if not names:
        return None
    if len(names) == 1:
        return str(row[names[0]])
    return json.dumps({k: row[k] for k in names})


def _ctx(family: str, items: Sequence[tuple[str | None, str]], rng: Gen, p: float,
         descriptions: Sequence[str], max_samples: int, **meta) -> Context:
    """One context: at most max_samples samples in random order, a description with prob p."""
    items = list(items)[:max_samples]
    order = rng.permutation(len(items))
    desc = None
    if descriptions and rng.random() < p:
        desc = str(descriptions[int(rng.integers(len(descriptions)))])
    samples = [Sample(output=items[i][1], input=items[i][0]) for i in order]
    return Context(family, desc, samples, dict(meta))


def _pairs(rows: Iterable[dict], given: Sequence[str], gen: Sequence[str]):
    return [(_fmt(r, given), _fmt(r, gen)) for r in rows]


def _shuffled(items: Sequence, rng: Gen) -> list:
    return [items[i] for i in rng.permutation(len(items))]


def _chunks(items: Sequence, rng: Gen, size: Callable[[], int], max_samples: int,
            max_contexts: int | None = None) -> list[list]:
    """Pooled sources (official n_per=-1): shuffle, then consecutive chunks of drawn sizes."""
    items = _shuffled(items, rng)
    out, i = [], 0
    while i < len(items) and (max_contexts is None or len(out) < max_contexts):
        n = max(1, size())
        out.append(items[i:i + min(n, max_samples)])
        i += n
    return out


def _unique(values: Iterable) -> list:
    return list(dict.fromkeys(values))


def _group(rows: Iterable[dict], key: str) -> dict:
    g: dict = defaultdict(list)
    for r in rows:
        g[r[key]].append(r)
    return g


def _num(x) -> str:
    """Numbers print as pandas prints a float column (csv text '-2' -> '-2.0')."""
    return str(float(x))


# --------------------------------------------------------------------------- held-out sources

def _globaloqa(rows: Rows, rng: Gen, p: float, max_samples: int) -> list[Context]:
    """Per country, every question with the country's answer percentages; two shuffles each."""
    by_country: dict[str, list] = defaultdict(list)
    for r in rows:
        m = re.search(r"\{.*\}", str(r["selections"]), re.S)
        sel = ast.literal_eval(m.group()) if m else {}
        options = r["options"]
        options = ast.literal_eval(options) if isinstance(options, str) else list(options)
        for country, probs in sel.items():
            # int(round(p, 2) * 100) as the official loader (its float truncation included)
            dist = [{o: int(np.round(q, 2) * 100)} for o, q in zip(options, probs, strict=False)]
            by_country[country].append({"question": str(r["question"]),
                                        "options": str(options), "distribution": str(dist)})
    out = []
    for country, crow in by_country.items():
        descs = ["Survey answers from people in one unknown place: for each question give the "
                 "percentage choosing each option (a list of dicts).",
                 f"Country: {country}\nFor each question give the percentage of people in this "
                 "country choosing each option (a list of dicts)."]
        for _ in range(2):  # official n_per=2
            items = _pairs(_shuffled(crow, rng), ["question", "options"], ["distribution"])
            out.append(_ctx("globaloqa", items, rng, p, descs, max_samples, country=country))
    return out


_WINNER = {"model_a": "a", "model_b": "b", "tie": "tie", "tie (bothbad)": "bothbad"}


def _arena_rows(rows: Rows, min_count: int = 4) -> Rows:
    """Official `load_chatbotarena`: judges with >= 4 votes, first-turn prompt and replies."""
    counts = Counter(r["judge"] for r in rows)
    out = []
    for r in rows:
        if counts[r["judge"]] < min_count:
            continue
        out.append({"judge": r["judge"], "model_a": r["model_a"], "model_b": r["model_b"],
                    "winner": _WINNER.get(str(r["winner"])),
                    "opening_prompt": str(r["conversation_a"][0]["content"]).strip(),
                    "model_a_response": str(r["conversation_a"][1]["content"]).strip(),
                    "model_b_response": str(r["conversation_b"][1]["content"]).strip()})
    return out


def _arena_prompts(rows: Rows, rng: Gen, p: float, max_samples: int) -> list[Context]:
    """Per judge (1000 random judges), up to 100 of their opening prompts."""
    by = _group(_arena_rows(rows), "judge")
    judges = _shuffled(list(by), rng)[:1000]
    return [_ctx("chatbotarena_prompts",
                 [(None, r["opening_prompt"]) for r in _shuffled(by[j], rng)[:100]], rng, p,
                 ["Prompts one user sent to a language model."], max_samples, judge=j)
            for j in judges]


def _arena_prefs(rows: Rows, rng: Gen, p: float, max_samples: int) -> list[Context]:
    """Per judge (first 1000), their votes chunked (mean 16): prompt + two replies -> winner."""
    arena = [r for r in _arena_rows(rows) if r["winner"] is not None]
    options = _unique(r["winner"] for r in arena)
    desc = [f"One user's votes: they prompt a model (opening_prompt), compare two replies "
            f"(model_a_response, model_b_response) and pick the winner, one of {options}."]
    out = []
    for j, jrows in list(_group(arena, "judge").items())[:1000]:
        items = _pairs(jrows, ["opening_prompt", "model_a_response", "model_b_response"],
                       ["winner"])
        for chunk in _chunks(items, rng, lambda: _geom_poisson(rng, 16), max_samples):
            out.append(_ctx("chatbotarena_individual_prefs", chunk, rng, p, desc, max_samples,
                            judge=j))
    return out


def _arena_assistant(rows: Rows, rng: Gen, p: float, max_samples: int) -> list[Context]:
    """Per model, its (prompt -> reply) pairs from either side, chunked (mean 32)."""
    arena = _arena_rows(rows)
    out = []
    for model in _unique(r["model_a"] for r in arena):
        items = [(r["opening_prompt"], r["model_a_response"]) for r in arena
                 if r["model_a"] == model]
        items += [(r["opening_prompt"], r["model_b_response"]) for r in arena
                  if r["model_b"] == model]
        base = ("Predict what one language model (of unknown quality) replies to each "
                "opening prompt; every reply comes from the same model.")
        descs = [base, f"{base}\nModel: {model}"]
        for chunk in _chunks(items, rng, lambda: _geom_poisson(rng, 32), max_samples):
            out.append(_ctx("chatbotarena_assistant", chunk, rng, p, descs, max_samples,
                            model=model))
    return out


def _nova_premise(rows: Rows, rng: Gen, p: float, max_samples: int) -> list[Context]:
    """Unique premises (events) as outputs, chunked (mean 64)."""
    descs = ["Write an event.", "Events", "A list of varied events.",
             "Everyday situations that call for commonsense reasoning.", "One-sentence events"]
    premises = [(None, str(x)) for x in _unique(r["premise"] for r in rows)]
    return [_ctx("novacomet_premise", c, rng, p, descs, max_samples)
            for c in _chunks(premises, rng, lambda: _geom_poisson(rng, 64), max_samples)]


def _nova_hypothesis(rows: Rows, rng: Gen, p: float, max_samples: int) -> list[Context]:
    """Premise -> json list of all its hypotheses, chunked (mean 32)."""
    by = _group(rows, "premise")
    items = [(str(k), json.dumps([r["hypothesis"] for r in v])) for k, v in sorted(by.items())]
    descs = ["For each premise (a situation), list commonsense hypotheses about it.",
             "Given a premise, write a list of about 8-10 inferences about it."]
    return [_ctx("novacomet_hypothesis", c, rng, p, descs, max_samples)
            for c in _chunks(items, rng, lambda: _geom_poisson(rng, 32), max_samples)]


_AGREE = {"AGREE": "Agree", "STRONGLY_AGREE": "Strongly Agree", "DISAGREE": "Disagree",
          "STRONGLY_DISAGREE": "Strongly Disagree", "SOMEWHAT_AGREE": "Somewhat Agree",
          "SOMEWHAT_DISAGREE": "Somewhat Disagree", "NEUTRAL": "Neutral"}
HABERMAS_FILES = ("hm_all_position_statement_ratings.parquet",
                  "hm_all_round_survey_responses.parquet")


def _agreement(v) -> str | None:
    if isinstance(v, list | tuple | np.ndarray):
        v = v[0] if len(v) else None
    if isinstance(v, str):
        v = v.replace("['", "").replace("']", "")
    return _AGREE.get(v)  # MOCK and unknown labels dropped


def _habermas_rows(rows: Rows) -> Rows:
    """Official `habermas_helper_loader`: ratings joined to each worker's written opinion."""
    opinions = {}
    for r in rows:
        if r.get("_file") == HABERMAS_FILES[1] and r.get("opinion.text") is not None:
            opinions.setdefault((r["worker_id"], r["question.id"]), r["opinion.text"])
    out, seen = [], set()
    for r in rows:
        if r.get("_file") != HABERMAS_FILES[0] or r.get("worker_id") is None:
            continue
        if "MOCK" in str(r["ratings.agreement"]):  # dropped before the official dedup
            continue
        key = (r["worker_id"], r["question.id"])
        rating = _agreement(r["ratings.agreement"])
        first = key not in seen  # official: drop_duplicates keeps the first, then dropna
        seen.add(key)
        if not first or rating is None or key not in opinions:
            continue
        out.append({"worker_id": r["worker_id"], "question.text": r["question.text"],
                    "statement": r["question.affirming_statement"], "ratings.agreement": rating,
                    "opinion.text": opinions[key]})
    return out


def _habermas_question(rows: Rows, rng: Gen, p: float, max_samples: int) -> list[Context]:
    """Unique debate questions as outputs, chunked (mean 32)."""
    qs = [(None, str(q)) for q in _unique(r["question.text"] for r in _habermas_rows(rows))]
    descs = ["Write a question.", "Questions", "A list of varied questions.",
             "Questions one could put to people living in the UK.", "Questions on UK politics"]
    return [_ctx("habermas_question", c, rng, p, descs, max_samples)
            for c in _chunks(qs, rng, lambda: _geom_poisson(rng, 32), max_samples)]


def _habermas_individual(gen: list[str], family: str, descs: list[str]) -> Converter:
    def convert(rows: Rows, rng: Gen, p: float, max_samples: int) -> list[Context]:
        """Per UK participant (2000 max): question + statement -> their rating (and opinion)."""
        by = _group(_shuffled(_habermas_rows(rows), rng), "worker_id")
        out = []
        for w, wrows in list(by.items())[:2000]:
            n = _geom_poisson(rng, 32)
            items = _pairs(wrows[:n], ["question.text", "statement"], gen)
            out.append(_ctx(family, items, rng, p, descs, max_samples, worker_id=w))
        return out
    return convert


_SCALE = ("Strongly Agree; Agree; Somewhat Agree; Neutral; Somewhat Disagree; Disagree; "
          "Strongly Disagree")
_habermas_ind = _habermas_individual(
    ["ratings.agreement", "opinion.text"], "habermas_individual",
    ["Answers of one UK resident: shown a question and a statement, they rate their agreement "
     "on a 7-point scale (ratings.agreement) and give a 2-3 sentence opinion (opinion.text).",
     f"One UK resident's answers.\nInputs: question.text, statement.\nOutputs: "
     f"ratings.agreement ({_SCALE}); opinion.text (2-3 sentences)."])
_habermas_cat = _habermas_individual(
    ["ratings.agreement"], "habermas_individual_categorical",
    [f"Given a question and a statement, predict this person's agreement on a 7-point scale."
     f"\nOptions: {_SCALE}"])


def _chem(given: list[str], target: str, family: str, size: int, perms: int,
          desc: str) -> Converter:
    def convert(rows: Rows, rng: Gen, p: float, max_samples: int) -> list[Context]:
        """Pooled measurements in fixed-size chunks (official n_iter), `perms` orders each."""
        rows = [{**r, target: _num(r[target])} for r in rows
                if str(r.get(target, "")).strip() != ""]
        out = []
        for chunk in _chunks(_pairs(rows, given, [target]), rng, lambda: size, max_samples):
            out += [_ctx(family, chunk, rng, p, [desc], max_samples) for _ in range(perms)]
        return out
    return convert


_esol = _chem(["SMILES", "SELFIES", "InChI", "IUPAC"], "measured log(solubility:mol/L)",
              "chemistry_esol", 15, 5,
              "Predict the measured log solubility (mol/L) of each compound from its SMILES, "
              "SELFIES, InChI and IUPAC name.")
_oxidative = _chem(["prompt"], "C2_yield", "chemistry_oxidative", 10, 1,
                   "Results of chemistry experiments (oxidative methane coupling): predict the "
                   "C2_yield from the description of each experiment.")


# --------------------------------------------------------------------------- training sources

def _valueprism_situation(rows: Rows, rng: Gen, p: float, max_samples: int) -> list[Context]:
    """Unique situations as outputs, chunked (mean 256)."""
    items = [(None, str(s)) for s in _unique(r["situation"] for r in rows)]
    descs = ["Write a situation.", "Situations to reason about morally"]
    return [_ctx("valueprism_situation", c, rng, p, descs, max_samples)
            for c in _chunks(items, rng, lambda: _geom_poisson(rng, 256), max_samples)]


def _valueprism_vrd(rows: Rows, rng: Gen, p: float, max_samples: int) -> list[Context]:
    """Situation -> list of its values/rights/duties (Python repr, as official); 500 contexts."""
    by: dict = defaultdict(list)
    for r in _shuffled(rows, rng):
        by[r["situation"]].append({"text": r["text"], "vrd": r["vrd"],
                                   "explanation": r["explanation"], "valence": r["valence"]})
    items = [(str(s), str(v)) for s, v in sorted(by.items())]
    desc = ("Reason morally about each situation: output a list of dicts, each with text (a "
            "relevant consideration), vrd (Value, Right or Duty), explanation (why it matters "
            "here) and valence (Supports, Opposes or Neutral); ideally 3-8 considerations.")
    return [_ctx("valueprism_vrd", c, rng, p, [desc], max_samples)
            for c in _chunks(items, rng, lambda: _geom_poisson(rng, 32), max_samples, 500)]


def _valueprism_noncontextual(rows: Rows, rng: Gen, p: float,
                              max_samples: int) -> list[Context]:
    """For each of Value/Right/Duty: unique texts as outputs, chunked (mean 256)."""
    out = []
    for kind in ("Value", "Right", "Duty"):
        items = [(None, str(t)) for t in _unique(r["text"] for r in rows if r["vrd"] == kind)]
        for c in _chunks(items, rng, lambda: _geom_poisson(rng, 256), max_samples):
            out.append(_ctx("valueprism_vrds_noncontextual", c, rng, p,
                            [f"{kind} (in moral reasoning)"], max_samples, vrd=kind))
    return out


def _valueprism_misc(rows: Rows, rng: Gen, p: float, max_samples: int) -> list[Context]:
    """Per value seen >= 10 times (400 max): situations that involve it (one context each)."""
    counts = Counter(r["text"] for r in rows if r["vrd"] == "Value")
    values = _shuffled(sorted(v for v, c in counts.items() if c >= 10), rng)[:400]
    out = []
    for v in values:
        sits = _shuffled(_unique(r["situation"] for r in rows if r["text"] == v), rng)
        sits = sits[:_geom_poisson(rng, 32)]
        out.append(_ctx("valueprism_misc", [(None, str(s)) for s in sits], rng, p,
                        [f"Write a situation that involves {v}."], max_samples, value=v))
    return out


_HS_FEATS = ("helpfulness", "correctness", "coherence", "complexity", "verbosity")


def _helpsteer(rows: Rows, rng: Gen, p: float, max_samples: int) -> list[Context]:
    """500 simulated raters with random attribute weights pick the better of two responses."""
    by = _group(rows, "prompt")  # the first two responses to each prompt, as official
    pairs = [(k, v[0], v[1]) for k, v in by.items() if len(v) >= 2]
    inputs = [json.dumps({"prompt": k, "response1": a["response"], "response2": b["response"]})
              for k, a, b in pairs]
    fa = np.array([[a[f] for f in _HS_FEATS] for _, a, _ in pairs], float).reshape(-1, 5)
    fb = np.array([[b[f] for f in _HS_FEATS] for _, _, b in pairs], float).reshape(-1, 5)
    out = []
    for _ in range(500):
        w = rng.random(5) - np.array([0.05, 0.05, 0.05, 0.5, 0.5])
        idx = rng.choice(len(pairs), min(40, len(pairs)), replace=False)
        first = fa[idx] @ w > fb[idx] @ w
        items = [(inputs[i], "1" if f else "2") for i, f in zip(idx, first, strict=True)]
        prefs = str({f: float(np.round(x, 2)) for f, x in zip(_HS_FEATS, w, strict=True)})
        base = ("Judgements of one person comparing two language-model responses written by "
                "someone else; give the winner (1 or 2).")
        descs = ["Given prompt, response1 and response2, give the winner.", base,
                 f"{base}\nTheir weights: {prefs}"]
        out.append(_ctx("helpsteer", items, rng, p, descs, max_samples, weights=w.tolist()))
    return out


def _subsampled(family: str, given: list[str], gen: list[str], n_contexts: int, mean: float,
                descs: list[str], prep: Callable[[dict], dict] | None = None,
                expand: Callable[[Rows], Rows] | None = None) -> Converter:
    def convert(rows: Rows, rng: Gen, p: float, max_samples: int) -> list[Context]:
        """Official n_per=k on a pooled source: k contexts, each a fresh random subsample."""
        rows = expand(rows) if expand else rows
        rs = [prep(r) for r in rows] if prep else rows
        out = []
        for _ in range(n_contexts):
            n = min(_geom_poisson(rng, mean), len(rs), max_samples)
            pick = [rs[i] for i in rng.choice(len(rs), n, replace=False)]
            out.append(_ctx(family, _pairs(pick, given, gen), rng, p, descs, max_samples))
        return out
    return convert


def _pooled(family: str, given: list[str], gen: list[str], mean: float, descs: list[str],
            keep: Callable[[dict], bool] | None = None,
            prep: Callable[[dict], dict] | None = None) -> Converter:
    def convert(rows: Rows, rng: Gen, p: float, max_samples: int) -> list[Context]:
        """Official n_per=-1 on a pooled source: shuffled, chunked (geometric + Poisson)."""
        rs = [prep(r) if prep else r for r in rows if keep is None or keep(r)]
        return [_ctx(family, c, rng, p, descs, max_samples)
                for c in _chunks(_pairs(rs, given, gen), rng,
                                 lambda: _geom_poisson(rng, mean), max_samples)]
    return convert


_imdb = _subsampled(
    "imdb", ["review"], ["rating"], 200, 128,
    ["Label each movie review as negative or positive."],
    lambda r: {"review": r["text"], "rating": "negative" if r["label"] == 0 else "positive"})
_GSM = "grade-school math word problems (arithmetic, simple algebra, multi-step reasoning)"
_gsm_question = _subsampled(
    "gsm8k_question", [], ["question"], 50, 64,
    [f"Write {_GSM}.", "Varied math word problems set in everyday situations.",
     "Math word problems for school pupils."])
_gsm_answer = _subsampled(
    "gsm8k_answer_from_question", ["question"], ["answer"], 50, 64,
    ["Solve each math word problem step by step, showing the calculations.",
     "Give worked solutions to grade-school math word problems.",
     "Given: question (a word problem). Generate: answer (worked solution and final number)."])
_gsm_qa = _subsampled(
    "gsm8k_question_answer", [], ["question", "answer"], 50, 64,
    [f"Write {_GSM} (question) together with a step-by-step solution (answer).",
     "Write whole math problems: the statement and its worked solution.",
     "Generate: question (math word problem), answer (worked solution and final number)."])
_gsm_q_from_a = _subsampled(
    "gsm8k_question_from_answer", ["answer"], ["question"], 50, 64,
    ["Given a worked math solution, write the word problem it solves.",
     "Write the math word problem that matches each worked solution.",
     "Given: answer (worked solution). Generate: question (the word problem it solves)."])

_TITANIC_IN = ["passenger_class", "is_male", "age", "sibsp", "parch", "fare", "embarked"]
_TITANIC_HINT = ("passenger_class (1st/2nd/3rd), is_male, age, sibsp (siblings/spouses aboard), "
                 "parch (parents/children aboard), fare, embarked (port)")


def _titanic_prep(r: dict) -> dict:
    return dict(r, has_survived=str(r["has_survived"]))


_titanic_all = _pooled(
    "titanic_all_variables", [], ["has_survived", *_TITANIC_IN], 64,
    ["Write full records of Titanic passengers, survival included.",
     "Realistic Titanic passenger profiles with every attribute and whether they survived.",
     f"Generate: has_survived, {_TITANIC_HINT}."], prep=_titanic_prep)
_titanic_survival = _pooled(
    "titanic_survival_prediction", _TITANIC_IN, ["has_survived"], 64,
    ["Given a Titanic passenger's class, demographics, family aboard and travel details, "
     "predict whether they survived.",
     "Predict Titanic survival from status, demographics and family ties.",
     f"Given: {_TITANIC_HINT}. Generate: has_survived."], prep=_titanic_prep)

_PRISM_TYPES = {
    "unguided": "Ask, request or talk to the model about anything. It is up to you!",
    "values guided": ("Ask, request or talk to the model about something important to you or "
                      "that represents your values. This could be related to work, religion, "
                      "family and relationship, politics or culture"),
    "controversy guided": ("Ask, request or talk to the model about something controversial or "
                           "where people would disagree in your community, culture or country."),
}  # the instructions PRISM participants saw (quoted as data, as the official code does)
_prism_prompts = _pooled(
    "prism_prompts", ["conversation_type_description"], ["opening_prompt"], 128,
    ["Write a request to a language model that fits the conversation-type instruction."],
    keep=lambda r: r.get("conversation_type") in _PRISM_TYPES,
    prep=lambda r: {"conversation_type_description": _PRISM_TYPES[r["conversation_type"]],
                    "opening_prompt": str(r["opening_prompt"]).strip()})
_valueconsistency = _pooled(
    "valueconsistency", ["controversial", "language", "country"], ["question"], 64,
    ["Questions about values.",
     "Questions about values, given whether the question is controversial, its language and "
     "the country it is meant for."],
    keep=lambda r: not bool(r["rephrase"]))


def _issuebench(rows: Rows, rng: Gen, p: float, max_samples: int) -> list[Context]:
    """Unique topics, then unique templates, each sampled without replacement (2 contexts each)."""
    out = []
    for col, desc in (("topic_text", "Political topics"),
                      ("template_text", "Prompt templates for a benchmark of language-model bias "
                                        "on a topic; the topic appears as X.")):
        vals = [str(v) for v in _unique(r[col] for r in rows)]
        for _ in range(2):
            items = [(None, v) for v in _shuffled(vals, rng)[:5000]]
            out.append(_ctx("issuebench", items, rng, p, [desc], max_samples, part=col))
    return out


_BN_TIMESPANS: list = ["all", *range(2023, 1879, -1)]


def _babynames(rows: Rows, rng: Gen, p: float, max_samples: int) -> list[Context]:
    """500 random settings (sex, top-k, years, uniform or by frequency): top names, no repeats.

    Rows are {year, name, sex, frequency} from the SSA yobYYYY.txt files. The timespan is drawn
    with probability falling linearly over ["all", 2023, ..., 1880], as the official code does.
    """
    per_year: dict[int, Counter] = defaultdict(Counter)
    for r in rows:
        per_year[int(r["year"])][(r["name"], r["sex"])] += int(r["frequency"])
    lin = np.arange(len(_BN_TIMESPANS), 0, -1, dtype=float)
    all_years: Counter | None = None
    out = []
    for _ in range(500):
        sex = ["balanced", "M", "F"][int(rng.integers(3))]
        strategy = ["uniform", "population"][int(rng.integers(2))]
        top_k = [10, 100, 1000, 5000][int(rng.integers(4))]
        span = _BN_TIMESPANS[int(rng.choice(len(lin), p=lin / lin.sum()))]
        if span == "all":
            if all_years is None:
                all_years = Counter()
                for c in per_year.values():
                    all_years.update(c)
            total = all_years
        else:
            total = per_year.get(span, Counter())
        ranked = sorted(total.items(), key=lambda kv: (-kv[1], kv[0]))
        if sex == "balanced":
            parts = [[kv for kv in ranked if kv[0][1] == s][:top_k // 2] for s in ("M", "F")]
        else:
            parts = [[kv for kv in ranked if kv[0][1] == sex][:top_k]]
        names = [kv[0][0] for part in parts for kv in part]
        if not names:
            continue
        if strategy == "population":
            w = np.concatenate([np.array([kv[1] for kv in part], float) / sum(kv[1] for kv in part)
                                for part in parts if part])
        else:
            w = np.ones(len(names))
        n = min(len(names), max_samples)
        picked = rng.choice(len(names), n, replace=False, p=w / w.sum())
        who = {"M": "boy ", "F": "girl "}.get(sex, "")
        when = "from 1880 - 2023" if span == "all" else f"in {span}"
        how = (", in proportion to how often each name was given"
               if strategy == "population" else "")
        desc = f"Names drawn from the top {top_k} US baby {who}names {when}{how}."
        out.append(_ctx("babynames", [(None, names[i]) for i in picked], rng, p, [desc],
                        max_samples, sex=sex, strategy=strategy, top_k=top_k, span=str(span)))
    return out


# --------------------------------------------------------------------------- manual sources

def _numbergame_rows(rows: Rows) -> Rows:
    return [dict(r, given_numbers=", ".join(n.strip() for n in str(r["set"]).split("_")),
                 target_number=str(r["target"])) for r in rows]


def _numbergame_individual(rows: Rows, rng: Gen, p: float, max_samples: int) -> list[Context]:
    """Per participant (`id`): numbers + target -> Yes/No (their judgement)."""
    out = []
    for pid, prow in _group(_numbergame_rows(rows), "id").items():
        prow = [dict(r, target_belongs_to_set={0: "No", 1: "Yes"}[int(r["rating"])])
                for r in prow]
        out.append(_ctx("numbergame_individual",
                        _pairs(_shuffled(prow, rng), ["given_numbers", "target_number"],
                               ["target_belongs_to_set"]), rng, p,
                        ["Given: given_numbers, target_number. Generate: "
                         "target_belongs_to_set."],  # official: generic default description
                        max_samples, participant=pid))
    return out


def _numbergame_perc(rows: Rows, rng: Gen, p: float, max_samples: int) -> list[Context]:
    """One row per (set, target): percentage of people saying yes, chunked (mean 128)."""
    seen, items = set(), []
    for r in _numbergame_rows(rows):
        if (r["set"], r["target"]) in seen:
            continue
        seen.add((r["set"], r["target"]))
        items.append((_fmt(r, ["given_numbers", "target_number"]),
                      f"{round(float(r['p']) * 100)}%"))
    descs = ["Number game: people saw a set of numbers and judged whether a target number came "
             "from the same process; predict the percentage who said yes.",
             "Inputs: given_numbers (a set), target_number. Output: perc (share of people who "
             "think the target belongs with the set)."]
    return [_ctx("numbergame_perc", c, rng, p, descs, max_samples)
            for c in _chunks(items, rng, lambda: _geom_poisson(rng, 128), max_samples)]


def _hatespeech(rows: Rows, rng: Gen, p: float, max_samples: int) -> list[Context]:
    """Per rater (same metadata = same rater, 1000 max): comment -> toxicity score 0-4."""
    skip = {"toxic_score", "is_profane", "is_threat", "is_identity_attack", "is_insult",
            "is_sexual_harassment", "fine_to_see_online", "remove_from_online"}
    by: dict = defaultdict(list)
    for line in rows:
        for rating in line["ratings"]:
            rid = json.dumps({k: v for k, v in rating.items() if k not in skip}, sort_keys=True)
            by[rid].append((str(line["comment"]), str(rating["toxic_score"])))
    desc = ["Rate how toxic each comment is from 0 (not toxic) to 4 (very toxic)."]
    out = []
    for rid, items in list(by.items())[:1000]:
        items = _shuffled(items, rng)[:_geom_poisson(rng, 128)]
        out.append(_ctx("hatespeech_individual", items, rng, p, desc, max_samples, rater=rid))
    return out


def _jeopardy_keep(r: dict) -> bool:
    r = {k.strip(): v for k, v in r.items()}
    return (r.get("Round") in ("Jeopardy!", "Double Jeopardy!")
            and "href" not in str(r.get("Question", "")).lower()
            and all(r.get(k) not in (None, "") for k in ("Question", "Answer", "Category")))


def _jeopardy(given: list[str], family: str, descs: list[str]) -> Converter:
    inner = _pooled(family, given, ["Answer"] if given else ["Question"], 64, descs,
                    keep=_jeopardy_keep, prep=lambda r: {k.strip(): v for k, v in r.items()})

    def convert(rows: Rows, rng: Gen, p: float, max_samples: int) -> list[Context]:
        """Regular and Double Jeopardy clues, chunked (mean 64), 1000 contexts at most."""
        return inner(rows, rng, p, max_samples)[:1000]
    return convert


# --------------------------------------------------------------------------- shared helpers (2)

def _clean(v) -> bool:
    """A usable value: not None, not NaN, not an empty string."""
    return v is not None and v == v and str(v).strip() != ""


def _by_part(rows: Rows, key: str = "_part") -> dict:
    """Rows of a multi-file source split by the file (or HF part) they came from."""
    return _group((r for r in rows if key in r), key)


def _grouped(family: str, rows: Rows, key: str, given: list[str], gen: list[str], rng: Gen,
             p: float, max_samples: int, descs: Callable[[Rows], list[str]],
             size: Callable[[], int] | None = None, max_groups: int | None = None,
             max_contexts: int | None = None, cap: int | None = None, **meta) -> list[Context]:
    """One context per group (all its rows), or its rows chunked by `size` (official n_per=-1)."""
    out: list[Context] = []
    for g, grows in list(_group(rows, key).items())[:max_groups]:
        if max_contexts is not None and len(out) >= max_contexts:
            break
        items = _pairs(grows, given, gen)
        chunks = ([_shuffled(items, rng)[:cap]] if size is None
                  else _chunks(items, rng, size, max_samples))
        for c in chunks:
            if max_contexts is not None and len(out) >= max_contexts:
                break
            out.append(_ctx(family, c, rng, p, descs(grows), max_samples, group=str(g), **meta))
    return out


def _generic_descs(given: Sequence[str], gen: Sequence[str]) -> list[str]:
    """The official default description (no description given): the variable names."""
    g, o = ", ".join(given), ", ".join(gen)
    return [f"Given: {g}. Generate: {o}.", f"Inputs: {g}. Outputs: {o}."]


# --------------------------------------------------------------------------- PRISM (HF, parts)

_PRISM_DEMO = (("age", "Age"), ("gender", "Gender"), ("education", "Education"),
               ("employment_status", "Employment"))


def _prism_demographics(s: dict) -> str:
    parts = [f"{lab}: {s[k]}" for k, lab in _PRISM_DEMO if _clean(s.get(k))]
    loc, rel = s.get("location"), s.get("religion")
    if isinstance(loc, dict) and "reside_country" in loc:
        parts.append(f"Country: {loc['reside_country']}")
    if isinstance(rel, dict) and "simplified" in rel:
        parts.append(f"Religion: {rel['simplified']}")
    return "; ".join(parts)


def _prism_merged(rows: Rows) -> Rows:
    """Official: conversations inner-joined to the survey by user_id, demographics as text."""
    parts = _by_part(rows)
    survey = {r["user_id"]: r for r in parts.get("survey", [])}
    return [dict(r, demographics=_prism_demographics(survey[r["user_id"]]))
            for r in parts.get("conversations.jsonl", []) if r["user_id"] in survey]


def _prism_prompts_individual(rows: Rows, rng: Gen, p: float, max_samples: int) -> list[Context]:
    """Per user: conversation-type instruction -> their opening prompt, chunked (mean 96)."""
    merged = [dict(r, conversation_type_description=_PRISM_TYPES[r["conversation_type"]],
                   opening_prompt=str(r["opening_prompt"]).strip())
              for r in _prism_merged(rows) if r.get("conversation_type") in _PRISM_TYPES]
    out = []
    for uid, urows in _group(merged, "user_id").items():
        descs = ["Opening requests one person wrote to a language model.",
                 f"Opening requests one person wrote to a language model.\nAbout them: "
                 f"{urows[0]['demographics']}"]
        items = _pairs(urows, ["conversation_type_description"], ["opening_prompt"])
        for c in _chunks(items, rng, lambda: _geom_poisson(rng, 96), max_samples, 800):
            out.append(_ctx("prism_prompts_individual", c, rng, p, descs, max_samples, user=uid))
    return out


_ABCD = "abcd"


def _prism_pref_rows(rows: Rows) -> Rows:
    """First-turn replies (A-D by within_turn_id) with the user's scores and chosen reply."""
    out = []
    for r in _prism_merged(rows):
        first = sorted((t for t in (r.get("conversation_history") or [])
                        if t.get("role") == "model" and t.get("turn", -1) == 0
                        and "score" in t and "if_chosen" in t),
                       key=lambda t: t.get("within_turn_id", 0))
        if len(first) < 4:  # official dropna: rows without a 4th reply are dropped
            continue
        row = {"user_id": r["user_id"], "opening_prompt": r["opening_prompt"], "chosen": None}
        for label, t in zip(_ABCD, first[:4], strict=True):
            row[f"response_{label}"] = t["content"]
            row[f"score_{label}"] = int(t["score"]) if _clean(t["score"]) else None
            if t["if_chosen"]:
                row["chosen"] = label
        if row["chosen"] is not None and all(row[f"score_{x}"] is not None for x in _ABCD):
            out.append(dict(row, chosen_response=row.pop("chosen")))
    counts = Counter(r["user_id"] for r in out)
    return [r for r in out if counts[r["user_id"]] >= 2]


def _prism_preferences(rows: Rows, rng: Gen, p: float, max_samples: int) -> list[Context]:
    """Per user (sorted): prompt + four replies -> chosen reply and 0-100 scores (mean 20)."""
    prefs = sorted(_prism_pref_rows(rows), key=lambda r: str(r["user_id"]))
    desc = ["One person's ratings: for a prompt they sent to a chatbot and its four replies "
            "(A-D) they pick the reply they prefer and score every reply from 0 to 100."]
    # the official description ends in an unfilled '{demographics}' placeholder; left out here
    return _grouped("prism_individual_preferences", prefs, "user_id",
                    ["opening_prompt", *[f"response_{x}" for x in _ABCD]],
                    ["chosen_response", *[f"score_{x}" for x in _ABCD]], rng, p, max_samples,
                    lambda _: desc, size=lambda: _geom_poisson(rng, 20))


# --------------------------------------------------------------------------- community alignment

_CA_DEMO = (("age", "annotator_age"), ("gender", "annotator_gender"),
            ("education_level", "annotator_education_level"),
            ("annotator_political", "annotator_political"),
            ("ethnicity", "annotator_ethnicity"), ("country", "annotator_country"))


def _ca_rows(rows: Rows) -> Rows:
    """Official `load_community_alignment`: rows with a prompt and a preferred reply."""
    out = []
    for r in rows:
        if not (r.get("first_turn_prompt") and r.get("first_turn_preferred_response")):
            continue
        r = dict(r)
        for x in _ABCD:
            v = r.get(f"first_turn_response_{x}")
            r[f"first_turn_response_{x}"] = (v.replace("<|end_of_text|>", "")
                                             if isinstance(v, str) else v)
        out.append(r)
    return out


def _ca_demographics(r: dict) -> str:
    return json.dumps({k: r[c] for k, c in _CA_DEMO})


def _ca_unique_prompts(rows: Rows) -> Rows:
    seen, out = set(), []
    for r in _ca_rows(rows):
        if r["first_turn_prompt"] not in seen:
            seen.add(r["first_turn_prompt"])
            out.append(r)
    return out


def _ca_initial_prompt(rows: Rows, rng: Gen, p: float, max_samples: int) -> list[Context]:
    """Per language: its unique first-turn prompts without replacement, chunked (mean 32)."""
    out = []
    for lang, lrows in _group(_ca_unique_prompts(rows), "assigned_lang").items():
        items = [(None, str(r["first_turn_prompt"]).strip()) for r in lrows]
        for c in _chunks(items, rng, lambda: _geom_poisson(rng, 32), max_samples):
            out.append(_ctx("community_alignment_initial_prompt", c, rng, p,
                            [f"Requests people wrote to a language model, in {lang}."],
                            max_samples, lang=lang))
    return out


def _ca_annotators(rows: Rows) -> Rows:
    rs = _ca_rows(rows)
    counts = Counter(r["annotator_id"] for r in rs)
    return [r for r in rs if counts[r["annotator_id"]] >= 4]


def _ca_reply(rows: Rows, rng: Gen, p: float, max_samples: int) -> list[Context]:
    """Per annotator (>= 4 rows): prompt + the reply they preferred -> their next message."""
    rs = [dict(r, prompt=r["first_turn_prompt"], reply=r.get("second_turn_prompt"),
               model_response=r["first_turn_" + str(r["first_turn_preferred_response"])])
          for r in _ca_annotators(rows)]
    return _grouped("community_alignment_individual_reply", rs, "annotator_id",
                    ["prompt", "model_response"], ["reply"], rng, p, max_samples,
                    lambda g: ["How one person answers a language model's reply.\nAbout them: "
                               + _ca_demographics(g[0])],
                    size=lambda: _geom_poisson(rng, 25), max_groups=1000)


def _ca_preferences(rows: Rows, rng: Gen, p: float, max_samples: int) -> list[Context]:
    """Per annotator (>= 4 rows): prompt + replies a-d -> preferred reply and justification."""
    rs = [dict(r, prompt=r["first_turn_prompt"], preferred_response=r[
        "first_turn_preferred_response"], justification=r.get("first_turn_feedback"),
               **{f"response_{x}": r[f"first_turn_response_{x}"] for x in _ABCD})
          for r in _ca_annotators(rows)]
    base = ("One person picks the reply they like best among several model replies to a prompt "
            "and may say why.")
    return _grouped("community_alignment_individual_preferences", rs, "annotator_id",
                    ["prompt", *[f"response_{x}" for x in _ABCD]],
                    ["preferred_response", "justification"], rng, p, max_samples,
                    lambda g: [base, f"{base}\nAbout them: {_ca_demographics(g[0])}"],
                    size=lambda: _geom_poisson(rng, 25), max_groups=1000)


def _ca_response(rows: Rows, rng: Gen, p: float, max_samples: int) -> list[Context]:
    """Per language: unique prompt -> json list of its four replies (shuffled), chunks of 5."""
    rs = [dict(r, prompt=r["first_turn_prompt"], responses=json.dumps(
        _shuffled([r[f"first_turn_response_{x}"] for x in _ABCD], rng)))
          for r in _ca_unique_prompts(rows)]
    return _grouped("community_alignment_response", rs, "assigned_lang", ["prompt"],
                    ["responses"], rng, p, max_samples,
                    lambda _: ["For each prompt, write a list of four different replies a "
                               "user could choose from."], size=lambda: 5)


# --------------------------------------------------------------------------- collective alignment

_COLL_GEN = ["personal_ranking", "world_ranking", "personal_rationale", "world_rationale",
             "unacceptable_responses", "unacceptable_rationale", "importance",
             "representativeness", "subjectivity"]


def _coll_rows(rows: Rows) -> Rows:
    """Official: each annotator's rankings joined to the prompt (user turns) and replies a-d."""
    parts = _by_part(rows)
    prompts = {}
    for r in parts.get("comparisons", []):
        conv = "\n".join(m["content"] for m in r["prompt"]["messages"] if m["role"] == "user")
        resp = {f"response_{x['response_index'].lower()}": x["messages"][0]["content"]
                for x in r["responses"]}
        prompts[r["prompt_id"]] = dict(resp, conversation=conv)
    ann = parts.get("merged_comparison_annotators", [])
    counts = Counter(r["annotator_id"] for r in ann)
    out = []
    for r in ann:
        if counts[r["annotator_id"]] < 3 or r["prompt_id"] not in prompts:
            continue
        info, blocks = prompts[r["prompt_id"]], r["ranking_blocks"]

        def first(k: str, blocks=blocks) -> dict:
            return (blocks.get(k) or [{}])[0]
        out.append({"annotator_id": r["annotator_id"], "conversation": info["conversation"],
                    **{f"response_{x}": info.get(f"response_{x}", "") for x in _ABCD},
                    "importance": r["importance"], "representativeness": r["representativeness"],
                    "subjectivity": r["subjectivity"],
                    "personal_ranking": first("personal").get("ranking", ""),
                    "world_ranking": first("world").get("ranking", ""),
                    "personal_rationale": first("personal").get("rationale", ""),
                    "world_rationale": first("world").get("rationale", ""),
                    "unacceptable_responses": "|".join(first("unacceptable").get("rating", [])),
                    "unacceptable_rationale": first("unacceptable").get("rationale", ""),
                    "demographics": json.dumps(r["demographics"])})
    return out


def _collective(rows: Rows, rng: Gen, p: float, max_samples: int) -> list[Context]:
    """Per annotator (>= 3 judgements, sorted): all their judgements in one context."""
    rs = sorted(_coll_rows(rows), key=lambda r: str(r["annotator_id"]))
    return _grouped("collective_alignment_individual", rs, "annotator_id",
                    ["conversation", *[f"response_{x}" for x in _ABCD]], _COLL_GEN, rng, p,
                    max_samples,
                    lambda g: ["One person's judgements of AI replies: their own ranking and a "
                               "ranking for what is best for the world (with reasons), which "
                               "replies are unacceptable and why, and how important, "
                               "representative and subjective the case is.\nAbout them: "
                               + g[0]["demographics"]])


# --------------------------------------------------------------------------- Polis (GitHub csv)

POLIS_NAMES = (
    "15-per-hour-seattle", "american-assembly.bowling-green",
    "austria-climate.2vkxcncppn.2022-07-07", "austria-climate.5twd2jsnkf.2022-08-08",
    "austria-climate.5tzfrp5eaa.2022-07-07", "austria-climate.7z7ejpbmv5.2022-08-08",
    "austria-climate.9xnndurbfm.2022-07-07", "bg2050-volunteers", "brexit-consensus",
    "canadian-electoral-reform", "football-concussions", "london.youth.policing",
    "march-on.operation-marchin-orders", "scoop-hivemind.affordable-housing",
    "scoop-hivemind.biodiversity", "scoop-hivemind.freshwater", "scoop-hivemind.taxes",
    "scoop-hivemind.ubi", "ssis.land-bank-farmland.2rumnecbeh.2021-08-01", "vtaiwan.uberx")
_VOTE = {-1: "Disagree", 0: "Pass", 1: "Agree"}


def _polis_conversations(rows: Rows) -> dict:
    """Per conversation folder: kept comments (official filters), votes, topic/description."""
    by: dict = defaultdict(lambda: {"comments": [], "votes": [], "summary": {}})
    for r in rows:
        conv, _, fname = str(r.get("_file", "")).rpartition("/")
        if fname == "summary.csv":
            by[conv]["summary"][r["key"]] = r["value"]
        elif fname in ("comments.csv", "votes.csv"):
            by[conv][fname[:-4]].append(r)
    out = {}
    for conv, d in by.items():
        comments = []
        for c in d["comments"]:
            body = c.get("comment-body")
            if not _clean(body):
                continue
            n = len(str(body).split())
            if ("test" in str(body).lower() and n < 3) or (n < 4 and "vtaiwan.uberx" not in conv):
                continue
            comments.append(c)
        meta = {k: d["summary"][s] for k, s in (("topic", "topic"),
                                                ("description", "conversation-description"))
                if _clean(d["summary"].get(s))}
        out[conv] = {"comments": comments, "votes": d["votes"], "meta": meta}
    return out


def _polis_descs(meta: dict, descriptors: list[str]) -> list[str]:
    prefixes = [""]
    if "topic" in meta:
        prefixes.append(f"Topic: {meta['topic']}")
    if "description" in meta:
        prefixes.append(f"Description: {meta['description']}")
    if len(meta) == 2:
        prefixes += [f"Topic: {meta['topic']}\nDescription: {meta['description']}",
                     f"Description: {meta['description']}\nTopic: {meta['topic']}"]
    return [t.strip() for d in descriptors for x in prefixes for t in (f"{x}\n{d}", f"{d}\n{x}")]


def _polis_comment(rows: Rows, rng: Gen, p: float, max_samples: int) -> list[Context]:
    """Per conversation: its kept comments without replacement, chunked (mean 64)."""
    out = []
    for conv, d in _polis_conversations(rows).items():
        descs = _polis_descs(d["meta"], ["Statements people proposed in an online town hall.",
                                         "Comments, from a short phrase to a paragraph, for "
                                         "others to vote on."])
        items = [(None, str(c["comment-body"])) for c in d["comments"]]
        for c in _chunks(items, rng, lambda: _geom_poisson(rng, 64), max_samples):
            out.append(_ctx("polis_comment", c, rng, p, descs, max_samples, conversation=conv))
    return out


def _polis_vote(rows: Rows, rng: Gen, p: float, max_samples: int) -> list[Context]:
    """Per conversation, per voter (>= 4 votes, first 500): comment -> Agree/Disagree/Pass."""
    out = []
    for conv, d in _polis_conversations(rows).items():
        text = {str(c["comment-id"]): str(c["comment-body"]) for c in d["comments"]}
        votes = [{"voter_id": str(v["voter-id"]), "comment_text": text[str(v["comment-id"])],
                  "vote_text": _VOTE[int(float(v["vote"]))]} for v in d["votes"]
                 if str(v.get("comment-id")) in text and _clean(v.get("vote"))]
        counts = Counter(v["voter_id"] for v in votes)
        votes = [v for v in votes if counts[v["voter_id"]] >= 4]
        descs = _polis_descs(d["meta"], ["One person's votes in an online town hall.\nOptions: "
                                         "Agree, Disagree, Pass"])
        out += _grouped("polis_vote", votes, "voter_id", ["comment_text"], ["vote_text"], rng,
                        p, max_samples, lambda _, ds=descs: ds, max_groups=500,
                        conversation=conv)
    return out


# --------------------------------------------------------------------------- DICES (GitHub csv)

_DICES_DEMO = {"990": ["rater_gender", "rater_locale", "rater_race", "rater_race_raw",
                       "rater_age", "rater_education"],
               "350": ["rater_gender", "rater_race", "rater_raw_race", "rater_age",
                       "rater_education"]}


def _dices(rows: Rows, rng: Gen, p: float, max_samples: int) -> list[Context]:
    """Per file (990, 350), 500 random raters: dialog + reply -> Q_overall (at most 100)."""
    base = ("One rater's safety labels: given a conversation and a chatbot's last reply, is the "
            "reply unsafe? (Q_overall: Yes, No, Unsure)")
    out = []
    for fname, frows in _by_part(rows, "_file").items():
        cols = _DICES_DEMO["350" if "350" in fname else "990"]
        by = _group(frows, "rater_id")
        for rid in _shuffled(list(by), rng)[:500]:
            items = _pairs(_shuffled(by[rid], rng)[:100], ["context", "response"], ["Q_overall"])
            demo = str({c: by[rid][0].get(c) for c in cols})
            out.append(_ctx("dices", items, rng, p, [base, f"{base}\nAbout the rater: {demo}"],
                            max_samples, rater=str(rid)))
    return out


# --------------------------------------------------------------------------- AmbiEnt (GitHub)

def _amb_file(rows: Rows, name: str) -> Rows:
    return [r for r in rows if str(r.get("_file", "")).endswith(name)]


def _amb_disambiguations(rows: Rows) -> Rows:
    return [{"original_premise": r["premise"], "original_hypothesis": r["hypothesis"],
             "target_label": d["label"], "disambiguated_premise": d["premise"],
             "disambiguated_hypothesis": d["hypothesis"]}
            for r in _amb_file(rows, "ambient_full.jsonl") for d in r["disambiguations"]]


def _amb_interpretations(rows: Rows) -> Rows:
    return [dict(premise=r["premise"], hypothesis=r["hypothesis"],
                 ambiguous_sent=r["ambiguous_sent"], interpretation=i, entailment_label=lab)
            for r in _amb_file(rows, "crowdworker_annotations.jsonl")
            for i, lab in zip(r["interpretations"], r["labels"], strict=False) if lab is not None]


def _amb_distributions(rows: Rows) -> Rows:
    out = []
    for r in _amb_file(rows, "crowdworker_annotations.jsonl"):
        labels = [x for q in ("q0_gold", "q1_gold", "q2_gold", "q3_gold")
                  for x in (r.get(q) or []) if x is not None]
        if not labels:
            continue
        c, n = Counter(labels), len(labels)
        dist = {}
        for lab in ("entailment", "neutral", "contradiction"):
            dist[f"{lab}_fraction"] = f"{c[lab]}/{n}"
            dist[f"{lab}_percentage"] = float(np.round(c[lab] / n * 100, 4))
        out.append(dict(premise=r["premise"], hypothesis=r["hypothesis"],
                        ambiguous_sent=r["ambiguous_sent"], label_distribution=dist))
    return out


_NLI = "entailment, neutral or contradiction"
_amb_premise_hypothesis = _subsampled(
    "ambient_premise_hypothesis", [], ["premise", "hypothesis"], 50, 64,
    ["Write premise-hypothesis pairs for inference where the wording is ambiguous, so the "
     "relation between them depends on the reading.", "Ambiguous NLI pairs (premise, hypothesis)."],
    expand=lambda rows: _amb_file(rows, "ambient_full.jsonl"))
_amb_ambiguity = _subsampled(
    "ambient_ambiguity_detection", ["premise", "hypothesis"],
    ["premise_ambiguous", "hypothesis_ambiguous"], 50, 64,
    ["For each premise-hypothesis pair, say (true/false) whether the premise and whether the "
     "hypothesis is ambiguous.", "Detect ambiguity in inference pairs."],
    expand=lambda rows: _amb_file(rows, "ambient_full.jsonl"))
_amb_disambiguation = _subsampled(
    "ambient_disambiguation", ["original_premise", "original_hypothesis", "target_label"],
    ["disambiguated_premise", "disambiguated_hypothesis"], 50, 64,
    [f"Rewrite an ambiguous premise-hypothesis pair so it is unambiguous and its relation is the "
     f"target label ({_NLI})."], expand=_amb_disambiguations)
_amb_interpretation = _subsampled(
    "ambient_interpretation_labels", ["premise", "hypothesis", "ambiguous_sent", "interpretation"],
    ["entailment_label"], 50, 64,
    [f"Given an ambiguous inference pair and one reading of its ambiguous sentence, give the "
     f"label under that reading ({_NLI})."], expand=_amb_interpretations)
_amb_distribution = _subsampled(
    "ambient_annotation_distributions", ["premise", "hypothesis", "ambiguous_sent"],
    ["label_distribution"], 50, 64,
    [f"For an ambiguous inference pair, give how crowd annotators split across {_NLI} "
     "(fractions and percentages)."], expand=_amb_distributions)


def _amb_linguists(rows: Rows, rng: Gen, p: float, max_samples: int) -> list[Context]:
    """Per linguist: two contexts, each a random subsample (mean 64) of their labels."""
    rs = [{"premise": r["premise"], "hypothesis": r["hypothesis"], "worker_id": w,
           "annotation": a} for r in _amb_file(rows, "linguist_annotations.jsonl")
          for w, a in zip(r["worker_ids"], r["annotations"], strict=False)]
    desc = [f"One linguist's labels for premise-hypothesis pairs ({_NLI}, or several joined "
            "by '|' when ambiguous)."]
    out = []
    for w, wrows in _group(rs, "worker_id").items():
        for _ in range(2):
            pick = _shuffled(wrows, rng)[:_geom_poisson(rng, 64)]
            out.append(_ctx("ambient_linguist_annotations",
                            _pairs(pick, ["premise", "hypothesis"], ["annotation"]), rng, p,
                            desc, max_samples, worker=str(w)))
    return out


# --------------------------------------------------------------------------- haikus (GitHub csv)

def _syllables(s) -> str:
    first = ast.literal_eval("[ " + str(s).strip() + " ]")[0]
    return str(first)


def _haiku_rows(rows: Rows, rng: Gen) -> Rows:
    out = []
    for r in rows:
        poem = f"{r['0']}\n{r['1']}\n{r['2']}"
        out.append({"source": r["source"], "poem": poem,
                    "syllables": ", ".join(_syllables(r[f"{i}_syllables"]) for i in range(3)),
                    "include_word": str(rng.choice(poem.split()))})
    return out


def _haikus(rows: Rows, rng: Gen, p: float, max_samples: int) -> list[Context]:
    """Per source, chunks of 64 (200 contexts per task): poem from syllables, from word, alone."""
    hs = _haiku_rows(rows, rng)
    out = []
    for given, desc in ((["syllables"], "Haikus with the given syllable count per line."),
                        (["include_word", "syllables"], "Haikus that use the given word and "
                                                         "syllable counts.")):
        out += _grouped("haikus", hs, "source", given, ["poem"], rng, p, max_samples,
                        lambda _, d=desc: [d], size=lambda: 64, max_contexts=200,
                        task="+".join(given))
    poems = [(None, x) for x in _unique(h["poem"] for h in hs)]
    out += [_ctx("haikus", c, rng, p, ["Haikus."], max_samples, task="poem")
            for c in _chunks(poems, rng, lambda: 64, max_samples, 200)]
    return out


# --------------------------------------------------------------------------- ChangeMyView (Zenodo)

_FOOTNOTE = re.compile(r"^(?:>|&gt;)\s*\*.*?This is a footnote.*?$\n?", re.M | re.I)
_CMV_IGNORE = ("", "[deleted]", "[removed]")


def _cmv_rows(rows: Rows) -> Rows:
    """Official `load_data`: posts with text, title, > 4 comments and at least one usable one."""
    out = []
    for r in rows:
        text, title = r.get("selftext"), r.get("title")
        if not isinstance(text, str) or not isinstance(title, str):
            continue
        text = _FOOTNOTE.sub("", text)
        if text in _CMV_IGNORE or title in _CMV_IGNORE or not (r.get("num_comments") or 0) > 4:
            continue
        if not any(c.get("body") and c.get("score") is not None and c["body"] not in _CMV_IGNORE
                   for c in r.get("comments") or []):
            continue
        out.append({"post": f"{title}\n\n{text}".strip(), "title": title.strip(),
                    "selftext": text.strip(), "score": r.get("score")})
    return out


def _cmv_categories(rows: Rows, rng: Gen, p: float, max_samples: int) -> list[Context]:
    """Unique posts, then unique titles, without replacement, chunked (mean 16)."""
    cmv = _cmv_rows(rows)
    out = []
    for col, desc in (("post", "Posts by people asking to have their view changed."),
                      ("title", "Titles of posts by people asking to have their view changed.")):
        items = [(None, str(v)) for v in _unique(r[col] for r in cmv)]
        out += [_ctx("changemyview_categories", c, rng, p, [desc], max_samples, part=col)
                for c in _chunks(items, rng, lambda: _geom_poisson(rng, 16), max_samples)]
    return out


def _cmv_posts(rows: Rows, rng: Gen, p: float, max_samples: int) -> list[Context]:
    """Title -> text, text -> title, title + text -> score: pooled chunks (mean 16), 500 each."""
    cmv = _cmv_rows(rows)
    out = []
    for given, gen, desc in ((["title"], ["selftext"], "The post written under each title."),
                             (["selftext"], ["title"], "The title of each post."),
                             (["title", "selftext"], ["score"],
                              "The score (upvotes minus downvotes) each post received.")):
        out += [_ctx("changemyview_posts", c, rng, p, [desc], max_samples, task=gen[0])
                for c in _chunks(_pairs(cmv, given, gen), rng, lambda: _geom_poisson(rng, 16),
                                 max_samples, 500)]
    return out


# --------------------------------------------------------------------------- POPQUORN (GitHub csv)

_PQ_DEMO = ["gender", "race", "age", "occupation", "education"]
_PQ_TASKS = {  # task: (given, gen, descriptions without / with demographics)
    "email_rewriting": (["original email"], ["revised email"],
                        "One person rewrites a colleague's draft email to be more polite and "
                        "professional."),
    "offensiveness": (["text_to_rate"], ["offensiveness"],
                      "One person rates how offensive each Reddit comment is, from 1 (not at "
                      "all) to 5 (very)."),
    "politeness_rating": (["text_to_rate"], ["politeness"],
                          "One person rates how polite each email from a colleague is, from 1 "
                          "(not at all) to 5 (very)."),
    "question_answering": (["passage", "question"], ["groundtruth", "answer", "difficulty"],
                           "Reading questions: give the true answer (copied from the passage, "
                           "or 'No answer'), the answer this person gave, and how hard they "
                           "found it (1-5)."),
}


def _pq_task(r: dict) -> str:
    return str(r.get("_file", "")).split("/")[-2]


def _pq_prep(task: str, r: dict) -> dict:
    r = {k: (v.strip() if isinstance(v, str) else v) for k, v in r.items()}
    if task == "email_rewriting":
        return r
    if task == "question_answering":
        return dict(r, passage=r["text"], difficulty=str(int(float(r["difficulty"]))),
                    user_id="_".join(str(r[c]) for c in _PQ_DEMO))
    return dict(r, text_to_rate=r["text"], **{task.split("_")[0]: str(int(float(r[
        task.split("_")[0]])))})


def _popquorn_individual(rows: Rows, rng: Gen, p: float, max_samples: int) -> list[Context]:
    """Per task, 100 random people with > 5 rows: all their answers in one context."""
    out = []
    tasks = _group([dict(r, _task=_pq_task(r)) for r in rows], "_task")
    for task, (given, gen, base) in _PQ_TASKS.items():
        trows = [_pq_prep(task, r) for r in tasks.get(task, [])]
        by = _group(trows, "user_id")
        for uid in _shuffled([u for u, v in by.items() if len(v) > 5], rng)[:100]:
            demo = str({c: by[uid][0].get(c) for c in _PQ_DEMO})
            out.append(_ctx("popquorn_individual", _pairs(_shuffled(by[uid], rng), given, gen),
                            rng, p, [base, f"{base}\nAbout them: {demo}"], max_samples,
                            task=task, user=str(uid)))
    return out


def _popquorn_texts(rows: Rows, rng: Gen, p: float, max_samples: int) -> list[Context]:
    """Per task: 20 contexts, each a random subset (mean 128) of its unique texts."""
    out = []
    for task, trows in _group([dict(r, _task=_pq_task(r)) for r in rows], "_task").items():
        col = "original email" if task == "email_rewriting" else "text"
        texts = _unique(str(r[col]).strip() for r in trows if _clean(r.get(col)))
        for _ in range(20):
            pick = _shuffled(texts, rng)[:_geom_poisson(rng, 128)]
            out.append(_ctx("popquorn_og_categorical", [(None, t) for t in pick], rng, p,
                            [f"Texts people were shown in a {task.replace('_', ' ')} study."],
                            max_samples, task=task))
    return out


# --------------------------------------------------------------------------- generative social ch.

def _gsc(qtype: str, given: list[str], gen: list[str], family: str) -> Converter:
    def convert(rows: Rows, rng: Gen, p: float, max_samples: int) -> list[Context]:
        """Per survey file, per respondent: all their answers of one question type."""
        out = []
        for fname, frows in _by_part(rows, "_file").items():
            rs = [{"user_id": r["user_id"], "question_text": str(r["question_text"]).strip(),
                   "json_choices": r.get("json_choices"), "choice": str(r.get("choice")).strip(),
                   "response_text": str(r["text"]).strip()}
                  for r in frows if r.get("question_type") == qtype
                  and (qtype != "text" or _clean(r.get("text")))]
            out += _grouped(family, rs, "user_id", given, gen, rng, p, max_samples,
                            lambda _: _generic_descs(given, gen), survey=fname)
        return out
    return convert


_gsc_validation = _gsc("multiple choice + text", ["question_text", "json_choices"],
                       ["choice", "response_text"], "generativesocialchoice_validation")
_gsc_freetext = _gsc("text", ["question_text"], ["response_text"],
                     "generativesocialchoice_freetext")


# --------------------------------------------------------------------------- BARE (GitHub jsonl)

def _bare(family: str, modes: list[tuple[list[str], list[str], str]],
          prep: Callable[[dict], dict] | None = None) -> Converter:
    def convert(rows: Rows, rng: Gen, p: float, max_samples: int) -> list[Context]:
        """Each generation mode pooled and chunked (mean 32), 500 contexts per mode."""
        rs = [prep(r) for r in rows] if prep else rows
        out = []
        for given, gen, desc in modes:
            out += [_ctx(family, c, rng, p, [desc], max_samples, mode="+".join(given + gen))
                    for c in _chunks(_pairs(rs, given, gen), rng,
                                     lambda: _geom_poisson(rng, 32), max_samples, 500)]
        return out
    return convert


def _bare_modes(a: str, b: str, a_desc: str, b_desc: str, what: str,
                a_first: bool = True) -> list[tuple[list[str], list[str], str]]:
    both = [a, b] if a_first else [b, a]
    return [([], both, f"Write synthetic {what}: {a_desc} together with {b_desc}."),
            ([a], [b], f"Given {a_desc}, write {b_desc}."),
            ([b], [a], f"Given {b_desc}, write {a_desc}."),
            ([], [a], f"Write {a_desc} ({what}).")]


_BARE_ROOT = "https://raw.githubusercontent.com/pgasawa/BARE/HEAD/bare/sample_generated_data/"
_bare_gsm8k = _bare("bare_gsm8k", _bare_modes(
    "question", "answer", "a grade-school math word problem", "its worked solution",
    "math word problems"))
_bare_enron = _bare("bare_enron", _bare_modes(
    "email", "spam", "an email", "whether it is spam (True/False)", "business emails",
    a_first=False), prep=lambda r: dict(r, spam=str(r["spam"])))
_bare_lcb = _bare("bare_lcb", _bare_modes(
    "question", "answer", "a programming or logic problem", "a reasoned solution",
    "coding and reasoning problems"))
_bare_newsgroups = _bare("newsgroups", _bare_modes(
    "message", "newsgroup", "a newsgroup message", "the newsgroup it was posted to",
    "newsgroup posts", a_first=False))


def _bare_qa(family: str, what: str) -> Converter:
    return _bare(family, [
        ([], ["context", "question", "answer"],
         f"Write synthetic {what}: a context passage, a question on it and its answer."),
        (["context", "question"], ["answer"], f"Answer the question from the context ({what})."),
        (["context", "answer"], ["question"],
         f"Write the question that the answer responds to, given the context ({what})."),
        ([], ["context"], f"Write context passages for {what}.")])


_bare_hotpot = _bare_qa("bare_hotpot", "multi-hop reading comprehension")
_bare_pubmed = _bare_qa("pubmed", "biomedical question answering")


# --------------------------------------------------------------------------- diffuse distributions

_DIFFUSE_ROOT = "https://raw.githubusercontent.com/y0mingzhang/diffuse-distributions/HEAD/"
DIFFUSE_FILES = tuple(f"prompts/{f}.json" for f in (
    "baby-names/train", *[f"continent-countries/{c}" for c in (
        "africa", "asia", "europe", "north-america", "oceania", "south-america")],
    *[f"day-date/{d}-{i}" for d in ("day", "december", "june") for i in (0, 1)],
    "ficticious-people/ficticious-people-train", "ficticious-people/ficticious-people",
    "fruits/fruit-0", "fruits/fruit-1",
    *[f"numbers/{k}-{i}" for k in ("even", "odd", "prime", "rng") for i in (0, 1)],
    *[f"occupations/occupations-{i}" for i in range(3)]))


def _diffuse(rows: Rows, rng: Gen, p: float, max_samples: int) -> list[Context]:
    """Per prompt file: all its valid targets, in 10 random orders (no replacement)."""
    out = []
    for r in rows:
        targets = [str(t) for t in r.get("targets") or []]
        for ch in ("{", "}", "\n", "\u200b"):
            targets = [t.replace(ch, "") for t in targets]
        targets = [t.strip() for t in targets if t.strip()]
        if not targets:
            continue
        desc = str(r["request"]).split(".")[0] + ", without replacement."
        out += [_ctx("diffuse_distribution", [(None, t) for t in targets], rng, p, [desc],
                     max_samples, prompt=str(r.get("_file"))) for _ in range(10)]
    return out


# --------------------------------------------------------------------------- WVS (manual .sav)

WVS_SAV = "wvs/WVS_Cross-National_Wave_7_inverted_sav_v6_0.sav"
_WVS_DEMO = ("B_COUNTRY", "N_TOWN", "S_INTLANGUAGE")
_WVS_SKIP = {"Q261", "Q262", "Q270", "Q274"}


def _read_wvs(cache: Path, n: int = 2000, seed: int = 42) -> Rows:
    """The .sav via pyreadstat: a meta row (labels), then n random respondents (memory)."""
    try:
        import pyreadstat
    except ImportError as e:
        raise SourceUnavailable("wvs_individual reads a .sav file: pip install pyreadstat") from e
    df, meta = pyreadstat.read_sav(str(cache / WVS_SAV))
    df = df.sample(n=min(n, len(df)), random_state=seed)
    cols = [c for c in df.columns if c.startswith("Q") or c in _WVS_DEMO]
    head = {"_sav_meta": {"labels": dict(meta.column_names_to_labels),
                          "value_labels": dict(meta.variable_value_labels)}}
    return [head, *df[cols].to_dict(orient="records")]


def _wvs(rows: Rows, rng: Gen, p: float, max_samples: int) -> list[Context]:
    """Per respondent (2000): each answered question with lettered options -> their letter."""
    meta = next(r["_sav_meta"] for r in rows if "_sav_meta" in r)
    labels, values = meta["labels"], meta["value_labels"]
    people = _shuffled([r for r in rows if "_sav_meta" not in r], rng)[:2000]
    out = []
    for i, r in enumerate(people):
        demo = {labels[c]: values[c][r[c]] for c in _WVS_DEMO
                if _clean(r.get(c)) and r[c] in values.get(c, {})}
        items = []
        for col, v in r.items():
            vmap = values.get(col)
            if (not col.startswith("Q") or col in _WVS_SKIP or not _clean(v) or not vmap
                    or len(vmap) > 17 or v not in vmap):
                continue
            options = list(vmap.values())[::-1]
            letter = {o: chr(65 + k) for k, o in enumerate(options)}
            text = labels[col] + "\nOptions:\n" + "\n".join(f"{x}: {o}" for o, x in letter.items())
            items.append((text, letter[vmap[v]]))
        out.append(_ctx("wvs_individual", _shuffled(items, rng), rng, p,
                        ["Answers of one World Values Survey respondent: the letter of the "
                         "option they chose.", f"Answers of this respondent: {demo}"],
                        max_samples, respondent=i))
    return out


# --------------------------------------------------------------------------- OpinionQA (manual)

OPINIONQA_WAVES = (26, 27, 29, 32, 34, 36, 41, 42, 43, 45, 49, 50, 54, 82, 92)
_OQA_DEMO = ("AGE", "SEX", "EDUCATION", "CITIZEN", "MARITAL", "RELIG", "RELIGATTEND",
             "POLPARTY", "INCOME", "POLIDEOLOGY", "RACE")  # opinions_qa DEMOGRAPHIC_ATTRIBUTES[1:]
OPINIONQA_FILES = tuple(f"opinionqa/human_resp/American_Trends_Panel_W{w}/{f}"
                        for w in OPINIONQA_WAVES for f in ("info.csv", "responses.csv"))


def _oqa_questions(info: Rows) -> list[dict]:
    """info.csv rows -> key, text with lettered options, option -> letter."""
    out = []
    for q in info:
        refs = ast.literal_eval(q["references"]) if isinstance(q["references"], str) else list(
            q["references"])
        letter = dict(zip(refs, "ABCDEFGHIJKLMNOPQRSTUVWXYZ", strict=False))
        text = q["question"] + "\n" + "\n".join(f"{x}: {o}" for o, x in letter.items())
        out.append({"key": q["key"], "input": text, "letter": letter})
    return out


def _oqa_waves(rows: Rows) -> dict:
    by: dict = defaultdict(dict)
    for fname, frows in _by_part(rows, "_file").items():
        wave, _, f = fname.rpartition("/")
        by[wave][f] = frows
    return {w: d for w, d in sorted(by.items()) if "info.csv" in d}


def _opinionqa_individual(rows: Rows, rng: Gen, p: float, max_samples: int) -> list[Context]:
    """Per survey wave, 200 random respondents: lettered question -> their answer letter."""
    out = []
    for wave, d in _oqa_waves(rows).items():
        qs = _oqa_questions(d["info.csv"])
        people = [(i, r, [(q["input"], q["letter"][r[q["key"]]]) for q in qs
                          if r.get(q["key"]) in q["letter"]])
                  for i, r in enumerate(d.get("responses.csv", []))]
        for i, r, items in _shuffled([x for x in people if x[2]], rng)[:200]:
            demo = {k: r.get(k) for k in _OQA_DEMO if rng.random() >= 0.3}  # each kept w.p. 0.7
            out.append(_ctx("opinionqa_individual", items, rng, p,
                            ["Survey answers of one person.",
                             f"Survey answers of this person: {demo}"], max_samples,
                            wave=wave.rsplit("/", 1)[-1], respondent=i))
    return out


def _opinionqa_questions(rows: Rows, rng: Gen, p: float, max_samples: int) -> list[Context]:
    """Per survey wave: all its questions (with lettered options) in one context."""
    return [_ctx("opinionqa_questions", [(None, q["input"]) for q in _oqa_questions(
        d["info.csv"])], rng, p, ["Questions from an opinion survey."], max_samples,
                 wave=wave.rsplit("/", 1)[-1]) for wave, d in _oqa_waves(rows).items()]


# --------------------------------------------------------------------------- Netflix (manual)

def _read_netflix(cache: Path, n_users: int = 2000, seed: int = 42) -> Rows:
    """combined_data_1-3.txt (as official) streamed twice: 2000 random users with >= 10 ratings,
    their ratings joined to movie_titles.csv (latin-1, no header)."""
    d = cache / "netflix"
    paths = [d / f"combined_data_{i}.txt" for i in (1, 2, 3)]

    def lines():
        for path in paths:
            movie = None
            with open(path, encoding="latin-1") as f:
                for line in f:
                    line = line.strip()
                    if line.endswith(":"):
                        movie = line[:-1]
                    elif movie is not None and line.count(",") == 2:
                        yield movie, line.split(",")
    counts = Counter(c for _, (c, _, _) in lines())
    eligible = sorted(c for c, k in counts.items() if k >= 10)
    keep = set(np.random.default_rng(seed).choice(eligible, min(n_users, len(eligible)),
                                                  replace=False).tolist())
    titles = {}
    with open(d / "movie_titles.csv", encoding="latin-1") as f:
        for line in f:
            parts = line.rstrip("\n").split(",", 2)
            if len(parts) == 3:
                titles[parts[0]] = parts[2]
    return [{"customer_id": c, "movie_id": m, "rating": r, "date": t, "title": titles[m]}
            for m, (c, r, t) in lines() if c in keep and m in titles]


def _netflix_users(rows: Rows) -> dict:
    counts = Counter(r["customer_id"] for r in rows)
    return _group((r for r in rows if counts[r["customer_id"]] >= 10), "customer_id")


def _netflix_ratings(rows: Rows, rng: Gen, p: float, max_samples: int) -> list[Context]:
    """Per user (first 1000): a random subsample (mean 64) of title -> their 1-5 rating."""
    out = []
    for uid, urows in list(_netflix_users(rows).items())[:1000]:
        pick = _shuffled(urows, rng)[:_geom_poisson(rng, 64)]
        out.append(_ctx("netflix_individual_ratings",
                        [(str(r["title"]), str(int(float(r["rating"])))) for r in pick], rng, p,
                        ["One user's movie ratings (1-5 stars).", "How one user rated movies."],
                        max_samples, user=str(uid)))
    return out


def _netflix_views(rows: Rows, rng: Gen, p: float, max_samples: int) -> list[Context]:
    """Per user: a random subset (mean 64) of the titles they rated, without replacement."""
    out = []
    for uid, urows in _netflix_users(rows).items():
        pick = _shuffled([str(r["title"]) for r in urows], rng)[:_geom_poisson(rng, 64)]
        out.append(_ctx("netflix_individual_views", [(None, t) for t in pick], rng, p,
                        ["Movies one user watched.", "Titles of movies one user has rated."],
                        max_samples, user=str(uid)))
    return out


# --------------------------------------------------------------------------- LeWiDi 2025 (manual)

_LEWIDI = {  # set: (folder/prefix, text fields, extra fields)
    "CSC": (("context", "response"), ()),
    "MP": (("post", "reply"), ("source", "level", "language_variety")),
    "Paraphrase": (("Question1", "Question2"), ()),
    "VariErrNLI": (("context", "statement"), ()),
}


def _lewidi_files(name: str) -> tuple[str, ...]:
    return (f"lewidi/{name}/{name}_annotators_meta.json", f"lewidi/{name}/{name}_train.json")


def _lewidi_rows(rows: Rows, name: str, rating: str) -> Rows:
    """One row per (item, annotator) of the train split, with the annotator's demographics."""
    meta = {r["_key"]: {k: v for k, v in r.items() if not k.startswith("_")}
            for r in rows if str(r.get("_file", "")).endswith("_annotators_meta.json")}
    out = []
    for r in rows:
        if not str(r.get("_file", "")).endswith("_train.json"):
            continue
        other = r.get("other_info") or {}
        expl = other.get("explanations") or []
        for i, ann in enumerate(a.strip() for a in str(r["annotators"]).split(",")):
            if ann not in r["annotations"]:
                continue
            m = dict(meta.get(ann.replace("Ann", "") if name == "MP" else ann, {}))
            demo = [f"{k}: {v}" for k, v in {**m, "annotator_id": ann.replace(
                "Ann", "") if name == "MP" else ann}.items() if v] if m else []
            if name == "Paraphrase" and m:
                demo = [f"annotator_id: {ann}", *demo]
            row = {k: r["text"][k] for k in _LEWIDI[name][0]}
            row.update({k: other.get(k, "") for k in _LEWIDI[name][1]})
            if "level" in row:
                row["level"] = str(row["level"])
            value = r["annotations"][ann]
            out.append(dict(row, annotator_id=ann, lang=r.get("lang", ""), demographics="; ".join(
                demo), explanation=str(expl[i] if i < len(expl) else "").strip(),
                **{rating: int(value) if name == "Paraphrase" else value}))
    return out


def _lewidi(name: str, family: str, given: list[str], gen: list[str], chunk: int | None,
            task: str) -> Converter:
    def convert(rows: Rows, rng: Gen, p: float, max_samples: int) -> list[Context]:
        """Per annotator: all their labels (up to 1000), or fixed-size chunks of them."""
        rs = [dict(r, question1=r.get("Question1"), question2=r.get("Question2"))
              for r in _lewidi_rows(rows, name, gen[0])]
        return _grouped(family, rs, "annotator_id", given, gen, rng, p, max_samples,
                        lambda g: [f"{task}\nAbout the annotator: {g[0]['demographics']}"],
                        size=(lambda: chunk) if chunk else None, cap=1000)
    return convert


_SARC = "Rate how sarcastic the reply is, given the conversation, from 1 to 6."
_IRONY = ("Say whether a social-media reply is ironic given the post it answers (platform, "
          "reply depth, language variety and language given).")
_PARA = ("Score from -5 to 5 how much two Quora questions are paraphrases of each other")
_VNLI = ("Label how a statement relates to a context (one or more of Entailment, Neutral, "
         "Contradiction)")
_lewidi_csc = _lewidi("CSC", "lewidi_csc_sarcasm_detection_individual",
                      ["context", "response", "lang"], ["sarcasm_rating"], None, _SARC)
_lewidi_mp = _lewidi("MP", "lewidi_mp_irony_detection_individual",
                     ["post", "reply", "source", "level", "language_variety", "lang"],
                     ["irony_rating"], None, _IRONY)
_lewidi_par = _lewidi("Paraphrase", "lewidi_par_paraphrase_detection_individual",
                      ["question1", "question2", "lang"], ["paraphrase_rating", "explanation"],
                      20, _PARA + " and explain the score.")
_lewidi_par_cat = _lewidi("Paraphrase", "lewidi_par_paraphrase_detection_individual_categorical",
                          ["question1", "question2", "lang"], ["paraphrase_rating"], 20,
                          _PARA + ".")
_lewidi_nli = _lewidi("VariErrNLI", "lewidi_varierrnli_nli_detection_individual",
                      ["context", "statement", "lang"], ["nli_label", "explanation"], 30,
                      _VNLI + " and explain why.")
_lewidi_nli_cat = _lewidi("VariErrNLI",
                          "lewidi_varierrnli_nli_detection_individual_categorical",
                          ["context", "statement", "lang"], ["nli_label"], 30, _VNLI + ".")

# --------------------------------------------------------------------------- registry

_GATED = "gated on Hugging Face: accept its terms and `huggingface-cli login`"
_HAB_URL = "https://storage.googleapis.com/habermas_machine/datasets/"
_BO_ICL = "https://raw.githubusercontent.com/ur-whitelab/BO-ICL/refs/heads/main/paper/dataset/data/"


def _hf(name: str, convert: Converter, hf_id: str, **kw) -> Source:
    return Source(name, is_heldout(name), convert, hf_id=hf_id, **kw)


def _url(name: str, convert: Converter, urls: tuple[str, ...], **kw) -> Source:
    return Source(name, is_heldout(name), convert, urls=urls, **kw)


def _man(name: str, convert: Converter | None, manual: str, files: tuple[str, ...] = (),
         **kw) -> Source:
    return Source(name, is_heldout(name), convert, manual=manual, files=files, **kw)


_ARENA = dict(hf_id="lmsys/chatbot_arena_conversations", note=_GATED,
              columns=("judge", "model_a", "model_b", "winner", "conversation_a",
                       "conversation_b"))
_VP = dict(hf_id="allenai/ValuePrism", data_files="full/full.csv", note=_GATED,
           columns=("situation", "vrd", "text", "explanation", "valence"))
_GSM8K = dict(hf_id="openai/gsm8k", hf_config="main", note="official code names it `gsm8k`")
_TITANIC = dict(hf_id="mstz/titanic", note="a script dataset: may need datasets<4 and "
                "trust_remote_code")
_NUMBERGAME = ("numbergame/numbergame_data.csv: from https://openpsychologydata.metajnl.com/"
               "articles/10.5334/jopd.19 or https://dataverse.harvard.edu/dataset.xhtml?"
               "persistentId=doi:10.7910/DVN/A8ZWLF (columns id,set,target,rating,p)")
_JEOPARDY = ("misc/JEOPARDY_CSV.csv: from https://drive.google.com/file/d/"
             "0BwT5wj_P7BKXUl9tOUJWYzVvUjA (the 216,930-question Jeopardy CSV)")
_LEWIDI_MANUAL = ("lewidi/: LeWiDi 2025 data from https://www.codabench.org/competitions/7192/ "
                  "(folders CSC, MP, Paraphrase, VariErrNLI)")
_NETFLIX_FILES = ("netflix/movie_titles.csv", "netflix/combined_data_1.txt",
                  "netflix/combined_data_2.txt", "netflix/combined_data_3.txt")
_NETFLIX = ("netflix/: combined_data_*.txt and movie_titles.csv from "
            "https://www.kaggle.com/datasets/netflix-inc/netflix-prize-data (Kaggle login)")
_GH = "https://raw.githubusercontent.com/"
_POLIS_ROOT = _GH + "compdemocracy/openData/HEAD/"
_DICES_ROOT = _GH + "google-research-datasets/dices-dataset/HEAD/"
_AMB = _GH + "alisawuffles/ambient/HEAD/AmbiEnt/"
_PQ_ROOT = _GH + "Jiaxin-Pei/Potato-Prolific-Dataset/HEAD/dataset/"
_GSC_ROOT = _GH + "generative-social-choice/survey_data/HEAD/data/"
_CMV_URL = "https://zenodo.org/records/3778298/files/threads.jsonl.bz2?download=1"
_PRISM = dict(hf_id="HannahRoseKirk/prism-alignment",
              hf_parts=((None, "conversations.jsonl"), ("survey", None)))
_CA = dict(hf_id="facebook/community-alignment-dataset", split="filtered", max_rows=10_000,
           note="official code streams the first 10,000 rows of the `filtered` split")
_COLL = dict(hf_id="openai/collective-alignment-1", max_rows=100_000,
             hf_parts=(("comparisons", None), ("merged_comparison_annotators", None)))


def _bare_src(name: str, convert: Converter, path: str) -> Source:
    return _url(name, convert, (_BARE_ROOT + path,), url_root=_BARE_ROOT,
                note="LLM-generated (BARE); official reads the repo's sample_generated_data")


def _polis_urls() -> tuple[str, ...]:
    return tuple(f"{_POLIS_ROOT}{n}/{f}" for n in POLIS_NAMES
                 for f in ("summary.csv", "comments.csv", "votes.csv"))


_OPINIONQA = ("opinionqa/: human_resp.tar.gz from https://worksheets.codalab.org/bundles/"
              "0x050b7e72abb04d1f9b493c1743e580cf, extracted (tar -xvf human_resp.tar.gz)")

SOURCES: dict[str, Source] = {s.name: s for s in [
    # held out (in-context steerability evaluation)
    _hf("globaloqa", _globaloqa, "Anthropic/llm_global_opinions"),
    _hf("chatbotarena_prompts", _arena_prompts, **_ARENA),
    _hf("chatbotarena_individual_prefs", _arena_prefs, **_ARENA),
    _hf("chatbotarena_assistant", _arena_assistant, **_ARENA),
    _hf("novacomet_hypothesis", _nova_hypothesis, "tsor13/novacomet"),
    _hf("novacomet_premise", _nova_premise, "tsor13/novacomet"),
    _url("habermas_question", _habermas_question, tuple(_HAB_URL + f for f in HABERMAS_FILES)),
    _url("habermas_individual", _habermas_ind, tuple(_HAB_URL + f for f in HABERMAS_FILES)),
    _url("habermas_individual_categorical", _habermas_cat,
         tuple(_HAB_URL + f for f in HABERMAS_FILES)),
    _url("chemistry_esol", _esol, (_BO_ICL + "esol_iupac.csv",)),
    _url("chemistry_oxidative", _oxidative, (_BO_ICL + "train_data_num_feats.csv",)),
    # training
    _hf("valueprism_situation", _valueprism_situation, **_VP),
    _hf("valueprism_vrd", _valueprism_vrd, **_VP),
    _hf("valueprism_vrds_noncontextual", _valueprism_noncontextual, **_VP),
    _hf("valueprism_misc", _valueprism_misc, **_VP),
    _hf("helpsteer", _helpsteer, "nvidia/HelpSteer2", data_files="train.jsonl.gz"),
    _hf("imdb", _imdb, "stanfordnlp/imdb", hf_config="plain_text"),
    _hf("gsm8k_question", _gsm_question, **_GSM8K),
    _hf("gsm8k_answer_from_question", _gsm_answer, **_GSM8K),
    _hf("gsm8k_question_answer", _gsm_qa, **_GSM8K),
    _hf("gsm8k_question_from_answer", _gsm_q_from_a, **_GSM8K),
    _hf("titanic_all_variables", _titanic_all, **_TITANIC),
    _hf("titanic_survival_prediction", _titanic_survival, **_TITANIC),
    _hf("prism_prompts", _prism_prompts, "HannahRoseKirk/prism-alignment",
        data_files="conversations.jsonl", columns=("conversation_type", "opening_prompt")),
    _hf("valueconsistency", _valueconsistency, "jlcmoore/ValueConsistency",
        columns=("controversial", "language", "country", "question", "rephrase")),
    _hf("issuebench", _issuebench, "Paul/IssueBench", hf_config="prompts",
        split="prompts_full", columns=("topic_text", "template_text")),
    _url("babynames", _babynames, ("https://www.ssa.gov/oact/babynames/names.zip",)),
    # manual download / by request
    _man("numbergame_individual", _numbergame_individual, _NUMBERGAME,
         ("numbergame/numbergame_data.csv",)),
    _man("numbergame_perc", _numbergame_perc, _NUMBERGAME, ("numbergame/numbergame_data.csv",)),
    _man("hatespeech_individual", _hatespeech,
         "hatespeech/classified_data_final_w_worker_hash.json: by request from Deepak Kumar "
         "(https://data.esrg.stanford.edu/study/toxicity-perspectives; the version with worker "
         "hashes)", ("hatespeech/classified_data_final_w_worker_hash.json",)),
    _man("jeopardy_question_generation",
         _jeopardy([], "jeopardy_question_generation",
                   ["Write Jeopardy clues: factual statements describing something the "
                    "contestant must name.", "Trivia clues in the style of Jeopardy.",
                    "Generate: Question (a Jeopardy clue)."]),
         _JEOPARDY, ("misc/JEOPARDY_CSV.csv",)),
    _man("jeopardy_answer_prediction",
         _jeopardy(["Question"], "jeopardy_answer_prediction",
                   ["Given a Jeopardy clue, give the person, place, thing or idea it "
                    "describes.", "Answer Jeopardy clues from the clue alone.",
                    "Given: Question (a clue). Generate: Answer."]),
         _JEOPARDY, ("misc/JEOPARDY_CSV.csv",)),
    _man("wvs_individual", _wvs,
         "wvs/: 'WVS Cross-National Inverted Wave 7 sav v6 0.zip' from "
         "https://www.worldvaluessurvey.org/WVSDocumentationWV7.jsp, unzipped (needs pyreadstat)",
         (WVS_SAV,), reader=_read_wvs),
    _man("opinionqa_individual", _opinionqa_individual, _OPINIONQA, OPINIONQA_FILES),
    _man("opinionqa_questions", _opinionqa_questions, _OPINIONQA, OPINIONQA_FILES),
    _man("netflix_individual_ratings", _netflix_ratings, _NETFLIX, _NETFLIX_FILES,
         reader=_read_netflix),
    _man("netflix_individual_views", _netflix_views, _NETFLIX, _NETFLIX_FILES,
         reader=_read_netflix),
    _man("lewidi_csc_sarcasm_detection_individual", _lewidi_csc, _LEWIDI_MANUAL,
         _lewidi_files("CSC")),
    _man("lewidi_mp_irony_detection_individual", _lewidi_mp, _LEWIDI_MANUAL,
         _lewidi_files("MP")),
    _man("lewidi_par_paraphrase_detection_individual", _lewidi_par, _LEWIDI_MANUAL,
         _lewidi_files("Paraphrase")),
    _man("lewidi_par_paraphrase_detection_individual_categorical", _lewidi_par_cat,
         _LEWIDI_MANUAL, _lewidi_files("Paraphrase")),
    _man("lewidi_varierrnli_nli_detection_individual", _lewidi_nli, _LEWIDI_MANUAL,
         _lewidi_files("VariErrNLI")),
    _man("lewidi_varierrnli_nli_detection_individual_categorical", _lewidi_nli_cat,
         _LEWIDI_MANUAL, _lewidi_files("VariErrNLI")),
    # HF-hosted (added)
    _hf("prism_prompts_individual", _prism_prompts_individual, **_PRISM),
    _hf("prism_individual_preferences", _prism_preferences, **_PRISM),
    _hf("community_alignment_initial_prompt", _ca_initial_prompt, **_CA),
    _hf("community_alignment_individual_reply", _ca_reply, **_CA),
    _hf("community_alignment_individual_preferences", _ca_preferences, **_CA),
    _hf("community_alignment_response", _ca_response, **_CA),
    _hf("collective_alignment_individual", _collective, **_COLL),
    # GitHub / Zenodo downloads (data/download.sh)
    _url("polis_vote", _polis_vote, _polis_urls(), url_root=_POLIS_ROOT),
    _url("polis_comment", _polis_comment, _polis_urls(), url_root=_POLIS_ROOT),
    _url("dices", _dices, tuple(_DICES_ROOT + f for f in (
        "990/diverse_safety_adversarial_dialog_990.csv",
        "350/diverse_safety_adversarial_dialog_350.csv")), url_root=_DICES_ROOT),
    _url("ambient_premise_hypothesis", _amb_premise_hypothesis, (_AMB + "ambient_full.jsonl",)),
    _url("ambient_ambiguity_detection", _amb_ambiguity, (_AMB + "ambient_full.jsonl",)),
    _url("ambient_disambiguation", _amb_disambiguation, (_AMB + "ambient_full.jsonl",)),
    _url("ambient_linguist_annotations", _amb_linguists,
         (_AMB + "linguist_annotations.jsonl",)),
    _url("ambient_interpretation_labels", _amb_interpretation,
         (_AMB + "analysis/crowdworker_annotations.jsonl",)),
    _url("ambient_annotation_distributions", _amb_distribution,
         (_AMB + "analysis/crowdworker_annotations.jsonl",)),
    _url("haikus", _haikus, (_GH + "docmarionum1/haikurnn/HEAD/input/poems/haikus.csv",)),
    _url("changemyview_categories", _cmv_categories, (_CMV_URL,), sample_lines=10_000,
         note="a large bz2 file; official keeps a reservoir sample of 10,000 threads"),
    _url("changemyview_posts", _cmv_posts, (_CMV_URL,), sample_lines=10_000,
         note="a large bz2 file; official keeps a reservoir sample of 10,000 threads"),
    _url("popquorn_individual", _popquorn_individual,
         tuple(f"{_PQ_ROOT}{t}/raw_data.csv" for t in _PQ_TASKS), url_root=_PQ_ROOT),
    _url("popquorn_og_categorical", _popquorn_texts,
         tuple(f"{_PQ_ROOT}{t}/raw_data.csv" for t in _PQ_TASKS), url_root=_PQ_ROOT),
    *[_url(k, c, tuple(_GSC_ROOT + f for f in ("abortion_survey.csv",
                                               "chatbot_personalization_survey.csv")))
      for k, c in (("generativesocialchoice_validation", _gsc_validation),
                   ("generativesocialchoice_freetext", _gsc_freetext))],
    _bare_src("bare_gsm8k", _bare_gsm8k,
              "gsm8k/gsm8k_gpt_4o_refine_llama_70b_base_n=1000.jsonl"),
    _bare_src("bare_enron", _bare_enron, "enron/enron_gpt_4o_refine_llama_70b_base_n=500.jsonl"),
    _bare_src("bare_hotpot", _bare_hotpot,
              "hotpot/hotpot_gpt_4o_refine_llama_70b_base_n=1000.jsonl"),
    _bare_src("bare_lcb", _bare_lcb, "lcb/lcb_gpt_4o_refine_70b_base_n=1000.jsonl"),
    _bare_src("newsgroups", _bare_newsgroups,
              "newsgroups/newsgroups_gpt_4o_refine_llama_70b_base_n=500.jsonl"),
    _bare_src("pubmed", _bare_pubmed, "pubmed/pubmed_gpt_4o_refine_llama_70b_base_n=1000.jsonl"),
    _url("diffuse_distribution", _diffuse, tuple(_DIFFUSE_ROOT + f for f in DIFFUSE_FILES),
         url_root=_DIFFUSE_ROOT),
]}


# --------------------------------------------------------------------------- loading

def _one_line(e: BaseException) -> str:
    text = str(e).strip().splitlines()
    return f"{type(e).__name__}: {text[0] if text else ''}"


def _json_lines(lines: Iterable[str], sample: int = 0) -> Rows:
    """JSON lines; with `sample`, the official reservoir sample (Python random, seed 42)."""
    if not sample:
        return [json.loads(line) for line in lines if line.strip()]
    pick = random.Random(42)
    out: Rows = []
    for idx, line in enumerate(lines, start=1):
        if idx <= sample:
            out.append(json.loads(line))
        else:
            j = pick.randint(1, idx)
            if j <= sample:
                out[j - 1] = json.loads(line)
    return out


def _json_doc(text: str) -> Rows:
    """A whole JSON document: a dict of dicts gives one row per key (`_key`), else one row."""
    doc = json.loads(re.sub(r",(\s*[}\]])", r"\1", text))  # LeWiDi meta has trailing commas
    if isinstance(doc, list):
        return [d if isinstance(d, dict) else {"_value": d} for d in doc]
    if isinstance(doc, dict) and doc and all(isinstance(v, dict) for v in doc.values()):
        return [{"_key": k, **v} for k, v in doc.items()]
    return [doc]


def _read_file(path: Path, tag: str | None = None, sample: int = 0) -> Rows:
    """Rows of a downloaded or placed file; each row tagged with its file name (or `tag`)."""
    name = path.name
    if name.endswith(".parquet"):
        try:
            import pandas as pd
        except ImportError as e:
            raise SourceUnavailable(f"reading {name} needs pandas and pyarrow: "
                                    "pip install pandas pyarrow") from e
        rows = pd.read_parquet(path).to_dict(orient="records")
    elif name.endswith(".zip"):  # SSA baby names: yobYYYY.txt lines name,sex,count
        rows = []
        with zipfile.ZipFile(path) as z:
            for member in z.namelist():
                m = re.fullmatch(r"yob(\d{4})\.txt", Path(member).name)
                if not m:
                    continue
                for line in io.TextIOWrapper(z.open(member), encoding="utf-8"):
                    n, s, c = line.strip().split(",")
                    rows.append({"year": int(m.group(1)), "name": n, "sex": s, "frequency": c})
    elif name.endswith(".jsonl.bz2"):  # ChangeMyView threads
        with bz2.open(path, "rt", encoding="utf-8") as f:
            rows = _json_lines(f, sample)
    elif name.endswith(".jsonl"):
        with open(path, encoding="utf-8") as f:
            rows = _json_lines(f, sample)
    elif name.endswith(".json"):  # one document (LeWiDi, diffuse), else json lines (hatespeech)
        text = path.read_text(encoding="utf-8")
        try:
            rows = _json_doc(text)
        except json.JSONDecodeError:
            rows = _json_lines(text.splitlines(), sample)
    elif name == "summary.csv":  # Polis: headerless key,value lines
        with open(path, newline="", encoding="utf-8", errors="replace") as f:
            rows = [{"key": r[0], "value": r[1] if len(r) > 1 else ""}
                    for r in csv.reader(f) if r]
    else:
        with open(path, newline="", encoding="utf-8", errors="replace") as f:
            rows = list(csv.DictReader(f))
    for r in rows:
        r["_file"] = tag or name
    return rows


def _load_hf(source: Source, cache: Path) -> Rows:
    import datasets
    parts = source.hf_parts or ((source.hf_config, source.data_files),)
    rows: Rows = []
    for config, files in parts:
        ds = datasets.load_dataset(source.hf_id, config, split=source.split, data_files=files,
                                   cache_dir=str(cache))
        if source.max_rows is not None:
            ds = ds.select(range(min(source.max_rows, len(ds))))
        if source.columns:
            ds = ds.select_columns([c for c in source.columns if c in ds.column_names]
                                   if source.hf_parts else list(source.columns))
        tag = files or config
        rows += [dict(r, _part=tag) if source.hf_parts else dict(r) for r in ds]
    return rows


def fetch_rows(source: Source, cache_dir: str | Path) -> Rows:
    """Download (or find) a source's raw rows; raise SourceUnavailable with one clear line."""
    cache = Path(cache_dir)
    if source.manual:
        missing = [f for f in source.files if not (cache / f).exists()]
        if not source.files or missing:
            raise SourceUnavailable(f"{source.name} needs a manual download: put "
                                    f"{source.manual} under {cache}")
        if source.convert is None:
            raise SourceUnavailable(f"{source.name}: no converter for its format yet")
        if source.reader is not None:
            return source.reader(cache)
        return [r for f in source.files for r in _read_file(cache / f, f)]
    if source.hf_id:
        try:
            import datasets  # noqa: F401
        except ImportError as e:
            raise SourceUnavailable(f"{source.name} needs the Hugging Face `datasets` package: "
                                    "pip install 'datasets>=3.6'") from e
        try:
            return _load_hf(source, cache)
        except Exception as e:  # network, gating, a renamed file: one line, with the cause
            extra = f" ({source.note})" if source.note else ""
            raise SourceUnavailable(f"{source.name}: could not load {source.hf_id} from Hugging "
                                    f"Face{extra} - {_one_line(e)}") from e
    rows: Rows = []
    cache.mkdir(parents=True, exist_ok=True)
    for url in source.urls:
        rel = (url[len(source.url_root):] if source.url_root else url.rsplit("/", 1)[-1])
        rel = rel.split("?", 1)[0]
        path = cache / rel
        if not path.exists():
            try:
                req = urllib.request.Request(url, headers={"User-Agent": "Mozilla/5.0"})
                with urllib.request.urlopen(req, timeout=120) as resp:
                    data = resp.read()
            except Exception as e:
                raise SourceUnavailable(f"{source.name}: could not download {url} "
                                        f"({_one_line(e)}); fetch it by hand into {cache}") from e
            path.parent.mkdir(parents=True, exist_ok=True)
            with atomic_path(path) as tmp:  # a killed download leaves nothing behind
                tmp.write_bytes(data)
        rows += _read_file(path, rel if source.url_root else None, source.sample_lines)
    return rows


def to_contexts(source_name: str, rows: Rows, rng: Gen, description_prob: float,
                max_samples: int) -> list[Context]:
    """Pure conversion of raw rows into the official grouping of contexts for a task key."""
    source = SOURCES[source_name]
    if source.convert is None:
        raise SourceUnavailable(f"{source_name}: no converter for its format yet")
    return [c for c in source.convert(rows, rng, description_prob, max_samples) if c.samples]


def load_source(name: str, cache_dir: str | Path, rng: Gen, description_prob: float = 0.6,
                max_samples: int = 5000) -> list[Context]:
    """Fetch then convert one task key; defaults match the official description prob and cap."""
    return to_contexts(name, fetch_rows(SOURCES[name], cache_dir), rng, description_prob,
                       max_samples)


__all__ = ["SOURCES", "Source", "SourceUnavailable", "fetch_rows", "is_heldout", "load_source",
           "to_contexts", "HELDOUT_PREFIXES"]
