"""fsdfm data.

At small scale the text corpus is replaced by a random order-2 Markov chain over V tokens: its
likelihood is known exactly, so the generative perplexity of a sampler's output (the paper's
quality measure, which at full scale needs a judge language model) is exact, and so is the best
value any sampler can reach (that of true samples). At full scale (`data.source: text`) the
training set is FineWeb-Edu and the evaluation set WikiText-103, GPT-2 tokenised, streamed from
the Hugging Face hub.
"""

from __future__ import annotations

import io
import logging
import math
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from repro.core.config import job_parser
from repro.core.io import atomic_path, write_json
from repro.papers.fsdfm.settings import Data, load

log = logging.getLogger(__name__)
SOURCES = ("markov2", "text")
STATIONARY_TOL = 1e-13
STATIONARY_MAX_ITER = 200_000


# ----------------------------------------------------------------------------- the chain
def _entropy(p: np.ndarray, axis: int = -1) -> np.ndarray:
    """Shannon entropy in nats along `axis`; 0 log 0 = 0 (smoothing 0 leaves zeros)."""
    with np.errstate(divide="ignore", invalid="ignore"):
        t = np.where(p > 0, p * np.log(np.where(p > 0, p, 1.0)), 0.0)
    return -t.sum(axis=axis)


def stationary_pairs(P: np.ndarray, tol: float = STATIONARY_TOL,
                     max_iter: int = STATIONARY_MAX_ITER) -> np.ndarray:
    """Stationary law of the pair chain (a, b) -> (b, c), by power iteration from uniform.

    Starting sequences from it makes every position's pair stationary, so the expected NLL
    of a true sequence is exactly `sequence_entropy` and no burn-in is needed.
    """
    V = P.shape[0]
    pi = np.full((V, V), 1.0 / (V * V))
    for _ in range(max_iter):
        new = (pi[:, :, None] * P).sum(axis=0)  # new[b, c] = sum_a pi[a, b] P[a, b, c]
        new /= new.sum()
        if np.abs(new - pi).sum() < tol:
            return new
        pi = new
    raise RuntimeError(f"stationary pair law: power iteration did not reach L1 change {tol:g} "
                       f"in {max_iter} steps (the chain is periodic or reducible: "
                       "raise data.smoothing above 0)")


