"""Spectrum Tuning's pieces: the formats' loss masks token by token (SmolLM2's real tokenizer),
the scoring and sampling code against plain full-sequence computations (a tiny random Llama),
the metrics on hand-derived cases, the generators against their stated distributions, and a
LoRA step that learns while the base weights stay frozen."""

from __future__ import annotations

import itertools
import json
import math
from collections import Counter

import numpy as np
import pytest
import torch
from scipy.stats import entropy

from repro.papers.spectrum import formats, models
from repro.papers.spectrum.evaluate import coverage_stats, divergences
from repro.papers.spectrum.report import family_losses, records_of
from repro.papers.spectrum.suite import (
    DIST_TASKS,
    FAMILIES,
    NUMBER_CONCEPTS,
    Context,
    Sample,
    coverage_tasks,
    make_context,
)

FAM = formats.FAMILIES["smollm2"]


@pytest.fixture(scope="module")
def tok():
    from transformers import AutoTokenizer

    return AutoTokenizer.from_pretrained(models.model_path(models.LOCAL))


@pytest.fixture(scope="module")
def tiny_lm(tok):
    """A randomly initialised 2-layer Llama over SmolLM2's vocabulary (seconds to build)."""
    from transformers import LlamaConfig, LlamaForCausalLM

    torch.manual_seed(0)
    cfg = LlamaConfig(vocab_size=len(tok), hidden_size=32, intermediate_size=64,
                      num_hidden_layers=2, num_attention_heads=4, num_key_value_heads=2,
                      max_position_embeddings=512)
    return LlamaForCausalLM(cfg).eval()


def _scored(enc: models.Encoded, tok) -> dict[int, str]:
    """The text carrying loss, per output index."""
    out: dict[int, list[int]] = {}
    for i, y, j in zip(enc.ids, enc.labels, enc.index, strict=True):
        if y != -100:
            assert y == i and j >= 0
            out.setdefault(j, []).append(i)
    return {j: tok.decode(t) for j, t in out.items()}


CTX = Context("coinflip", "Flip a coin.", [Sample("heads"), Sample("tails", "x1"),
                                           Sample("heads")])
BARE = Context("coinflip", None, CTX.samples)


def test_spectrum_format_scores_each_output_and_its_end_token_only(tok):
    enc = models.encode(formats.render(CTX, "spectrum", FAM), tok, FAM)
    assert _scored(enc, tok) == {0: "heads<|im_end|>", 1: "tails<|im_end|>",
                                 2: "heads<|im_end|>"}
    text = tok.decode(enc.ids)
    assert text.startswith("<|im_start|>description\nFlip a coin.<|im_end|>\n")
    assert "<|im_start|>input\nx1<|im_end|>\n<|im_start|>output\ntails" in text
    # without a description the first output has nothing to be predicted from
    assert set(_scored(models.encode(formats.render(BARE, "spectrum", FAM), tok, FAM),
                       tok)) == {1, 2}


def test_chat_format_moves_the_first_sample_into_the_system_prompt(tok):
    enc = models.encode(formats.render(BARE, "chat", FAM), tok, FAM)
    assert _scored(enc, tok) == {1: "tails<|im_end|>", 2: "heads<|im_end|>"}
    text = tok.decode(enc.ids)
    assert "Example Output: heads<|im_end|>" in text
    assert "<|im_start|>user\nx1<|im_end|>\n<|im_start|>assistant\ntails" in text
    assert "<|im_start|>user\nGenerate<|im_end|>\n<|im_start|>assistant\nheads" in text
    with_desc = models.encode(formats.render(CTX, "chat", FAM), tok, FAM)
    assert set(_scored(with_desc, tok)) == {0, 1, 2}
    assert "Description: Flip a coin." in tok.decode(with_desc.ids)


def test_colon_format_scores_every_output_with_its_delimiter(tok):
    enc = models.encode(formats.render(BARE, "colon", FAM), tok, FAM)
    assert _scored(enc, tok) == {0: " heads\n\n", 1: " tails\n\n", 2: " heads\n\n"}
    assert tok.decode(enc.ids) == "Output: heads\n\nInput: x1\n\nOutput: tails\n\nOutput: heads\n\n"


def test_families_without_a_system_role_fold_it_into_the_first_user_turn():
    segs = formats.render(BARE, "chat", formats.FAMILIES["gemma3"])
    text = "".join(s for s, _, _ in segs)
    assert "<start_of_turn>system" not in text
    assert text.startswith("<start_of_turn>user\n" + formats.CHAT_SYSTEM)
    assert "<start_of_turn>model\ntails<end_of_turn>" in text


