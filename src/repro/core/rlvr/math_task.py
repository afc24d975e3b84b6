"""The math task (DeepScaleR-style RLVR): problems, prompts, the reward, answer forms.

    python -m repro.core.rlvr.math_task --config src/repro/papers/<paper>/config.yaml --scale full \
        [--mirror DIR] --out data/<paper>/full/math

writes `train.jsonl`, `test.jsonl` and `source.json` (last) under `--out`.

Data, as verl-based math recipes read it:
- train (`data.train.source: deepscaler`): agentica-org/DeepScaleR-Preview-Dataset (40k
  problems), read from the optional data mirror's `deepscaler/train.parquet` when present (verl
  format or the hub columns), else from the HF hub via `datasets` (imported lazily; full extra);
  otherwise one error line says what to do. `source: benchmark` (tiny/small only) takes the
  first problems of a benchmark file instead, so the code path runs offline.
- `source: file`: a verl-format parquet `file` read like the benchmarks, e.g. a paper's own
  training file (DAPO-Math-17k).
- test: the official verl-format benchmark files (AIME 2024, AIME 2025, HMMT 2025, ...; `prompt`
  = chat list, `reward_model.ground_truth`), downloaded from `benchmark_url` (repro.core.fetch:
  cache, optional data mirror, URL; tiny reads committed excerpts of them). The files repeat
  each problem (x256, x64, x5) for the official vLLM sampling; we dedupe and draw
  `eval.n_samples` per problem ourselves.
- every file (mirror copy or download) and the hub rows are checked against the paper's data
  manifest (`src/repro/papers/<paper>/manifest.json`, repro.core.manifest) before they are read: a
  missing, truncated or substituted file stops the job with one line, and nothing is written.

Prompt (`prompt:`): `chat` = the user message (problem + "Let's think step by step and output the
final answer within \\boxed{}.") through the tokenizer's chat template with the generation
prompt, as verl training and the official vLLM chat-completions eval do; `plain` (the tiny
scratch model, no chat template) = the last `max_prompt_chars` characters of the message and
"\\nAnswer: ".

Reward (0/1, as the official rllm math reward and eval): the last \\boxed{...} of the response is
extracted (none -> 0) and compared with the ground truth. With `math_verify` installed (the
official checker, in the `full` extra) the check is `verify(parse("\\boxed{gt}"),
parse("\\boxed{answer}"))`; without it, a normalised string/number match (`canonical_answer`:
spaces, $, \\left/\\right, \\text{}, \\dfrac, degree signs and thousands commas dropped,
numbers and simple fractions compared as exact rationals) - stricter than math_verify (it misses
e.g. symbolic equivalences), so never used for reported numbers: source.json and every eval JSON
record which checker ran.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from fractions import Fraction
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from repro.core.config import job_parser, load_settings, typed
from repro.core.io import write_json, write_text
from repro.core.progress import get_logger

if TYPE_CHECKING:
    from collections.abc import Callable

    from repro.core.manifest import Manifest

log = get_logger("rlvr.math")

INSTRUCTION = "Let's think step by step and output the final answer within \\boxed{}."

try:  # the official checker (Math/eval/eval_math_verify.py); optional (`full` extra)
    from math_verify import parse as _mv_parse
    from math_verify import verify as _mv_verify

    CHECKER = "math_verify"
except ImportError:  # pragma: no cover - depends on the environment
    _mv_parse = _mv_verify = None
    CHECKER = "normalised string match"


@dataclass(frozen=True)
class MathProblem:
    """One math problem: the user message (problem + instruction) and its ground truth."""

    question: str
    answer: str
    source: str = ""

    def key(self) -> tuple[str, str]:
        return self.question.strip(), self.answer.strip()

    def to_json(self) -> dict:
        return {"question": self.question, "answer": self.answer, "source": self.source}

    @staticmethod
    def from_json(d: dict) -> MathProblem:
        return MathProblem(str(d["question"]), str(d["answer"]), str(d.get("source", "")))


@dataclass
class MathTrain:
    """Where the training problems come from (`math.data.train`)."""

    source: str  # deepscaler (mirror file, else the HF hub) | benchmark | file
    benchmark: str = ""  # source benchmark: the benchmark whose problems stand in (tiny/small)
    file: str = ""  # source file: a verl-format parquet beside the benchmarks
    n: int = 0  # keep the first n training problems (0: all)


@dataclass
class MathData:
    """The `math.data` block: training problems and the test benchmarks."""

    train: MathTrain  # the training problems
    test: list[str]  # the test benchmarks (names in `benchmarks`)
    benchmark_url: str  # where benchmark files are downloaded from when the mirror lacks them
    benchmarks: dict[str, str]  # benchmark name -> its verl-format parquet file
    n_test: int = 0  # problems per benchmark (0: all)
    benchmark_dir: str = "math-eval"  # the benchmark files' folder in the data mirror
    hub_dataset: str = ""  # deepscaler: the HF dataset of training problems
    hub_revision: str | None = None  # deepscaler: its revision (None: the default branch)
    train_file: str = "deepscaler/train.parquet"  # deepscaler: an offline copy (mirror)


# ----------------------------------------------------------------------------- problems


def _gt_text(gt: Any) -> str:
    if isinstance(gt, float) and gt.is_integer():  # AMC's ground truths are floats (27.0)
        return str(int(gt))
    if isinstance(gt, (list, tuple, np.ndarray)) and len(gt) == 1:
        return str(gt[0])
    return str(gt)


def frame_to_problems(df: Any, source: str) -> list[MathProblem]:
    """Problems of a frame in verl format (`prompt` chat list, `reward_model.ground_truth`) or
    with the hub's DeepScaleR columns (`problem`, `answer`), deduplicated in order."""
    out: list[MathProblem] = []
    if "prompt" in df.columns and "reward_model" in df.columns:
        for prompt, rm in zip(df["prompt"], df["reward_model"], strict=True):
            user = [m for m in prompt if m["role"] == "user"]
            out.append(MathProblem(str(user[-1]["content"]), _gt_text(rm["ground_truth"]), source))
    elif "problem" in df.columns and "answer" in df.columns:
        for q, a in zip(df["problem"], df["answer"], strict=True):
            out.append(MathProblem(f"{str(q).strip()} {INSTRUCTION}", _gt_text(a), source))
    else:
        raise SystemExit(
            f"math data ({source}): expected verl columns prompt/reward_model or hub columns "
            f"problem/answer, got {list(df.columns)}"
        )
    return dedupe(out)


