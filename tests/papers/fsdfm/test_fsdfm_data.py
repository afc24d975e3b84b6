"""fsdfm data and metrics: the order-2 chain is a stationary law whose exact quantities
(entropy rate, sequence entropy, expected generative perplexity, mode) agree with hand
computation, exhaustive enumeration and Monte Carlo; the metrics expose a collapsed sampler;
the CLI writes and reads back its files; the text branch fails in one line offline."""

from __future__ import annotations

import itertools
import math
import sys
import types
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import yaml

from repro.core.config import load_settings, typed
from repro.core.io import read_json
from repro.papers.fsdfm import data as D
from repro.papers.fsdfm.data import Chain, load_data, make_chain, stationary_pairs
from repro.papers.fsdfm.metrics import (
    distinct_ngrams,
    reference_metrics,
    repeat_fraction,
    sample_metrics,
    unigram_entropy_bits,
)
from repro.papers.fsdfm.settings import Data

DEFAULT = {"vocab": 64, "successors": 4, "concentration": 0.5, "smoothing": 0.02}


@pytest.fixture(scope="module")
def chain() -> Chain:
    return make_chain(**DEFAULT, rng=np.random.default_rng(1234))


def _tiny_chain() -> Chain:
    """V = 3: every context [0.2, 0.3, 0.5] except two, made by hand."""
    P = np.tile([0.2, 0.3, 0.5], (3, 3, 1))
    P[0, 1] = [0.1, 0.1, 0.8]
    P[1, 2] = [0.6, 0.2, 0.2]
    return Chain(P, stationary_pairs(P))


def _se_check(values: np.ndarray, target: float) -> None:
    se = values.std(ddof=1) / math.sqrt(values.size)
    assert abs(values.mean() - target) < 3 * se, (values.mean(), target, se)


# ----------------------------------------------------------------------------- the chain
def test_chain_is_a_stationary_law(chain):
    V, s = DEFAULT["vocab"], DEFAULT["smoothing"]
    assert chain.P.shape == (V, V, V) and chain.init.shape == (V, V)
    np.testing.assert_allclose(chain.P.sum(-1), 1.0, atol=1e-14)
    assert chain.P.min() >= s / V * (1 - 1e-12)
    # each context favours exactly `successors` tokens above the uniform floor
    assert ((chain.P > s / V * (1 + 1e-9)).sum(-1) == DEFAULT["successors"]).all()
    assert chain.init.min() > 0 and chain.init.sum() == pytest.approx(1.0, abs=1e-14)
    # init[a, b] == sum_x init[x, a] P[x, a, b]
    np.testing.assert_allclose(np.einsum("xa,xab->ab", chain.init, chain.P), chain.init,
                               rtol=0, atol=1e-15)
    # the pair law's two marginals agree (the token marginal is stationary too)
    np.testing.assert_allclose(chain.init.sum(0), chain.init.sum(1), atol=1e-15)


def test_power_iteration_fails_clearly_on_a_periodic_chain():
    P = np.zeros((3, 3, 3))
    P[:, 0, 1] = P[:, 1, 0] = P[:, 2, 0] = 1.0  # pairs (0,1) <-> (1,0): period 2
    with pytest.raises(RuntimeError, match="did not reach") as e:
        stationary_pairs(P, max_iter=500)
    assert "\n" not in str(e.value)


def test_nll_by_hand():
    c = _tiny_chain()
    x = np.array([[0, 1, 2, 0], [2, 2, 2, 2]])
    i = c.init
    want = [-math.log(i[0, 1]) - math.log(0.8) - math.log(0.6),
            -math.log(i[2, 2]) - 2 * math.log(0.5)]
    np.testing.assert_allclose(c.nll(x), want, rtol=1e-14)
    with pytest.raises(ValueError, match="tokens must be"):
        c.nll(np.array([[0, 3]]))


