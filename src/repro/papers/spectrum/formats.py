"""How a context becomes text: the Spectrum format and the two baseline formats the paper reads
other models in, as lists of segments (text, loss?, output index).

- `spectrum`: each turn is the model family's own chat turn whose role name is the literal word
  `description`, `input` or `output`; loss on each output's content and its end token only, and
  none on the first output when there is no description (nothing to predict it from).
- `chat` (instruction-tuned models): a system prompt explaining the task (+ the description),
  inputs as user turns (`Generate` where there is none), outputs as assistant turns; with no
  description the first sample goes into the system prompt as an example, so it carries no loss.
- `colon` (pretrained models): `Description: ...`, `Input: ...`, `Output: y` blocks separated by
  blank lines, loss on ` y\\n\\n` of every output.

Segments are tokenised one by one and concatenated (`models.encode`), so every token of an
output is known exactly, whatever the tokenizer would merge across a boundary.
"""

from __future__ import annotations

from dataclasses import dataclass

from repro.papers.spectrum.suite import Context


@dataclass(frozen=True)
class Family:
    """A model family's turn tokens."""

    header: str
    """a turn's opening, with `{role}`"""
    end: str
    """the end-of-turn token: the stop string, and part of an output's loss"""
    sep: str
    """what follows the end token"""
    bos: str = ""
    think: str = ""
    """inserted after the assistant header in `chat` (Qwen3's empty thinking block)"""
    assistant: str = "assistant"
    system_role: bool = True


FAMILIES = {
    "smollm2": Family("<|im_start|>{role}\n", "<|im_end|>", "\n"),
    "qwen3": Family("<|im_start|>{role}\n", "<|im_end|>", "\n", think="<think>\n\n</think>\n\n"),
    "llama3": Family("<|start_header_id|>{role}<|end_header_id|>\n\n", "<|eot_id|>", "",
                     bos="<|begin_of_text|>"),
    "gemma3": Family("<start_of_turn>{role}\n", "<end_of_turn>", "\n", bos="<bos>",
                     assistant="model", system_role=False),
}
FORMATS = ("spectrum", "chat", "colon")

CHAT_SYSTEM = (
    "You will see the description of a data-generating process (when there is one), and then "
    "samples drawn from it independently: an input when the process takes one, and an output. "
    "Treat the outputs as exchangeable draws from the same process and produce the next output "
    "as one more draw from it. Reply with the output alone, nothing else.")
DIST_SYSTEM = "Given the description and an input, respond with just an output."

Segment = tuple[str, bool, int]
"""(text, carries loss, output index or -1)"""


def _turn(fam: Family, role: str, text: str, loss: bool = False, index: int = -1,
          prefix: str = "") -> list[Segment]:
    return [(fam.header.format(role=role) + prefix, False, -1), (text + fam.end, loss, index),
            (fam.sep, False, -1)]


def _system(fam: Family, text: str) -> list[Segment]:
    return _turn(fam, "system", text) if fam.system_role else []


def _user(fam: Family, text: str, system: str) -> list[Segment]:
    """A user turn; a family without a system role (Gemma) gets the system text in front of
    its first user turn."""
    return _turn(fam, "user", text if fam.system_role or not system else f"{system}\n\n{text}")


def render(ctx: Context, fmt: str, fam: Family) -> list[Segment]:
    """A whole context with its loss mask, output indices in sample order (0-based)."""
    if fmt == "spectrum":
        segs = _turn(fam, "description", ctx.description) if ctx.description else []
        for j, s in enumerate(ctx.samples):
            if s.input is not None:
                segs += _turn(fam, "input", s.input)
            segs += _turn(fam, "output", s.output, loss=j > 0 or bool(ctx.description), index=j)
        return segs
    if fmt == "chat":
        system, first = CHAT_SYSTEM, 0
        if ctx.description:
            system += f"\n\nDescription: {ctx.description}"
        else:  # nothing to predict the first sample from: it becomes the example
            s = ctx.samples[0]
            system += ("" if s.input is None else f"\n\nExample Input: {s.input}") + \
                f"\n\nExample Output: {s.output}"
            first = 1
        segs = _system(fam, system)
        for j, s in enumerate(ctx.samples[first:], start=first):
            segs += _user(fam, s.input if s.input is not None else "Generate",
                          system if j == first else "")
            segs += _turn(fam, fam.assistant, s.output, loss=True, index=j, prefix=fam.think)
        return segs
    if fmt == "colon":
        segs = [(f"Description: {ctx.description}\n\n", False, -1)] if ctx.description else []
        for j, s in enumerate(ctx.samples):
            if s.input is not None:
                segs.append((f"Input: {s.input}\n\n", False, -1))
            segs += [("Output:", False, -1), (f" {s.output}\n\n", True, j)]
        return segs
    raise ValueError(f"unknown format {fmt!r} (known: {', '.join(FORMATS)})")


def prompt(fmt: str, fam: Family, description: str | None, examples: list[str],
           input: str | None = None, system: str = CHAT_SYSTEM) -> list[Segment]:
    """The text a model continues to produce one more output: the description, example outputs
    (none for zero-shot), the input, then the output's opening."""
    if fmt == "spectrum":
        segs = _turn(fam, "description", description) if description else []
        for y in examples:
            segs += _turn(fam, "output", y)
        if input is not None:
            segs += _turn(fam, "input", input)
        return segs + [(fam.header.format(role="output"), False, -1)]
    if fmt == "chat":
        if description:
            system += f"\n\nDescription: {description}"
        system += "".join(f"\n\nExample Output: {y}" for y in examples)
        return [*_system(fam, system),
                *_user(fam, input if input is not None else "Generate", system),
                (fam.header.format(role=fam.assistant) + fam.think, False, -1)]
    if fmt == "colon":
        segs = [(f"Description: {description}\n\n", False, -1)] if description else []
        segs += [(f"Output: {y}\n\n", False, -1) for y in examples]
        if input is not None:
            segs.append((f"Input: {input}\n\n", False, -1))
        return segs + [("Output:", False, -1)]
    raise ValueError(f"unknown format {fmt!r} (known: {', '.join(FORMATS)})")


def option_text(fmt: str, option: str) -> str:
    """An option's text after the prompt: the colon format puts a space after `Output:`."""
    return f" {option}" if fmt == "colon" else option


def stop_strings(fmt: str, fam: Family) -> list[str]:
    return ["\n"] if fmt == "colon" else [fam.end, "\n"]
