"""CLI + library: train one Mult-VAE variant on one data set with one seed, evaluate on test.

    python -m repro.papers.vaecf.train --config src/repro/papers/vaecf/config.yaml --scale small \\
        --dataset ml-100k --variant masking --seed 0 --data data/.../prepared.npz \\
        --out results/small/vaecf/runs/ml-100k/masking/seed0 [--save-model]

Liang et al. (2018)'s procedure: Adam, batches of users (shuffled each epoch), KL weight
annealed as min(cap, update / total_anneal_steps); after every epoch the model is scored on
the validation users (fold-in 80% -> NDCG@100 on the other 20%) and the best epoch's weights
are kept; the test users are scored once, with those weights. `patience` > 0 stops a run
once validation has not improved for that many epochs (a compute saving at small scale; the
selected epoch is the same as long as the best epoch comes before the stop). The run JSON holds the
learning curve, test means, per-user test metrics (with each user's activity, for the
activity buckets) and the records the claims ledger reads. `--data` is the prepared split of
this seed (`data_protocol.split_of`; checked): each record names its unit, the seed and the
split it was trained and scored on. `--out` is a directory: `run.json`,
plus, with --save-model (the runs the proximity analysis reads; the others keep no weights),
`model.pt` (config + best weights) and `model_early.pt` (the weights after
`proximity.early_fraction` of the planned updates: a model in mid-training).

Resumable (repro.core.checkpoint): the state after an update (model, optimiser, update and
epoch counters, the epoch's user order and loss sums, the learning curve, the best weights so
far and the mid-training snapshot, every RNG) is saved every `train.checkpoint_every` updates,
every REPRO_CHECKPOINT_MINUTES minutes and on SIGTERM / SIGINT, beside `--out`; a rerun goes
on from it and writes the same bytes as an uninterrupted run on CPU (but `wall_s` / `cpu_s`,
which add the time before the stop).
"""

from __future__ import annotations

import copy
import dataclasses
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import torch

from repro.core.checkpoint import Resumable, settings_key
from repro.core.config import job_parser
from repro.core.io import atomic_path, write_json
from repro.core.progress import get_logger, progress
from repro.papers.vaecf.data import CSR, split_of_file
from repro.papers.vaecf.data import load as load_data
from repro.papers.vaecf.metrics import all_metrics
from repro.papers.vaecf.model import MultVAE, VAEConfig, beta_at, loss_terms
from repro.papers.vaecf.settings import Settings, TrainConfig, load


def variant_configs(cfg: Settings, variant: str, n_items: int
                    ) -> tuple[VAEConfig, TrainConfig]:
    """`model` and `train` settings with the variant's overrides applied."""
    if variant not in cfg.variants:
        raise SystemExit(f"unknown variant {variant!r}: allowed are {', '.join(cfg.variants)}")
    v = cfg.variants[variant]
    mcfg = VAEConfig(n_items=n_items, hidden=cfg.model.hidden, latent=cfg.model.latent,
                     dropout=v.dropout, anchor_weight=v.anchor_weight,
                     anchor_init_std=cfg.model.anchor_init_std)
    overrides = {k: getattr(v, k) for k in ("anneal_cap", "total_anneal_steps")
                 if getattr(v, k) is not None}
    return mcfg, dataclasses.replace(cfg.train, **overrides)


@torch.no_grad()
def score(model: MultVAE, fold_in: CSR, batch_size: int, device: str) -> np.ndarray:
    """Eval-mode scores (logits with z = mu) for every row of `fold_in`."""
    model.eval()
    out = []
    for start in range(0, fold_in.n_rows, batch_size):
        x = torch.from_numpy(fold_in.dense(slice(start, start + batch_size))).to(device)
        out.append(model(x)[0].float().cpu().numpy())
    return np.concatenate(out) if out else np.zeros((0, fold_in.n_items), np.float32)


