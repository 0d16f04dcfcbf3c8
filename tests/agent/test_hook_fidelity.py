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

from tracer.hooks import TRACER_ONLY, shown_line
from tracer.paths import RECORDINGS_DIR
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
