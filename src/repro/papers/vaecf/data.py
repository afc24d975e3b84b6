"""CLI + library: Liang et al. (2018)'s preprocessing of implicit-feedback data (vae_cf notebook).

    python -m repro.papers.vaecf.data --config src/repro/papers/vaecf/config.yaml --scale small \\
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

Resumable (repro.core.checkpoint), stage by stage: 1. the filtered ratings (steps 1-2 above),
2. the training matrix and the held-out users' plays (3-4), then the fold-in (5) of each held-out
group in `FOLD_IN_CHUNKS` chunks of users (the fold-in's RandomState carried across chunks).
Each boundary's state (that stage's result and what the next stages need, ids as int codes)
is saved every REPRO_CHECKPOINT_MINUTES minutes and on SIGTERM / SIGINT, beside `--out`; a rerun
skips the stages done (not even reading the raw file when past the filter) and writes the
same bytes. Where the time goes (ML-20M-sized synthetic ratings, 16M rows: 10 s; a quarter of
MSD with its string ids, 11M rows: 31 s): the training matrix (the id lookups of every
training interaction and their sort, 25-37%), the two fold-ins (per-user draws, 29-30%), the
filter (11-21%); reading the parquet file takes 3-4%.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from repro.core.config import job_parser
from repro.core.io import atomic_path, write_json
from repro.papers.vaecf.settings import load as load_config

if TYPE_CHECKING:  # pandas is imported where used: training jobs load .npz only
    import pandas as pd

    from repro.core.checkpoint import Resumable

SPLITS = ("train", "val_tr", "val_te", "test_tr", "test_te")
# Resumable steps (module doc): the filter, the training matrix, then each held-out group's
# fold-in in this many chunks of users (a fixed count, so a stop lands within a tenth of a
# fold-in at any size: ~2 s of MSD's 50,000 users, a few ms at tiny).
FOLD_IN_CHUNKS = 10
STEPS = 2 + 2 * FOLD_IN_CHUNKS


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


def split_fold_in(df: pd.DataFrame, test_prop: float, seed: int | np.random.RandomState
                  ) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Per held-out user (in user order): int(test_prop * n) random items go to `_te` when the
    user has >= 5 items; otherwise all stay in `_tr`. One RandomState for the whole split
    (`seed`, or a RandomState to go on drawing from: the split done in chunks of users)."""
    import pandas as pd

    rs = seed if isinstance(seed, np.random.RandomState) else np.random.RandomState(seed)
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


def _pack(df: pd.DataFrame) -> dict[str, tuple[np.ndarray, Any]]:
    """The user and item columns as int32 codes and their distinct values (row order and
    dtypes kept): a saved state far smaller than the frame when ids are strings (MSD)."""
    out = {}
    for c in ("user", "item"):
        codes, uniques = df[c].factorize()
        out[c] = (codes.astype(np.int32), uniques)
    return out


def _unpack(packed: dict[str, tuple[np.ndarray, Any]]) -> pd.DataFrame:
    """The frame `_pack` packed (a fresh RangeIndex: nothing downstream reads the index)."""
    import pandas as pd

    return pd.DataFrame({c: uniques.take(codes) for c, (codes, uniques) in packed.items()})


