"""What crossed the wire, kept as an API log: one request/response pair a line.

The pairs take the shape the API-log importer reads (claude-trace's ``RawPair``: ``request``
with ``url``, ``method``, ``headers``, ``body``, ``timestamp``; ``response`` with
``status_code``, ``headers``, ``body`` when it was JSON or ``body_raw`` when it was a stream;
``logged_at``), so a recording of the real Claude Code *is* an API log and becomes a trace the
same way a log someone captured does (:mod:`tracer.importers.api_log.loop`).

Secrets never reach it: of the headers only a short list that carries no credential is kept
(``x-api-key`` and ``authorization`` never), and every string goes through the recorder's
:class:`~tracer.trace.redact.Redactor`, which knows the key's value and every secret of the
environment by value and by shape.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tracer.trace.redact import Redactor

#: Request headers worth keeping: the client's name and version, and what it asked the API for.
REQUEST_HEADERS = ("user-agent", "anthropic-version", "anthropic-beta", "content-type", "x-app")
#: Response headers worth keeping.
RESPONSE_HEADERS = ("content-type", "request-id", "retry-after", "x-should-retry")


def kept_headers(headers: Mapping[str, str], names: tuple[str, ...]) -> dict[str, str]:
    """Only the named headers, whatever else came (keys, cookies, tokens are left behind)."""
    return {k.lower(): v for k, v in headers.items() if k.lower() in names}


def decode_body(raw: bytes) -> Any:
    """A request body as JSON, or as its text when it is not JSON."""
    try:
        return json.loads(raw)
    except ValueError:
        return raw.decode("utf-8", "replace")


@dataclass
class Exchange:
    """One request and what came back, filled in as the answer streams."""

    method: str
    url: str
    request_headers: dict[str, str]
    body: bytes
    started: float = field(default_factory=time.time)
    status: int = 0
    response_headers: dict[str, str] = field(default_factory=dict)
    answer: bytearray = field(default_factory=bytearray)
    error: str | None = None
    """Why the answer stopped short (the connection cut, the client gone), if it did."""

    def pair(self, redact: Redactor) -> dict[str, Any]:
        """The exchange as one API-log line, with nothing secret in it."""
        kind = self.response_headers.get("content-type", "")
        response: dict[str, Any] = {
            "status_code": self.status,
            "headers": kept_headers(self.response_headers, RESPONSE_HEADERS),
            "timestamp": round(time.time(), 3),
        }
        text = bytes(self.answer).decode("utf-8", "replace")
        if "event-stream" in kind:
            response["body_raw"] = text
        else:
            response["body"] = decode_body(bytes(self.answer))
        if self.error:
            response["error"] = self.error
        pair = {
            "request": {
                "method": self.method,
                "url": self.url,
                "headers": kept_headers(self.request_headers, REQUEST_HEADERS),
                "body": decode_body(self.body),
                "timestamp": round(self.started, 3),
            },
            "response": response,
            "logged_at": response["timestamp"],
        }
        return redact(pair)


class Capture:
    """The pairs of one session, in the order their requests came, handed to ``on_pair`` (the
    live trace); written to ``path`` as each finishes."""

    def __init__(
        self,
        path: Path,
        redact: Redactor,
        on_pair: Callable[[list[dict[str, Any]]], None] | None = None,
    ) -> None:
        self.path = path
        self.redact = redact
        self.on_pair = on_pair
        self.pairs: list[dict[str, Any]] = []
        self._starts: list[float] = []
        """When each pair's request came, in the order of :attr:`pairs`."""
        self._lock = threading.Condition()
        self._open = 0
        self._file = path.open("w", encoding="utf-8")

    def add(self, exchange: Exchange) -> None:
        pair = exchange.pair(self.redact)
        with self._lock:
            self._open -= 1
            # In the order the requests came, which is the order Claude Code sent them: an
            # exchange cut short is written down by its own server thread, which a busy machine
            # may run only after the retry has finished.
            at = len(self.pairs)
            while at and self._starts[at - 1] > exchange.started:
                at -= 1
            self.pairs.insert(at, pair)
            self._starts.insert(at, exchange.started)
            self._file.write(json.dumps(pair, ensure_ascii=False) + "\n")
            self._file.flush()
            if self.on_pair is not None:
                self.on_pair(list(self.pairs))
            self._lock.notify_all()

    def begin(self) -> None:
        """An exchange has started: :meth:`settle` waits for it to be added."""
        with self._lock:
            self._open += 1

    def settle(self, timeout: float) -> bool:
        """Wait until every exchange begun is written down (the client has its answer a moment
        before the server adds the exchange); ``False`` if one is still open at ``timeout``."""
        with self._lock:
            return self._lock.wait_for(lambda: self._open <= 0, timeout)

    def close(self) -> None:
        with self._lock:
            self._file.close()
