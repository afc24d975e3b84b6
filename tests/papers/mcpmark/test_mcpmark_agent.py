"""MCPMark's agent loop through the OpenAI-compatible path: a model's text tool calls, parsed by
the loopback endpoint (repro.core.llm), reach the real MCP server and change the state the
verifier judges; the turn cap, tool errors and token counts are recorded as the benchmark does;
an API key given in the environment is written nowhere; the real SmolLM2 runs one episode."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml
from conftest import REPO

from repro.core.fetch import excerpt
from repro.core.llm import ChatClient, local_endpoint
from repro.papers.mcpmark import tasks
from repro.papers.mcpmark.agent import ChatPolicy, Limits, OraclePolicy, run_episode
from repro.papers.mcpmark.harness import run_task

TASK = "postgres/chinook/update_employee_info"


def _servers_missing() -> str | None:
    from repro.papers.mcpmark import servers
    from repro.papers.mcpmark.postgres import bindir

    try:
        servers.postgres_entry()
        bindir()
    except Exception as e:  # noqa: BLE001
        return str(e)
    return None


pytestmark = pytest.mark.skipif(_servers_missing() is not None,
                                reason=f"{_servers_missing()}")


class Scripted:
    """A stand-in model behind the real endpoint: answers each request with the next text."""

    name = "scripted"

    def __init__(self, texts: list[str]):
        self.texts, self.seen = list(texts), []

    def count(self, messages: list[dict]) -> int:
        return sum(len(str(m.get("content", ""))) // 4 + 1 for m in messages)

    def generate(self, messages, max_tokens, temperature, seed):
        self.seen.append(messages)
        text = self.texts.pop(0) if self.texts else "Task completed"
        return text, len(text) // 4 + 1, "stop"


def _call(name: str, **arguments) -> str:
    return "<tool_call>" + json.dumps([{"name": name, "arguments": arguments}]) + "</tool_call>"


SOLUTION = _call("execute_sql", sql=(
    "UPDATE \"Employee\" SET \"Title\" = 'CEO' WHERE \"EmployeeId\" = 1; "
    "UPDATE \"Employee\" SET \"Phone\" = '+1 (403) 555-9999' WHERE \"EmployeeId\" = 2; "
    "UPDATE \"Employee\" SET \"Title\" = 'IT Specialist' WHERE \"Title\" = 'IT Staff';"))


@pytest.fixture(scope="module")
def pg():
    from repro.papers.mcpmark.postgres import cluster

    with cluster({"chinook": excerpt("mcpmark", "chinook/chinook.sql")}) as c:
        yield c


def _task():
    (t,) = tasks.select([TASK])
    return t


def test_text_tool_calls_go_through_the_endpoint_to_the_server(pg):
    model = Scripted([_call("list_schemas"), _call("no_such_tool"), SOLUTION, "Done."])
    with local_endpoint(model) as url:
        client = ChatClient(url, "scripted")
        rec, ep = run_task(_task(), lambda t, s: ChatPolicy(client, "scripted", max_tokens=64),
                           Limits(max_turns=10), pg=pg)
    assert rec["success"] is True, rec["verification_output"]
    assert rec["turns"] == 4 and rec["tool_calls"] == 3 and rec["agent_error"] is None
    tool_msgs = [m for m in ep.messages if m["role"] == "tool"]
    assert "public" in tool_msgs[0]["content"]  # list_schemas really ran
    assert "no_such_tool" in tool_msgs[1]["content"]  # an unknown tool is an error it sees
    assert ep.messages[0]["role"] == "system" and "Task completed" in ep.messages[0]["content"]
    assert ep.messages[1]["content"].startswith(_task().description.rstrip())
    # the model saw the tools and every tool result (as user turns: it has no tool role)
    assert "execute_sql" in model.seen[0][0]["content"]
    assert "<tool_response" in model.seen[-1][-1]["content"]
    # tokens are the endpoint's usage, summed over the 4 calls
    assert rec["input_tokens"] > 0 and rec["total_tokens"] == rec["input_tokens"] + rec[
        "output_tokens"]
    assert client.usage["calls"] == 4 and client.usage["prompt_tokens"] == rec["input_tokens"]


def test_the_turn_cap_ends_the_run_and_the_verifier_still_runs(pg):
    model = Scripted([_call("list_schemas")] * 5)
    with local_endpoint(model) as url:
        client = ChatClient(url, "scripted")
        rec, ep = run_task(_task(), lambda t, s: ChatPolicy(client, "scripted"),
                           Limits(max_turns=3), pg=pg)
    assert rec["turns"] == 3 and rec["tool_calls"] == 3
    assert rec["agent_error"] == "Max turns (3) exceeded"
    assert rec["success"] is False and "FAIL" in rec["verification_output"]


def test_a_broken_server_is_a_failed_run_not_a_crash(tmp_path):
    from mcp import StdioServerParameters

    params = StdioServerParameters(command="false", args=[])
    ep = run_episode(OraclePolicy([]), "do it", params, Limits(init_timeout=10))
    assert ep.turns == 0 and ep.error and ep.error.startswith("Agent execution failed")


def test_an_api_key_is_written_nowhere(tmp_path, monkeypatch, pg):
    """The api agent reads base URL and key from the environment; neither the run's output,
    its trajectories, its server log nor the job's stderr holds the key."""
    from repro.papers.mcpmark import run

    secret = "sk-test-" + "9f3b" * 8
    cfg = yaml.safe_load((REPO / "src/repro/papers/mcpmark/config.yaml").read_text())
    cfg["scales"]["tiny"]["agents"] = [{"name": "api-model", "kind": "api", "model": "scripted",
                                        "max_tokens": 32}]
    cfg["scales"]["tiny"]["tasks"] = [TASK]
    (tmp_path / "src/repro/papers/mcpmark").mkdir(parents=True, exist_ok=True)
    path = tmp_path / "src/repro/papers/mcpmark/config.yaml"
    path.write_text(yaml.safe_dump(cfg))
    out = tmp_path / "runs/api-model/postgres/run1.json"
    with local_endpoint(Scripted([SOLUTION])) as url:
        monkeypatch.setenv("REPRO_LLM_BASE_URL", url)
        monkeypatch.setenv("REPRO_LLM_API_KEY", secret)
        dump = tmp_path / "chinook.dump"
        dump.write_bytes((excerpt("mcpmark", "chinook/chinook.sql")).read_bytes())
        run.main(["--config", str(path), "--scale", "tiny", "--agent", "api-model",
                  "--service", "postgres", "--run", "1", "--db", str(dump), "--out", str(out)])
    doc = json.loads(out.read_text())
    assert doc["records"][0]["success"] is True and doc["kind"] == "api"
    written = [p for p in tmp_path.rglob("*") if p.is_file() and p != dump]
    assert len(written) >= 3  # the run, a trajectory, the servers' log
    for p in written:
        assert secret not in p.read_text(errors="replace"), p
    assert secret not in repr(ChatClient(url, "m", secret))


