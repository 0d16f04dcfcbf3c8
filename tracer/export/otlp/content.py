"""What each request sent, as span attributes: the history resent, the system prompt, the tools.

The chapter's point is that every request carries the *whole* history again, one turn longer each
time. A backend can only show that if each ``chat`` span holds what its request sent. The GenAI
semantic conventions name three attributes for it, all *opt-in* because they hold the
conversation itself:

* ``gen_ai.input.messages``: the messages, each ``{"role", "parts"}`` with parts ``text``,
  ``tool_call`` (a ``tool_use`` block) and ``tool_call_response`` (a ``tool_result`` block: it
  travels in a **user** message, the 包装 step, so its role stays ``user``);
* ``gen_ai.system_instructions``: the ``system`` parameter as text parts;
* ``gen_ai.tool.definitions``: the ``tools`` parameter (name, description, input schema).

Arize Phoenix reads OpenInference's flattened attributes instead; those are written from the same
messages (:mod:`~tracer.export.otlp.openinference`).

A long session resends a lot: request *N* holds everything requests 1 … *N*−1 held. To keep a
span (and a collector's request limit) in check, :meth:`History.window` keeps the first message (the
prompt) and as many of the newest as fit in ``limit`` bytes, and puts one marker message where
the middle was; a single part larger than a quarter of the limit is cut with a marker too. Both
markers say how much was left out and which flag sets the limit.
"""

from __future__ import annotations

from typing import Any

from tracer.export.otlp.openinference import openinference_tools
from tracer.export.otlp.spans import to_json
from tracer.model.api_messages import ApiMessage, materialize

#: ``--otlp-max-content``'s default: bytes of message JSON kept per span attribute.
DEFAULT_LIMIT = 16_000
FLAG = "--otlp-max-content"


def result_text(content: Any) -> str:
    """A tool_result's content as text: a string, or its text blocks (others as JSON)."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(
            b.get("text", "") if isinstance(b, dict) and b.get("type") == "text" else to_json(b)
            for b in content
        )
    return "" if content is None else to_json(content)


def _part(block: Any) -> dict[str, Any]:
    """One API content block as a GenAI message part."""
    if not isinstance(block, dict):
        return {"type": "text", "content": str(block)}
    kind = block.get("type")
    if kind == "text":
        return {"type": "text", "content": str(block.get("text", ""))}
    if kind == "tool_use":
        return {
            "type": "tool_call",
            "id": block.get("id"),
            "name": block.get("name"),
            "arguments": block.get("input"),
        }
    if kind == "tool_result":
        part = {
            "type": "tool_call_response",
            "id": block.get("tool_use_id"),
            "response": result_text(block.get("content")),
        }
        return {**part, "is_error": True} if block.get("is_error") else part
    if kind == "thinking":
        return {"type": "reasoning", "content": str(block.get("thinking", ""))}
    return {"type": str(kind)}  # an image, a document: named, never inlined


def messages(wire: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The request's ``messages`` (as sent) in the GenAI form."""
    out: list[dict[str, Any]] = []
    for message in wire:
        content = message.get("content")
        blocks = content if isinstance(content, list) else [{"type": "text", "text": content}]
        out.append({"role": message.get("role"), "parts": [_part(b) for b in blocks]})
    return out


def system_instructions(system: Any) -> list[dict[str, Any]] | None:
    """The ``system`` parameter as text parts (a string, or a list of text blocks)."""
    if not system:
        return None
    blocks = system if isinstance(system, list) else [{"type": "text", "text": system}]
    return [_part(b) for b in blocks]


def tool_definitions(tools: Any) -> list[dict[str, Any]] | None:
    """The ``tools`` parameter as GenAI tool definitions."""
    if not isinstance(tools, list) or not tools:
        return None
    return [
        {
            "type": "function",
            "name": t.get("name"),
            "description": t.get("description"),
            "parameters": t.get("input_schema"),
        }
        for t in tools
        if isinstance(t, dict)
    ]


def bounded_tools(tools: list[dict[str, Any]] | None, limit: int) -> list[dict[str, Any]] | None:
    """Tool definitions within ``limit`` bytes: past it, each keeps its name and a short
    description, and its input schema gives way to a note (Claude Code's own run to tens of KB)."""
    if not tools or limit <= 0 or len(to_json(tools).encode()) <= limit:
        return tools
    note = f"[left out by tracer to keep this span under {limit} bytes; see {FLAG}]"
    return [
        {**t, "description": _cut(str(t.get("description") or ""), 200), "parameters": note}
        for t in tools
    ]


