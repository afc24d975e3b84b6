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
import csv
import io
import json
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
                descs: list[str], prep: Callable[[dict], dict] | None = None) -> Converter:
    def convert(rows: Rows, rng: Gen, p: float, max_samples: int) -> list[Context]:
        """Official n_per=k on a pooled source: k contexts, each a fresh random subsample."""
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
_LEWIDI = "lewidi/: LeWiDi 2025 data from https://www.codabench.org/competitions/7192/"
_NETFLIX = ("netflix/: combined_data_*.txt and movie_titles.csv from "
            "https://www.kaggle.com/datasets/netflix-inc/netflix-prize-data (Kaggle login)")
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
    _man("wvs_individual", None,
         "wvs/: 'WVS Cross-National Inverted Wave 7 sav v6 0.zip' from "
         "https://www.worldvaluessurvey.org/WVSDocumentationWV7.jsp, unzipped (needs pyreadstat)"),
    _man("opinionqa_individual", None, _OPINIONQA),
    _man("opinionqa_questions", None, _OPINIONQA),
    _man("netflix_individual_ratings", None, _NETFLIX),
    _man("netflix_individual_views", None, _NETFLIX),
    *[_man(k, None, _LEWIDI) for k in (
        "lewidi_csc_sarcasm_detection_individual", "lewidi_mp_irony_detection_individual",
        "lewidi_par_paraphrase_detection_individual",
        "lewidi_par_paraphrase_detection_individual_categorical",
        "lewidi_varierrnli_nli_detection_individual",
        "lewidi_varierrnli_nli_detection_individual_categorical")],
]}


# --------------------------------------------------------------------------- loading

def _one_line(e: BaseException) -> str:
    text = str(e).strip().splitlines()
    return f"{type(e).__name__}: {text[0] if text else ''}"


def _read_file(path: Path) -> Rows:
    """Rows of a downloaded or placed file; each row tagged with its file name."""
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
    elif name.endswith((".json", ".jsonl")):  # json lines (hatespeech)
        with open(path, encoding="utf-8") as f:
            rows = [json.loads(line) for line in f if line.strip()]
    else:
        with open(path, newline="", encoding="utf-8", errors="replace") as f:
            rows = list(csv.DictReader(f))
    for r in rows:
        r["_file"] = name
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
        return [r for f in source.files for r in _read_file(cache / f)]
    if source.hf_id:
        try:
            import datasets
        except ImportError as e:
            raise SourceUnavailable(f"{source.name} needs the Hugging Face `datasets` package: "
                                    "pip install 'datasets>=3.6'") from e
        try:
            ds = datasets.load_dataset(source.hf_id, source.hf_config, split=source.split,
                                       data_files=source.data_files, cache_dir=str(cache))
            if source.columns:
                ds = ds.select_columns(list(source.columns))
            return [dict(r) for r in ds]
        except Exception as e:  # network, gating, a renamed file: one line, with the cause
            extra = f" ({source.note})" if source.note else ""
            raise SourceUnavailable(f"{source.name}: could not load {source.hf_id} from Hugging "
                                    f"Face{extra} - {_one_line(e)}") from e
    rows: Rows = []
    cache.mkdir(parents=True, exist_ok=True)
    for url in source.urls:
        path = cache / url.rsplit("/", 1)[-1]
        if not path.exists():
            try:
                req = urllib.request.Request(url, headers={"User-Agent": "Mozilla/5.0"})
                with urllib.request.urlopen(req, timeout=120) as resp:
                    data = resp.read()
            except Exception as e:
                raise SourceUnavailable(f"{source.name}: could not download {url} "
                                        f"({_one_line(e)}); fetch it by hand into {cache}") from e
            with atomic_path(path) as tmp:  # a killed download leaves nothing behind
                tmp.write_bytes(data)
        rows += _read_file(path)
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
