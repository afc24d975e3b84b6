"""The Countdown task: problems, prompts, the reward/verifier, and a canonical equation form.

A problem is a list of numbers and a target; an answer is an arithmetic expression that uses
every number exactly once (+ - * / and parentheses) and evaluates to the target.

The reward follows the official TinyZero Countdown scorer in spirit (1 for a correct
equation, `format_score` = 0.1 for an extracted but wrong equation, 0 when no equation can be
extracted); our verifier evaluates with exact fractions instead of float `eval`, and "correct"
(used for accuracy and pass@k) is always the strict 0/1 check.

Two prompt styles share this module:
- `char`: a short prompt for a character-level model trained from scratch, "3 5 7=22:", whose
  answer is the bare equation followed by EOS;
- `tinyzero`: the R1-style prompt of TinyZero for pretrained models, whose answer is
  inside <answer> </answer> tags.
"""

from __future__ import annotations

import ast
import itertools
import json
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache
from pathlib import Path

import numpy as np

OPS = "+-*/"
_PREC = {"+": 1, "-": 1, "*": 2, "/": 2}
_ANSWER_RE = re.compile(r"<answer>(.*?)</answer>", re.DOTALL)
_EQ_CHARS_RE = re.compile(r"^[\d+\-*/().\s]+$")

TINYZERO_PROMPT = (
    "A conversation between User and Assistant. The user asks a question, and the Assistant "
    "solves it. The assistant first thinks about the reasoning process in the mind and then "
    "provides the user with the answer.\nUser: Using the numbers {nums}, create an equation "
    "that equals {target}. You can use basic arithmetic operations (+, -, *, /) and each number "
    "can only be used once. Show your work in <think> </think> tags. And return the final "
    "answer in <answer> </answer> tags, for example <answer> (1 + 2) / 3 </answer>.\n"
    "Assistant: Let me solve this step by step.\n<think>"
)


@dataclass(frozen=True)
class Problem:
    """One Countdown instance."""

    nums: tuple[int, ...]
    target: int

    def key(self) -> tuple[tuple[int, ...], int]:
        """Identity for train/test disjointness: the number multiset and the target."""
        return tuple(sorted(self.nums)), self.target

    def to_json(self) -> dict:
        return {"nums": list(self.nums), "target": self.target}

    @staticmethod
    def from_json(d: dict) -> Problem:
        return Problem(tuple(int(x) for x in d["nums"]), int(d["target"]))


# ----------------------------------------------------------------------------- prompts


def make_prompt(p: Problem, style: str) -> str:
    """The text the policy is conditioned on."""
    if style == "char":
        return " ".join(str(n) for n in p.nums) + f"={p.target}:"
    if style == "tinyzero":
        return TINYZERO_PROMPT.format(nums=list(p.nums), target=p.target)
    raise ValueError(f"prompt style {style!r} is not one of char, tinyzero")


def extract_equation(response: str, style: str) -> str | None:
    """The equation the response commits to, or None when there is none to extract."""
    if style == "char":
        eq = response.strip()
        return eq if eq and _EQ_CHARS_RE.match(eq) else None
    matches = _ANSWER_RE.findall(response)
    return matches[-1].strip() if matches else None


# ----------------------------------------------------------------------------- verifier


class _BadExpr(ValueError):
    pass


def _parse(eq: str) -> ast.AST:
    if not _EQ_CHARS_RE.match(eq):
        raise _BadExpr("characters outside digits, + - * / ( ) and spaces")
    try:
        tree = ast.parse(eq.strip(), mode="eval").body
    except SyntaxError as e:
        raise _BadExpr("not an expression") from e
    _check(tree)
    return tree


def _check(node: ast.AST) -> None:
    if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Add, ast.Sub, ast.Mult, ast.Div)):
        _check(node.left)
        _check(node.right)
    elif isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
        _check(node.operand)
    elif isinstance(node, ast.Constant) and type(node.value) is int:
        return
    else:
        raise _BadExpr(f"unsupported syntax {type(node).__name__}")


