"""CLI + library: the latent-proximity effect, measured on trained models.

    python -m repro.papers.vaecf.proximity --config src/repro/papers/vaecf/config.yaml \\
        --scale small \\
        --dataset ml-100k --variant masking --data data/.../split0/prepared.npz ... \\
        --runs results/.../runs/ml-100k/masking/seed0 ... --out results/.../proximity/...json

`--data` and `--runs` are aligned: each run is analysed on the training users of its own split
(the file is checked against the run's `split`).

The paper's analysis in miniature: does one SGD step on user u reduce user v's loss more
when their posteriors are closer in latent space? For each trained model (one per seed):

- take `n_targets` training users (seeded sample) and `n_sources` of them as sources;
- per-user loss L_v(theta) = multinomial NLL of v's whole training row with z = mu_v (eval
  mode: no masking, no sampling), so it is deterministic;
- for each source u: theta' = theta - lr * grad L_u(theta) (one plain SGD step on u alone);
  transfer(u, v) = L_v(theta) - L_v(theta') for every other target v (> 0: u's step helped v);
- latent distance: the 2-Wasserstein distance between the Gaussian posteriors,
  W2(u, v)^2 = ||mu_u - mu_v||^2 + ||sigma_u - sigma_v||^2;
- input similarity (control): cosine of the two users' interaction vectors.

Per seed and per model stage -- `early` (weights after `early_fraction` of the planned updates,
i.e. during training, when SGD steps still move all users) and `final` (the selected weights,
near an optimum where the users' gradients balance out) -- the Spearman correlations, within
each source and averaged over sources, of W2 with
- the signed transfer (negative = a step on u helps closer users more), and
- the influence |transfer| (negative = influence decays with latent distance),
the same for input cosine (control), and binned curves (W2 quantile bins per source): mean
transfer relative to the source's own gain, and the fraction of targets whose loss strictly
decreased (the empirical "sharing radius").

Resumable (repro.core.checkpoint), two nested loops: the (run, stage) units (`Resumable.map`:
the summaries so far, saved after each unit) and, within a unit, the source users (the
transfer rows so far, saved after each source). Both states are kept beside `--out` and saved
on SIGTERM / SIGINT too; a rerun skips the finished units, redoes the unit's set-up (targets,
sources, distances: deterministic) and goes on from the first source not done, with every RNG
as it was, writing the same bytes. A source's step is one forward and backward pass, so both
saves are small (a few rows of `n_targets` floats) against the work they keep.
"""

from __future__ import annotations

from dataclasses import asdict
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import torch
from torch.func import functional_call

from repro.core.checkpoint import Resumable, resume_dir, settings_key
from repro.core.config import job_parser
from repro.core.io import write_json
from repro.core.progress import get_logger, progress
from repro.papers.vaecf.data import load, split_of_file
from repro.papers.vaecf.model import MultVAE, VAEConfig, multinomial_nll
from repro.papers.vaecf.settings import load as load_config


def load_model(path: str | Path, device: str = "cpu") -> MultVAE:
    """A MultVAE saved by train.save_model (config + weights)."""
    blob = torch.load(path, map_location=device, weights_only=True)
    model = MultVAE(VAEConfig(**blob["config"])).to(device)
    model.load_state_dict(blob["state"])
    return model.eval()


def user_losses(model: MultVAE, params: dict[str, torch.Tensor], x: torch.Tensor
                ) -> torch.Tensor:
    """Per-user NLL with z = mu (eval mode), under the given parameters."""
    logits, _, _ = functional_call(model, params, (x,))
    return multinomial_nll(logits, x)


def w2_distances(mu: torch.Tensor, logvar: torch.Tensor) -> np.ndarray:
    """Pairwise 2-Wasserstein distances between diagonal Gaussians N(mu, exp(logvar))."""
    sd = torch.exp(0.5 * logvar)
    d2 = torch.cdist(mu, mu).pow(2) + torch.cdist(sd, sd).pow(2)
    return d2.clamp_min(0).sqrt().double().numpy()


