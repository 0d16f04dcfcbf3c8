"""``tracer export --format mermaid``: a session as a Mermaid sequence diagram.

Three participants, the loop in the middle: the **model** answers, the **loop** resends and
decides, the **tools** run. Each request is an arrow to the model, each response one back; each
tool call an arrow to the tools and its ``tool_result`` one back; notes mark the turn, the
stations, the max-turns check (which comes before appending, as in query.ts) and a request the
pairing patch changed. Mermaid reads ``;`` and ``#`` inside a message as syntax, so labels are
cleaned.
"""

from __future__ import annotations

import re
from typing import Any

from tracer.export.walk import Walk, note_of, short

_UNSAFE = re.compile(r"[;#<>{}\"`]")


def label(text: Any, width: int = 60) -> str:
    """A one-line label Mermaid cannot misread."""
    return _UNSAFE.sub("", short(text, width)).replace(":", " -") or "-"


def render(w: Walk) -> str:
    lines = [
        "sequenceDiagram",
        "    participant M as Model",
        "    participant L as Loop",
        "    participant T as Tools",
    ]
    session = w.session
    if session is not None:
        lines.append(f"    Note over L: prompt - {label(session.prompt, 50)}")
    for turn in w.turns:
        for e in turn.events:
            k = e.kind
            if k == "turn_start":
                lines.append(f"    Note over M,T: turn {turn.number} - {e.message_count} messages")
            elif k == "request":
                if (e.pairing or {}).get("added") or (e.pairing or {}).get("stripped"):
                    lines.append("    Note over L: ensureToolResultPairing patches the request")
                lines.append(
                    f"    L->>M: resending - request {e.request_index}, "
                    f"{e.message_count} API messages, {e.bytes} bytes"
                )
            elif k == "response":
                lines.append(
                    f"    M-->>L: response - {len(e.assistant_uuids)} blocks, "
                    f"stop_reason {label(e.stop_reason)}"
                )
            elif k == "follow_up":
                lines.append(f"    Note over L: needsFollowUp {str(e.needs_follow_up).lower()}")
            elif k == "permission":
                lines.append(f"    Note over L,T: permission {label(e.tool)} {e.decision}")
            elif k == "tool_run":
                lines.append(f"    L->>T: {label(e.tool)} {label(e.input, 40)}")
                status = "error" if e.is_error else "ok"
                lines.append(f"    T-->>L: raw output ({status})")
            elif k == "mapping":
                lines.append(f"    Note over L: mapping - tool_result, {e.content_length} chars")
            elif k == "wrapping":
                lines.append("    Note over L: wrapping - user message")
            elif k == "max_turns_check":
                limit = e.max_turns if e.max_turns is not None else "unset"
                verdict = "yes - stop" if e.exceeded else "no - go on"
                lines.append(
                    f"    Note over L: max-turns check - is next turn {e.next_turn_count} "
                    f"past max_turns {limit}? {verdict}"
                )
            elif k == "appending":
                lines.append(
                    f"    Note over L: appending - {e.before_count} to {e.after_count} messages"
                )
            elif k == "terminal":
                lines.append(f"    Note over L: terminal - {label(e.reason)}")
            elif k == "import_note":
                topic, note = note_of(e)
                lines.append(f"    Note over L,T: {label(topic)} - {label(note, 50)}")
    return "\n".join(lines) + "\n"
