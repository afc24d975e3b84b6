"""Generative perplexity on text (full scale): the paper scores each sample with GPT-2-large,
perplexity = exp(mean cross-entropy of tokens 2..L given the ones before), and reports the mean
over samples of the per-sample perplexities. Below full the data's own law is the judge."""

from __future__ import annotations

import numpy as np


def judge_nll(x: np.ndarray, model_name: str, device: str, batch_size: int = 8) -> np.ndarray:
    """Per-sample NLL (nats) of tokens 2..L under the judge, rescaled to L tokens, so that
    exp(nll / L) is the per-sample perplexity the paper reports."""
    try:
        import torch
        from transformers import AutoModelForCausalLM
    except ImportError as e:
        raise SystemExit(f"the text judge needs transformers ({e}): pip install transformers"
                         ) from None
    try:
        model = AutoModelForCausalLM.from_pretrained(model_name).to(device).eval()
    except OSError as e:
        raise SystemExit(f"judge {model_name!r} could not be loaded (no internet or cache?): "
                         f"{str(e).splitlines()[0]}") from None
    L = x.shape[1]
    out = []
    with torch.no_grad():
        for i in range(0, len(x), batch_size):
            ids = torch.as_tensor(x[i:i + batch_size], dtype=torch.long, device=device)
            logits = model(ids).logits[:, :-1].float()
            ce = torch.nn.functional.cross_entropy(logits.transpose(1, 2), ids[:, 1:],
                                                   reduction="none")
            out.append((ce.mean(dim=1) * L).cpu().numpy())
    return np.concatenate(out).astype(np.float64)
