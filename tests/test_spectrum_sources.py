"""Spectrum Suite real-data converters on hand-made rows shaped like the real ones (no network)."""

import json
import sys
import types
import urllib.request
import zipfile

import numpy as np
import pytest

from repro.papers.spectrum import sources as S

HF = S.HABERMAS_FILES


def _conv(a, b, turns=2):
    return [{"role": "user", "content": f" {a} "}, {"role": "assistant", "content": b}][:turns]


def _arena(judge, i, winner="model_a", ma="gpt-4", mb="vicuna"):
    return {"judge": judge, "model_a": ma, "model_b": mb, "winner": winner,
            "conversation_a": _conv(f"p{i}", f"A{i}"), "conversation_b": _conv(f"p{i}", f"B{i}")}


ARENA = ([_arena("j1", i) for i in range(5)] + [_arena("j2", i, "tie (bothbad)", "claude")
                                                 for i in range(5, 9)] + [_arena("j3", 9)])
HAB = ([{"_file": HF[0], "worker_id": f"w{w}", "question.id": f"q{q}", "question.text": f"Q{q}?",
         "question.affirming_statement": f"S{q}", "question.negating_statement": "n",
         "ratings.agreement": np.array(["AGREE" if q % 2 else "STRONGLY_DISAGREE"])}
        for w in range(3) for q in range(4)]
       + [{"_file": HF[0], "worker_id": "w0", "question.id": "q9", "question.text": "Q9?",
           "question.affirming_statement": "S9", "question.negating_statement": "n",
           "ratings.agreement": np.array(["MOCK"])}]
       + [{"_file": HF[1], "worker_id": f"w{w}", "question.id": f"q{q}", "opinion.text": f"o{w}{q}"}
          for w in range(3) for q in range(3)])  # q3 has no opinion -> dropped
ROWS = {
    "globaloqa": [{"question": f"Q{i}?", "options": "['Yes', 'No']", "source": "GAS",
                   "selections": "defaultdict(<class 'list'>, {'France': [0.29, 0.71], "
                                 "'Peru': [0.5, 0.5]})"} for i in range(3)],
    "chatbotarena_prompts": ARENA, "chatbotarena_individual_prefs": ARENA,
    "chatbotarena_assistant": ARENA,
    "novacomet_hypothesis": [{"premise": f"P{i // 3}", "hypothesis": f"h{i}"} for i in range(30)],
    "novacomet_premise": [{"premise": f"P{i // 3}", "hypothesis": f"h{i}"} for i in range(30)],
    "habermas_question": HAB, "habermas_individual": HAB, "habermas_individual_categorical": HAB,
    "chemistry_esol": [{"Compound ID": f"c{i}", "measured log(solubility:mol/L)": str(-i),
                        "SMILES": f"C{i}", "SELFIES": "[C]", "InChI": "I", "IUPAC": f"n{i}"}
                       for i in range(40)],
    "chemistry_oxidative": [{"prompt": f"run {i}", "C2_yield": f"{i / 10}"} for i in range(25)],
    "valueprism_situation": [{"situation": f"s{i % 15}", "vrd": ["Value", "Right", "Duty"][i % 3],
                              "text": "Honesty" if i % 3 == 0 else f"t{i}", "explanation": "e",
                              "valence": "Supports"} for i in range(60)],
    "helpsteer": [{"prompt": f"p{i // 2}", "response": f"r{i}", "helpfulness": i % 5,
                   "correctness": 3, "coherence": 4, "complexity": i % 3, "verbosity": 1}
                  for i in range(100)],
    "imdb": [{"text": f"review {i}", "label": i % 2} for i in range(300)],
    "gsm8k_question": [{"question": f"q{i}", "answer": f"a{i} #### {i}"} for i in range(200)],
    "titanic_all_variables": [{"has_survived": i % 2, "passenger_class": 3, "is_male": True,
                               "age": 20.0 + i, "sibsp": 0, "parch": 1, "fare": 7.25,
                               "embarked": "S", "name": "x"} for i in range(80)],
    "prism_prompts": [{"conversation_type": "unguided", "opening_prompt": f" hi {i} "}
                      for i in range(50)],
    "valueconsistency": [{"controversial": True, "language": "en", "country": "us",
                          "question": f"q{i}", "rephrase": i % 2 == 1} for i in range(40)],
    "issuebench": [{"topic_text": f"t{i % 7}", "template_text": f"X? {i % 3}"} for i in range(30)],
    "babynames": [{"year": y, "name": f"{s}{k}", "sex": s, "frequency": str(100 - k)}
                  for y in (2022, 2023) for s in "MF" for k in range(30)],
    "numbergame_individual": [{"id": i % 3, "set": "16_ 8_ 2", "target": t, "rating": str(t % 2),
                               "p": "0.25"} for i in range(9) for t in (4, 5)],
    "hatespeech_individual": [{"comment_id": i, "comment": f"c{i}",
                               "ratings": [{"toxic_score": i % 5, "gender": g, "age": "30"}
                                           for g in ("f", "m")]} for i in range(10)],
    "jeopardy_question_generation": (
        [{" Round": "Jeopardy!", " Question": f"clue {i}", " Answer": f"ans{i}",
          " Category": "C"} for i in range(30)]
        + [{" Round": "Final Jeopardy!", " Question": "fj", " Answer": "a", " Category": "C"},
           {" Round": "Jeopardy!", " Question": "<a href=x>", " Answer": "a", " Category": "C"}]),
}
for k in ("valueprism_vrd", "valueprism_vrds_noncontextual", "valueprism_misc"):
    ROWS[k] = ROWS["valueprism_situation"]
