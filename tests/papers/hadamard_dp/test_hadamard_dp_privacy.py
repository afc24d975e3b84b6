"""The empirical privacy check (with failing controls), the real-data descriptors and their
fetch code, and determinism of a grid cell."""

from __future__ import annotations

import copy
import json

import numpy as np
import pytest
import yaml
from conftest import REPO

from repro.core.config import resolve_scale
from repro.core.manifest import Manifest
from repro.papers.hadamard_dp import data as hdp_data
from repro.papers.hadamard_dp.experiment import run_cell
from repro.papers.hadamard_dp.geometry import get_metric
from repro.papers.hadamard_dp.mechanisms import analytic_gaussian_sigma
from repro.papers.hadamard_dp.privacy_check import delta_check, eps_check, run_check
from repro.papers.hadamard_dp.settings import settings_of


def _settings(scale: str = "tiny") -> dict:
    raw = yaml.safe_load((REPO / "src/repro/papers/hadamard_dp/config.yaml").read_text())
    return resolve_scale(raw, scale)


def test_eps_check_on_one_dimensional_laplace():
    rng = np.random.default_rng(0)
    n, eps = 200000, 1.0
    a, b = rng.laplace(0, 1 / eps, n), rng.laplace(1.0, 1 / eps, n)  # shift 1 = Delta
    ok = eps_check(a, b, eps, 40, 1000, 4.0)
    assert ok["excess_over_eps"] <= 0 and ok["max_abs_log_ratio"] > 0.8 * eps
    bad = eps_check(a, rng.laplace(3.0, 1 / eps, n), eps, 40, 1000, 4.0)  # a 3x larger shift
    assert bad["excess_over_eps"] > 0


def test_delta_check_on_one_dimensional_gaussian():
    rng = np.random.default_rng(1)
    n, eps, delta = 400000, 1.0, 0.05
    s = analytic_gaussian_sigma(eps, delta, 1.0)
    a, b = rng.normal(0, s, n), rng.normal(1.0, s, n)
    ok = delta_check(a, b, eps, delta, 400, 4.0)
    assert ok["excess_over_delta"] <= 0 and ok["hockey_stick"] > 0.5 * delta  # tight-ish
    bad = delta_check(a, rng.normal(4.0, s, n), eps, delta, 400, 4.0)  # a 4x larger shift
    assert bad["excess_over_delta"] > 0


def test_privacy_check_on_neighbouring_data_sets_holds_and_controls_fail():
    s = _settings("tiny")
    s["privacy"]["n_samples"] = 100000
    s["privacy"]["bins"] = 30
    s["privacy"]["min_count"] = 500
    out = run_check(settings_of(s), log=lambda *_: None)
    c = out["checks"]
    assert 0.5 < out["shift_over_sensitivity"] <= 1.0  # a near worst-case pair, within Delta
    assert out["tangent_shift"] <= out["dist_means"] + 1e-12  # Log_{p0} contracts
    assert c["ewl"]["excess_over_eps"] <= 0
    assert c["ewl_control"]["excess_over_eps"] > 0
    assert c["ewg"]["excess_over_delta"] <= 0
    assert c["ewg_control"]["excess_over_delta"] > 0
    assert {r["method"] for r in out["records"]} == {"ewl", "ewl_control", "ewg", "ewg_control"}


def test_descriptors_lie_in_the_ball_given_by_the_intensity_range():
    rng = np.random.default_rng(2)
    imgs = rng.integers(0, 17, size=(300, 8, 8)).astype(float)
    imgs[:5] = 0.0  # blank images: covariance of the coordinates only
    imgs[5:10] = 16.0 * (np.indices((8, 8)).sum(0) % 2)  # a checkerboard: large gradients
    reg = 0.01
    X = hdp_data.covariance_descriptors(imgs, 16.0, reg)
    w = np.linalg.eigvalsh(X)
    assert w.min() >= reg - 1e-12 and w.max() <= 1.25 + reg + 1e-12
    c, r = hdp_data.ball_of_descriptors(reg)
    g = get_metric("log_euclidean")
    p0 = np.exp(c) * np.eye(5)
    assert np.all(g.dist(np.broadcast_to(p0, X.shape), X) <= r + 1e-9)


def test_fetch_digits_and_octmnist_from_a_mirror(tmp_path):
    s = _settings("tiny")
    manifest = Manifest.load("hadamard_dp", REPO)
    src = hdp_data.fetch(settings_of(s).real, tmp_path / "mirror",
                         tmp_path / "digits" / "descriptors.npz", manifest)
    assert src["source"] == "digits" and src["images"] == 2 * 60
    with np.load(tmp_path / "digits" / "descriptors.npz") as z:
        assert z["X"].shape == (120, 5, 5) and set(z["y"].tolist()) == {0, 1}
    # OCTMNIST through the real loading code, from a mirror holding MedMNIST's own npz layout
    mirror = tmp_path / "mirror" / "medmnist"
    mirror.mkdir(parents=True)
    rng = np.random.default_rng(3)
    np.savez(mirror / "octmnist.npz",
             train_images=rng.integers(0, 256, size=(40, 28, 28), dtype=np.uint8),
             train_labels=rng.integers(0, 4, size=(40, 1)))
    s2 = copy.deepcopy(s)
    s2["real"]["source"] = "octmnist"
    with pytest.raises(SystemExit, match="octmnist.npz .*not the recorded one.*md5 c68d92d5"):
        hdp_data.fetch(settings_of(s2).real, tmp_path / "mirror",
                       tmp_path / "oct" / "descriptors.npz", manifest)  # not MedMNIST's file
    assert not (tmp_path / "oct").exists()
    manifest.record("medmnist/octmnist.npz", mirror / "octmnist.npz")  # this stand-in is
    src2 = hdp_data.fetch(settings_of(s2).real, tmp_path / "mirror",
                          tmp_path / "oct" / "descriptors.npz", manifest)
    assert src2["source"] == "octmnist" and src2["imax"] == 255.0
    assert json.loads((tmp_path / "oct" / "source.json").read_text())["image_shape"] == [28, 28]


def test_octmnist_without_medmnist_or_mirror_is_one_clear_error(tmp_path, monkeypatch):
    import sys

    monkeypatch.setitem(sys.modules, "medmnist", None)  # as if not installed
    s = _settings("tiny")
    s["real"]["source"] = "octmnist"
    with pytest.raises(SystemExit, match="medmnist"):
        hdp_data.fetch(settings_of(s).real, tmp_path / "nomirror",
                       tmp_path / "out" / "descriptors.npz", Manifest.load("hadamard_dp", REPO))
    assert not (tmp_path / "out" / "descriptors.npz").exists()


def test_grid_cell_is_deterministic():
    s = _settings("tiny")
    s["synthetic"]["mechanisms"] = ["ewg", "rl"]
    s["mcmc"]["n_steps"] = 30
    cfg = settings_of(s)
    a = run_cell(cfg, "log_cholesky", 2, log=lambda *_: None)
    b = run_cell(cfg, "log_cholesky", 2, log=lambda *_: None)
    assert a["errors"] == b["errors"] and a["footpoint_to_mean"] == b["footpoint_to_mean"]
    assert np.array(a["errors"]["rl"]).shape == (s["synthetic"]["reps"],
                                                 len(s["synthetic"]["mus"]))