def test_a_cut_context_scores_no_output_in_part(tok):
    full = models.encode(formats.render(CTX, "spectrum", FAM), tok, FAM)
    cuts = [n for n in range(2, len(full.ids))
            if full.index[n - 1] >= 0 and full.index[n] == full.index[n - 1]
            and full.labels[n - 1] != -100]
    assert cuts
    for n in cuts:
        enc = models.encode(formats.render(CTX, "spectrum", FAM), tok, FAM, max_tokens=n)
        assert len(enc.ids) == n
        cut = full.index[n - 1]
        assert all(y == -100 for y, j in zip(enc.labels, enc.index, strict=True) if j == cut)
        assert _scored(enc, tok) == {j: t for j, t in _scored(full, tok).items() if j < cut}


def test_output_losses_equal_a_full_forward(tok, tiny_lm):
    enc = models.encode(formats.render(CTX, "spectrum", FAM), tok, FAM)
    got = models.output_losses(tiny_lm, enc, "cpu")
    with torch.no_grad():
        logp = tiny_lm(torch.tensor([enc.ids])).logits[0].log_softmax(-1)
    want: dict[int, float] = {}
    for t in range(1, len(enc.ids)):
        if enc.labels[t] != -100:
            want[enc.index[t]] = want.get(enc.index[t], 0.0) - float(logp[t - 1, enc.ids[t]])
    assert got.keys() == want.keys() == {0, 1, 2}
    for j in want:
        assert got[j] == pytest.approx(want[j], rel=1e-5)


def test_option_logprobs_with_a_shared_prompt_cache_equal_separate_forwards(tok, tiny_lm):
    prompt = models.encode(formats.prompt("spectrum", FAM, "Roll a die.", ["3"]), tok, FAM).ids
    options = ["1", "2", "12", "seven", "a b c d"]
    got = models.option_logprobs(tiny_lm, tok, prompt, options, "cpu")
    for o, g in zip(options, got, strict=True):
        ids = prompt + tok(o, add_special_tokens=False)["input_ids"]
        with torch.no_grad():
            logp = tiny_lm(torch.tensor([ids])).logits[0].log_softmax(-1)
        want = sum(float(logp[t - 1, ids[t]]) for t in range(len(prompt), len(ids)))
        assert g == pytest.approx(want, abs=1e-4)


def test_sampling_is_reproducible_and_cut_at_the_stops(tok, tiny_lm):
    prompt = models.encode(formats.prompt("spectrum", FAM, "Say anything.", []), tok, FAM).ids
    a = models.sample(tiny_lm, tok, prompt, 20, 6, 1.0, seed=3, stops=[FAM.end, "\n"],
                      device="cpu")
    b = models.sample(tiny_lm, tok, prompt, 20, 6, 1.0, seed=3, stops=[FAM.end, "\n"],
                      device="cpu")
    c = models.sample(tiny_lm, tok, prompt, 20, 6, 1.0, seed=4, stops=[FAM.end, "\n"],
                      device="cpu")
    assert a == b and a != c and len(a) == 20
    assert not any("\n" in s or FAM.end in s for s in a)
    # a near-zero temperature is greedy: every row is the same continuation
    g = models.sample(tiny_lm, tok, prompt, 5, 4, 1e-4, seed=0, stops=[], device="cpu")
    assert len(set(g)) == 1


def test_divergences_on_known_cases():
    p = np.array([0.5, 0.25, 0.25])
    assert divergences(p, p)["js"] == pytest.approx(0.0, abs=1e-12)
    q = np.array([0.2, 0.3, 0.5])
    d = divergences(p, q, eps=0.0)
    m = (p + q) / 2
    assert d["kl"] == pytest.approx(entropy(p, q))
    assert d["reverse_kl"] == pytest.approx(entropy(q, p))
    assert d["js"] == pytest.approx(0.5 * entropy(p, m) + 0.5 * entropy(q, m))
    # disjoint supports: JS reaches ln 2 (up to the 1e-6 smoothing), KL stays finite
    far = divergences(np.array([1.0, 0.0]), np.array([0.0, 1.0]))
    assert far["js"] == pytest.approx(math.log(2), abs=1e-4) and math.isfinite(far["kl"])


