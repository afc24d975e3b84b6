"""MCPMark's minimal agent: a tool-calling loop over one MCP server, and the policies that drive it.

The loop follows the benchmark's MCPMarkAgent: messages start [system, user=instruction]; every
model response is one turn; its tool calls run in order through the MCP session (60 s each; a
failure becomes an "Error: ..." tool message); a response without tool calls ends the episode;
MAX_TURNS responses end it with an error; the whole episode has a wall-clock limit. Tool
results go back as the JSON of the MCP CallToolResult. Tokens are summed from each response's
usage. The verifier runs afterwards whatever happened here (harness.py).

A policy maps (messages, tools) to a `Reply` (repro.core.llm): `NullPolicy` answers at once,
`OraclePolicy` sends a task's scripted calls one per turn, `ChatPolicy` asks a model through an
OpenAI-compatible endpoint (a remote API, or the local SmolLM2 behind a loopback endpoint).
"""

from __future__ import annotations

import asyncio
import json
import os
import time
from dataclasses import dataclass, field
from typing import Any, Protocol, TextIO

from repro.core.llm import ChatClient, LLMError, Reply, ToolCall


class Policy(Protocol):
    name: str

    def respond(self, messages: list[dict], tools: list[dict]) -> Reply: ...


class NullPolicy:
    """Does nothing: says the task is done. Every verifier must fail on the untouched state."""

    name = "null"

    def respond(self, messages: list[dict], tools: list[dict]) -> Reply:
        return Reply("Task completed", [], "stop", {})


class OraclePolicy:
    """A task's scripted solution, one tool call per turn, then 'Task completed'."""

    name = "oracle"

    def __init__(self, calls: list[dict]):
        self.calls = list(calls)
        self.i = 0

    def respond(self, messages: list[dict], tools: list[dict]) -> Reply:
        if self.i >= len(self.calls):
            return Reply("Task completed", [], "stop", {})
        c = self.calls[self.i]
        self.i += 1
        return Reply("", [ToolCall(f"call_{self.i}", c["name"], c["arguments"],
                                   json.dumps(c["arguments"]))], "tool_calls", {})


class ChatPolicy:
    """A model through the shared OpenAI-compatible client (repro.core.llm.ChatClient)."""

    def __init__(self, client: ChatClient, name: str, max_tokens: int = 1024,
                 temperature: float = 0.0, seed: int | None = None, **extra: Any):
        self.client, self.name = client, name
        self.max_tokens, self.temperature, self.seed, self.extra = (
            max_tokens, temperature, seed, extra)

    def respond(self, messages: list[dict], tools: list[dict]) -> Reply:
        return self.client.chat(messages, tools, max_tokens=self.max_tokens,
                                temperature=self.temperature, seed=self.seed,
                                tool_choice="auto", **self.extra)


@dataclass
class Limits:
    max_turns: int = 100
    tool_timeout: float = 60.0
    task_timeout: float = 3600.0
    init_timeout: float = 120.0


@dataclass
class Episode:
    messages: list[dict] = field(default_factory=list)
    turns: int = 0
    tool_calls: int = 0
    tokens: dict[str, int] = field(default_factory=lambda: {
        "input_tokens": 0, "output_tokens": 0, "total_tokens": 0})
    error: str | None = None
    seconds: float = 0.0
    tools: list[str] = field(default_factory=list)

    def summary(self) -> dict:
        return {"turns": self.turns, "tool_calls": self.tool_calls, **self.tokens,
                "agent_error": self.error, "agent_seconds": round(self.seconds, 3),
                "tools_offered": len(self.tools)}


def openai_tools(listed) -> list[dict]:
    """MCP tools -> chat-completions function tools (inputSchema passed as the parameters)."""
    return [{"type": "function", "function": {
        "name": t.name, "description": t.description or "",
        "parameters": t.input_schema or {"type": "object", "properties": {}}}}
        for t in listed.tools]


def result_text(result) -> str:
    """The tool message: the JSON of the CallToolResult, as MCPMark sends it."""
    return json.dumps(result.model_dump(mode="json", by_alias=True, exclude_none=True),
                      ensure_ascii=False)


def _count(ep: Episode, usage: dict[str, int]) -> None:
    prompt, total = int(usage.get("prompt_tokens", 0)), int(usage.get("total_tokens", 0))
    ep.tokens["input_tokens"] += prompt
    ep.tokens["total_tokens"] += total
    ep.tokens["output_tokens"] += (total - prompt) if total else int(
        usage.get("completion_tokens", 0))


async def _loop(policy: Policy, instruction: str, params, limits: Limits, ep: Episode,
                system: str, errlog) -> None:
    from mcp import ClientSession
    from mcp.client.stdio import stdio_client

    async with stdio_client(params, errlog) as (read, write), ClientSession(read, write) as session:
        await asyncio.wait_for(session.initialize(), limits.init_timeout)
        listed = await asyncio.wait_for(session.list_tools(), limits.init_timeout)
        tools = openai_tools(listed)
        ep.tools = [t["function"]["name"] for t in tools]
        ep.messages += [{"role": "system", "content": system},
                        {"role": "user", "content": instruction}]
        while ep.turns < limits.max_turns:
            reply = await asyncio.to_thread(policy.respond, ep.messages, tools)
            ep.turns += 1
            _count(ep, reply.usage)
            ep.messages.append(reply.message())
            if not reply.tool_calls:
                return
            for call in reply.tool_calls:
                ep.tool_calls += 1
                try:
                    res = await asyncio.wait_for(session.call_tool(call.name, call.arguments),
                                                 limits.tool_timeout)
                    content = result_text(res)
                except TimeoutError:
                    content = f"Error: tool {call.name} timed out after {limits.tool_timeout:g} s"
                except Exception as e:  # noqa: BLE001 - the model sees the failure, as in MCPMark
                    content = f"Error: {type(e).__name__}: {e}"
                ep.messages.append({"role": "tool", "tool_call_id": call.id,
                                    "content": content})
        ep.error = f"Max turns ({limits.max_turns}) exceeded"


def _leaves(e: BaseException) -> list[BaseException]:
    """The errors inside (nested) exception groups: the MCP client's task group wraps them."""
    if isinstance(e, BaseExceptionGroup):
        return [x for sub in e.exceptions for x in _leaves(sub)]
    return [e]


def run_episode(policy: Policy, instruction: str, params, limits: Limits | None = None,
                system: str | None = None, errlog: TextIO | None = None) -> Episode:
    """One agent run on one task over one MCP server (stdio launch parameters); the server's
    stderr goes to `errlog` (default: discarded)."""
    from repro.papers.mcpmark.tasks import SYSTEM_PROMPT

    limits = limits or Limits()
    ep = Episode()
    t0 = time.monotonic()
    sink = errlog or open(os.devnull, "w")  # noqa: SIM115 - closed below
    try:
        asyncio.run(asyncio.wait_for(_loop(policy, instruction, params, limits, ep,
                                           system or SYSTEM_PROMPT, sink),
                                     limits.task_timeout))
    except TimeoutError:
        ep.error = f"Agent timed out after {limits.task_timeout:g} s"
    except LLMError as e:
        ep.error = f"Agent execution failed: {e}"
    except Exception as e:  # noqa: BLE001 - a crashed run is a failed run, recorded, not fatal
        ep.error = "Agent execution failed: " + "; ".join(
            f"{type(x).__name__}: {x}" for x in _leaves(e))
    finally:
        if errlog is None:
            sink.close()
    ep.seconds = time.monotonic() - t0
    return ep
