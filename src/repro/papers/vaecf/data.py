"""CLI + library: Liang et al. (2018)'s preprocessing of implicit-feedback data (vae_cf notebook).

    python -m repro.papers.vaecf.data --config config/papers/vaecf.yaml --scale small \\
        --dataset ml-100k --split 0 --interactions data/.../interactions.parquet \\
        --stats data/.../split0/stats.json --out data/.../split0/prepared.npz

The protocol, step by step (the notebook's order, so ML-20M gives its split):
1. binarise: keep interactions with value >= `threshold` (ratings >= 4, i.e. > 3.5; MSD: all);
2. filter: items with >= `min_sc` users (if > 0), then users with >= `min_uc` items;
3. permute the users (user ids sorted, then `RandomState(split_seed).permutation`); the last
   2 x `n_heldout` users are held out: `n_heldout` validation users, then `n_heldout` test users;
4. items = those seen by training users (order of first appearance); held-out users' other
   items are dropped;
5. fold-in: each held-out user with >= 5 items has `int(test_prop * n)` random items (one
   `RandomState(split_seed)` per split, users in id order) moved to `_te`; the rest is `_tr`.

Split k uses `split_seed + k` in steps 3 and 5, so split 0 is Liang et al.'s fixed split and
the other splits hold out other users (`data_protocol.vary_split`: seed k trains on split k).
One job writes one split: a run depends on its own split only, and adding seeds adds splits
without redoing the others.

The result is one .npz of CSR matrices (indptr/indices; all values are 1) for train, val_tr,
val_te, test_tr, test_te, plus the split's index and seed, and a stats JSON. CSR keeps
ML-20M/MSD in memory; batches are densified on the fly.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from repro.core.config import job_parser
from repro.core.io import atomic_path, write_json
from repro.papers.vaecf.settings import load as load_config

if TYPE_CHECKING:  # pandas is imported where used: training jobs load .npz only
    import pandas as pd

SPLITS = ("train", "val_tr", "val_te", "test_tr", "test_te")


@dataclass
class CSR:
    """A binary user x item matrix in CSR form (no scipy needed)."""

    indptr: np.ndarray
    indices: np.ndarray
    n_items: int

    @property
    def n_rows(self) -> int:
        return len(self.indptr) - 1

    def row(self, i: int) -> np.ndarray:
        return self.indices[self.indptr[i]:self.indptr[i + 1]]

    def counts(self) -> np.ndarray:
        return np.diff(self.indptr)

    def dense(self, rows: np.ndarray | slice | None = None) -> np.ndarray:
        """Rows as a dense float32 0/1 array (a training or evaluation batch)."""
        idx = np.arange(self.n_rows)[rows] if rows is not None else np.arange(self.n_rows)
        out = np.zeros((len(idx), self.n_items), dtype=np.float32)
        for k, i in enumerate(idx):
            out[k, self.row(int(i))] = 1.0
        return out

    @classmethod
    def from_pairs(cls, rows: np.ndarray, cols: np.ndarray, n_rows: int, n_items: int) -> CSR:
        order = np.lexsort((cols, rows))
        rows, cols = rows[order], cols[order]
        indptr = np.zeros(n_rows + 1, dtype=np.int64)
        np.add.at(indptr, rows + 1, 1)
        return cls(np.cumsum(indptr), cols.astype(np.int64), n_items)


def binarise(df: pd.DataFrame, threshold: float | None) -> pd.DataFrame:
    """Keep interactions with value >= threshold (None keeps every interaction)."""
    return df if threshold is None else df[df["value"] >= threshold]


def filter_triplets(df: pd.DataFrame, min_uc: int, min_sc: int) -> pd.DataFrame:
    """Items with >= min_sc users first, then users with >= min_uc items (one pass each)."""
    if min_sc > 0:
        ic = df.groupby("item").size()
        df = df[df["item"].isin(ic.index[ic >= min_sc])]
    if min_uc > 0:
        uc = df.groupby("user").size()
        df = df[df["user"].isin(uc.index[uc >= min_uc])]
    return df


def split_fold_in(df: pd.DataFrame, test_prop: float, seed: int
                  ) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Per held-out user (in user order): int(test_prop * n) random items go to `_te` when the
    user has >= 5 items; otherwise all stay in `_tr`. One RandomState for the whole split."""
    import pandas as pd

    rs = np.random.RandomState(seed)
    tr, te = [], []
    for _, group in df.groupby("user", sort=True):
        n = len(group)
        if n >= 5:
            mask = np.zeros(n, dtype=bool)
            mask[rs.choice(n, size=int(test_prop * n), replace=False).astype("int64")] = True
            tr.append(group[~mask])
            te.append(group[mask])
        else:
            tr.append(group)
    empty = df.iloc[:0]
    return (pd.concat(tr) if tr else empty), (pd.concat(te) if te else empty)


