"""``tracer export TRACE --otlp-endpoint URL``: where and how to send, read as the SDKs read it.

The settings are the ones every OpenTelemetry SDK reads, so a class that already points its
programs at a shared Jaeger, Langfuse or Phoenix sends tracer's traces there too:

* the endpoint: ``--otlp-endpoint URL``, else ``OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`` (used as
  given), else ``OTEL_EXPORTER_OTLP_ENDPOINT`` (a base URL: ``/v1/traces`` is added to its
  path, as the specification says; a query string stays where it is). A URL given on the
  command line gets ``/v1/traces`` unless its path ends so. A ``user:password@`` in the URL is
  sent as HTTP Basic authentication and, like a query's values, never shown;
* headers (an API key, a tenant): ``OTEL_EXPORTER_OTLP_TRACES_HEADERS`` or
  ``OTEL_EXPORTER_OTLP_HEADERS``, ``key=value`` pairs separated by commas, values URL-encoded.
  Their values are secrets: no message, error or file ever shows one, only their names;
* the encoding: ``--otlp-protocol`` or ``OTEL_EXPORTER_OTLP_[TRACES_]PROTOCOL``,
  ``http/protobuf`` (the specification's default, and the only one Phoenix accepts; built with
  the ``opentelemetry-proto`` package) or ``http/json`` (Jaeger, the Collector, Langfuse);
* ``OTEL_EXPORTER_OTLP_[TRACES_]TIMEOUT`` in milliseconds (default 10 s): the deadline for each
  batch, retries included;
* ``OTEL_EXPORTER_OTLP_[TRACES_]COMPRESSION``: ``gzip`` or ``none`` (the default);
* ``OTEL_EXPORTER_OTLP_[TRACES_]CERTIFICATE`` (a CA file to trust for ``https``), and
  ``…_CLIENT_CERTIFICATE`` / ``…_CLIENT_KEY`` for a collector that asks for a client certificate.

Spans go in batches of at most :data:`BATCH` spans and :data:`BATCH_BYTES` bytes per request, as
the SDKs' batch processor sends them, so a long session stays under a collector's size limit.
Sending is :mod:`tracer.export.otlp.send`'s job.
"""

from __future__ import annotations

import base64
import json
import os
import urllib.parse
from dataclasses import dataclass, field
from typing import Any

from tracer.errors import UserError

PROTOCOLS = ("http/protobuf", "http/json")
BATCH = 512
BATCH_BYTES = 3_000_000  # under the 4 MiB many collectors take by default
DEFAULT_TIMEOUT_MS = 10_000
COMPRESSIONS = ("gzip", "none")


@dataclass
class Target:
    """Where and how to send: the URL, the headers (secret values), the protocol, the timeout."""

    url: str
    protocol: str = "http/protobuf"
    headers: dict[str, str] = field(default_factory=dict, repr=False)
    timeout_s: float = DEFAULT_TIMEOUT_MS / 1000
    compression: str = "none"
    certificate: str | None = None
    client_certificate: str | None = None
    client_key: str | None = None

    @property
    def shown(self) -> str:
        """The URL as it may be printed: no ``user:password@``, every query value ``***``."""
        return shown_url(self.url)

    def secrets(self) -> list[str]:
        """Everything that must never be printed: header values, the password, query values."""
        parts = urllib.parse.urlsplit(self.url)
        found = [v for v in self.headers.values() if v]
        found += [p for p in (parts.password, parts.username) if p]
        found += [v for _, v in urllib.parse.parse_qsl(parts.query) if len(v) > 2]
        return sorted(set(found), key=len, reverse=True)


def shown_url(url: str) -> str:
    """``url`` safe to print: the host and port, the path, query keys with their values hidden."""
    try:
        parts = urllib.parse.urlsplit(url)
        host = parts.hostname or ""
        netloc = f"{host}:{parts.port}" if parts.port else host
    except ValueError:
        return "(a URL that does not parse)"
    query = "&".join(
        f"{k}=***" for k, _ in urllib.parse.parse_qsl(parts.query, keep_blank_values=True)
    )
    return urllib.parse.urlunsplit(parts._replace(netloc=netloc, query=query, fragment=""))


def _env(name: str, env: dict[str, str]) -> str | None:
    """``OTEL_EXPORTER_OTLP_TRACES_<NAME>``, else ``OTEL_EXPORTER_OTLP_<NAME>``, else None."""
    for key in (f"OTEL_EXPORTER_OTLP_TRACES_{name}", f"OTEL_EXPORTER_OTLP_{name}"):
        value = env.get(key, "").strip()
        if value:
            return value
    return None


def _traces_url(base: str) -> str:
    """``base`` with ``/v1/traces`` added to its path (not after its query string)."""
    parts = urllib.parse.urlsplit(base)
    path = parts.path.rstrip("/")
    if not path.endswith("/v1/traces"):
        path += "/v1/traces"
    return urllib.parse.urlunsplit(parts._replace(path=path))


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
    compression = (_env("COMPRESSION", env) or "none").lower()
    if compression not in COMPRESSIONS:
        raise UserError(
            f"OTEL_EXPORTER_OTLP_COMPRESSION: {compression!r} is not supported: use gzip or none"
        )
    files = {}
    for name in ("CERTIFICATE", "CLIENT_CERTIFICATE", "CLIENT_KEY"):
        value = _env(name, env)
        if value is not None and not os.path.isfile(value):
            raise UserError(f"OTEL_EXPORTER_OTLP_{name}: not a file: {value}")
        files[name.lower()] = value
    return Target(url, chosen, headers, max(timeout_ms, 1) / 1000, compression, **files)


def batches(
    payload: dict[str, Any], size: int = BATCH, max_bytes: int = BATCH_BYTES
) -> list[dict[str, Any]]:
    """The payload split into requests of at most ``size`` spans and about ``max_bytes`` bytes
    of JSON (a span larger than that goes alone), resource and scope kept."""
    out: list[dict[str, Any]] = []
    for rs in payload["resourceSpans"]:
        for ss in rs["scopeSpans"]:
            groups: list[list[Any]] = [[]]
            used = 0
            for span in ss["spans"]:
                n = len(json.dumps(span, ensure_ascii=False))
                if groups[-1] and (len(groups[-1]) >= size or used + n > max_bytes):
                    groups.append([])
                    used = 0
                groups[-1].append(span)
                used += n
            for group in groups:
                scope = {**ss, "spans": group}
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
