"""papers: a folder of arXiv papers saved as HTML, named by arXiv id, plus arxiv_2025.bib
(MCPMark's tree: ~84 `<yymm>.<nnnnn>.html` files from 2017 to 2025 and one BibTeX file, all at
the top of the test directory).

Each page carries the citation metadata arXiv's HTML pages have (`citation_title`, one
`citation_author` per author as "Last, First Middle", `citation_date` and
`citation_online_date` as YYYY/MM/DD), a title, an author line, an abstract and a little body
text. A handful of authors are made prolific (some of them in 2025 especially), a few others sit
on the thresholds, so the author task has borders to get right; some papers are about
mathematics, one of them the benchmark that the math task describes, the others decoys that share
part of its description.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

FIRST = ("Alice", "Bruno", "Chen", "Daria", "Emil", "Fatima", "Goran", "Hana", "Ivan", "Jia",
         "Kofi", "Lena", "Marco", "Nadia", "Omar", "Priya", "Quentin", "Rosa", "Sven", "Tara",
         "Umar", "Vera", "Wei", "Ximena", "Yusuf", "Zoe", "Aaron", "Beatriz", "Colin", "Dmitri",
         "Elif", "Farid", "Greta", "Hiro", "Ingrid", "Jonas", "Kira", "Luca", "Mei", "Nils")
LAST = ("Abe", "Bauer", "Costa", "Dubois", "Eriksen", "Fischer", "Garcia", "Huang", "Ito",
        "Jensen", "Kowalski", "Li", "Moreau", "Nakamura", "Okafor", "Petrov", "Quinn", "Rossi",
        "Schmidt", "Tanaka", "Ueda", "Varga", "Wang", "Xu", "Yilmaz", "Zhang", "O'Brien",
        "Lopez-Vega", "van der Berg", "Da Silva", "Kim", "Novak", "Sato", "Hughes", "Mehta")
MIDDLE = ("J.", "Marie", "K.", "Anne", "R.")

TOPICS = {
    "vision": ("image segmentation", "object detection", "video understanding",
               "self-supervised visual features", "3D scene reconstruction"),
    "language": ("instruction tuning", "long-context retrieval", "machine translation",
                 "dialogue agents", "tokenization"),
    "rl": ("offline reinforcement learning", "reward modelling", "policy optimisation",
           "multi-agent coordination", "exploration bonuses"),
    "systems": ("distributed training", "model compression", "inference serving",
                "mixed-precision arithmetic", "sparse attention kernels"),
}
VERBS = ("Rethinking", "Scaling", "Towards Robust", "Efficient", "A Study of", "Revisiting",
         "Learning", "Benchmarking", "Understanding", "Simple Baselines for")
TAILS = ("Fewer Labels", "Large Models", "Synthetic Data", "Structured Priors",
         "Adaptive Computation")
FILLER = ("We describe the setup in detail and release our code.",
          "Experiments cover several public datasets and model sizes.",
          "Our results hold across random seeds and hyperparameter settings.",
          "We also analyse failure cases and discuss limitations.",
          "An ablation study isolates the contribution of each component.",
          "The method adds little overhead at training and inference time.")

# The math papers: the one the find_math_paper task describes (a math benchmark that looks past
# the final answer, at knowledge gaps, generalisation and rote memorisation) and decoys that share
# parts of that description. verify.py of find_math_paper recognises the target as the one page
# whose abstract mentions mathematics, knowledge, generalization and memorization together.
BENCH = ("MathLens", "ProbeMath", "DeepRoots", "MathSieve", "FourFold", "StepWise", "MathAtlas")
TARGET_ABSTRACTS = (
    "We introduce {b}, a benchmark of visual mathematical problems that looks beyond whether the "
    "final answer is right. Each problem is broken into sub-problems over the knowledge concepts "
    "it needs, and a four-way diagnosis tells whether a model fails from insufficient knowledge, "
    "from inadequate generalization, or solves composite problems by rote memorization without "
    "mastering their parts.",
    "Answer accuracy hides why models succeed or fail at mathematics. {b} pairs every problem "
    "with the elementary knowledge points it depends on, and the benchmark measures three "
    "failure modes: gaps in knowledge, lack of generalization from basic to composite "
    "problems, and rote memorization, where a model answers the hard problem yet fails its "
    "easy parts.",
)
DECOYS = (
    ("{b}: Olympiad-Level Mathematics for Language Models",
     "We collect competition mathematics problems from national olympiads and score models by "
     "the exact match of their final answers. The strongest systems solve fewer than a third of "
     "the problems, which shows how far mathematical reasoning still has to go."),
    ("Does {b} Generalize? Length Generalization in Arithmetic Transformers",
     "We study whether transformers trained on short additions generalize to longer numbers. "
     "Mathematical structure in the positional encoding helps generalization, and we report "
     "accuracy on sequences up to ten times longer than those seen in training."),
    ("Memorization or Reasoning? Auditing Code Models with {b}",
     "Code generation models may repeat their training data. We audit memorization by "
     "perturbing programming puzzles, separating knowledge of library functions from genuine "
     "generalization to unseen puzzles. The analysis covers six open code models."),
    ("{b}-RL: Reinforcement Learning for Mathematical Reasoning",
     "We train a language model on mathematics word problems with a verifiable reward. The "
     "policy learns to check its own steps, and accuracy on grade-school and competition "
     "mathematics rises by eleven points without extra human knowledge or annotations."),
)


def _names(rng: np.random.Generator, n: int) -> list[tuple[str, str]]:
    """n authors as (last, given names), distinct by first given name + last name."""
    out, keys = [], set()
    while len(out) < n:
        first = str(rng.choice(FIRST))
        last = str(rng.choice(LAST))
        if (first, last) in keys:
            continue
        keys.add((first, last))
        given = first + (" " + str(rng.choice(MIDDLE)) if rng.random() < 0.2 else "")
        out.append((last, given))
    return out


def _ids(rng: np.random.Generator, years: list[int]) -> list[str]:
    ids: set[str] = set()
    out = []
    for y in years:
        while True:
            a = f"{y % 100:02d}{int(rng.integers(1, 13)):02d}.{int(rng.integers(1000, 20000)):05d}"
            if a not in ids:
                ids.add(a)
                out.append(a)
                break
    return out


def _page(aid: str, title: str, authors: list[tuple[str, str]], abstract: str,
          body: list[str], online_shift: int) -> str:
    yy, mm = int(aid[:2]), int(aid[2:4])
    day = 1 + int(aid[-2:]) % 28
    date = f"20{yy:02d}/{mm:02d}/{day:02d}"
    # online a few days later; for late-December papers that may fall into the next year
    if mm == 12 and day + online_shift > 31:
        online = f"20{yy + 1:02d}/01/{day + online_shift - 31:02d}"
    else:
        online = f"20{yy:02d}/{mm:02d}/{min(28, day + online_shift):02d}"
    meta = "\n".join(f'<meta name="citation_author" content="{last}, {given}">'
                     for last, given in authors)
    byline = ", ".join(f"{given} {last}" for last, given in authors)
    paras = "\n".join(f"<p>{p}</p>" for p in body)
    return f"""<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>[{aid}] {title}</title>