def liang_split(df: pd.DataFrame, threshold: float | None, min_uc: int, min_sc: int,
                n_heldout: int, test_prop: float = 0.2, split_seed: int = 98765
                ) -> tuple[dict[str, CSR], dict[str, Any], dict[str, np.ndarray]]:
    """The whole protocol (module docstring): raw (user, item, value) -> five CSR matrices,
    stats, and the raw ids behind rows and columns (train / val / test users, items)."""
    import pandas as pd

    binary = binarise(df, threshold)
    df = filter_triplets(binary, min_uc, min_sc)
    users = np.asarray(df.groupby("user").size().index)
    n_users = len(users)
    if n_users <= 2 * n_heldout:
        raise ValueError(f"{n_users} users after filtering: too few for 2 x {n_heldout} held out")
    users = users[np.random.RandomState(split_seed).permutation(n_users)]
    tr_users = users[: n_users - 2 * n_heldout]
    vd_users = users[n_users - 2 * n_heldout: n_users - n_heldout]
    te_users = users[n_users - n_heldout:]

    train = df[df["user"].isin(tr_users)]
    items = pd.unique(train["item"])
    item_id = {s: i for i, s in enumerate(items)}
    user_id = {u: i for i, u in enumerate(users)}

    def to_csr(part: pd.DataFrame, start: int, n_rows: int) -> CSR:
        rows = part["user"].map(user_id).to_numpy(dtype=np.int64) - start
        cols = part["item"].map(item_id).to_numpy(dtype=np.int64)
        return CSR.from_pairs(rows, cols, n_rows, len(items))

    out = {"train": to_csr(train, 0, len(tr_users))}
    stats: dict[str, Any] = {
        "interactions_binarised": int(len(binary)),
        "interactions": int(len(df)), "users": int(n_users), "items": int(len(items)),
        "train_users": int(len(tr_users)), "heldout_users": int(n_heldout),
        "train_interactions": int(len(train)),
    }
    for name, group, start in (("val", vd_users, len(tr_users)),
                               ("test", te_users, len(tr_users) + n_heldout)):
        plays = df[df["user"].isin(group) & df["item"].isin(item_id)]
        tr, te = split_fold_in(plays, test_prop, split_seed)
        out[f"{name}_tr"] = to_csr(tr, start, n_heldout)
        out[f"{name}_te"] = to_csr(te, start, n_heldout)
        stats[f"{name}_tr_interactions"] = int(len(tr))
        stats[f"{name}_te_interactions"] = int(len(te))
    stats["density"] = stats["interactions"] / (n_users * max(len(items), 1))
    ids = {"train": tr_users, "val": vd_users, "test": te_users, "items": np.asarray(items)}
    return out, stats, ids


def save(path: str | Path, mats: dict[str, CSR], *, split: int, split_seed: int) -> None:
    """The five matrices and the split they come from (read back by `split_of_file`)."""
    arrays: dict[str, Any] = {"n_items": np.int64(mats["train"].n_items),
                              "split": np.int64(split), "split_seed": np.int64(split_seed)}
    for k, m in mats.items():
        arrays[f"{k}_indptr"], arrays[f"{k}_indices"] = m.indptr, m.indices
    with atomic_path(path) as tmp:
        with open(tmp, "wb") as f:
            np.savez_compressed(f, **arrays)


def load(path: str | Path) -> dict[str, CSR]:
    """The five CSR matrices written by `save`."""
    z = np.load(path)
    n_items = int(z["n_items"])
    return {k: CSR(z[f"{k}_indptr"], z[f"{k}_indices"], n_items) for k in SPLITS}


def split_of_file(path: str | Path) -> tuple[int, int]:
    """(split index, its RandomState seed) of a prepared file, so a job can check that it was
    handed the split its seed belongs to."""
    z = np.load(path)
    return int(z["split"]), int(z["split_seed"])


def main(argv: list[str] | None = None) -> None:
    ap = job_parser(__doc__.splitlines()[0])
    ap.add_argument("--dataset", required=True)
    ap.add_argument("--split", required=True, type=int, help="split index k (seed split_seed + k)")
    ap.add_argument("--interactions", required=True, type=Path)
    ap.add_argument("--stats", required=True, type=Path)
    a = ap.parse_args(argv)
    cfg = load_config(a.config, a.scale)
    d, protocol = cfg.data[a.dataset], cfg.data_protocol
    if a.split < 0 or (a.split > 0 and not protocol.vary_split):
        raise SystemExit(f"split {a.split}: only split 0 exists with data_protocol.vary_split "
                         f"false (scale {a.scale})")
    import pandas as pd

    df = pd.read_parquet(a.interactions)
    seed = protocol.seed_of_split(a.split)
    mats, stats, _ = liang_split(df, d.threshold, d.min_uc, d.min_sc, d.n_heldout,
                                 protocol.test_prop, seed)
    stats.update(dataset=a.dataset, split=a.split, split_seed=seed,
                 raw_interactions=int(len(df)), **asdict(d))
    save(a.out, mats, split=a.split, split_seed=seed)
    write_json(a.stats, stats)


if __name__ == "__main__":
    main()
