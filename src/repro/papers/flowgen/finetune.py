"""Fine-tune an MLLM on FlowGen's training split (full scale): the paper's "training on FlowGen"
with the official recipe (MLLMs_SFT/Qwen2-VL-Finetune/scripts/finetune_lora_vision.sh, read,
not copied): LoRA rank 64, alpha 64, dropout 0.05 on the language model's and the vision
tower's linear layers (not lm_head or the embeddings), AdamW at 5e-4 with weight decay 0.1,
3% warm-up then cosine decay, one epoch, a global batch of 32 (4 per step x 8 accumulated),
bf16. The target is the chart's triples in the answer format the evaluation reads
(mllm.TRIPLE_PROMPT); the loss is on the answer tokens only. No FlowGen-tuned checkpoint is
published, so this job makes one; `evaluate` reads it as `mllm-sft:<base id>`.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

from repro.core.checkpoint import Resumable
from repro.core.config import job_parser
from repro.core.io import read_json, write_json
from repro.core.progress import get_logger
from repro.core.seeding import seed_everything
from repro.papers.flowgen.mllm import TRIPLE_PROMPT
from repro.papers.flowgen.settings import load

log = get_logger("flowgen.finetune")


def answer_text(triples: list[list[str]]) -> str:
    return "\n".join(f"`<{h}, {r}, {t}>`" for h, r, t in triples)


def example(processor: Any, image: Any, triples: list[list[str]]) -> dict[str, Any]:
    """One training example: the chat with the gold answer, labels masked to the answer."""
    user = [{"role": "user", "content": [{"type": "image"},
                                         {"type": "text", "text": TRIPLE_PROMPT}]}]
    full = user + [{"role": "assistant",
                    "content": [{"type": "text", "text": answer_text(triples)}]}]
    prompt = processor.apply_chat_template(user, add_generation_prompt=True)
    text = processor.apply_chat_template(full)
    enc = processor(text=[text], images=[image], return_tensors="pt")
    n_prompt = processor(text=[prompt], images=[image], return_tensors="pt")["input_ids"].shape[1]
    labels = enc["input_ids"].clone()
    labels[:, :n_prompt] = -100
    enc["labels"] = labels
    return enc


def main(argv: list[str] | None = None) -> None:
    import torch
    from peft import LoraConfig, get_peft_model
    from PIL import Image
    from transformers import AutoModelForImageTextToText, AutoProcessor

    ap = job_parser("LoRA-fine-tune an MLLM on one seed's FlowGen training split")
    ap.add_argument("--seed", required=True, type=int)
    ap.add_argument("--model", required=True, help="the base model's hub id")
    ap.add_argument("--index", required=True, type=Path)
    ap.add_argument("--images", required=True, type=Path)
    a = ap.parse_args(argv)
    cfg = load(a.config, a.scale)
    ft = cfg.finetune
    seed_everything(a.seed)
    index = read_json(a.index)
    charts = {c["id"]: c for c in index["charts"]}
    recs = index["images"]
    processor = AutoProcessor.from_pretrained(a.model, trust_remote_code=True,
                                              max_pixels=cfg.mllm.max_pixels)
    model = AutoModelForImageTextToText.from_pretrained(
        a.model, trust_remote_code=True, torch_dtype=torch.bfloat16, device_map="auto")
    model.gradient_checkpointing_enable()
    model.enable_input_require_grads()
    lora = LoraConfig(r=ft.rank, lora_alpha=ft.alpha, lora_dropout=ft.dropout,
                      target_modules="all-linear", exclude_modules=["lm_head", "embed_tokens"],
                      task_type="CAUSAL_LM")
    model = get_peft_model(model, lora)
    params = [p for p in model.parameters() if p.requires_grad]
    opt = torch.optim.AdamW(params, lr=ft.lr, weight_decay=ft.weight_decay)
    g = torch.Generator().manual_seed(a.seed)
    order = torch.randperm(len(recs), generator=g).tolist()
    steps = math.ceil(len(order) / ft.batch_size)
    warm = max(1, int(ft.warmup_ratio * steps))

    def lr_at(step: int) -> float:
        if step < warm:
            return (step + 1) / warm
        return 0.5 * (1 + math.cos(math.pi * (step - warm) / max(1, steps - warm)))

    sched = torch.optim.lr_scheduler.LambdaLR(opt, lr_at)
    model.train()
    with Resumable(a.out, {"seed": a.seed, "model": a.model, "ft": str(ft)}, total=steps,
                   inputs=[a.index], what=f"finetune seed {a.seed}") as run:
        st = run.load()
        if st:
            model.load_state_dict(st["model"], strict=False)
            opt.load_state_dict(st["opt"])
            sched.load_state_dict(st["sched"])
        for step in range(run.start, steps):
            batch = order[step * ft.batch_size:(step + 1) * ft.batch_size]
            total = 0.0
            for i in batch:
                rec = recs[i]
                img = Image.open(a.images / rec["image"]).convert("RGB")
                enc = example(processor, img, charts[rec["chart"]]["triples"]).to(model.device)
                loss = model(**enc).loss / len(batch)
                loss.backward()
                total += float(loss)
            torch.nn.utils.clip_grad_norm_(params, 1.0)
            opt.step()
            sched.step()
            opt.zero_grad(set_to_none=True)
            log.info("finetune seed %d: step %d/%d, loss %.4f", a.seed, step + 1, steps, total)
            run.step(step + 1, lambda: {
                "model": {k: v for k, v in model.state_dict().items() if "lora_" in k},
                "opt": opt.state_dict(), "sched": sched.state_dict()})
    a.out.mkdir(parents=True, exist_ok=True)
    model.save_pretrained(a.out)
    write_json(a.out / "finetune.json", {"seed": a.seed, "base": a.model, "steps": steps,
                                         "examples": len(recs)})


if __name__ == "__main__":
    main()
