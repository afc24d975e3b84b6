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
# ---- added sources: hand-made rows with the real field names
_HIST = [{"role": "user", "turn": 0, "content": "hi"}] + [
    {"role": "model", "turn": 0, "within_turn_id": k, "content": f"r{k}", "score": 10 * k,
     "if_chosen": k == 2} for k in range(4)]
PRISM = ([{"_part": "conversations.jsonl", "user_id": f"u{i % 3}", "conversation_type": "unguided",
           "opening_prompt": f" ask {i} ", "conversation_history": _HIST} for i in range(12)]
         + [{"_part": "survey", "user_id": f"u{u}", "age": "25-34", "gender": "Female",
             "education": None, "employment_status": "Working", "location": {
                 "reside_country": "UK"}, "religion": {"simplified": "None"}} for u in range(2)])
CA = [{"first_turn_prompt": f"prompt {i % 10}", "first_turn_preferred_response": "response_b",
       **{f"first_turn_response_{x}": f"{x}{i}<|end_of_text|>" for x in "abcd"},
       "second_turn_prompt": f"thanks {i}", "first_turn_feedback": "clear",
       "assigned_lang": ["English", "French"][i % 2], "annotator_id": f"a{i % 4}",
       "annotator_age": "30", "annotator_gender": "m", "annotator_education_level": "BA",
       "annotator_political": "centre", "annotator_ethnicity": "x", "annotator_country": "FR"}
      for i in range(20)] + [{"first_turn_prompt": "", "first_turn_preferred_response": None}]
COLL = ([{"_part": "comparisons", "prompt_id": f"p{i}",
          "prompt": {"messages": [{"role": "system", "content": "s"},
                                  {"role": "user", "content": f"q{i}"}]},
          "responses": [{"response_index": x.upper(), "messages": [{"content": f"{x}{i}"}]}
                        for x in "abcd"]} for i in range(4)]
        + [{"_part": "merged_comparison_annotators", "annotator_id": f"n{i % 2}",
            "prompt_id": f"p{i % 4}", "importance": "high", "representativeness": "3",
            "subjectivity": "yes", "demographics": {"age": "40"},
            "ranking_blocks": {"personal": [{"ranking": "A>B>C>D", "rationale": "why"}],
                               "world": [], "unacceptable": [{"rating": ["C"],
                                                              "rationale": "rude"}]}}
           for i in range(7)])
_PO = "scoop-hivemind.ubi/"
POLIS = ([{"_file": _PO + "summary.csv", "key": "topic", "value": "UBI"},
          {"_file": _PO + "summary.csv", "key": "conversation-description", "value": ""}]
         + [{"_file": _PO + "comments.csv", "comment-id": str(c),
             "comment-body": ["a test", "too short", f"we should pay everyone {c}"][min(c, 2)]}
            for c in range(6)]
         + [{"_file": _PO + "votes.csv", "comment-id": str(c), "voter-id": str(v),
             "vote": str(c % 3 - 1)} for v in range(3) for c in range(6) if v < 2 or c < 3])
DICES = [{"_file": f"{n}/diverse_safety_adversarial_dialog_{n}.csv", "rater_id": f"r{i % 3}",
          "context": f"c{i}", "response": f"x{i}", "Q_overall": ["Yes", "No", "Unsure"][i % 3],
          "rater_gender": "Woman", "rater_age": "gen z", "rater_race": "x",
          "rater_education": "college"} for n in ("990", "350") for i in range(12)]
AMB = ([{"_file": "ambient_full.jsonl", "premise": f"P{i}", "hypothesis": f"H{i}",
         "premise_ambiguous": i % 2 == 0, "hypothesis_ambiguous": False,
         "disambiguations": [{"label": "neutral", "premise": f"P{i}'", "hypothesis": f"H{i}"}]}
        for i in range(10)]
       + [{"_file": "linguist_annotations.jsonl", "premise": f"P{i}", "hypothesis": f"H{i}",
           "worker_ids": ["w1", "w2"], "annotations": ["entailment", "neutral|contradiction"]}
          for i in range(6)]
       + [{"_file": "crowdworker_annotations.jsonl", "premise": f"P{i}", "hypothesis": f"H{i}",
           "ambiguous_sent": "premise", "interpretations": ["i1", "i2"],
           "labels": ["entailment", None], "q0_gold": ["entailment", "neutral"],
           "q1_gold": [None, "entailment"]} for i in range(6)])
HAIKU = [{"0": f"old pond {i}", "1": "a frog jumps in", "2": "splash", "source": f"s{i % 2}",
          "0_syllables": "3", "1_syllables": "4,5", "2_syllables": "1"} for i in range(8)]
CMV = [{"title": f"CMV: t{i}", "selftext": f"body {i}\n&gt;*This is a footnote*\n",
        "num_comments": 5 + i % 2, "score": i,
        "comments": [{"body": "no", "score": 1}]} for i in range(10)] + [
    {"title": "x", "selftext": "[deleted]", "num_comments": 9, "score": 1, "comments": []}]
