"""MLLM parsers (full scale): a hub vision-language model reads the chart image and writes the
triples in FlowGen's answer format, then answers each QA question from the image.

The triple prompt asks, as the official evaluation prompts do, for one `<head, relation, tail>`
per edge (`connectedTo` for an unlabelled arrow, `partOf` for subgraph membership); the answer
is read back as the official eval.py reads it (triples in backticks first, else bare ones;
split on commas outside quotes; anything without exactly three parts dropped). Models load with
transformers' image-text-to-text auto classes from the hub cache (`python -m
repro.papers.flowgen.data --scale full` fetches them); a GPU is expected.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

TRIPLE_PROMPT = (
    "Extract every relation shown in this flowchart as triples, one per line, in the form "
    "`<head, relation, tail>`. For an arrow, the head is the node it starts from and the tail "
    "the node it points to; the relation is the arrow's label, or connectedTo when it has none. "
    "A branched arrow gives one triple per branch. For a node inside a titled subgraph, also "
    "write `<node, partOf, subgraph title>`. Example:\n"
    "`<Start, connectedTo, Load data>`\n`<Load data, validate, Check input>`\n"
    "`<Check input, partOf, Intake stage>`")
QA_PROMPT = "Answer the question about this flowchart with the answer only.\n{question}"
BACKTICKED = re.compile(r"`\s*<([^`]*?)>\s*`")
BARE = re.compile(r"<([^<>]*?)>")


def split_outside_quotes(s: str) -> list[str]:
    parts, cur, quote = [], [], None
    for ch in s:
        if ch in "\"'" and (quote is None or quote == ch):
            quote = None if quote else ch
        elif ch in ",，" and quote is None:
            parts.append("".join(cur).strip())
            cur = []
            continue
        cur.append(ch)
    parts.append("".join(cur).strip())
    return parts


def read_triples(text: str) -> list[list[str]]:
    found = BACKTICKED.findall(text) or BARE.findall(text)
    out = []
    for body in found:
        parts = split_outside_quotes(body)
        if len(parts) == 3:
            out.append([p.strip("\"' ") for p in parts])
    return out


class Mllm:
    def __init__(self, model_id: str, cfg: Any, adapter: Path | None = None) -> None:
        import torch
        from transformers import AutoModelForImageTextToText, AutoProcessor

        self.model_id, self.cfg = model_id, cfg
        self.processor = AutoProcessor.from_pretrained(
            model_id, trust_remote_code=True, max_pixels=cfg.max_pixels)
        self.model = AutoModelForImageTextToText.from_pretrained(
            model_id, trust_remote_code=True, torch_dtype=torch.bfloat16,
            device_map="auto")
        if adapter is not None:  # the LoRA adapter finetune.py trained on FlowGen
            from peft import PeftModel

            self.model = PeftModel.from_pretrained(self.model, str(adapter))
        self.model.eval()

    def _ask(self, image: Any, prompt: str, max_new_tokens: int) -> str:
        import torch

        messages = [{"role": "user", "content": [{"type": "image"},
                                                 {"type": "text", "text": prompt}]}]
        text = self.processor.apply_chat_template(messages, add_generation_prompt=True)
        inputs = self.processor(text=[text], images=[image], return_tensors="pt").to(
            self.model.device)
        with torch.inference_mode():
            out = self.model.generate(**inputs, max_new_tokens=max_new_tokens, do_sample=False)
        return self.processor.batch_decode(out[:, inputs["input_ids"].shape[1]:],
                                           skip_special_tokens=True)[0]

    def read(self, path: Path, page: dict[str, Any], qa: list[dict[str, Any]]
             ) -> tuple[list[list[str]], list[str]]:
        """The Reader interface (parse.Reader); the OCR front-end's `page` is not used."""
        from PIL import Image

        image = Image.open(path).convert("RGB")
        triples = read_triples(self._ask(image, TRIPLE_PROMPT, self.cfg.max_new_tokens))
        answers = [self._ask(image, QA_PROMPT.format(question=q["question"]), 64).strip()
                   for q in qa]
        return triples, answers
