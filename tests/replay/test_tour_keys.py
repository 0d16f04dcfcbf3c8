"""A forgiving tour: the tour's screens and their keys alone, then the app with Pilot.

``w`` ``W`` ``v`` work from every card; a checkpoint needs a choice before Enter; ``w`` on a
question skips it; ``q`` quits from a card; Home End PgUp PgDn never choose an answer; the
review lists the answers, Enter goes to the step that shows one and asks one skipped; the
command's help and the in-app bar name the same keys, and the bar and a card's key line stay
in sight at 80x24."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest
from nav_helpers import MAIN_TRACE, nav_guide, nav_tour
from rich.text import Text
from widget_helpers import ScreenHarness, run_screen

from tracer.replay import factory
from tracer.replay.widgets.tour_screens import (
    Answer,
    Reviewed,
    ReviewScreen,
    TourCard,
    TourQuestion,
)
from tracer.tour.words import say


def _question(tmp_path: Path) -> Any:
    tour = nav_tour(tmp_path / "tour.json")
    return next(s.question for s in tour.stops if s.question is not None and s.question.choices)


@pytest.mark.parametrize(
    ("key", "result"),
    [("w", "next"), ("W", "back"), ("B", "back"), ("v", "review"), ("enter", None)],
)
def test_a_card_takes_the_tour_keys(key: str, result: str | None) -> None:
    app = run_screen(TourCard("Tour 1/3", Text("notes\n" * 60), "en"), [key])
    assert app.result == result


def test_a_long_card_scrolls_under_its_pinned_key_line() -> None:
    card = TourCard("Tour 1/3", Text("\n".join(f"line {n}" for n in range(80))), "zh")
    seen: dict[str, Any] = {}

    async def main() -> None:
        app = ScreenHarness(card)
        async with app.run_test(size=(80, 24)) as pilot:
            await pilot.pause()
            await pilot.press("j", "j")
            seen["scroll"] = card.query_one("#tour-body").top
            seen["hint"] = card.query_one("#tour-hint").region
            seen["screen"] = app.screen.region

    asyncio.run(main())
    assert seen["scroll"] == 2
    assert seen["screen"].contains_region(seen["hint"]) and seen["hint"].height >= 1


def test_enter_alone_on_a_checkpoint_chooses_nothing(tmp_path: Path) -> None:
    question = _question(tmp_path)
    app = run_screen(TourQuestion("Tour", question, "?", "en"), ["enter"])
    assert app.result == "not dismissed"  # still asking
    app = run_screen(TourQuestion("Tour", question, "?", "en"), ["down", "enter"])
    assert app.result == Answer(question.choices[0].value)
    app = run_screen(TourQuestion("Tour", question, "?", "en"), ["2"])
    assert app.result == Answer(question.choices[1].value)


def test_w_skips_a_checkpoint_and_escape_leaves_it_for_later(tmp_path: Path) -> None:
    tour = nav_tour(tmp_path / "tour.json")
    asked = [s.question for s in tour.stops if s.question is not None]
    assert any(q.numeric for q in asked) and any(not q.numeric for q in asked)
    for question in asked:  # a number box too: w is a tour key, not a character for it
        assert run_screen(TourQuestion("Tour", question, "?", "zh"), ["w"]).result == "next"
        assert run_screen(TourQuestion("Tour", question, "?", "zh"), ["escape"]).result is None


def test_the_review_says_which_checkpoint_was_chosen() -> None:
    rows = [
        Reviewed("mapping", "yes", True, MAIN_TRACE, 7, 2),
        Reviewed("wrapping", None, False, MAIN_TRACE, 9, 5),
    ]
    app = run_screen(ReviewScreen(rows, "en"), ["j", "enter"])
    assert app.result == rows[1]


@pytest.mark.parametrize("key", ["home", "pageup", "end", "pagedown"])
def test_home_and_page_keys_never_choose_an_answer(tmp_path: Path, key: str) -> None:
    question = _question(tmp_path)
    screen = TourQuestion("Tour", question, "?\n" * 40, "en")  # a prompt long enough to scroll
    app = ScreenHarness(screen)
    seen: dict[str, Any] = {}

    async def main() -> None:
        async with app.run_test(size=(80, 24)) as pilot:
            await pilot.pause()
            body = screen.query_one("#tour-body")
            # Somewhere to move from (the focused choices may have scrolled it already).
            # At once, not after a refresh: a busy machine may not have refreshed by the pause.
            (body.scroll_end if key in ("home", "pageup") else body.scroll_home)(
                animate=False, immediate=True
            )
            await pilot.pause()
            before = body.scroll_y
            await pilot.press(key)
            await pilot.pause()
            seen["highlighted"] = screen.query_one("#tour-choices").highlighted
            seen["scrolled"] = body.scroll_y != before
            await pilot.press("enter")
            await pilot.pause()

    asyncio.run(main())
    assert seen["highlighted"] is None
    assert seen["scrolled"]  # the key scrolls the question instead
    assert app.result == "not dismissed"  # Enter still asks for a choice first


@pytest.mark.parametrize("screen", ["card", "question"])
def test_q_quits_from_a_card_and_a_question(tmp_path: Path, screen: str) -> None:
    from textual.app import App

    card = (
        TourCard("Tour 1/3", Text("notes"), "en")
        if screen == "card"
        else TourQuestion("Tour", _question(tmp_path), "?", "en")
    )
    quit_called: list[bool] = []

    class Harness(ScreenHarness):
        def exit(self, *args: Any, **kwargs: Any) -> None:
            quit_called.append(True)
            App.exit(self, *args, **kwargs)

    async def main() -> None:
        app = Harness(card)
        async with app.run_test(size=(80, 24)) as pilot:
            await pilot.pause()
            await pilot.press("q")
            await pilot.pause()

    asyncio.run(main())
    assert quit_called


def test_in_the_app_w_moves_on_from_a_card_and_skips_a_question(tmp_path: Path) -> None:
    tour = nav_tour(tmp_path / "tour.json")
    app = factory.make_app(
        tour.current.recording,
        factory.ReplayOptions(step=tour.current.step + 1, lang="en", guide=nav_guide(), tour=tour),
    )
    seen: list[Any] = []

    async def main() -> None:
        async with app.run_test(size=(80, 24)) as pilot:
            for _ in range(len(tour.stops) + 2):
                await pilot.pause()
                seen.append((tour.position, type(app.screen).__name__))
                if tour.at_end:
                    break
                await pilot.press("w")  # from a card or a question alike
            await pilot.pause()
            await pilot.press("v")
            await pilot.pause()
            seen.append(type(app.screen).__name__)
            await pilot.press("enter")  # the first checkpoint
            await pilot.pause()
            seen.append((type(app.screen).__name__, tour.position, app.replay.step))

    asyncio.run(main())
    positions = [p for p, _ in seen[:-2]]
    assert positions == sorted(positions) and positions[-1] == len(tour.stops) - 1
    assert any(name == "TourQuestion" for _, name in seen[:-2])
    assert tour.progress.answers == {}  # every question skipped, none answered by accident
    assert seen[-2] == "ReviewScreen"
    # Every question was skipped: Enter on the first asks it (it does not give it away).
    first = next(i for i, s in enumerate(tour.stops) if s.question is not None)
    assert seen[-1] == ("TourQuestion", first, tour.stops[first].step)


def test_the_help_and_the_bar_name_the_same_tour_keys() -> None:
    import argparse

    from tracer.replay import tour_command as command

    parser = argparse.ArgumentParser()
    command.register(parser.add_subparsers())
    text = parser._subparsers._group_actions[0].choices["tour"].format_help()  # type: ignore[union-attr]
    flat = " ".join(text.split())
    for key in ("tour_keys", "tour_as_usual", "tour_more_keys"):
        assert " ".join(say(key, "en").split()) in flat
    assert "N next" not in flat and "B previous" not in flat


def test_an_answered_checkpoint_in_the_review_goes_to_its_answer(tmp_path: Path) -> None:
    tour = nav_tour(tmp_path / "tour.json")
    where = next(i for i, s in enumerate(tour.stops) if s.question is not None)
    tour.move(where)
    stop = tour.current
    tour.answer(stop.question.choices[0].value if stop.question.choices else "1")
    tour.move(-where)
    app = factory.make_app(
        tour.current.recording,
        factory.ReplayOptions(step=tour.current.step + 1, lang="en", guide=nav_guide(), tour=tour),
    )
    seen: dict[str, Any] = {}

    async def main() -> None:
        async with app.run_test(size=(80, 24)) as pilot:
            await pilot.pause()
            await pilot.press("v")
            await pilot.pause()
            await pilot.press("enter")
            await pilot.pause()
            seen["screen"] = type(app.screen).__name__
            seen["step"], seen["position"] = app.replay.step, tour.position

    asyncio.run(main())
    assert seen == {"screen": "ReplayScreen", "step": stop.question.land, "position": 0}


@pytest.mark.parametrize("lang", ["en", "zh"])
@pytest.mark.parametrize("size", [(80, 24), (140, 42)])
def test_the_tour_bar_fits_and_no_card_covers_it(
    tmp_path: Path, lang: str, size: tuple[int, int]
) -> None:
    from tracer.replay.widgets.tour_bar import TourBar
    from tracer.text.cells import cells

    tour = nav_tour(tmp_path / "tour.json")
    app = factory.make_app(
        tour.current.recording,
        factory.ReplayOptions(step=tour.current.step + 1, lang=lang, guide=nav_guide(), tour=tour),
    )
    seen: dict[str, Any] = {}

    async def main() -> None:
        async with app.run_test(size=size) as pilot:
            await pilot.pause()
            await pilot.pause()
            bar = app.replay.query_one(TourBar)
            seen["screen"] = type(app.screen).__name__
            seen["bar"], seen["text"] = bar.region, str(bar.render())
            seen["box"] = app.screen.query_one("#tour-box").region
            seen["hint"] = app.screen.query_one("#tour-hint").region

    asyncio.run(main())
    assert seen["screen"] == "TourCard"
    text = seen["text"]
    assert cells(text) <= size[0] and text.rstrip().endswith(say("tour_more_keys", lang))
    assert not seen["box"].overlaps(seen["bar"])  # the card sits under the bar
    assert seen["hint"].bottom <= size[1] - 2  # its key line above the progress bar and footer
