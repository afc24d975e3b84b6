"""Real-data inputs: covariance descriptors of images on SPD(5) (the paper's OCTMNIST case).

    python -m repro.papers.hadamard_dp.data --config src/repro/papers/hadamard_dp/config.yaml \\
        --scale small --out data/hadamard_dp/small/descriptors.npz

Writes descriptors.npz (X: (N, 5, 5), y: labels) and source.json beside it.

Data (`real.source`): `digits` = scikit-learn's 8x8 handwritten digits (shipped with the
package, used at tiny/small as a stand-in); `octmnist` = OCTMNIST (MedMNIST v2, 28x28 retinal
OCT, 4 classes), the paper's data, fetched at full through the `medmnist` package from its
official URL, or read from `<mirror>/medmnist/octmnist.npz` (the same file) when present.
Both are checked against the paper's `manifest.json` (repro.core.manifest: the digits
file inside scikit-learn, MedMNIST's published md5) before they are read.

Descriptor of an image I (H x W, intensities in [0, Imax]): the covariance over pixels of
f = (x/(W-1), y/(H-1), I/Imax, |dI/dx|/Imax, |dI/dy|/Imax), plus reg * I. Every feature lies
in [0, 1], so each variance is <= 1/4 and the eigenvalues lie in [reg, 5/4 + reg]. Hence, from
the intensity range alone (no data), every descriptor is within log-Euclidean distance
r = sqrt(5) * (log(5/4 + reg) - log(reg)) / 2 of the footpoint p0 = exp(c) I, c the midpoint
of the log-eigenvalue range: the ball radius behind the sensitivity 2r/n, and a footpoint
chosen without the data.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from repro.core.config import job_parser
from repro.core.io import atomic_path, write_json
from repro.core.progress import get_logger
from repro.papers.hadamard_dp.settings import MedmnistConfig, RealConfig, load

if TYPE_CHECKING:
    from repro.core.manifest import Manifest

FEATURES = ["x", "y", "intensity", "|dI/dx|", "|dI/dy|"]
DIGITS_KEY = "sklearn/datasets/data/digits.csv.gz"  # the manifest's entry for sklearn's digits
M = len(FEATURES)


def covariance_descriptors(images: np.ndarray, imax: float, reg: float,
                           chunk: int = 2000) -> np.ndarray:
    """(N, H, W) images -> (N, 5, 5) regularised covariance descriptors (Tuzel et al. 2006),
    computed `chunk` images at a time (OCTMNIST's 97k images would not fit at once)."""
    N, H, W = np.shape(images)
    yy, xx = np.meshgrid(np.arange(H) / (H - 1), np.arange(W) / (W - 1), indexing="ij")
    out = np.empty((N, M, M))
    for s in range(0, N, chunk):
        imgs = np.asarray(images[s:s + chunk], dtype=float)
        gy, gx = np.gradient(imgs, axis=(1, 2))
        f = np.stack([np.broadcast_to(xx, imgs.shape), np.broadcast_to(yy, imgs.shape),
                      imgs / imax, np.abs(gx) / imax, np.abs(gy) / imax], axis=-1)
        f = f.reshape(len(imgs), H * W, M)
        centred = f - f.mean(axis=1, keepdims=True)
        out[s:s + chunk] = np.einsum("npi,npj->nij", centred, centred) / (H * W)
    return out + reg * np.eye(M)


def ball_of_descriptors(reg: float) -> tuple[float, float]:
    """(log-scale c of the footpoint exp(c) I, radius r) from the feature ranges alone."""
    lo, hi = math.log(reg), math.log(1.25 + reg)
    return (lo + hi) / 2.0, math.sqrt(M) * (hi - lo) / 2.0


def load_digits_images(manifest: Manifest
                       ) -> tuple[np.ndarray, np.ndarray, float, dict[str, Any]]:
    """sklearn's digits; the file `load_digits` reads is checked against the manifest first."""
    from repro.core.manifest import package_file

    e = manifest.entry(DIGITS_KEY)
    manifest.verify(DIGITS_KEY, package_file(e["module"], e["member"]))
    from sklearn.datasets import load_digits

    d = load_digits()
    return d.images, d.target, 16.0, {"source": "digits", "provider": "sklearn.datasets"}


def load_octmnist_images(cfg: MedmnistConfig, mirror: Path, raw: Path, manifest: Manifest
                         ) -> tuple[np.ndarray, np.ndarray, float, dict[str, Any]]:
    """OCTMNIST through MedMNIST's own fetch code, or its npz from the mirror; either file is
    checked against the manifest (entry `medmnist/<name>`) before it is read."""
    flag, split, size = cfg.flag, cfg.split, cfg.size
    name = f"{flag}.npz" if size == 28 else f"{flag}_{size}.npz"
    mirrored = mirror / "medmnist" / name
    if mirrored.exists():
        manifest.verify(f"medmnist/{name}", mirrored)
        with np.load(mirrored) as z:
            imgs, labels = z[f"{split}_images"], z[f"{split}_labels"]
        return imgs, labels.ravel(), 255.0, {"source": flag, "provider": f"mirror {mirrored}"}
    try:
        import medmnist
    except ImportError:
        raise SystemExit(f"OCTMNIST needs the medmnist package (pip install -e '.[full]') or "
                         f"{mirrored}") from None
    info = medmnist.INFO[flag]
    url = info.get("url" if size == 28 else f"url_{size}")
    raw.mkdir(parents=True, exist_ok=True)
    try:
        ds = getattr(medmnist, info["python_class"])(split=split, download=True, root=str(raw),
                                                     size=size)
    except Exception as e:  # network, checksum: one line that says what to do
        raise SystemExit(f"could not fetch {flag} from {url}: {e}; "
                         f"download it there or put {name} under {mirrored.parent}") from None
    manifest.verify(f"medmnist/{name}", raw / name)  # what medmnist downloaded and read
    return (np.asarray(ds.imgs), np.asarray(ds.labels).ravel(), 255.0,
            {"source": flag, "provider": "medmnist", "url": url})


def fetch(real: RealConfig, mirror: Path, out: Path, manifest: Manifest) -> dict[str, Any]:
    """Write the descriptors of the kept classes' images to `out`, their provenance and the
    footpoint and ball radius to source.json beside it; return that provenance. The input
    files are checked against `manifest` first (a mismatch: one line, nothing written)."""
    if real.source == "digits":
        imgs, labels, imax, src = load_digits_images(manifest)
    elif real.source == "octmnist":
        imgs, labels, imax, src = load_octmnist_images(real.medmnist, mirror, out.parent / "raw",
                                                       manifest)
    else:
        raise SystemExit(f"real.source {real.source!r}: allowed are digits, octmnist")
    keep = np.isin(labels, real.classes)
    imgs, labels = imgs[keep], labels[keep]
    cap = real.max_per_class
    if cap > 0:
        idx = np.concatenate([np.flatnonzero(labels == c)[:cap] for c in real.classes])
        imgs, labels = imgs[idx], labels[idx]
    X = covariance_descriptors(imgs, imax, float(real.reg))
    c, r = ball_of_descriptors(float(real.reg))
    with atomic_path(out) as tmp:
        with open(tmp, "wb") as f:
            np.savez_compressed(f, X=X, y=labels)
    src.update(images=int(len(X)), image_shape=list(imgs.shape[1:]), imax=imax,
               features=FEATURES, reg=float(real.reg), footpoint_log_scale=c, radius=r,
               per_class={str(k): int(np.sum(labels == k)) for k in real.classes})
    write_json(out.with_name("source.json"), src)
    return src


def main(argv: list[str] | None = None) -> None:
    ap = job_parser(__doc__.splitlines()[0], log=True)
    from repro.core.fetch import NO_MIRROR, mirror_arg  # argument parsing only: not a rule input
    mirror_arg(ap)
    a = ap.parse_args(argv)
    a.mirror = a.mirror or NO_MIRROR  # no data mirror configured: never found
    cfg = load(a.config, a.scale)
    log = get_logger("hadamard_dp.data", a.log)
    from repro.core.manifest import Manifest

    src = fetch(cfg.real, a.mirror, a.out, Manifest.for_config(a.config))
    log.info(f"wrote {a.out}: {src['images']} descriptors from {src['source']} "
             f"({src['provider']}), r={src['radius']:.3f}")


if __name__ == "__main__":
    main()
