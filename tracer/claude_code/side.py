"""Claude Code's side requests, told from its loop's requests by their shape, and answered.

Besides the agent loop (``queryLoop()`` in ``src/query.ts``, one ``/v1/messages`` request a
turn), Claude Code 2.1.88 sends the API small requests of its own: a quota probe
(``max_tokens: 1``, ``src/services/claude.ts``), a session title (``src/utils/sessionTitle.ts``:
a small model, no tools, a JSON-schema ``output_format``), other helper calls without tools, and
``/v1/messages/count_tokens``. A scenario scripts only the loop's answers, so these are answered
here, by their shape, and never spend a scripted response:

* the loop's requests carry ``tools`` and more than one output token;
* everything else is a side request: ``count_tokens`` gets a count, a schema-bound request a JSON
  object that fits the schema, any other a short text.
"""

from __future__ import annotations

import json
from typing import Any

from tracer.agent.scripted import ScriptedResponse, estimate_tokens

#: The text a helper call without a schema gets (spinner words, summaries, prefixes).
HELPER_TEXT = "ok"


def is_count_tokens(path: str) -> bool:
    return path.rstrip("/").endswith("/v1/messages/count_tokens")


def is_loop_request(body: Any) -> bool:
    """A request of the agent loop: it offers tools and wants more than one token back."""
    return (
        isinstance(body, dict)
        and bool(body.get("tools"))
        and body.get("max_tokens") != 1
        and isinstance(body.get("messages"), list)
    )


def side_kind(body: Any) -> str:
    """What a side request is for, as its shape says: ``quota``, ``schema`` or ``helper``."""
    if not isinstance(body, dict):
        return "helper"
    if body.get("max_tokens") == 1:
        return "quota"
    if _schema(body) is not None:
        return "schema"
    return "helper"


def count_tokens(raw: bytes) -> dict[str, int]:
    """The answer to ``count_tokens``: the scripted server's own estimate of the body's size."""
    return {"input_tokens": estimate_tokens(len(raw))}


def side_response(body: Any) -> ScriptedResponse:
    """The scripted answer of one side request: a JSON object fitting its schema, or a text."""
    schema = _schema(body) if isinstance(body, dict) else None
    if schema is not None:
        return ScriptedResponse([{"type": "text", "text": json.dumps(_fill(schema))}], "end_turn")
    if isinstance(body, dict) and body.get("max_tokens") == 1:
        return ScriptedResponse([{"type": "text", "text": "x"}], "max_tokens")
    return ScriptedResponse([{"type": "text", "text": HELPER_TEXT}], "end_turn")


def message_json(response: ScriptedResponse, message_id: str, model: str, tokens: int) -> bytes:
    """A non-streamed answer (``stream`` unset): the whole message as one JSON body."""
    text = "".join(str(b.get("text", "")) for b in response.blocks)
    message = {
        "id": message_id,
        "type": "message",
        "role": "assistant",
        "model": model,
        "content": response.blocks,
        "stop_reason": response.stop_reason or "end_turn",
        "stop_sequence": None,
        "usage": {
            "input_tokens": tokens,
            "cache_creation_input_tokens": 0,
            "cache_read_input_tokens": 0,
            "output_tokens": estimate_tokens(len(text.encode())),
        },
    }
    return json.dumps(message).encode()


def _schema(body: dict[str, Any]) -> dict[str, Any] | None:
    fmt = body.get("output_format")
    if isinstance(fmt, dict) and isinstance(fmt.get("schema"), dict):
        return fmt["schema"]
    return None


def _fill(schema: dict[str, Any], depth: int = 0) -> Any:
    """The smallest value that fits a JSON schema: each property filled, strings short."""
    kind = schema.get("type")
    if depth > 8:
        return None
    if kind == "object" or "properties" in schema:
        props = schema.get("properties") or {}
        return {k: _fill(v, depth + 1) for k, v in props.items() if isinstance(v, dict)}
    if kind == "array":
        return []
    if kind in ("integer", "number"):
        return 0
    if kind == "boolean":
        return False
    if isinstance(schema.get("enum"), list) and schema["enum"]:
        return schema["enum"][0]
    return "Scripted session"