<meta name="citation_title" content="{title}">
{meta}
<meta name="citation_date" content="{date}">
<meta name="citation_online_date" content="{online}">
<meta name="citation_arxiv_id" content="{aid}">
</head>
<body>
<div class="ltx_page_content">
<h1 class="ltx_title ltx_title_document">{title}</h1>
<div class="ltx_authors">{byline}</div>
<div class="ltx_abstract">
<h6 class="ltx_title ltx_title_abstract">Abstract</h6>
<p class="ltx_p">{abstract}</p>
</div>
<section class="ltx_section" id="S1">
<h2 class="ltx_title ltx_title_section">1 Introduction</h2>
{paras}
</section>
</div>
</body>
</html>
"""


def build(root: Path, rng: np.random.Generator) -> None:
    counts = {2019: 2, 2020: 3, 2021: 3, 2022: 4, 2023: 6, 2024: 14, 2025: 20}
    years = [y for y, c in counts.items() for _ in range(c + int(rng.integers(0, 3)))]
    ids = sorted(_ids(rng, years))
    year = {a: 2000 + int(a[:2]) for a in ids}
    y25 = [a for a in ids if year[a] == 2025]
    older = [a for a in ids if year[a] < 2025]
    pool = _names(rng, 200)
    stars, pool = pool[:9], pool[9:]
    authors: dict[str, list[tuple[str, str]]] = {a: [] for a in ids}

    def give(person, papers):
        for p in papers:
            authors[p].append(person)

    def pick(src, k, avoid=()):
        cand = [p for p in src if p not in avoid]
        return [cand[i] for i in rng.choice(len(cand), k, replace=False)]

    # 0-1: frequent and prolific in 2025; 2: frequent, exactly 3 in 2025; 3: frequent, only 2 in
    # 2025; 4: exactly 4 papers, none in 2025; 5: exactly 3 papers (not frequent), all in 2025;
    # 6: 3 papers (not frequent), 1 in 2025; 7-8: 2 papers each
    plan = [(int(rng.integers(3, 6)), int(rng.integers(1, 3))),
            (int(rng.integers(4, 6)), int(rng.integers(0, 3))),
            (3, int(rng.integers(1, 3))), (2, int(rng.integers(2, 4))), (0, 4), (3, 0), (1, 2),
            (1, 1), (0, 2)]
    for person, (k25, kold) in zip(stars, plan, strict=True):
        give(person, pick(y25, k25) + pick(older, kold))
    for a in ids:  # everyone else: 1-4 co-authors used at most twice in all
        for _ in range(int(rng.integers(1, 5)) - (len(authors[a]) > 2)):
            if pool:
                authors[a].append(pool.pop(int(rng.integers(0, len(pool)))))
            if rng.random() < 0.3 and pool:
                person = pool[int(rng.integers(0, len(pool)))]
                other = ids[int(rng.integers(0, len(ids)))]
                if person not in authors[other]:
                    authors[other].append(person)
        if not authors[a]:
            authors[a].append(stars[7])
        order = rng.permutation(len(authors[a]))
        authors[a] = [authors[a][i] for i in order]

    # the math papers: the target in 2024 or 2025 and the decoys anywhere
    math_ids = pick([a for a in ids if year[a] >= 2024], 1) + pick(ids, len(DECOYS))
    while len(set(math_ids)) < len(math_ids):
        math_ids = math_ids[:1] + pick(ids, len(DECOYS), avoid=math_ids[:1])
    bench = [str(b) for b in rng.permutation(BENCH)]
    text: dict[str, tuple[str, str]] = {}
    text[math_ids[0]] = (f"{bench[0]}: Does Your Model Really Understand Mathematics Beyond "
                         "the Final Answer?",
                         str(rng.choice(TARGET_ABSTRACTS)).format(b=bench[0]))
    for a, (title, abstract), b in zip(math_ids[1:], DECOYS, bench[1:], strict=False):
        text[a] = (title.format(b=b), abstract.format(b=b))
    for a in ids:
        if a in text:
            continue
        area = str(rng.choice(list(TOPICS)))
        topic = str(rng.choice(TOPICS[area]))
        title = f"{rng.choice(VERBS)} {topic.title()} with {rng.choice(TAILS)}"
        abstract = (f"We study {topic} and propose a method that improves on strong baselines. "
                    f"{rng.choice(FILLER)} {rng.choice(FILLER)}")
        text[a] = (title, abstract)

    bib = []
    for a in ids:
        title, abstract = text[a]
        body = [str(s) for s in rng.choice(FILLER, 3, replace=False)]
        page = _page(a, title, authors[a], abstract, body, int(rng.integers(1, 6)))
        (root / f"{a}.html").write_text(page)
        if year[a] == 2025:
            names = " and ".join(f"{last}, {given}" for last, given in authors[a])
            key = authors[a][0][0].split()[-1].lower().replace("'", "") + "2025" + a[-3:]
            bib.append(f"@misc{{{key},\n  title = {{{title}}},\n  author = {{{names}}},\n"
                       f"  year = {{2025}},\n  eprint = {{{a}}},\n"
                       "  archivePrefix = {arXiv}\n}\n")
    (root / "arxiv_2025.bib").write_text("\n".join(bib))
