"""flowgen: the synthesizer's controls, its ground truth, both renderers' layouts, the official
scoring, the parsers' decoding and the QA programs (the generic checks are in test_papers.py)."""

from __future__ import annotations

import numpy as np
import pytest
from conftest import REPO as REPO_ROOT
from conftest import needs_programs

from repro.papers.flowgen.check import check_chart, dot_triples
from repro.papers.flowgen.mllm import read_triples
from repro.papers.flowgen.parse import (
    Vocabulary,
    answer_from_triples,
    heuristic_pairs,
    ocr_parse,
    page_json,
    read_page,
)
from repro.papers.flowgen.render import look, render, to_dot
from repro.papers.flowgen.score import norm, qa_correct, relaxed_f1, strict_f1
from repro.papers.flowgen.settings import load
from repro.papers.flowgen.synth import (
    CONNECTED,
    PART_OF,
    SIZES,
    graph_from_triples,
    logical_edges,
    make_chart,
    measured,
)

CFG = load(REPO_ROOT / "src/repro/papers/flowgen/config.yaml", "small")


def _chart(level: str, i: int = 0, seed: int = 0) -> dict:
    chart = make_chart(CFG.level(level), np.random.default_rng([seed, i]), f"t-{level}-{i}")
    chart["level"] = level
    return chart


@pytest.mark.parametrize("level", ["easy", "medium", "hard"])
def test_every_chart_realises_its_controls(level):
    lv = CFG.level(level)
    for i in range(60):
        ch = _chart(level, i)
        c, m = ch["controls"], measured(ch)
        lo, hi = SIZES[lv.order]
        assert lo <= c["order"] == m["order"] <= hi
        assert lv.split_arrow[0] <= m["split_arrow"] == c["split_arrow"] <= lv.split_arrow[1]
        assert lv.merge_arrow[0] <= m["merge_arrow"] == c["merge_arrow"] <= lv.merge_arrow[1]
        assert m["nest"] == c["nest"] and 2 <= m["max_fan"] <= c["branch"] or m["max_fan"] == 0
        assert m["size"] >= round(c["density"] * c["order"])
        labels = [n["label"] for n in ch["nodes"]]
        assert len(set(labels)) == len(labels) and labels[0] == "Start" and "End" in labels
        assert all(2 <= len(g["members"]) <= 4 for g in ch["groups"])


def test_triples_follow_the_official_format():
    ch = _chart("hard", 3)
    lab = {n["id"]: n["label"] for n in ch["nodes"]}
    ts = ch["triples"]
    assert sum(r == PART_OF for _, r, _ in ts) == sum(len(g["members"]) for g in ch["groups"])
    # a split point is collapsed: its source links straight to each branch's target
    sp = next(p for p in ch["points"] if p["kind"] == "split")
    for t in sp["others"]:
        assert any(h == lab[sp["at"]] and tt == lab[t] for h, _, tt in ts)
    assert not any(h.startswith(("S", "M")) and h[1:].isdigit() for h, _, _ in ts)
    unl = [e for e in ch["edges"] if not e["label"] and e["kind"] != "trunk"]
    assert unl and all(any(r == CONNECTED for _, r, _ in ts) for _ in unl)
    assert len(ts) == len(logical_edges(ch)) + sum(len(g["members"]) for g in ch["groups"])


@pytest.mark.parametrize("level", ["easy", "medium", "hard"])
def test_triples_round_trip_through_the_graphviz_source(level):
    for i in range(10):
        ch = _chart(level, i)
        assert dot_triples(ch, to_dot(ch, "clean", look(ch, "graphviz", 0))) == \
            {tuple(t) for t in ch["triples"]}


@pytest.mark.parametrize("renderer", [
    pytest.param("graphviz", marks=needs_programs("graphviz", "fonts-urw-base35")),
    pytest.param("matplotlib", marks=needs_programs("fonts-urw-base35"))])
def test_renderer_layouts_show_the_controls(renderer):
    ch = _chart("hard", 1)
    recs = []
    for style in ("clean", "handwritten", "scanned"):
        img, lay = render(ch, renderer, style, seed=0, level="hard")
        assert list(img.size) == lay["size"]
        for x0, y0, x1, y1 in lay["nodes"].values():   # every node lies in the final image
            assert -2 <= x0 < x1 <= img.size[0] + 2 and -2 <= y0 < y1 <= img.size[1] + 2
        recs.append({"image": style, "layout": lay})
    res = check_chart(ch, recs, seed=0)
    assert res["ok"], res
    assert len(recs[0]["layout"]["clusters"]) == len(ch["groups"]) == 2


@needs_programs("graphviz")
def test_scanned_style_moves_the_boxes_with_the_page():
    ch = _chart("medium", 2)
    clean, lay_c = render(ch, "graphviz", "clean", seed=0, level="hard")
    scan, lay_s = render(ch, "graphviz", "scanned", seed=0, level="hard")
    assert scan.size != clean.size  # rotated with expand
    gray = np.asarray(scan.convert("L"))
    for nid, (x0, y0, x1, y1) in lay_s["nodes"].items():  # the box still holds ink
        assert (gray[int(y0):int(y1), int(x0):int(x1)] < 128).any(), nid


