"""Full scale: the paper's code benchmarks (EvalPlus HumanEval(+)/MBPP(+), LiveCodeBench code
generation) on the compressed model, generated in this process and graded by the benchmarks'
own code.

Why not call the benchmarks' CLIs on a saved checkpoint: the paper's evaluation (official
`eval.py`) runs Qwen models with thinking disabled (`enable_thinking=False`) through forks of
EvalPlus and LiveCodeBench behind a vLLM server. Upstream EvalPlus's `hf` backend renders
Qwen3's chat template with thinking on, and upstream LiveCodeBench neither lists Qwen3-30B-A3B
in its model store nor takes a seed or an output directory. So one greedy chat generator (the
model's own chat template, thinking off, as the paper's server requests) writes every
completion, resumably (a killed job keeps what it generated), and each benchmark's own code
builds the prompts (EvalPlus's chat instruction, LiveCodeBench's OpenAI-chat messages),
extracts the code (`evalplus.sanitize`, `lcb_runner`'s `extract_code`) and grades it
(`evalplus.evaluate` on the samples file, `lcb_runner.runner.custom_evaluator`).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import shutil
import subprocess
import sys
from collections.abc import Callable
from dataclasses import asdict
from pathlib import Path
from typing import TYPE_CHECKING, Any

import torch

from repro.core.progress import get_logger

if TYPE_CHECKING:
    from repro.papers.reap.settings import EvalConfig

log = get_logger("reap.benchmarks")

Messages = list[dict[str, str]]
# EvalPlus's instruction for chat models (evalplus.codegen, its OpenAI-chat provider's format).
EVALPLUS_INSTRUCTION = ("Please provide a self-contained Python script that solves the following "
                        "problem in a markdown code block:")


class ChatGenerator:
    """Greedy completions of chat messages, rendered with the model's own chat template (thinking
    off where the template knows the switch) and left-padded into batches."""

    def __init__(self, model: torch.nn.Module, tokenizer: Any, max_new_tokens: int,
                 enable_thinking: bool = False):
        self.model, self.tok = model, tokenizer
        self.max_new_tokens, self.enable_thinking = max_new_tokens, enable_thinking
        if self.tok.pad_token_id is None:
            self.tok.pad_token = self.tok.eos_token

    def render(self, messages: Messages) -> str:
        return self.tok.apply_chat_template(messages, tokenize=False, add_generation_prompt=True,
                                            enable_thinking=self.enable_thinking)

    @torch.no_grad()
    def __call__(self, batch: list[Messages]) -> list[str]:
        texts = [self.render(m) for m in batch]
        side = self.tok.padding_side
        self.tok.padding_side = "left"
        try:
            enc = self.tok(texts, return_tensors="pt", padding=True, add_special_tokens=False)
        finally:
            self.tok.padding_side = side
        dev = next(self.model.parameters()).device
        out = self.model.generate(input_ids=enc["input_ids"].to(dev),
                                  attention_mask=enc["attention_mask"].to(dev),
                                  max_new_tokens=self.max_new_tokens, do_sample=False,
                                  pad_token_id=self.tok.pad_token_id)
        new = out[:, enc["input_ids"].shape[1]:]
        return self.tok.batch_decode(new, skip_special_tokens=True)


def fresh_workdir(work: Path, key: dict[str, Any]) -> Path:
    """`work`, emptied unless it was made for the same `key` (method, ratio, seed, calibration
    statistics, settings): a rerun of a killed job resumes, a rerun after a change starts over."""
    stamp = work / "key.json"
    text = json.dumps(key, sort_keys=True)
    if stamp.exists() and stamp.read_text() != text:
        log.info("%s was made for other settings: starting over", work)
        shutil.rmtree(work)
    work.mkdir(parents=True, exist_ok=True)
    stamp.write_text(text)
    return work


def resumable_completions(prompts: dict[str, Messages], path: Path,
                          generate: Callable[[list[Messages]], list[str]],
                          batch_size: int) -> dict[str, str]:
    """Completions for every prompt id, appended to `path` (JSONL) one batch at a time; ids
    already there are not generated again. Prompts go in length order (less padding)."""
    done: dict[str, str] = {}
    if path.exists():
        text = path.read_text()
        if text and not text.endswith("\n"):  # a line cut off when the job was killed
            text = text[: text.rfind("\n") + 1]
            path.write_text(text)
        for line in text.splitlines():
            row = json.loads(line)
            done[row["id"]] = row["completion"]
    todo = sorted((i for i in prompts if i not in done), key=lambda i: len(str(prompts[i])))
    if done:
        log.info("%s: %d completions on disk, %d to generate", path.name, len(done), len(todo))
    with path.open("a") as f:
        for b in range(0, len(todo), batch_size):
            ids = todo[b:b + batch_size]
            outs = generate([prompts[i] for i in ids])
            for i, o in zip(ids, outs, strict=True):
                f.write(json.dumps({"id": i, "completion": o}) + "\n")
                done[i] = o
            f.flush()
            os.fsync(f.fileno())
            log.info("%s: %d/%d", path.name, len(done), len(prompts))
    return {i: done[i] for i in prompts}


def _run(cmd: list[str], what: str, cwd: Path | None = None) -> None:
    log.info("running %s: %s", what, " ".join(cmd))
    try:
        proc = subprocess.run(cmd, capture_output=True, text=True, check=False, cwd=cwd)
    except FileNotFoundError:
        raise SystemExit(f"{what} is not installed: see src/repro/papers/reap/README.md") from None
    if proc.returncode != 0:
        raise SystemExit(f"{what} failed ({proc.returncode}): {proc.stderr.strip()[-800:]}")


# ----------------------------------------------------------------------------- EvalPlus
def evalplus_pass1(results: dict[str, Any]) -> tuple[float, float]:
    """pass@1 on the base tests and on base + extra tests from EvalPlus's `*_eval_results.json`
    (greedy: one sample per task, so pass@1 is the share of tasks passed)."""
    ev = results["eval"]
    if not ev:
        raise ValueError("EvalPlus results hold no tasks")
    base = [sum(r["base_status"] == "pass" for r in rs) / len(rs) for rs in ev.values()]
    plus = [sum(r["base_status"] == "pass" and r["plus_status"] == "pass" for r in rs) / len(rs)
            for rs in ev.values()]
    return sum(base) / len(base), sum(plus) / len(plus)


def run_evalplus(generate: Callable[[list[Messages]], list[str]], dataset: str, work: Path,
                 batch_size: int) -> dict[str, float]:
    from evalplus.data import get_human_eval_plus, get_mbpp_plus
    from evalplus.sanitize import sanitize

    problems = get_human_eval_plus() if dataset == "humaneval" else get_mbpp_plus()
    prompts = {tid: [{"role": "user", "content":
                      f"{EVALPLUS_INSTRUCTION}\n```python\n{p['prompt'].strip()}\n```"}]
               for tid, p in problems.items()}
    raw = resumable_completions(prompts, work / f"{dataset}.raw.jsonl", generate, batch_size)
    samples = work / f"{dataset}.jsonl"
    samples.write_text("".join(
        json.dumps({"task_id": tid, "solution": sanitize(raw[tid], problems[tid]["entry_point"])})
        + "\n" for tid in problems))
    result = work / f"{dataset}_eval_results.json"
    result.unlink(missing_ok=True)  # evalplus would otherwise reuse (or ask about) an old one
    _run([sys.executable, "-m", "evalplus.evaluate", "--dataset", dataset, "--samples",
          str(samples)], "evalplus")
    base, plus = evalplus_pass1(json.loads(result.read_text()))
    return {dataset: base, f"{dataset}_plus": plus}


# ----------------------------------------------------------------------------- LiveCodeBench
def lcb_pass1(metrics: list[Any] | dict[str, Any]) -> float:
    """pass@1 from lcb_runner's `*_eval.json` ([metrics, per-problem results, metadata])."""
    m = metrics[0] if isinstance(metrics, list) else metrics
    return float(m["pass@1"])