def _cut(text: str, limit: int) -> str:
    data = text.encode()
    if len(data) <= limit:
        return text
    kept = data[:limit].decode("utf-8", "ignore")
    return f"{kept}…[tracer cut {len(data) - len(kept.encode())} more bytes here; see {FLAG}]"


def _cut_part(part: dict[str, Any], limit: int) -> dict[str, Any]:
    for key in ("content", "response"):
        if isinstance(part.get(key), str):
            return {**part, key: _cut(part[key], limit)}
    if "arguments" in part and len(to_json(part["arguments"]).encode()) > limit:
        return {**part, "arguments": _cut(to_json(part["arguments"]), limit)}
    return part


class History:
    """The API messages of the latest request, updated in place as each ``request`` event says.

    A request event stores "the first ``prefix_len`` messages of the previous request, then
    ``tail``" (see :mod:`tracer.trace.requests`), so keeping one list and replacing its end
    costs what the request added. Each message is converted to the GenAI form once, and
    :meth:`window` converts only what it keeps, so a bounded export takes time in proportion
    to the trace, not to the square of its turns.
    """

    def __init__(self, limit: int = DEFAULT_LIMIT) -> None:
        self.limit = limit
        self.by_uuid: dict[str, dict[str, Any]] = {}
        self.params: dict[str, Any] = {}
        self.system: list[dict[str, Any]] | None = None
        self.params_attributes: dict[str, Any] = {}
        """The system prompt and tool definitions as attributes, built once per change."""
        self.new_from = 0
        self._api: list[ApiMessage] = []
        self._done: list[tuple[dict[str, Any], int] | None] = []

    def message(self, event: Any) -> None:
        self.by_uuid[event.uuid] = {
            "type": event.type,
            "content": event.content,
            "attachment": event.attachment,
        }

    def request(self, event: Any) -> None:
        if event.params is not None:
            self.params = event.params
            self.system = system_instructions(event.params.get("system"))
            tools = bounded_tools(tool_definitions(event.params.get("tools")), self.limit)
            self.params_attributes = {
                "gen_ai.system_instructions": to_json(self.system) if self.system else None,
                "gen_ai.tool.definitions": to_json(tools) if tools else None,
                **openinference_tools(tools),
            }
        self.new_from = event.prefix_len
        del self._api[event.prefix_len :], self._done[event.prefix_len :]
        for ref in event.tail:
            self._api.append(ApiMessage.from_ref(ref))
            self._done.append(None)

    def _get(self, i: int) -> tuple[dict[str, Any], int]:
        limit = self.limit
        done = self._done[i]
        if done is None:
            try:
                (wire,) = materialize([self._api[i]], self.by_uuid)
                (msg,) = messages([wire])
            except (KeyError, IndexError, TypeError):  # a part that points at nothing
                msg = {"role": self._api[i].role, "parts": [{"type": "missing"}]}
            if limit > 0:
                msg = {**msg, "parts": [_cut_part(p, limit // 4) for p in msg["parts"]]}
            done = self._done[i] = (msg, len(to_json(msg).encode()))
        return done

    def added(self) -> list[dict[str, Any]]:
        """The messages this request added after the resent prefix (up to the limit)."""
        out: list[dict[str, Any]] = []
        used = 0
        for i in range(self.new_from, len(self._api)):
            msg, size = self._get(i)
            if out and self.limit > 0 and used + size > self.limit:
                break
            out.append(msg)
            used += size
        return out

    def window(self) -> list[dict[str, Any]]:
        """The request's messages in about ``limit`` bytes: the prompt, a marker, the newest."""
        n, limit = len(self._api), self.limit
        if limit <= 0 or n <= 2:
            return [self._get(i)[0] for i in range(n)]
        used = self._get(0)[1]
        start = n
        while start > 1 and used + self._get(start - 1)[1] <= limit:
            start -= 1
            used += self._get(start)[1]
        kept = [self._get(i)[0] for i in (0, *range(start, n))]
        if start == 1:
            return kept
        note = (
            f"[tracer left out {start - 1} messages here to keep this span under {limit} bytes; "
            f"{FLAG} sets the limit, 0 keeps everything]"
        )
        marker = {"role": "user", "parts": [{"type": "text", "content": note}]}
        return [kept[0], marker, *kept[1:]]