@dataclass(eq=False)
class Chain:
    """An order-2 Markov chain started from its stationary pair law.

    P[a, b, c] = P(x_t = c | x_{t-2} = a, x_{t-1} = b); init[a, b] = P(x_0 = a, x_1 = b).
    """

    P: np.ndarray
    init: np.ndarray
    _cdf: np.ndarray = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        self.P = np.asarray(self.P, dtype=np.float64)
        self.init = np.asarray(self.init, dtype=np.float64)
        V = self.P.shape[0]
        if self.P.shape != (V, V, V) or self.init.shape != (V, V):
            raise ValueError(f"Chain: P must be (V, V, V) and init (V, V), got "
                             f"{self.P.shape} and {self.init.shape}")
        if not (np.allclose(self.P.sum(-1), 1.0) and np.isclose(self.init.sum(), 1.0)):
            raise ValueError("Chain: rows of P and init must each sum to 1")
        self._cdf = np.cumsum(self.P, axis=-1)

    @property
    def vocab(self) -> int:
        return self.P.shape[0]

    def _check(self, x: np.ndarray) -> np.ndarray:
        x = np.asarray(x)
        if x.ndim != 2 or x.shape[1] < 2:
            raise ValueError(f"sequences must be (n, length >= 2), got shape {x.shape}")
        if not np.issubdtype(x.dtype, np.integer) or x.min() < 0 or x.max() >= self.vocab:
            raise ValueError(f"tokens must be integers in [0, {self.vocab})")
        return x.astype(np.int64, copy=False)

    def sample(self, n: int, length: int, rng: np.random.Generator) -> np.ndarray:
        """n true sequences (n, length) int64, by inverse CDF, vectorised over n."""
        if length < 2:
            raise ValueError(f"length must be >= 2, got {length}")
        V = self.vocab
        x = np.empty((n, length), dtype=np.int64)
        cdf0 = np.cumsum(self.init.ravel())
        # a draw above the last cumulative sum (rounding: it may be 1 - 1e-16) takes the last
        first = np.minimum(np.searchsorted(cdf0, rng.random(n), side="right"), V * V - 1)
        x[:, 0], x[:, 1] = np.divmod(first, V)
        for t in range(2, length):
            cdf = self._cdf[x[:, t - 2], x[:, t - 1]]  # (n, V)
            u = rng.random(n)[:, None]
            x[:, t] = np.minimum((cdf <= u).sum(axis=1), V - 1)
        return x

    def nll(self, x: np.ndarray) -> np.ndarray:
        """Per-sequence negative log-likelihood (n,) in nats under the true law."""
        x = self._check(x)
        with np.errstate(divide="ignore"):
            out = -np.log(self.init[x[:, 0], x[:, 1]])
            if x.shape[1] > 2:
                out -= np.log(self.P[x[:, :-2], x[:, 1:-1], x[:, 2:]]).sum(axis=1)
        return out

    def entropy_rate(self) -> float:
        """Exact entropy rate, nats per token: sum_{a,b} init[a,b] H(P[a,b,:])."""
        return float((self.init * _entropy(self.P)).sum())

    def sequence_entropy(self, length: int) -> float:
        """Exact expected NLL (nats) of a true sequence of `length` tokens: H(init) + (L - 2)
        times the entropy rate. A faithful sampler's mean NLL matches it; a lower one means the
        sampler concentrates on likely sequences (lost diversity), not that it is better."""
        if length < 2:
            raise ValueError(f"length must be >= 2, got {length}")
        return float(_entropy(self.init.ravel())) + (length - 2) * self.entropy_rate()

    def expected_gen_ppl(self, length: int) -> float:
        """Exact E[exp(NLL / L)] over true sequences (the paper's mean of per-sample
        perplexities): sum_x p(x)^(1 - 1/L), by a forward pass over pairs. By Jensen it is at
        least exp(sequence_entropy(L) / L), the pooled value."""
        if length < 2:
            raise ValueError(f"length must be >= 2, got {length}")
        s = 1.0 - 1.0 / length
        v = self.init ** s
        Ps = self.P ** s
        for _ in range(length - 2):
            v = (v[:, :, None] * Ps).sum(axis=0)
        return float(v.sum())

    def most_likely(self, length: int) -> np.ndarray:
        """The single most likely sequence (length,) (Viterbi over pairs): what a sampler
        collapsed onto the mode emits; it has a lower NLL than any true sample."""
        if length < 2:
            raise ValueError(f"length must be >= 2, got {length}")
        V = self.vocab
        with np.errstate(divide="ignore"):
            score = np.log(self.init)  # best log-prob of a prefix ending in pair (a, b)
            logP = np.log(self.P)
        back = np.empty((length - 2, V, V), dtype=np.int64)
        for t in range(length - 2):
            cand = score[:, :, None] + logP  # (a, b, c)
            back[t] = cand.argmax(axis=0)  # best a for the new pair (b, c)
            score = cand.max(axis=0)
        b, c = np.unravel_index(int(score.argmax()), score.shape)
        seq = [int(c), int(b)]
        for t in range(length - 3, -1, -1):
            a = int(back[t, seq[-1], seq[-2]])
            seq.append(a)
        return np.array(seq[::-1], dtype=np.int64)


