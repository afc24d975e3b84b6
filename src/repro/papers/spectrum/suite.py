"""The parts of the Spectrum Suite that can be generated offline, in the suite's own shape.

A *context* is one task instance: an optional description, then several i.i.d. samples, each an
optional input and an output. Spectrum Tuning trains on contexts of the training families; the
held-out families are never seen in training and test in-context steerability (the model must
move from its prior to the distribution the context shows). Two further kinds of held-out item:

- distribution items (zero-shot, a known target over a finite set of options): the paper's
  distributional-alignment evaluation, here the urn it generates itself and dice sums;
- coverage tasks (a description and three example outputs, a validator): the paper's
  "diverse valid" generations, scored for % valid, % unique and yield.

The training families follow the official repository's code-generated distributions (coin flips,
normal, categorical, binomial, geometric, Poisson, Zipf, cards) and its babynames task (first
names under a constraint, at their population frequencies from Faker's en_US lists). The
steerability families are its synthetic `flight`, `urn` and a generated number game (the paper's
number game is human data, not offline: ours samples numbers from a hidden concept). Every draw
comes from the generator it is given, so a seed fixes the suite.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable
from dataclasses import asdict, dataclass, field

import numpy as np

Gen = np.random.Generator


@dataclass
class Sample:
    output: str
    input: str | None = None


@dataclass
class Context:
    family: str
    description: str | None
    samples: list[Sample]
    meta: dict = field(default_factory=dict)

    def to_json(self) -> dict:
        return asdict(self)

    @classmethod
    def from_json(cls, d: dict) -> Context:
        return cls(d["family"], d["description"], [Sample(**s) for s in d["samples"]],
                   d.get("meta", {}))


# --------------------------------------------------------------------------- word lists

COLOURS = ["red", "blue", "green", "yellow", "black", "white", "orange", "purple"]
FRUITS = ["apple", "banana", "cherry", "grape", "lemon", "mango", "peach", "pear", "plum", "kiwi"]
ANIMALS = ["cat", "dog", "horse", "rabbit", "fox", "owl", "deer", "wolf", "bear", "otter"]
CITIES = ["Paris", "Tokyo", "Lima", "Cairo", "Oslo", "Delhi", "Quito", "Rome", "Seoul", "Perth"]
WORD_LISTS = {"fruit": FRUITS, "animal": ANIMALS, "city": CITIES, "colour": COLOURS}
SUITS = ["hearts", "diamonds", "clubs", "spades"]
RANKS = ["2", "3", "4", "5", "6", "7", "8", "9", "10", "jack", "queen", "king", "ace"]


def _p(x: float) -> str:
    return f"{x:.2f}"


def _describe(rng: Gen, stated: list[str], unstated: list[str]) -> tuple[str, bool]:
    """A description that states the parameters or leaves them to the examples (half each):
    the suite's coin flips with stated and unstated biases, and the like for every family."""
    if rng.random() < 0.5:
        return str(rng.choice(stated)), True
    return str(rng.choice(unstated)), False


# --------------------------------------------------------------------------- training families
# each returns (description, stated?, a sampler of one Sample, meta)

def coinflip(rng: Gen):
    p = float(rng.uniform(0, 1))
    d, st = _describe(rng, [f"Flip a coin that lands heads with probability {_p(p)}.",
                            f"A biased coin: P(heads) = {_p(p)}. Report each flip."],
                      ["Flip a biased coin and report each flip.", "Coin flips of an unfair coin."])
    return d, st, lambda r: Sample("heads" if r.random() < p else "tails"), {"p": p}


def normal(rng: Gen):
    mu, sd = float(rng.uniform(-50, 50)), float(rng.uniform(0.5, 20))
    d, st = _describe(rng, [f"Draw from a normal distribution with mean {mu:.1f} and standard "
                            f"deviation {sd:.1f}, rounded to one decimal."],
                      ["Draws from a normal distribution, rounded to one decimal."])
    return d, st, lambda r: Sample(f"{r.normal(mu, sd):.1f}"), {"mu": mu, "sd": sd}


