"""The book's ``Tool result`` line, and where Claude Code 2.1.88 would really print it.

In 2.1.88 only a tool call that returned normally reaches ``addToolResult``; a failed command
throws and is wrapped by the catch in ``toolExecution.ts``, and refusals return early. tracer
still prints the line for every result, marked ``tracer_only``. Checked on the bundled
recordings and through ``tracer hooks``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tracer.files.paths import RECORDINGS_DIR
from tracer.trace.hooks import TRACER_ONLY, shown_line
from tracer.trace.reader import open_trace

FAILING = RECORDINGS_DIR / "08-failing-command.trace.jsonl"
ERROR_PATH = RECORDINGS_DIR / "02-error-path.trace.jsonl"


def _results_and_lines(path: Path) -> list[tuple[Any, Any]]:
    """Each ``Tool result`` hook with the mapping step of the same result."""
    pairs = []
    with open_trace(path) as reader:
        mapped: dict[str, Any] = {}
        last_wrapped = None
        for event in reader:
            if event.kind == "mapping":
                mapped[event.tool_use_id] = event
            elif event.kind == "wrapping":
                last_wrapped = event.tool_use_id
            elif event.kind == "debug_hook" and event.hook == "tool_result":
                pairs.append((mapped[last_wrapped], event))
    return pairs


@pytest.mark.parametrize("path", [FAILING, ERROR_PATH], ids=["08", "02"])
def test_only_error_results_are_tracer_only(path: Path) -> None:
    pairs = _results_and_lines(path)
    assert any(m.block.get("is_error") for m, _ in pairs), "the scenario has a failed result"
    assert any(not m.block.get("is_error") for m, _ in pairs), "and a good one"
    for mapping, hook in pairs:
        assert bool(hook.tracer_only) == bool(mapping.block.get("is_error")), hook.line


def test_tracer_hooks_marks_the_failed_command(tracer_cli: Any) -> None:
    proc = tracer_cli("hooks", str(FAILING))
    assert proc.returncode == 0, proc.stderr
    failed = [line for line in proc.stdout.splitlines() if "is_error: true" in line]
    assert failed and all(line.endswith(TRACER_ONLY["en"]) for line in failed)
    good = [
        line
        for line in proc.stdout.splitlines()
        if "Tool result:" in line and "is_error: true" not in line
    ]
    assert good and not any(TRACER_ONLY["en"] in line for line in good)
    # The recorded line itself stays the book's exact console.log output.
    with open_trace(FAILING) as reader:
        hooks = [e for e in reader if e.kind == "debug_hook" and e.tracer_only]
    prefix = "[DEBUG] Tool result: Bash is_error: true"
    assert hooks and all(e.line.startswith(prefix) for e in hooks)
    assert TRACER_ONLY["zh"] in shown_line(hooks[0], "zh")


def test_a_command_cut_off_reaches_add_tool_result(record: Any) -> None:
    # 2.1.88's Bash returns an interrupted command normally (is_error from its mapping), so
    # addToolResult wraps it and the book's line is printed there: not tracer-only.
    rec = record(
        {
            "permissions": {"allow": ["Bash"]},
            "responses": [
                {"tool_use": [{"name": "Bash", "input": {"command": "sleep 30", "timeout": 300}}]},
                {"text": "It ran too long."},
            ],
        }
    )
    (wrapped,) = rec.of("wrapping")
    (mapped,) = rec.of("mapping")
    assert wrapped.error_kind == "command_interrupted" and mapped.block["is_error"] is True
    assert "<error>Command was aborted before completion</error>" in mapped.block["content"]
    (hook,) = [e for e in rec.of("debug_hook") if e.hook == "tool_result"]
    assert not hook.tracer_only


def test_a_long_failing_output_is_cut_as_format_error_cuts_it(record: Any) -> None:
    # formatError (toolErrors.ts): over 10,000 characters, the first and last 5,000 remain; a
    # thrown error is never persisted to a file the way a large result is.
    command = "python3 -c \"print('a' * 8000); print('z' * 8000)\"; exit 2"
    rec = record(
        {
            "permissions": {"allow": ["Bash"]},
            "responses": [
                {"tool_use": [{"name": "Bash", "input": {"command": command}}]},
                {"text": "It failed."},
            ],
        }
    )
    (mapped,) = rec.of("mapping")
    content = mapped.block["content"]
    full = "Exit code 2\n" + "a" * 8000 + "\n" + "z" * 8000
    assert (
        content
        == f"{full[:5000]}\n\n... [{len(full) - 10_000} characters truncated] ...\n\n{full[-5000:]}"
    )
    assert mapped.mapped_length == len(full) and not mapped.persisted
