"""``tracer export A --beside B --format html``: two runs on one page, step beside step.

The rows come from :func:`tracer.compare.align.align` (turn by turn, step of the journey by
step); each side's steps are the same data an ordinary page carries (:func:`.payload.build`: every
step rendered by the replay's renderers, in both languages, in chunks), without the raw JSON.
The page (``beside.html``, ``beside.js``, ``page.css``) shows a summary of the differences first,
then one row at a time: A's step on the left and B's on the right (stacked on a phone), the lines
one side has and the other lacks lit; one control steps both.

A bundled fault names its good twin (:mod:`tracer.compare.twins`), so
``tracer export faults/01-result-not-returned --beside --format html -o f.html`` needs no B.
"""

from __future__ import annotations

import html
import json
from pathlib import Path
from typing import Any

from tracer.compare.align import Row, align, summarize
from tracer.compare.keys import step_keys
from tracer.export.html.meta import run_lengths
from tracer.export.html.page import asset, chunk_element, csp_hash, fill_slots, script_json
from tracer.export.html.payload import Payload, build
from tracer.export.html.words import page_words
from tracer.text.printable import printable
from tracer.trace.reader import TraceReader
from tracer.view.steps import StepIndex

#: The summary lists this many differences by name (and says how many there are in all).
LISTED = 50
CHANGE_CODES = {"same": "s", "changed": "c", "only_a": "a", "only_b": "b"}
#: Each side's meta, kept to what the comparison draws.
SIDE_KEYS = ("name", "title", "count", "chunk", "stages", "stage", "stage_names", "styles",
             "findings", "encoding")  # fmt: skip


def rows_of(a: Path, b: Path) -> list[Row]:
    """The aligned rows of two traces."""
    keys = []
    for path in (a, b):
        reader = TraceReader(path)
        try:
            keys.append(step_keys(StepIndex(reader)))
        finally:
            reader.close()
    return align(keys[0], keys[1])


def row_runs(rows: list[Row]) -> list[list[Any]]:
    """The rows as runs ``[first A step, first B step, change code, length]``: along a run each
    side's step goes up by one (or stays -1, no step), and the change is the same. Two runs that
    mostly agree are a few hundred runs, however long (the page expands them)."""
    out: list[list[Any]] = []
    for row in rows:
        a = -1 if row.a is None else row.a
        b = -1 if row.b is None else row.b
        code = CHANGE_CODES[row.change]
        if out:
            a0, b0, last, n = out[-1]
            if (
                last == code
                and (a == a0 + n if a0 >= 0 else a == -1)
                and (b == b0 + n if b0 >= 0 else b == -1)
            ):
                out[-1][3] += 1
                continue
        out.append([a, b, code, 1])
    return out


def expand_rows(runs: list[list[Any]]) -> tuple[list[int], list[int], str]:
    """:func:`row_runs` undone, as the page does it: each row's A step, B step and change."""
    a: list[int] = []
    b: list[int] = []
    change = []
    for a0, b0, code, n in runs:
        a += [a0 + k if a0 >= 0 else -1 for k in range(n)]
        b += [b0 + k if b0 >= 0 else -1 for k in range(n)]
        change.append(code * n)
    return a, b, "".join(change)


def _side(payload: Payload, path: Path) -> dict[str, Any]:
    side = {key: payload.meta[key] for key in SIDE_KEYS}
    side["name"] = printable(side["name"] or path.name)
    return side


def beside_meta(rows: list[Row], sides: list[dict[str, Any]]) -> dict[str, Any]:
    summary = summarize(rows)
    where: list[dict[int, int]] = [{}, {}]  # each side: step -> row
    for number, row in enumerate(rows):
        if row.a is not None:
            where[0][row.a] = number
        if row.b is not None:
            where[1][row.b] = number
    findings = [
        {**f, "side": k, "row": where[k].get(f["step"], 0)}
        for k, side in enumerate(sides)
        for f in side["findings"]
    ]
    return {
        "version": 1,
        "sides": sides,
        "count": len(rows),
        "rows": row_runs(rows),
        "turns": run_lengths(r.turn for r in rows),
        "summary": {
            "same": summary.same,
            "changed": summary.changed,
            "only_a": summary.only_a,
            "only_b": summary.only_b,
            "listed": summary.differences[:LISTED],
            "differences": len(summary.differences),
        },
        "findings": findings,
        "words": page_words(),
    }


def beside_html(a: Path, b: Path, lang: str = "en", *, full: bool = False) -> str:
    """The whole comparison page of ``a`` and ``b``."""
    payloads = [build(a, full=full), build(b, full=full)]
    sides = [_side(p, path) for p, path in zip(payloads, (a, b), strict=True)]
    meta = beside_meta(rows_of(a, b), sides)
    style, script = asset("page.css"), asset("beside.js")
    csp = f"default-src 'none'; style-src {csp_hash(style)}; script-src {csp_hash(script)}"
    first: list[str] = []
    rest: list[str] = []
    for letter, payload in zip("ab", payloads, strict=True):
        for number, text in enumerate(payload.chunks):
            element = chunk_element(number, text, f"{letter}-chunk")
            (first if number == 0 else rest).append(element)
    title = f"{sides[0]['name']} ⇄ {sides[1]['name']}"
    return fill_slots(
        asset("beside.html"),
        {
            "lang": "zh-Hans" if lang == "zh" else "en",
            "csp": csp,
            "title": html.escape(title),
            "style": style,
            "meta": script_json(json.dumps(meta, ensure_ascii=False, separators=(",", ":"))),
            "first_chunks": "\n".join(first),
            "script": script,
            "chunks": "\n".join(rest),
        },
    )


def export_beside(a: Path, b: Path, output: Path, *, full: bool = False, lang: str = "en") -> int:
    """Write the comparison page of ``a`` and ``b`` to ``output``; its size in bytes."""
    from tracer.export.whole_file import write_whole

    return write_whole(output, beside_html(a, b, lang, full=full))
