"""``export --format html`` read as a document, without a browser: safe to open, and small.

The page fetches nothing and its security policy lets only its own script run; it has landmarks
and headings; neither a closing script tag nor control characters and bidi overrides in a tool
output can end its data or hide in it (they are shown as visible escapes); a torn trace says so
on the page; a big trace keeps every step, deflated past its first chunk, and stays small.
"""

from __future__ import annotations

import base64
import hashlib
import json
import sys
from pathlib import Path

from export_html_helpers import Page, data_of, hostile_trace, step_lines

from tracer.export.html.page import page_html
from tracer.export.html.payload import build
from tracer.files.paths import MAIN_RECORDING, ROOT
from tracer.trace.reader import TraceReader
from tracer.view.steps import StepIndex

# The walk_page fixture (the main walk's page) comes from export_html_helpers.
pytest_plugins = ["export_html_helpers"]


def test_the_page_fetches_nothing_and_allows_only_its_own_code(walk_page: str) -> None:
    page = Page(walk_page)
    for tag, attrs in page.tags:
        for name in ("src", "href", "action", "srcset", "poster", "data"):
            value = attrs.get(name, "")
            assert not value.startswith(("http://", "https://", "//")), (tag, name, value)
    assert not any(tag in ("link", "img", "iframe", "object", "embed") for tag, _ in page.tags)
    csp = next(
        a["content"] for t, a in page.tags if a.get("http-equiv") == "Content-Security-Policy"
    )
    assert csp.startswith("default-src 'none';")
    code = next(text for attrs, text in page.scripts if not attrs)
    digest = base64.b64encode(hashlib.sha256(code.encode()).digest()).decode()
    assert f"script-src 'sha256-{digest}'" in csp  # only this very script may run
    assert "unsafe" not in csp


def test_the_page_has_landmarks_and_headings(walk_page: str) -> None:
    tags = [tag for tag, _ in Page(walk_page).tags]
    for landmark in ("header", "nav", "main", "aside", "h1", "h2"):
        assert landmark in tags, landmark
    assert '<html lang="en">' in walk_page


def test_a_closing_script_tag_in_a_tool_output_cannot_end_the_data(tmp_path: Path) -> None:
    evil = "</script><script>alert(1)</script><!--"
    text = MAIN_RECORDING.read_text(encoding="utf-8").replace("On branch cmbt", evil)
    trace = tmp_path / "evil.trace.jsonl"
    trace.write_text(text, encoding="utf-8")
    written = page_html(build(trace))
    page = Page(written)
    assert [a.get("id") for a, _ in page.scripts] == ["tracer-meta", "chunk-0", "raw-0", None]
    assert "<script>alert" not in written and "alert(1)" in written  # escaped, not gone
    _meta, chunks = data_of(page)
    assert any(evil in line for line in step_lines(chunks, 7, "en"))


def test_controls_and_bidi_overrides_reach_the_page_as_visible_escapes(tmp_path: Path) -> None:
    written = page_html(build(hostile_trace(tmp_path)))
    raw = "\u202e\u202c\x1b\x00\u2066\u2069\x9b"
    assert not any(char in written for char in raw)  # not in the lines, the raw JSON, anywhere
    _meta, chunks = data_of(Page(written))
    shown = "\n".join(step_lines(chunks, 7, "en"))
    # As the terminal views print them (tracer.text.printable): in the order the bytes hold them.
    assert "\\u202eexe.txt\\u202c \\x1b[2J \\x00 \\u2066x\\u2069 \\x9b" in shown
    raw_json = chunks[0]["steps"][7][2]
    assert "\\u202eexe.txt" in raw_json and json.loads(raw_json)  # still valid JSON


def test_a_torn_trace_says_so_on_the_page(tmp_path: Path) -> None:
    trace = tmp_path / "torn.trace.jsonl"
    text = MAIN_RECORDING.read_text(encoding="utf-8")
    trace.write_text(text + '{"kind": "turn_st', encoding="utf-8")
    meta, _ = data_of(Page(page_html(build(trace))))
    assert meta["torn_line"] == text.count("\n") + 1
    assert "{line}" in meta["words"]["torn"]["en"]


def test_a_big_trace_stays_small_and_keeps_every_step(tmp_path: Path) -> None:
    sys.path.insert(0, str(Path(ROOT) / "bench"))
    try:
        from replay_latency import make_big_trace
    finally:
        sys.path.pop(0)
    trace = make_big_trace(tmp_path / "big.trace.jsonl", turns=200)
    written = page_html(build(trace))
    scripts = Page(written).scripts
    meta, chunks = data_of(Page(written))
    assert meta["encoding"] == "deflate" and len(chunks) > 1
    for kind in ("chunk", "raw"):
        coded = [a.get("data-encoding") for a, _ in scripts if a.get("id", "").startswith(kind)]
        assert coded[0] is None and set(coded[1:]) == {"deflate"}  # the first is plain
    assert meta["count"] == len(StepIndex(TraceReader(trace)))
    assert step_lines(chunks, meta["count"] - 1, "en")[0].startswith("terminal")
    # Past the first chunk (plain, so step 1 draws at once) a step costs about 100 bytes of
    # deflated chunk and 70 of meta: 10,000 turns (100,000 steps) make a page of about 15 MB.
    steps = meta["count"] - len(chunks[0]["steps"])
    deflated = sum(len(text) for a, text in scripts if a.get("data-encoding") == "deflate")
    assert deflated / steps < 250, deflated / steps
    assert len(written.encode()) < 1_000_000
