"""The guided tour: its stops (pure), its saved progress, and the whole tour driven with Pilot in
both languages, answering right and wrong."""

from __future__ import annotations

import asyncio
import itertools
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from nav_helpers import nav_tour
from rich.text import Text

from tracer.chapter.guide import load_guide
from tracer.files.paths import ROOT, STATE_ENV, state_dir
from tracer.replay.factory import make_tour_app
from tracer.replay.widgets.tour_screens import TourCard, TourQuestion
from tracer.tour.cards import reveal_card, section_card, stop_title
from tracer.tour.stops import Progress, Tour, load_progress, plan_stops, save_progress
from tracer.view.sections import bundled_contents

GUIDE = load_guide()
GUIDE_FIRST_STOP = f"section:{GUIDE.sections[0].id}"


@pytest.fixture(scope="module")
def stops() -> list[Any]:
    return plan_stops(GUIDE, bundled_contents(GUIDE))


# -- planning (pure) ---------------------------------------------------------------------------


def test_the_tour_walks_every_section_in_the_books_order(stops: list[Any]) -> None:
    sections = [s.section.id for s in stops if s.kind == "section"]
    assert sections == [s.id for s in GUIDE.sections]


def test_each_checkpoint_comes_right_after_its_sections_stop(stops: list[Any]) -> None:
    asked = [s for s in stops if s.kind == "checkpoint"]
    assert sorted(s.question.checkpoint.id for s in asked) == sorted(
        c.id for c in GUIDE.checkpoints
    )
    for stop in asked:
        position = stops.index(stop)
        owner = next(s for s in reversed(stops[:position]) if s.kind == "section")
        assert owner.section.id == stop.section.id
        # The tour stands before the checkpoint's step, and the reveal where the answer shows.
        assert stop.step == stop.question.ask < stop.question.step <= stop.question.land


def test_station_2_opens_on_the_first_wrapping_step_of_the_main_walk(stops: list[Any]) -> None:
    """第二站：包装进消息 opens where a result is wrapped, not on a rejected permission."""
    from tracer.trace.reader import TraceReader
    from tracer.view.steps import StepIndex

    stop = next(s for s in stops if s.id == "section:station-2")
    index = StepIndex(TraceReader(stop.recording))
    assert stop.recording.name == "01-main-walk.trace.jsonl"
    assert index.stage(stop.step) == "wrapping"
    assert stop.step == index.by_stage["wrapping"][0]


def test_a_fault_section_opens_where_the_doctor_finds_the_fault(stops: list[Any]) -> None:
    from tracer.view.diagnose import diagnose

    stop = next(s for s in stops if s.id == "section:common-errors")
    assert stop.recording.parent.name == "faults"
    assert stop.step == diagnose(stop.recording).first_step


def test_state_dir_prefers_the_env_var_then_xdg_then_home(monkeypatch: pytest.MonkeyPatch) -> None:
    assert state_dir({STATE_ENV: "/a", "XDG_STATE_HOME": "/b", "HOME": "/c"}) == Path("/a")
    monkeypatch.setenv("XDG_STATE_HOME", "/b")
    monkeypatch.setenv("HOME", "/c")
    assert state_dir({}) == Path("/b/tracer")
    monkeypatch.delenv("XDG_STATE_HOME")
    assert state_dir({}) == Path("/c/.local/state/tracer")


def test_progress_round_trips_and_a_damaged_file_starts_afresh(tmp_path: Path) -> None:
    path = tmp_path / "deep" / "tour.json"
    saved = Progress("checkpoint:x", {"x": {"given": "3", "right": False}}, "zh")
    save_progress(saved, path)
    assert load_progress(path) == saved
    path.write_text("{not json", encoding="utf-8")
    assert load_progress(path) == Progress()
    path.write_text(json.dumps({"version": 99, "stop": "x"}), encoding="utf-8")
    assert load_progress(path) == Progress()
    assert load_progress(tmp_path / "missing.json") == Progress()


