"""What the page tests share: the exported page read back without a browser, and a hostile trace.

:class:`Page` reads the page with the standard library's ``html.parser`` (every tag with its
attributes, the text of each ``<script>``); :func:`data_of` decodes its data the way the page's
script (``page_data.js``) decodes it, plain JSON or deflate + base64 on a big trace; and
:func:`step_lines` gives a step's lines in one language. :func:`hostile_trace` is the main walk
with a tool output full of control characters and a right-to-left override (:data:`HOSTILE`),
which the browser tests (``test_export_html_browser_*.py``, through ``browser_helpers``) load too.
The ``walk_page`` fixture is the main walk's page, made once a module; the files that use it name
this module in ``pytest_plugins``.
"""

from __future__ import annotations

import base64
import json
import zlib
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import pytest

from tracer.export.html.page import page_html
from tracer.export.html.payload import build
from tracer.export.html.spans import plain_of
from tracer.files.paths import MAIN_RECORDING


class Page(HTMLParser):
    """Every tag with its attributes, and the text of each ``<script>``."""

    def __init__(self, text: str) -> None:
        super().__init__()
        self.tags: list[tuple[str, dict[str, str]]] = []
        self.scripts: list[tuple[dict[str, str], str]] = []
        self._in: dict[str, str] | None = None
        self.feed(text)

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        found = {k: v or "" for k, v in attrs}
        self.tags.append((tag, found))
        if tag == "script":
            self._in = found
            self.scripts.append((found, ""))

    def handle_endtag(self, tag: str) -> None:
        if tag == "script":
            self._in = None

    def handle_data(self, data: str) -> None:
        if self._in is not None:
            attrs, text = self.scripts[-1]
            self.scripts[-1] = (attrs, text + data)


def data_of(page: Page) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """The page's meta and its chunks, decoded as page_data.js decodes them."""
    blocks = {
        a.get("id"): (a, text) for a, text in page.scripts if a.get("type") == "application/json"
    }
    meta = json.loads(blocks.pop("tracer-meta")[1])

    def block(name: str) -> Any:
        attrs, text = blocks[name]
        if attrs.get("data-encoding") == "deflate":
            text = zlib.decompress(base64.b64decode(json.loads(text))).decode("utf-8")
        return json.loads(text)

    chunks = []
    for number in range(len(blocks) // 2):
        chunk, raw = block(f"chunk-{number}"), block(f"raw-{number}")
        assert raw["first"] == chunk["first"]
        # each step as [zh line ids, en line ids, raw JSON, fold notes], as page_data.js puts it
        pairs = zip(chunk["steps"], raw["raw"], strict=True)
        chunk["steps"] = [[*step, *more] for step, more in pairs]
        chunks.append(chunk)
    return meta, chunks


def step_lines(chunks: list[dict[str, Any]], step: int, lang: str) -> list[str]:
    for chunk in chunks:
        if chunk["first"] <= step < chunk["first"] + len(chunk["steps"]):
            ids = chunk["steps"][step - chunk["first"]][0 if lang == "zh" else 1]
            return [plain_of(chunk["lines"][i]) for i in ids]
    raise AssertionError(f"step {step} is in no chunk")


#: A tool output naming ``exe.txt`` inside a right-to-left override (it reads ``txt.exe``), with
#: a raw ESC sequence and a NUL: JSON escapes, as a transcript would carry them.
HOSTILE = "\\u202eexe.txt\\u202c \\u001b[2J \\u0000 \\u2066x\\u2069 \\u009b"


def hostile_trace(folder: Path) -> Path:
    trace = folder / "hostile.trace.jsonl"
    text = MAIN_RECORDING.read_text(encoding="utf-8")
    trace.write_text(text.replace("On branch cmbt", HOSTILE), encoding="utf-8")
    return trace


@pytest.fixture(scope="module")
def walk_page() -> str:
    return page_html(build(MAIN_RECORDING))