def dedupe(problems: list[MathProblem]) -> list[MathProblem]:
    """Drop repeats (the benchmark files repeat each problem 5-256 times), keeping order."""
    seen: set[tuple[str, str]] = set()
    out = []
    for p in problems:
        if p.key() not in seen:
            seen.add(p.key())
            out.append(p)
    return out


def read_problems(path: str | Path) -> list[MathProblem]:
    p = Path(path)
    if not p.exists():
        raise SystemExit(f"{p} not found: run `python -m repro.core.rlvr.math_task` first")
    return [MathProblem.from_json(json.loads(line)) for line in p.read_text().splitlines() if line]


# ----------------------------------------------------------------------------- answers


def last_boxed(text: str) -> str | None:
    """Content of the last \\boxed{...} (or \\fbox{...}), braces matched; None if there is none."""
    start = max(text.rfind("\\boxed{"), text.rfind("\\fbox{"))
    if start < 0:
        m = re.search(r"\\boxed ([^\s$]+)", text)  # "\boxed 5"
        return m.group(1) if m else None
    i = text.index("{", start) + 1
    depth = 1
    for j in range(i, len(text)):
        if text[j] == "{":
            depth += 1
        elif text[j] == "}":
            depth -= 1
            if depth == 0:
                return text[i:j]
    return None


_FRAC = re.compile(r"\\frac\{([^{}]*)\}\{([^{}]*)\}")
_TEXT = re.compile(r"\\(?:text|textbf|mathrm|mbox)\{([^{}]*)\}")


def canonical_answer(ans: str) -> str:
    """A normal form of a final answer: equal forms of the same number or expression map to
    one string (used by the fallback checker and to count distinct answers)."""
    s = _TEXT.sub(r"\1", ans.replace("$", ""))
    for a, b in (("\\dfrac", "\\frac"), ("\\tfrac", "\\frac"), ("\\left", ""), ("\\right", ""),
                 ("^{\\circ}", ""), ("^\\circ", ""), ("\\%", ""), ("%", ""), ("\\$", "")):
        s = s.replace(a, b)
    s = re.sub(r"\\[,;:! ]|\\quad|\\qquad", "", s)
    s = re.sub(r"\s+", "", s).rstrip(".")
    s = _FRAC.sub(r"(\1)/(\2)", s)
    if re.fullmatch(r"-?\d{1,3}(,\d{3})+(\.\d+)?", s):
        s = s.replace(",", "")
    num = re.fullmatch(r"\(?(-?[\d.]+)\)?(?:/\(?(-?[\d.]+)\)?)?", s)
    if num:
        try:
            v = Fraction(num.group(1)) / Fraction(num.group(2) or 1)
            return str(v)
        except (ValueError, ZeroDivisionError):
            pass
    return s


