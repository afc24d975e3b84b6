"""FS-DFM at one step with a MASK source: the best a student can do under the paper's loss.

From the all-MASK start (t = 0) a one-step student sees the same input for every sequence, so
its sample is a product of per-position distributions q. Its loss at dt = 1 is the forward KL
from the EMA teacher's RK-4 target, which is random (it runs through sampled half steps); over
those draws the KL is smallest at q = the mean of the teacher's target probabilities. This
script estimates that q from `--draws` targets of a trained run's EMA teacher and prints the
generative perplexity of one-step samples from it, beside the DFM's own one-step sampler and the
trained student's: if the bound is no better than the DFM, no amount of FS-DFM training with
this source can make one step better (what our small run measures is then not a training bug).

Run after `snakemake paper_fsdfm` (small):

    .venv/bin/python benchmarks/fsdfm_one_step_bound.py [--scale small] [--seed 0] [--draws 256]
"""

from __future__ import annotations

import argparse
from pathlib import Path

import torch

from repro.papers.fsdfm.data import load_data
from repro.papers.fsdfm.flow import categorical, probs, sample, shortcut_target
from repro.papers.fsdfm.metrics import sample_metrics
from repro.papers.fsdfm.settings import load
from repro.papers.fsdfm.train import load_model, path_of

REPO = Path(__file__).resolve().parents[1]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--scale", default="small")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--draws", type=int, default=256, help="teacher targets averaged")
    ap.add_argument("--samples", type=int, default=256, help="one-step samples scored")
    a = ap.parse_args()
    torch.set_num_threads(1)
    cfg = load(REPO / "src/repro/papers/fsdfm/config.yaml", a.scale)
    res = REPO / "results" / a.scale / "fsdfm"
    data = load_data(REPO / "data" / "fsdfm" / a.scale / "data.npz")
    chain, vocab, length = data["chain"], int(data["vocab"]), int(data["length"])
    path = path_of(cfg, vocab)
    if path.mask_id is None:
        raise SystemExit("this bound is for a MASK source (path.source: mask)")
    dfm, _ = load_model(res / "models" / "dfm" / f"seed{a.seed}" / "model.pt", cfg)

    def ppl(x: torch.Tensor) -> float:
        return sample_metrics(x.numpy(), chain, cfg.eval.ngram)["gen_ppl"]

    gen = torch.Generator().manual_seed(a.seed)
    print(f"true samples: gen. perplexity {chain.expected_gen_ppl(length):.2f}")
    x = sample(lambda x, t, h: dfm(x, t), path, a.samples, length, 1, "euler", gen)
    print(f"DFM, one step (its marginals): {ppl(x):.2f}")
    for rule in ("cumulative", "standard"):
        d = res / "models" / f"fsdfm_{rule}" / f"seed{a.seed}"
        if not (d / "model.pt").exists():
            continue
        student, _ = load_model(d / "model.pt", cfg)
        ema, _ = load_model(d / "ema.pt", cfg)
        x = sample(student, path, a.samples, length, 1, rule, gen)
        trained = ppl(x)
        start = path.source_sample((a.draws, length), gen)
        zeros, ones = torch.zeros(a.draws), torch.ones(a.draws)
        target = shortcut_target(ema, path, start, zeros, ones, rule, gen)  # no_grad inside
        q = probs(target, path).mean(0)  # (L, V): the forward-KL optimum over the draws
        x = categorical(q.expand(a.samples, length, vocab).contiguous(), gen)
        print(f"FS-DFM ({rule} rule), one step: trained student {trained:.2f}; "
              f"best product law under its loss (mean of {a.draws} teacher targets) {ppl(x):.2f}")


if __name__ == "__main__":
    main()
