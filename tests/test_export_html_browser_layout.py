"""The exported page laid out in Chromium, on a desktop and on a phone.

Nothing overflows sideways at either size; on a phone the controls stay on screen and are big
enough to tap; a Chinese character is exactly two Latin cells wide in the step view's monospace
font; and two runs shown side by side (stacked on a phone) step together, their differences lit.
"""

from __future__ import annotations

import os
import re
import shutil
from pathlib import Path
from typing import Any

import pytest
from browser_helpers import SIZES, Opened, expect

from tracer.cli.main import main
from tracer.files.paths import MAIN_RECORDING

# A real browser started for the module: slow, and on one xdist worker so it starts once.
pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("browser")]
pytest_plugins = ["browser_helpers"]


@pytest.mark.parametrize("size", sorted(SIZES))
def test_nothing_overflows_sideways(
    browser: Any, pages: dict[str, Path], size: str, tmp_path: Path
) -> None:
    width, height = SIZES[size]
    for name in ("walk", "subagents"):
        opened = Opened(browser, pages[name], "#step-13")
        page = opened.page
        page.set_viewport_size({"width": width, "height": height})
        wide = page.evaluate("document.documentElement.scrollWidth")
        assert wide <= width, (name, size, wide)
        shot = tmp_path / f"{name}-{size}.png"
        page.screenshot(path=str(shot))
        assert shot.stat().st_size > 10_000
        keep = os.environ.get("TRACER_SCREENS")
        if keep and name == "walk":
            page.screenshot(path=str(Path(keep) / f"html-page-{size}.png"))
        opened.close()


def test_on_a_phone_the_controls_stay_on_screen_and_are_big_enough_to_tap(
    browser: Any, pages: dict[str, Path]
) -> None:
    opened = Opened(browser, pages["walk"], "#step-8")
    page = opened.page
    page.set_viewport_size({"width": 390, "height": 844})
    box = "id => { const r = document.getElementById(id).getBoundingClientRect();" \
          " return [r.left, r.top, r.width, r.height]; }"  # fmt: skip
    for control in ("prev-turn", "prev", "next", "next-turn", "query"):
        _x, _y, width, height = page.evaluate(box, control)
        assert width >= 44 and height >= 44, (control, width, height)  # a finger's size
    header = page.evaluate("document.querySelector('.top').getBoundingClientRect().height")
    assert header < 844 / 5, header  # a compact bar: the step keeps most of the screen
    page.evaluate("window.scrollTo(0, document.documentElement.scrollHeight)")  # read to the end
    assert page.evaluate("window.scrollY") > 844  # the page is long: the header would be gone
    x, y, width, height = page.evaluate(box, "next")
    assert y >= 0 and y + height <= 844  # still on screen: no scroll back up to step on
    page.mouse.click(x + width / 2, y + height / 2)  # tapped where it is, not scrolled to
    assert opened.wait_step(9) == 9
    # the next step is shown from its start, just under the header
    title = page.evaluate("document.getElementById('step-title').getBoundingClientRect().top")
    assert header <= title < 844 / 2, (header, title)
    page.keyboard.press("4")  # resending: the last of the four, past the row's right edge
    expect(page.locator("#journey [aria-current=step]")).to_have_text(re.compile("resending"))
    inside = page.evaluate(
        "() => { const j = document.getElementById('journey').getBoundingClientRect();"
        " const b = document.querySelector('#journey [aria-current=step]').getBoundingClientRect();"
        " return b.left >= j.left - 1 && b.right <= j.right + 1; }"
    )
    assert inside  # the current step's button is scrolled into the row
    opened.close()


#: The width of a run of characters in the step view's font, measured by the browser.
MEASURE = """text => {
  const probe = document.createElement('span');
  probe.textContent = text;
  probe.style.position = 'absolute';  // on one line, however narrow the view
  probe.style.whiteSpace = 'pre';
  document.getElementById('view').append(probe);
  const width = probe.getBoundingClientRect().width;
  probe.remove();
  return width;
}"""