def make_chain(vocab: int, successors: int, concentration: float, smoothing: float,
               rng: np.random.Generator, classes: int = 0) -> Chain:
    """A random order-2 chain: each context (a, b) favours `successors` distinct tokens with
    Dirichlet(concentration) weights, mixed with uniform (weight `smoothing`) so every
    transition has probability >= smoothing / V and the chain is ergodic. With `classes` K
    (0: K = V) the token two back acts through its class a mod K only: K x V contexts, each
    drawn independently (K = V is the unrestricted chain, the same draws as before)."""
    if vocab < 2 or not 1 <= successors <= vocab:
        raise ValueError(f"need vocab >= 2 and 1 <= successors <= vocab, got {vocab}, "
                         f"{successors}")
    if concentration <= 0 or not 0.0 <= smoothing <= 1.0:
        raise ValueError(f"need concentration > 0 and smoothing in [0, 1], got "
                         f"{concentration}, {smoothing}")
    V = vocab
    K = classes or V
    if not 1 <= K <= V:
        raise ValueError(f"need 0 <= classes <= vocab, got {classes}")
    idx = np.argsort(rng.random((K, V, V)), axis=-1)[..., :successors]  # uniform k-subsets
    w = rng.dirichlet(np.full(successors, float(concentration)), size=(K, V))
    table = np.zeros((K, V, V))
    np.put_along_axis(table, idx, w, axis=-1)
    sparse = table[np.arange(V) % K]
    P = (1.0 - smoothing) * sparse + smoothing / V
    P /= P.sum(axis=-1, keepdims=True)  # exact to rounding
    return Chain(P, stationary_pairs(P))


def chain_summary(chain: Chain, length: int) -> dict[str, float]:
    """The exact numbers a sampler is measured against (source.json)."""
    h = chain.entropy_rate()
    per_tok = chain.sequence_entropy(length) / length
    unigram = chain.init.sum(axis=0)
    return {
        "entropy_rate_nats": h,
        "entropy_rate_bits": h / math.log(2),
        "sequence_entropy_per_token_nats": per_tok,
        "true_gen_ppl_pooled": float(np.exp(per_tok)),
        "true_gen_ppl": chain.expected_gen_ppl(length),
        "unigram_entropy_bits": float(_entropy(unigram)) / math.log(2),
    }


# ----------------------------------------------------------------------------- text (full)
_WIKI_TITLE = re.compile(r"^ = [^=].* = $")


def _documents(rows: Iterable[dict[str, Any]], wikitext: bool) -> Iterator[str]:
    """Documents of a hub split. WikiText rows are lines: they are joined into articles
    (an article starts at a top-level ` = Title = ` line), so EOS marks article ends."""
    if not wikitext:
        for r in rows:
            if r["text"].strip():
                yield r["text"]
        return
    buf: list[str] = []
    for r in rows:
        line = r["text"]
        if _WIKI_TITLE.match(line.rstrip("\n")) and any(s.strip() for s in buf):
            yield "".join(buf)
            buf = []
        buf.append(line)
    if any(s.strip() for s in buf):
        yield "".join(buf)


def _tokenise(docs: Iterator[str], tok: Any, eos: int, limit: int,
              batch: int = 512) -> np.ndarray:
    """Token ids of the documents, EOS after each, concatenated as uint16 (stops after
    `limit` tokens; 0: all)."""
    parts: list[np.ndarray] = []
    total = 0
    done = False
    while not done:
        texts = [d for _, d in zip(range(batch), docs, strict=False)]
        if not texts:
            break
        for ids in tok(texts, add_special_tokens=False)["input_ids"]:
            a = np.asarray([*ids, eos], dtype=np.uint16)
            if limit and total + a.size >= limit:
                a, done = a[: limit - total], True
            parts.append(a)
            total += a.size
            if done:
                break
        log.info("%d tokens", total)
    return np.concatenate(parts) if parts else np.zeros(0, dtype=np.uint16)


def _blocks(ids: np.ndarray, length: int) -> np.ndarray:
    n = ids.size // length
    return ids[: n * length].reshape(n, length)