def _numbers(node: ast.AST) -> list[int]:
    return [n.value for n in ast.walk(node) if isinstance(n, ast.Constant)]


def _value(node: ast.AST) -> Fraction:
    if isinstance(node, ast.Constant):
        return Fraction(node.value)
    if isinstance(node, ast.UnaryOp):
        v = _value(node.operand)
        return -v if isinstance(node.op, ast.USub) else v
    a, b = _value(node.left), _value(node.right)
    if isinstance(node.op, ast.Add):
        return a + b
    if isinstance(node.op, ast.Sub):
        return a - b
    if isinstance(node.op, ast.Mult):
        return a * b
    if b == 0:
        raise ZeroDivisionError
    return a / b


def check_equation(eq: str | None, p: Problem) -> bool:
    """Strict correctness: every given number used exactly once, exact value equals target."""
    if eq is None:
        return False
    try:
        tree = _parse(eq)
        if sorted(_numbers(tree)) != sorted(p.nums):
            return False
        return _value(tree) == p.target
    except (_BadExpr, ZeroDivisionError, RecursionError):
        return False


def score(response: str, p: Problem, style: str, format_score: float = 0.1) -> tuple[float, bool]:
    """(reward, strictly correct) for one response, as the official Countdown scorer grades it:
    no extractable equation -> 0; extracted but wrong -> format_score; correct -> 1."""
    eq = extract_equation(response, style)
    if eq is None:
        return 0.0, False
    ok = check_equation(eq, p)
    return (1.0 if ok else float(format_score)), ok


# ----------------------------------------------------------------------------- canonical form


def canonical(eq: str) -> str | None:
    """A normal form so that equations differing only by reordering of + / * chains, by
    redundant parentheses or by distributing a minus sign count once ("3+5-2" == "5-(2-3)")."""
    try:
        return repr(_canon(_parse(eq)))
    except (_BadExpr, RecursionError):
        return None


def _canon(node: ast.AST) -> tuple:
    if isinstance(node, ast.Constant):
        return ("n", node.value)
    if isinstance(node, ast.UnaryOp) or isinstance(node.op, (ast.Add, ast.Sub)):
        terms: list[tuple] = []
        _flatten_add(node, 1, terms)
        if len(terms) == 1 and terms[0][0] == 1:
            return terms[0][1]
        return ("+", tuple(sorted(terms, key=repr)))
    factors: list[tuple] = []
    _flatten_mul(node, 1, factors)
    return ("*", tuple(sorted(factors, key=repr)))


def _flatten_add(node: ast.AST, sign: int, out: list[tuple]) -> None:
    if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Add, ast.Sub)):
        _flatten_add(node.left, sign, out)
        _flatten_add(node.right, sign if isinstance(node.op, ast.Add) else -sign, out)
    elif isinstance(node, ast.UnaryOp):
        _flatten_add(node.operand, sign if isinstance(node.op, ast.UAdd) else -sign, out)
    else:
        out.append((sign, _canon(node)))


def _flatten_mul(node: ast.AST, power: int, out: list[tuple]) -> None:
    if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Mult, ast.Div)):
        _flatten_mul(node.left, power, out)
        _flatten_mul(node.right, power if isinstance(node.op, ast.Mult) else -power, out)
    else:
        out.append((power, _canon(node)))


# ----------------------------------------------------------------------------- expressions


def _render(tree: object) -> tuple[str, int]:
    """(text, precedence) of an expression tree (int leaf or (op, left, right)), with the
    minimal parentheses that keep Python's left-to-right reading."""
    if isinstance(tree, int):
        return str(tree), 3
    op, left, right = tree  # type: ignore[misc]
    ls, lp = _render(left)
    rs, rp = _render(right)
    p = _PREC[op]
    if lp < p:
        ls = f"({ls})"
    if rp < p or (rp == p and op in "-/"):  # a-(b+c), a/(b*c); a+(b-c) == a+b-c needs none
        rs = f"({rs})"
    return f"{ls}{op}{rs}", p


