"""``tracer export TRACE --otlp-endpoint URL``: POST the spans to a collector over OTLP/HTTP.

The settings are the ones every OpenTelemetry SDK reads, so a class that already points its
programs at a shared Jaeger, Langfuse or Phoenix sends tracer's traces there too:

* the endpoint: ``--otlp-endpoint URL``, else ``OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`` (used as
  given), else ``OTEL_EXPORTER_OTLP_ENDPOINT`` (a base URL: ``/v1/traces`` is added, as the
  specification says). A URL given on the command line gets ``/v1/traces`` unless it ends so;
* headers (an API key, a tenant): ``OTEL_EXPORTER_OTLP_TRACES_HEADERS`` or
  ``OTEL_EXPORTER_OTLP_HEADERS``, ``key=value`` pairs separated by commas, values URL-encoded.
  Their values are secrets: no message, error or file ever shows one, only their names;
* the encoding: ``--otlp-protocol`` or ``OTEL_EXPORTER_OTLP_[TRACES_]PROTOCOL``,
  ``http/protobuf`` (the specification's default, and the only one Phoenix accepts; built with
  the ``opentelemetry-proto`` package) or ``http/json`` (Jaeger, the Collector, Langfuse);
* ``OTEL_EXPORTER_OTLP_[TRACES_]TIMEOUT`` in milliseconds (default 10 s).

Spans go in batches of :data:`BATCH` per request, as the SDKs' batch processor sends them, so a
long session stays under a collector's size limit. Only the standard library's ``urllib`` is
used: no SDK to configure, and nothing is sent anywhere but the endpoint given.
"""

from __future__ import annotations

import base64
import json
import os
import urllib.error
import urllib.parse
import urllib.request
from dataclasses import dataclass, field
from typing import Any

from tracer.errors import UserError

PROTOCOLS = ("http/protobuf", "http/json")
BATCH = 512
DEFAULT_TIMEOUT_MS = 10_000


@dataclass
class Target:
    """Where and how to send: the URL, the headers (secret values), the protocol, the timeout."""

    url: str
    protocol: str = "http/protobuf"
    headers: dict[str, str] = field(default_factory=dict, repr=False)
    timeout_s: float = DEFAULT_TIMEOUT_MS / 1000

    @property
    def shown(self) -> str:
        """The URL as it may be printed: without a ``user:password@`` part."""
        parts = urllib.parse.urlsplit(self.url)
        host = parts.hostname or ""
        netloc = f"{host}:{parts.port}" if parts.port else host
        return urllib.parse.urlunsplit(parts._replace(netloc=netloc))


def _env(name: str, env: dict[str, str]) -> str | None:
    """``OTEL_EXPORTER_OTLP_TRACES_<NAME>``, else ``OTEL_EXPORTER_OTLP_<NAME>``, else None."""
    for key in (f"OTEL_EXPORTER_OTLP_TRACES_{name}", f"OTEL_EXPORTER_OTLP_{name}"):
        value = env.get(key, "").strip()
        if value:
            return value
    return None


def _traces_url(base: str) -> str:
    return base if base.rstrip("/").endswith("/v1/traces") else base.rstrip("/") + "/v1/traces"


def parse_headers(text: str) -> dict[str, str]:
    """``k1=v1,k2=v2`` (values URL-encoded) as a dict. Errors name the key, never a value."""
    headers: dict[str, str] = {}
    for n, item in enumerate(text.split(","), 1):
        if not item.strip():
            continue
        key, sep, value = item.partition("=")
        if not sep or not key.strip():
            raise UserError(f"OTEL_EXPORTER_OTLP_HEADERS: entry {n} is not key=value")
        headers[key.strip()] = urllib.parse.unquote(value.strip())
    return headers