_PQ = "https://x/"
PQ = ([{"_file": "email_rewriting/raw_data.csv", "user_id": f"e{i % 2}",
        "original email": f" draft {i} ", "revised email": f"polite {i}", "gender": "Man",
        "race": "White", "age": "18-24", "occupation": "x", "education": "y"} for i in range(14)]
      + [{"_file": "offensiveness/raw_data.csv", "user_id": "o1", "text": f"c{i}",
          "offensiveness": "2.0", "gender": "Man", "race": "White", "age": "18-24",
          "occupation": "x", "education": "y"} for i in range(7)]
      + [{"_file": "question_answering/raw_data.csv", "user_id": "", "text": "passage",
          "question": f"q{i}", "groundtruth": "g", "answer": "a", "difficulty": "3",
          "gender": "Woman", "race": "Asian", "age": "25", "occupation": "x", "education": "y"}
         for i in range(7)])
GSC = [{"_file": "abortion_survey.csv", "user_id": f"u{i % 2}", "question_type": t,
        "question_text": f" q{i} ", "json_choices": '["Agree", "Disagree"]', "choice": "Agree ",
        "text": f"because {i}" if i != 3 else None}
       for i, t in enumerate(["multiple choice + text", "text", "reading"] * 4)]
BARE = [{"question": f"q{i}", "answer": f"a{i}", "context": f"c{i}", "email": f"e{i}",
         "spam": i % 2 == 0, "message": f"m{i}", "newsgroup": "sci.space"} for i in range(40)]
DIFFUSE = [{"_file": "prompts/fruits/fruit-0.json", "request": "Name a fruit. Use braces.",
            "response": [""], "targets": ["{Apple}", "{Fig}\n", "{}"]},
           {"_file": "prompts/x.json", "request": "r", "targets": []}]
_VL = {"Q1": {1.0: "Yes", 2.0: "No"}, "Q2": {1.0: "Low", 2.0: "Mid", 3.0: "High"},
       "B_COUNTRY": {20.0: "Andorra"}, "Q261": {1.0: "born"}}
WVS = [{"_sav_meta": {"labels": {"Q1": "Trust?", "Q2": "Income?", "B_COUNTRY": "Country",
                                 "Q261": "Year"}, "value_labels": _VL}}] + [
    {"Q1": 1.0 + i % 2, "Q2": float("nan") if i == 0 else 3.0, "B_COUNTRY": 20.0,
     "Q261": 1.0, "N_TOWN": 1.0} for i in range(5)]
_W = "opinionqa/human_resp/American_Trends_Panel_W26/"
OQA = ([{"_file": _W + "info.csv", "key": f"K{k}_W26", "question": f"Q{k}?",
         "references": "['Very', 'Not at all', 'Refused']"} for k in range(3)]
       + [{"_file": _W + "responses.csv", "K0_W26": "Very", "K1_W26": "Not at all",
           "K2_W26": "" if i else "Refused", "AGE": "30-49", "SEX": "Male", "RACE": "White"}
          for i in range(4)])
NETFLIX = [{"customer_id": f"c{i % 2}", "movie_id": str(i), "rating": str(1 + i % 5),
            "date": "2005-01-01", "title": f"Movie {i}"} for i in range(24)] + [
    {"customer_id": "rare", "movie_id": "1", "rating": "3", "date": "d", "title": "Movie 1"}]


def _lew(name, text, ann="Ann1,Ann2", extra=None):
    meta = [{"_file": f"lewidi/{name}/{name}_annotators_meta.json", "_key": k, "Gender": "F",
             "Age": ""} for k in ("1", "2", "Ann1", "Ann2")]
    second = "-3" if name == "Paraphrase" else ["Neutral"]
    items = [{"_file": f"lewidi/{name}/{name}_train.json", "_key": str(i), "text": text,
              "annotators": ann, "annotations": {"Ann1": "1", "Ann2": second},
              "lang": "en", "other_info": extra or {}} for i in range(3)]
    return meta + items


ROWS.update({
    "prism_prompts_individual": PRISM, "prism_individual_preferences": PRISM,
    "community_alignment_initial_prompt": CA, "community_alignment_individual_reply": CA,
    "community_alignment_individual_preferences": CA, "community_alignment_response": CA,
    "collective_alignment_individual": COLL, "polis_vote": POLIS, "polis_comment": POLIS,
    "dices": DICES, "haikus": HAIKU, "changemyview_categories": CMV, "changemyview_posts": CMV,
    "popquorn_individual": PQ, "popquorn_og_categorical": PQ,
    "generativesocialchoice_validation": GSC, "generativesocialchoice_freetext": GSC,
    "diffuse_distribution": DIFFUSE, "wvs_individual": WVS, "opinionqa_individual": OQA,
    "opinionqa_questions": OQA, "netflix_individual_ratings": NETFLIX,
    "netflix_individual_views": NETFLIX,
    "lewidi_csc_sarcasm_detection_individual": _lew("CSC", {"context": "c", "response": "r"}),
    "lewidi_mp_irony_detection_individual": _lew(
        "MP", {"post": "p", "reply": "r"}, extra={"source": "reddit", "level": 1}),
    "lewidi_par_paraphrase_detection_individual": _lew(
        "Paraphrase", {"Question1": "a?", "Question2": "b?"},
        extra={"explanations": [" same ", "diff"]}),
    "lewidi_varierrnli_nli_detection_individual": _lew(
        "VariErrNLI", {"context": "c", "statement": "s"}, extra={"explanations": ["e"]}),
})
for k in ("premise_hypothesis", "ambiguity_detection", "disambiguation", "linguist_annotations",
          "interpretation_labels", "annotation_distributions"):
    ROWS[f"ambient_{k}"] = AMB
