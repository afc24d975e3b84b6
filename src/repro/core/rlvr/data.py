"""Fetch or generate the Countdown problems: `train.jsonl`, `test.jsonl`, `source.json`.

    python -m repro.core.rlvr.data --config src/repro/papers/<paper>/config.yaml --scale small \
        [--mirror DIR] --out data/<paper>/small

- `source: hub` (full): train = the first `hub_train_size` rows of Jiayi-Pan/Countdown-Tasks-3to4
  on the HF hub (TinyZero's split), or of the optional data mirror's `countdown/train.parquet`;
  test = the paper's fixed test set, downloaded from `test_url` (repro.core.fetch: cache, data
  mirror, URL), else rebuilt as TinyZero's test slice of the hub dataset.
  Test problems are removed from train by key.
- `source: generator` (tiny/small): a seeded TinyZero-style generator with small numbers that a
  ~0.5M-parameter character model can work with; train and test are disjoint by key.

Every file read (the mirror's test and train parquet, a downloaded test set) and the hub rows are
checked against the paper's data manifest (its folder's `manifest.json`, repro.core.manifest)
before use; a mismatch stops the job with one line and nothing is written.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from repro.core.config import job_parser, load_settings, typed
from repro.core.io import write_json, write_text
from repro.core.progress import get_logger
from repro.core.rlvr.countdown import Problem, generate_problems
from repro.core.seeding import seed_everything

if TYPE_CHECKING:
    from repro.core.manifest import Manifest

log = get_logger("rlvr.data")


@dataclass
class CountdownData:
    """The `countdown.data` block: where the problems come from and how many."""

    source: str  # generator (seeded, tiny/small) | hub (the hub dataset + a fixed test set)
    n_test: int  # test problems (hub: the size of the fallback test slice)
    n_numbers: tuple[int, int] = (3, 3)  # generator: numbers per problem (min, max)
    max_number: int = 9  # generator: numbers drawn from 1..max_number
    min_target: int = 1  # generator: targets kept in [min_target, max_target]
    max_target: int = 30
    n_train: int = 0  # generator: train problems
    hub_dataset: str = ""  # hub: the HF dataset of train problems
    hub_revision: str | None = None  # hub: its revision (None: the default branch)
    hub_train_size: int = 0  # hub: train = the first this many rows (minus test problems)
    test_file: str = ""  # hub: the test set's manifest key (its path in a data mirror)
    test_url: str = ""  # hub: where the test set is downloaded from
    train_file: str = "countdown/train.parquet"  # hub: an offline copy of the rows (mirror)


def _jsonl(problems: list[Problem]) -> str:
    return "".join(json.dumps(p.to_json()) + "\n" for p in problems)


def _frame_to_problems(df: Any) -> list[Problem]:
    return [
        Problem(tuple(int(x) for x in n), int(t))
        for n, t in zip(df["nums"], df["target"], strict=True)
    ]


def _generated(
    cfg: CountdownData, seed: int
) -> tuple[list[Problem], list[Problem], dict[str, Any]]:
    rng = seed_everything(seed)
    kw = {
        "n_numbers": tuple(cfg.n_numbers),
        "max_number": cfg.max_number,
        "min_target": cfg.min_target,
        "max_target": cfg.max_target,
    }
    # one pool of distinct problems, split at random: drawing the test set first would make it
    # easier than train (the first draws favour targets that many equations reach)
    pool = generate_problems(cfg.n_train + cfg.n_test, rng, **kw)
    order = rng.permutation(len(pool))
    test = [pool[int(i)] for i in order[: cfg.n_test]]
    train = [pool[int(i)] for i in order[cfg.n_test :]]
    src = {
        "source": "generator",
        "seed": seed,
        **{k: list(v) if isinstance(v, tuple) else v for k, v in kw.items()},
    }
    return train, test, src


def _hub_rows(cfg: CountdownData, train_file: Path) -> Any:
    """The hub dataset's train split as a pandas frame: via `datasets` when installed, else the
    split's parquet files via `huggingface_hub` (both imported lazily: full scale only).
    `train_file` is where an offline copy of those rows would go (the errors name it)."""
    name, rev = cfg.hub_dataset, cfg.hub_revision
    try:
        try:
            from datasets import load_dataset
        except ImportError:
            return _hub_parquet(name, rev)
        return load_dataset(name, split="train", revision=rev).to_pandas()
    except ImportError:
        raise SystemExit(
            "fetching Countdown from the HF hub needs `datasets` or `huggingface_hub`: "
            "pip install -e '.[full]'"
        ) from None
    except Exception as e:  # noqa: BLE001 - network errors come in many types
        raise SystemExit(
            f"cannot fetch {name} from the HF hub ({e.__class__.__name__}): check the network, "
            "set HF_ENDPOINT to a reachable mirror, or put the dataset's rows in "
            f"{train_file.resolve()}"
        ) from None


def _hub_parquet(name: str, rev: str | None) -> Any:
    import pandas as pd
    from huggingface_hub import HfApi, hf_hub_download

    files = sorted(
        f
        for f in HfApi().list_repo_files(name, repo_type="dataset", revision=rev)
        if f.endswith(".parquet") and "train" in Path(f).name
    )
    if not files:
        raise FileNotFoundError(f"no train parquet files in {name}")
    paths = [hf_hub_download(name, f, repo_type="dataset", revision=rev) for f in files]
    return pd.concat([pd.read_parquet(p) for p in paths], ignore_index=True)


def _hub(
    cfg: CountdownData, mirror: Path | None, manifest: Manifest, cache: Path
) -> tuple[list[Problem], list[Problem], dict[str, Any]]:
    import pandas as pd

    from repro.core.fetch import NO_MIRROR, obtain
    from repro.core.manifest import DataError

    n_train = cfg.hub_train_size
    src: dict[str, Any] = {"source": "hub", "train": f"{cfg.hub_dataset}[:{n_train}]"}
    train_file = (mirror or NO_MIRROR) / cfg.train_file
    rows = None
    try:
        path, src["test"] = obtain(manifest, cfg.test_file, cfg.test_url, mirror=mirror,
                                   cache=cache)
        test = _frame_to_problems(pd.read_parquet(path))
    except DataError as e:  # unreachable: TinyZero's own test slice of the hub rows
        log.info("%s; using the hub test slice instead", e)
        rows = _hub_rows(cfg, train_file)
        manifest.verify_frame(cfg.hub_dataset, rows, f"hub:{cfg.hub_dataset}")
        test = _frame_to_problems(rows.iloc[n_train : n_train + cfg.n_test])
        src["test"] = f"{cfg.hub_dataset}[{n_train}:{n_train + cfg.n_test}]"
    if rows is None and mirror is not None and train_file.exists():  # offline rows
        manifest.verify(cfg.train_file, train_file)
        rows = pd.read_parquet(train_file)
        src["train"] = f"mirror:{train_file}[:{n_train}]"
    elif rows is None:
        rows = _hub_rows(cfg, train_file)
        manifest.verify_frame(cfg.hub_dataset, rows, f"hub:{cfg.hub_dataset}")
    held = {p.key() for p in test}
    train = [p for p in _frame_to_problems(rows.iloc[:n_train]) if p.key() not in held]
    return train, test, src


def main(argv: list[str] | None = None) -> None:
    ap = job_parser(__doc__.splitlines()[0])
    from repro.core.fetch import mirror_arg  # fetch code: imported where the job runs

    mirror_arg(ap)
    args = ap.parse_args(argv)
    settings = load_settings(args.config, args.scale)
    cfg = typed(CountdownData, settings["countdown"]["data"], "countdown.data")
    seed = int(settings["seeds"][0])
    if cfg.source == "generator":
        train, test, src = _generated(cfg, seed)
    elif cfg.source == "hub":
        from repro.core.manifest import Manifest  # the generator (tiny/small) reads no file

        train, test, src = _hub(cfg, args.mirror, Manifest.for_config(args.config),
                                Path(args.out) / "raw")
    else:
        raise SystemExit(f"countdown.data.source {cfg.source!r} is not one of generator, hub")
    out = Path(args.out)
    src.update(n_train=len(train), n_test=len(test))
    write_text(out / "train.jsonl", _jsonl(train))
    write_text(out / "test.jsonl", _jsonl(test))
    write_json(out / "source.json", src)  # last: its presence means the other two are complete
    log.info(
        "countdown data: %d train, %d test (%s) -> %s", len(train), len(test), src["source"], out
    )


if __name__ == "__main__":
    main()