def target_from(
    endpoint: str | None, protocol: str | None, env: dict[str, str] | None = None
) -> Target:
    """The target from the command line (``endpoint``/``protocol``, may be None) and ``env``."""
    env = dict(os.environ) if env is None else env
    if endpoint:
        url = _traces_url(endpoint)
    elif env.get("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "").strip():
        url = env["OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"].strip()
    elif env.get("OTEL_EXPORTER_OTLP_ENDPOINT", "").strip():
        url = _traces_url(env["OTEL_EXPORTER_OTLP_ENDPOINT"].strip())
    else:
        raise UserError(
            "--otlp-endpoint: give a URL (e.g. http://localhost:4318) or set "
            "OTEL_EXPORTER_OTLP_ENDPOINT"
        )
    if urllib.parse.urlsplit(url).scheme not in ("http", "https"):
        raise UserError(f"--otlp-endpoint: not an http(s) URL: {Target(url).shown}")
    chosen = protocol or _env("PROTOCOL", env) or "http/protobuf"
    if chosen not in PROTOCOLS:
        raise UserError(
            f"OTLP protocol {chosen!r} is not supported here: use {' or '.join(PROTOCOLS)}"
        )
    headers = parse_headers(_env("HEADERS", env) or "")
    timeout = _env("TIMEOUT", env)
    try:
        timeout_ms = float(timeout) if timeout else DEFAULT_TIMEOUT_MS
    except ValueError:
        raise UserError("OTEL_EXPORTER_OTLP_TIMEOUT: not a number of milliseconds") from None
    return Target(url, chosen, headers, max(timeout_ms, 1) / 1000)


def batches(payload: dict[str, Any], size: int = BATCH) -> list[dict[str, Any]]:
    """The payload split into requests of at most ``size`` spans, resource and scope kept."""
    out: list[dict[str, Any]] = []
    for rs in payload["resourceSpans"]:
        for ss in rs["scopeSpans"]:
            spans = ss["spans"]
            for start in range(0, max(len(spans), 1), size):
                scope = {**ss, "spans": spans[start : start + size]}
                out.append({"resourceSpans": [{**rs, "scopeSpans": [scope]}]})
    return out


def to_protobuf(payload: dict[str, Any]) -> bytes:
    """OTLP/JSON to the protobuf ``ExportTraceServiceRequest`` bytes (needs opentelemetry-proto).

    The two differ in one place: OTLP/JSON writes trace and span ids as hex, while protobuf's
    generic JSON mapping reads ``bytes`` fields as base64. Everything else parses as it is.
    """
    try:
        from google.protobuf.json_format import ParseDict
        from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import (
            ExportTraceServiceRequest,
        )
    except ImportError:
        raise UserError(
            "http/protobuf needs the opentelemetry-proto package (pip install "
            "opentelemetry-proto), or send --otlp-protocol http/json"
        ) from None

    def b64(value: Any) -> Any:
        if isinstance(value, dict):
            return {
                k: base64.b64encode(bytes.fromhex(v)).decode()
                if k in ("traceId", "spanId", "parentSpanId")
                else b64(v)
                for k, v in value.items()
            }
        if isinstance(value, list):
            return [b64(v) for v in value]
        return value

    message = ParseDict(b64(payload), ExportTraceServiceRequest())
    return bytes(message.SerializeToString())


def _scrub(text: str, target: Target) -> str:
    """A server's answer, one line, short, with any header value we sent blanked out."""
    for value in target.headers.values():
        if value:
            text = text.replace(value, "***")
    return " ".join(text.split())[:200]


def post(payload: dict[str, Any], target: Target) -> int:
    """Send every span; the number sent. Any failure is a :class:`UserError`, one line."""
    sent = 0
    for batch in batches(payload):
        if target.protocol == "http/json":
            body, content_type = json.dumps(batch).encode(), "application/json"
        else:
            body, content_type = to_protobuf(batch), "application/x-protobuf"
        headers = {**target.headers, "Content-Type": content_type, "User-Agent": "tracer"}
        request = urllib.request.Request(target.url, data=body, headers=headers, method="POST")
        try:
            with urllib.request.urlopen(request, timeout=target.timeout_s) as answer:
                answer.read()
        except urllib.error.HTTPError as exc:
            detail = _scrub(exc.read().decode("utf-8", "replace"), target)
            where = f"{target.shown} ({target.protocol})"
            raise UserError(
                f"{where}: the collector answered {exc.code} {exc.reason}: {detail}"
            ) from None
        except (urllib.error.URLError, OSError) as exc:
            reason = getattr(exc, "reason", exc)
            raise UserError(f"{target.shown}: cannot send the spans ({reason})") from None
        sent += len(batch["resourceSpans"][0]["scopeSpans"][0]["spans"])
    return sent
