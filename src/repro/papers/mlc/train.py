"""Safety alignment with English-only supervision, plus (or not) a multilingual consistency term,
through a LoRA adapter (peft).

    python -m repro.papers.mlc.train --config src/repro/papers/mlc/config.yaml --scale small \\
        --data data/mlc/small/data.json --method mlc --seed 0 \\
        --out results/small/mlc/adapters/mlc/seed0

One step draws `train.batch` harmful training prompts and `train.retain_batch` retain prompts
(the seed's generator) and adds up
- the objective on English text only: `sft`, the cross-entropy of the refusal (harmful) or of
  the model's own answer (retain) given the prompt, averaged over response tokens; or `dpo`,
  refusal preferred to the model's own original answer for harmful prompts and the answer
  preferred to a refusal for retain prompts, against the frozen starting model (the adapter
  switched off) as the reference;
- on every `train.every`-th step, lambda times the method's consistency term
  (method.CONSISTENCY) over the same harmful prompts in every language of `data.langs`: their
  pooled hidden states at `train.layer`, through a trainable linear head (mlc: the softmax over
  singular values; pairwise: cosine to English; plain: none), as the official code adds it.
  No response in any language but English is ever used.

AdamW with linear warm-up and decay. Resumable (repro.core.checkpoint): adapter, optimiser,
step, curves and the batch generator are saved every `train.checkpoint_every` steps and on
SIGTERM/SIGINT; a rerun goes on from there and writes the same adapter on CPU. `--out` is a
directory: peft's adapter files and `train.json` (the loss curves).
"""

from __future__ import annotations

from contextlib import contextmanager
from pathlib import Path

import numpy as np
import torch
import torch.nn.functional as F

from repro.core.checkpoint import Resumable, settings_key
from repro.core.config import job_parser
from repro.core.io import atomic_path, read_json, write_json
from repro.core.progress import get_logger, progress
from repro.papers.mlc import model as M
from repro.papers.mlc.data import REFUSALS
from repro.papers.mlc.method import CONSISTENCY, head
from repro.papers.mlc.settings import Settings, load


def lr_at(step: int, cfg: Settings) -> float:
    """Linear warm-up, then linear decay to 0 at the last step."""
    t = cfg.train
    if step < t.warmup:
        return t.lr * (step + 1) / t.warmup
    return t.lr * max(0.0, (t.steps - step) / max(1, t.steps - t.warmup))


def attach_lora(lm, cfg: Settings):
    from peft import LoraConfig, get_peft_model

    lc = cfg.train.lora
    return get_peft_model(lm, LoraConfig(r=lc.r, lora_alpha=lc.alpha, lora_dropout=lc.dropout,
                                         target_modules=list(lc.targets), task_type="CAUSAL_LM"))


def encode_pairs(tok, pairs: list[tuple[str, str]], system: str | None, max_tokens: int,
                 device: str) -> dict[str, torch.Tensor]:
    """Left-padded (prompt, response) sequences with labels on the response tokens only."""
    rows = []
    for prompt, response in pairs:
        head = tok(M.render(tok, prompt, system), add_special_tokens=False)["input_ids"]
        full = tok(M.render(tok, prompt, system, response), add_special_tokens=False)["input_ids"]
        if full[:len(head)] != head:
            raise ValueError("the chat template does not extend the prompt with the response")
        full = full[:max_tokens]
        rows.append((full, [-100] * len(head) + full[len(head):]))
    width = max(len(ids) for ids, _ in rows)
    pad = tok.pad_token_id
    ids = torch.tensor([[pad] * (width - len(i)) + i for i, _ in rows], device=device)
    lab = torch.tensor([[-100] * (width - len(ll)) + ll for _, ll in rows], device=device)
    att = torch.tensor([[0] * (width - len(i)) + [1] * len(i) for i, _ in rows], device=device)
    return {"input_ids": ids, "attention_mask": att, "labels": lab}


def token_logps(lm, enc: dict[str, torch.Tensor]) -> tuple[torch.Tensor, torch.Tensor]:
    """Per-row sum of the response tokens' log-probabilities and their count."""
    logits = lm(input_ids=enc["input_ids"], attention_mask=enc["attention_mask"],
                position_ids=M.positions(enc["attention_mask"])).logits[:, :-1].float()
    target = enc["labels"][:, 1:]
    mask = target != -100
    lp = torch.log_softmax(logits, -1).gather(-1, target.clamp_min(0).unsqueeze(-1)).squeeze(-1)
    return (lp * mask).sum(-1), mask.sum(-1)


