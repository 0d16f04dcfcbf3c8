"""The tour page's data is ``tracer tour``'s: the same stops, cards, questions and steps.

``tracer tour`` is built here as the command builds it (:func:`make_tour_app`, Textual's app not
run), and every stop of the exported data is compared with it: ids, recordings, steps, the
question and its answer, each card's text in both languages (:mod:`tracer.tour.cards`, minus the
terminal's key line), each reveal for each answer, the score for a mix of answers, and each
step's text (the replay's renderer, as the replay page shows it). The browser test
(``test_export_html_tour_browser.py``) drives the page.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tracer.chapter.guide import load_guide
from tracer.export.html.page import export_site, page_name
from tracer.export.html.spans import plain_of
from tracer.export.html.tour_page import TOUR_PAGE, export_tour, tour_html
from tracer.export.html.tour_payload import GIVEN, tour_data
from tracer.files.paths import bundled_recordings, short_name
from tracer.replay.factory import make_tour_app
from tracer.tour.cards import reveal_card, score_text, section_card, stop_title
from tracer.tour.stops import Progress, Tour
from tracer.tour.words import say
from tracer.trace.reader import TraceReader
from tracer.view.fold import without_key_hints
from tracer.view.i18n import LANGS
from tracer.view.render import render_step
from tracer.view.sections import bundled_contents, recording_info
from tracer.view.steps import StepIndex

GUIDE = load_guide()


@pytest.fixture(scope="module")
def walked(tmp_path_factory: pytest.TempPathFactory) -> Tour:
    """The tour ``tracer tour`` walks (its app made, not run; progress in a fresh place)."""
    state = tmp_path_factory.mktemp("state") / "tour.json"
    tour = make_tour_app(state=state, restart=True, lang="en").replay.tour
    assert tour is not None
    tour.path = None  # the comparisons below change its progress: keep them off the disk
    return tour


@pytest.fixture(scope="module")
def data() -> dict[str, Any]:
    contents = bundled_contents(GUIDE)
    links = {short_name(p): page_name(short_name(p)) for p in bundled_recordings()}
    return tour_data(GUIDE, contents, links)


def lines(data: dict[str, Any], ids: list[int]) -> list[str]:
    return [plain_of(data["lines"][n]) for n in ids]


def card_text(text: Any, hint: str | None = None) -> list[str]:
    """A card's lines as the page holds them: the terminal's key line (the last) left out."""
    out = text.plain.rstrip("\n").split("\n")
    if hint is not None:
        assert out[-1] == hint  # the line the page replaces with its own buttons
        out.pop()
        while out and out[-1] == "":
            out.pop()
    return out


def test_the_stops_are_the_ones_tracer_tour_walks(walked: Tour, data: dict[str, Any]) -> None:
    stops = data["stops"]
    assert [s["id"] for s in stops] == [s.id for s in walked.stops]
    assert len(stops) >= 10 and any(s["kind"] == "checkpoint" for s in stops)
    for item, stop in zip(stops, walked.stops, strict=True):
        assert item["kind"] == stop.kind
        view = data["steps"][item["view"]]
        assert (view["recording"], view["step"]) == (short_name(stop.recording), stop.step)
        assert view["href"] == page_name(short_name(stop.recording))
        if stop.question is None:
            assert "question" not in item
            continue
        question, got = stop.question, item["question"]
        assert got["checkpoint"] == question.checkpoint.id
        assert got["answer"] == question.answer and got["numeric"] == question.numeric
        assert [c["value"] for c in got["choices"]] == [c.value for c in question.choices]
        landed = data["steps"][got["land"]]
        assert (landed["recording"], landed["step"]) == (short_name(stop.recording), question.land)
        path = [(data["steps"][v]["recording"], data["steps"][v]["step"]) for v in got["path"]]
        assert path == [(view["recording"], n) for n in range(question.ask, question.land + 1)]
        for lang in LANGS:
            assert got["prompt"][lang] == question.checkpoint.question[lang]
            assert [c["label"][lang] for c in got["choices"]] == [
                c.text(lang) for c in question.choices
            ]
    asked = [c.id for c in GUIDE.checkpoints if c.ask]
    assert [c["id"] for c in data["checkpoints"]] == asked


def test_titles_and_section_cards_are_the_terminals(walked: Tour, data: dict[str, Any]) -> None:
    walked.progress = Progress()
    for position, (item, stop) in enumerate(zip(data["stops"], walked.stops, strict=True)):
        walked.position = position
        for lang in LANGS:
            assert item["title"][lang] == stop_title(walked, lang)
            if stop.kind != "section":
                continue
            info = recording_info(stop.recording, TraceReader(stop.recording).header)
            card = section_card(walked, GUIDE, info, lang)
            assert lines(data, item["card"][lang]) == card_text(card, say("card_hint", lang))


def test_every_reveal_is_the_terminals_for_that_answer(walked: Tour, data: dict[str, Any]) -> None:
    asked = 0
    for position, (item, stop) in enumerate(zip(data["stops"], walked.stops, strict=True)):
        if stop.question is None:
            continue
        asked += 1
        walked.position = position
        question, got = stop.question, item["question"]
        cid = question.checkpoint.id
        tries = [c.value for c in question.choices] or [question.answer, "12345", " 7 "]
        for given in tries:
            walked.progress = Progress(answers={cid: {"given": given, "right": False}})
            if question.numeric:
                kept = got["reveal"]["right" if question.check(given) else "wrong"]
            else:
                kept = got["reveal"][given]
            for lang in LANGS:
                shown = [line.replace(GIVEN, given) for line in lines(data, kept[lang])]
                assert shown == card_text(reveal_card(walked, lang), say("reveal_hint", lang))
    assert asked == len(data["checkpoints"])


def test_the_score_put_together_from_its_lines_is_score_text(
    walked: Tour, data: dict[str, Any]
) -> None:
    """What tour.js does for the checkpoints section: a line per checkpoint by its state."""
    ids = [c["id"] for c in data["checkpoints"]]
    walked.progress = Progress(
        answers={ids[0]: {"given": "x", "right": True}, ids[2]: {"given": "y", "right": False}}
    )
    right, answered = walked.progress.score()
    for lang in LANGS:
        head = data["words"]["score"][lang].format(right=right, answered=answered, total=len(ids))
        rows = []
        for k, cid in enumerate(ids):
            got = walked.progress.answers.get(cid)
            variant = 0 if got is None else 1 if got["right"] else 2
            rows.append(plain_of(data["lines"][data["score_lines"][lang][k][variant]]))
        assert [head, *rows] == card_text(score_text(walked, GUIDE, lang))
    item = next(s for s in data["stops"] if s["id"] == "section:checkpoints")
    for lang in LANGS:  # where the page swaps its live score in: the unanswered one, now
        start, end = item["score_at"][lang]
        walked.progress = Progress()
        fresh = card_text(score_text(walked, GUIDE, lang))
        assert lines(data, item["card"][lang])[start:end] == fresh


def test_each_step_reads_as_the_replay_renders_it(data: dict[str, Any]) -> None:
    from tracer.files.paths import resolve_trace

    for view in data["steps"]:
        index = StepIndex(TraceReader(resolve_trace(view["recording"])))
        assert view["total"] == len(index)
        with without_key_hints():
            for lang in LANGS:
                expected = render_step(index, view["step"], lang).plain.rstrip("\n").split("\n")
                assert lines(data, view[lang]) == expected
        index.reader.close()


def test_the_page_carries_the_data_safely_and_runs_only_its_script(data: dict[str, Any]) -> None:
    import base64
    import hashlib
    import re

    page = tour_html(data, "zh")
    assert page.startswith("<!doctype html>") and '<html lang="zh-Hans">' in page
    csp = re.search(r'http-equiv="Content-Security-Policy" content="([^"]+)"', page)
    assert csp and csp.group(1).startswith("default-src 'none';") and "unsafe" not in csp.group(1)
    code = re.search(r"<script>(.*?)</script>", page, re.S)
    assert code is not None
    digest = base64.b64encode(hashlib.sha256(code.group(1).encode()).digest()).decode()
    assert f"script-src 'sha256-{digest}'" in csp.group(1)
    block = re.search(r'<script type="application/json" id="tour-data">(.*?)</script>', page, re.S)
    assert block is not None and "<" not in block.group(1)
    assert json.loads(block.group(1))["stops"] == data["stops"]
    assert not re.search(r'(src|href)="(https?:)?//', page)


def test_the_site_has_the_tour_and_its_index_opens_with_it(tmp_path: Path) -> None:
    """The command, in a process of its own: writing the site (tour included) imports no
    Textual."""
    code = (
        "import sys; from tracer.cli.main import main;"
        "assert main(['export', '--all', '-f', 'html', '--lang', 'zh', '-o', sys.argv[1]]) == 0;"
        "print(sorted(m for m in ('textual', 'anthropic') if m in sys.modules))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code, str(tmp_path)],
        capture_output=True, text=True, timeout=120, check=True,
    )  # fmt: skip
    assert out.stdout.strip() == "[]"
    assert (tmp_path / TOUR_PAGE).is_file()
    index = (tmp_path / "index.html").read_text(encoding="utf-8")
    start = index.index('class="tour-start"><a href="tour.html">')
    assert start < index.index("<ol>")  # first thing after the heading
    assert "第12章导览" in index[start:]


def test_without_a_guide_the_site_has_no_tour(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("tracer.view.section_text.load_guide", lambda: (None, "no guide"))
    written = export_site(tmp_path, tour=export_tour)
    assert TOUR_PAGE not in [p.name for p in written] and not (tmp_path / TOUR_PAGE).exists()
    assert "tour.html" not in (tmp_path / "index.html").read_text(encoding="utf-8")