def test_coverage_statistics_on_a_hand_case():
    valid = coverage_tasks()["rng_1_10"].valid
    s = coverage_stats(["1", "1", "x", "2", "11"], valid)
    assert s == {"valid_pct": 60.0, "unique_pct": pytest.approx(200 / 3), "yield": 2.0}
    assert coverage_stats(["x"], valid) == {"valid_pct": 0.0, "unique_pct": 0.0, "yield": 0.0}


def test_coverage_validators():
    t = coverage_tasks()
    assert all(t["small_prime_numbers"].valid(str(p)) for p in (2, 3, 5, 97))
    assert not any(t["small_prime_numbers"].valid(s) for s in ("1", "9", "101", "two"))
    assert t["us_states_full_names"].valid("New Mexico") and not t[
        "us_states_full_names"].valid("Canada")
    assert t["color_names"].valid("Teal") and not t["color_names"].valid("bleu")
    assert t["weekdays_full"].n_valid == 7 and t["us_states_full_names"].n_valid == 50
    for task in t.values():
        assert all(task.valid(x) for x in task.examples), task.name


def test_generators_follow_their_stated_distributions():
    rng = np.random.default_rng(0)
    for fam in FAMILIES:
        c = make_context(fam, rng, 30, 1.0)
        assert c.description and len(c.samples) == 30 and c.family == fam
    # a coin with p: the frequency of heads within 4 sd of p over 4,000 flips
    for _ in range(5):
        desc, _, draw, meta = FAMILIES["coinflip"](rng)
        r = np.random.default_rng(1)
        f = np.mean([draw(r).output == "heads" for _ in range(4000)])
        assert abs(f - meta["p"]) < 4 * math.sqrt(meta["p"] * (1 - meta["p"]) / 4000) + 1e-9
    # cards are dealt without replacement, number-game outputs fit their concept
    cards = make_context("cards", rng, 60, 0.6)
    assert len(cards.samples) == 52 == len({s.output for s in cards.samples})
    for _ in range(20):
        c = make_context("numbergame", rng, 12, 0.6)
        assert all(NUMBER_CONCEPTS[c.meta["concept"]](int(s.output)) for s in c.samples)
    for _ in range(5):
        c = make_context("flight", rng, 4, 0.6)
        assert all(set(json.loads(s.input)) == {"A", "B"} and s.output in "AB"
                   for s in c.samples)


def test_names_follow_the_population_frequencies_under_their_constraint():
    from faker.providers.person.en_US import Provider

    rng = np.random.default_rng(5)
    for _ in range(3):
        _, _, draw, meta = FAMILIES["names"](rng)
        pool = dict(getattr(Provider, f"first_names_{meta['sex']}"))
        cand = {n: w for n, w in pool.items() if n[0] == meta["letter"]}
        r = np.random.default_rng(2)
        out = Counter(draw(r).output for _ in range(3000))
        assert set(out) <= set(cand) and len(cand) >= 5
        top = max(cand, key=cand.get)
        p = cand[top] / sum(cand.values())
        assert abs(out[top] / 3000 - p) < 4 * math.sqrt(p * (1 - p) / 3000)


def test_distribution_items_have_exact_targets():
    rng = np.random.default_rng(0)
    for task, make in DIST_TASKS.items():
        for _ in range(10):
            it = make(rng)
            assert it.task == task and len(it.options) == len(it.target)
            assert sum(it.target) == pytest.approx(1.0) and min(it.target) > 0
    for seed in range(6):  # dice sums against enumerating every roll
        it = DIST_TASKS["dice_sum"](np.random.default_rng(seed))
        n = (len(it.options) - 1) // 5
        sums = Counter(sum(r) for r in itertools.product(range(1, 7), repeat=n))
        assert it.options == [str(s) for s in sorted(sums)]
        assert it.target == pytest.approx([sums[s] / 6**n for s in sorted(sums)])


def test_loss_geq_1_excludes_the_first_output_and_weights_families_equally():
    e = {"model": "m", "seed": 0,
         "steer": [{"family": "urn", "losses": {"0": 100.0, "1": 2.0, "2": 4.0}},
                   {"family": "urn", "losses": {"1": 6.0}},
                   {"family": "flight", "losses": {"1": 1.0, "2": 1.0}}],
         "dist": [{"task": "urn", "js": 0.1, "kl": 0.2, "coverage": 0.5},
                  {"task": "readme_dice", "js": 9.0, "kl": 9.0, "coverage": 0.0}],
         "coverage": [{"valid_pct": 50.0, "unique_pct": 100.0, "yield": 4.0}]}
    assert family_losses(e) == {"urn": 4.0, "flight": 1.0}
    r = {x["metric"]: x["value"] for x in records_of(e)}
    assert r["steer_loss"] == 2.5 and r["js"] == 0.1 and r["valid_mass"] == 0.5
    assert r["yield"] == 4.0 and r["steer_loss_urn"] == 4.0


