"""Cell widths agree with Rich, which draws the replay: CJK two cells, a ZWJ emoji two cells."""

from __future__ import annotations

from rich.cells import cell_len

from tracer.text.cells import cells, clip

FAMILY = "\U0001f468\u200d\U0001f469\u200d\U0001f467\u200d\U0001f466"  # one picture, four people


def test_a_zero_width_joined_emoji_is_one_picture_of_two_cells() -> None:
    assert cells(FAMILY) == cell_len(FAMILY) == 2
    assert cells(f"ab{FAMILY}中文") == 8


def test_clip_cuts_by_cells_and_never_splits_a_picture_or_a_wide_character() -> None:
    text = f"ab{FAMILY}cd中文ef"
    for width in range(2, cells(text)):
        out = clip(text, width)
        assert out.endswith("…") and cells(out) <= width, (width, out)
        assert FAMILY in out or "\u200d" not in out
    assert clip("a  b\n c", 10) == "a b c"
    assert clip("中文中文", 5) == "中文…"
