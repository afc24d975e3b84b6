"""Typed settings of the VAE-recommender collaboration paper (src/repro/papers/vaecf/config.yaml).

Every job turns its merged YAML settings into `Settings` at its entry point (`load`) and
passes the typed sections down. Fields are required where the config schema requires the key;
the optional ones default to what the code did without them (a variant's overrides: Liang et
al.'s masking 0.5, no anchors, the shared KL schedule; `train.patience`: 0, never stop early;
`generator`: none, the real data set is fetched).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from repro.core.config import load_settings, typed


@dataclass(frozen=True)
class DataProtocol:
    """Liang et al.'s fold-in split of the held-out users, and which split a seed trains on.

    With `vary_split`, seed k trains and is scored on split k (its own held-out users), so a
    seed is one (split, init) unit and the seed spread includes the split spread; without it
    every seed uses split 0, Liang et al.'s one fixed split."""

    test_prop: float  # share of a held-out user's items held out for scoring
    split_seed: int  # RandomState seed of split 0 (Liang et al.'s 98765); split k: split_seed + k
    vary_split: bool  # seed k -> split k (True) or every seed -> split 0 (False)

    def split_of(self, seed: int) -> int:
        """The data split a run with this seed trains and is scored on."""
        return seed if self.vary_split else 0

    def seed_of_split(self, split: int) -> int:
        """The RandomState seed of split k's user permutation and fold-in draw."""
        return self.split_seed + split


@dataclass(frozen=True)
class DatasetConfig:
    """Preprocessing of one data set (`data.liang_split`)."""

    threshold: float | None  # keep value >= threshold (None: keep all plays)
    min_uc: int  # users with >= min_uc items
    min_sc: int  # items with >= min_sc users (0: no filter)
    n_heldout: int  # validation users = test users = n_heldout


@dataclass(frozen=True)
class GeneratorConfig:
    """Seeded explicit ratings shaped like a scaled-down ML-100k (fetch.generate_ratings): what
    tiny reads instead of a download (ML-100k's licence forbids committing an excerpt)."""

    seed: int  # numpy default_rng seed of the factors, the item choices and the ratings
    users: int  # users (ML-100k: 943)
    items: int  # items (ML-100k: 1,682)
    rank: int  # dimension of the user and item factors of the low-rank rating model
    min_ratings: int  # ratings of the least active user (ML-100k: 20)
    mean_ratings: float  # mean ratings per user (ML-100k: 106); the excess is exponential
    popularity: float  # Zipf exponent of item popularity (0: every item equally popular)
    noise: float  # sd of the Gaussian noise added to a rating before rounding to 1-5


@dataclass(frozen=True)
class ModelConfig:
    """The Mult-VAE's shape shared by every variant."""

    hidden: int  # hidden layer width (Liang et al.: 600)
    latent: int  # latent dimension K (Liang et al.: 200)
    anchor_init_std: float  # anchors start near the prior mean


@dataclass
class TrainConfig:
    """Optimisation settings (Liang et al.'s vae_cf notebook values as defaults)."""

    epochs: int = 200  # passes over the training users
    batch_size: int = 500  # users per Adam step
    lr: float = 1e-3  # Adam learning rate
    anneal_cap: float = 0.2  # largest KL weight beta
    total_anneal_steps: int = 200_000  # beta = min(cap, update / this); <= 0: constant beta = cap
    eval_batch_size: int = 2000  # users per scoring batch
    patience: int = 0  # stop after this many epochs without a better validation score (0: never)
    # save a resumable state every this many updates (0: only every REPRO_CHECKPOINT_MINUTES
    # and on SIGTERM / SIGINT; repro.core.checkpoint). Changes no result: not in the records.
    checkpoint_every: int = 0


@dataclass(frozen=True)
class VariantConfig:
    """One variant's overrides of the model and train settings."""

    dropout: float = 0.5  # input masking rate p on the normalised input (0: clean)
    anchor_weight: float = 0.0  # lambda_A (0: no anchors)
    anneal_cap: float | None = None  # KL weight cap (None: train.anneal_cap)
    total_anneal_steps: int | None = None  # KL schedule (None: train.total_anneal_steps)


@dataclass(frozen=True)
class ProximityConfig:
    """The latent-proximity analysis (proximity.py)."""

    variants: list[str]  # variants whose saved models are analysed
    datasets: list[str]  # data sets analysed
    n_targets: int  # training users whose losses are measured
    n_sources: int  # users u an SGD step is taken on
    lr: float  # size of that one plain SGD step
    bins: int  # latent-distance bins
    early_fraction: float  # mid-training snapshot after this share of the planned updates


@dataclass(frozen=True)
class Settings:
    """The settings of one scale (`defaults` merged with `scales.<scale>`)."""

    seeds: list[int]  # seeds of every variant (unless variant_seeds says fewer)
    datasets: list[str]  # data sets run at this scale
    data_protocol: DataProtocol  # the fold-in split
    # name -> DatasetConfig, typed in `settings_of` (`Any` here: `typed` would read
    # dict[str, DatasetConfig] as one DatasetConfig)
    data: dict[str, Any]
    model: ModelConfig  # the shared model shape
    train: TrainConfig  # the shared optimisation settings
    variants: dict[str, Any]  # name -> VariantConfig, typed in `settings_of` (as `data`)
    run_variants: list[str]  # the variants trained at this scale
    variant_seeds: dict[str, list[int]]  # variant -> its seeds where fewer than `seeds`
    select: dict[str, list[str]]  # reported method -> candidate variants (chosen on validation)
    proximity: ProximityConfig  # the latent-proximity analysis
    activity_buckets: int  # test users split into this many equal-count activity buckets
    # tiny: every data set's ratings come from this seeded generator, nothing is downloaded;
    # None (small, full): the real data set (fetch.SOURCES)
    generator: GeneratorConfig | None = None


def settings_of(merged: Mapping[str, Any]) -> Settings:
    """`Settings` from merged YAML settings; unknown or missing keys fail, named."""
    data = {k: typed(DatasetConfig, v, f"data.{k}") for k, v in merged["data"].items()}
    variants = {k: typed(VariantConfig, v, f"variants.{k}")
                for k, v in merged["variants"].items()}
    return typed(Settings, {**merged, "data": data, "variants": variants}, "vaecf")


def load(config: str | Path, scale: str) -> Settings:
    """A job's settings: the paper config at one scale, typed."""
    return settings_of(load_settings(config, scale))
