"""Problems with solutions laid out as steps, and chains of thought written under planted
strategies, so that whatever the encyclopedia finds can be scored against the truth.

A templated CoT is written by a simulated reasoner that prefers a strategy on each axis from the
question's own features (PREFERENCE) and ignores its preference with probability `noise`, so a
predictor that reads only the question can learn the choice up to 1 - noise. Each axis changes
the text's structure, not only a phrase:

- direction: forward (givens -> goal, steps in order) or backward (goal first, steps in reverse,
  each introduced by what it is needed for);
- verification: a check after every step, or one check of the whole solution at the end;
- exploration: rejected candidate steps before each kept one (enumerate), or an explicit list of
  subgoals solved in turn (decompose).

Wordings are drawn from pools of paraphrases, so no single phrase gives a strategy away.
"""

from __future__ import annotations

import ast
import re
from dataclasses import asdict, dataclass, field

import numpy as np

NAMES = ["Ann", "Bob", "Cal", "Dee", "Eve", "Fay", "Gus", "Hal"]


@dataclass
class Step:
    lhs: str
    rhs: str


@dataclass
class Problem:
    id: str
    family: str
    question: str
    answer: str
    steps: list[Step] = field(default_factory=list)
    givens: str = ""
    goal: str = ""
    wrong: list[Step] = field(default_factory=list)
    """plausible rejected candidates (enumerate)"""
    final: str = ""
    """the whole solution in one line (the final check)"""
    features: dict = field(default_factory=dict)

    def to_dict(self) -> dict:
        return asdict(self)


# ----------------------------------------------------------------------------- solutions as steps

_OPS = {ast.Add: "+", ast.Sub: "-", ast.Mult: "*", ast.Div: "/"}


def expression_steps(expr: str) -> tuple[list[Step], str]:
    """The binary operations of an arithmetic expression in evaluation order, each with its
    value (exact; integers where whole), and the expression's value."""
    from fractions import Fraction

    steps: list[Step] = []

    def fmt(v: Fraction) -> str:
        return str(v.numerator) if v.denominator == 1 else f"{v.numerator}/{v.denominator}"

    def walk(node: ast.AST) -> tuple[Fraction, str]:
        if isinstance(node, ast.Constant):
            return Fraction(node.value), str(node.value)
        if isinstance(node, ast.BinOp) and type(node.op) in _OPS:
            (a, ta), (b, tb) = walk(node.left), walk(node.right)
            op = _OPS[type(node.op)]
            v = {"+": a + b, "-": a - b, "*": a * b, "/": a / b if b else Fraction(0)}[op]
            steps.append(Step(f"{ta} {op} {tb}", fmt(v)))
            return v, fmt(v)
        raise ValueError(f"not an arithmetic expression: {ast.dump(node)}")

    value, _ = walk(ast.parse(expr, mode="eval").body)
    return steps, fmt(value)


def _wrong_arithmetic(nums: list[int], used: set[str], rng: np.random.Generator,
                      n: int) -> list[Step]:
    out: list[Step] = []
    for _ in range(50):
        if len(out) >= n:
            break
        a, b = rng.choice(nums, 2, replace=False)
        op = str(rng.choice(["+", "-", "*"]))
        lhs = f"{a} {op} {b}"
        if lhs in used:
            continue
        used.add(lhs)
        out.append(Step(lhs, str(eval(lhs))))  # noqa: S307 - two integers and one operator
    return out


def countdown_problems(pool: list[tuple[list[int], int]], n: int,
                       rng: np.random.Generator) -> list[Problem]:
    """Countdown problems (numbers, target; the TinyZero set ROVER uses) that have a solution,
    with one solution's steps."""
    from repro.core.rlvr.countdown import Problem as Countdown
    from repro.core.rlvr.countdown import solutions

    out: list[Problem] = []
    for i in rng.permutation(len(pool)):
        if len(out) >= n:
            break
        p = Countdown(tuple(pool[int(i)][0]), pool[int(i)][1])
        sols = solutions(p)
        if not sols:
            continue
        expr = sols[0]
        steps, _ = expression_steps(expr)
        nums = list(p.nums)
        wrong = _wrong_arithmetic(nums, {s.lhs for s in steps}, rng, len(steps))
        out.append(Problem(
            id=f"countdown-{int(i)}", family="countdown",
            question=(f"Using the numbers {nums}, create an equation that equals {p.target}. "
                      "Use each number once, with + - * / and parentheses."),
            answer=expr, steps=steps, givens=f"the numbers {', '.join(map(str, nums))}",
            goal=f"the target {p.target}", wrong=wrong, final=f"{expr} = {p.target}",
            features={"target": int(p.target), "n_numbers": len(nums), "nums": nums}))
    return out