def evaluate(model: MultVAE, fold_in: CSR, heldout: CSR, batch_size: int, device: str
             ) -> dict[str, np.ndarray]:
    """Per-user Recall@20/@50 and NDCG@100 of the held-out items (batched, fold-in masked)."""
    per: dict[str, list[np.ndarray]] = {}
    scores_all = score(model, fold_in, batch_size, device)
    for start in range(0, fold_in.n_rows, batch_size):
        rows = slice(start, start + batch_size)
        m = all_metrics(scores_all[rows], fold_in.dense(rows), heldout.dense(rows))
        for k, v in m.items():
            per.setdefault(k, []).append(v)
    return {k: np.concatenate(v) for k, v in per.items()}


def fit(data: dict[str, CSR], mcfg: VAEConfig, tcfg: TrainConfig, seed: int,
        device: str = "cpu", log: Callable[[str], None] = print, desc: str = "train",
        snapshot_update: int = 0, ck: Resumable | None = None
        ) -> tuple[MultVAE, dict[str, Any]]:
    """Train with validation-based model selection; returns the best model and the history.

    snapshot_update > 0 also keeps the weights at the end of the first epoch that reaches that
    many updates (history["snapshot"] = (epoch, state)): a model in mid-training, for the
    proximity analysis. With `ck` (a `Resumable` over the planned updates) the loop starts
    from the state saved last, if any, and offers its state after every update; the history
    then also holds the wall and CPU seconds spent before the resume (`prior_wall_s`,
    `prior_cpu_s`)."""
    torch.manual_seed(seed)
    rng = np.random.default_rng(seed)
    model = MultVAE(mcfg).to(device)
    opt = torch.optim.Adam(model.parameters(), lr=tcfg.lr)
    train = data["train"]
    step, best, best_state, best_epoch = 0, -np.inf, None, -1
    curve: list[dict[str, float]] = []
    snapshot: tuple[int, dict[str, Any]] | None = None
    # the epoch in progress: its user order, the updates done in it and their loss sums
    first_epoch, perm, sums, n_batches = 0, None, {}, 0
    t0, c0, prior_wall, prior_cpu = time.time(), time.process_time(), 0.0, 0.0
    if ck is not None:
        ck.rngs["rng"] = rng
        st = ck.load()
        if st is not None:
            model.load_state_dict(st["model"])
            opt.load_state_dict(st["opt"])
            step, first_epoch, perm, sums, n_batches = (
                st["step"], st["epoch"], st["perm"], st["sums"], st["n_batches"])
            best, best_state, best_epoch = st["best"], st["best_state"], st["best_epoch"]
            curve, snapshot = st["curve"], st["snapshot"]
            prior_wall, prior_cpu = st["wall_s"], st["cpu_s"]

    def state(epoch: int) -> dict[str, Any]:
        return {"model": model.state_dict(), "opt": opt.state_dict(), "step": step,
                "epoch": epoch, "perm": perm, "sums": dict(sums), "n_batches": n_batches,
                "best": best, "best_state": best_state, "best_epoch": best_epoch,
                "curve": curve, "snapshot": snapshot,
                "wall_s": prior_wall + time.time() - t0,
                "cpu_s": prior_cpu + time.process_time() - c0}

    for epoch in progress(range(first_epoch, tcfg.epochs), desc=desc,
                          total=tcfg.epochs - first_epoch):
        model.train()
        if perm is None:  # a new epoch (else one resumed mid-way)
            perm, sums, n_batches = rng.permutation(train.n_rows), {}, 0
        for start in range(n_batches * tcfg.batch_size, train.n_rows, tcfg.batch_size):
            x = torch.from_numpy(train.dense(perm[start:start + tcfg.batch_size])).to(device)
            beta = beta_at(step, tcfg.anneal_cap, tcfg.total_anneal_steps)
            terms = loss_terms(model, x, beta)
            opt.zero_grad(set_to_none=True)
            terms["loss"].backward()
            opt.step()
            step += 1
            n_batches += 1
            for k, v in terms.items():
                sums[k] = sums.get(k, 0.0) + float(v.detach())
            if ck is not None:
                ck.step(step, lambda e=epoch: state(e))
        beta = beta_at(step - 1, tcfg.anneal_cap, tcfg.total_anneal_steps)  # the last update's
        perm = None
        if snapshot_update > 0 and snapshot is None and step >= snapshot_update:
            snapshot = (epoch + 1, copy.deepcopy(model.state_dict()))
        val = evaluate(model, data["val_tr"], data["val_te"], tcfg.eval_batch_size, device)
        val_ndcg = float(np.nanmean(val["ndcg@100"]))
        row = {"epoch": epoch + 1, "beta": beta, "val_ndcg@100": val_ndcg,
               **{k: v / n_batches for k, v in sums.items()}}
        curve.append(row)
        if val_ndcg > best:
            best, best_epoch = val_ndcg, epoch + 1
            best_state = copy.deepcopy(model.state_dict())
        stop = tcfg.patience > 0 and epoch + 1 - best_epoch >= tcfg.patience
        if (epoch + 1) % max(1, tcfg.epochs // 10) == 0 or epoch + 1 == tcfg.epochs or stop:
            log(f"{desc} epoch {epoch + 1}/{tcfg.epochs} loss {row['loss']:.2f} "
                f"beta {beta:.3f} val ndcg@100 {val_ndcg:.4f} (best {best:.4f} @ {best_epoch})"
                + (f"; no gain in {tcfg.patience} epochs: stop" if stop else ""))
        if stop:
            break
    if best_state is not None:
        model.load_state_dict(best_state)
    model.eval()
    hist = {"curve": curve, "best_epoch": best_epoch, "best_val_ndcg@100": best,
            "updates": step, "snapshot": snapshot}
    if ck is not None:
        hist.update(prior_wall_s=prior_wall, prior_cpu_s=prior_cpu)
    return model, hist


def nanmean(a: np.ndarray) -> float:
    return float(np.nanmean(a)) if np.isfinite(a).any() else float("nan")


def planned_updates(tcfg: TrainConfig, data: dict[str, CSR]) -> int:
    """Adam updates of a run that trains every epoch."""
    return tcfg.epochs * -(-data["train"].n_rows // tcfg.batch_size)


def run(cfg: Settings, data: dict[str, CSR], dataset: str, variant: str, seed: int,
        device: str = "cpu", log: Callable[[str], None] = print, snapshot: bool = False,
        ck: Resumable | None = None) -> tuple[dict[str, Any], MultVAE, MultVAE | None]:
    """Train one (dataset, variant, seed) on `data`, the seed's split: the run record
    (JSON-ready), the best model, and with `snapshot` the model after
    `proximity.early_fraction` of the planned updates. `ck`: resume the training loop (`fit`)."""
    split = cfg.data_protocol.split_of(seed)
    mcfg, tcfg = variant_configs(cfg, variant, data["train"].n_items)
    t0, c0 = time.time(), time.process_time()
    planned = planned_updates(tcfg, data)
    at = max(1, round(cfg.proximity.early_fraction * planned)) if snapshot else 0
    model, hist = fit(data, mcfg, tcfg, seed, device, log, desc=f"{dataset}/{variant}/s{seed}",
                      snapshot_update=at, ck=ck)
    prior_wall, prior_cpu = hist.pop("prior_wall_s", 0.0), hist.pop("prior_cpu_s", 0.0)
    early = None
    snap = hist.pop("snapshot")
    if snap is not None:
        early = MultVAE(mcfg).to(device)
        early.load_state_dict(snap[1])
        hist["snapshot_epoch"] = snap[0]
    test = evaluate(model, data["test_tr"], data["test_te"], tcfg.eval_batch_size, device)
    val = evaluate(model, data["val_tr"], data["val_te"], tcfg.eval_batch_size, device)
    means = {k: nanmean(v) for k, v in test.items()}
    unit = {"seed": seed, "split": split}
    records = [{"method": variant, "metric": f"{dataset}/{k}", **unit, "value": v}
               for k, v in means.items()]
    records += [{"method": variant, "metric": f"{dataset}/val_{k}", **unit,
                 "value": nanmean(v)} for k, v in val.items()]
    return {
        "dataset": dataset, "variant": variant, **unit,
        "split_seed": cfg.data_protocol.seed_of_split(split), "device": device,
        # how often the state is saved changes no result: not part of the record
        "model": vars(mcfg), "train": settings_key(vars(tcfg)), **hist,
        "test": means, "val": {k: nanmean(v) for k, v in val.items()},
        "per_user": {k: [None if np.isnan(x) else float(x) for x in v] for k, v in test.items()},
        "user_activity": (data["test_tr"].counts() + data["test_te"].counts()).tolist(),
        "wall_s": prior_wall + time.time() - t0, "cpu_s": prior_cpu + time.process_time() - c0,
        "records": records,
    }, model, early


def check_split(path: str | Path, split: int, seed: int) -> None:
    """Fail when the prepared file is not the split this seed is scored on (a wiring error
    would otherwise pair methods on different held-out users)."""
    got = split_of_file(path)[0]
    if got != split:
        raise SystemExit(f"{path} holds split {got}, but seed {seed} uses split {split}")


def save_model(model: MultVAE, path: str | Path) -> None:
    """Config + weights, loadable by proximity.load_model."""
    with atomic_path(path) as tmp:
        torch.save({"config": vars(model.cfg), "state": model.state_dict()}, tmp)


def main(argv: list[str] | None = None) -> None:
    ap = job_parser(__doc__.splitlines()[0], log=True)
    ap.add_argument("--dataset", required=True)
    ap.add_argument("--variant", required=True)
    ap.add_argument("--seed", required=True, type=int)
    ap.add_argument("--data", required=True)
    ap.add_argument("--save-model", action="store_true")
    a = ap.parse_args(argv)
    cfg = load(a.config, a.scale)
    check_split(a.data, cfg.data_protocol.split_of(a.seed), a.seed)

    from repro.core.device import NoGPUError, limit_cpu_threads, pick_device
    from repro.core.seeding import seed_everything

    try:
        device = pick_device(require_gpu=a.scale == "full")
    except NoGPUError as e:
        raise SystemExit(str(e)) from None
    limit_cpu_threads(1)
    seed_everything(a.seed)
    log = get_logger(f"vaecf.train.{a.variant}", a.log)
    data = load_data(a.data)
    mcfg, tcfg = variant_configs(cfg, a.variant, data["train"].n_items)
    key = {"job": "vaecf.train", "dataset": a.dataset, "variant": a.variant, "seed": a.seed,
           "device": device, "save_model": a.save_model, "model": vars(mcfg),
           "train": settings_key(vars(tcfg)),
           "data_protocol": dataclasses.asdict(cfg.data_protocol),
           "early_fraction": cfg.proximity.early_fraction}
    with Resumable(a.out, key, every=tcfg.checkpoint_every, total=planned_updates(tcfg, data),
                   inputs=[a.data], what=f"{a.dataset}/{a.variant} seed {a.seed}",
                   map_location=device) as ck:
        result, model, early = run(cfg, data, a.dataset, a.variant, a.seed, device, log.info,
                                   snapshot=a.save_model, ck=ck)
        result["scale"] = a.scale
        with atomic_path(a.out) as tmp:
            tmp.mkdir()
            if a.save_model:
                save_model(model.cpu(), tmp / "model.pt")
                if early is not None:
                    save_model(early.cpu(), tmp / "model_early.pt")
            write_json(tmp / "run.json", result)
    log.info(f"wrote {a.out}: test {result['test']} best epoch {result['best_epoch']} "
             f"({result['wall_s']:.1f} s)")


if __name__ == "__main__":
    main()