for k in ("bare_gsm8k", "bare_enron", "bare_hotpot", "bare_lcb", "newsgroups", "pubmed"):
    ROWS[k] = BARE
for k in ("par_paraphrase", "varierrnli_nli"):
    base = [n for n in ROWS if n.startswith(f"lewidi_{k}")][0]
    ROWS[base + "_categorical"] = ROWS[base]
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
    for name in ("wvs_individual", "numbergame_perc", "lewidi_mp_irony_detection_individual"):
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


def test_added_sources_grouping():
    pp = conv("prism_individual_preferences")
    assert sorted(c.meta["group"] for c in pp) == ["u0", "u1"]  # u2 has no survey row
    out = json.loads(pp[0].samples[0].output)
    assert out["chosen_response"] == "c" and out["score_d"] == 30
    assert "Country: UK" in conv("prism_prompts_individual", 1.0)[0].description
    assert all("<|end_of_text|>" not in s.input for c in conv(
        "community_alignment_individual_preferences") for s in c.samples)
    reply = conv("community_alignment_individual_reply")[0].samples[0]
    assert json.loads(reply.input)["model_response"].startswith("b")
    assert {c.meta["lang"] for c in conv("community_alignment_initial_prompt")} == {
        "English", "French"}
    coll = conv("collective_alignment_individual")
    assert [c.meta["group"] for c in coll] == ["n0", "n1"]
    assert json.loads(coll[0].samples[0].output)["unacceptable_responses"] == "C"
    votes = conv("polis_vote")
    assert sorted(c.meta["group"] for c in votes) == ["0", "1"]  # voter 2: only 1 kept vote
    assert {s.output for c in votes for s in c.samples} <= {"Agree", "Disagree", "Pass"}
    comments = [s.output for c in conv("polis_comment") for s in c.samples]
    assert sorted(comments) == [f"we should pay everyone {c}" for c in range(2, 6)]
    assert len(conv("dices")) == 6
    assert conv("haikus")[0].samples[0].input in {"3, 4, 1"}
    cmv = [s.output for c in conv("changemyview_categories") for s in c.samples]
    assert len(cmv) == 20 and not any("footnote" in x for x in cmv)
    assert {c.meta["task"] for c in conv("popquorn_individual")} == {
        "email_rewriting", "offensiveness", "question_answering"}
    assert len(conv("generativesocialchoice_freetext")) == 2
    diff = conv("diffuse_distribution", 1.0)
    assert len(diff) == 10 and diff[0].description == "Name a fruit, without replacement."
    assert sorted(s.output for s in diff[0].samples) == ["Apple", "Fig"]
    wvs = conv("wvs_individual", 1.0)
    assert len(wvs) == 5 and {s.output for c in wvs for s in c.samples} <= {"A", "B"}
    assert all("Q261" not in (s.input or "") for c in wvs for s in c.samples)
    oqa = conv("opinionqa_individual")
    assert len(oqa) == 4 and {s.output for c in oqa for s in c.samples} <= {"A", "B", "C"}
    assert len(conv("netflix_individual_ratings")) == 2
    par = conv("lewidi_par_paraphrase_detection_individual")[0].samples[0]
    assert set(json.loads(par.output)) == {"paraphrase_rating", "explanation"}
    assert {len(c.samples) for c in conv("bare_enron")} and len(conv("pubmed")) >= 4


def test_fetch_added_file_shapes(monkeypatch, tmp_path):
    monkeypatch.setattr(urllib.request, "urlopen", None)
    root = S.SOURCES["diffuse_distribution"].url_root
    for f in S.DIFFUSE_FILES:
        (tmp_path / f).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / f).write_text('{"request": "Pick one. Now.", "targets": ["{a}", "{b}"]}')
    rows = S.fetch_rows(S.SOURCES["diffuse_distribution"], tmp_path)
    assert rows[0]["_file"] == S.DIFFUSE_FILES[0] and root.endswith("/HEAD/")
    meta = tmp_path / "lewidi" / "MP"
    meta.mkdir(parents=True)
    (meta / "MP_annotators_meta.json").write_text('{"1": {"Gender": "F",}, "2": {"Age": 3}}')
    (meta / "MP_train.json").write_text(json.dumps({"7": {"text": {"post": "p", "reply": "r"},
                                                          "annotators": "Ann1",
                                                          "annotations": {"Ann1": "1"}}}))
    ctxs = S.load_source("lewidi_mp_irony_detection_individual", tmp_path,
                         np.random.default_rng(0), 1.0)
    assert "Gender: F" in ctxs[0].description and ctxs[0].samples[0].output == "1"