def arithmetic_problems(n: int, rng: np.random.Generator) -> list[Problem]:
    """Multi-step expressions of three or four numbers, with and without parentheses."""
    shapes = ["({a} + {b}) * {c}", "{a} * {b} - {c}", "({a} - {b}) * {c} + {d}",
              "{a} + {b} * {c} - {d}", "({a} + {b}) * ({c} - {d})", "{a} * {b} + {c}"]
    out = []
    for i in range(n):
        shape = shapes[int(rng.integers(len(shapes)))]
        nums = [int(x) for x in rng.integers(2, 20, 4)]
        expr = shape.format(a=nums[0], b=nums[1], c=nums[2], d=nums[3])
        steps, value = expression_steps(expr)
        used = [int(t) for t in re.findall(r"\d+", expr)]
        wrong = _wrong_arithmetic(used, {s.lhs for s in steps}, rng, len(steps))
        out.append(Problem(
            id=f"arithmetic-{i}", family="arithmetic", question=f"Compute {expr}.",
            answer=value, steps=steps, givens=f"the numbers {', '.join(map(str, used))}",
            goal="the value of the expression", wrong=wrong, final=f"{expr} = {value}",
            features={"n_numbers": len(used), "parentheses": "(" in expr, "times": "*" in expr}))
    return out


def logic_problems(n: int, rng: np.random.Generator) -> list[Problem]:
    """Height-ordering puzzles: shuffled pairwise facts, asked for the tallest or shortest."""
    out = []
    for i in range(n):
        k = int(rng.integers(3, 5))
        people = [str(x) for x in rng.choice(NAMES, k, replace=False)]  # tallest first
        facts = [f"{people[j]} is taller than {people[j + 1]}" for j in range(k - 1)]
        shown = [facts[int(j)] for j in rng.permutation(k - 1)]
        ask = "tallest" if rng.random() < 0.5 else "shortest"
        answer = people[0] if ask == "tallest" else people[-1]
        steps = []
        for j in range(1, k - 1):
            steps.append(Step(f"{people[0]} is taller than {people[j]} and {people[j]} is taller "
                              f"than {people[j + 1]}", f"{people[0]} is taller than "
                              f"{people[j + 1]}"))
        steps.append(Step(f"no one is {'taller' if ask == 'tallest' else 'shorter'} than "
                          f"{answer}", f"{answer} is the {ask}"))
        wrong = [Step(f"{p} as the {ask}", f"{p} is not the {ask}")
                 for p in people if p != answer][:len(steps)]
        out.append(Problem(
            id=f"logic-{i}", family="logic",
            question=f"{'. '.join(shown)}. Who is the {ask}?", answer=answer, steps=steps,
            givens="the stated facts", goal=f"the {ask} person", wrong=wrong,
            final=f"{answer} is the {ask}", features={"n_people": k, "ask": ask}))
    return out


# ----------------------------------------------------------------------------- planted strategies

def preference(p: Problem) -> dict[str, str]:
    """The simulated reasoner's preferred pattern (`a` or `b`) per axis, from the question's
    features: what a predictor reading the question can learn."""
    f = p.features
    if p.family == "countdown":
        direction = "b" if f["target"] >= 50 else "a"
        size = f["n_numbers"]
        exploration = "a" if f["target"] % 2 == 0 else "b"
    elif p.family == "arithmetic":
        direction = "a" if f["parentheses"] else "b"
        size = f["n_numbers"]
        exploration = "b" if f["times"] and f["n_numbers"] >= 4 else "a"
    else:
        direction = "b" if f["ask"] == "shortest" else "a"
        size = f["n_people"]
        exploration = "a" if f["n_people"] == 3 else "b"
    return {"direction": direction, "verification": "a" if size >= 4 else "b",
            "exploration": exploration}


POOLS = {
    "forward_open": ["Start from {givens} and work forward.",
                     "Begin with {givens} and build toward {goal}.",
                     "Work forward from {givens}, one step at a time."],
    "backward_open": ["Start from the goal, {goal}, and work backward.",
                      "Begin at {goal} and ask what is needed to reach it.",
                      "Work backward from {goal} toward {givens}."],
    "forward_step": ["{lhs} gives {rhs}.", "Compute {lhs}: {rhs}.", "Next, {lhs} yields {rhs}."],
    "backward_step": ["To get {rhs} we need {lhs}.", "{rhs} comes from {lhs}.",
                      "We need {rhs}, which follows from {lhs}."],
    "forward_close": ["This reaches {goal}.", "We arrive at {goal}."],
    "backward_close": ["Everything needed now comes from {givens}.",
                       "This traces the goal back to {givens}."],
    "check_step": ["Check: {lhs} gives {rhs}, correct.", "Verify this step: {rhs} is right.",
                   "Double-check: {lhs} is indeed {rhs}."],
    "check_final": ["Finally, check the whole solution: {final}, correct.",
                    "Verify at the end: {final} holds.",
                    "Now check the result once: {final}, right."],
    "enum_open": ["Try candidates one at a time.", "Test the options one by one."],
    "enum_wrong": ["Try {lhs}: {rhs}, which does not work, reject it.",
                   "What about {lhs}? {rhs}, that fails.",
                   "Attempt {lhs}: {rhs}, no, discard it."],
    "decomp_open": ["Split the task into {n} subgoals: {subgoals}.",
                    "Break it into subgoals first: {subgoals}."],
    "decomp_step": ["Subgoal {i}: ", "Now subgoal {i}: "],
}


