"""REAP's full-scale benchmark plumbing on CPU: resumable generation (a killed job keeps its
completions), the work directory keyed by the compressed model, the chat generator (thinking
off, left-padded batches equal to one-by-one greedy decoding) and the pass@1 read from
EvalPlus's and LiveCodeBench's own result files. The benchmarks themselves need the network."""

from __future__ import annotations

import json

import jsonschema
import pytest
import torch

from repro.core.config import load_settings, load_yaml
from repro.papers.reap.benchmarks import (
    ChatGenerator,
    evalplus_pass1,
    fresh_workdir,
    lcb_pass1,
    resumable_completions,
)

TEMPLATE = (
    "{% for m in messages %}<|im_start|>{{ m.role }}\n{{ m.content }}<|im_end|>\n{% endfor %}"
    "{% if add_generation_prompt %}<|im_start|>assistant\n"
    "{% if enable_thinking is defined and not enable_thinking %}<think>\n\n</think>\n\n"
    "{% endif %}{% endif %}"
)


def _prompts(n: int) -> dict[str, list[dict[str, str]]]:
    return {f"t{i}": [{"role": "user", "content": "x" * (i % 3 + 1) + str(i)}] for i in range(n)}


def test_resumable_completions_keep_what_a_killed_run_wrote(tmp_path):
    prompts, path, calls = _prompts(7), tmp_path / "g.jsonl", []

    def gen(batch):
        calls.append(len(batch))
        if len(calls) == 2:
            raise KeyboardInterrupt  # killed during the second batch
        return [m[0]["content"].upper() for m in batch]

    with pytest.raises(KeyboardInterrupt):
        resumable_completions(prompts, path, gen, batch_size=3)
    assert len(path.read_text().splitlines()) == 3  # the first batch is on disk
    with path.open("a") as f:
        f.write('{"id": "t6", "compl')  # a line cut off by the kill
    calls.clear()
    out = resumable_completions(prompts, path, lambda b: [m[0]["content"].upper() for m in b], 3)
    assert out == {k: v[0]["content"].upper() for k, v in prompts.items()}
    assert list(out) == list(prompts)
    again = resumable_completions(prompts, path, lambda b: pytest.fail("regenerated"), 3)
    assert again == out


def test_workdir_is_kept_for_the_same_model_and_emptied_for_another(tmp_path):
    work = tmp_path / "w"
    fresh_workdir(work, {"method": "reap", "ratio": 50, "obs": "abc"})
    (work / "humaneval.raw.jsonl").write_text("x\n")
    fresh_workdir(work, {"ratio": 50, "method": "reap", "obs": "abc"})
    assert (work / "humaneval.raw.jsonl").exists()
    fresh_workdir(work, {"method": "reap", "ratio": 50, "obs": "def"})
    assert not (work / "humaneval.raw.jsonl").exists()


def test_evalplus_and_lcb_pass_at_1_from_their_result_files():
    ev = {"eval": {
        "HumanEval/0": [{"base_status": "pass", "plus_status": "pass"}],
        "HumanEval/1": [{"base_status": "pass", "plus_status": "fail"}],
        "HumanEval/2": [{"base_status": "fail", "plus_status": "pass"}],
        "HumanEval/3": [{"base_status": "fail", "plus_status": "fail"}],
    }}
    assert evalplus_pass1(ev) == (0.5, 0.25)
    with pytest.raises(ValueError):
        evalplus_pass1({"eval": {}})
    assert lcb_pass1([{"pass@1": 0.375, "detail": {}}, {}, []]) == 0.375


def _tokenizer():
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers
    from transformers import PreTrainedTokenizerFast

    alphabet = pre_tokenizers.ByteLevel.alphabet()
    vocab = {c: i for i, c in enumerate(sorted(alphabet))}
    t = Tokenizer(models.BPE(vocab=vocab, merges=[]))
    t.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    t.decoder = decoders.ByteLevel()
    tok = PreTrainedTokenizerFast(tokenizer_object=t, eos_token="<|im_end|>",
                                  additional_special_tokens=["<|im_start|>"])
    tok.chat_template = TEMPLATE
    return tok


def _chat_model(vocab_size: int) -> torch.nn.Module:
    from transformers import Qwen3MoeConfig, Qwen3MoeForCausalLM

    torch.manual_seed(0)
    cfg = Qwen3MoeConfig(vocab_size=vocab_size, hidden_size=32, intermediate_size=32,
                         moe_intermediate_size=16, num_hidden_layers=2, num_attention_heads=2,
                         num_key_value_heads=1, head_dim=16, num_experts=4,
                         num_experts_per_tok=2, max_position_embeddings=256,
                         norm_topk_prob=True)
    return Qwen3MoeForCausalLM(cfg).eval()


def test_chat_generator_turns_thinking_off_and_batches_like_single_prompts():
    tok = _tokenizer()
    model = _chat_model(len(tok))
    gen = ChatGenerator(model, tok, max_new_tokens=6)
    texts = ("def f():", "a much longer prompt here", "x")
    msgs = [[{"role": "user", "content": c}] for c in texts]
    assert gen.render(msgs[0]).endswith("<|im_start|>assistant\n<think>\n\n</think>\n\n")
    on = ChatGenerator(model, tok, max_new_tokens=6, enable_thinking=True)
    assert "<think>" not in on.render(msgs[0])
    batched = gen(msgs)
    single = [gen([m])[0] for m in msgs]
    assert batched == single
    assert all(isinstance(s, str) for s in batched)
    assert tok.padding_side == "right"  # restored


def test_full_settings_carry_the_benchmark_settings_and_the_schema_asks_for_them():
    s = load_settings("src/repro/papers/reap/config.yaml", "full")
    ev = s["eval"]
    assert ev["benchmarks"] == ["humaneval", "mbpp", "livecodebench"]
    assert ev["livecodebench"]["start_date"] == "2025-01-01"
    assert ev["livecodebench"]["end_date"] == "2025-07-31"
    schema = load_yaml("src/repro/papers/reap/schema.yaml")["properties"]["eval"]
    bad = {k: v for k, v in ev.items() if k != "livecodebench"}
    with pytest.raises(jsonschema.ValidationError, match="livecodebench"):
        jsonschema.validate(bad, schema)
    plain = {k: v for k, v in ev.items() if k not in ("bench_batch_size", "evalplus",
                                                        "livecodebench")}
    jsonschema.validate({**plain, "benchmarks": []}, schema)  # needed only where asked for
    assert json.loads(json.dumps(ev)) == ev
