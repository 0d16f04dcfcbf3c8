"""``export --format html`` without a browser: the page parses, fetches nothing, holds every step.

The page is read back with the standard library's ``html.parser`` and its data decoded the way
the page's script (``page_data.js``) decodes it (plain JSON, or deflate + base64 on a big
trace). The words of each step must be exactly what the replay's renderer says (key hints left
out), so the page has no copy of its own. The browser tests (``test_export_html_browser_*.py``)
drive the page itself.
"""

from __future__ import annotations

import base64
import hashlib
import json
import sys
import zlib
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import pytest

from tracer.cli.main import main
from tracer.export.html.page import page_html
from tracer.export.html.payload import build
from tracer.export.html.spans import plain_of
from tracer.files.paths import MAIN_RECORDING, RECORDINGS_DIR, ROOT
from tracer.trace.reader import TraceReader
from tracer.view.fold import without_key_hints
from tracer.view.render import render_step
from tracer.view.steps import StepIndex


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


@pytest.fixture(scope="module")
def walk_page() -> str:
    return page_html(build(MAIN_RECORDING))


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


def test_every_step_of_the_main_walk_says_what_the_replay_says(walk_page: str) -> None:
    meta, chunks = data_of(Page(walk_page))
    index = StepIndex(TraceReader(MAIN_RECORDING))
    assert meta["count"] == len(index) == sum(len(c["steps"]) for c in chunks)
    for step in range(len(index)):
        for lang in ("zh", "en"):
            with without_key_hints():
                expected = render_step(index, step, lang).plain.rstrip("\n").split("\n")
            assert step_lines(chunks, step, lang) == expected, (step, lang)
    mapping = step_lines(chunks, 7, "en")
    assert mapping[0].startswith("mapping") and any("tool_result" in line for line in mapping)
    assert meta["stages"][meta["stage"][7]] == "mapping"


def test_key_hints_are_left_out_of_the_page_only(walk_page: str) -> None:
    _meta, chunks = data_of(Page(walk_page))
    index = StepIndex(TraceReader(MAIN_RECORDING))
    resent = next(s for s in range(len(index)) if "same 1 message" in render_step(index, s, "en"))
    assert "o: unfold" in render_step(index, resent, "en").plain  # the terminal keeps them
    words = "\n".join(step_lines(chunks, resent, "en") + step_lines(chunks, resent, "zh"))
    assert "(folded)" in words and "（已折叠）" in words
    assert "o: unfold" not in words and "按 o" not in words


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


def test_chapter_panels_toc_findings_and_requests() -> None:
    meta, _ = data_of(Page(page_html(build(RECORDINGS_DIR / "faults" / "01-result-not-returned"
                                                            ".trace.jsonl"))))  # fmt: skip
    assert meta["findings"] and all(0 <= f["step"] < meta["count"] for f in meta["findings"])
    assert all(f["text"]["zh"] and f["text"]["en"] for f in meta["findings"])
    walk, _ = data_of(Page(page_html(build(MAIN_RECORDING))))
    requests = walk["requests"]
    assert requests["n"] == list(range(1, len(requests["n"]) + 1))
    assert all(t > 0 for t in requests["input_tokens"])
    assert requests["cache_read_input_tokens"] == [0] * len(requests["n"])  # the split, kept
    assert walk["toc"][0]["id"] == "roadmap" and walk["toc"][0]["first"] == 0
    index = StepIndex(TraceReader(MAIN_RECORDING))
    chapter = walk["chapter"]
    first = chapter["others"].get("0", chapter["usual"][index.stage_codes[0]])
    panel = walk["panels"][first]
    assert panel["zh"] and panel["en"] and panel["zh"] != panel["en"]


def _all_text(trace: Path, full: bool) -> str:
    _meta, chunks = data_of(Page(page_html(build(trace, full=full))))
    return "\n".join(plain_of(line) for chunk in chunks for line in chunk["lines"])


def test_full_keeps_a_long_output_whole() -> None:
    trace = RECORDINGS_DIR / "06-large-output.trace.jsonl"
    folded, whole = _all_text(trace, False), _all_text(trace, True)
    assert "… folded: showing" in folded and "(o: unfold)" not in folded
    assert "… folded: showing" not in whole and len(whole) > len(folded)


def test_the_fold_note_is_chinese_in_the_chinese_lines() -> None:
    trace = RECORDINGS_DIR / "06-large-output.trace.jsonl"
    _meta, chunks = data_of(Page(page_html(build(trace))))
    zh = [plain_of(c["lines"][i]) for c in chunks for step in c["steps"] for i in step[0]]
    en = [plain_of(c["lines"][i]) for c in chunks for step in c["steps"] for i in step[1]]
    notes = [line for line in zh if line.startswith("… 已折叠：")]
    assert notes and not any("按 o" in line for line in notes)  # no key hint on a page
    assert not any("folded: showing" in line for line in zh)
    assert any(line.startswith("… folded: showing") for line in en)