def text_corpus(d: Data) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
    """FineWeb-Edu (train) and WikiText-103 (validation), GPT-2 tokenised, cut into blocks of
    `length` tokens. Needs `datasets`, `transformers` and the hub: each failure is one line."""
    try:
        from datasets import load_dataset
        from transformers import AutoTokenizer
    except ImportError as e:
        raise SystemExit(f"data.source text needs the `{e.name or e}` package "
                         "(pip install -e '.[full]' transformers)") from None
    try:
        tok = AutoTokenizer.from_pretrained(d.tokenizer)
    except Exception as e:  # network, hub, missing files: one line that says what to do
        raise SystemExit(f"cannot load the tokenizer {d.tokenizer} ({type(e).__name__}): check "
                         "the network, HF_ENDPOINT or HF_HOME") from None
    tok.model_max_length = 1 << 62  # documents are longer than GPT-2's context: no warning
    if tok.eos_token_id is None or len(tok) > np.iinfo(np.uint16).max + 1:
        raise SystemExit(f"tokenizer {d.tokenizer}: needs an EOS token and at most 65536 ids")
    out: dict[str, np.ndarray] = {}
    for key, name, conf, split, limit in (
            ("train", d.train_dataset, d.train_config, "train", d.max_train_tokens),
            ("eval", d.eval_dataset, d.eval_config, "validation", 0)):
        try:
            rows = load_dataset(name, conf, split=split, streaming=True)
            docs = _documents(rows, wikitext="wikitext" in name.lower())
            out[key] = _blocks(_tokenise(docs, tok, tok.eos_token_id, limit), d.length)
        except Exception as e:
            raise SystemExit(f"cannot stream {name} ({conf}, {split}) ({type(e).__name__}): "
                             "check the network, HF_ENDPOINT or HF_HOME") from None
        if not len(out[key]):
            raise SystemExit(f"{name} ({split}): fewer tokens than one block of {d.length}")
    counts = np.bincount(out["train"].ravel(), minlength=len(tok)).astype(np.float64)
    facts = {
        "vocab": len(tok), "tokenizer": d.tokenizer,
        "train_dataset": d.train_dataset, "train_config": d.train_config,
        "eval_dataset": d.eval_dataset, "eval_config": d.eval_config,
        "train_blocks": len(out["train"]), "eval_blocks": len(out["eval"]),
        "unigram_entropy_bits": float(_entropy(counts / counts.sum())) / math.log(2),
    }
    return out, facts


# ----------------------------------------------------------------------------- files
def load_data(path: str | Path) -> dict[str, Any]:
    """The npz written by `main`: {source, vocab, length} plus `chain` (markov2) or
    `train` / `eval` (text, uint16 blocks)."""
    with np.load(path) as z:
        source = str(z["source"])
        out: dict[str, Any] = {"source": source, "vocab": int(z["vocab"]),
                               "length": int(z["length"])}
        if source == "markov2":
            out["chain"] = Chain(z["P"], z["init"])
        else:
            out["train"], out["eval"] = z["train"], z["eval"]
    return out


def main(argv: list[str] | None = None) -> None:
    a = job_parser("draw the fsdfm chain or tokenise its text corpus").parse_args(argv)
    d = load(a.config, a.scale).data
    if d.source not in SOURCES:
        raise SystemExit(f"data.source {d.source!r}: allowed are {', '.join(SOURCES)}")
    facts: dict[str, Any] = {"source": d.source, "length": d.length}
    if d.source == "markov2":
        chain = make_chain(d.vocab, d.successors, d.concentration, d.smoothing,
                           np.random.default_rng(d.seed), d.classes)
        arrays = {"P": chain.P, "init": chain.init}
        facts |= {"seed": d.seed, "vocab": d.vocab, "classes": d.classes or d.vocab,
                  "successors": d.successors,
                  "concentration": d.concentration, "smoothing": d.smoothing,
                  **chain_summary(chain, d.length)}
    else:
        arrays, more = text_corpus(d)
        facts |= more
    buf = io.BytesIO()
    np.savez(buf, source=np.array(d.source), vocab=np.int64(facts["vocab"]),
             length=np.int64(d.length), **arrays)
    with atomic_path(a.out) as tmp:
        tmp.write_bytes(buf.getvalue())
    write_json(a.out.with_name("source.json"), facts)


if __name__ == "__main__":
    main()
