"""``export --otlp-endpoint``: what arrives at a collector, and what never leaves the machine.

A small OTLP/HTTP receiver on a free loopback port records every POST (path, headers, body), so
the tests read what a collector would: the protobuf or JSON request, the headers the
``OTEL_EXPORTER_OTLP_*`` variables asked for, the batches. The receiver answers like a collector
(200, or the error status a test sets) and nothing leaves 127.0.0.1.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
from google.protobuf.json_format import MessageToDict
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest

from tracer.cli.main import main
from tracer.export.otlp.http import batches, parse_headers, target_from
from tracer.files.paths import MAIN_RECORDING
from tracer.trace.events import STATIONS
from tracer.trace.reader import TraceReader

SECRET = "sk-test-0123456789abcdef"


class Receiver:
    """What the fake collector got; ``status`` is what it answers next."""

    def __init__(self) -> None:
        self.posts: list[tuple[str, dict[str, str], bytes]] = []
        self.status = 200
        self.url = ""

    def spans(self) -> list[dict[str, Any]]:
        """Every span received, as OTLP/JSON-shaped dicts (ids in hex)."""
        out: list[dict[str, Any]] = []
        for _, headers, body in self.posts:
            if headers["content-type"] == "application/x-protobuf":
                request = ExportTraceServiceRequest.FromString(body)
                data = MessageToDict(request)
                for rs in data["resourceSpans"]:
                    for ss in rs["scopeSpans"]:
                        for span in ss["spans"]:
                            for key in ("traceId", "spanId", "parentSpanId"):
                                if key in span:
                                    span[key] = _hex(span[key])
                            out.append(span)
            else:
                data = json.loads(body)
                out += [s for rs in data["resourceSpans"] for ss in rs["scopeSpans"]
                        for s in ss["spans"]]  # fmt: skip
        return out


def _hex(b64: str) -> str:
    import base64

    return base64.b64decode(b64).hex()


@pytest.fixture
def receiver() -> Iterator[Receiver]:
    got = Receiver()

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
            got.posts.append((self.path, {k.lower(): v for k, v in self.headers.items()}, body))
            self.send_response(got.status)
            self.end_headers()
            if got.status != 200:
                # A careless server that echoes the request's headers back in its error.
                self.wfile.write(f"rejected; you sent {dict(self.headers)}".encode())

        def log_message(self, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    got.url = f"http://127.0.0.1:{server.server_address[1]}"
    try:
        yield got
    finally:
        server.shutdown()
        server.server_close()


@pytest.fixture
def clean_env(monkeypatch: pytest.MonkeyPatch) -> pytest.MonkeyPatch:
    import os

    for key in list(os.environ):
        if key.startswith("OTEL_"):
            monkeypatch.delenv(key)
    return monkeypatch


def test_protobuf_post_carries_the_whole_session(
    receiver: Receiver, clean_env: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["export", "01-main-walk", "--otlp-endpoint", receiver.url]) == 0
    ((path, headers, _),) = receiver.posts
    assert path == "/v1/traces" and headers["content-type"] == "application/x-protobuf"
    spans = receiver.spans()
    events = list(TraceReader(MAIN_RECORDING))
    runs = [e for e in events if e.kind == "tool_run"]
    results = {e.tool_use_id: e.block["content"] for e in events if e.kind == "mapping"}
    (agent,) = [s for s in spans if s["name"] == "invoke_agent tracer"]
    tools = [s for s in spans if s["name"].startswith("execute_tool ")]
    chats = [s for s in spans if s["name"].startswith("chat ")]
    assert len(chats) == sum(e.kind == "response" for e in events)
    assert all(s["parentSpanId"] == agent["spanId"] for s in tools + chats)
    assert len({s["traceId"] for s in spans}) == 1
    assert [s["name"] for s in tools] == [f"execute_tool {e.tool}" for e in runs]
    for span in tools:
        attrs = {a["key"]: a["value"] for a in span["attributes"]}
        call = attrs["gen_ai.tool.call.id"]["stringValue"]
        result = results[call]
        text = result if isinstance(result, str) else "\n".join(b["text"] for b in result)
        assert attrs["gen_ai.tool.call.result"]["stringValue"] == text
        # Every result of the main walk makes the whole journey, in the chapter's order.
        assert [e["name"] for e in span["events"]] == list(STATIONS)
    err = capsys.readouterr().err
    assert err.startswith(f"sent {len(spans)} spans of trace {agent['traceId']} to {receiver.url}")


def test_a_result_that_was_never_sent_has_no_resending(
    receiver: Receiver, clean_env: pytest.MonkeyPatch
) -> None:
    assert main(["export", "05-max-turns", "--otlp-endpoint", receiver.url + "/v1/traces"]) == 0
    tools = [s for s in receiver.spans() if s["name"].startswith("execute_tool ")]
    stations = [[e["name"] for e in s["events"]] for s in tools]
    assert stations[0] == list(STATIONS)
    # max_turns stopped the loop before the next State was built: nothing appended, nothing resent.
    assert stations[-1] == ["mapping", "wrapping"]


def test_environment_endpoint_headers_and_json(
    receiver: Receiver, clean_env: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    clean_env.setenv("OTEL_EXPORTER_OTLP_ENDPOINT", receiver.url + "/base/")
    clean_env.setenv("OTEL_EXPORTER_OTLP_HEADERS", f"Authorization=Bearer%20{SECRET}, x-team=ch12")
    clean_env.setenv("OTEL_EXPORTER_OTLP_PROTOCOL", "http/json")
    assert main(["export", "09-no-tools", "--otlp-endpoint"]) == 0
    ((path, headers, body),) = receiver.posts
    assert path == "/base/v1/traces"
    assert headers["authorization"] == f"Bearer {SECRET}" and headers["x-team"] == "ch12"
    assert headers["content-type"] == "application/json"
    assert json.loads(body)["resourceSpans"][0]["scopeSpans"][0]["spans"]
    out = capsys.readouterr()
    assert SECRET not in out.out + out.err


def test_traces_endpoint_is_used_as_given(clean_env: pytest.MonkeyPatch) -> None:
    clean_env.setenv("OTEL_EXPORTER_OTLP_ENDPOINT", "http://base:4318")
    clean_env.setenv("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "http://collector:4318/custom")
    assert target_from(None, None).url == "http://collector:4318/custom"
    assert target_from("http://x:6006", None).url == "http://x:6006/v1/traces"
    assert target_from(None, None).protocol == "http/protobuf"


def test_a_refusal_is_one_line_without_the_secret(
    receiver: Receiver, clean_env: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    receiver.status = 401
    clean_env.setenv("OTEL_EXPORTER_OTLP_HEADERS", f"authorization={SECRET}")
    assert main(["export", "01-main-walk", "--otlp-endpoint", receiver.url]) == 2
    err = capsys.readouterr().err
    assert receiver.posts and SECRET in str(receiver.posts[0][1])  # it was sent, and echoed
    assert err.count("\n") == 1 and "answered 401" in err, err
    assert SECRET not in err


def test_unreachable_and_bad_settings_are_one_line(
    clean_env: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    import socket

    with socket.socket() as s:  # a port nothing listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    cases = [
        (["--otlp-endpoint", f"http://user:{SECRET}@127.0.0.1:{port}"], "cannot send the spans"),
        (["--otlp-endpoint"], "set OTEL_EXPORTER_OTLP_ENDPOINT"),
        (["--otlp-endpoint", "ftp://x"], "not an http(s) URL"),
        (["--otlp-endpoint", "http://x", "-o", "f.json"], "-o goes with --format"),
        (["--format", "md", "--otlp-protocol", "http/json"], "goes with --otlp-endpoint"),
    ]
    for args, words in cases:
        assert main(["export", "01-main-walk", *args]) == 2, args
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and words in err and SECRET not in err, err
    clean_env.setenv("OTEL_EXPORTER_OTLP_PROTOCOL", "grpc")
    assert main(["export", "01-main-walk", "--otlp-endpoint", "http://127.0.0.1:9"]) == 2
    assert "'grpc' is not supported" in capsys.readouterr().err


def test_header_parsing_names_keys_never_values() -> None:
    assert parse_headers("a=1,b=x%3Dy, ,c=") == {"a": "1", "b": "x=y", "c": ""}
    with pytest.raises(Exception, match="entry 2 is not key=value") as info:
        parse_headers(f"a=1,{SECRET}")
    assert SECRET not in str(info.value)


def test_batches_keep_every_span_once() -> None:
    spans = [{"spanId": f"{i:016x}"} for i in range(1100)]
    payload = {
        "resourceSpans": [{"resource": {"r": 1}, "scopeSpans": [{"scope": {}, "spans": spans}]}]
    }
    parts = batches(payload, size=512)
    sizes = [len(p["resourceSpans"][0]["scopeSpans"][0]["spans"]) for p in parts]
    assert sizes == [512, 512, 76]
    assert all(p["resourceSpans"][0]["resource"] == {"r": 1} for p in parts)
    got = [s for p in parts for s in p["resourceSpans"][0]["scopeSpans"][0]["spans"]]
    assert got == spans


def test_each_send_is_a_new_trace(receiver: Receiver, clean_env: pytest.MonkeyPatch) -> None:
    for _ in range(2):
        assert main(["export", "09-no-tools", "--otlp-endpoint", receiver.url]) == 0
    ids = {s["traceId"] for s in receiver.spans()}
    assert len(ids) == 2


def test_file_export_is_unchanged_by_sending(tmp_path: Path) -> None:
    a, b = tmp_path / "a.json", tmp_path / "b.json"
    for out in (a, b):
        assert main(["export", "01-main-walk", "--format", "otlp-json", "-o", str(out)]) == 0
    assert a.read_bytes() == b.read_bytes()
