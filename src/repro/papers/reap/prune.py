"""Expert pruning (official src/reap/prune.py): per layer, drop the n experts with the lowest
saliency, slice their weights and their router rows out, and set the config's num_experts, so
the result is a genuinely smaller Qwen3-MoE that saves and reloads as one. The router then takes
its softmax and top-k over the remaining experts and renormalises the top-k weights
(norm_topk_prob), exactly as the unpruned model does.

Saliency criteria (observe.py computes them):
    frequency : routed-token count                                (official "frequency")
    ean       : sum over routed tokens of ||E_j(x)||              (official "ean_sum")
    reap      : mean over routed tokens of g_j(x) ||E_j(x)||      (official "reap")
"""

from __future__ import annotations

from typing import Any

import torch
from torch import nn

from repro.papers.reap.model import moe_layers, set_num_experts

CRITERIA = {"frequency": "expert_frequency", "reap": "reap"}


def criterion_key(method: str, ean_criterion: str = "ean_sum") -> str:
    """The observer statistic a pruning method ranks experts by."""
    if method == "ean":
        return ean_criterion
    if method not in CRITERIA:
        raise ValueError(f"unknown pruning method {method!r}: frequency, ean, reap")
    return CRITERIA[method]


def n_removed(n_experts: int, ratio_percent: int) -> int:
    """Experts removed per layer at a compression ratio (official: int(E * ratio))."""
    return int(n_experts * ratio_percent / 100)


def experts_to_keep(saliency: torch.Tensor, n_prune: int) -> list[int]:
    """Indices of the experts kept (ascending): all but the n_prune least salient. Ties go to
    the lower index being pruned first (a stable sort), so the choice is deterministic."""
    order = torch.argsort(saliency.double(), stable=True)
    pruned = set(order[:n_prune].tolist())
    return [i for i in range(len(saliency)) if i not in pruned]


def prune_plan(obs: dict[int, dict[str, Any]], method: str, ratio_percent: int,
               ean_criterion: str = "ean_sum") -> dict[int, list[int]]:
    """layer -> kept expert indices."""
    key = criterion_key(method, ean_criterion)
    plan = {}
    for layer, st in obs.items():
        sal = st[key]
        plan[int(layer)] = experts_to_keep(sal, n_removed(len(sal), ratio_percent))
    return plan


@torch.no_grad()
def apply_prune(model: nn.Module, plan: dict[int, list[int]]) -> nn.Module:
    """Keep `plan[layer]` experts in every MoE layer (in place); update the config."""
    counts = set()
    for layer, bank in moe_layers(model):
        keep = plan[layer]
        bank.keep(keep)
        counts.add(len(keep))
    if len(counts) != 1:
        raise ValueError(f"non-uniform pruning {sorted(counts)}: the config has one num_experts")
    set_num_experts(model, counts.pop())
    return model


def prune(model: nn.Module, obs: dict[int, dict[str, Any]], method: str, ratio_percent: int,
          ean_criterion: str = "ean_sum") -> dict[int, list[int]]:
    """Prune `model` in place by `method` at `ratio_percent`; returns the plan."""
    plan = prune_plan(obs, method, ratio_percent, ean_criterion)
    apply_prune(model, plan)
    return plan