def test_exact_quantities_by_enumeration():
    """All 3^6 sequences: sequence entropy, expected gen-ppl and the mode, exactly."""
    c, L = _tiny_chain(), 6
    xs = np.array(list(itertools.product(range(3), repeat=L)))
    nll = c.nll(xs)
    p = np.exp(-nll)
    assert p.sum() == pytest.approx(1.0, abs=1e-13)
    assert (p * nll).sum() == pytest.approx(c.sequence_entropy(L), rel=1e-12)
    assert (p * np.exp(nll / L)).sum() == pytest.approx(c.expected_gen_ppl(L), rel=1e-12)
    assert c.nll(c.most_likely(L)[None])[0] == pytest.approx(nll.min(), rel=1e-12)
    # entropy rate: the increment of the sequence entropy per extra token
    assert c.entropy_rate() == pytest.approx(c.sequence_entropy(L + 1) - c.sequence_entropy(L))


def test_entropy_rate_matches_monte_carlo(chain):
    x = chain.sample(300, 400, np.random.default_rng(7))
    per_transition = (chain.nll(x) - chain.nll(x[:, :2])) / (x.shape[1] - 2)
    _se_check(per_transition, chain.entropy_rate())


def test_true_samples_match_the_exact_expectations(chain):
    L = 128
    x = chain.sample(2000, L, np.random.default_rng(11))
    nll = chain.nll(x)
    _se_check(nll, chain.sequence_entropy(L))
    _se_check(np.exp(nll / L), chain.expected_gen_ppl(L))
    # the token marginal of every position is the stationary one
    counts = np.bincount(x[:, [0, L // 2, L - 1]].ravel(), minlength=chain.vocab)
    assert np.abs(counts / counts.sum() - chain.init.sum(0)).sum() < 0.1


def test_reproducible_from_the_seed(chain):
    again = make_chain(**DEFAULT, rng=np.random.default_rng(1234))
    assert np.array_equal(again.P, chain.P) and np.array_equal(again.init, chain.init)
    other = make_chain(**DEFAULT, rng=np.random.default_rng(1235))
    assert not np.array_equal(other.P, chain.P)
    a, b, c = (chain.sample(8, 32, np.random.default_rng(s)) for s in (3, 3, 4))
    assert a.dtype == np.int64 and a.shape == (8, 32)
    assert np.array_equal(a, b) and not np.array_equal(a, c)


# ----------------------------------------------------------------------------- metrics
def test_a_collapsed_sampler_is_exposed(chain):
    n, L, k = 256, 128, 4
    ref = reference_metrics(chain, n, L, np.random.default_rng(0), k)
    mode = chain.most_likely(L)
    col = sample_metrics(np.tile(mode, (n, 1)), chain, k)
    # the mode beats every true sample on likelihood: gen-ppl alone would crown it
    assert chain.nll(mode[None])[0] < chain.nll(chain.sample(n, L, np.random.default_rng(1))).min()
    assert col["gen_ppl"] < ref["gen_ppl"] and col["nll_per_token"] < ref["nll_per_token"]
    assert col["entropy_bits"] < ref["entropy_bits"] - 2
    for j in range(1, k + 1):
        assert col[f"distinct_{j}"] < ref[f"distinct_{j}"]
    assert col["repeat_fraction"] == 1.0 and ref["repeat_fraction"] == 0.0
    assert col["gen_ppl"] == pytest.approx(col["gen_ppl_pooled"])  # no spread
    assert ref["gen_ppl"] >= ref["gen_ppl_pooled"]  # Jensen


def test_metric_definitions_by_hand():
    x = np.array([[0, 1, 0, 1], [2, 3, 2, 3]])
    assert distinct_ngrams(x, 1) == 4 / 8
    assert distinct_ngrams(x, 2) == 4 / 6  # 01 10 | 23 32: "12" across rows does not count
    assert distinct_ngrams(x, 3) == 4 / 4
    big = x * 20_000 + 30_000  # 70001^4 > 2^63: the byte-key path
    assert [distinct_ngrams(big, k) for k in (1, 2, 3, 4)] == [0.5, 4 / 6, 1.0, 1.0]
    y = np.array([[0, 0, 1, 1], [5, 5, 5, 5], [0, 1, 2, 3], [0, 0, 1, 1]])
    np.testing.assert_allclose(unigram_entropy_bits(y), [1.0, 0.0, 2.0, 1.0])
    assert repeat_fraction(y) == 0.5


def test_sample_metrics_from_a_given_nll(chain):
    x = chain.sample(16, 32, np.random.default_rng(5))
    a = sample_metrics(x, chain, 2)
    b = sample_metrics(x, None, 2, nll=chain.nll(x))
    assert a == b
    assert a["nll_per_token"] == pytest.approx(chain.nll(x).mean() / 32)
    assert a["gen_ppl"] == pytest.approx(np.exp(chain.nll(x) / 32).mean())
    with pytest.raises(ValueError, match="exactly one"):
        sample_metrics(x, chain, 2, nll=chain.nll(x))
    with pytest.raises(ValueError, match="exactly one"):
        sample_metrics(x, None, 2)


# ----------------------------------------------------------------------------- CLI
def _config(tmp_path: Path, monkeypatch, **data: Any) -> Path:
    """A config holding only `data`; `load` is patched to type just that section, so this
    test does not depend on the rest of the (evolving) settings."""
    cfg = tmp_path / "fsdfm.yaml"
    cfg.write_text(yaml.safe_dump({"defaults": {"data": data}}))
    monkeypatch.setattr(D, "load", lambda path, scale: types.SimpleNamespace(
        data=typed(Data, load_settings(path, scale)["data"], "data")))
    return cfg


def test_cli_writes_the_chain_and_its_facts(tmp_path, monkeypatch):
    cfg = _config(tmp_path, monkeypatch, source="markov2", seed=1234, vocab=16, length=32)
    out = tmp_path / "data" / "chain.npz"
    D.main(["--config", str(cfg), "--scale", "tiny", "--out", str(out)])
    got = load_data(out)
    want = make_chain(16, 4, 0.5, 0.02, np.random.default_rng(1234))
    assert (got["source"], got["vocab"], got["length"]) == ("markov2", 16, 32)
    assert np.array_equal(got["chain"].P, want.P) and np.array_equal(got["chain"].init, want.init)
    facts = read_json(out.with_name("source.json"))
    assert facts["entropy_rate_nats"] == pytest.approx(want.entropy_rate())
    assert facts["entropy_rate_bits"] == pytest.approx(want.entropy_rate() / math.log(2))
    h = want.sequence_entropy(32) / 32
    assert facts["sequence_entropy_per_token_nats"] == pytest.approx(h)
    assert facts["true_gen_ppl_pooled"] == pytest.approx(math.exp(h))
    assert facts["true_gen_ppl"] >= facts["true_gen_ppl_pooled"]
    assert 0 < facts["unigram_entropy_bits"] <= 4.0
    assert {"seed", "successors", "concentration", "smoothing"} <= set(facts)


def test_cli_rejects_an_unknown_source(tmp_path, monkeypatch):
    cfg = _config(tmp_path, monkeypatch, source="zipf", seed=0)
    with pytest.raises(SystemExit, match="data.source 'zipf'"):
        D.main(["--config", str(cfg), "--scale", "tiny", "--out", str(tmp_path / "x.npz")])


class _CharTokenizer:
    """GPT-2 stand-in: one id per character, EOS = 0."""

    eos_token_id = 0
    model_max_length = 1024

    def __len__(self) -> int:
        return 128

    def __call__(self, texts: list[str], add_special_tokens: bool = False) -> dict:
        return {"input_ids": [[ord(ch) % 127 + 1 for ch in t] for t in texts]}


def _fake_hub(monkeypatch, load_dataset, from_pretrained) -> None:
    monkeypatch.setitem(sys.modules, "datasets", types.SimpleNamespace(load_dataset=load_dataset))
    monkeypatch.setitem(sys.modules, "transformers", types.SimpleNamespace(
        AutoTokenizer=types.SimpleNamespace(from_pretrained=from_pretrained)))


def _raise(exc: Exception):
    def f(*a, **k):
        raise exc
    return f


def test_text_fails_in_one_line_offline(tmp_path, monkeypatch):
    cfg = _config(tmp_path, monkeypatch, source="text", seed=0, length=8)
    argv = ["--config", str(cfg), "--scale", "full", "--out", str(tmp_path / "t.npz")]
    monkeypatch.setitem(sys.modules, "datasets", None)  # not installed
    with pytest.raises(SystemExit, match="needs the `datasets` package") as e:
        D.main(argv)
    assert "\n" not in str(e.value)
    _fake_hub(monkeypatch, _raise(ConnectionError("x")), _raise(OSError("no route\nto host")))
    with pytest.raises(SystemExit, match="cannot load the tokenizer gpt2") as e:
        D.main(argv)
    assert "\n" not in str(e.value)
    _fake_hub(monkeypatch, _raise(ConnectionError("hub\ndown")), lambda name: _CharTokenizer())
    with pytest.raises(SystemExit, match="cannot stream HuggingFaceFW/fineweb-edu") as e:
        D.main(argv)
    assert "\n" not in str(e.value)
    assert not (tmp_path / "t.npz").exists()


def test_text_blocks_from_a_fake_hub(tmp_path, monkeypatch):
    """The text code path offline: EOS after each document (WikiText: each article), blocks
    of `length`, the remainder dropped, the train budget respected, uint16."""
    rows = {"train": [{"text": "abcde"}, {"text": ""}, {"text": "fghij"}, {"text": "klmno"}],
            "validation": [{"text": " = A = \n"}, {"text": "xy\n"}, {"text": " = = s = = \n"},
                           {"text": " = B = \n"}, {"text": "z\n"}]}
    _fake_hub(monkeypatch, lambda name, conf, split, streaming: iter(rows[split]),
              lambda name: _CharTokenizer())
    cfg = _config(tmp_path, monkeypatch, source="text", seed=0, length=4, max_train_tokens=11)
    out = tmp_path / "t.npz"
    D.main(["--config", str(cfg), "--scale", "full", "--out", str(out)])
    got = load_data(out)
    tok = _CharTokenizer()
    ids = [i for t in ("abcde", "fghij") for i in [*tok([t])["input_ids"][0], 0]][:11]
    assert got["train"].dtype == np.uint16 and got["train"].shape == (2, 4)
    assert got["train"].ravel().tolist() == ids[:8]
    articles = [" = A = \nxy\n = = s = = \n", " = B = \nz\n"]
    ev = [i for t in articles for i in [*tok([t])["input_ids"][0], 0]]
    assert got["eval"].ravel().tolist() == ev[: len(ev) // 4 * 4]
    facts = read_json(out.with_name("source.json"))
    assert facts["train_blocks"] == 2 and facts["vocab"] == 128 and "seed" not in facts


def test_classes_make_the_token_two_back_act_through_its_class_only():
    """classes=K: P[a, b] depends on a only through a mod K (K x V contexts); K = V (or 0) is
    the unrestricted chain, drawn exactly as before."""
    chain = make_chain(12, 3, 0.5, 0.02, np.random.default_rng(7), classes=4)
    for a in range(12):
        assert np.array_equal(chain.P[a], chain.P[a % 4])
    assert not np.array_equal(chain.P[0], chain.P[1])
    full = make_chain(12, 3, 0.5, 0.02, np.random.default_rng(7))
    assert np.array_equal(full.P, make_chain(12, 3, 0.5, 0.02, np.random.default_rng(7),
                                             classes=12).P)
    with pytest.raises(ValueError, match="classes"):
        make_chain(12, 3, 0.5, 0.02, np.random.default_rng(7), classes=13)