def sft_loss(lm, enc: dict[str, torch.Tensor]) -> torch.Tensor:
    """Cross-entropy averaged over every response token of the batch."""
    lp, n = token_logps(lm, enc)
    return -lp.sum() / n.sum().clamp_min(1)


def dpo_loss(lm, chosen: dict, rejected: dict, beta: float) -> torch.Tensor:
    """DPO (Rafailov et al.) against the starting model, i.e. the adapter switched off."""
    pc, _ = token_logps(lm, chosen)
    pr, _ = token_logps(lm, rejected)
    with torch.no_grad(), lm.disable_adapter():
        rc, _ = token_logps(lm, chosen)
        rr, _ = token_logps(lm, rejected)
    return -F.logsigmoid(beta * ((pc - rc) - (pr - rr))).mean()


@contextmanager
def up_to_layer(lm, layer: int):
    """Run only the decoder layers a representation needs: a state after layer l < L needs
    l + 1 of them (the last computed state is the normed one, so one more layer is run and
    its state left unread); the last layer's (-1 or L) needs all."""
    cfg = (lm.get_base_model() if hasattr(lm, "get_base_model") else lm).config
    total = cfg.num_hidden_layers
    keep = total if layer in (-1, total) else layer + 1
    if not 0 <= layer <= total and layer != -1:
        raise ValueError(f"train.layer {layer} is outside 0..{total} (or -1)")
    cfg.num_hidden_layers = min(keep, total)
    try:
        yield
    finally:
        cfg.num_hidden_layers = total


def prompt_states(lm, tok, prompts: list[dict[str, str]], langs: list[str], cfg: Settings,
                  device: str, chunk: int = 4) -> torch.Tensor:
    """(prompts, languages, dim) pooled representations, with gradients. The texts run in
    chunks of similar length (`chunk` at a time, sorted by token count): a Thai prompt is
    several times an English one, and one padded batch would spend most of its compute on
    padding."""
    texts = [M.render(tok, p[lang], cfg.model.system) for p in prompts for lang in langs]
    lengths = [len(tok(t, add_special_tokens=False)["input_ids"]) for t in texts]
    order = sorted(range(len(texts)), key=lambda i: (lengths[i], i))
    rows: list[torch.Tensor | None] = [None] * len(texts)
    with up_to_layer(lm, cfg.train.layer):
        for s in range(0, len(order), chunk):
            idx = order[s:s + chunk]
            enc = M.batch(tok, [texts[i] for i in idx], device)
            enc["position_ids"] = M.positions(enc["attention_mask"])
            h = M.representations(lm, enc, cfg.train.layer, cfg.train.pooling)
            for k, i in enumerate(idx):
                rows[i] = h[k]
    return torch.stack(rows).view(len(prompts), len(langs), -1)