for k in ("gsm8k_answer_from_question", "gsm8k_question_answer", "gsm8k_question_from_answer"):
    ROWS[k] = ROWS["gsm8k_question"]
ROWS["titanic_survival_prediction"] = ROWS["titanic_all_variables"]
ROWS["numbergame_perc"] = ROWS["numbergame_individual"]
ROWS["jeopardy_answer_prediction"] = ROWS["jeopardy_question_generation"]

OFFICIAL_HELDOUT = {"novacomet_hypothesis", "novacomet_premise", "habermas_question",
                    "habermas_individual", "habermas_individual_categorical", "wvs_individual",
                    "numbergame_individual", "numbergame_perc", "globaloqa",
                    "chatbotarena_prompts", "chatbotarena_individual_prefs",
                    "chatbotarena_assistant", "chemistry_esol", "chemistry_oxidative"}


def conv(name, p=0.6, m=5000, seed=0):
    return S.to_contexts(name, ROWS[name], np.random.default_rng(seed), p, m)


def test_every_converter_has_rows_and_registry_is_faithful():
    assert {k for k, s in S.SOURCES.items() if s.convert} == set(ROWS)
    assert {k for k, s in S.SOURCES.items() if s.heldout} == OFFICIAL_HELDOUT
    for s in S.SOURCES.values():
        assert bool(s.hf_id) + bool(s.urls) + bool(s.manual) == 1, s.name


@pytest.mark.parametrize("name", sorted(ROWS))
def test_generic_contract(name):
    for p, has in ((0.0, False), (1.0, True)):
        ctxs = conv(name, p, seed=3)
        assert ctxs and all(c.family == name and c.samples for c in ctxs)
        assert all((c.description is not None) == has for c in ctxs)
        assert all(isinstance(s.output, str) for c in ctxs for s in c.samples)
    assert [c.to_json() for c in ctxs] == [c.to_json() for c in conv(name, 1.0, seed=3)]
    assert all(len(c.samples) <= 2 for c in conv(name, m=2))


def test_globaloqa_per_country_two_shuffles():
    ctxs = conv("globaloqa", 1.0)
    assert sorted(c.meta["country"] for c in ctxs) == ["France"] * 2 + ["Peru"] * 2
    fr = [c for c in ctxs if c.meta["country"] == "France"][0]
    assert len(fr.samples) == 3 and any("France" in c.description for c in ctxs)
    s = fr.samples[0]
    assert json.loads(s.input)["options"] == "['Yes', 'No']"
    assert s.output == "[{'Yes': 28}, {'No': 71}]"  # official int(round(p, 2) * 100)


def test_chatbotarena_grouping():
    prompts = conv("chatbotarena_prompts")
    assert sorted(c.meta["judge"] for c in prompts) == ["j1", "j2"]  # j3 has < 4 votes
    assert {s.output for s in prompts[0].samples} <= {f"p{i}" for i in range(9)}
    prefs = conv("chatbotarena_individual_prefs", 1.0)
    outs = {c.meta["judge"]: {s.output for s in c.samples} for c in prefs}
    assert outs == {"j1": {"a"}, "j2": {"bothbad"}}
    assert set(json.loads(prefs[0].samples[0].input)) == {
        "opening_prompt", "model_a_response", "model_b_response"}
    asst = {c.meta["model"]: c for c in conv("chatbotarena_assistant")}
    assert set(asst) == {"gpt-4", "claude"}  # models seen as model_a
    vic = [s for c in conv("chatbotarena_assistant") for s in c.samples if s.output[0] == "B"]
    assert not vic  # vicuna never appears as model_a, as in the official loop


def test_novacomet_and_habermas():
    hyp = [s for c in conv("novacomet_hypothesis") for s in c.samples]
    assert len(hyp) == 10 and json.loads(hyp[0].output)[0].startswith("h")
    assert sorted(s.output for c in conv("novacomet_premise") for s in c.samples) == sorted(
        {f"P{i}" for i in range(10)})
    ind = conv("habermas_individual")
    assert sorted(c.meta["worker_id"] for c in ind) == ["w0", "w1", "w2"]
    s = [x for c in ind for x in c.samples]
    assert all(json.loads(x.input).keys() == {"question.text", "statement"} for x in s)
    assert {json.loads(x.output)["ratings.agreement"] for x in s} == {"Agree",
                                                                      "Strongly Disagree"}
    assert len(s) <= 9 and "Q3?" not in {json.loads(x.input)["question.text"] for x in s}
    cat = [x.output for c in conv("habermas_individual_categorical") for x in c.samples]
    assert set(cat) <= {"Agree", "Strongly Disagree"}
    assert sorted(x.output for c in conv("habermas_question") for x in c.samples) == [
        "Q0?", "Q1?", "Q2?"]


