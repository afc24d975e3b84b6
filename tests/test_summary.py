"""`snakemake all`: every paper's DAG plus the cross-paper claims summary.

Built from the per-paper tiny runs the DAG tests share (each already ran its whole DAG), laid
over one repo copy: Snakemake must then see every paper as complete and run only the summary.
(Running `all` from scratch here would repeat those eight DAGs on one core: ~5 minutes.)
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest
from conftest import PAPERS, REPO, copy_finished, copy_repo, needs_programs, planned_jobs, snakemake

from repro.core.claims import load_claims

pytestmark = pytest.mark.slow
RUN_PRODUCTS = ("data", "results", "logs", ".snakemake/metadata")


def test_the_registry_is_the_paper_configs():
    assert PAPERS == sorted(p.parent.name
                            for p in (REPO / "src/repro/papers").glob("*/config.yaml"))
    assert {"rove", "nft", "relval", "hadamard_dp", "reap", "tstudent", "vaecf",
            "stackelberg"} <= set(PAPERS)


def test_a_paper_without_its_rule_file_stops_the_parse_with_one_line(tmp_path):
    root = copy_repo(tmp_path / "repo")
    (root / "src/repro/papers/relval/rules.smk").unlink()
    proc = snakemake(root, "-n", "all", check=False)
    assert proc.returncode != 0
    assert ("paper 'relval' (src/repro/papers/relval/config.yaml) has no "
            "src/repro/papers/relval/rules.smk") in proc.stderr


@pytest.fixture(scope="module")
def all_papers(request, tmp_path_factory):
    """One repo copy holding every paper's finished tiny run, before `snakemake all`."""
    runs = [request.getfixturevalue(f"tiny_{pid}") for pid in PAPERS]
    root = copy_finished(runs[0], tmp_path_factory.mktemp("all") / "all")
    for run in runs[1:]:  # the sources are the same files (same mtimes): add what each ran
        for d in RUN_PRODUCTS:
            if (run / d).is_dir():
                shutil.copytree(run / d, root / d, symlinks=True, copy_function=shutil.copy2,
                                dirs_exist_ok=True)
    return root


@pytest.fixture(scope="module")
def summarised(all_papers):
    """`snakemake all` run over every finished paper: it must run only the summary."""
    assert planned_jobs(all_papers, "all") == {"all": 1, "summary": 1}
    snakemake(all_papers, "all", "--cores", "1")
    return all_papers


def test_all_runs_only_the_summary_over_finished_papers(summarised):
    root = summarised
    text = (root / "results/tiny/summary.md").read_text()
    for pid in PAPERS:
        claims = load_claims(root / f"results/tiny/{pid}/claims.json")
        assert claims and text.count(f"| {pid} |") == len(claims), pid
        for c in claims:
            assert f"**{c['verdict']}**" in text
    # the figure: claims per paper by verdict
    assert (root / "results/tiny/summary.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert planned_jobs(root, "all") == {}


def _state(root: Path) -> dict[str, int]:
    return {str(p.relative_to(root)): p.stat().st_mtime_ns
            for d in ("results", "data") for p in (root / d).rglob("*") if p.is_file()}


@pytest.fixture(scope="module")
def html_report(summarised):
    """`snakemake all --report`: made from the finished artifacts alone (nothing recomputed,
    nothing touched)."""
    before = _state(summarised)
    snakemake(summarised, "all", "--report", "report.html")
    assert _state(summarised) == before
    return summarised / "report.html"


def test_report_has_every_paper_with_captions(html_report):
    html = html_report.read_text(errors="replace")
    for pid in PAPERS:
        for name in (f"results/tiny/{pid}/claims.md", f"results/tiny/{pid}/figures/claims.png"):
            assert name in html, name
    for caption in ("the claims ledger", "the claims figure", "What it shows", "Provenance"):
        assert caption in html, caption
    assert "System Message" not in html  # docutils' mark of a caption it could not render


def _chromium() -> str | None:
    return os.environ.get("REPRO_CHROMIUM") or shutil.which("chromium") or shutil.which(
        "chromium-browser")


# What the browser test reads from the rendered page: Snakemake's report app keeps its data in
# the globals `categories` (category -> subcategory -> files) and `results` (file -> entry with
# its caption and its content as a data URI).
DECODE_IMAGES = """async () => {
  const out = {};
  for (const [path, r] of Object.entries(results)) {
    if (!String(r.mime_type).startsWith("image/")) continue;
    const img = new Image();
    img.src = r.data_uri;
    try { await img.decode(); out[path] = img.naturalWidth; } catch (e) { out[path] = 0; }
  }
  return out;
}"""


@needs_programs("chromium")  # checked before html_report runs `snakemake all --report`
def test_report_renders_in_headless_chromium(html_report, tmp_path):
    """Open the report as a reader would: every paper's section and ledger are there, every
    image loads, no script error; a screenshot of each paper's claims figure is kept."""
    exe = _chromium()
    sync_api = pytest.importorskip("playwright.sync_api")
    errors: list[str] = []
    with sync_api.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=exe, args=["--no-sandbox"])
        page = browser.new_page(viewport={"width": 1400, "height": 1000})
        page.on("pageerror", lambda e: errors.append(f"page error: {e}"))
        page.on("console", lambda m: errors.append(f"console {m.type}: {m.text}")
                if m.type == "error" else None)
        page.goto(html_report.as_uri())
        page.wait_for_function("typeof categories !== 'undefined' && typeof results !== "
                               "'undefined'", timeout=30_000)
        categories = page.evaluate("categories")
        results = page.evaluate("Object.fromEntries(Object.entries(results).map(([k, v]) => "
                                "[k, v.caption]))")
        widths = page.evaluate(DECODE_IMAGES)
        for pid in PAPERS:
            own = {c: subs for c, subs in categories.items()
                   if any(f"/{pid}/" in f for files in subs.values() for f in files)}
            assert len(own) == 1, (pid, list(categories))
            (cat, subs) = next(iter(own.items()))
            assert {"claims", "tables", "figures"} <= set(subs), (pid, subs)
            assert f"results/tiny/{pid}/claims.md" in subs["claims"]
            for path in (f for files in subs.values() for f in files):
                assert "Provenance" in results[path] or "provenance" in results[path], path
            # the reader's path: Results > paper > claims > the eye on its claims figure
            page.get_by_text("Results", exact=True).first.click()
            page.get_by_text(cat, exact=True).first.click()
            page.get_by_text("claims", exact=True).first.click()
            row = page.locator("tr", has_text=f"{pid}/figures/claims.png")
            row.locator("a[iconname=eye]").click()
            shown = page.locator("img[src*='filename=claims.png']")
            shown.wait_for(timeout=10_000)
            assert page.evaluate("(img) => img.complete && img.naturalWidth > 0",
                                 shown.element_handle())
            page.screenshot(path=tmp_path / f"{pid}_claims.png")
        browser.close()
    assert widths and all(w > 0 for w in widths.values()), {k: w for k, w in widths.items()
                                                            if not w}
    images = [f for subs in categories.values() for files in subs.values() for f in files
              if f.endswith((".png", ".svg"))]
    assert set(images) <= set(widths), set(images) - set(widths)
    assert not errors, errors
    assert all((tmp_path / f"{pid}_claims.png").stat().st_size > 10_000 for pid in PAPERS)