def categorical(rng: Gen):
    kind = str(rng.choice(list(WORD_LISTS)))
    k = int(rng.integers(2, 6))
    items = [str(x) for x in rng.choice(WORD_LISTS[kind], size=k, replace=False)]
    w = rng.dirichlet(np.ones(k))
    spec = ", ".join(f"{i} {x:.0%}" for i, x in zip(items, w, strict=True))
    d, st = _describe(rng, [f"Pick a {kind} at random with these chances: {spec}."],
                      [f"Pick a {kind} at random from a fixed set with fixed chances."])
    return d, st, lambda r: Sample(items[int(r.choice(k, p=w))]), {"items": items,
                                                                   "w": w.tolist()}


def binomial(rng: Gen):
    n, p = int(rng.integers(1, 21)), float(rng.uniform(0.05, 0.95))
    d, st = _describe(rng, [f"Count the successes in {n} independent trials that each succeed "
                            f"with probability {_p(p)}."],
                      ["Count the successes in a fixed number of independent trials."])
    return d, st, lambda r: Sample(str(int(r.binomial(n, p)))), {"n": n, "p": p}


def geometric(rng: Gen):
    p = float(rng.uniform(0.1, 0.9))
    d, st = _describe(rng, [f"Count the trials up to and including the first success, each trial "
                            f"succeeding with probability {_p(p)}."],
                      ["Count the trials up to and including the first success."])
    return d, st, lambda r: Sample(str(int(r.geometric(p)))), {"p": p}


def poisson(rng: Gen):
    lam = float(rng.uniform(0.5, 15))
    d, st = _describe(rng, [f"Draw a count from a Poisson distribution with mean {lam:.1f}."],
                      ["Draw counts from a Poisson distribution."])
    return d, st, lambda r: Sample(str(int(r.poisson(lam)))), {"lam": lam}


def zipfian(rng: Gen):
    n, s = int(rng.integers(5, 51)), float(rng.uniform(0.5, 2.5))
    w = 1.0 / np.arange(1, n + 1) ** s
    w /= w.sum()
    d, st = _describe(rng, [f"Draw a rank from 1 to {n} with probability proportional to "
                            f"1/rank^{s:.1f}."],
                      ["Draw ranks from a Zipf-like distribution."])
    return d, st, lambda r: Sample(str(int(r.choice(n, p=w)) + 1)), {"n": n, "s": s}


def cards(rng: Gen):
    deck = [f"{r} of {s}" for s in SUITS for r in RANKS]
    order = [deck[i] for i in rng.permutation(len(deck))]
    d, st = _describe(rng, ["Deal cards one at a time from a shuffled 52-card deck, without "
                            "replacement."], ["Deal cards from a deck."])
    it = iter(order)
    return d, st, lambda r: Sample(next(it)), {"without_replacement": True}


def _first_names() -> dict[str, dict[str, float]]:
    """US first names with their frequencies in the population (Faker's en_US lists, census
    and SSA based): the offline stand-in for the official babynames task."""
    from faker.providers.person.en_US import Provider

    return {"female": dict(Provider.first_names_female),
            "male": dict(Provider.first_names_male)}


def names(rng: Gen):
    """A first name under a constraint (sex and initial), drawn as often as it is given."""
    lists = _first_names()
    sex = str(rng.choice(sorted(lists)))
    pool = lists[sex]
    initials = sorted({n[0] for n in pool if sum(m[0] == n[0] for m in pool) >= 5})
    letter = str(rng.choice(initials))
    cand = sorted(n for n in pool if n[0] == letter)
    w = np.array([pool[n] for n in cand])
    w /= w.sum()
    d, st = _describe(rng, [f"Give a random US {sex} first name starting with {letter}, each "
                            "name as often as it occurs among people."],
                      ["Random first names that all fit one constraint."])
    return d, st, lambda r: Sample(cand[int(r.choice(len(cand), p=w))]), {
        "sex": sex, "letter": letter}


# --------------------------------------------------------------------------- held-out families

