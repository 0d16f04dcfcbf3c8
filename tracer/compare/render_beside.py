"""One side of a comparison row as Rich text: the step the replay would show, its differences lit.

Each column of ``tracer replay A --beside B`` renders its side's step with the replay's own
renderer (:func:`tracer.view.render.render_step`), so a step reads the same beside another run
as it does alone. On a row the two runs both have but recorded differently (``changed``), each
side's lines that the other side's rendering lacks are lit: the malformed block's missing
``tool_use_id`` line shows on the good side, the answer only one run got on its side. A row one
run lacks shows that side as "this run has no such step".

Pure: Rich text in, Rich text out, nothing from Textual.
"""

from __future__ import annotations

from rich.text import Text

from tracer.compare.align import Row
from tracer.compare.beside_words import word
from tracer.view.fold import without_key_hints
from tracer.view.render import render_step
from tracer.view.steps import StepIndex

TYPE_CHECKING = False
if TYPE_CHECKING:  # only named in annotations
    from collections.abc import Iterable

#: How a line one side has and the other lacks is lit.
LIT_LINE = "on #3a2a00"


def side_text(index: StepIndex, step: int | None, lang: str) -> Text:
    """The step as the replay renders it, or the words for a step this run does not have."""
    if step is None:
        return Text(word("no_step", lang), style="italic #a0a0a0")
    with without_key_hints():  # "b: jump here and back" and the like: the replay's keys, not ours
        return render_step(index, step, lang)


def light_differences(a: Text, b: Text) -> tuple[Text, Text]:
    """``a`` and ``b`` with each line the other lacks lit (blank lines never are)."""
    a_lines, b_lines = a.split("\n"), b.split("\n")
    a_plain = {line.plain.strip() for line in a_lines}
    b_plain = {line.plain.strip() for line in b_lines}
    return _lit(a_lines, b_plain), _lit(b_lines, a_plain)


def _lit(lines: Iterable[Text], other: set[str]) -> Text:
    out = Text()
    for number, line in enumerate(lines):
        if line.plain.strip() and line.plain.strip() not in other:
            line.stylize(LIT_LINE)
        if number:
            out.append("\n")
        out.append_text(line)
    return out


def row_texts(indexes: tuple[StepIndex, StepIndex], row: Row, lang: str) -> tuple[Text, Text]:
    """Both sides of ``row``; on a changed row, the lines that differ lit. (A row the same in
    both runs lights nothing, though times and temporary paths may read differently.)"""
    a = side_text(indexes[0], row.a, lang)
    b = side_text(indexes[1], row.b, lang)
    return light_differences(a, b) if row.change == "changed" else (a, b)
