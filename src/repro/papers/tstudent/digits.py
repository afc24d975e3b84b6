"""Real-data case: the student learns the first layer of a CNN trained on images (the paper's
MNIST experiment in miniature: sklearn's digits at tiny/small, MNIST at full).

    python -m repro.papers.tstudent.digits --stage fetch --config ... --scale small \\
        --out data/tstudent/small/images.npz
    python -m repro.papers.tstudent.digits --stage cnn --config ... --scale small \\
        --data data/tstudent/small/images.npz --out results/small/tstudent/digits/cnn.json
    python -m repro.papers.tstudent.digits --stage student --config ... --scale small \\
        --data ... --cnn .../cnn.json --seed 0 --out results/small/tstudent/runs/digits/seed0.json

Images -> tokens: an image (side x side, intensities in [0, 1]) is cut into patch x patch
patches, a grid of D = (side/patch)^2 tokens of dimension d = patch^2, standardised with the
training set's mean and sd. The CNN: its first layer is the paper's "convolution with average
pooling" teacher on those tokens (a 2x2 average pooling over the token grid with circular
padding, a 1x1 convolution V* to `channels` maps, ReLU), then a linear classifier on the
flattened maps. It is trained with Adam on cross-entropy. The student is the paper's (zero
init, online GD on fresh N(0, I) batches labelled by the CNN's first layer, or on real images
with `train_inputs: images`), and is then evaluated on held-out real images: its excess loss
there, and the accuracy of the CNN's classifier fed the student's features.

Data (`digits.source`): `digits` = scikit-learn's 8x8 digits (shipped with the package, no
download), upsampled to 24x24; `mnist` (full only) = MNIST's idx files, read from
`<mirror>/mnist/` when present, else downloaded from the URLs in the config, centre-cropped
to 24x24. Every file is checked against the paper's `manifest.json` (repro.core.manifest:
the digits file inside scikit-learn, MNIST's published md5s) before it is read.

Resumable (repro.core.checkpoint), beside `--out`: the CNN saves its state (weights, Adam's
moments, the shuffling generator) after every epoch, the student after a GD step every
REPRO_CHECKPOINT_MINUTES minutes (`train.run_student`); both save on SIGTERM / SIGINT, and a
rerun goes on from the saved state and writes the same bytes as an uninterrupted run.
"""

from __future__ import annotations

import dataclasses
import gzip
import urllib.request
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from repro.core.config import job_parser
from repro.core.io import atomic_path, read_json, write_json
from repro.core.progress import get_logger
from repro.papers.tstudent.settings import DigitsConfig, MnistConfig, load

if TYPE_CHECKING:
    from repro.core.checkpoint import Resumable
    from repro.core.manifest import Manifest

log = get_logger("tstudent.digits")
DIGITS_KEY = "sklearn/datasets/data/digits.csv.gz"  # the manifest's entry for sklearn's digits


# ---------------------------------------------------------------------------------- fetch ----


def load_digits_images(upsample: int, manifest: Manifest
                       ) -> tuple[np.ndarray, np.ndarray, dict[str, Any]]:
    """sklearn's 1,797 8x8 digits in [0, 1], bilinearly upsampled by `upsample` (the file
    `load_digits` reads is checked against the manifest first)."""
    from repro.core.manifest import package_file

    e = manifest.entry(DIGITS_KEY)
    manifest.verify(DIGITS_KEY, package_file(e["module"], e["member"]))
    import torch
    import torch.nn.functional as F
    from sklearn.datasets import load_digits

    d = load_digits()
    imgs = torch.tensor(d.images / 16.0, dtype=torch.float32)[:, None]
    size = 8 * upsample
    up = F.interpolate(imgs, size=(size, size), mode="bilinear", align_corners=False)[:, 0]
    return up.numpy(), d.target.astype(np.int64), {
        "source": "digits", "provider": "sklearn.datasets.load_digits", "n": len(d.target),
        "size": size}


def _read_idx(raw: bytes) -> np.ndarray:
    """Parse an (un)gzipped idx file: magic (0, 0, dtype 0x08, ndim), big-endian dims, data."""
    if raw[:2] == b"\x1f\x8b":
        raw = gzip.decompress(raw)
    if raw[0] != 0 or raw[1] != 0 or raw[2] != 0x08:
        raise ValueError("not an idx file of unsigned bytes")
    ndim = raw[3]
    dims = [int.from_bytes(raw[4 + 4 * i: 8 + 4 * i], "big") for i in range(ndim)]
    return np.frombuffer(raw, dtype=np.uint8, offset=4 + 4 * ndim).reshape(dims)


