"""The resending step lists a request's HTTP attempts when there was more than a clean one.

Traces are recorded here through the real loop with scripted API faults and a tiny timeout; one
is then cut short after an attempt went out, as a killed recorder leaves it.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from replay_helpers import MAIN_TRACE

from tracer.errors import UserError
from tracer.trace.reader import TraceReader
from tracer.view.attempts import AttemptRow, attempt_rows
from tracer.view.render import render_step
from tracer.view.search import search_steps
from tracer.view.steps import StepIndex

pytestmark = pytest.mark.usefixtures("quick_sdk_retries")

TIMED_OUT = "timed out: nothing received for 0.2 s"


def _resending(index: StepIndex) -> int:
    return next(s for s in range(len(index)) if index.stage(s) == "resending")


def test_a_retried_request_lists_its_attempts(record: Any) -> None:
    rec = record({"responses": [{"text": "hi", "faults": [{"hang": 0}]}]}, timeout=0.2)
    index = StepIndex(TraceReader(rec.path))
    step = _resending(index)
    rows = attempt_rows(index, step)
    starts = [e.t for e in rec.of("http_attempt_start")]
    assert rows == [
        AttemptRow(1, starts[0], None, TIMED_OUT, 0.2, ended=True),
        AttemptRow(2, starts[1], 200, None, 0.2, ended=True),
    ]
    text = render_step(index, step, "en").plain
    assert "HTTP attempts:" in text
    assert f"  1  t={starts[0]:.2f}s  {TIMED_OUT}" in text
    assert f"  2  t={starts[1]:.2f}s  HTTP 200" in text
    assert search_steps(index, "nothing received") == [step]


def test_the_plain_fallback_after_a_broken_stream_says_so(record: Any) -> None:
    rec = record({"responses": [{"text": "hi", "faults": [{"cut_after": 4}]}]}, timeout=0.2)
    index = StepIndex(TraceReader(rec.path))
    step = _resending(index)
    first, second = attempt_rows(index, step)
    assert first.streaming and not second.streaming
    en = render_step(index, step, "en").plain
    zh = render_step(index, step, "zh").plain
    assert "  2  " in en and "without streaming (the fallback)  HTTP 200" in en
    assert "改用非流式请求（回退）  HTTP 200" in zh
    assert "without streaming" not in en.split("  2  ")[0], "the streamed try is not marked"


def test_an_attempt_cut_short_shows_as_in_flight(record: Any, tmp_path: Path) -> None:
    rec = record({"responses": [{"text": "hi", "faults": [{"hang": 0}]}]}, timeout=0.2)
    lines = rec.path.read_text(encoding="utf-8").splitlines(keepends=True)
    first_start = next(i for i, line in enumerate(lines) if '"http_attempt_start"' in line)
    cut = tmp_path / "cut.trace.jsonl"
    cut.write_text("".join(lines[: first_start + 1]), encoding="utf-8")
    index = StepIndex(TraceReader(cut))
    step = _resending(index)
    assert step == len(index) - 1, "the request is the last step"
    [row] = attempt_rows(index, step)
    assert row.in_flight and row.number == 1 and not row.ended
    assert "in flight (timeout 0.2 s): the trace stops here" in render_step(index, step, "en").plain
    assert "进行中（超时0.2秒）：记录到此为止" in render_step(index, step, "zh").plain


def test_a_clean_request_lists_no_attempts(record: Any) -> None:
    rec = record({"responses": [{"text": "hi"}]})
    index = StepIndex(TraceReader(rec.path))
    step = _resending(index)
    assert [r.number for r in attempt_rows(index, step)] == [1]
    assert "HTTP attempts" not in render_step(index, step, "en").plain


def test_a_trace_from_before_attempt_starts_still_renders() -> None:
    # Recorded before http_attempt_start existed (and before max_turns moved ahead of appending).
    index = StepIndex(
        TraceReader(MAIN_TRACE.with_name("main-walk-before-attempt-starts.trace.jsonl"))
    )
    step = _resending(index)
    assert attempt_rows(index, step) == []
    assert "HTTP attempts" not in render_step(index, step, "en").plain


def test_damaged_attempt_records_do_not_reach_the_view(record: Any, tmp_path: Path) -> None:
    """Wrong types stop at the reader (one line, file:line), as for every event kind; a start
    of the right type that pairs with nothing still draws."""
    rec = record({"responses": [{"text": "hi", "faults": [{"hang": 0}]}]}, timeout=0.2)
    text = rec.path.read_text(encoding="utf-8")
    wrong = tmp_path / "wrong.trace.jsonl"
    wrong.write_text(text.replace('"attempt":1,', '"attempt":[1],', 1), encoding="utf-8")
    line = next(
        n for n, ln in enumerate(wrong.read_text().splitlines(), 1) if '"attempt":[1]' in ln
    )
    with pytest.raises(UserError, match=f":{line}: http_attempt_start event: attempt must be"):
        list(TraceReader(wrong))
    text = text.replace('"attempt":1,', '"attempt":99,', 1)  # the first start: unpairable
    text = text.replace('"timeout":0.2}', '"timeout":null}')
    damaged = tmp_path / "damaged.trace.jsonl"
    damaged.write_text(text, encoding="utf-8")
    index = StepIndex(TraceReader(damaged))
    step = _resending(index)
    rows = attempt_rows(index, step)
    assert [(r.number, r.started is None, r.timeout, r.error) for r in rows] == [
        (1, True, None, TIMED_OUT),  # its start now claims to be attempt 99
        (2, False, None, None),
        (99, False, None, None),  # a start that no ending pairs with still gets its row
    ]
    assert TIMED_OUT in render_step(index, step, "en").plain