def test_tour_moves_answers_saves_and_resumes(tmp_path: Path) -> None:
    state = tmp_path / "tour.json"
    tour = nav_tour(state)
    assert tour.position == 0 and tour.current.kind == "section"
    tour.move(-5)
    assert tour.position == 0
    asked = next(i for i, s in enumerate(tour.stops) if s.kind == "checkpoint")
    tour.move(asked)
    question = tour.current.question
    wrong = next(c.value for c in question.choices if c.value != question.answer)
    assert tour.answer(wrong) is False
    assert tour.answer(question.answer) is True  # a second try replaces the first
    resumed = nav_tour(state)
    assert resumed.current.id == tour.current.id
    assert resumed.progress.score() == (1, 1)
    resumed.restart()
    assert nav_tour(state).position == 0 and nav_tour(state).progress.answers == {}


def test_cards_say_where_what_and_why(tmp_path: Path) -> None:
    tour = nav_tour(tmp_path / "tour.json")
    card = section_card(tour, tour.stops[0].section, None, "zh").plain
    assert "第 1 节的说明。" in card and "▸ tool_run" in card  # notes and the roadmap as text
    assert stop_title(tour, "en").startswith(f"Tour 1/{len(tour.stops)} · Section 1")
    tour.move(next(i for i, s in enumerate(tour.stops) if s.kind == "checkpoint"))
    question = tour.current.question
    tour.answer(question.answer)
    right = reveal_card(tour, "en").plain
    assert right.startswith("✓ Right") and question.evidence in right
    assert question.checkpoint.text.en in right
    tour.answer("999")
    wrong = reveal_card(tour, "zh").plain
    assert wrong.startswith("✗ 不对") and "999" in wrong


# -- the whole tour with Pilot -----------------------------------------------------------------


async def _walk(app: Any, pilot: Any, right: bool) -> list[tuple[str, int, str, bool]]:
    """Go through every stop, answering every question right (or wrong); return what happened
    at each checkpoint: (id, step after answering, section panel text, reveal said right)."""
    seen: list[tuple[str, int, str, bool]] = []
    for _ in range(200):  # far more than the stops; the loop ends at the last card
        await pilot.pause()
        screen = app.screen
        if isinstance(screen, TourQuestion):
            question = screen.question
            if question.numeric:
                given = question.answer if right else str(int(question.answer) + 1)
                await pilot.press(*given, "enter")
            else:
                values = [c.value for c in question.choices]
                pick = (
                    values.index(question.answer)
                    if right
                    else next(i for i, v in enumerate(values) if v != question.answer)
                )
                await pilot.press(str(pick + 1))
            await pilot.pause()
            assert isinstance(app.screen, TourCard)
            chapter = "\n".join(p.text.plain for p in app.query("ChapterPanel"))
            said_right = str(app.screen.body.plain).startswith("✓")
            seen.append((question.checkpoint.id, app.replay.step, chapter, said_right))
            assert app.replay.step == question.land
            await pilot.press("enter")
            continue
        if isinstance(screen, TourCard):
            if app.replay.tour.at_end and "tracer tour --restart" in screen.body.plain:
                break
            await pilot.press("enter")
            await pilot.pause()
        await pilot.press("w")
    return seen


@pytest.mark.slow  # every stop of the tour, key by key: several seconds a language
@pytest.mark.parametrize("lang, right", [("en", True), ("zh", False)])
def test_the_whole_tour_can_be_completed(tmp_path: Path, lang: str, right: bool) -> None:
    state = tmp_path / "tour.json"
    app = make_tour_app(lang=lang, state=state)
    seen: list[tuple[str, int, str, bool]] = []

    async def main() -> None:
        async with app.run_test(size=(120, 40)) as pilot:
            seen.extend(await _walk(app, pilot, right))

    asyncio.run(main())
    assert [s[0] for s in seen] == [
        s.question.checkpoint.id for s in app.replay.tour.stops if s.kind == "checkpoint"
    ]
    texts = {c.id: c.text.zh for c in GUIDE.checkpoints}
    for checkpoint_id, _, chapter, said_right in seen:
        assert said_right is right
        # The panel shows the checkpoint on its own step: by id in English, by its text in Chinese.
        shown = checkpoint_id if lang == "en" else texts[checkpoint_id][:10]
        assert shown in chapter.replace("\n", "")
    saved = json.loads(state.read_text(encoding="utf-8"))
    assert saved["lang"] == lang and saved["stop"] == app.replay.tour.stops[-1].id
    assert len(saved["answers"]) == len(GUIDE.checkpoints)
    assert all(a["right"] is right for a in saved["answers"].values())


