"""Spectrum Tuning: the instruction-tuned model, further trained on the suite's training families
in the Spectrum format, through a LoRA adapter (peft).

    python -m repro.papers.spectrum.train --config src/repro/papers/spectrum/config.yaml \\
        --scale small \\
        --suite data/spectrum/small/suite.json --seed 0 --out results/small/spectrum/adapters/seed0

One step: `train.batch` contexts drawn from the pool (the seed's generator), each written in the
Spectrum format (description turn, then input/output turns, roles named by the literal words),
cut at `train.max_tokens` (the official code: 1024) and padded; the loss is the token-level
cross-entropy over the output tokens only (content and end token; none on the first output of a
context without a description), averaged over those tokens, as the official SFT trainer does.
AdamW with a linear warm-up and linear decay (the official script: HF's linear schedule).
The paper fine-tunes every weight of the pretrained model (with the instruct model's turn-token
embeddings copied in) at lr 3e-6; the issue asks for the instruct model with LoRA, whose
adapter needs a far larger rate (config).

Resumable (repro.core.checkpoint): the adapter's weights, AdamW, the step, the loss curve and
the batch generator are saved every `train.checkpoint_every` steps and on SIGTERM/SIGINT; a
rerun goes on from there and writes the same adapter on CPU. `--out` is a directory: peft's
`adapter_config.json` + `adapter_model.safetensors`, and `train.json` (the loss curve).
"""

from __future__ import annotations

import time
from pathlib import Path

import numpy as np
import torch

from repro.core.checkpoint import Resumable, settings_key
from repro.core.config import job_parser
from repro.core.io import atomic_path, read_json, write_json
from repro.core.progress import get_logger, progress
from repro.papers.spectrum import models
from repro.papers.spectrum.formats import FAMILIES, render
from repro.papers.spectrum.settings import Settings, load
from repro.papers.spectrum.suite import Context


def lr_at(step: int, cfg: Settings) -> float:
    """Linear warm-up, then linear decay to 0 at the last step."""
    t = cfg.train
    if step < t.warmup:
        return t.lr * (step + 1) / t.warmup
    return t.lr * max(0.0, (t.steps - step) / max(1, t.steps - t.warmup))


def attach_lora(model, cfg: Settings):
    from peft import LoraConfig, get_peft_model

    lc = cfg.train.lora
    return get_peft_model(model, LoraConfig(r=lc.r, lora_alpha=lc.alpha, lora_dropout=lc.dropout,
                                            target_modules=list(lc.targets),
                                            task_type="CAUSAL_LM"))


def step_loss(model, batch: list[models.Encoded], pad_id: int, device: str) -> torch.Tensor:
    """Mean next-token cross-entropy over the batch's output tokens (with gradients)."""
    ids, att, lab = models.pad(batch, pad_id, device)
    target = lab[:, 1:]
    keep = (target != -100).any(0).nonzero().flatten()
    logits = model(input_ids=ids, attention_mask=att, logits_to_keep=keep).logits.float()
    return torch.nn.functional.cross_entropy(logits.transpose(1, 2), target[:, keep],
                                             ignore_index=-100)


def main(argv: list[str] | None = None) -> None:
    ap = job_parser(__doc__.splitlines()[0], log=True)
    ap.add_argument("--suite", required=True, type=Path)
    ap.add_argument("--seed", required=True, type=int)
    a = ap.parse_args(argv)
    cfg = load(a.config, a.scale)
    from repro.core.device import NoGPUError, limit_cpu_threads, pick_device
    from repro.core.seeding import seed_everything

    try:
        device = pick_device(require_gpu=a.scale == "full")
    except NoGPUError as e:
        raise SystemExit(str(e)) from None
    limit_cpu_threads(1)
    seed_everything(a.seed)
    log = get_logger("spectrum.train", a.log)
    fam = FAMILIES[cfg.model.family]
    pool = [Context.from_json(c) for c in read_json(a.suite)["train"]]
    # the adapter trains in fp32 on the CPU, bf16 weights (fp32 adapter) on a GPU
    tok, model = models.load(cfg.model.instruct, device)
    model = attach_lora(model, cfg)
    model.train()
    params = [p for p in model.parameters() if p.requires_grad]
    for p in params:
        p.data = p.data.float()
    opt = torch.optim.AdamW(params, lr=cfg.train.lr, weight_decay=0.0)
    pad_id = tok.pad_token_id if tok.pad_token_id is not None else 0
    rng = np.random.default_rng([a.seed, 7])
    key = {"job": "spectrum.train", "seed": a.seed, "device": device,
           "model": vars(cfg.model), "train": settings_key(
               {**vars(cfg.train), "lora": vars(cfg.train.lora)})}
    curve: list[float] = []
    t0 = time.time()
    from peft import get_peft_model_state_dict, set_peft_model_state_dict

    with Resumable(a.out, key, every=cfg.train.checkpoint_every, total=cfg.train.steps,
                   rngs={"rng": rng}, inputs=[a.suite], what=f"spectrum tuning seed {a.seed}",
                   map_location=device) as ck:
        st = ck.load()
        if st:
            set_peft_model_state_dict(model, st["adapter"])
            opt.load_state_dict(st["opt"])
            curve = st["curve"]
            log.info(f"resuming at step {ck.start} of {cfg.train.steps}")
        for step in progress(range(ck.start, cfg.train.steps), desc=f"train seed {a.seed}",
                             total=cfg.train.steps - ck.start):
            for g in opt.param_groups:
                g["lr"] = lr_at(step, cfg)
            picks = rng.choice(len(pool), size=cfg.train.batch, replace=False)
            batch = []
            for i in picks:
                ctx = pool[int(i)]
                # sample order is exchangeable: a fresh permutation per use (official code)
                ctx = Context(ctx.family, ctx.description,
                              [ctx.samples[j] for j in rng.permutation(len(ctx.samples))])
                batch.append(models.encode(render(ctx, "spectrum", fam), tok, fam,
                                           cfg.train.max_tokens))
            loss = step_loss(model, batch, pad_id, device)
            opt.zero_grad(set_to_none=True)
            loss.backward()
            opt.step()
            curve.append(loss.item())
            ck.step(step + 1, lambda: {"adapter": get_peft_model_state_dict(model),
                                       "opt": opt.state_dict(), "curve": curve})
        with atomic_path(a.out) as tmp:
            tmp.mkdir()
            model.save_pretrained(str(tmp))
            write_json(tmp / "train.json", {
                "seed": a.seed, "steps": cfg.train.steps, "loss": curve,
                "first_loss": float(np.mean(curve[: max(1, len(curve) // 10)])),
                "last_loss": float(np.mean(curve[-max(1, len(curve) // 10):])),
                "trainable_params": int(sum(p.numel() for p in params))})
    log.info(f"wrote {a.out}: loss {np.mean(curve[:5]):.3f} -> {np.mean(curve[-5:]):.3f} "
             f"in {cfg.train.steps} steps ({time.time() - t0:.0f} s)")


if __name__ == "__main__":
    main()
