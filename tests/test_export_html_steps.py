"""What the exported page says for each step is what the replay says, in both languages.

The words of each step are exactly the replay renderer's (key hints left out, and only on the
page), so the page has no copy of its own: for every step of the main walk, and for sessions
imported from an API log and a Claude Code transcript. Long outputs are folded with the note in
each language, raw views too, and ``--full`` keeps them whole; the chapter panels, contents,
findings and request chart are in the page's data, the per-stage panel table gives back every
step, and Rich text becomes segments with nested spans combined.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from export_html_helpers import Page, data_of, step_lines

from tracer.cli.main import main
from tracer.export.html.page import page_html
from tracer.export.html.payload import build
from tracer.export.html.spans import plain_of
from tracer.files.paths import MAIN_RECORDING, RECORDINGS_DIR, ROOT
from tracer.trace.reader import TraceReader
from tracer.view.fold import without_key_hints
from tracer.view.render import render_step
from tracer.view.steps import StepIndex

# The walk_page fixture (the main walk's page) comes from export_html_helpers.
pytest_plugins = ["export_html_helpers"]


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
