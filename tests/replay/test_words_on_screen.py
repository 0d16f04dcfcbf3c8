"""The words on screen, in both languages: identifiers and Chinese punctuation wrapped the way
they are read, a response's hanging indent, Ctrl+C asking once and quitting on the second, the
keys 1–4 named one way everywhere, the first screen and the footer naming the keys a new reader
needs, the go-to box and the palette saying their keys."""

from __future__ import annotations

from typing import Any

import pytest
from replay_helpers import MAIN_TRACE, drive, make_app, visible_text
from rich.text import Text

from tracer.replay.widgets.key_bar import fit_keys
from tracer.text.cells import cells
from tracer.view.i18n import tr
from tracer.view.i18n_keys import HELP, KEY_HINTS, PALETTE
from tracer.view.wrap import wrap

IDENTIFIER = "map_result（Claude Code 里是 mapToolResultToToolResultBlockParam）把它变成一个块"


@pytest.mark.parametrize("width", [30, 34, 36])
def test_a_long_identifier_is_cut_where_its_parts_meet(width: int) -> None:
    lines = [line.plain for line in wrap(Text(IDENTIFIER), width)]
    assert "mapToolResultToToolResultBlock" in lines
    assert any(line.startswith("Param）") for line in lines)
    assert not any(line.startswith(("m）", "am）")) for line in lines)
    snake = [line.plain for line in wrap(Text("process_pre_mapped_tool_result_block"), 34)]
    assert snake == ["process_pre_mapped_tool_result_", "block"]


@pytest.mark.parametrize("width", range(20, 60))
def test_a_closing_quote_never_starts_a_line(width: int) -> None:
    text = "一个工具结果要走四步（书中“结果的旅途”）：翻译（mapping）成 tool_result 块"
    for line in wrap(Text(text), width):
        assert not line.plain.startswith(("”", "’", "）")), (width, line.plain)
        assert not line.plain.endswith(("“", "‘", "（")), (width, line.plain)


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_a_text_block_spanning_lines_keeps_its_hanging_indent(lang: str) -> None:
    app = make_app(MAIN_TRACE, step=33, lang=lang)  # step 34: the answer with a diff in it
    seen: list[str] = []

    async def script(pilot: Any) -> None:
        seen.extend(visible_text(app, "#stage").splitlines())

    drive(app, script, size=(80, 24))
    start = next(n for n, line in enumerate(seen) if "text Found it." in line)
    column = seen[start].index("text Found it.")
    block = [line for line in seen[start + 1 :] if line.strip()]
    assert block and all(line.startswith(" " * column) for line in block)


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_ctrl_c_asks_in_the_key_bar_and_a_second_one_quits(lang: str) -> None:
    app = make_app(lang=lang)
    seen: dict[str, Any] = {}

    async def script(pilot: Any) -> None:
        await pilot.press("c", "ctrl+c")  # the chapter panel open: a border under the toast
        await pilot.pause()
        seen["asked"] = str(app.replay.query_one("#keys").render_line(0).text)
        await pilot.press("right")  # another key: the question is over
        await pilot.pause()
        seen["after a key"] = (app.is_running, app.replay.query_one("#keys").question)
        await pilot.press("ctrl+c", "ctrl+c")
        await pilot.pause()
        seen["quit"] = app.return_code is not None or not app.is_running

    drive(app, script, size=(80, 24))
    assert tr("quit_again", lang, keys="q") in seen["asked"]
    assert seen["after a key"] == (True, None)
    assert seen["quit"]


def _names_of_1_to_4(lang: str) -> list[str]:
    help_words = next(words[lang] for keys, words in HELP if keys == "1–4")
    hint = next(h for h in KEY_HINTS if h[0] == "1–4")
    return [help_words, hint[1][lang], hint[2][lang], tr("orient", lang)]


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_keys_1_to_4_are_named_one_way_everywhere(lang: str) -> None:
    for words in _names_of_1_to_4(lang):
        assert "①–④" in words
        assert not any(other in words for other in ("jump", "journey step", "跳过去", "旅途四步"))
    assert not any(keys in ("1-4", "1 2 3 4") for keys, _ in HELP)


def test_the_chinese_footer_at_140_columns_has_the_language_key() -> None:
    hints = [(k, w["zh"], s["zh"]) for k, w, s in KEY_HINTS]
    assert ("t", "语言") in fit_keys(hints, 140)


def test_help_never_leaves_a_slash_alone_on_a_chinese_line() -> None:
    for _, words in HELP:
        for width in range(16, 40):
            for line in wrap(Text(words["zh"]), width):
                assert not line.plain.rstrip().endswith(" /"), (width, line.plain)


@pytest.mark.parametrize("lang", ["en", "zh"])
@pytest.mark.parametrize("size", [(80, 24), (140, 42)])
def test_the_first_screen_names_the_contents_and_the_tour(lang: str, size: tuple[int, int]) -> None:
    app = make_app(lang=lang)
    seen: dict[str, Any] = {}

    async def script(pilot: Any) -> None:
        orient = app.replay.query_one("#orient")
        seen["words"] = visible_text(app, "#orient")
        seen["fits"] = orient.region.height in (1, 2) and all(
            cells(line) + 2 <= size[0] for line in seen["words"].splitlines()
        )

    drive(app, script, size=size)
    assert ("s 目录" if lang == "zh" else "s contents") in seen["words"]
    assert "tracer tour" in seen["words"] and seen["fits"]


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_go_to_box_says_its_keys(lang: str) -> None:
    app = make_app(lang=lang)
    seen: list[str] = []

    async def script(pilot: Any) -> None:
        await pilot.press("g")
        await pilot.pause()
        seen.append(str(app.screen.query_one("#goto-hint").render()))

    drive(app, script, size=(80, 24))
    assert seen == [tr("goto_hint", lang)] and "Esc" in seen[0]


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_palette_says_each_commands_key(lang: str) -> None:
    app = make_app(lang=lang)
    seen: dict[str, str] = {}

    async def script(pilot: Any) -> None:
        for command in app.get_system_commands(app.screen):
            seen[command.title] = command.help

    drive(app, script)
    for key, words in PALETTE:
        name = {"slash": "/", "home": "Home", "end": "End", "question_mark": "?"}.get(key, key)
        assert seen[words[lang]] == tr("palette_key", lang, name=name)
