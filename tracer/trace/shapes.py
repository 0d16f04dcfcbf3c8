"""What an event must look like before any view may touch it: its schema, and the shapes inside.

The JSON Schema (:mod:`tracer.trace.event_schema`, with the one validator for it) fixes the type
of each field: ``seq`` an integer, ``turn`` an integer, ``tail`` an array. The views need a little
more than that: content blocks are objects with a string ``type``, a request's parts are ``[uuid,
index]`` pairs, a title maps languages to strings. :func:`event_problems` checks both, so that
the reader and ``validate`` say the same thing, and a file that validates never crashes another
command.

Claude Code trusts its own transcripts (it wrote them); tracer cannot, since traces are shared,
imported and edited by hand.
"""

from __future__ import annotations

from tracer.trace.event_schema import checks

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

_ROLES = ("user", "assistant")


def event_problems(data: dict[str, Any]) -> str | None:
    """The first thing wrong with one event object, as ``kind event: what``; ``None`` if sound."""
    kind = data.get("kind")
    if not isinstance(kind, str):
        return "an event needs a string 'kind'"
    check = checks().get(kind) if kind != "header" else None
    if check is None:
        problems = _unknown_problems(data)
    else:
        problems = check(data, "") or inner_problems(kind, data)
    if not problems:
        return None  # nearly every event: nothing more to word
    # A missing ``stage`` is implied by the kind: the reader lets it pass (validate does not).
    problems = [p for p in problems if p != "missing 'stage'"]
    missing = [p.split("'")[1] for p in problems if p.startswith("missing '")]
    if missing:  # worded as the decoder words it, all at once
        return f"{kind} event: missing {', '.join(missing)}"
    return f"{kind} event: {problems[0]}" if problems else None


_HEADER_TYPES: dict[str, Any] = {
    "source": dict,
    "created": str,
    "tracer_version": str,
    "chapter": str | None,
    "paths": dict | None,
    "volatile": list,
}


#: The ``source`` fields the views read, each of the type they read it as: the replay's
#: scenario name, the export's title, notes and side calls, the OTLP export's server.
_SOURCE_TYPES: dict[str, Any] = {
    **dict.fromkeys(("kind", "name", "path", "title", "format", "base_url"), str | None),
    "notes": list | None,
    "side_calls": list | None,
}


def header_problem(header: dict[str, Any]) -> str | None:
    """What is wrong with the types of a header's fields (absent fields are the reader's call).

    The source's fields are checked here, once, so that no view has to doubt them: a scenario
    name that was a mapping once passed validate and stopped the replay's chapter column."""
    for name, types in _HEADER_TYPES.items():
        if name in header and not isinstance(header[name], types):
            return f"header: {name} has the wrong type ({type(header[name]).__name__})"
    texts = [*(header.get("paths") or {}).values(), *header.get("volatile", [])]
    if not all(isinstance(t, str) for t in texts):
        return "header: paths and volatile must hold strings"
    source = header.get("source") or {}
    for name, types in _SOURCE_TYPES.items():
        if not isinstance(source.get(name), types):
            return f"header: source.{name} has the wrong type ({type(source[name]).__name__})"
    if not all(isinstance(s, dict) for s in source.get("side_calls") or []):
        return "header: source.side_calls must hold objects"
    return None


def _unknown_problems(data: dict[str, Any]) -> list[str]:
    """A kind this version does not know still has the fields every event has."""
    for name, types in (("seq", int), ("turn", int), ("t", int | float)):
        value = data.get(name, 0)
        if isinstance(value, bool) or not isinstance(value, types):
            return [f"{name} has the wrong type ({type(value).__name__})"]
    stage = data.get("stage")
    if stage is not None and not isinstance(stage, str):
        return [f"stage must be string, not {type(stage).__name__}"]
    return []


def inner_problems(kind: str, data: dict[str, Any]) -> list[str]:
    """What the schema cannot say of an event sound by it: block shapes, request parts, a
    title's languages, counts that must not be negative."""
    inner = INNER_CHECKS.get(kind)
    return inner(data) if inner is not None else []


def _message_problems(data: dict[str, Any]) -> list[str]:
    content = data.get("content")
    if content is None or type(content) is str:  # most messages: no block to look at
        return []
    return _content_problems(content, "content")


def _request_problems(data: dict[str, Any]) -> list[str]:
    return _tail_problems(data["tail"]) or _non_negative(data, "prefix_len")


def _mapping_problems(data: dict[str, Any]) -> list[str]:
    return _block_problems(data["block"], "block")


def _session_start_problems(data: dict[str, Any]) -> list[str]:
    title = data.get("title")
    if isinstance(title, dict) and not all(isinstance(v, str) for v in title.values()):
        return ["title must map languages to strings"]
    return []


def _response_problems(data: dict[str, Any]) -> list[str]:
    return _non_negative(data, "request_index", "attempts")


INNER_CHECKS = {
    "message": _message_problems,
    "request": _request_problems,
    "mapping": _mapping_problems,
    "session_start": _session_start_problems,
    "response": _response_problems,
}
""":func:`inner_problems` of each kind it looks inside (the line check asks it of each line,
so it takes the kind's function once)."""

#: The kinds :func:`inner_problems` looks inside.
INNER_KINDS = frozenset(INNER_CHECKS)


def _non_negative(data: dict[str, Any], *names: str) -> list[str]:
    get = data.get
    for name in names:  # the common case, none negative, without building a list
        value = get(name)
        if isinstance(value, int) and value < 0:
            return [
                f"{n} must not be negative"
                for n in names
                if isinstance(data.get(n), int) and data[n] < 0
            ]
    return []


def _content_problems(content: Any, where: str) -> list[str]:
    if content is None or isinstance(content, str):
        return []
    if not isinstance(content, list):
        return [f"{where} must be a string or a list of blocks, not {type(content).__name__}"]
    for i, block in enumerate(content):
        # A plain block (the common case) passes here; any other is asked, and worded, below
        # (its place in words only then: most messages are sound, and wording costs).
        if type(block) is dict and type(kind := block.get("type")) is str and kind != "tool_result":
            continue
        if problems := _block_problems(block, f"{where}[{i}]"):
            return problems
    return []


def _block_problems(block: Any, where: str) -> list[str]:
    if not isinstance(block, dict):
        return [f"{where} must be a block (an object), not {type(block).__name__}"]
    if not isinstance(block.get("type"), str):
        return [f"{where} has no string 'type'"]
    if block["type"] == "tool_result":
        inner = block.get("content")
        if inner is not None and not isinstance(inner, str | list):
            return [f"{where}.content must be a string or a list of blocks"]
        if isinstance(inner, list):
            return _content_problems(inner, f"{where}.content")
    return []


def _tail_problems(tail: list[Any]) -> list[str]:
    for i, api in enumerate(tail):
        if not isinstance(api, dict) or api.get("role") not in _ROLES:
            return [f"tail[{i}] must be an object with role user or assistant"]
        parts = api.get("parts")
        if not isinstance(parts, list) or not parts:
            return [f"tail[{i}].parts must be a non-empty list of [uuid, index] pairs"]
        for part in parts:
            ok = (
                isinstance(part, list)
                and len(part) == 2
                and isinstance(part[0], str)
                and (part[1] is None or (type(part[1]) is int and part[1] >= 0))
            )
            if not ok:
                return [f"tail[{i}].parts holds {part!r:.40}, not a [uuid, index] pair"]
    return []
