"""ROVER figures: the toy's learned policies (Fig. 5); method styles for the shared pass@k and
entropy figures (repro.core.rlvr.reporting)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from repro.core.plotting import save_figure, subplots

METHOD_STYLE = {
    "base": dict(color="0.5", ls=":"),
    "grpo": dict(color="tab:blue"),
    "grpo_kl": dict(color="tab:cyan"),
    "grpo_clip_higher": dict(color="tab:purple"),
    "rover": dict(color="tab:red", lw=2.2),
}


def plot_toy_policies(policies: Mapping[str, Mapping[str, Any]], rewarding: Sequence[str],
                      path: str | Path) -> None:
    """Probability of each rewarding sequence (and of failing) under each method's learned
    policy, one panel per seed: greedy methods put everything on one mode (a different one per
    seed), ROVER's softmax spreads over all four."""
    methods = list(policies)
    seeds = sorted({s for m in methods for s in policies[m]}, key=int)
    cats = [*rewarding, "other"]
    colors = ["tab:green", "tab:orange", "tab:blue", "tab:red", "0.85"]
    fig, axes = subplots(1, len(seeds), figsize=(1.2 + 3.2 * len(seeds), 3.6), sharey=True,
                         squeeze=False)
    for ax, seed in zip(axes[0], seeds, strict=True):
        probs = np.zeros((len(methods), len(cats)))
        for i, m in enumerate(methods):
            seqs = policies[m][seed]["sequences"]
            row = [seqs.get(s, 0.0) for s in rewarding]
            probs[i] = [*row, max(0.0, 1.0 - sum(row))]
        bottom = np.zeros(len(methods))
        for j, c in enumerate(cats):
            ax.bar(methods, probs[:, j], bottom=bottom, label=c, color=colors[j % len(colors)])
            bottom += probs[:, j]
        ax.set_title(f"seed {seed}")
        ax.tick_params(axis="x", labelrotation=45, labelsize=8)
    axes[0][0].set_ylabel("probability of the sequence")
    axes[0][-1].legend(title="sequence", bbox_to_anchor=(1.01, 1), loc="upper left", fontsize=8)
    fig.suptitle("Fig. 5 toy: learned policies")
    save_figure(fig, path)
