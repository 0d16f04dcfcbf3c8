"""The HTTP attempts behind one request, for the ``resending`` step's view.

The loop writes an ``http_attempt_start`` as each attempt goes out, and an ``http_attempt`` when
an attempt fails or is a retry (a clean first attempt needs none: the ``response`` step says it
all). Both sit between the ``resending`` step and the next step. This module pairs them up, so
the view can list every try of a request that was retried, failed, or was still waiting when
the trace stops (a killed recorder, a server that never answered). An attempt that did not
stream is the fallback Claude Code 2.1.88 sends after a broken stream, and says so. Pure: no
Textual here.
"""

from __future__ import annotations

from dataclasses import dataclass

from rich.text import Text

from tracer.trace.events import STEP_KINDS
from tracer.view.i18n import in_lang
from tracer.view.steps import StepIndex

_KINDS = ("http_attempt_start", "http_attempt")


@dataclass(frozen=True, slots=True)
class AttemptRow:
    number: float
    started: float | None
    """Seconds into the session when the attempt went out (``None``: no start recorded)."""
    status: int | None = None
    error: str | None = None
    timeout: float | None = None
    ended: bool = False
    in_flight: bool = False
    """Started, never ended, and nothing comes after it: the trace stops mid-attempt."""
    streaming: bool = True
    """False for the plain request sent after a stream broke."""


def attempt_rows(index: StepIndex, step: int) -> list[AttemptRow]:
    """The attempts recorded after ``step`` and before the next step, in order."""
    reader = index.reader
    rows: dict[float, AttemptRow] = {}  # by attempt number, as recorded
    i = index.positions[step] + 1
    while i < len(reader):
        kind = reader.kind_of(i)
        if kind in STEP_KINDS:
            break
        if kind in _KINDS:
            event = reader[i]
            number = _number(getattr(event, "attempt", None))
            if number is None:  # a damaged record: nothing to pair it with
                i += 1
                continue
            before = rows.get(number)
            if kind == "http_attempt_start":
                rows[number] = AttemptRow(
                    number,
                    _number(event.t),
                    timeout=_number(getattr(event, "timeout", None)),
                    streaming=getattr(event, "streaming", None) is not False,
                )
            else:
                status = _number(getattr(event, "status", None))
                error = getattr(event, "error", None)
                rows[number] = AttemptRow(
                    number,
                    before.started if before else None,
                    int(status) if status is not None else None,
                    str(error) if error is not None else None,
                    before.timeout if before else None,
                    ended=True,
                    streaming=before.streaming if before else True,
                )
        i += 1
    ordered = [rows[n] for n in sorted(rows)]
    if ordered and not ordered[-1].ended and i >= len(reader):
        last = ordered[-1]
        ordered[-1] = AttemptRow(
            last.number,
            last.started,
            timeout=last.timeout,
            in_flight=True,
            streaming=last.streaming,
        )
    return ordered


def _number(value: object) -> float | None:
    """A number from a record that may be damaged; ``None`` when it is not one."""
    ok = isinstance(value, int | float) and not isinstance(value, bool)
    return value if ok else None  # type: ignore[return-value]


def worth_showing(rows: list[AttemptRow]) -> bool:
    """One clean attempt is the normal case: the view lists attempts only when it is not."""
    return len(rows) > 1 or any(r.error or r.in_flight for r in rows)


def attempts_text(rows: list[AttemptRow], lang: str) -> Text:
    """One line per attempt: when it went out and how it ended."""
    out = Text(in_lang(lang, "HTTP attempts:\n", "HTTP 尝试：\n"), style="bold cyan")
    for row in rows:
        out.append(f"  {row.number:g}  ", style="bold")
        if row.started is not None:
            out.append(f"t={row.started:.2f}s  ", style="dim")
        if not row.streaming:
            out.append(
                in_lang(lang, "without streaming (the fallback)  ", "改用非流式请求（回退）  "),
                style="bold magenta",
            )
        if row.in_flight:
            limit = f"{row.timeout:g}" if row.timeout is not None else "?"
            out.append(
                in_lang(
                    lang,
                    f"in flight (timeout {limit} s): the trace stops here",
                    f"进行中（超时{limit}秒）：记录到此为止",
                ),
                style="bold yellow",
            )
        elif row.error:
            status = f"HTTP {row.status}  " if row.status and row.status < 400 else ""
            out.append(f"{status}{row.error}", style="red")
        elif row.ended or row.status:
            out.append(f"HTTP {row.status or 200}", style="green")
        else:
            out.append(in_lang(lang, "answered", "已应答"), style="green")
        out.append("\n")
    return out