def transfer_matrix(model: MultVAE, x: torch.Tensor, sources: np.ndarray, lr: float,
                    ck: Resumable | None = None) -> tuple[np.ndarray, np.ndarray]:
    """transfer[s, v] = L_v(theta) - L_v(theta - lr grad L_{sources[s]}(theta)), and each
    source's own loss decrease. With `ck` (a `Resumable` over the sources) the rows so far are
    the state: a saved one skips its sources."""
    model.eval()
    params = {k: v.detach() for k, v in model.named_parameters()}
    with torch.no_grad():
        base = user_losses(model, params, x)
    st = ck.load() if ck is not None else None
    rows: list[np.ndarray] = list(st["rows"]) if st else []
    for s in progress(range(len(rows), len(sources)), desc="sources",
                      total=len(sources) - len(rows)):
        u = sources[s]
        p = {k: v.clone().requires_grad_(True) for k, v in params.items()}
        loss = user_losses(model, p, x[u:u + 1]).sum()
        grads = torch.autograd.grad(loss, list(p.values()), allow_unused=True)
        stepped = {k: (v.detach() - lr * g if g is not None else v.detach())
                   for (k, v), g in zip(p.items(), grads, strict=True)}
        with torch.no_grad():
            after = user_losses(model, stepped, x)
        rows.append((base - after).double().numpy())
        if ck is not None:
            ck.step(s + 1, lambda: {"rows": rows})
    out = np.zeros((len(sources), x.shape[0]))
    own = np.zeros(len(sources))
    for s, (u, delta) in enumerate(zip(sources, rows, strict=True)):
        out[s] = delta
        own[s] = delta[u]
    return out, own


def analyse(model: MultVAE, x: torch.Tensor, n_sources: int, lr: float, bins: int, seed: int,
            ck: Resumable | None = None) -> dict[str, Any]:
    """The per-model summary (module docstring) plus the binned curves. `ck`: resume the loop
    over sources (`transfer_matrix`)."""
    rng = np.random.default_rng(seed)
    sources = np.sort(rng.choice(x.shape[0], size=min(n_sources, x.shape[0]), replace=False))
    with torch.no_grad():
        mu, logvar = model.encode(x)
    w2 = w2_distances(mu, logvar)
    xn = torch.nn.functional.normalize(x, dim=1)
    cos = (xn @ xn.T).double().numpy()
    transfer, own = transfer_matrix(model, x, sources, lr, ck)
    rho_w2, rho_abs, rho_cos, rel_bins, pos_bins, dist_bins = [], [], [], [], [], []
    for s, u in enumerate(sources):
        mask = np.arange(x.shape[0]) != u
        t, d, c = transfer[s, mask], w2[u, mask], cos[u, mask]
        rho_w2.append(pd.Series(d).corr(pd.Series(t), method="spearman"))
        rho_abs.append(pd.Series(d).corr(pd.Series(np.abs(t)), method="spearman"))
        rho_cos.append(pd.Series(c).corr(pd.Series(t), method="spearman"))
        q = pd.qcut(pd.Series(d).rank(method="first"), bins, labels=False).to_numpy()
        rel_bins.append([float(np.mean(t[q == b]) / own[s]) for b in range(bins)])
        pos_bins.append([float(np.mean(t[q == b] > 0)) for b in range(bins)])
        dist_bins.append([float(np.median(d[q == b]) / np.median(d)) for b in range(bins)])
    return {
        "spearman_w2": float(np.nanmean(rho_w2)),
        "spearman_w2_influence": float(np.nanmean(rho_abs)),
        "spearman_cos": float(np.nanmean(rho_cos)),
        "own_gain_mean": float(own.mean()),
        "relative_transfer_by_bin": np.mean(rel_bins, 0).tolist(),
        "fraction_helped_by_bin": np.mean(pos_bins, 0).tolist(),
        "distance_by_bin": np.mean(dist_bins, 0).tolist(),
        "near_minus_far": float(np.mean(rel_bins, 0)[0] - np.mean(rel_bins, 0)[-1]),
        "w2_median": float(np.median(w2[np.triu_indices_from(w2, 1)])),
    }


