"""The shared LLM backend: the tool-call format read back from completions, the loopback
OpenAI-compatible endpoint called through the openai SDK by the same client full uses, and the
local SmolLM2 read from its wheel's GGUF file (greedy decoding is deterministic)."""

from __future__ import annotations

import json

import pytest

from repro.core import llm

TOOLS = [{"type": "function", "function": {
    "name": "read_file", "description": "Read a file",
    "parameters": {"type": "object", "properties": {"path": {"type": "string"}},
                   "required": ["path"]}}}]


class Scripted:
    """A stand-in model: answers from a script and records the turns it was shown."""

    name = "scripted"

    def __init__(self, answers: list[str]):
        self.answers, self.seen = list(answers), []

    def count(self, messages):
        return sum(len(m["content"].split()) for m in messages)

    def generate(self, messages, max_tokens, temperature, seed):
        self.seen.append(messages)
        text = self.answers.pop(0)
        return text, len(text.split()), "stop"


def test_tool_calls_are_read_back_and_malformed_ones_dropped():
    text, calls = llm.parse_tool_calls(
        'Sure.<tool_call>[{"name": "read_file", "arguments": {"path": "a.txt"}},'
        ' {"name": "list", "arguments": {}}]</tool_call>')
    assert text == "Sure." and [c["function"]["name"] for c in calls] == ["read_file", "list"]
    assert json.loads(calls[0]["function"]["arguments"]) == {"path": "a.txt"}
    assert calls[0]["id"] != calls[1]["id"]
    # one object instead of a list, and an unterminated block at the end of the budget
    assert len(llm.parse_tool_calls('<tool_call>{"name": "x", "arguments": {}}')[1]) == 1
    assert llm.parse_tool_calls("<tool_call>[{name: x}]</tool_call>") == ("", [])
    assert llm.parse_tool_calls("no call here") == ("no call here", [])
    assert llm.parse_tool_calls('<tool_call>[{"arguments": {}}]</tool_call>')[1] == []


def test_conversation_with_tools_renders_for_a_template_without_tool_roles():
    msgs = [{"role": "system", "content": "Be brief."},
            {"role": "user", "content": "Read a.txt"},
            {"role": "assistant", "content": None, "tool_calls": [
                {"id": "c1", "type": "function",
                 "function": {"name": "read_file", "arguments": '{"path": "a.txt"}'}}]},
            {"role": "tool", "tool_call_id": "c1", "content": "hello"}]
    turns = llm.to_template_messages(msgs, TOOLS)
    assert [t["role"] for t in turns] == ["system", "user", "assistant", "user"]
    assert turns[0]["content"].startswith("Be brief.") and '"read_file"' in turns[0]["content"]
    assert llm.parse_tool_calls(turns[2]["content"])[1][0]["function"]["name"] == "read_file"
    assert turns[3]["content"] == '<tool_response name="c1">hello</tool_response>'
    assert llm.to_template_messages(msgs[:2], None)[0] == {"role": "system",
                                                           "content": "Be brief."}


def test_the_endpoint_serves_the_openai_sdk_and_counts_tokens():
    model = Scripted(['<tool_call>[{"name": "read_file", "arguments": {"path": "a"}}]'
                      "</tool_call>", "The file says hello."])
    with llm.local_endpoint(model) as url:
        client = llm.ChatClient(url, "scripted", api_key="sk-secret-never-shown")
        assert "sk-secret" not in repr(client)
        msgs = [{"role": "user", "content": "Read a"}]
        r1 = client.chat(msgs, TOOLS)
        assert r1.finish_reason == "tool_calls" and r1.tool_calls[0].name == "read_file"
        assert r1.tool_calls[0].arguments == {"path": "a"}
        msgs += [r1.message(), {"role": "tool", "tool_call_id": r1.tool_calls[0].id,
                                "content": "hello"}]
        r2 = client.chat(msgs, TOOLS)
        assert r2.content == "The file says hello." and not r2.tool_calls
        assert r2.finish_reason == "stop"
        # the second request showed the model its own call and the tool's answer
        assert "<tool_call>" in model.seen[1][2]["content"]
        assert "hello" in model.seen[1][3]["content"]
        assert client.usage["calls"] == 2
        assert client.usage["total_tokens"] == sum(r.usage["total_tokens"] for r in (r1, r2)) > 0
        with pytest.raises(llm.LLMError, match="messages"):
            client.chat([], None)


def test_the_client_needs_an_endpoint_from_the_environment():
    with pytest.raises(llm.LLMError, match="REPRO_LLM_BASE_URL and REPRO_LLM_MODEL"):
        llm.ChatClient.from_env(environ={})
    c = llm.ChatClient.from_env(environ={"REPRO_LLM_BASE_URL": "http://127.0.0.1:9/v1",
                                         "REPRO_LLM_MODEL": "m", "OPENAI_API_KEY": "sk-x"})
    assert c.model == "m" and "sk-x" not in repr(c)


@pytest.fixture(scope="module")
def smollm():
    return llm.LocalModel(threads=1)


def test_the_local_model_answers_through_the_endpoint_deterministically(smollm):
    assert llm.gguf_path().stat().st_size > 50e6
    msgs = [{"role": "user", "content": "What is the capital of France? One word."}]
    with llm.local_endpoint(smollm) as url:
        client = llm.ChatClient(url, llm.LOCAL_MODEL)
        a = client.chat(msgs, max_tokens=12)
        b = client.chat(msgs, max_tokens=12)
        assert a.content and a.content == b.content  # greedy
        assert 0 < a.usage["completion_tokens"] <= 12 and a.usage["prompt_tokens"] > 10
        s1 = client.chat(msgs, max_tokens=12, temperature=1.0, seed=3)
        s2 = client.chat(msgs, max_tokens=12, temperature=1.0, seed=3)
        assert s1.content == s2.content  # a seed makes sampling reproducible