def fetch_mnist(cfg: MnistConfig, mirror: Path, scale: str, manifest: Manifest) -> tuple[
        np.ndarray, np.ndarray, np.ndarray, np.ndarray, dict[str, Any]]:
    """MNIST's four idx files from the mirror, else from the first reachable URL (full only),
    each checked against the manifest (entry `<mirror_dir>/<file>`) before it is parsed."""
    if scale != "full":
        raise SystemExit("MNIST is the full-scale data set: use `digits.source: digits` at "
                         f"scale {scale}")
    arrays, where = {}, {}
    for key, name in cfg.files.items():
        entry = f"{cfg.mirror_dir}/{name}"
        local = mirror / entry
        if local.exists():
            manifest.verify(entry, local)
            arrays[key], where[key] = _read_idx(local.read_bytes()), f"mirror:{local}"
            continue
        errors = []
        for base in cfg.base_urls:
            try:
                with urllib.request.urlopen(base + name, timeout=60) as resp:  # noqa: S310
                    raw = resp.read()
            except OSError as e:
                errors.append(f"{base}: {e}")
                continue
            manifest.verify_bytes(entry, raw, base + name)
            arrays[key], where[key] = _read_idx(raw), base + name
            break
        if key not in arrays:
            raise SystemExit(f"MNIST file {name} is neither in {local.parent} nor downloadable "
                             f"({'; '.join(errors)}): put MNIST's idx files in {local.parent}")
    return (arrays["train_images"] / 255.0, arrays["train_labels"].astype(np.int64),
            arrays["test_images"] / 255.0, arrays["test_labels"].astype(np.int64),
            {"source": "mnist", "files": where})


def to_tokens(images: np.ndarray, patch: int) -> np.ndarray:
    """(N, side, side) -> (N, patch^2, (side/patch)^2): patches in row-major grid order, each
    flattened row-major; token j is column j (the paper's X in R^{d x D})."""
    N, side, _ = images.shape
    g = side // patch
    x = images.reshape(N, g, patch, g, patch).transpose(0, 2, 4, 1, 3)
    return np.ascontiguousarray(x.reshape(N, patch * patch, g * g))


def centre_crop(images: np.ndarray, size: int) -> np.ndarray:
    off = (images.shape[1] - size) // 2
    return images[:, off:off + size, off:off + size]


def fetch(cfg: DigitsConfig, mirror: Path, scale: str, out: Path, manifest: Manifest
          ) -> dict[str, Any]:
    """Write train/test tokens (standardised with training statistics) and labels to `out`."""
    if cfg.source == "digits":
        imgs, labels, src = load_digits_images(cfg.upsample, manifest)
        rng = np.random.default_rng(cfg.split_seed)
        perm = rng.permutation(len(labels))
        n_test = int(round(cfg.test_fraction * len(labels)))
        te, tr = perm[:n_test], perm[n_test:]
        xtr, ytr, xte, yte = imgs[tr], labels[tr], imgs[te], labels[te]
    elif cfg.source == "mnist":
        xtr, ytr, xte, yte, src = fetch_mnist(cfg.mnist, mirror, scale, manifest)
        xtr, xte = centre_crop(xtr, cfg.crop), centre_crop(xte, cfg.crop)
    else:
        raise SystemExit(f"digits.source {cfg.source!r}: allowed are digits, mnist")
    if xtr.shape[1] % cfg.patch:
        raise SystemExit(f"image side {xtr.shape[1]} is not a multiple of patch {cfg.patch}")
    ttr, tte = to_tokens(xtr, cfg.patch), to_tokens(xte, cfg.patch)
    mu, sd = float(ttr.mean()), float(ttr.std())
    ttr, tte = (ttr - mu) / sd, (tte - mu) / sd
    with atomic_path(out) as tmp:
        with open(tmp, "wb") as f:
            np.savez_compressed(f, train_x=ttr.astype(np.float32), train_y=ytr,
                                test_x=tte.astype(np.float32), test_y=yte)
    src.update(n_train=len(ytr), n_test=len(yte), tokens=list(ttr.shape[1:]), mean=mu, sd=sd)
    return src