def main(argv: list[str] | None = None) -> None:
    ap = job_parser(__doc__.splitlines()[0], log=True)
    ap.add_argument("--dataset", required=True)
    ap.add_argument("--variant", required=True)
    ap.add_argument("--data", nargs="+", required=True, help="each run's prepared split")
    ap.add_argument("--runs", nargs="+", required=True, help="run directories with model.pt")
    a = ap.parse_args(argv)
    p = load_config(a.config, a.scale).proximity
    if len(a.data) != len(a.runs):
        raise SystemExit(f"{len(a.data)} --data files for {len(a.runs)} --runs: one per run")

    from repro.core.device import limit_cpu_threads
    from repro.core.io import read_json
    from repro.core.seeding import seed_everything

    limit_cpu_threads(1)
    log = get_logger(f"vaecf.proximity.{a.variant}", a.log)
    runs = []  # (data, run dir, seed, split), each run's split checked before any work
    for data, run_dir in zip(a.data, map(Path, a.runs), strict=True):
        meta = read_json(run_dir / "run.json")
        seed, split = int(meta["seed"]), int(meta["split"])
        if split_of_file(data)[0] != split:
            raise SystemExit(f"{data} is not split {split}, the split of {run_dir}")
        runs.append((data, run_dir, seed, split))
    units = [(r, stage, name) for r in range(len(runs))
             for stage, name in (("early", "model_early.pt"), ("final", "model.pt"))]
    key = {"job": "vaecf.proximity", "dataset": a.dataset, "variant": a.variant,
           "proximity": settings_key(asdict(p)), "data": a.data, "runs": a.runs}
    targets: dict[int, torch.Tensor] = {}  # the run whose target users are loaded: its rows

    def unit(i: int) -> dict[str, Any] | None:
        """Unit i, one (run, stage): its summary, or None when the run kept no such model."""
        r, stage, name = units[i]
        data, run_dir, seed, split = runs[r]
        if not (run_dir / name).exists():
            log.info(f"{run_dir}: no {name}, stage {stage} skipped")
            return None
        if r not in targets:  # the run's target users (both stages use them)
            train = load(data)["train"]
            rows = np.sort(np.random.default_rng(seed).choice(
                train.n_rows, size=min(p.n_targets, train.n_rows), replace=False))
            targets.clear()
            targets[r] = torch.from_numpy(train.dense(rows))
        x = targets[r]
        with Resumable(resume_dir(a.out) / f"unit{i}", {**key, "unit": [r, stage]}, every=1,
                       total=min(p.n_sources, x.shape[0]),
                       inputs=[data, run_dir / "run.json", run_dir / name],
                       what=f"{a.dataset}/{a.variant} seed {seed} {stage}") as ck:
            seed_everything(seed)
            res = analyse(load_model(run_dir / name), x, p.n_sources, p.lr, p.bins, seed, ck=ck)
        res.update(seed=seed, split=split, stage=stage)
        log.info(f"{a.dataset}/{a.variant} seed {seed} {stage}: spearman(W2, transfer) "
                 f"{res['spearman_w2']:+.3f}, (W2, |transfer|) "
                 f"{res['spearman_w2_influence']:+.3f}, (cos, transfer) "
                 f"{res['spearman_cos']:+.3f}")
        return res

    with Resumable(a.out, key, every=1, inputs=[*a.data, *a.runs],
                   what=f"{a.dataset}/{a.variant} proximity") as ck:
        per_seed = [res for res in ck.map(unit, range(len(units))) if res is not None]
        records = [{"method": a.variant, "metric": f"{a.dataset}/proximity_{res['stage']}_{m}",
                    "seed": res["seed"], "split": res["split"], "value": res[m]}
                   for res in per_seed
                   for m in ("spearman_w2", "spearman_w2_influence", "spearman_cos",
                             "near_minus_far")]
        write_json(a.out, {"dataset": a.dataset, "variant": a.variant, "settings": asdict(p),
                           "seeds": per_seed, "records": records})


if __name__ == "__main__":
    main()