def liang_split(df: pd.DataFrame | Callable[[], pd.DataFrame], threshold: float | None,
                min_uc: int, min_sc: int, n_heldout: int, test_prop: float = 0.2,
                split_seed: int = 98765, ck: Resumable | None = None
                ) -> tuple[dict[str, CSR], dict[str, Any], dict[str, np.ndarray]]:
    """The whole protocol (module docstring): raw (user, item, value) -> five CSR matrices,
    stats, and the raw ids behind rows and columns (train / val / test users, items).

    `df` may be a function returning the raw frame, called only when the filter runs. With
    `ck` (a `Resumable` over `STEPS` steps) each stage's result is handed to `ck.step`, and a
    saved state skips the stages it holds."""
    import pandas as pd

    st = (ck.load() if ck is not None else None) or {}
    at = ck.start if ck is not None else 0

    def boundary(done: int, state: Callable[[], dict[str, Any]]) -> None:
        if ck is not None:
            ck.step(done, state)

    # 1. binarise, filter
    if at < 1:
        binary = binarise(df() if callable(df) else df, threshold)
        n_binary = int(len(binary))
        df = filter_triplets(binary, min_uc, min_sc)
        del binary
        boundary(1, lambda: {"n_binary": n_binary, "filtered": _pack(df)})
    elif at == 1:
        n_binary, df = st["n_binary"], _unpack(st["filtered"])

    # 2. users permuted and split; the items of training users; the training matrix
    if at < 2:
        users = np.asarray(df.groupby("user").size().index)
        n_users = len(users)
        if n_users <= 2 * n_heldout:
            raise ValueError(f"{n_users} users after filtering: too few for 2 x {n_heldout} "
                             "held out")
        users = users[np.random.RandomState(split_seed).permutation(n_users)]
        train = df[df["user"].isin(users[: n_users - 2 * n_heldout])]
        items = pd.unique(train["item"])
    else:
        users, items = st["users"], st["items"]
        n_users = len(users)
    tr_users = users[: n_users - 2 * n_heldout]
    vd_users = users[n_users - 2 * n_heldout: n_users - n_heldout]
    te_users = users[n_users - n_heldout:]
    item_id = {s: i for i, s in enumerate(items)}
    user_id = {u: i for i, u in enumerate(users)}

    def pairs(part: pd.DataFrame, start: int) -> tuple[np.ndarray, np.ndarray]:
        rows = part["user"].map(user_id).to_numpy(dtype=np.int64) - start
        cols = part["item"].map(item_id).to_numpy(dtype=np.int64)
        return rows, cols

    def to_csr(rows: np.ndarray, cols: np.ndarray, n_rows: int) -> CSR:
        return CSR.from_pairs(rows, cols, n_rows, len(items))

    groups = (("val", vd_users, len(tr_users)), ("test", te_users, len(tr_users) + n_heldout))
    packed: dict[str, Any] = st.get("plays", {})  # the held-out plays as saved (packed once)

    def base() -> dict[str, Any]:
        """The state from stage 2 on: what the fold-in and the outputs need."""
        if not packed:
            packed.update({k: _pack(v) for k, v in plays.items()})
        return {"users": users, "items": items, "stats": dict(stats), "plays": packed,
                "train": (out["train"].indptr, out["train"].indices)}

    if at < 2:
        out = {"train": to_csr(*pairs(train, 0), len(tr_users))}
        stats: dict[str, Any] = {
            "interactions_binarised": n_binary,
            "interactions": int(len(df)), "users": int(n_users), "items": int(len(items)),
            "train_users": int(len(tr_users)), "heldout_users": int(n_heldout),
            "train_interactions": int(len(train)),
        }
        plays = {name: df[df["user"].isin(group) & df["item"].isin(item_id)]
                 for name, group, _ in groups}
        del df, train
        boundary(2, base)
    else:
        out = {"train": CSR(*st["train"], len(items))}
        stats, plays = dict(st["stats"]), {k: _unpack(v) for k, v in packed.items()}

    # 3. fold-in, group by group, in chunks of users (one RandomState per group, carried over)
    parts: dict[str, list[tuple[np.ndarray, np.ndarray]]] = st.get("parts", {})
    for g, (name, _, start) in enumerate(groups):
        first = 2 + g * FOLD_IN_CHUNKS  # the step before this group's first chunk
        if at < first + FOLD_IN_CHUNKS:
            p = plays[name]
            chunks = np.array_split(np.asarray(p.groupby("user").size().index), FOLD_IN_CHUNKS)
            rs = np.random.RandomState(split_seed)
            if at > first:
                rs.set_state(st["rs"])
            else:
                parts[f"{name}_tr"], parts[f"{name}_te"] = [], []
            for c in range(max(at - first, 0), FOLD_IN_CHUNKS):
                tr, te = split_fold_in(p[p["user"].isin(chunks[c])], test_prop, rs)
                parts[f"{name}_tr"].append(pairs(tr, start))
                parts[f"{name}_te"].append(pairs(te, start))
                boundary(first + c + 1,
                         lambda rs=rs: {**base(), "parts": parts, "rs": rs.get_state()})
        for half in ("tr", "te"):
            k = f"{name}_{half}"
            rows, cols = (np.concatenate(a) for a in zip(*parts[k], strict=True))
            out[k] = to_csr(rows, cols, n_heldout)
            stats[f"{k}_interactions"] = int(len(rows))
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
    import pyarrow.parquet as pq

    from repro.core.checkpoint import Resumable, settings_key

    seed = protocol.seed_of_split(a.split)
    key = {"job": "vaecf.data", "dataset": a.dataset, "split": a.split,
           "data": settings_key(asdict(d)), "data_protocol": settings_key(asdict(protocol))}
    with Resumable(a.out, key, total=STEPS, inputs=[a.interactions],
                   what=f"{a.dataset} split {a.split}") as ck:
        # the raw file is read by the filter stage only: a job resumed past it never reads it
        mats, stats, _ = liang_split(lambda: pd.read_parquet(a.interactions), d.threshold,
                                     d.min_uc, d.min_sc, d.n_heldout, protocol.test_prop, seed,
                                     ck=ck)
        stats.update(dataset=a.dataset, split=a.split, split_seed=seed,
                     raw_interactions=int(pq.read_metadata(a.interactions).num_rows),
                     **asdict(d))
        save(a.out, mats, split=a.split, split_seed=seed)
        write_json(a.stats, stats)


if __name__ == "__main__":
    main()
