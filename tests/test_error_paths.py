"""One voice for the error path: which 2.1.88 path builds each kind of error result.

``tracer.chapter.error_paths`` is the table; these tests hold every place that speaks of it to the
table, and the table to the recordings: each failure a bundled recording holds is built outside
``addToolResult`` (so the book's ``Tool result`` line is tracer's only), is tagged exactly when
its kind is, and the wrapping view says the same.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tracer.chapter.error_paths import PATHS, error_path
from tracer.files.paths import RECORDINGS_DIR
from tracer.trace.reader import TraceReader
from tracer.view.render import render_step
from tracer.view.steps import StepIndex

RECORDINGS = sorted(RECORDINGS_DIR.glob("*.trace.jsonl"))


def test_only_a_call_that_returned_goes_through_add_tool_result() -> None:
    # ... and a command cut off, which Bash returns normally (interrupted, is_error).
    assert [kind for kind, path in PATHS.items() if path.via_add_tool_result] == [
        None,
        "command_interrupted",
    ]
    tagged = {kind for kind, path in PATHS.items() if path.tagged}
    # The book's <tool_use_error> marks refusals made before anything runs, nothing else.
    assert tagged == {"input_validation", "validate_input", "unknown_tool"}


def test_every_error_kind_the_runner_writes_has_a_row() -> None:
    import inspect

    from tracer.agent import execution, tool_checks

    # The refusals before a call are built in tool_checks, the rest in the runner.
    source = inspect.getsource(execution) + inspect.getsource(tool_checks)
    for kind in ("input_validation", "validate_input", "unknown_tool", "permission", "aborted"):
        assert f'"{kind}"' in source and kind in PATHS
    assert {"exit_code", "exception", "interrupted", "command_interrupted"} <= set(PATHS)


@pytest.mark.parametrize("path", RECORDINGS, ids=lambda p: p.name.split(".")[0])
def test_recorded_results_follow_the_table(path: Path) -> None:
    events = list(TraceReader(path))
    mapped = {e.tool_use_id: e.block for e in events if e.kind == "mapping"}
    hooks = [e for e in events if e.kind == "debug_hook" and e.hook == "tool_result"]
    wrapped = [e for e in events if e.kind == "wrapping"]
    assert len(hooks) == len(wrapped)
    for wrap, hook in zip(wrapped, hooks, strict=True):
        row = error_path(wrap.error_kind)
        assert row is not None, wrap.error_kind
        content = str(mapped[wrap.tool_use_id].get("content"))
        assert content.startswith("<tool_use_error>") == row.tagged, (wrap.error_kind, content)
        # The book's line sits in addToolResult: it prints only where 2.1.88 reaches it.
        assert bool(hook.tracer_only) == (not row.via_add_tool_result)
        if wrap.error_kind == "exit_code":
            assert content.startswith("Exit code ")


@pytest.mark.parametrize(
    ("recording", "kind"),
    [
        ("02-error-path", "input_validation"),
        ("08-failing-command", "exit_code"),
        ("10-tool-use-error-forms", "validate_input"),
        ("10-tool-use-error-forms", "unknown_tool"),
        ("11-permission-reject-abort", "permission"),
    ],
)
def test_the_wrapping_view_names_the_path_that_builds_the_failure(
    recording: str, kind: str
) -> None:
    index = StepIndex(TraceReader(RECORDINGS_DIR / f"{recording}.trace.jsonl"))
    step = next(s for s in index.by_stage["wrapping"] if index.event(s).error_kind == kind)
    row = PATHS[kind]
    en, zh = render_step(index, step, "en").plain, render_step(index, step, "zh").plain
    assert "called from addToolResult" not in en and row.en in en
    assert "addToolResult 调用的" not in zh and row.zh in zh


def test_a_success_is_wrapped_by_add_tool_result() -> None:
    index = StepIndex(TraceReader(RECORDINGS_DIR / "01-main-walk.trace.jsonl"))
    step = index.by_stage["wrapping"][0]
    assert (
        "(the book's createUserMessage, called from addToolResult)"
        in render_step(index, step, "en").plain
    )
