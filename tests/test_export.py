"""Exports: each format parses with its own format's rules and says what the trace says.

Markdown gets one section per turn with the stations named; Mermaid is checked line by line
against the sequence-diagram grammar we emit; OTLP/JSON is parsed with ``opentelemetry-proto``
(the collector's own ``ExportTraceServiceRequest``).
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from tracer.cli.main import main
from tracer.export.command import export_text
from tracer.export.otlp.http import to_protobuf
from tracer.files.paths import MAIN_RECORDING, ROOT
from tracer.trace.events import STATIONS
from tracer.trace.reader import TraceReader

API_LOG = (
    Path(ROOT).parent
    / "shared"
    / "fixtures"
    / "api-logs"
    / "claude-trace-2025-05-29-weather-app-first19.jsonl"
)
TRANSCRIPT = (
    Path(ROOT).parent
    / "shared"
    / "fixtures"
    / "claude-code-transcripts"
    / "spotter-v2.1.38-task-subagent-parent.jsonl"
)


@pytest.fixture(params=["recording", "api-log", "claude-code"])
def trace(request: pytest.FixtureRequest, tmp_path: Path) -> Path:
    """The committed main recording, and imports of real sessions when the fixtures exist."""
    if request.param == "recording":
        return Path(MAIN_RECORDING)
    source = API_LOG if request.param == "api-log" else TRANSCRIPT
    if not source.is_file():
        pytest.skip(f"fixture not found: {source}")
    out = tmp_path / "imported.jsonl"
    assert main(["import", request.param, str(source), "-o", str(out)]) == 0
    return out


def _events(path: Path) -> list[Any]:
    return list(TraceReader(path))


def test_markdown_has_a_section_per_turn_with_stations(trace: Path) -> None:
    text = export_text(trace, "md")
    events = _events(trace)
    turns = [e.turn for e in events if e.kind == "turn_start"]
    assert text.startswith("# Session walk-through: ")
    assert re.findall(r"^## Turn (\d+)$", text, re.M) == [str(t) for t in turns]
    assert text.count("**④ resending**") == sum(e.kind == "request" for e in events)
    assert text.count("**① mapping**") == sum(e.kind == "mapping" for e in events)
    assert text.count("**② wrapping**") == sum(e.kind == "wrapping" for e in events)
    assert text.count("**③ appending**") == sum(e.kind == "appending" for e in events)
    hooks = [e.line for e in events if e.kind == "debug_hook"]
    assert [line for line in hooks if f"`{line}`" not in text] == []
    assert text.count("```") % 2 == 0


_MERMAID_LINE = re.compile(
    r"^    (participant [A-Z] as \w+"
    r"|[MLT]-{1,2}>>[MLT]: [^;#\n]+"
    r"|Note over [MLT](,[MLT])?: [^;#\n]+)$"
)


def test_mermaid_is_a_well_formed_sequence_diagram(trace: Path) -> None:
    lines = export_text(trace, "mermaid").splitlines()
    assert lines[0] == "sequenceDiagram"
    bad = [line for line in lines[1:] if not _MERMAID_LINE.match(line)]
    assert bad == []
    events = _events(trace)
    assert sum(line.startswith("    L->>M: resending") for line in lines) == sum(
        e.kind == "request" for e in events
    )
    assert sum(line.startswith("    L->>T: ") for line in lines) == sum(
        e.kind == "tool_run" for e in events
    )
    participants = {m.group(1) for line in lines if (m := re.match(r"    participant (\w)", line))}
    used = {
        c
        for line in lines
        if (m := re.match(r"    ([MLT])-{1,2}>>([MLT])", line))
        for c in m.groups()
    }
    assert used <= participants == {"M", "L", "T"}


def _attr(span: Any, key: str) -> Any:
    for kv in span.attributes:
        if kv.key == key:
            which = kv.value.WhichOneof("value")
            value = getattr(kv.value, which)
            return [v.string_value for v in value.values] if which == "array_value" else value
    return None


def test_otlp_json_parses_with_opentelemetry_proto(trace: Path) -> None:
    pytest.importorskip("opentelemetry.proto")
    from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import (
        ExportTraceServiceRequest,
    )

    text = export_text(trace, "otlp-json")
    payload = json.loads(text)
    ids = [
        (s["traceId"], s["spanId"])
        for rs in payload["resourceSpans"]
        for ss in rs["scopeSpans"]
        for s in ss["spans"]
    ]
    assert all(
        re.fullmatch(r"[0-9a-f]{32}", t) and re.fullmatch(r"[0-9a-f]{16}", s) for t, s in ids
    )
    # As http/protobuf sends it: the hex ids become the bytes they spell, nothing else changes.
    request = ExportTraceServiceRequest.FromString(to_protobuf(payload))
    spans = list(request.resource_spans[0].scope_spans[0].spans)
    assert [(s.trace_id.hex(), s.span_id.hex()) for s in spans] == ids
    assert all(len(s.trace_id) == 16 and len(s.span_id) == 8 for s in spans)
    assert len({s.span_id for s in spans}) == len(spans)

    events = _events(trace)
    agents = [s for s in spans if _attr(s, "gen_ai.operation.name") == "invoke_agent"]
    chats = [s for s in spans if _attr(s, "gen_ai.operation.name") == "chat"]
    tools = [s for s in spans if _attr(s, "gen_ai.operation.name") == "execute_tool"]
    # One root agent; a subagent's invoke_agent hangs under its Task call's execute_tool span.
    assert [s for s in agents if not s.parent_span_id] == agents[:1]
    assert all(s.parent_span_id in {a.span_id for a in agents} for s in chats + tools)
    assert all(s.parent_span_id in {t.span_id for t in tools} for s in agents[1:])
    assert all(_attr(s, "gen_ai.provider.name") == "anthropic" for s in spans)

    responses = [e for e in events if e.kind == "response"]
    assert len(chats) == len(responses) > 0
    for span, response in zip(chats, responses, strict=True):
        assert span.name == f"chat {response.model}"
        assert _attr(span, "gen_ai.request.model") == response.model
        assert _attr(span, "gen_ai.usage.output_tokens") == response.usage.get("output_tokens", 0)
        assert _attr(span, "gen_ai.response.finish_reasons")[0] in (
            "tool_use",
            "end_turn",
            "max_tokens",
            "stop_sequence",
        )
        assert span.end_time_unix_nano >= span.start_time_unix_nano
    runs = [e for e in events if e.kind == "tool_run"]
    assert [(_attr(s, "gen_ai.tool.name"), _attr(s, "gen_ai.tool.call.id")) for s in tools] == [
        (e.tool, e.tool_use_id) for e in runs
    ]
    for span in tools:  # the stations a result reached, in the chapter's order
        order = [STATIONS.index(ev.name) for ev in span.events]
        assert order == sorted(set(order)) and order[:2] == [0, 1], order
    assert all([ev.name for ev in span.events] == ["resending"] for span in chats)
    assert export_text(trace, "otlp-json") == text  # ids and times come from the trace alone


def test_export_cli_writes_a_file_and_rejects_bad_input(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "walk.md"
    assert main(["export", str(MAIN_RECORDING), "--format", "md", "-o", str(out)]) == 0
    assert out.read_text(encoding="utf-8").startswith("# Session walk-through")
    capsys.readouterr()
    bad = tmp_path / "bad.jsonl"
    bad.write_text("not a trace\n", encoding="utf-8")
    assert main(["export", str(bad), "--format", "mermaid"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and f"{bad}:1:" in err


def test_markdown_numbers_steps_as_show_does(trace: Path) -> None:
    from tracer.cli.show import show_lines

    text = export_text(trace, "md")
    numbered = dict(re.findall(r"^(\d+)\. \*\*(.+?)\*\*", text, re.M))
    # Step lines only: a subagent's nested loop opens and closes with a line of its own.
    lines = [line.split() for line in show_lines(TraceReader(trace))]
    shown = {f[0]: f[3] for f in lines if f[0].isdigit()}
    assert numbered, "the walk-through has numbered steps"
    for number, name in numbered.items():
        # The same number names the same step kind in both views ("④ resending" ~ resending).
        stage = shown[number]
        assert stage.replace("_", " ").split()[0] in name.replace("-", " "), (number, name, stage)
    assert max(map(int, numbered)) == len(shown)
    assert "request 1 is the first send" in text


def test_mermaid_shows_the_max_turns_check_before_appending() -> None:
    from tracer.files.paths import RECORDINGS_DIR

    lines = export_text(RECORDINGS_DIR / "05-max-turns.trace.jsonl", "mermaid").splitlines()
    checks = [i for i, line in enumerate(lines) if "max-turns check" in line]
    assert len(checks) == 2
    assert "is next turn 2 past max_turns 2? no - go on" in lines[checks[0]]
    assert "is next turn 3 past max_turns 2? yes - stop" in lines[checks[1]]
    appending = next(i for i, line in enumerate(lines) if "appending" in line)
    assert checks[0] < appending  # query.ts checks the limit before it builds the next state


def test_markdown_names_the_turn_max_turns_stopped_at_not_one_never_run() -> None:
    from tracer.files.paths import RECORDINGS_DIR

    text = export_text(RECORDINGS_DIR / "05-max-turns.trace.jsonl", "md")
    assert "after turn 3" not in text
    assert "returns `max_turns` at the end of turn 2 (turnCount 3" in text


def test_markdown_says_what_2_1_88_returns_on_an_api_error() -> None:
    from tracer.files.paths import RECORDINGS_DIR

    text = export_text(RECORDINGS_DIR / "faults" / "08-api-invariants.trace.jsonl", "md")
    assert "the loop returns `model_error` after turn 2" in text
    assert 'adds the same "API Error: …" message and returns `completed`' in text


def test_exports_name_the_pairing_patch() -> None:
    from tracer.files.paths import RECORDINGS_DIR

    trace = RECORDINGS_DIR / "faults" / "01-result-not-returned.trace.jsonl"
    assert "patched by ensureToolResultPairing" in export_text(trace, "md")
    assert "ensureToolResultPairing patches the request" in export_text(trace, "mermaid")


def test_otlp_json_written_a_span_at_a_time_is_the_whole_document(
    trace: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from tracer.export.otlp.document import Options, write_json
    from tracer.export.walk import walk

    options = Options(content=True)
    whole = export_text(trace, "otlp-json", options)
    pieces: list[bytes] = []
    write_json(walk(trace), pieces.append, options)
    assert len(pieces) > 3  # really in pieces: the head, each span, the tail
    assert b"".join(pieces) == whole.encode()
    # The command writes those pieces: into a file, and (C1 and bidi controls escaped) to stdout.
    out = tmp_path / "spans.json"
    argv = ["export", str(trace), "--format", "otlp-json", "--otlp-content"]
    assert main([*argv, "-o", str(out)]) == 0
    assert out.read_bytes() == whole.encode()
    capsys.readouterr()
    assert main(argv) == 0
    assert json.loads(capsys.readouterr().out) == json.loads(whole)


def test_an_otlp_export_that_fails_part_way_leaves_the_old_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import tracer.export.otlp.document as otlp

    out = tmp_path / "spans.json"
    out.write_text("the last export\n", encoding="utf-8")
    real, calls = otlp.to_json_bytes, []

    def stopped(value: Any) -> bytes:
        calls.append(value)
        if len(calls) == 5:
            raise KeyboardInterrupt  # Ctrl-C with four spans written
        return real(value)

    monkeypatch.setattr(otlp, "to_json_bytes", stopped)
    argv = ["export", str(MAIN_RECORDING), "--format", "otlp-json", "-o", str(out)]
    assert main(argv) == 130
    assert out.read_text(encoding="utf-8") == "the last export\n"
    assert [p.name for p in tmp_path.iterdir()] == ["spans.json"]
