"""SVG snapshots at 80x24 and 120x40, in both languages, of what issue 21 fixed: the table of
contents scrolled to its end, every tour card (a section, a question with choices, a question
for a number, a revealed answer, the last card, the review), a subagent's step, a search put
out with Esc, and the layout after the terminal shrank from 140x42.

The contents and the tour use the fixed guide of :mod:`nav_helpers`, and the subagent trace is
imported from a committed transcript, so rewording the chapter redraws none of these."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from nav_helpers import nav_contents, nav_guide, nav_tour
from replay_helpers import make_app

from tracer.importers.claude_code.importer import import_claude_code
from tracer.replay import factory

SIZES = [(80, 24), (120, 40)]
LANGS = ["en", "zh"]
SIDECHAIN = Path(__file__).parents[1] / "data" / "claude-code" / "v1.0-inline-sidechain.jsonl"

sizes = pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
langs = pytest.mark.parametrize("lang", LANGS)


async def settle(pilot: Any) -> None:
    await pilot.pause()
    await pilot.app.workers.wait_for_complete()
    await pilot.pause()


@sizes
@langs
def test_contents_scrolled_to_the_end(snap_compare: Any, lang: str, size: tuple[int, int]) -> None:
    app = make_app(lang=lang, contents=nav_contents())

    async def to_the_end(pilot: Any) -> None:
        await pilot.press("s")
        await pilot.pause()
        await pilot.press("end")
        await pilot.pause()

    assert snap_compare(app, run_before=to_the_end, terminal_size=size)


def _tour_app(tmp_path: Path, lang: str, stop: Any = None) -> Any:
    tour = nav_tour(tmp_path / "tour.json")
    if stop is not None:
        tour.move(next(i for i, s in enumerate(tour.stops) if stop(s)))
    return factory.make_app(
        tour.current.recording,
        factory.ReplayOptions(step=tour.current.step + 1, lang=lang, guide=nav_guide(), tour=tour),
    )


CARDS = {
    "section": None,
    "choices": lambda s: s.question is not None and s.question.choices,
    "number": lambda s: s.question is not None and s.question.numeric,
}


@sizes
@langs
@pytest.mark.parametrize("card", list(CARDS))
def test_tour_card(
    snap_compare: Any, tmp_path: Path, card: str, lang: str, size: tuple[int, int]
) -> None:
    app = _tour_app(tmp_path, lang, CARDS[card])
    assert snap_compare(app, run_before=settle, terminal_size=size)


@sizes
@langs
def test_tour_reveal_card(
    snap_compare: Any, tmp_path: Path, lang: str, size: tuple[int, int]
) -> None:
    app = _tour_app(tmp_path, lang, CARDS["choices"])

    async def answer(pilot: Any) -> None:
        await settle(pilot)
        await pilot.press("1")
        await settle(pilot)

    assert snap_compare(app, run_before=answer, terminal_size=size)


@sizes
@langs
def test_tour_last_card(
    snap_compare: Any, tmp_path: Path, lang: str, size: tuple[int, int]
) -> None:
    app = _tour_app(tmp_path, lang)

    async def last(pilot: Any) -> None:
        await settle(pilot)
        while not pilot.app.replay.tour.at_end:
            await pilot.press("w")
            await settle(pilot)
        await pilot.press("w")  # past the last stop: the score
        await settle(pilot)

    assert snap_compare(app, run_before=last, terminal_size=size)


@sizes
@langs
def test_tour_review(snap_compare: Any, tmp_path: Path, lang: str, size: tuple[int, int]) -> None:
    app = _tour_app(tmp_path, lang, CARDS["choices"])

    async def review(pilot: Any) -> None:
        await settle(pilot)
        await pilot.press("2", "enter", "v")  # answer, close the reveal, review
        await settle(pilot)

    assert snap_compare(app, run_before=review, terminal_size=size)


@sizes
@langs
def test_a_subagent_step(
    snap_compare: Any, tmp_path: Path, lang: str, size: tuple[int, int]
) -> None:
    trace = tmp_path / "sub.trace.jsonl"
    import_claude_code(SIDECHAIN, trace)
    assert snap_compare(make_app(trace, lang=lang, step=8), terminal_size=size)


@sizes
@langs
def test_search_put_out_with_escape(snap_compare: Any, lang: str, size: tuple[int, int]) -> None:
    word = "翻译" if lang == "zh" else "is_error"

    async def search_then_escape(pilot: Any) -> None:
        await pilot.press("slash", *word, "enter")
        await settle(pilot)
        await pilot.press("n", "escape")
        await pilot.pause()

    assert snap_compare(make_app(lang=lang), run_before=search_then_escape, terminal_size=size)


@sizes
@langs
def test_layout_after_shrinking_from_140x42(
    snap_compare: Any, lang: str, size: tuple[int, int]
) -> None:
    async def shrink(pilot: Any) -> None:
        await pilot.resize_terminal(*size)
        await pilot.pause()
        await pilot.pause()

    app = make_app(lang=lang, step=20)
    assert snap_compare(app, run_before=shrink, terminal_size=(140, 42))