def test_normalisation_and_strict_f1_as_the_official_eval():
    assert norm("Load_Data, (v2)!") == norm("load data v2") == "loaddatav2"
    gold = [["Start", "connectedTo", "Load data"], ["Load data", "verify", "End"]]
    assert strict_f1(gold, gold) == (1.0, 1.0, 1.0)
    assert strict_f1([], gold) == (0.0, 0.0, 0.0)
    assert strict_f1([["start", "connectedto", "load_data"]] * 3, gold) == \
        pytest.approx((1.0, 0.5, 2 / 3))
    # direction matters
    assert strict_f1([["End", "verify", "Load data"]], gold)[2] == 0.0


def test_relaxed_f1_forgives_a_typo_but_not_another_node():
    gold = [["Validate request", "dispatch", "Review invoice"]]
    typo = [["Va1idate request", "dispatch", "Review invoice"]]
    assert strict_f1(typo, gold)[2] == 0.0
    assert relaxed_f1(typo, gold)[2] == 1.0
    other = [["Validate request", "dispatch", "Review report"]]
    assert relaxed_f1(other, gold)[2] == 0.0
    # one-to-one: two near-copies of one gold triple match it once
    assert relaxed_f1(typo + gold, gold) == pytest.approx((0.5, 1.0, 2 / 3))


def test_gold_triples_answer_every_question():
    for level in ("easy", "medium", "hard"):
        for i in range(10):
            ch = _chart(level, i)
            for q in ch["qa"]:
                assert qa_correct(answer_from_triples(ch["triples"], q), q["answer"]), q
            types = {q["type"] for q in ch["qa"]}
            assert {"arrow", "successors", "predecessors", "group", "count_nodes"} <= types
            arrows = [q["answer"] for q in ch["qa"] if q["type"] == "arrow"]
            assert sorted(arrows) == ["No", "Yes"]


def test_qa_programs_on_a_known_graph():
    ts = [["Start", CONNECTED, "A"], ["A", "ok", "B"], ["A", CONNECTED, "C"],
          ["B", PART_OF, "Stage"]]
    g = graph_from_triples(ts)
    from repro.papers.flowgen.synth import answer

    assert answer(g, "successors", ["A"]) == "B, C"
    assert answer(g, "predecessors", ["A"]) == "Start"
    assert answer(g, "edge_label", ["A", "B"]) == "ok"
    assert answer(g, "group", ["B"]) == "Stage" and answer(g, "group", ["C"]) == "none"
    assert answer(g, "arrow", ["B", "A"]) == "No" and answer(g, "count_nodes", []) == "4"
    assert qa_correct("c,  b", "B, C") and not qa_correct("B", "B, C")


def test_branched_arrows_decode_to_one_edge_per_head():
    def end(node, score):
        return {"node": node, "at": [0.0, 0.0], "score": score, "contact": 5}

    split = {"ends": [end(0, 12), end(1, 52), end(2, 49), end(3, 55)], "pixels": 300}
    assert [(s["node"], t["node"]) for s, t in heuristic_pairs(split)] == [(0, 1), (0, 2),
                                                                           (0, 3)]
    merge = {"ends": [end(0, 15), end(1, 14), end(2, 60)], "pixels": 200}
    assert [(s["node"], t["node"]) for s, t in heuristic_pairs(merge)] == [(0, 2), (1, 2)]
    plain = {"ends": [end(4, 40), end(5, 20)], "pixels": 80}
    assert [(s["node"], t["node"]) for s, t in heuristic_pairs(plain)] == [(5, 4)]


@needs_programs("graphviz", "tesseract-ocr-eng")
def test_ocr_parser_reads_a_clean_easy_chart():
    ch = _chart("easy", 0, seed=7)
    img, _ = render(ch, "graphviz", "clean", seed=0, level="easy")
    page = page_json(read_page(img))
    names = {n["text"] for n in page["nodes"]}
    labels = {n["label"] for n in ch["nodes"]}
    assert len(names & labels) >= 0.8 * len(labels)
    pred = ocr_parse(page)
    assert relaxed_f1(pred, ch["triples"])[2] >= 0.4


def test_vocabulary_snaps_ocr_words():
    v = Vocabulary({"Validate", "request", "Review"})
    assert v("Va1idate requcst") == "Validate request"
    assert v("Zebra") == "Zebra"


def test_mllm_answers_are_read_as_the_official_eval_reads_them():
    text = ("Here:\n`<Start, connectedTo, Load data>`\n`<Load data, \"check, then go\", End>`\n"
            "`<too, many, parts, here>`\n<ignored, because, backticks exist>")
    assert read_triples(text) == [["Start", "connectedTo", "Load data"],
                                  ["Load data", "check, then go", "End"]]
    assert read_triples("<A, r, B>\n<C，r2，D>") == [["A", "r", "B"], ["C", "r2", "D"]]


def test_settings_refuse_an_unknown_style(tmp_path):
    import yaml

    cfg = yaml.safe_load((REPO_ROOT / "src/repro/papers/flowgen/config.yaml").read_text())
    cfg["defaults"]["styles"] = ["clean", "watercolour"]
    p = tmp_path / "flowgen.yaml"
    p.write_text(yaml.safe_dump(cfg))
    with pytest.raises(ValueError, match="watercolour"):
        load(p, "small")


def test_finetune_targets_read_back_as_the_gold_triples():
    from repro.papers.flowgen.finetune import answer_text

    ch = _chart("hard", 4)
    assert read_triples(answer_text(ch["triples"])) == ch["triples"]