def urn(rng: Gen):
    k = int(rng.integers(2, 6))
    colours = [str(c) for c in rng.choice(COLOURS, size=k, replace=False)]
    counts = rng.integers(1, 11, size=k)
    w = counts / counts.sum()
    spec = ", ".join(f"{n} {c}" for c, n in zip(colours, counts, strict=True))
    d, st = _describe(rng, [f"An urn holds {spec} balls. Draw one ball, report its colour and "
                            "put it back."],
                      ["Draw a ball from an urn, report its colour and put it back."])
    return d, st, lambda r: Sample(colours[int(r.choice(k, p=w))]), {
        "colours": colours, "counts": counts.tolist()}


NUMBER_CONCEPTS: dict[str, Callable[[int], bool]] = {
    "even": lambda x: x % 2 == 0,
    "odd": lambda x: x % 2 == 1,
    "multiples of 3": lambda x: x % 3 == 0,
    "multiples of 5": lambda x: x % 5 == 0,
    "multiples of 7": lambda x: x % 7 == 0,
    "multiples of 10": lambda x: x % 10 == 0,
    "squares": lambda x: round(math.isqrt(x)) ** 2 == x,
    "powers of 2": lambda x: x & (x - 1) == 0,
    "primes": lambda x: x > 1 and all(x % d for d in range(2, math.isqrt(x) + 1)),
    "ending in 3": lambda x: x % 10 == 3,
    "ending in 7": lambda x: x % 10 == 7,
    "between 20 and 35": lambda x: 20 <= x <= 35,
    "between 60 and 80": lambda x: 60 <= x <= 80,
}


def numbergame(rng: Gen):
    name = str(rng.choice(list(NUMBER_CONCEPTS)))
    members = [x for x in range(1, 101) if NUMBER_CONCEPTS[name](x)]
    d = str(rng.choice(["Numbers from 1 to 100 that all fit one hidden rule.",
                        "Examples of a hidden number concept (1 to 100)."]))
    return d, False, lambda r: Sample(str(members[int(r.integers(len(members)))])), {
        "concept": name}


def flight(rng: Gen):
    """One traveller's choices between two flights: a hidden utility over price, hours and stops
    (softmax choice); the input is the options as JSON ([price, hours, stops] per letter), the
    output the chosen letter."""
    wt = rng.normal(0, 1, size=3) * np.array([1 / 100, 1 / 2, 1.0])
    d = str(rng.choice(["One traveller chooses between two flights ([price, hours, stops]).",
                        "Which flight does this person pick? Options give [price, hours, stops]."]))

    def draw(r: Gen) -> Sample:
        opts = {c: [int(r.integers(80, 900)), round(float(r.uniform(1, 14)), 1),
                    int(r.integers(0, 3))] for c in "AB"}
        u = np.array([-float(wt @ np.array(o)) * 3 for o in opts.values()])
        pr = np.exp(u - u.max())
        pr /= pr.sum()
        return Sample("AB"[int(r.choice(2, p=pr))], json.dumps(opts, separators=(",", ":")))

    return d, False, draw, {"weights": wt.tolist()}


TRAIN_FAMILIES = {"coinflip": coinflip, "normal": normal, "categorical": categorical,
                  "binomial": binomial, "geometric": geometric, "poisson": poisson,
                  "zipfian": zipfian, "cards": cards, "names": names}
HELDOUT_FAMILIES = {"urn": urn, "numbergame": numbergame, "flight": flight}
FAMILIES = {**TRAIN_FAMILIES, **HELDOUT_FAMILIES}


def make_context(family: str, rng: Gen, n_samples: int, description_prob: float) -> Context:
    """One context of `family` with `n_samples` i.i.d. samples; the description is kept with
    probability `description_prob` (the official code's 0.6), else the samples stand alone."""
    if family not in FAMILIES:
        raise ValueError(f"unknown family {family!r} (known: {', '.join(FAMILIES)})")
    desc, stated, draw, meta = FAMILIES[family](rng)
    if family == "cards":
        n_samples = min(n_samples, 52)
    samples = [draw(rng) for _ in range(n_samples)]
    keep = bool(rng.random() < description_prob)
    return Context(family, desc if keep else None, samples,
                   {**meta, "stated": stated and keep})


# --------------------------------------------------------------------------- distribution items

@dataclass
class DistItem:
    task: str
    description: str
    input: str | None
    options: list[str]
    target: list[float]

    def to_json(self) -> dict:
        return asdict(self)