def run_livecodebench(generate: Callable[[list[Messages]], list[str]], lcb: dict[str, Any],
                      work: Path, batch_size: int) -> float:
    from lcb_runner.lm_styles import LMStyle
    from lcb_runner.runner.scenario_router import build_prompt_benchmark
    from lcb_runner.utils.extraction_utils import extract_code
    from lcb_runner.utils.scenarios import Scenario

    sel = ["--scenario", "codegeneration", "--release_version", lcb["release_version"],
           "--start_date", lcb["start_date"], "--end_date", lcb["end_date"]]
    args = argparse.Namespace(scenario=Scenario.codegeneration, not_fast=False,
                              release_version=lcb["release_version"],
                              start_date=lcb["start_date"], end_date=lcb["end_date"])
    benchmark, format_prompt = build_prompt_benchmark(args)
    prompts = {p.question_id: format_prompt(p, LMStyle.OpenAIChat) for p in benchmark}
    raw = resumable_completions(prompts, work / "livecodebench.raw.jsonl", generate, batch_size)
    custom = work / "livecodebench.json"
    custom.write_text(json.dumps([
        {"question_id": q, "code_list": [extract_code(raw[q], LMStyle.OpenAIChat)]}
        for q in prompts]))
    _run([sys.executable, "-m", "lcb_runner.runner.custom_evaluator", "--custom_output_file",
          str(custom), *sel, "--n", "1", "--timeout", str(lcb["timeout"]),
          "--num_process_evaluate", str(lcb["num_process_evaluate"])],
         "LiveCodeBench (lcb_runner)", cwd=work)
    result = work / "livecodebench_codegeneration_output_eval.json"
    if not result.exists():
        raise SystemExit(f"LiveCodeBench wrote no {result.name} under {work}")
    return lcb_pass1(json.loads(result.read_text()))


# ----------------------------------------------------------------------------- all of them
def file_digest(path: Path | None) -> str | None:
    if path is None:
        return None
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


def run_benchmarks(model: torch.nn.Module, tokenizer: Any, ev: EvalConfig, work: Path,
                   key: dict[str, Any]) -> dict[str, float]:
    """pass@1 per benchmark of `eval.benchmarks` (EvalPlus gives base and plus for each of
    HumanEval and MBPP). `key` identifies the compressed model (see `fresh_workdir`)."""
    work = fresh_workdir(work, {**key, "eval": asdict(ev)})
    if ev.keep_models:
        model.save_pretrained(work / "model", safe_serialization=True)
        tokenizer.save_pretrained(work / "model")
    bs = ev.bench_batch_size
    out: dict[str, float] = {}
    for bench in ev.benchmarks:
        if bench in ("humaneval", "mbpp"):
            gen = ChatGenerator(model, tokenizer, ev.evalplus["max_new_tokens"])
            out.update(run_evalplus(gen, bench, work, bs))
        elif bench == "livecodebench":
            lcb = ev.livecodebench
            gen = ChatGenerator(model, tokenizer, lcb["max_tokens"])
            out["livecodebench"] = run_livecodebench(gen, lcb, work, bs)
    return out
