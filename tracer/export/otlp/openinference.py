"""What each request sent, in OpenInference's flattened attributes, for Arize Phoenix.

The GenAI conventions put a request's messages in one JSON attribute (``gen_ai.input.messages``,
:mod:`~tracer.export.otlp.content`). Phoenix draws its Messages view from OpenInference's
attributes instead, one per field: ``llm.input_messages.<i>.message.role``, ``.content`` and
``.tool_calls.<j>.tool_call.*``, and ``llm.tools.<i>.tool.json_schema`` for the tools. This
module writes those from the messages already in the GenAI form, so both views show the same
history; other backends ignore them.

A ``tool_result`` has no field of its own there: it becomes text in its **user** message
(``[tool_result for <id>]`` and the content), which is where the chapter's 包装 step put it.
"""

from __future__ import annotations

from typing import Any

from tracer.export.otlp.spans import to_json


def _oi_text(parts: list[dict[str, Any]]) -> str:
    """A message's parts as the one text OpenInference's ``message.content`` holds."""
    texts = []
    for p in parts:
        if p["type"] in ("text", "reasoning"):
            texts.append(p.get("content", ""))
        elif p["type"] == "tool_call_response":
            flag = " (is_error)" if p.get("is_error") else ""
            texts.append(f"[tool_result for {p.get('id')}{flag}]\n{p.get('response', '')}")
        elif p["type"] != "tool_call":
            texts.append(f"[{p['type']}]")
    return "\n\n".join(texts)


def openinference(
    prefix: str, msgs: list[dict[str, Any]], system: list[dict[str, Any]] | None = None
) -> dict[str, Any]:
    """``msgs`` (GenAI form) as OpenInference's flattened ``<prefix>.<i>.message.*`` attributes.

    The system prompt, when given, comes first with role ``system``, as Phoenix shows it."""
    out: dict[str, Any] = {}
    listed = ([{"role": "system", "parts": system}] if system else []) + msgs
    for i, m in enumerate(listed):
        key = f"{prefix}.{i}.message"
        out[f"{key}.role"] = m["role"]
        text = _oi_text(m["parts"])
        if text:
            out[f"{key}.content"] = text
        calls = [p for p in m["parts"] if p["type"] == "tool_call"]
        for j, call in enumerate(calls):
            base = f"{key}.tool_calls.{j}.tool_call"
            out[f"{base}.id"] = call.get("id")
            out[f"{base}.function.name"] = call.get("name")
            args = call.get("arguments")
            out[f"{base}.function.arguments"] = args if isinstance(args, str) else to_json(args)
        answers = [p for p in m["parts"] if p["type"] == "tool_call_response"]
        if len(answers) == 1:
            out[f"{key}.tool_call_id"] = answers[0].get("id")
    return out


def openinference_tools(tools: list[dict[str, Any]] | None) -> dict[str, Any]:
    """Tool definitions as ``llm.tools.<i>.tool.json_schema``."""
    return {f"llm.tools.{i}.tool.json_schema": to_json(t) for i, t in enumerate(tools or [])}
