"""fsdfm sample metrics: generative perplexity plus the diversity measures that keep it honest.

Generative perplexity alone rewards a sampler that collapses onto a few likely sequences (its
NLL is below that of true samples). The paper therefore reports the unigram entropy of each
sample next to it; distinct n-grams and the fraction of duplicated samples expose the same
failure across samples.
"""

from __future__ import annotations

import numpy as np

from repro.papers.fsdfm.data import Chain


def unigram_entropy_bits(x: np.ndarray) -> np.ndarray:
    """Shannon entropy (bits) of each row's own token histogram (n,): the paper's
    "entropy", low when a sample repeats a few tokens."""
    x = np.asarray(x, dtype=np.int64)
    n, L = x.shape
    base = int(x.max()) + 1
    keys, counts = np.unique((np.arange(n)[:, None] * base + x).ravel(), return_counts=True)
    p = counts / L
    return np.bincount(keys // base, weights=-p * np.log2(p), minlength=n)


def _ngram_keys(x: np.ndarray, k: int) -> np.ndarray:
    """One comparable key per k-gram inside each row (rows are not joined)."""
    w = np.lib.stride_tricks.sliding_window_view(x, k, axis=1).reshape(-1, k)
    base = int(x.max()) + 1
    if base ** k < 2 ** 63:  # an exact integer code: fast
        return w @ (base ** np.arange(k - 1, -1, -1, dtype=np.int64))
    w = np.ascontiguousarray(w)
    return w.view(np.dtype((np.void, w.dtype.itemsize * k))).ravel()


def distinct_ngrams(x: np.ndarray, k: int) -> float:
    """Distinct k-grams over all samples / total k-grams (k-grams do not cross samples)."""
    x = np.asarray(x, dtype=np.int64)
    if x.shape[1] < k:
        raise ValueError(f"samples of length {x.shape[1]} have no {k}-grams")
    keys = _ngram_keys(x, k)
    return len(np.unique(keys)) / keys.size


def repeat_fraction(x: np.ndarray) -> float:
    """Fraction of samples identical to at least one other sample."""
    _, inverse, counts = np.unique(np.asarray(x), axis=0, return_inverse=True,
                                   return_counts=True)
    return float((counts[inverse.ravel()] > 1).mean())


def sample_metrics(x: np.ndarray, chain: Chain | None, ngram: int,
                   nll: np.ndarray | None = None) -> dict[str, float]:
    """Metrics of n samples (n, L). The NLL per sequence (nats) comes from the true chain
    (small scale: exact) or is given (full scale: a judge model's), exactly one of the two.

    gen_ppl is the mean of per-sample perplexities exp(NLL_i / L) (the paper's convention);
    gen_ppl_pooled = exp(mean NLL / L) is at most it (Jensen).
    """
    x = np.asarray(x)
    if x.ndim != 2 or not np.issubdtype(x.dtype, np.integer):
        raise ValueError(f"samples must be an integer array (n, L), got {x.dtype} {x.shape}")
    if (chain is None) == (nll is None):
        raise ValueError("sample_metrics: give exactly one of chain and nll")
    n, L = x.shape
    nll = chain.nll(x) if chain is not None else np.asarray(nll, dtype=np.float64)
    if nll.shape != (n,):
        raise ValueError(f"nll must have shape ({n},), got {nll.shape}")
    per_tok = nll / L
    out = {
        "n_samples": n,
        "length": L,
        "gen_ppl": float(np.exp(per_tok).mean()),
        "gen_ppl_pooled": float(np.exp(per_tok.mean())),
        "nll_per_token": float(per_tok.mean()),
        "nll_sd": float(per_tok.std(ddof=1)) if n > 1 else 0.0,
        "entropy_bits": float(unigram_entropy_bits(x).mean()),
    }
    for k in range(1, ngram + 1):
        out[f"distinct_{k}"] = distinct_ngrams(x, k)
    out["repeat_fraction"] = repeat_fraction(x)
    return out


def reference_metrics(chain: Chain, n: int, length: int, rng: np.random.Generator,
                      ngram: int) -> dict[str, float]:
    """The metrics of n true samples: the oracle row (what a perfect sampler reaches)."""
    return sample_metrics(chain.sample(n, length, rng), chain, ngram)