def test_the_tour_resumes_where_it_was_left(tmp_path: Path) -> None:
    state = tmp_path / "tour.json"
    app = make_tour_app(lang="zh", state=state)
    left_at: list[str] = []

    async def first_visit() -> None:
        async with app.run_test(size=(120, 40)) as pilot:
            for _ in range(3):
                await pilot.pause()
                await pilot.press("enter", "w")
            await pilot.pause()
            left_at.append(app.replay.tour.current.id)
            left_at.append(app.replay.state.recording.name)

    asyncio.run(first_visit())
    again = make_tour_app(state=state)  # no --lang: the tour's own language comes back
    assert again.replay.tour.current.id == left_at[0] != again.replay.tour.stops[0].id
    assert again.lang == "zh" and again.replay.state.recording.name == left_at[1]
    assert make_tour_app(state=state, restart=True).replay.tour.position == 0


def test_stop_keys_outside_the_tour_only_say_so() -> None:
    from replay_helpers import drive, make_app

    app = make_app()
    notes: list[str] = []
    app.notify = lambda message, **_: notes.append(message)  # type: ignore[method-assign]

    async def script(pilot: Any) -> None:
        await pilot.press("w", "W")

    drive(app, script)
    assert app.replay.step == 0 and len(notes) == 2


# -- the command line --------------------------------------------------------------------------


def _python(code: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        cwd=ROOT,
        check=False,
        timeout=120,
        env={**os.environ, **env},
    )


def test_tour_help_imports_neither_anthropic_nor_textual() -> None:
    proc = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "tracer", "tour", "--help"],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=60,
        check=False,
    )
    assert proc.returncode == 0 and "--restart" in proc.stdout, proc.stderr[-2000:]
    modules = {
        line.rsplit("|", 1)[1].strip()
        for line in proc.stderr.splitlines()
        if line.startswith("import time:") and "|" in line
    }
    assert "tracer.cli.main" in modules
    assert sorted(m for m in modules if m.split(".")[0] in ("anthropic", "textual")) == []


def test_the_tour_never_imports_anthropic(tmp_path: Path) -> None:
    code = (
        "import asyncio, sys\n"
        "from tracer.replay.factory import make_tour_app\n"
        "app = make_tour_app(lang='en')\n"
        "async def run():\n"
        "    async with app.run_test() as pilot:\n"
        "        await pilot.pause()\n"
        "        await pilot.press('enter', 'w', '1')\n"
        "        await pilot.pause()\n"
        "asyncio.run(run())\n"
        "print(app.replay.tour.current.id, 'anthropic' in sys.modules)\n"
    )
    proc = _python(code, {STATE_ENV: str(tmp_path)})
    stop, imported = proc.stdout.split()[-2:]
    assert imported == "False", proc.stdout + proc.stderr
    saved = json.loads((tmp_path / "tour.json").read_text(encoding="utf-8"))
    assert saved["stop"] == stop != GUIDE_FIRST_STOP


def test_progress_that_cannot_be_kept_is_one_line(tmp_path: Path) -> None:
    blocked = tmp_path / "a-file"
    blocked.write_text("not a folder", encoding="utf-8")
    code = (
        "import sys\nfrom tracer.cli.main import main\nsys.exit(main(['tour', '--lang', 'en']))\n"
    )
    proc = _python(code, {STATE_ENV: str(blocked)})
    assert proc.returncode == 2, proc.stderr
    assert proc.stderr.startswith(f"tracer: {blocked / 'tour.json'}: cannot keep the tour's")
    assert proc.stderr.count("\n") == 1 and "Traceback" not in proc.stderr