def write_cot(p: Problem, plan: dict[str, str], rng: np.random.Generator) -> str:
    """The CoT of `p` under `plan` (axis -> `a`/`b`; an axis left out takes its default
    pattern `a` for direction, and neither checks nor candidates for the other two)."""
    def pick(key: str, **kw: object) -> str:
        pool = POOLS[key]
        return pool[int(rng.integers(len(pool)))].format(**kw)

    backward = plan.get("direction") == "b"
    stepwise = plan.get("verification") == "a"
    final_check = plan.get("verification") == "b"
    enumerate_ = plan.get("exploration") == "a"
    decompose = plan.get("exploration") == "b"
    ctx = {"givens": p.givens, "goal": p.goal, "final": p.final}
    steps = list(reversed(p.steps)) if backward else list(p.steps)
    lines = [pick("backward_open" if backward else "forward_open", **ctx)]
    if decompose:
        subgoals = ", ".join(f"({i + 1}) {'find' if backward else 'get'} {s.rhs}"
                             for i, s in enumerate(steps))
        lines.append(pick("decomp_open", n=len(steps), subgoals=subgoals))
    if enumerate_:
        lines.append(pick("enum_open"))
    for i, s in enumerate(steps):
        if enumerate_ and i < len(p.wrong):
            lines.append(pick("enum_wrong", lhs=p.wrong[i].lhs, rhs=p.wrong[i].rhs))
        head = pick("decomp_step", i=i + 1) if decompose else ""
        body = pick("backward_step" if backward else "forward_step", lhs=s.lhs, rhs=s.rhs)
        lines.append(head + body[0].upper() + body[1:] if head else body[0].upper() + body[1:])
        if stepwise:
            lines.append(pick("check_step", lhs=s.lhs, rhs=s.rhs))
    lines.append(pick("backward_close" if backward else "forward_close", **ctx))
    if final_check:
        lines.append(pick("check_final", **ctx))
    lines.append(f"Answer: {p.answer}")
    return " ".join(lines)


def planted_cot(p: Problem, axes: list[str], noise: float,
                rng: np.random.Generator) -> tuple[str, dict[str, str]]:
    """The simulated reasoner's CoT: its preferred pattern per axis, each flipped with
    probability `noise`; returns the text and the planted labels."""
    pref = preference(p)
    plan = {x: (pref[x] if rng.random() >= noise else {"a": "b", "b": "a"}[pref[x]])
            for x in axes}
    return write_cot(p, plan, rng), plan


# ----------------------------------------------------------------------------- steer questions

def addition_questions(n: int, rng: np.random.Generator) -> list[dict]:
    out = []
    for i in range(n):
        a, b = (int(x) for x in rng.integers(1, 10, 2))
        out.append({"id": f"addition-{i}", "family": "addition",
                    "question": f"What is {a} + {b}?", "answer": str(a + b), "kind": "number"})
    return out


def ordering_questions(n: int, rng: np.random.Generator) -> list[dict]:
    out = []
    for i in range(n):
        x, y = (str(v) for v in rng.choice(NAMES, 2, replace=False))
        ask = "shorter" if rng.random() < 0.5 else "taller"
        out.append({"id": f"ordering-{i}", "family": "ordering",
                    "question": f"{x} is taller than {y}. Who is {ask}?",
                    "answer": y if ask == "shorter" else x, "kind": "name",
                    "choices": [x, y]})
    return out


ANSWER = re.compile(r"answer\W*(?:is\W*)?([A-Za-z0-9./-]+)", re.I)


def final_answer(text: str, q: dict) -> str | None:
    """The reply's answer: what follows the last "Answer", else the last number (or the last of
    the question's names) in the reply; a math answer is the last \\boxed{...}."""
    if q["kind"] == "math":
        boxed = re.findall(r"\\boxed\{((?:[^{}]|\{[^{}]*\})*)\}", text)
        if boxed:
            return boxed[-1]
    said = ANSWER.findall(text)
    if said:
        return said[-1].strip(".").strip()
    if q["kind"] == "number":
        nums = re.findall(r"-?\d+(?:\.\d+)?", text)
        return nums[-1] if nums else None
    if q["kind"] == "name":
        hits = [(m.start(), c) for c in q["choices"] for m in re.finditer(re.escape(c), text)]
        return max(hits)[1] if hits else None
    if q["kind"] == "choice":
        letters = re.findall(r"\b([A-J])\b", text)
        return letters[-1] if letters else None
    return None


def is_correct(text: str, q: dict) -> bool:
    got = final_answer(text, q)
    if got is None:
        return False
    if q["kind"] == "math":
        try:
            from math_verify import parse, verify

            return bool(verify(parse(q["answer"]), parse(got)))
        except ImportError:
            pass
    return got.strip().lower() == str(q["answer"]).strip().lower()
