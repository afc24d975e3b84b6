"""Data of the diffusion-DFL paper: the synthetic task's draws and the PJM power-scheduling
features, one npz per task.

    python -m repro.papers.diffdfl.data --config src/repro/papers/diffdfl/config.yaml \
        --scale small \
        --out data/diffdfl/small/power.npz

Synthetic: drawn from the paper's generator (official `generate_data_multi_dim`: every
coordinate of y is a two-mode mixture, independent of x), once, from `synthetic.data_seed`.
Power: the two PJM hourly load/temperature files the official repository ships
(`power_sched/pjm_load_data_*.txt`), downloaded from it at a pinned commit (or read from the
optional data mirror's `pjm/`; tiny reads a committed excerpt, the last 64 days of the 2012-16
file), checked against src/repro/papers/diffdfl/manifest.json before it is read. Features as the
official `load_data_with_features` (Donti et al. 2017): the previous day's 24 loads, its
temperatures and their squares, the next day's temperatures to the third power, weekend /
holiday / DST flags and the day of the year on the circle, all standardised; y is the next
day's 24 hourly loads.
"""

from __future__ import annotations

import io
from datetime import datetime, time, timedelta
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

import numpy as np

from repro.core.config import job_parser
from repro.core.io import atomic_path, write_json
from repro.papers.diffdfl.settings import PowerTask, SyntheticTask, load

TZ = ZoneInfo("America/New_York")


def synthetic_data(t: SyntheticTask) -> dict[str, np.ndarray]:
    """The synthetic task's (x, y): y's coordinates are independent two-mode mixtures."""
    rng = np.random.default_rng(t.data_seed)
    x = rng.standard_normal((t.n, t.x_dim))
    pos = rng.random((t.n, t.y_dim)) < t.p_pos
    eps = t.sigma * rng.standard_normal((t.n, t.y_dim))
    y = t.y_scale * np.where(pos, t.a_pos + eps, -t.b_neg + eps)
    return {"x": x.astype(np.float32), "y": y.astype(np.float32)}


def synthetic_law(t: SyntheticTask, n: int, seed: int) -> np.ndarray:
    """n draws of y from the true law (the same for every x): the Bayes-optimal reference."""
    return synthetic_data(SyntheticTask(**{**t.__dict__, "n": n, "data_seed": seed}))["y"]


def _read_pjm(path: Path) -> Any:
    import pandas as pd

    df = pd.read_csv(path, sep=r"\s+", header=None, usecols=[0, 1, 2],
                     names=["time", "load", "temp"])
    stamp = pd.to_datetime(df["time"], unit="s", utc=True).dt.tz_convert(TZ)
    df = df.assign(stamp=stamp, date=stamp.dt.date, hour=stamp.dt.hour)
    return df.drop_duplicates("stamp")


def power_features(paths: list[Path]) -> dict[str, np.ndarray]:
    """Official `load_data_with_features`, file by file, then concatenated and standardised."""
    import pandas as pd
    from pandas.tseries.holiday import USFederalHolidayCalendar

    holidays = {h.date() for h in USFederalHolidayCalendar().holidays(
        start="2008-01-01", end="2016-12-31").to_pydatetime()}
    xs, ys = [], []
    for path in paths:
        df = _read_pjm(path)
        load = df.pivot_table(index="date", columns="hour", values="load", aggfunc="first")
        temp = df.pivot_table(index="date", columns="hour", values="temp", aggfunc="first")
        load = load.bfill(axis=1).ffill(axis=1)
        temp = temp.bfill(axis=1).ffill(axis=1)
        dates = list(load.index)
        feat = pd.DataFrame({
            "weekend": [d.isoweekday() >= 6 for d in dates],
            "holiday": [d in holidays for d in dates],
            "dst": [datetime.combine(d, time.min, tzinfo=TZ).dst() > timedelta(0)
                    for d in dates],
            "cos_doy": [np.cos(d.timetuple().tm_yday / 365 * 2 * np.pi) for d in dates],
            "sin_doy": [np.sin(d.timetuple().tm_yday / 365 * 2 * np.pi) for d in dates],
        }).to_numpy(dtype=np.float64)
        lv, tv = load.to_numpy(np.float64), temp.to_numpy(np.float64)
        xs.append(np.hstack([lv[:-1], tv[:-1], tv[:-1] ** 2, tv[1:], tv[1:] ** 2, tv[1:] ** 3,
                             feat[1:]]))
        ys.append(lv[1:])
    x, y = np.concatenate(xs), np.concatenate(ys)
    keep = np.isfinite(x).all(1) & np.isfinite(y).all(1)
    x, y = x[keep], y[keep]
    sd = x.std(0)
    x = (x - x.mean(0)) / np.where(sd > 0, sd, 1.0)
    return {"x": x.astype(np.float32), "y": y.astype(np.float32)}


def pjm_files(t: PowerTask, scale: str, mirror: Path | None, raw: Path
              ) -> tuple[list[Path], dict[str, Any]]:
    """The PJM files: at tiny the committed excerpt, above it the official repository's files
    (pinned URL, the cache or the optional data mirror), each checked before it is read."""
    from repro.core.fetch import data_file
    from repro.core.manifest import Manifest

    manifest = Manifest.for_config(CONFIG)
    paths, provider = [], {}
    for name in t.files:
        path, provider[name] = data_file(manifest, f"pjm/{name}", scale, mirror=mirror,
                                         cache=raw, url=f"{t.url.rstrip('/')}/{name}")
        paths.append(path)
    return paths, provider


CONFIG = Path("src/repro/papers/diffdfl/config.yaml")


def main(argv: list[str] | None = None) -> None:
    global CONFIG
    ap = job_parser("diffdfl data: the synthetic draws or the PJM features")
    ap.add_argument("--task", required=True, choices=["synthetic", "power"])
    from repro.core.fetch import mirror_arg  # fetch code: imported where the job runs

    mirror_arg(ap)
    a = ap.parse_args(argv)
    CONFIG = a.config
    cfg = load(a.config, a.scale)
    if a.task == "synthetic":
        arrays = synthetic_data(cfg.synthetic)
        source = {"task": "synthetic", "source": "generator (the paper's, official "
                  "generate_data_multi_dim)", "data_seed": cfg.synthetic.data_seed}
    else:
        paths, provider = pjm_files(cfg.power, a.scale, a.mirror, a.out.parent / "raw")
        arrays = power_features(paths)
        if cfg.power.max_days:
            arrays = {k: v[-cfg.power.max_days:] for k, v in arrays.items()}
        source = {"task": "power", "source": "PJM hourly load (GT-KOALA/Diffusion_DFL "
                  "power_sched/)", "files": provider}
    source.update(n=int(len(arrays["y"])), x_dim=int(arrays["x"].shape[1]),
                  y_dim=int(arrays["y"].shape[1]))
    buf = io.BytesIO()
    np.savez(buf, **arrays)
    with atomic_path(a.out) as tmp:
        tmp.write_bytes(buf.getvalue())
    write_json(a.out.with_name(f"{a.task}_source.json"), source)


if __name__ == "__main__":
    main()
