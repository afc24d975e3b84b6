"""desktop: a student's mock desktop (MCPMark's tree: exp_logs/ with two projects and logs,
learning/ with 2024 and 2025 plans, music/ with three artists' folders and a collection note,
play/ with game, tour, collection and planner files, travel_plan/; MCPMark's old_homebrew/
backup folders hold no files and are left out).

What the three tasks need: two artists' song lists in different formats (a CSV file and a text
file) with ratings, play counts and release years; Python, CSV and Markdown files spread over
the folders, with unique names; and dates written as `YYYY-MM-DD`, `YYYY-MM`, `Month D, YYYY`
or `Month YYYY` (ranges as `<date> to <date>`), most in 2024 and some in 2023 or 2025, with
year-only mentions, repeated dates and weekday schedules as distractors.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

MONTHS = ("January", "February", "March", "April", "May", "June", "July", "August",
          "September", "October", "November", "December")
SYLL = ("la", "mo", "ri", "an", "ke", "su", "yo", "na", "chi", "ren", "tai", "ming", "lu",
        "xin", "bo", "fei")
WORDS = ("Rain", "Night", "River", "Moon", "Letter", "Summer", "Dream", "Light", "Road",
         "Heart", "Window", "Wind", "Promise", "Stars", "Echo", "Island", "Silence", "Clock")
GAMES = ("Starfield Tactics", "Pixel Kingdom", "Drift Legends", "Puzzle Harbor")
SIGHTS = ("Victoria Peak", "Star Ferry", "Temple Street Market", "Lantau Island",
          "Mong Kok night market", "Tai O village")


def _day(rng: np.random.Generator, year: int = 2024) -> tuple[int, int, int]:
    return year, int(rng.integers(1, 13)), int(rng.integers(1, 29))


def iso(d: tuple[int, int, int]) -> str:
    return f"{d[0]}-{d[1]:02d}-{d[2]:02d}"


def long(d: tuple[int, int, int]) -> str:
    return f"{MONTHS[d[1] - 1]} {d[2]}, {d[0]}"


def _title(rng: np.random.Generator, used: set[str]) -> str:
    while True:
        t = " ".join(str(w) for w in rng.choice(WORDS, int(rng.integers(1, 3)), replace=False))
        if rng.random() < 0.3:
            t += " " + "".join(str(s) for s in rng.choice(SYLL, 2)).title()
        if t not in used:
            used.add(t)
            return t


def _songs(rng: np.random.Generator, n: int, used: set[str]) -> list[dict]:
    return [{"name": _title(rng, used), "album": _title(rng, set()),
             "year": int(rng.integers(2000, 2024)), "rating": int(rng.integers(25, 51)) / 10,
             "plays": 5 * int(rng.integers(10, 51))} for _ in range(n)]


def _w(root: Path, rel: str, text: str) -> None:
    p = root / rel
    p.parent.mkdir(parents=True, exist_ok=True)
    p.write_text(text)


def build(root: Path, rng: np.random.Generator) -> None:
    used: set[str] = set()
    jay, jj = (_songs(rng, int(rng.integers(8, 12)), used) for _ in range(2))
    _w(root, "music/jay_chou/favorite_songs.csv",
       "song_name,album,release_year,rating,play_count\n" + "".join(
           f"{s['name']},{s['album']},{s['year']},{s['rating']},{s['plays']}\n" for s in jay))
    _w(root, "music/jj_lin/top_songs.txt", "JJ Lin - my top songs\n\n" + "\n".join(
        f"{i}. {s['name']}\n   Album: {s['album']}\n   Released: {s['year']}\n"
        f"   Rating: {s['rating']}/5\n   Plays: {s['plays']}\n" for i, s in enumerate(jj, 1)))
    beni = [_title(rng, used) for _ in range(4)]
    _w(root, "music/beni/playlist_manager.py",
       '"""Keep my Beni playlist in order."""\n\nPLAYLIST = [\n' +
       "".join(f'    "{t}",\n' for t in beni) +
       "]\n\n\ndef shuffle(items):\n    return sorted(items, key=hash)\n")
    _w(root, "music/music_collection.md",
       f"# Music collection\n\nLast updated {long(_day(rng))}.\n\n"
       "- Jay Chou: see jay_chou/favorite_songs.csv\n- JJ Lin: see jj_lin/top_songs.txt\n"
       "- Beni: playlist in beni/playlist_manager.py\n")

    # experiments
    aug = sorted(_day(rng, int(y)) for y in rng.choice((2023, 2024, 2024, 2024), 5))
    _w(root, "exp_logs/aug/augmentation_log.txt", "".join(
        f"[{iso(d)}] applied {rng.choice(('flip', 'crop', 'mixup', 'cutout'))} augmentation\n"
        for d in aug))
    _w(root, "exp_logs/project_1/data.csv", "sample,x,y\n" + "".join(
        f"{i},{rng.normal():.3f},{rng.normal():.3f}\n" for i in range(8)))
    _w(root, "exp_logs/project_1/model.py",
       f"# created {iso(_day(rng))}\nimport math\n\n\ndef predict(x):\n"
       "    return 1 / (1 + math.exp(-x))\n")
    start = _day(rng)
    _w(root, "exp_logs/project_1/README.md",
       f"# Project 1\n\nA logistic model on toy data, started in {MONTHS[start[1] - 1]} 2024.\n"
       "Planned for the whole of 2024.\n")
    a, b = sorted([_day(rng), _day(rng)])
    _w(root, "exp_logs/project_2/analysis_report.md",
       f"# Analysis report\n\nReport date: {long(_day(rng))}\n\n"
       f"Data were collected from {iso(a)} to {iso(b)}.\nA follow-up study is planned for "
       f"{long(_day(rng, 2025))}.\n")
    _w(root, "exp_logs/project_2/data_analysis.py",
       "import csv\n\n\ndef mean(path):\n    rows = list(csv.DictReader(open(path)))\n"
       "    return sum(float(r['x']) for r in rows) / len(rows)\n")
    sep = [(2024, 9, int(d)) for d in sorted(rng.choice(range(1, 31), 4, replace=False))]
    sep_rows = [sep[0]] + sep + [sep[-1]]  # two dates appear twice
    _w(root, "exp_logs/sep/september_summary.csv", "date,run,loss\n" + "".join(
        f"{iso(d)},{i},{rng.uniform(0.1, 2):.3f}\n" for i, d in enumerate(sep_rows)))
    recs = [_day(rng, int(y)) for y in rng.choice((2023, 2024, 2024, 2025), 4)]
    _w(root, "exp_logs/exp_record.md", "# Experiment record\n\n| date | experiment |\n|---|---|\n"
       + "".join(f"| {iso(d)} | run {i} |\n" for i, d in enumerate(recs, 1)))
    m = int(rng.integers(1, 13))
    _w(root, "exp_logs/experiment_summary.md",
       f"# Summary\n\nExperiments of 2024, in short. Review meeting in 2024-{m:02d}.\n")
    res = [_day(rng) for _ in range(3)]
    _w(root, "exp_logs/results_record.csv", "date,model,accuracy\n" + "".join(
        f"{iso(d)},model_{i},{rng.uniform(0.5, 0.99):.3f}\n" for i, d in enumerate(res)))

    # learning
    weeks = sorted(_day(rng) for _ in range(3))
    _w(root, "learning/2024/learning_progress.csv", "week_start,topic,hours\n" + "".join(
        f"{iso(d)},{t},{int(rng.integers(2, 12))}\n" for d, t in
        zip(weeks, ("linear algebra", "probability", "deep learning"), strict=True)))
    _w(root, "learning/2025/learning_roadmap.md",
       f"# Roadmap\n\n- {long(_day(rng, 2025))}: start reinforcement learning\n"
       f"- {MONTHS[int(rng.integers(0, 12))]} 2025: finish the course\n"
       f"- Prepared on {long((2024, 12, int(rng.integers(1, 29))))}.\n")
    _w(root, "learning/activities/study_notes.py",
       f'"""Study notes, {long(_day(rng))}."""\n\nTOPICS = ["gradients", "attention"]\n')
    _w(root, "learning/research/research_topics.md",
       "# Research topics\n\n- efficient attention\n- data augmentation\n- evaluation\n")
    _w(root, "learning/schedule/weekly_schedule.csv",
       "day,time,activity\nMonday,09:00,reading\nWednesday,14:00,lab\nFriday,10:00,seminar\n")
    goal = int(rng.integers(1, 13))
    _w(root, "learning/learning_goals.md",
       f"# Goals for 2024\n\n- Finish two online courses by {MONTHS[goal - 1]} 2024.\n"
       f"- Give a talk on {long(_day(rng))}.\n- Keep reading in 2025.\n")

    # play and travel
    g = [_day(rng) for _ in range(2)]
    _w(root, "play/game_plan/gaming_schedule.md", "# Gaming plan\n\n" + "".join(
        f"- {long(d)}: {rng.choice(GAMES)} tournament\n" for d in g) + "- Saturdays: co-op\n")
    trip = _day(rng)
    days = [(trip[0], trip[1], trip[2] + k) for k in (0, 0, 1, 2)]
    _w(root, "play/hongkong_tour/travel_itinerary.csv", "date,place\n" + "".join(
        f"{iso(d)},{s}\n" for d, s in zip(days, rng.choice(SIGHTS, 4, replace=False),
                                          strict=True)))
    _w(root, "play/kit&shoes_collection/inventory.py",
       "SHOES = {'runner': 2, 'trail': 1}\nKITS = {'home': 3, 'away': 2}\n")
    e = _day(rng)
    _w(root, "play/others/entertainment_planner.md",
       f"# Entertainment planner\n\n- Concert in {MONTHS[e[1] - 1]} 2024\n"
       f"- Movie night on {long(_day(rng))}\n- Board games every Friday\n")
    ta, tb = sorted([_day(rng), _day(rng)])
    _w(root, "travel_plan/travel_bucket_list.md",
       f"# Travel bucket list\n\n- Kyoto, {long(ta)} to {long(tb)}\n- Iceland some day\n"
       f"- Lisbon in {MONTHS[int(rng.integers(0, 12))]} 2023 (done)\n")
    _w(root, "travel_plan/travel_calculator.py",
       "def total(costs):\n    return sum(costs.values())\n\n\n"
       f"BUDGET = {{'flight': {int(rng.integers(300, 900))}, "
       f"'hotel': {int(rng.integers(200, 800))}}}\n")