def test_a_folded_raw_view_carries_its_note_in_each_language() -> None:
    trace = RECORDINGS_DIR / "06-large-output.trace.jsonl"
    _meta, chunks = data_of(Page(page_html(build(trace))))
    notes = [step[3] for c in chunks for step in c["steps"] if step[3]]
    assert notes, "no folded raw view in this recording"
    for note in notes:  # the JSON is the same in both languages; the page adds the note
        assert note["zh"].startswith("… 已折叠：") and note["en"].startswith("… folded: showing")
    raws = [step[2] for c in chunks for step in c["steps"]]
    assert not any("… folded" in raw or "已折叠" in raw for raw in raws)
    _meta, whole = data_of(Page(page_html(build(trace, full=True))))
    assert not any(step[3] for c in whole for step in c["steps"])  # --full folds nothing


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


def test_the_command_writes_a_page_and_a_site(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "page.html"
    assert main(["export", "01-main-walk", "--format", "html", "-o", str(out)]) == 0
    assert out.read_text(encoding="utf-8").startswith("<!doctype html>")
    site = tmp_path / "site"
    assert main(["export", "--all", "--format", "html", "-o", str(site)]) == 0
    index = (site / "index.html").read_text(encoding="utf-8")
    hrefs = [a["href"] for t, a in Page(index).tags if t == "a"]
    assert "01-main-walk.html" in hrefs and all((site / h).is_file() for h in hrefs)
    assert hrefs[0] == "index-zh.html"  # the language switch, first
    chinese = (site / "index-zh.html").read_text(encoding="utf-8")
    assert '<html lang="zh-Hans">' in chinese and 'href="index.html"' in chinese
    assert "三站，四步" in chinese and "three stations and four steps" in index
    # Each fault with a good twin is there beside it too, linked from its line of the index.
    from tracer.compare.twins import TWINS

    for fault in TWINS:
        pair = fault.replace("/", "-") + "-beside.html"
        assert pair in hrefs and "beside-link" in index, fault
        assert "twins/" in (site / pair).read_text(encoding="utf-8")
    assert "与正常执行对照" in chinese
    capsys.readouterr()
    for bad in (["export", "01-main-walk", "-f", "html"], ["export", "--all", "-f", "md"]):
        assert main(bad) == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and err.startswith("tracer: "), err


API_LOG = (
    Path(ROOT).parent / "shared" / "fixtures" / "api-logs"
    / "claude-trace-2025-05-29-weather-app-first19.jsonl"
)  # fmt: skip


@pytest.mark.parametrize("kind", ["api-log", "claude-code"])
def test_imported_sessions_export_every_step(kind: str, tmp_path: Path) -> None:
    source = (
        API_LOG
        if kind == "api-log"
        else Path(__file__).parent / "data" / "claude-code" / "layout-2.0"
        / "5e55a0f1-0000-4000-8000-000000000001.jsonl"
    )  # fmt: skip
    if not source.is_file():
        pytest.skip(f"fixture not found: {source}")
    trace = tmp_path / "imported.trace.jsonl"
    assert main(["import", kind, str(source), "-o", str(trace)]) == 0
    meta, chunks = data_of(Page(page_html(build(trace))))
    index = StepIndex(TraceReader(trace))
    assert meta["count"] == len(index) > 0
    with without_key_hints():
        last = render_step(index, len(index) - 1, "zh").plain.rstrip("\n").split("\n")
    assert step_lines(chunks, len(index) - 1, "zh") == last
    if kind == "claude-code":
        assert [loop[3:] for loop in meta["loops"]] == [["b1d2e3f4", "toolu_l1", "find TODOs"]]
        first, last_step = meta["loops"][0][:2]
        assert meta["stages"][meta["stage"][first - 1]] == "follow_up"  # under its Task call
        assert first not in meta["top"] and last_step < meta["count"] - 1


def test_a_torn_trace_says_so_on_the_page(tmp_path: Path) -> None:
    trace = tmp_path / "torn.trace.jsonl"
    text = MAIN_RECORDING.read_text(encoding="utf-8")
    trace.write_text(text + '{"kind": "turn_st', encoding="utf-8")
    meta, _ = data_of(Page(page_html(build(trace))))
    assert meta["torn_line"] == text.count("\n") + 1
    assert "{line}" in meta["words"]["torn"]["en"]


def test_exporting_a_page_needs_neither_textual_nor_the_sdk() -> None:
    import subprocess

    code = (
        "import sys; from tracer.cli.main import main;"
        "assert main(['export', '01-main-walk', '-f', 'html', '-o', sys.argv[1]]) == 0;"
        "print(sorted(m for m in ('textual', 'anthropic') if m in sys.modules))"
    )
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        out = subprocess.run(
            [sys.executable, "-c", code, str(Path(tmp) / "p.html")],
            capture_output=True, text=True, timeout=60, check=True,
        )  # fmt: skip
    assert out.stdout.strip() == "[]"


def test_the_per_stage_panel_table_gives_back_every_step() -> None:
    from tracer.export.html.chapter import chapter_panels
    from tracer.export.html.spans import Interner

    for trace in (MAIN_RECORDING, RECORDINGS_DIR / "02-error-path.trace.jsonl"):
        index = StepIndex(TraceReader(trace))
        meta, _ = data_of(Page(page_html(build(trace))))
        panels = chapter_panels(index, Interner())
        for key in ("chapter", "section"):
            table = meta[key]
            decoded = [
                table["others"].get(str(s), table["usual"][index.stage_codes[s]])
                for s in range(len(index))
            ]
            assert decoded == panels[key], (trace.name, key)
        assert len(set(panels["section"])) > 1  # not one panel for every step


def test_rich_text_becomes_segments_with_nested_spans_combined() -> None:
    from rich.text import Text

    from tracer.export.html.spans import Interner, text_lines

    flat = Text("ab")
    flat.append("cd", style="bold")
    flat.append("ef\ngh", style="bold")  # the same look as before: one segment
    flat.append(" i\n\n")
    styles = Interner()
    assert text_lines(flat, styles) == [("ab", ("cdef", 0)), (("gh", 0), " i")]
    assert styles.items == ["b"]
    nested = Text("x ", style="italic")  # a base style is left out, as the pager leaves it
    nested.append_text(Text("lit tail", style="bold"))
    nested.stylize("bold black on #e8d44d", 2, 5)  # a span inside a span: the looks combine
    styles = Interner()
    assert text_lines(nested, styles) == [("x ", ("lit", 0), (" tail", 1))]
    assert styles.items == ["b lit", "b"]


#: A tool output naming ``exe.txt`` inside a right-to-left override (it reads ``txt.exe``), with
#: a raw ESC sequence and a NUL: JSON escapes, as a transcript would carry them.
HOSTILE = "\\u202eexe.txt\\u202c \\u001b[2J \\u0000 \\u2066x\\u2069 \\u009b"


def hostile_trace(folder: Path) -> Path:
    trace = folder / "hostile.trace.jsonl"
    text = MAIN_RECORDING.read_text(encoding="utf-8")
    trace.write_text(text.replace("On branch cmbt", HOSTILE), encoding="utf-8")
    return trace


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


def test_beside_writes_one_page_of_two_runs_and_a_fault_finds_its_twin(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "beside.html"
    assert main(["export", "faults/01-result-not-returned", "--beside", "--format", "html",
                 "-o", str(out)]) == 0  # fmt: skip
    written = out.read_text("utf-8")
    assert "beside" in capsys.readouterr().err and "twins/01-status-and-diff" in written
    page = Page(out.read_text(encoding="utf-8"))
    blocks = {a.get("id"): text for a, text in page.scripts if a.get("type") == "application/json"}
    meta = json.loads(blocks["tracer-meta"])
    assert [side["name"] for side in meta["sides"]] == [
        "faults/01-result-not-returned", "twins/01-status-and-diff"
    ]  # fmt: skip
    from tracer.export.html.beside import expand_rows

    rows_a, rows_b, change = expand_rows(meta["rows"])
    assert len(rows_a) == len(change) == meta["count"] and len(meta["rows"]) < meta["count"]
    a_steps = [s for s in rows_a if s >= 0]
    b_steps = [s for s in rows_b if s >= 0]
    assert a_steps == list(range(meta["sides"][0]["count"]))  # every step once, in order
    assert b_steps == list(range(meta["sides"][1]["count"]))
    assert meta["summary"]["differences"] == sum(c != "s" for c in change) > 0
    finding = meta["findings"][0]  # the doctor's finding, pointed at its row
    assert finding["side"] == 0 and rows_a[finding["row"]] == finding["step"]
    assert {"a-chunk-0", "b-chunk-0"} <= set(blocks)
    for bad, said in (
        (["faults/06-loop-not-ending-repeat", "--beside"], "the loop is not broken"),
        (["01-main-walk", "--beside", "no-such"], "no such trace"),
        (["01-main-walk", "--beside", "01-main-walk", "--format", "md"], "--beside goes"),
    ):
        html_args = [] if "--format" in bad else ["--format", "html", "-o", str(out)]
        args = ["export", *bad, *html_args]
        assert main(args) == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and said in err, err
