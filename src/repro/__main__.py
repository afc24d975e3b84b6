"""`python -m repro <command>`: artifact sharing around the Snakemake workflow.

    python -m repro dvc-yaml              # regenerate each paper's dvc.yaml from the workflow
    python -m repro plan paper_rove --config scale=tiny [--forceall] [--json]
    python -m repro new-paper <id> --title "..."   # a working skeleton of a new paper
    python -m repro push rove --scale small
    python -m repro restore rove --scale small
    python -m repro publish rove --scale small    # commit the results the README shows
    python -m repro status                        # computed / published / stale per paper
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m repro", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    g = sub.add_parser("dvc-yaml", help="write each paper's dvc.yaml (in its folder), "
                       "generated from the Snakemake workflow")
    g.add_argument("--check", action="store_true", help="fail if a dvc.yaml is out of date")
    pl = sub.add_parser("plan", help="the jobs Snakemake would run now (rule counts, or JSON)")
    pl.add_argument("target", nargs="?", default=None)
    pl.add_argument("--config", nargs="*", default=[], metavar="KEY=VALUE")
    pl.add_argument("--forceall", action="store_true", help="every job, as if nothing existed")
    pl.add_argument("--json", action="store_true",
                    help="one JSON object per job: rule, paper, phase, inputs, outputs, resources")
    np_ = sub.add_parser("new-paper", help="write a working skeleton of a new paper")
    np_.add_argument("paper", help="the paper's id (a Python package name: [a-z][a-z0-9_]*)")
    np_.add_argument("--title", required=True)
    np_.add_argument("--no-dvc-yaml", action="store_true",
                     help="do not write its dvc.yaml (do it later: python -m repro dvc-yaml)")
    for name, what in (("push", "push a paper's artifacts and the run cache to the remote"),
                       ("restore", "pull a paper's artifacts; make Snakemake accept them")):
        p = sub.add_parser(name, help=what)
        p.add_argument("paper")
        p.add_argument("--scale", default="small", choices=["tiny", "small", "full"])
        p.add_argument("--remote", default=None, help="DVC remote name (default: the default)")
    pub = sub.add_parser("publish", help="commit a finished run's records, ledger and tables "
                         "(with provenance) under src/repro/papers/<id>/results/<scale>/ and "
                         "show them in the paper's README")
    pub.add_argument("paper")
    pub.add_argument("--scale", default="small", choices=["tiny", "small", "full"])
    sub.add_parser("status", help="per paper and scale: computed here, published, and whether "
                   "the published results are older than the paper's code or config")
    a = ap.parse_args(argv)
    repo = Path.cwd()
    if a.cmd in ("publish", "status"):
        return _publish(repo, a)

    from repro import artifacts

    try:
        if a.cmd == "dvc-yaml":
            stale = artifacts.write_dvc_yamls(repo, check=a.check)
            if a.check and stale:
                print(f"{', '.join(stale)} out of date: run `python -m repro dvc-yaml`",
                      file=sys.stderr)
                return 1
            if stale and not a.check:
                print("wrote " + ", ".join(stale))
        elif a.cmd == "new-paper":
            from repro.scaffold import new_paper

            try:
                written = new_paper(repo, a.paper, a.title)
            except ValueError as err:
                print(f"error: {err}", file=sys.stderr)
                return 2
            print("wrote\n  " + "\n  ".join(written))
            if not a.no_dvc_yaml:
                print("wrote " + ", ".join(artifacts.write_dvc_yamls(repo)))
            print(f"next: snakemake paper_{a.paper} --config scale=tiny; "
                  f"pytest tests/test_papers.py -k {a.paper} tests/papers/{a.paper}")
        elif a.cmd == "plan":
            return _plan(repo, a)
        elif a.cmd == "push":
            names = artifacts.push(repo, a.paper, a.scale, a.remote)
            lock = artifacts.paper_file(a.paper, "dvc.lock")
            print(f"pushed {', '.join(names)}; now commit {lock} "
                  f"(git add {lock} && git commit -m 'artifacts: {a.paper} {a.scale}')")
        else:
            r = artifacts.restore(repo, a.paper, a.scale, a.remote)
            print(f"restored {a.paper} ({a.scale}): {len(r['accepted'])} rule(s) up to date, "
                  f"{len(r['rerun'])} left for Snakemake to rerun")
    except artifacts.ArtifactError as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    return 0


def _publish(repo: Path, a: argparse.Namespace) -> int:
    from repro.core.workflow import registered_papers
    from repro.publish import PublishError, publish, status, status_table

    if a.cmd == "status":
        rows = status(repo, registered_papers(repo))
        print(status_table(rows))
        return 0
    if a.paper not in registered_papers(repo):
        print(f"error: no paper {a.paper!r} (src/repro/papers/{a.paper}/config.yaml)",
              file=sys.stderr)
        return 2
    try:
        written = publish(repo, a.paper, a.scale)
    except PublishError as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    print("wrote\n  " + "\n  ".join(str(p.relative_to(repo)) for p in written))
    print(f"now commit them (git add src/repro/papers/{a.paper} && git commit -m "
          f"'results: {a.paper} {a.scale}')")
    return 0


def _plan(repo: Path, a: argparse.Namespace) -> int:
    import json

    from repro import dag

    bad = [kv for kv in a.config if "=" not in kv]
    if bad:
        print(f"error: --config takes KEY=VALUE, got {bad[0]!r}", file=sys.stderr)
        return 2
    try:
        jobs = dag.plan(repo, a.target, dict(kv.split("=", 1) for kv in a.config), a.forceall)
    except dag.PlanError as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    if a.json:
        for j in jobs:
            print(json.dumps(j.to_dict()))
    else:
        for rule, n in sorted(dag.counts(jobs).items()):
            print(f"{rule}\t{n}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
