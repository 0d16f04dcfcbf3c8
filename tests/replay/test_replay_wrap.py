"""Chinese-aware wrapping: lines break between ideographs, never before closing punctuation."""

from __future__ import annotations

from itertools import pairwise

from rich.cells import cell_len
from rich.text import Text

from tracer.view.wrap import wrap

MIXED = (
    "API 不记得上一次调用，所以每一轮都要把完整历史重新发出：问题、模型的每次回答、"
    "每个 tool_use、每个 tool_result。"
)


def _plain(text: str, width: int) -> list[str]:
    return [line.plain for line in wrap(Text(text), width)]


def test_chinese_fills_each_line_instead_of_stranding_the_english_word() -> None:
    lines = _plain(MIXED, 30)
    assert lines[0].startswith("API 不记得")  # Rich alone leaves "API" on a line of its own
    assert all(cell_len(line) <= 30 for line in lines)
    assert all(cell_len(line) >= 24 for line in lines[:-1])
    assert "".join(lines).replace(" ", "") == MIXED.replace(" ", "")


def test_no_line_starts_with_closing_punctuation() -> None:
    for width in range(8, 40):
        for line in _plain(MIXED, width)[1:]:
            assert line[0] not in "，。、：；）", (width, line)


def test_english_breaks_at_spaces_and_folds_only_words_too_long_for_a_line() -> None:
    assert _plain("the whole history is resent", 12) == ["the whole", "history is", "resent"]
    assert _plain("abcdefghijklmnop x", 8) == ["abcdefgh", "ijklmnop", "x"]


def test_newlines_tabs_and_styles_survive() -> None:
    text = Text("1\tdef add(a, b):\n")
    text.append("红色", style="red")
    lines = wrap(text, 40)
    assert [line.plain for line in lines] == ["1       def add(a, b):", "红色"]
    assert lines[1].spans and lines[1].spans[0].style == "red"


def test_a_number_keeps_di_and_its_measure_word_on_one_line() -> None:
    text = "循环在第2轮结束时停下，共11条消息，其中用户消息3条。"
    for width in range(8, 40):  # narrower, "息3条。" alone overflows and is cut where it must
        lines = _plain(text, width)
        assert "".join(lines) == text
        for line, following in pairwise(lines):
            assert not (line[-1:].isdigit() or following[:1].isdigit()), (width, lines)


def test_the_wrapped_renderable_wraps_the_same_way_inside_rich() -> None:
    """Widgets that hand their rows to Rich (the findings panel) get the same wrapping."""
    from rich.console import Console

    from tracer.view.wrap import Wrapped

    text = Text("第2次请求重发了工具调用，却没有带上它的结果；共11条消息。" * 2)
    console = Console(width=200)
    for width in range(10, 40):
        lines = console.render_lines(Wrapped(text), console.options.update_width(width))
        plain = ["".join(s.text for s in line).rstrip() for line in lines]
        assert "".join(plain) == text.plain
        for line, following in pairwise(p for p in plain if p):
            assert not (line[-1].isdigit() or following[0].isdigit()), (width, line, following)
    assert str(Wrapped(text)) == text.plain


def test_ascii_text_is_cut_exactly_as_the_general_rules_cut_it() -> None:
    """The ASCII fast path is the general one with its rules inlined: on random ASCII text
    (spaces, punctuation, brackets, long words) both cut in the same places."""
    import random

    from tracer.view.wrap import _any_cuts, _ascii_cuts

    generator = random.Random(12)
    alphabet = "abcdefgXYZ_./-0123456789 ,.;:!?()[]{}%  "
    for _ in range(3000):
        plain = "".join(generator.choice(alphabet) for _ in range(generator.randint(1, 120)))
        for width in (2, 5, 13, 40):
            assert _ascii_cuts(plain, width) == _any_cuts(plain, width), (plain, width)
