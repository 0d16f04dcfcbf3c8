"""An API failure in one line.

Errors reach the seam in many shapes: an ``APIStatusError`` with the API's JSON error body, an
error event inside a 200 stream, a parser that choked on the bytes. The trace and the terminal
get one line each, short enough to read and never more than one line, whatever the server sent.
"""

from __future__ import annotations

import json

import anthropic


def what_broke(exc: Exception) -> str:
    if isinstance(exc, UnicodeDecodeError):
        return f"not UTF-8 ({one_line(exc)})"
    if isinstance(exc, json.JSONDecodeError):
        return f"an event that is not JSON ({one_line(exc)})"
    return f"{type(exc).__name__}: {one_line(exc)}"


def error_of(exc: anthropic.APIStatusError) -> tuple[str, str]:
    body = exc.body if isinstance(exc.body, dict) else {}
    err = body.get("error") if isinstance(body.get("error"), dict) else {}
    assert isinstance(err, dict)
    return str(err.get("type", "error")), one_line(err.get("message", exc.message))


def describe(exc: Exception) -> str:
    if isinstance(exc, anthropic.APIStatusError):
        kind, text = error_of(exc)
        return f"{exc.status_code} {kind}: {text}"
    return f"{type(exc).__name__}: {one_line(exc)}"


def one_line(value: object, limit: int = 300) -> str:
    text = " ".join(str(value).split())
    return text if len(text) <= limit else text[: limit - 1] + "…"