@pytest.mark.skipif(not Path(REPO / "tools/mcp").exists(), reason="no MCP tools folder")
def test_smollm2_runs_an_episode_through_the_loopback_endpoint(pg):
    """The real local model: one sampled reply (tokens counted from the endpoint's usage); its
    rate is whatever it is, and the verifier judges the state it left."""
    from repro.core.llm import LOCAL_MODEL, LocalModel

    with local_endpoint(LocalModel(threads=1)) as url:
        client = ChatClient(url, LOCAL_MODEL)
        rec, ep = run_task(_task(), lambda t, s: ChatPolicy(client, LOCAL_MODEL, max_tokens=24,
                                                            temperature=0.7, seed=1),
                           Limits(max_turns=1), pg=pg)
    assert rec["turns"] == 1 and rec["input_tokens"] > 500 and 0 < rec["output_tokens"] <= 24
    assert ep.messages[2]["role"] == "assistant"
    assert isinstance(rec["success"], bool)


def test_a_model_error_inside_the_loop_is_recorded_plainly(tmp_path):
    """The MCP client's task group wraps what the policy raises; the run's error names the
    cause itself (e.g. a prompt longer than the local model's context), and no turn counts."""
    from repro.core.llm import LLMError
    from repro.papers.mcpmark import servers

    class TooLong:
        name = "too-long"

        def respond(self, messages, tools):
            raise LLMError("the prompt has 9999 tokens, the model's context 8192")

    ep = run_episode(TooLong(), "do it", servers.filesystem(tmp_path), Limits())
    assert ep.turns == 0
    assert ep.error == ("Agent execution failed: LLMError: the prompt has 9999 tokens, the "
                        "model's context 8192")
