"""The views the main walk cannot show, on small sessions recorded here through the real loop.

An Edit shows its diff where the diff is kept; a rejected permission shows the decision and the
reader's feedback; an error result is lit; an output large enough to be persisted is explained,
in both languages; and a note the import left shows beside the step it precedes.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from replay_helpers import MAIN_TRACE, view

from tracer.trace.reader import TraceReader
from tracer.view.cursor import locate
from tracer.view.render import render_step
from tracer.view.steps import StepIndex

EDIT_SCENARIO: dict[str, Any] = {
    "workspace": {
        "files": {
            "shipping.py": "def cost(total):\n    if total > 50:\n        return 0\n    return 5\n"
        }
    },
    "permissions": {"allow": ["Read", "Edit"]},
    "responses": [
        {"text": "Reading.", "tool_use": [{"name": "Read", "input": {"file_path": "shipping.py"}}]},
        {
            "text": "Fixing.",
            "tool_use": [
                {
                    "name": "Edit",
                    "input": {
                        "file_path": "shipping.py",
                        "old_string": "total > 50",
                        "new_string": "total >= 50",
                    },
                }
            ],
        },
        {"text": "Done."},
    ],
}


REJECT_SCENARIO: dict[str, Any] = {
    "permissions": {
        "decisions": [
            {"rule": "Bash(rm:*)", "decision": "reject", "feedback": "Never delete files here."}
        ]
    },
    "responses": [
        {"text": "Cleaning up.", "tool_use": [{"name": "Bash", "input": {"command": "rm -rf x"}}]},
        {"text": "Understood."},
    ],
}


# A Read with the wrong parameter name: refused before it runs, so its result is tagged.
ERROR_SCENARIO: dict[str, Any] = {
    "permissions": {"allow": ["Read"]},
    "responses": [
        {"text": "Reading.", "tool_use": [{"name": "Read", "input": {"path": "missing.py"}}]},
        {"text": "It is not there."},
    ],
}


def _recorded(record: Callable[..., Any], scenario: dict[str, Any]) -> StepIndex:
    return StepIndex(TraceReader(record(scenario).path))


def test_an_edit_shows_its_diff_where_it_is_kept(record: Callable[..., Any]) -> None:
    index = _recorded(record, EDIT_SCENARIO)
    wrapping = locate(index, turn=2, stage="wrapping")
    text = view(index, wrapping)
    assert "-    if total > 50:" in text and "+    if total >= 50:" in text
    mapping = view(index, locate(index, turn=2, stage="mapping"))
    assert "has been updated" in mapping


def test_a_rejected_call_shows_the_decision_and_the_feedback(record: Callable[..., Any]) -> None:
    index = _recorded(record, REJECT_SCENARIO)
    text = view(index, locate(index, stage="permission"))
    assert "decision: reject" in text
    assert "Never delete files here." in text
    assert "Never delete files here." in view(index, locate(index, stage="mapping"))


def test_an_error_result_is_lit(record: Callable[..., Any]) -> None:
    index = _recorded(record, ERROR_SCENARIO)
    step = locate(index, stage="mapping")
    text = render_step(index, step, "en")
    assert '"is_error": true' in text.plain
    assert "<tool_use_error>" in text.plain
    lit = [span for span in text.spans if "on #b03030" in str(span.style)]
    assert lit, "the error markers should be highlighted"


LARGE_SCENARIO: dict[str, Any] = {
    "permissions": {"allow": ["Bash(seq:*)"]},
    "responses": [
        {"text": "Counting.", "tool_use": [{"name": "Bash", "input": {"command": "seq 1 40000"}}]},
        {"text": "That was long."},
    ],
}


def test_a_persisted_output_is_explained(record: Callable[..., Any]) -> None:
    index = _recorded(record, LARGE_SCENARIO)
    text = view(index, locate(index, stage="mapping"))
    assert "<persisted-output>" in text
    assert "so it was saved to" in text
    zh = view(index, locate(index, stage="mapping"), "zh")
    assert "AI 只拿到预览和路径" in zh


def test_import_notes_show_beside_the_step_they_precede(tmp_path: Path) -> None:
    lines = MAIN_TRACE.read_text(encoding="utf-8").splitlines()
    at = next(n for n, line in enumerate(lines) if '"kind":"request"' in line)
    note = json.dumps(
        {
            "kind": "import_note",
            "seq": at,
            "turn": 1,
            "t": 0.0,
            "topic": "compaction",
            "text": "the history was summarized here",
        }
    )
    # The reader holds seq to the line's position: renumber what follows, pointers included.
    after = []
    for line in lines[at:]:
        event = json.loads(line)
        for key in ("seq", "block_seq", "tool_use_result_seq"):
            if isinstance(event.get(key), int) and event[key] >= at:
                event[key] += 1
        after.append(json.dumps(event, ensure_ascii=False))
    path = tmp_path / "noted.trace.jsonl"
    path.write_text("\n".join([*lines[:at], note, *after]) + "\n", encoding="utf-8")
    index = StepIndex(TraceReader(path))
    text = view(index, locate(index, stage="resending"))
    assert "noted by the import:" in text and "[compaction] the history was summarized" in text
    assert "noted by the import" not in view(index, locate(index, stage="response"))
