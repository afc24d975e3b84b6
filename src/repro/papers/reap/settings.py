"""Typed settings of REAP (src/repro/papers/reap/config.yaml).

Every job turns its merged YAML settings into `Settings` at its entry point (`load`, or
`settings_of` on settings it already merged) and passes the typed sections down. The `model`
block stays a dict: it is handed to the Qwen3-MoE config (or names the hub checkpoint) as is.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from repro.core.config import load_settings, typed


@dataclass
class DataConfig:
    """The corpus: stdlib code + reference-manual prose, split by a hash of each name."""

    splits: dict[str, float]  # split name -> share of the documents (train / calib / heldout)
    exclude_dirs: list[str]  # stdlib directories left out (pydoc_data, site-packages always)
    max_files: int = 0  # stdlib files kept at most (0: all)
    max_file_bytes: int = 0  # skip files larger than this (0: no cap)
    max_prose_docs: int = 0  # reference-manual topics kept at most (0: all)


@dataclass
class TrainConfig:
    """Training the small MoE from scratch (train.py)."""

    steps: int  # optimiser steps
    batch_size: int  # windows per step
    seq_len: int  # tokens per window
    lr: float  # peak AdamW learning rate (warm-up, then cosine to 10%)
    warmup: int  # linear warm-up steps
    weight_decay: float  # AdamW weight decay
    grad_clip: float  # global gradient-norm clip
    prose_fraction: float  # share of each batch's windows that are prose
    load_balancing: str  # per_layer (each layer balanced) | pooled (transformers' helper)
    threads: int  # torch intra-op threads of the training job
    log_every: int  # router statistics every this many steps
    checkpoint_every: int  # resumable checkpoint every this many steps (0: never)
    probe_windows: int  # windows for the init-vs-trained router statistics


@dataclass
class CalibrationConfig:
    """The calibration samples every compression method observes (observe.py)."""

    source: str  # stdlib (the calib split) | evol_codealpaca (full: the paper's set)
    n_samples: int  # calibration sequences
    seq_len: int  # tokens per sequence
    batch_size: int  # sequences per forward pass
    renormalize_router_weights: bool  # REAP's gate values renormalised over the top-k
    prose_fraction: float  # stdlib: share of the windows that are prose
    dataset: str = ""  # evol_codealpaca: the hub dataset
    split: str = "train"  # evol_codealpaca: its split
    mirror_dir: str = ""  # evol_codealpaca: its folder in the data mirror
    # save the running sums every this many batches (0: only every REPRO_CHECKPOINT_MINUTES and
    # on SIGTERM / SIGINT; repro.core.checkpoint). Changes no result.
    checkpoint_every: int = 0


@dataclass
class MergeSettings:
    """One merging method's settings (merge.py)."""

    permute: bool  # weight-match each expert to its group's dominant expert before averaging
    linkage: str = "average"  # HC-SMoE's clustering linkage


@dataclass
class MergeConfig:
    """The merging baselines."""

    m_smoe: MergeSettings  # M-SMoE (frequency-dominant experts, router-logit grouping)
    hc_smoe: MergeSettings  # HC-SMoE (clustering of the experts' mean outputs)


@dataclass
class PrefixConfig:
    """Generation prompts from held-out stdlib functions (`function_prefixes`)."""

    n: int  # prompts kept (chosen by a hash of file and line)
    body_lines: int  # body lines after the signature and docstring
    min_next_line: int  # the true next line has at least this many characters
    max_prefix_chars: int  # longest prefix kept
    context_chars: int  # preceding file text before the prefix (cut at a line start)


@dataclass
class EvalConfig:
    """Discriminative and generative evaluation of a (compressed) model (evaluate.py)."""

    seq_len: int  # tokens per held-out window (and prompt + generation)
    code_windows: int  # held-out code windows (next-token NLL / accuracy)
    prose_windows: int  # held-out prose windows
    batch_size: int  # windows per forward pass
    prefixes: PrefixConfig  # the generation prompts
    max_new_tokens: int  # greedy continuation length
    gen_batch_size: int  # prompts decoded at once
    gen_score_of: list[str]  # the generative score is the mean of these metrics
    benchmarks: list[str]  # full: humaneval / mbpp / livecodebench (benchmarks.py)
    bench_batch_size: int = 16  # benchmark prompts generated at once
    evalplus: dict[str, Any] = field(default_factory=dict)  # EvalPlus settings (max_new_tokens)
    livecodebench: dict[str, Any] = field(default_factory=dict)  # lcb_runner's settings
    keep_models: bool = False  # benchmarks: also save each compressed model in its work dir


@dataclass
class GapConfig:
    """The merging-vs-pruning gap: the share of merging's damage that pruning avoids."""

    ratio: int  # the compression ratio of the claim
    pruning: str  # the pruning method of the claim
    merging: list[str]  # the merging methods averaged into M
    generative: str  # the generative metric
    discriminative: str  # the discriminative metric


@dataclass
class Settings:
    """Every REAP job's settings at one scale (the paper config's merged `defaults`)."""

    models: list[int]  # training seeds: one trained model each, the outermost unit of claims
    seeds: list[int]  # calibration seeds (which calibration samples are drawn), per model
    methods: list[str]  # compression methods, in table order
    ratios: list[int]  # % of each layer's experts removed
    ean_criterion: str  # EAN's saliency (ean_sum, the paper's baseline, or ean_mean)
    data: DataConfig  # the corpus
    model: dict[str, Any]  # the Qwen3-MoE config block (or the hub id at full), as is
    train: TrainConfig  # training from scratch
    calibration: CalibrationConfig  # the calibration samples
    merge: MergeConfig  # the merging baselines
    eval: EvalConfig  # evaluation
    gap: GapConfig  # the merging-vs-pruning gap
    gpus: int = 0  # GPUs per model job (full)

    def __post_init__(self) -> None:
        if self.model.get("kind") == "pretrained" and len(self.models) != 1:
            raise ValueError(f"models: {self.models}: a released checkpoint is one model "
                             "(list one seed; vary the calibration `seeds`)")
        if len(set(self.models)) != len(self.models) or len(set(self.seeds)) != len(self.seeds):
            raise ValueError(f"models {self.models} / seeds {self.seeds}: repeated seeds")

    def unit(self) -> str:
        """What a claim's independent unit is: the trained model when there are several
        (calibration seeds of one model are averaged first), else the calibration seed."""
        return "trained model" if len(self.models) > 1 else "calibration seed"


def settings_of(merged: Mapping[str, Any]) -> Settings:
    """`Settings` from merged YAML settings; unknown or missing keys fail, named."""
    return typed(Settings, merged, "reap")


def load(config: str | Path, scale: str) -> Settings:
    """A job's settings: the paper config at one scale, typed."""
    return settings_of(load_settings(config, scale))