def urn_item(rng: Gen) -> DistItem:
    k = int(rng.integers(2, 6))
    colours = [str(c) for c in rng.choice(COLOURS, size=k, replace=False)]
    counts = rng.integers(1, 11, size=k)
    spec = ", ".join(f"{n} {c}" for c, n in zip(colours, counts, strict=True))
    return DistItem("urn", f"An urn holds {spec} balls. Draw one ball and report its colour.",
                    None, colours, (counts / counts.sum()).tolist())


def dice_item(rng: Gen) -> DistItem:
    n = int(rng.integers(1, 4))
    probs = np.ones(1)
    for _ in range(n):
        probs = np.convolve(probs, np.ones(6) / 6)
    options = [str(s) for s in range(n, 6 * n + 1)]
    what = "a fair six-sided die and report the number" if n == 1 else \
        f"{n} fair six-sided dice and report their sum"
    return DistItem("dice_sum", f"Roll {what}.", None, options, probs.tolist())


DIST_TASKS = {"urn": urn_item, "dice_sum": dice_item}


# --------------------------------------------------------------------------- coverage tasks

US_STATES = [
    "Alabama", "Alaska", "Arizona", "Arkansas", "California", "Colorado", "Connecticut",
    "Delaware", "Florida", "Georgia", "Hawaii", "Idaho", "Illinois", "Indiana", "Iowa", "Kansas",
    "Kentucky", "Louisiana", "Maine", "Maryland", "Massachusetts", "Michigan", "Minnesota",
    "Mississippi", "Missouri", "Montana", "Nebraska", "Nevada", "New Hampshire", "New Jersey",
    "New Mexico", "New York", "North Carolina", "North Dakota", "Ohio", "Oklahoma", "Oregon",
    "Pennsylvania", "Rhode Island", "South Carolina", "South Dakota", "Tennessee", "Texas",
    "Utah", "Vermont", "Virginia", "Washington", "West Virginia", "Wisconsin", "Wyoming"]
WEEKDAYS = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"]


def _css_colours() -> list[str]:
    from matplotlib.colors import CSS4_COLORS  # the 148 CSS colour names, offline

    return sorted(CSS4_COLORS)


def _int_in(lo: int, hi: int, pred: Callable[[int], bool] = lambda x: True
            ) -> Callable[[str], bool]:
    def ok(s: str) -> bool:
        return s.isdigit() and lo <= int(s) <= hi and pred(int(s))
    return ok


@dataclass
class CoverageTask:
    name: str
    description: str
    examples: list[str]
    valid: Callable[[str], bool]
    max_new_tokens: int
    n_valid: int
    """how many distinct valid outputs exist (the ceiling of yield)"""


def coverage_tasks() -> dict[str, CoverageTask]:
    """The paper's "diverse valid" generation tasks that need no outside list (each: a
    description, three example outputs, a rule that says whether an output is valid)."""
    colours = _css_colours()
    primes = [x for x in range(2, 100) if NUMBER_CONCEPTS["primes"](x)]
    cs = {c.lower() for c in colours}
    return {t.name: t for t in [
        CoverageTask("rng_1_10", "Generate a random integer from 1 to 10.", ["7", "2", "9"],
                     _int_in(1, 10), 4, 10),
        CoverageTask("rng_1_100", "Generate a random integer from 1 to 100.", ["42", "7", "88"],
                     _int_in(1, 100), 5, 100),
        CoverageTask("small_prime_numbers", "Name a prime number below 100.", ["13", "2", "61"],
                     _int_in(2, 99, NUMBER_CONCEPTS["primes"]), 5, len(primes)),
        CoverageTask("weekdays_full", "Name a day of the week.", ["Tuesday", "Sunday", "Friday"],
                     lambda s: s in WEEKDAYS, 5, 7),
        CoverageTask("us_states_full_names", "Name a US state (full name).",
                     ["Ohio", "New Mexico", "Vermont"], lambda s: s in US_STATES, 8, 50),
        CoverageTask("color_names", "Name a CSS color keyword.", ["teal", "salmon", "khaki"],
                     lambda s: s.lower() in cs, 8, len(cs)),
    ]}