def test_chemistry_chunks_and_permutations():
    esol = conv("chemistry_esol")
    assert len(esol) == 3 * 5 and len(esol[0].samples) == 15
    assert {s.output for s in esol[0].samples} == {s.output for s in esol[4].samples}
    assert esol[0].samples[0].output.endswith(".0")  # printed as a float column
    assert set(json.loads(esol[0].samples[0].input)) == {"SMILES", "SELFIES", "InChI", "IUPAC"}
    ox = conv("chemistry_oxidative")
    assert [len(c.samples) for c in ox] == [10, 10, 5] and ox[0].samples[0].input.startswith("run")


def test_training_shapes():
    hs = conv("helpsteer", 1.0)
    assert len(hs) == 500 and {s.output for c in hs for s in c.samples} <= {"1", "2"}
    assert len(conv("imdb")) == 200 and {s.output for s in conv("imdb")[0].samples} <= {
        "negative", "positive"}
    qa = conv("gsm8k_question_answer")[0].samples[0]
    assert qa.input is None and set(json.loads(qa.output)) == {"question", "answer"}
    t = conv("titanic_survival_prediction")[0].samples[0]
    assert t.output in {"0", "1"} and "name" not in json.loads(t.input)
    assert conv("prism_prompts")[0].samples[0].output.startswith("hi")
    vc = [s for c in conv("valueconsistency") for s in c.samples]
    assert len(vc) == 20 and json.loads(vc[0].input)["controversial"] is True
    vrd = conv("valueprism_vrd")[0].samples[0]
    assert vrd.input.startswith("s") and vrd.output.startswith("[{'text'")
    misc = conv("valueprism_misc")
    assert [c.meta["value"] for c in misc] == ["Honesty"]
    assert len(conv("issuebench")) == 4
    bn = conv("babynames", 1.0)  # settings whose years are absent from the rows are skipped
    assert bn and all(len({s.output for s in c.samples}) == len(c.samples) for c in bn)
    top10 = [c for c in bn if c.meta["top_k"] == 10 and c.meta["sex"] == "balanced"]
    assert top10 and all(sorted(s.output[0] for s in c.samples) == ["F"] * 5 + ["M"] * 5
                         for c in top10)


def test_manual_converters():
    perc = [s for c in conv("numbergame_perc") for s in c.samples]
    assert sorted(s.output for s in perc) == ["25%", "25%"]
    assert json.loads(perc[0].input)["given_numbers"] == "16, 8, 2"
    ind = conv("numbergame_individual")
    assert len(ind) == 3 and {s.output for c in ind for s in c.samples} == {"Yes", "No"}
    assert len(conv("hatespeech_individual")) == 2
    jq = [s for c in conv("jeopardy_question_generation") for s in c.samples]
    assert len(jq) == 30 and "fj" not in {s.output for s in jq}


def test_fetch_errors_are_one_clear_line(monkeypatch, tmp_path):
    monkeypatch.setitem(sys.modules, "datasets", None)
    with pytest.raises(S.SourceUnavailable, match="pip install") as e:
        S.fetch_rows(S.SOURCES["globaloqa"], tmp_path)
    assert "\n" not in str(e.value)

    def boom(*a, **k):
        raise ConnectionError("no route to host\ntraceback details")
    monkeypatch.setitem(sys.modules, "datasets", types.SimpleNamespace(load_dataset=boom))
    with pytest.raises(S.SourceUnavailable, match="ConnectionError: no route") as e:
        S.fetch_rows(S.SOURCES["chatbotarena_prompts"], tmp_path)
    assert "\n" not in str(e.value) and "gated" in str(e.value)
    monkeypatch.setattr(urllib.request, "urlopen", boom)
    with pytest.raises(S.SourceUnavailable, match="could not download"):
        S.fetch_rows(S.SOURCES["chemistry_esol"], tmp_path)
    for name in ("wvs_individual", "numbergame_perc"):
        with pytest.raises(S.SourceUnavailable, match="manual download") as e:
            S.load_source(name, tmp_path, np.random.default_rng(0))
        assert "\n" not in str(e.value)


def test_fetch_reads_cached_files(monkeypatch, tmp_path):
    monkeypatch.setattr(urllib.request, "urlopen", None)  # must not be called
    (tmp_path / "train_data_num_feats.csv").write_text("prompt,C2_yield\nrun a,1.5\nrun b,2\n")
    rows = S.fetch_rows(S.SOURCES["chemistry_oxidative"], tmp_path)
    assert rows[1] == {"prompt": "run b", "C2_yield": "2", "_file": "train_data_num_feats.csv"}
    with zipfile.ZipFile(tmp_path / "names.zip", "w") as z:
        z.writestr("yob2023.txt", "Olivia,F,100\nLiam,M,90\n")
    ctxs = S.load_source("babynames", tmp_path, np.random.default_rng(0), 1.0, 50)
    assert {s.output for c in ctxs for s in c.samples} == {"Olivia", "Liam"}