def test_switching_language_on_the_tour_redraws_its_bar_and_is_kept(tmp_path: Path) -> None:
    state = tmp_path / "tour.json"
    app = make_tour_app(lang="en", state=state)
    bars: list[str] = []

    async def main() -> None:
        async with app.run_test(size=(120, 40)) as pilot:
            await pilot.pause()
            await pilot.press("enter")
            bars.append(str(app.query_one("#tour-bar").render()))
            await pilot.press("t", "w")
            await pilot.pause()
            bars.append(str(app.query_one("#tour-bar").render()))

    asyncio.run(main())
    assert bars[0].startswith(" Tour 1/") and bars[1].startswith(" 导览 2/")
    assert json.loads(state.read_text(encoding="utf-8"))["lang"] == "zh"


_CJK = r"[\u3400-\u9fff]"


@pytest.mark.parametrize("source", ["words", "choices", "checkpoints"])
def test_chinese_typography_of_the_tour(source: str) -> None:
    import re

    from tracer.tour.checkpoints import CHOICE_WORDS
    from tracer.tour.words import WORDS

    if source == "words":
        texts = [w["zh"] for w in WORDS.values()]
    elif source == "choices":
        texts = [w["zh"] for w in CHOICE_WORDS.values()]
    else:
        texts = [t for c in GUIDE.checkpoints for t in (c.text.zh, c.question.zh)]
    for text in texts:
        assert not re.search(f"{_CJK} {_CJK}", text), text  # no ASCII space between two CJK
        assert not re.search(f"{_CJK}[:,;?!()]", text), text  # full-width punctuation after CJK


def test_the_score_names_each_checkpoint_in_the_readers_language(stops: list[Any]) -> None:
    from tracer.tour.cards import score_text

    tour = Tour(stops, Progress(answers={"turn-limit": {"given": "stop", "right": True}}))
    zh = score_text(tour, GUIDE, "zh").plain
    en = score_text(tour, GUIDE, "en").plain
    assert "答对1个，共答了1个（全部7个）" in zh and "（还没答）" in zh and "(" not in zh
    limit = next(c for c in GUIDE.checkpoints if c.id == "turn-limit")
    assert f"✓ {limit.text.zh.split('：')[0]}" in zh
    assert f"✓ {limit.text.en.split(': ')[0]}" in en and "(not answered yet)" in en
    tour.move(next(i for i, s in enumerate(stops) if s.id == "checkpoint:turn-limit"))
    assert stop_title(tour, "zh").endswith(f"检查点：{limit.text.zh.split('：')[0]}")


@pytest.mark.parametrize("width", [24, 31, 37])
def test_a_card_keeps_a_number_with_its_measure_word(width: int) -> None:
    """The card wraps the Chinese way: 第4轮 is never split as 第4 / 轮 (Rich alone splits it)."""
    from textual.app import App

    from tracer.replay.widgets.wrapped_text import WrappedText

    body = Text("第4轮的回复到了。" * 6 + "共11条消息，其中用户消息3条。" * 3)

    class One(App[None]):
        def compose(self) -> Any:
            yield WrappedText(body)

    app = One()

    async def main() -> None:
        async with app.run_test(size=(width, 20)) as pilot:
            await pilot.pause()
            widget = app.query_one(WrappedText)
            lines = ["".join(s.text for s in widget.render_line(y)).rstrip() for y in range(20)]
            shown = [line for line in lines if line]
            assert "".join(shown) == body.plain
            assert widget.size.height == len(shown)
            for line, following in itertools.pairwise(shown):
                assert not (line[-1].isdigit() or following[0].isdigit()), (line, following)

    asyncio.run(main())
