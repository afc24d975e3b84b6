"""project_management's scripted solution: the seven folders, one move per .py/.csv/.md file,
then project_structure.md (files listed from the sandbox before any call)."""

from pathlib import Path


def solve(view: dict) -> list[dict]:
    root = Path(view["root"])
    org = root / "organized_projects"
    subs = {"ml": "experiments/ml_projects", "data": "experiments/data_analysis",
            "rep": "experiments/reports", "prog": "learning/progress_tracking",
            "res": "learning/resources", "ent": "personal/entertainment",
            "col": "personal/collections"}
    calls = [{"name": "create_directory", "arguments": {"path": str(org / s)}}
             for s in subs.values()]
    moved = {s: [] for s in subs.values()}
    for p in sorted(root.rglob("*")):
        if not p.is_file():
            continue
        top = p.relative_to(root).parts[0]
        if p.suffix == ".py":
            dest = subs["ml"]
        elif p.suffix == ".csv":
            dest = subs["prog"] if top == "learning" else subs["data"]
        elif p.suffix == ".md":
            dest = {"exp_logs": subs["rep"], "learning": subs["res"], "music": subs["col"]}.get(
                top, subs["ent"])
        else:
            continue
        moved[dest].append(p.name)
        calls.append({"name": "move_file", "arguments": {
            "source": str(p), "destination": str(org / dest / p.name)}})
    doc = ["# Project structure", "", "Files moved into each folder:", ""]
    doc += [f"{s}: {len(n)}" for s, n in moved.items()]
    doc += ["", "Python code is in ml_projects, CSV data in data_analysis and "
            "progress_tracking, notes in the other folders."]
    calls.append({"name": "write_file", "arguments": {
        "path": str(org / "project_structure.md"), "content": "\n".join(doc) + "\n"}})
    return calls