def main(argv: list[str] | None = None) -> None:
    ap = job_parser(__doc__.splitlines()[0], log=True)
    ap.add_argument("--data", required=True, type=Path)
    ap.add_argument("--method", required=True)
    ap.add_argument("--seed", required=True, type=int)
    a = ap.parse_args(argv)
    cfg = load(a.config, a.scale)
    if a.method not in cfg.methods:
        raise SystemExit(f"unknown method {a.method!r}; {a.config} has {list(cfg.methods)}")
    term = cfg.methods[a.method]
    device = M.job_device(a.scale, a.seed)
    log = get_logger("mlc.train", a.log)
    data = read_json(a.data)
    langs, train, retain = data["langs"], data["train"], data["retain"]
    if cfg.train.objective == "dpo" and any("rejected" not in r for r in train):
        raise SystemExit(f"{a.data} has no rejected answers; rerun the fetch with "
                         "train.objective dpo")
    tok, lm = M.load(cfg.model.ref, device)
    lm = attach_lora(lm, cfg)
    lm.train()
    params = [p for p in lm.parameters() if p.requires_grad]
    for p in params:
        p.data = p.data.float()
    proj = head(lm.config.hidden_size, cfg.train.proj_dim).to(device).float()
    if term != "none":
        params += list(proj.parameters())
    opt = torch.optim.AdamW(params, lr=cfg.train.lr, weight_decay=0.0)
    rng = np.random.default_rng([a.seed, 11])
    key = {"job": "mlc.train", "method": a.method, "term": term, "seed": a.seed,
           "device": device, "model": vars(cfg.model), "langs": langs,
           "train": settings_key({**vars(cfg.train), "lora": vars(cfg.train.lora)})}
    curves: dict[str, list[float]] = {"objective": [], "consistency": [], "total": []}
    from peft import get_peft_model_state_dict, set_peft_model_state_dict

    with Resumable(a.out, key, every=cfg.train.checkpoint_every, total=cfg.train.steps,
                   rngs={"rng": rng}, inputs=[a.data], what=f"mlc {a.method} seed {a.seed}",
                   map_location=device) as ck:
        st = ck.load()
        if st:
            set_peft_model_state_dict(lm, st["adapter"])
            proj.load_state_dict(st["head"])
            opt.load_state_dict(st["opt"])
            curves = st["curves"]
            log.info(f"resuming at step {ck.start} of {cfg.train.steps}")
        for step in progress(range(ck.start, cfg.train.steps),
                             desc=f"{a.method} seed {a.seed}", total=cfg.train.steps - ck.start):
            for g in opt.param_groups:
                g["lr"] = lr_at(step, cfg)
            harm = [train[int(i)] for i in rng.choice(len(train), cfg.train.batch, replace=False)]
            keep = [retain[int(i)] for i in
                    rng.choice(len(retain), cfg.train.retain_batch, replace=False)]
            if cfg.train.objective == "sft":
                pairs = [(h["prompts"]["en"], h["response"]) for h in harm]
                pairs += [(r["prompt"], r["response"]) for r in keep]
                objective = sft_loss(lm, encode_pairs(tok, pairs, cfg.model.system,
                                                      cfg.train.max_tokens, device))
            else:
                refusal = [REFUSALS[int(rng.integers(len(REFUSALS)))] for _ in keep]
                chosen = [(h["prompts"]["en"], h["response"]) for h in harm]
                chosen += [(r["prompt"], r["response"]) for r in keep]
                rejected = [(h["prompts"]["en"], h["rejected"]) for h in harm]
                rejected += [(r["prompt"], x) for r, x in zip(keep, refusal, strict=True)]
                objective = dpo_loss(
                    lm, encode_pairs(tok, chosen, cfg.model.system, cfg.train.max_tokens, device),
                    encode_pairs(tok, rejected, cfg.model.system, cfg.train.max_tokens, device),
                    cfg.train.dpo_beta)
            loss = objective
            cons = None
            if term != "none" and step % cfg.train.every == 0:
                states = prompt_states(lm, tok, [h["prompts"] for h in harm], langs, cfg, device)
                cons = CONSISTENCY[term](proj(states), cfg.train.tau)
                loss = objective + cfg.train.weight * cons
            opt.zero_grad(set_to_none=True)
            loss.backward()
            opt.step()
            curves["objective"].append(objective.item())
            curves["consistency"].append(None if cons is None else cons.item())
            curves["total"].append(loss.item())
            ck.step(step + 1, lambda: {"adapter": get_peft_model_state_dict(lm),
                                       "head": proj.state_dict(), "opt": opt.state_dict(),
                                       "curves": curves})
        with atomic_path(a.out) as tmp:
            tmp.mkdir()
            lm.save_pretrained(str(tmp))
            if term != "none":   # the projection only the loss reads (official: extractor.pt)
                torch.save(proj.state_dict(), tmp / "head.pt")
            write_json(tmp / "train.json", {
                "method": a.method, "consistency": term, "objective": cfg.train.objective,
                "seed": a.seed, "steps": cfg.train.steps, "curves": curves,
                "trainable_params": int(sum(p.numel() for p in params))})
    tail = max(1, len(curves["total"]) // 10)
    cons = [c for c in curves["consistency"] if c is not None] or [float("nan")]
    log.info(f"wrote {a.out}: objective {np.mean(curves['objective'][:tail]):.3f} -> "
             f"{np.mean(curves['objective'][-tail:]):.3f}, consistency "
             f"{np.mean(cons[:tail]):.3f} -> {np.mean(cons[-tail:]):.3f}")


if __name__ == "__main__":
    main()
