"""Attacks through the terminal: a shared trace whose strings hold escape sequences.

A prompt, a tool's output, a kind, a file name: any of them may hold ``ESC ] 0 ;`` (set the
window title), ``ESC [ 2 J`` (clear the screen), ``ESC ] 52 ; c ;`` (write the clipboard) or the
8-bit CSI U+009B. Every command that prints what it read must show them, not obey them: nothing
a terminal would act on may reach stdout or stderr (:mod:`tracer.text.printable`).
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path
from typing import Any

import pytest

from tracer.cli.main import main
from tracer.files.paths import RECORDINGS_DIR
from tracer.text.printable import printable

MAIN = RECORDINGS_DIR / "01-main-walk.trace.jsonl"
#: Title, clear screen, clipboard (OSC 52, "hi" in base64), 8-bit CSI, a bidi override.
HOSTILE = "\x1b]0;pwned\x07\x1b[2J\x1b]52;c;aGk=\x07\x9b2J\u202e"
#: What a terminal obeys: C0 controls but newline and tab, DEL, C1, bidi controls.
OBEYED = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]")


def _hostile_trace(folder: Path) -> Path:
    """The main walk with the escapes in its prompt, its first message, a tool's output, and
    one line of a kind no tracer knows."""
    lines = MAIN.read_text(encoding="utf-8").splitlines()
    out = []
    for line in lines:
        data = json.loads(line)
        if data.get("kind") == "session_start":
            data["prompt"] = HOSTILE + data["prompt"]
        elif data.get("kind") == "message" and data.get("origin") == "prompt":
            data["content"] = HOSTILE + data["content"]
        elif data.get("kind") == "debug_hook":
            data["line"] = HOSTILE + data["line"]
        out.append(json.dumps(data, ensure_ascii=False))
    last = json.loads(out[-1])
    out.insert(-1, json.dumps({"kind": f"x{HOSTILE}", "seq": last["seq"], "turn": 1, "t": 0.0}))
    end = json.loads(out[-1])
    end["seq"] += 1
    out[-1] = json.dumps(end)
    trace = folder / "hostile.trace.jsonl"
    trace.write_text("\n".join(out) + "\n", encoding="utf-8")
    return trace


def _run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(list(args))
    out = capsys.readouterr()
    return code, out.out, out.err


def _hostile_fault(folder: Path) -> Path:
    """A fault recording whose API error (which the doctor's finding quotes) holds the escapes."""
    source = RECORDINGS_DIR / "faults" / "01-result-not-returned.trace.jsonl"
    said = "400 invalid_request_error: "
    text = source.read_text(encoding="utf-8").replace(said, said + json.dumps(HOSTILE)[1:-1])
    trace = folder / "hostile-fault.trace.jsonl"
    trace.write_text(text, encoding="utf-8")
    return trace


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_doctor_quotes_the_api_error_printably(
    lang: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = _run(capsys, "doctor", "--lang", lang, str(_hostile_fault(tmp_path)))
    assert code == 1, err
    assert "\\x1b]0;pwned\\x07" in out  # the finding quotes it, shown
    assert OBEYED.search(out + err) is None, repr(out[:2000])


@pytest.mark.parametrize(
    "args",
    [["show"], ["hooks"], ["validate"]],
    ids=["show", "hooks", "validate"],
)
def test_no_command_prints_an_escape_from_the_trace(
    args: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    trace = _hostile_trace(tmp_path)
    code, out, err = _run(capsys, *args, str(trace))
    assert code in (0, 1), err
    assert out, "the command printed nothing: the check below would prove nothing"
    assert OBEYED.search(out) is None, repr(out[:2000])
    assert OBEYED.search(err) is None, repr(err[:2000])


def test_show_prints_the_prompt_shown_not_obeyed(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _code, out, _err = _run(capsys, "show", str(_hostile_trace(tmp_path)))
    first = out.splitlines()[0]
    assert "\\x1b]0;pwned\\x07\\x1b[2J\\x1b]52;c;aGk=\\x07\\x9b2J\\u202e" in first


def test_validate_names_the_unknown_kind_visibly(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _code, out, err = _run(capsys, "validate", str(_hostile_trace(tmp_path)))
    shown = out + err
    assert "x\\x1b]0;pwned\\x07" in shown, shown


def test_markdown_on_a_terminal_is_made_printable(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    trace = _hostile_trace(tmp_path)
    monkeypatch.setattr(sys.stdout, "isatty", lambda: True)
    code, out, err = _run(capsys, "export", str(trace), "-f", "md")
    assert code == 0, err
    assert "\n" in out and OBEYED.search(out) is None
    monkeypatch.setattr(sys.stdout, "isatty", lambda: False)
    _code, piped, _err = _run(capsys, "export", str(trace), "-f", "md")
    assert HOSTILE in piped  # into a file or a pipe the document is what the trace holds


def test_an_error_that_quotes_the_input_is_printable(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    missing = tmp_path / f"no{HOSTILE}such.trace.jsonl"
    code, _out, err = _run(capsys, "show", str(missing))
    assert code == 2 and OBEYED.search(err) is None
    assert err.count("\n") == 1 and "no such file" in err

    scenario = tmp_path / "s.yaml"
    scenario.write_text('name: s\nprompt: p\nresponses:\n  - "{bad: \\e]0;t\\a"\n')
    code, _out, err = _run(capsys, "record", "--scenario", str(scenario), "-o", str(tmp_path / "t"))
    assert code == 2 and OBEYED.search(err) is None, repr(err)


def test_a_transcript_import_prints_no_escape(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    transcript = tmp_path / f"shared{HOSTILE}.jsonl"  # a name is input too: the report says it
    record: dict[str, Any] = {
        "type": "user",
        "uuid": "u1",
        "parentUuid": None,
        "sessionId": "s",
        "message": {"role": "user", "content": HOSTILE},
    }
    transcript.write_text(json.dumps(record) + f"\nnot json {HOSTILE}\n", encoding="utf-8")
    _code, out, err = _run(
        capsys, "import", "claude-code", str(transcript), "-o", str(tmp_path / "o.trace.jsonl")
    )
    assert OBEYED.search(out + err) is None, repr(err)
    assert "shared\\x1b]0;pwned" in err  # named, visibly


@pytest.mark.parametrize(
    ("text", "lines", "shown"),
    [
        ("\x1b]0;t\x07", False, "\\x1b]0;t\\x07"),
        ("a\nb\r", False, "a\\nb\\r"),
        ("a\nb", True, "a\nb"),
        ("\x9b2J\x7f", False, "\\x9b2J\\x7f"),
        ("abc\u202edef", False, "abc\\u202edef"),
        ("第二站：包装进消息\t✓", False, "第二站：包装进消息\t✓"),
    ],
)
def test_printable_escapes_what_a_terminal_obeys_and_nothing_else(
    text: str, lines: bool, shown: str
) -> None:
    assert printable(text, lines=lines) == shown


@pytest.mark.parametrize(
    ("args", "fault"),
    [(["doctor", "--json"], True), (["export", "-f", "otlp-json"], False)],
    ids=["doctor", "otlp"],
)
def test_json_on_stdout_stays_the_same_json_without_a_control(
    args: list[str], fault: bool, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    trace = _hostile_fault(tmp_path) if fault else _hostile_trace(tmp_path)
    code, out, err = _run(capsys, *args, str(trace))
    assert code in (0, 1), err
    assert OBEYED.search(out.replace("\n", "")) is None, repr(out[:2000])
    assert any(HOSTILE in text for text in _strings(json.loads(out)))  # the value is intact


def _strings(value: Any) -> list[str]:
    if isinstance(value, str):
        return [value]
    items = value.values() if isinstance(value, dict) else value if isinstance(value, list) else []
    return [text for item in items for text in _strings(item)]