def test_a_lora_step_learns_and_leaves_the_base_weights_alone(tok):
    from repro.core.config import load_settings, typed
    from repro.papers.spectrum.settings import Settings
    from repro.papers.spectrum.train import attach_lora, lr_at, step_loss

    cfg = typed(Settings, load_settings("src/repro/papers/spectrum/config.yaml", "small"))
    torch.manual_seed(0)
    _, base = models.load(models.LOCAL, "cpu")  # SmolLM2-135M-Instruct
    before = {k: v.clone() for k, v in base.state_dict().items()}
    model = attach_lora(base, cfg)
    model.train()
    params = [p for p in model.parameters() if p.requires_grad]
    assert params and all("lora_" in n for n, p in model.named_parameters() if p.requires_grad)
    opt = torch.optim.AdamW(params, lr=1e-3)
    batch = [models.encode(formats.render(CTX, "spectrum", FAM), tok, FAM)]
    losses = []
    for _ in range(8):
        loss = step_loss(model, batch, 0, "cpu")
        opt.zero_grad()
        loss.backward()
        opt.step()
        losses.append(loss.item())
    assert losses[-1] < 0.5 * losses[0], losses
    frozen = model.get_base_model().state_dict()
    for k, v in before.items():
        key = next(q for q in frozen if q.replace(".base_layer", "") == k)
        assert torch.equal(frozen[key], v), k
    # the schedule: linear warm-up to lr, linear decay to 0 at the last step
    t = cfg.train
    assert lr_at(t.warmup - 1, cfg) == pytest.approx(t.lr)
    assert lr_at(t.steps, cfg) == 0.0 and lr_at(0, cfg) == pytest.approx(t.lr / t.warmup)


def test_real_sources_join_the_training_pool_and_the_heldout_sets():
    """At full the fetched sources' contexts enter the suite: a held-out key (globaloqa) in
    every seed's steerability set, cut to k+1 samples; a training key (imdb) in the pool."""
    from repro.core.config import load_settings, typed
    from repro.papers.spectrum.data import build
    from repro.papers.spectrum.settings import Settings

    raw = load_settings("src/repro/papers/spectrum/config.yaml", "small")
    raw["suite"]["sources"] = ["globaloqa", "imdb"]
    cfg = typed(Settings, raw)
    assert cfg.heldout == ["urn", "numbergame", "flight", "globaloqa"]
    real = {"globaloqa": [Context("globaloqa", "Country: Peru", [Sample(f"{i}%", "Q")
                                                                for i in range(40)])] * 20,
            "imdb": [Context("imdb", None, [Sample("7") for _ in range(90)])] * 100}
    suite = build(cfg, [0, 1], real)
    s = cfg.suite
    pool = [c for c in suite["train"] if c["family"] == "imdb"]
    assert len(pool) == s.train_contexts
    assert all(len(c["samples"]) == s.samples_per_context for c in pool)
    assert not any(c["family"] == "globaloqa" for c in suite["train"])
    for seed in ("0", "1"):
        held = [c for c in suite["eval"][seed]["steer"] if c["family"] == "globaloqa"]
        assert len(held) == s.steer_contexts
        assert all(len(c["samples"]) == s.steer_k + 1 for c in held)
    assert "globaloqa" in suite["source"]
    # without sources the suite is the generated one alone, the same bytes as before
    raw["suite"]["sources"] = []
    assert build(typed(Settings, raw), [0]) == build(typed(Settings, raw), [0], {})


def test_the_schema_and_full_config_follow_the_source_registry():
    """Every registered real source may be named in the config (the schema's enum is the
    registry), and full fetches every one that needs no manual download."""
    import yaml

    from repro.core.config import load_settings
    from repro.papers.spectrum.sources import SOURCES

    schema = yaml.safe_load(open("src/repro/papers/spectrum/schema.yaml"))
    assert schema["properties"]["suite"]["properties"]["sources"]["items"]["enum"] == list(
        SOURCES)
    full = load_settings("src/repro/papers/spectrum/config.yaml", "full")["suite"]["sources"]
    assert full == [k for k, s in SOURCES.items() if not s.manual and s.convert]
    assert load_settings("src/repro/papers/spectrum/config.yaml", "small")["suite"]["sources"] == []