def is_correct(answer: str | None, ground_truth: str) -> bool:
    """Is an extracted final answer equivalent to the ground truth (see the module doc)?"""
    if answer is None:
        return False
    if _mv_verify is not None:
        try:
            gold = _mv_parse("\\boxed{" + ground_truth + "}")
            pred = _mv_parse("\\boxed{" + answer + "}")
            return bool(_mv_verify(gold, pred))
        except Exception:  # noqa: BLE001 - the checker's parser fails in many ways
            return False
    return canonical_answer(answer) == canonical_answer(ground_truth)


def score(response: str, p: MathProblem) -> tuple[float, bool]:
    """(reward, correct): 1 if the last \\boxed{} answer is equivalent to the ground truth."""
    ok = is_correct(last_boxed(response), p.answer)
    return float(ok), ok


# ----------------------------------------------------------------------------- the task


class MathTask:
    """The `tasks.Task` interface over this module (config block `math:`): prompt `style`
    chat|plain, plain prompts cut to `max_prompt_chars`, prompts left-truncated to
    `max_prompt_tokens` (0: neither)."""

    name = "math"

    def __init__(self, style: str, max_prompt_chars: int = 0, max_prompt_tokens: int = 0) -> None:
        self.style = style
        if self.style not in ("chat", "plain"):
            raise SystemExit(f"math.prompt {self.style!r} is not one of chat, plain")
        self.max_prompt_chars = int(max_prompt_chars)
        self.max_prompt_tokens = int(max_prompt_tokens)
        self._answers: list[str] = []

    def read_problems(self, path):
        problems = read_problems(path)
        self._answers = [p.answer for p in problems]
        return problems

    def prompt_text(self, tok: Any, p: MathProblem) -> str:
        template = getattr(getattr(tok, "tok", None), "chat_template", None)
        if self.style == "chat" and template:
            messages = [{"role": "user", "content": p.question}]
            return tok.tok.apply_chat_template(
                messages, tokenize=False, add_generation_prompt=True
            )
        if self.style == "chat":
            raise SystemExit("math.prompt chat: the tokenizer has no chat template; use plain")
        q = p.question[-self.max_prompt_chars :] if self.max_prompt_chars else p.question
        return f"{q}\nAnswer: "

    def prompt_ids(self, tok, p):
        ids = tok.encode(self.prompt_text(tok, p))
        if self.max_prompt_tokens and len(ids) > self.max_prompt_tokens:
            ids = ids[-self.max_prompt_tokens :]  # verl's data.truncation=left
        return ids

    def score(self, response, p):
        return score(response, p)

    def correct_key(self, response, p):
        ans = last_boxed(response)
        return canonical_answer(ans) if is_correct(ans, p.answer) else None

    def record(self, p):
        return {"source": p.source, "answer": p.answer, "question": p.question[:200]}

    def warmup_answer(self, p, rng, correct_fraction):
        """Warm-up target (scratch model only): a boxed answer, the true one with probability
        `correct_fraction`, else that of a random training problem (teaches the format only)."""
        if not self._answers or (correct_fraction > 0 and rng.random() < correct_fraction):
            return "\\boxed{" + p.answer + "}"
        return "\\boxed{" + self._answers[int(rng.integers(len(self._answers)))] + "}"


# ----------------------------------------------------------------------------- fetch


def _benchmark(
    name: str, fname: str, cfg: MathData, fetch_from: Callable[..., tuple[Path, str]]
) -> tuple[list[MathProblem], str]:
    """The problems of the verl-format file `fname` (key `<benchmark_dir>/<fname>` of the data
    manifest): at tiny its committed excerpt, above it the file from its URL (or the cache or
    the optional data mirror), checked before it is read."""
    import pandas as pd

    path, where = fetch_from(f"{cfg.benchmark_dir}/{fname}", url=f"{cfg.benchmark_url}/{fname}")
    return frame_to_problems(pd.read_parquet(path), name), where


