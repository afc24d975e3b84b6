"""PS/PM's whole DAG at tiny scale and its outputs, the small and full plans, a bad config,
edit plans (an edit reruns exactly the jobs that depend on it), and the full scale's SASSEC
reader on a SASSEC-shaped folder."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
import yaml
from conftest import REPO, copy_finished, copy_repo, edit, planned_jobs, snakemake

from repro.core.claims import load_claims


def _settings(root, scale="tiny"):
    from repro.core.config import resolve_scale

    raw = yaml.safe_load((root / "src/repro/papers/pspm/config.yaml").read_text())
    return resolve_scale(raw, scale)


def _plan(s):
    real = [d for d in s["datasets"] if d.startswith("sassec")]
    synth = len(s["datasets"]) - len(real)
    n = len(s["seeds"])
    plan = {"pspm_baselines": len(s["datasets"]) * n,
            "pspm_score": len(s["datasets"]) * n * len(s["encoders"]),
            "pspm_report": 1, "paper_pspm": 1}
    if synth:
        plan["pspm_synth"] = synth * n
    if real:
        plan.update({"pspm_fetch": 1, "pspm_sassec": len(real) * n})
    return plan


def test_plans_cover_the_whole_dag_at_every_scale(fresh_repo):
    for scale in ("tiny", "small", "full"):
        assert planned_jobs(fresh_repo, "paper_pspm", scale=scale) == _plan(
            _settings(fresh_repo, scale))
    small, full = _settings(fresh_repo, "small"), _settings(fresh_repo, "full")
    assert small["seeds"] == [0, 1, 2] and small["encoders"] == ["logmel", "raw"]
    assert small["datasets"] == ["speech_en", "speech_es", "music"]
    # the paper's setting: wav2vec2-large layer 2 on SASSEC's systems
    assert full["encoders"] == ["wav2vec2"] and full["layer"] == 2
    assert full["datasets"] == ["sassec_en", "sassec_es", "sassec_music"]


def test_a_wrong_encoder_is_rejected_before_any_job(tmp_path):
    root = copy_repo(tmp_path / "repo")
    cfg = root / "src/repro/papers/pspm/config.yaml"
    cfg.write_text(cfg.read_text().replace("encoders: [logmel, raw]", "encoders: [mfcc]", 1))
    proc = snakemake(root, "-n", "paper_pspm", check=False, papers="pspm")
    assert proc.returncode != 0
    assert "encoders" in proc.stderr and "'mfcc'" in proc.stderr


def test_tiny_dag_outputs(tiny_pspm):
    out = tiny_pspm / "results/tiny/pspm"
    s = _settings(tiny_pspm)
    main = pd.read_csv(out / "tables/main.csv")
    assert len(main) == len(s["datasets"]) * 9  # PS, PM and 7 baselines per data set
    ps = main[(main["measure"] == "PS") & (main["data"] == "music")].iloc[0]
    assert ps["paper: Pearson with human MOS, SEBASS (best of PS/PM)"] == 0.8721  # labelled
    assert main[main["measure"] == "SIR"][
        "paper: Pearson with human MOS, SEBASS (best of PS/PM)"].isna().all()
    sc = json.loads((out / "scores/speech_en/seed0_logmel.json").read_text())
    z = np.load(tiny_pspm / "data/pspm/tiny/speech_en/seed0.npz")
    cells = len(s["synth"]["leakage_itr_db"]) * len(s["synth"]["distortion_p"])
    assert z["outputs0"].shape[:2] == (cells, 2) and sc["ps_bank"] == 71
    assert len(sc["records"]) == s["synth"]["mixtures"] * cells * 2
    for r in sc["records"]:
        assert 0 <= r["ps"] <= 1 and 0 <= r["pm"] <= 1 and r["frames"] > 0
        assert r["ps_radius"] >= 0 and r["pm_half"] >= 0
    clean = [r for r in sc["records"] if r["leak"] == 0 and r["dist"] == 0]
    worst = [r for r in sc["records"] if r["leak"] == 1 and r["dist"] == 1]
    assert min(r["ps"] for r in clean) > max(r["ps"] for r in worst)
    assert min(r["pm"] for r in clean) > max(r["pm"] for r in worst)
    music = json.loads((tiny_pspm / "data/pspm/tiny/music/seed0.json").read_text())
    assert music["mixtures"][0]["sources"] == ["bass", "lead", "drums"]
    claims = {c["id"]: c for c in load_claims(out / "claims.json")}
    assert {"ps_tracks_leakage", "pm_selective", "radius_small"} <= set(claims)
    assert claims["mos_correlation"]["verdict"] == "not testable at this scale"
    sel = pd.read_csv(out / "tables/selectivity.csv")
    assert set(sel["moves more with"].dropna()) <= {"leakage", "distortion"}
    assert (out / "figures/levels.png").stat().st_size > 10_000


@pytest.mark.parametrize("module, untouched", [
    ("engine", ("pspm_synth", "pspm_baselines")),  # score, report
    ("baselines", ("pspm_synth", "pspm_score")),  # baselines, report
    ("report", ("pspm_synth", "pspm_score", "pspm_baselines")),
])
def test_an_edit_reruns_exactly_what_depends_on_it(tiny_pspm, tmp_path, module, untouched):
    root = copy_finished(tiny_pspm, tmp_path / f"edit_{module}")
    edit(root / f"src/repro/papers/pspm/{module}.py")
    plan = _plan(_settings(root))
    for k in untouched:
        plan.pop(k)
    assert planned_jobs(root, "paper_pspm") == plan


def test_the_sassec_reader_takes_every_system_and_the_mos(tmp_path, monkeypatch):
    """Full's SASSEC path on a SASSEC-shaped folder: Signals/orig and Signals/<system>, the
    hand-placed MOS file joined per (item, system, source)."""
    from scipy.io import wavfile

    from repro.papers.pspm import data
    from repro.papers.pspm.settings import load

    monkeypatch.chdir(tmp_path)
    rng = np.random.default_rng(0)
    sig = tmp_path / "data/pspm/raw/SASSEC/Signals"
    for folder in ("orig", "AlgoA", "AlgoB"):
        (sig / folder).mkdir(parents=True)
        for mix in ("female_inst_sim", "male_inst_sim"):
            for k in (1, 2, 3, 4):
                x = 0.3 * rng.standard_normal(8000 + 80 * k)  # 0.5 s at 16 kHz, ragged
                wavfile.write(sig / folder / f"{mix}_{k}.wav", 16000, (x * 32767).astype(np.int16))
    (sig.parent / "mos.csv").write_text("item,system,source,mos\nmale_inst_sim,AlgoB,4,3.5\n")
    cfg = load(REPO / "src/repro/papers/pspm/config.yaml", "full")
    arrays, info = data.sassec(cfg, "sassec_es")  # Spanish = sources 3 and 4
    assert info["systems"] == ["AlgoA", "AlgoB"] and info["mos_found"]
    assert arrays["refs1"].shape == (2, 8000 + 80 * 3) and arrays["outputs1"].shape[:2] == (2, 2)
    assert arrays["mos1"][1, 1] == 3.5 and np.isnan(arrays["mos1"][0]).all()
    assert (arrays["leak0"] == -1).all()
