"""student_database: 150 student folders `<id>_<First>_<Last>/`, each with basic_info.txt and
recommendation_letter.txt (MCPMark's tree).

For every seed: 10-16 full names are shared by two or three students (the others are unique);
scores for Chinese, Math and English (40-100) include every grade border (59/60, 69/70, 79/80,
89/90); TOEFL scores include 99 and 100; recommendation grades are S, A, B, C or D, stated on one
line of the letter, so a good share of students meets the English-talent criteria and some
miss them by one point or one grade.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

FIRST = ("James", "Mary", "John", "Patricia", "Robert", "Jennifer", "Michael", "Linda", "William",
         "Elizabeth", "David", "Barbara", "Richard", "Susan", "Joseph", "Jessica", "Thomas",
         "Sarah", "Charles", "Karen", "Daniel", "Nancy", "Matthew", "Lisa", "Anthony", "Emma",
         "Noah", "Olivia", "Liam", "Ava", "Ethan", "Sophia", "Mason", "Isabella", "Lucas", "Mia")
LAST = ("Smith", "Johnson", "Williams", "Brown", "Jones", "Garcia", "Miller", "Davis",
        "Rodriguez", "Martinez", "Hernandez", "Lopez", "Gonzalez", "Wilson", "Anderson", "Thomas",
        "Taylor", "Moore", "Jackson", "Martin", "Lee", "Clark", "Lewis", "Walker")
MAJORS = ("Computer Science", "Mathematics", "Physics", "Economics", "Chemistry", "Biology",
          "History", "Mechanical Engineering", "Psychology", "Linguistics")
DOMAINS = ("gmail.com", "outlook.com", "yahoo.com", "163.com", "qq.com")
CITIES = ("Beijing", "Shanghai", "Hangzhou", "Chengdu", "Wuhan", "Nanjing", "Xi'an", "Shenzhen")
GRADES = ("S", "A", "B", "C", "D")
PRAISE = {
    "S": "is the most outstanding student I have taught in many years",
    "A": "is an excellent student who stands out among their peers",
    "B": "is a good student who completes the work reliably",
    "C": "is an average student who meets the basic requirements",
    "D": "has struggled with the course and needs more practice",
}
N = 150
BORDERS = (59, 60, 69, 70, 79, 80, 89, 90, 100)


def _names(rng: np.random.Generator) -> list[tuple[str, str]]:
    pool = [(f, s) for f in FIRST for s in LAST]
    order = rng.permutation(len(pool))
    shared = int(rng.integers(10, 17))
    names: list[tuple[str, str]] = []
    for k in range(shared):
        names += [pool[order[k]]] * (3 if k < 2 else 2)
    k = shared
    while len(names) < N:
        names.append(pool[order[k]])
        k += 1
    return [names[i] for i in rng.permutation(len(names))]


def build(root: Path, rng: np.random.Generator) -> None:
    names = _names(rng)
    ids = sorted(int(i) for i in rng.choice(np.arange(20100000, 20210000), N, replace=False))
    ids = [ids[i] for i in rng.permutation(N)]
    scores = rng.integers(40, 101, (N, 3))
    for k, s in enumerate(BORDERS * 3):  # every grade border appears in every subject
        scores[(7 * k) % N, k // len(BORDERS)] = s
    toefl = rng.integers(70, 119, N)
    grade = rng.choice(GRADES, N, p=[0.15, 0.3, 0.3, 0.15, 0.1])
    for k, t in enumerate((99, 100, 99, 100, 118)):
        toefl[11 * k + 3] = t
    for k in range(N):
        first, last = names[k]
        sid = ids[k]
        folder = root / f"{sid}_{first}_{last}"
        folder.mkdir()
        email = f"{first.lower()}.{last.lower()}{int(rng.integers(1, 100))}@" \
                f"{DOMAINS[int(rng.integers(len(DOMAINS)))]}"
        info = [
            "Student Basic Information",
            "=========================",
            f"Name: {first} {last}",
            f"Student ID: {sid}",
            f"Gender: {('Male', 'Female')[int(rng.integers(2))]}",
            f"Date of Birth: {int(rng.integers(2000, 2006))}-{int(rng.integers(1, 13)):02d}-"
            f"{int(rng.integers(1, 29)):02d}",
            f"Major: {MAJORS[int(rng.integers(len(MAJORS)))]}",
            f"Hometown: {CITIES[int(rng.integers(len(CITIES)))]}",
            f"Email: {email}",
            f"Phone: +86 1{int(rng.integers(30, 90))}{int(rng.integers(10**7, 10**8))}",
            "",
            "Entrance Examination Scores",
            f"Chinese: {scores[k, 0]}",
            f"Math: {scores[k, 1]}",
            f"English: {scores[k, 2]}",
            "",
            f"TOEFL: {toefl[k]}",
        ]
        (folder / "basic_info.txt").write_text("\n".join(info) + "\n")
        g = str(grade[k])
        teacher = f"Prof. {LAST[int(rng.integers(len(LAST)))]}"
        letter = [
            "Letter of Recommendation",
            "",
            "To whom it may concern,",
            "",
            f"It is my pleasure to write about {first} {last} (student ID {sid}), who attended "
            f"my seminar for {int(rng.integers(2, 5))} semesters. In my view, {first} "
            f"{PRAISE[g]}.",
            "",
            f"Recommendation Grade: {g}",
            "",
            "Sincerely,",
            teacher,
        ]
        (folder / "recommendation_letter.txt").write_text("\n".join(letter) + "\n")