def _deepscaler(
    cfg: MathData, mirror: Path | None, manifest: Manifest
) -> tuple[list[MathProblem], str]:
    import pandas as pd

    from repro.core.fetch import NO_MIRROR

    local = (mirror or NO_MIRROR) / cfg.train_file
    if mirror is not None and local.exists():
        manifest.verify(cfg.train_file, local)
        return frame_to_problems(pd.read_parquet(local), "deepscaler"), f"mirror:{local}"
    name, rev = cfg.hub_dataset, cfg.hub_revision
    try:
        from datasets import load_dataset

        df = load_dataset(name, split="train", revision=rev).to_pandas()
    except ImportError:
        raise SystemExit(
            "math train data: `datasets` is not installed (pip install -e '.[full]') and "
            f"{local} is absent"
        ) from None
    except Exception as e:  # noqa: BLE001 - network errors come in many types
        raise SystemExit(
            f"math train data: cannot fetch {name} from the HF hub ({e.__class__.__name__}); "
            f"check the network, set HF_ENDPOINT to a reachable mirror, or put its rows in {local}"
        ) from None
    manifest.verify_frame(name, df, f"hub:{name}")
    return frame_to_problems(df, "deepscaler"), f"hub:{name}"


def fetch(
    cfg: MathData, mirror: Path | None, manifest: Manifest, scale: str, cache: Path
) -> tuple[list[MathProblem], list[MathProblem], dict[str, Any]]:
    """(train, test, source) from the typed `math.data` block; every file is checked against
    `manifest` (the paper's, repro.core.manifest) before it is read."""
    from repro.core.fetch import data_file

    # key, url= -> (path, where): the committed excerpt at tiny, else cache, mirror or URL
    fetch_from = partial(data_file, manifest, scale=scale, mirror=mirror, cache=cache)
    src: dict[str, Any] = {"checker": CHECKER}
    test: list[MathProblem] = []
    tests: dict[str, str] = {}
    for name in cfg.test:
        probs, where = _benchmark(name, cfg.benchmarks[name], cfg, fetch_from)
        test += probs[: cfg.n_test] if cfg.n_test else probs
        tests[name] = where
    src["test"] = tests
    tr = cfg.train
    if tr.source == "deepscaler":
        train, src["train"] = _deepscaler(cfg, mirror, manifest)
    elif tr.source == "benchmark":  # tiny/small: offline stand-in for DeepScaleR
        train, where = _benchmark(tr.benchmark, cfg.benchmarks[tr.benchmark], cfg, fetch_from)
        src["train"] = f"{where} (stand-in, not DeepScaleR)"
    elif tr.source == "file":  # a verl-format file beside the benchmarks
        train, src["train"] = _benchmark("train", tr.file, cfg, fetch_from)
    else:
        raise SystemExit(
            f"math.data.train.source {tr.source!r} is not deepscaler, benchmark, file"
        )
    held = {p.key() for p in test}
    train = [p for p in train if p.key() not in held]
    if tr.n:
        train = train[: tr.n]
    return train, test, src


def main(argv: list[str] | None = None) -> None:
    ap = job_parser("Fetch the math problems (DeepScaleR, benchmarks)")
    from repro.core.fetch import mirror_arg  # fetch code: imported where the job runs

    mirror_arg(ap)
    args = ap.parse_args(argv)
    math = load_settings(args.config, args.scale)["math"]
    if not math.get("enabled"):
        raise SystemExit(f"math is not enabled at scale {args.scale} (math.enabled)")
    from repro.core.manifest import Manifest

    cfg = typed(MathData, math["data"], "math.data")
    out = Path(args.out)
    train, test, src = fetch(cfg, args.mirror, Manifest.for_config(args.config), args.scale,
                             out / "raw")
    src.update(n_train=len(train), n_test=len(test))
    write_text(out / "train.jsonl", "".join(json.dumps(p.to_json()) + "\n" for p in train))
    write_text(out / "test.jsonl", "".join(json.dumps(p.to_json()) + "\n" for p in test))
    write_json(out / "source.json", src)  # last: its presence means the other two are complete
    log.info("math data: %d train, %d test (%s) -> %s", len(train), len(test), CHECKER, out)


if __name__ == "__main__":
    main()