def test_a_chinese_character_is_two_latin_cells_wide_in_monospace(
    browser: Any, pages: dict[str, Path]
) -> None:
    if not shutil.which("fc-list") or "Noto Sans Mono CJK SC" not in os.popen("fc-list").read():
        pytest.skip("fonts-noto-cjk is not installed")
    opened = Opened(browser, pages["walk"], "#step-8")
    page = opened.page
    try:
        page.locator("#lang").click()
        expect(page.locator("html")).to_have_attribute("lang", "zh-Hans")
        font = page.evaluate("getComputedStyle(document.getElementById('view')).fontFamily")
        assert font.startswith('"Noto Sans Mono CJK SC"'), font
        chinese = page.evaluate(MEASURE, "结果回到手中" * 5)
        latin = page.evaluate(MEASURE, "x" * 60)
        assert latin > 0 and abs(chinese - latin) < 0.5, (chinese, latin)  # no drift on a line
        assert abs(page.evaluate(MEASURE, "工具ab") - page.evaluate(MEASURE, "abcdef")) < 0.5
    finally:
        page.evaluate("localStorage.removeItem('tracer-lang')")
    opened.close()


@pytest.fixture(scope="module")
def beside(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The main walk beside a copy whose git status says another branch."""
    folder = tmp_path_factory.mktemp("beside")
    other = folder / "other.trace.jsonl"
    text = MAIN_RECORDING.read_text(encoding="utf-8")
    other.write_text(text.replace("On branch cmbt", "On branch trunk"), encoding="utf-8")
    out = folder / "beside.html"
    assert main(["export", str(MAIN_RECORDING), "--beside", str(other), "--format", "html",
                 "-o", str(out)]) == 0  # fmt: skip
    return out


@pytest.mark.parametrize("size", sorted(SIZES))
def test_two_runs_side_by_side_step_together(browser: Any, beside: Path, size: str) -> None:
    width, height = SIZES[size]
    opened = Opened(browser, beside)
    page = opened.page
    page.set_viewport_size({"width": width, "height": height})
    opened.wait_row(1)
    top = "s => document.querySelector(s).getBoundingClientRect()"
    summary, a, b = (page.evaluate(top, s) for s in ("#summary", "#side-a", "#side-b"))
    assert summary["top"] < a["top"]  # the differences summed up first
    assert re.search(r"\b0 only in A, 0 only in B", opened.text("#summary-counts"))
    if size == "desktop":
        assert a["top"] == b["top"] and a["right"] <= b["left"]  # side by side
    else:
        assert b["top"] >= a["bottom"]  # stacked on a phone
    assert page.evaluate("document.documentElement.scrollWidth") <= width
    assert opened.text("#side-a-name").startswith("A: 01-main-walk")
    assert opened.text("#side-b-name").startswith("B: other")
    page.keyboard.press("]")  # the first difference: both sides move to it
    expect(page.locator("#position")).to_have_text(re.compile(r"· different$"))
    row = int(str(page.locator("body").get_attribute("data-row")))
    assert opened.text("#side-a-title").split()[0] == opened.text("#side-b-title").split()[0]
    lit_a = page.locator("#side-a-view .differs").all_inner_texts()
    lit_b = page.locator("#side-b-view .differs").all_inner_texts()
    assert any("cmbt" in line for line in lit_a) and any("trunk" in line for line in lit_b)
    assert not any("trunk" in line for line in lit_a)
    keep = os.environ.get("TRACER_SCREENS")
    if keep:
        page.screenshot(path=str(Path(keep) / f"html-beside-{size}.png"))
    page.locator("#next").click()  # one control steps both
    opened.wait_row(row + 1)
    assert opened.text("#position").startswith("turn ")
    page.locator("#lang").click()
    try:
        expect(page.locator("#side-a-name")).to_have_text(re.compile(r"^甲：01-main-walk"))
        expect(page.locator("#summary-counts")).to_have_text(re.compile(r"只有乙有$"))
    finally:
        page.evaluate("localStorage.removeItem('tracer-lang')")
    opened.close()