def _shapes(leaves: Sequence[int]) -> Iterator[object]:
    """Every binary tree (operators left as None) over the ordered leaves."""
    if len(leaves) == 1:
        yield leaves[0]
        return
    for i in range(1, len(leaves)):
        for left in _shapes(leaves[:i]):
            for right in _shapes(leaves[i:]):
                yield (None, left, right)


def _fill(shape: object, ops: Iterator[str]) -> object:
    if isinstance(shape, int):
        return shape
    _, left, right = shape  # type: ignore[misc]
    return (next(ops), _fill(left, ops), _fill(right, ops))


def _n_internal(shape: object) -> int:
    return 0 if isinstance(shape, int) else 1 + _n_internal(shape[1]) + _n_internal(shape[2])  # type: ignore[index]


@lru_cache(maxsize=4096)
def all_equations(nums: tuple[int, ...]) -> tuple[str, ...]:
    """Every expression that uses each number once (all orders, tree shapes and operators)."""
    out: set[str] = set()
    for perm in set(itertools.permutations(nums)):
        for shape in _shapes(perm):
            for ops in itertools.product(OPS, repeat=_n_internal(shape)):
                out.add(_render(_fill(shape, iter(ops)))[0])
    return tuple(sorted(out))


def solutions(p: Problem) -> tuple[str, ...]:
    """Every correct equation of a small problem (brute force over `all_equations`)."""
    return tuple(e for e in all_equations(tuple(sorted(p.nums))) if check_equation(e, p))


def random_equation(nums: Sequence[int], rng: np.random.Generator) -> str:
    """A random valid-format expression over `nums` (random order, tree shape and operators):
    the supervised warm-up data, which teaches the format but not the arithmetic."""
    perm = [int(x) for x in rng.permutation(list(nums))]
    shapes = list(_shapes(perm))
    shape = shapes[int(rng.integers(len(shapes)))]
    ops = [OPS[int(i)] for i in rng.integers(0, 4, size=_n_internal(shape))]
    return _render(_fill(shape, iter(ops)))[0]


def generate_problems(
    n: int,
    rng: np.random.Generator,
    n_numbers: Sequence[int] = (3, 3),
    max_number: int = 9,
    min_target: int = 1,
    max_target: int = 30,
    exclude: set[tuple[tuple[int, ...], int]] | None = None,
) -> list[Problem]:
    """TinyZero-style generator: draw the numbers, then the target as the value of a random
    equation over them, kept when it is an integer in [min_target, max_target]. Every problem is
    solvable, and targets reached by many equations are drawn more often, so a good share of
    problems has several distinct solutions (what the diversity metric needs). Keys in
    `exclude` (e.g. the test set) and duplicates are skipped."""
    seen = set(exclude or ())
    out: list[Problem] = []
    budget = 200 * n + 1000
    while len(out) < n and budget > 0:
        budget -= 1
        k = int(rng.integers(n_numbers[0], n_numbers[1] + 1))
        nums = tuple(int(x) for x in rng.integers(1, max_number + 1, size=k))
        try:
            v = _value(_parse(random_equation(nums, rng)))
        except ZeroDivisionError:
            continue
        if v.denominator != 1 or not min_target <= v <= max_target:
            continue
        p = Problem(nums, int(v))
        if p.key() in seen:
            continue
        seen.add(p.key())
        out.append(p)
    if len(out) < n:
        raise ValueError(
            f"countdown generator: only {len(out)} distinct problems for n={n}; widen "
            "max_number / max_target or ask for fewer problems"
        )
    return out


def read_problems(path: str | Path) -> list[Problem]:
    """Problems from a jsonl file written by this module."""
    p = Path(path)
    if not p.exists():
        raise SystemExit(f"{p} not found: run `python -m repro.core.rlvr.data` first")
    return [Problem.from_json(json.loads(line)) for line in p.read_text().splitlines() if line]
