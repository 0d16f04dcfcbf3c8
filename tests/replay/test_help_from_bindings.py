"""The help screen is generated from the bindings, each found by its ``id``; a keymap moves keys.

Every binding of the replay (the screen's, each panel's) has an ``id`` and a help line
(:data:`tracer.view.i18n_keys.HELP_LINES`); the help lists the lines its bindings explain, so a
binding with no words is an error, and a key a user's keymap (``App.set_keymap``) moved is shown
where it went, and works there.
"""

from __future__ import annotations

from typing import Any

import pytest
from replay_helpers import FIXTURES, drive, make_app
from textual.binding import Binding

from tracer.replay.help import bound_here
from tracer.replay.help import help_rows as rows_for
from tracer.replay.widgets.screens import HelpScreen
from tracer.view.i18n_keys import HELP, HELP_LINES, TEXTUAL_LINES


def help_rows(bindings: list[Binding], keymap: dict[str, str], display: Any) -> list[Any]:
    """The replay's help rows (the table, the lines, Textual's own keys: the replay's)."""
    return rows_for(bindings, keymap, display, HELP, HELP_LINES, TEXTUAL_LINES)


def test_every_binding_has_an_id_and_a_line_and_every_line_a_binding() -> None:
    app = make_app()
    seen: dict[str, Any] = {}

    async def script(pilot: Any) -> None:
        seen["bound"] = bound_here(app.replay)

    drive(app, script)
    bound = seen["bound"]
    assert bound and all(b.id is not None for b in bound)
    assert {b.id for b in bound} == set(HELP_LINES)  # no binding without words, no words unbound
    # Nothing moved: the rows are the help's own lines, all of them, in its order.
    assert help_rows(bound, {}, str) == HELP
    explained = {
        line
        for lines in HELP_LINES.values()
        for line in ([lines] if isinstance(lines, str) else lines)
    }
    assert {keys for keys, _ in HELP} == explained | set(TEXTUAL_LINES)


def test_a_binding_with_no_words_is_an_error_not_a_silent_gap() -> None:
    with pytest.raises(KeyError):
        help_rows([Binding("x", "nothing", id="not-in-the-help")], {}, str)
    with pytest.raises(KeyError):
        help_rows([Binding("x", "nothing")], {}, str)  # (no id: a keymap could not name it)
    # Only the lines something is bound to are listed (and Textual's own keys).
    rows = help_rows([Binding("g", "goto", id="go-to")], {}, str)
    assert [keys for keys, _ in rows] == ["g", "Tab shift+Tab"]


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_a_keymap_moves_a_key_and_the_help_says_where(lang: str) -> None:
    app = make_app(lang=lang)
    seen: dict[str, Any] = {}

    async def script(pilot: Any) -> None:
        app.set_keymap({"next-step": "x", "toggle-timeline": "ctrl+t"})
        await pilot.press("x", "x")
        seen["step"] = app.replay.step
        await pilot.press("right")  # moved away: the old key no longer steps
        seen["after_right"] = app.replay.step
        await pilot.press("question_mark")
        await pilot.pause()
        assert isinstance(app.screen, HelpScreen)
        seen["rows"] = app.screen.rows

    drive(app, script)
    assert seen["step"] == 2 and seen["after_right"] == 2
    rows = dict((words["en"], keys) for keys, words in seen["rows"])
    assert rows["next step"] == "x"
    assert rows["show / hide the timeline, debug console"] == "^t D"
    assert rows["previous step"] == "← h"  # not moved: as the help writes it
    assert len(seen["rows"]) == len(HELP)


def test_the_comparison_s_help_is_generated_from_its_bindings_too() -> None:
    from tracer.compare import beside_words
    from tracer.replay.beside_command import make_beside_app
    from tracer.replay.widgets.beside_help import BesideHelp

    fault, twin = (
        FIXTURES / "03-malformed-result.trace.jsonl",
        FIXTURES / "03-read-calc.trace.jsonl",
    )
    app = make_beside_app(fault, twin, lang="en")
    seen: dict[str, Any] = {}

    async def script(pilot: Any) -> None:
        bound = bound_here(app.screen)
        seen["ids"] = {b.id for b in bound}
        seen["unmoved"] = rows_for(bound, {}, str, beside_words.HELP, beside_words.HELP_LINES)
        app.set_keymap({"next-difference": "x"})
        await pilot.press("question_mark")
        await pilot.pause()
        assert isinstance(app.screen, BesideHelp)
        seen["rows"] = app.screen.rows

    drive(app, script)
    assert seen["ids"] == set(beside_words.HELP_LINES) and seen["unmoved"] == beside_words.HELP
    keys = {words["en"]: keys for keys, words in seen["rows"]}
    assert keys["the next, the previous difference"] == "x N"


def test_every_binding_in_the_replay_package_has_an_id() -> None:
    """The modal screens' keys too (the help, go to, the picker, the contents, the tour's
    cards): a keymap can name every key tracer binds."""
    import ast
    from pathlib import Path

    import tracer.replay

    missing = []
    for path in Path(tracer.replay.__file__).parent.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not (isinstance(node, ast.Call) and getattr(node.func, "id", None) == "Binding"):
                continue
            action = node.args[1] if len(node.args) > 1 else None
            if isinstance(action, ast.Constant) and action.value == "":
                continue  # (a key written for display, not bound: tracer.replay.help)
            if not any(k.arg == "id" for k in node.keywords):
                missing.append(f"{path.name}:{node.lineno}")
    assert not missing