# ------------------------------------------------------------------------------------ CNN ----


def first_layer(V: Any, side: int, window: int) -> Any:
    """The CNN's first layer as a teacher object (conv with average pooling, ReLU)."""
    from repro.papers.tstudent.teachers import Teacher, conv_selection

    return Teacher(kind="conv", D=side * side, d=V.shape[1], K=window * window, act="relu",
                   V=V, S=conv_selection(side, window), meta={"side": side, "window": window})


def train_cnn(cfg: DigitsConfig, data: dict[str, np.ndarray], ck: Resumable | None = None
              ) -> dict[str, Any]:
    """Train first layer + linear classifier with Adam; return V*, the head and accuracies.

    With `ck` (an open `Resumable` block of `cnn.epochs` steps) the epochs are its steps: the
    weights, Adam's state and the shuffling generator are its state (an epoch's batches follow
    one permutation, so an epoch is the unit; MNIST's takes seconds)."""
    import torch

    from repro.papers.tstudent.teachers import unit_value

    c = cfg.cnn
    torch.manual_seed(c.seed)
    xtr = torch.tensor(data["train_x"], dtype=torch.float64)
    ytr = torch.tensor(data["train_y"])
    xte = torch.tensor(data["test_x"], dtype=torch.float64)
    yte = torch.tensor(data["test_y"])
    d, D = xtr.shape[1:]
    side, window, C = int(round(D**0.5)), cfg.window, cfg.channels
    rng = np.random.default_rng(c.seed)
    V = unit_value(C, d, rng).requires_grad_(True)
    head = torch.nn.Linear(C * D, 10, dtype=torch.float64)
    opt = torch.optim.Adam([V, *head.parameters()], lr=c.lr, weight_decay=c.weight_decay)

    def logits(x: torch.Tensor, Vm: torch.Tensor) -> torch.Tensor:
        return head(first_layer(Vm, side, window).forward(x).flatten(1))

    g = torch.Generator().manual_seed(c.seed)
    first = 0
    if ck is not None:
        ck.rngs["shuffle"] = g
        saved = ck.load()
        if saved is not None:
            with torch.no_grad():
                V.copy_(saved["V"])
            head.load_state_dict(saved["head"])
            opt.load_state_dict(saved["opt"])
        first = ck.start
    for epoch in range(first, c.epochs):
        perm = torch.randperm(len(ytr), generator=g)
        for i in range(0, len(ytr), c.batch_size):
            idx = perm[i:i + c.batch_size]
            loss = torch.nn.functional.cross_entropy(logits(xtr[idx], V), ytr[idx])
            opt.zero_grad()
            loss.backward()
            opt.step()
        log.info(f"cnn epoch {epoch + 1}/{c.epochs}: loss {float(loss):.4f}")
        if ck is not None:
            ck.step(epoch + 1, lambda: {"V": V.detach(), "head": head.state_dict(),
                                        "opt": opt.state_dict()})
    with torch.no_grad():
        acc_tr = float((logits(xtr, V).argmax(1) == ytr).double().mean())
        acc_te = float((logits(xte, V).argmax(1) == yte).double().mean())
    return {"V": V.detach().tolist(), "head_weight": head.weight.detach().tolist(),
            "head_bias": head.bias.detach().tolist(), "side": side, "window": window,
            "train_accuracy": acc_tr, "test_accuracy": acc_te}


# -------------------------------------------------------------------------------- student ----


def student_run(cfg: DigitsConfig, data: dict[str, np.ndarray], cnn: dict[str, Any], seed: int,
                ck: Resumable | None = None) -> dict[str, Any]:
    """The paper's student on the CNN's first layer; evaluated on held-out real images (`ck`:
    a `Resumable` block over the student's GD steps, `train.run_student`)."""
    import torch

    from repro.papers.tstudent.student import empirical_loss
    from repro.papers.tstudent.train import run_student

    run = cfg.student
    V = torch.tensor(cnn["V"], dtype=torch.float64)
    teacher = first_layer(V, cnn["side"], cnn["window"])
    W = torch.tensor(cnn["head_weight"], dtype=torch.float64)
    b = torch.tensor(cnn["head_bias"], dtype=torch.float64)
    xte = torch.tensor(data["test_x"], dtype=torch.float64)
    yte = torch.tensor(data["test_y"])
    with torch.no_grad():
        teacher_pred = (teacher.forward(xte).flatten(1) @ W.T + b).argmax(1)
    teacher_acc = float((teacher_pred == yte).double().mean())

    def real_excess(st: Any) -> float:
        return empirical_loss(st, teacher, xte)

    def accuracy(st: Any) -> float:
        with torch.no_grad():
            pred = (st.forward(xte).flatten(1) @ W.T + b).argmax(1)
        return float((pred == yte).double().mean())

    sampler = None
    if run.train_inputs == "images":  # real training images, drawn with replacement
        xtr = torch.tensor(data["train_x"], dtype=torch.float64)

        def sampler(B: int, gen: torch.Generator) -> torch.Tensor:
            return xtr[torch.randint(len(xtr), (B,), generator=gen)]

    result = run_student(teacher, run, seed, extra_eval={"real_excess": real_excess,
                                                         "accuracy": accuracy},
                         sampler=sampler, log=log.info, ck=ck)
    f = result["final"]
    f["teacher_accuracy"] = teacher_acc
    f["accuracy_ratio"] = f["accuracy"] / teacher_acc if teacher_acc > 0 else float("nan")
    f["agreement"] = float(_agreement(result, teacher, xte, W, b))
    return result


def _agreement(result: dict[str, Any], teacher: Any, xte: Any, W: Any, b: Any) -> float:
    """Fraction of held-out images on which the student-fed CNN predicts the teacher's class."""
    import torch

    from repro.papers.tstudent.teachers import bilinear_output

    A = torch.tensor(result["attention"], dtype=torch.float64)
    Wv = torch.tensor(result["W_V"], dtype=torch.float64)
    with torch.no_grad():
        ps = (bilinear_output(xte, Wv, A, "relu").flatten(1) @ W.T + b).argmax(1)
        pt = (teacher.forward(xte).flatten(1) @ W.T + b).argmax(1)
    return float((ps == pt).double().mean())


def main(argv: list[str] | None = None) -> None:
    ap = job_parser(__doc__.splitlines()[0], log=True)
    ap.add_argument("--stage", required=True, choices=["fetch", "cnn", "student"])
    from repro.core.fetch import NO_MIRROR, mirror_arg  # argument parsing only: not a rule input
    mirror_arg(ap)
    ap.add_argument("--data", type=Path)
    ap.add_argument("--cnn", type=Path)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args(argv)
    args.mirror = args.mirror or NO_MIRROR  # no data mirror configured: never found
    cfg = load(args.config, args.scale)

    if args.stage == "fetch":
        from repro.core.manifest import Manifest

        src = fetch(cfg.digits, args.mirror, args.scale, args.out,
                    Manifest.for_config(args.config))
        write_json(args.out.with_name("source.json"), src)
        log.info(f"wrote {args.out}: {src}")
        return
    import torch  # noqa: F401  (so seed_everything / limit_cpu_threads see it)

    from repro.core.checkpoint import Resumable, settings_key
    from repro.core.device import limit_cpu_threads
    from repro.core.seeding import seed_everything

    limit_cpu_threads(1)
    data = dict(np.load(args.data))
    dc = cfg.digits
    # what each stage depends on: the settings it reads, its arguments and its input files
    if args.stage == "cnn":
        seed_everything(dc.cnn.seed)
        key = {"job": "tstudent.cnn", "settings": settings_key(
            {"cnn": dataclasses.asdict(dc.cnn), "window": dc.window, "channels": dc.channels})}
        with Resumable(args.out, key, every=1, total=dc.cnn.epochs, inputs=[args.data],
                       what="tstudent cnn") as ck:
            res = train_cnn(dc, data, ck)
            log.info(f"cnn: train acc {res['train_accuracy']:.4f}, "
                     f"test acc {res['test_accuracy']:.4f}")
            write_json(args.out, res)
    else:
        seed_everything(args.seed)
        key = {"job": "tstudent.digits", "seed": args.seed,
               "settings": settings_key({"student": dataclasses.asdict(dc.student)})}
        with Resumable(args.out, key, total=dc.student.iterations,
                       inputs=[args.data, args.cnn], what=f"tstudent digits seed {args.seed}"
                       ) as ck:
            res = student_run(dc, data, read_json(args.cnn), args.seed, ck)
            res.update(setting="digits", seed=args.seed, scale=args.scale)
            write_json(args.out, res)
    log.info(f"wrote {args.out}")


if __name__ == "__main__":
    main()
