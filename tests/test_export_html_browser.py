"""The exported page in a real browser: Chromium, driven by Playwright, offline.

Debian's ``chromium`` package (``apt-get install chromium fonts-noto-cjk fonts-noto-color-emoji``,
which ``.ci/run`` does where it can) is driven through Playwright's ``executable_path``; no
browser is ever downloaded. Every request other than ``file:`` is aborted and recorded, and the
test asserts none was attempted. Outside CI, without Chromium or Playwright, the tests are
skipped; in CI (``CI`` set) that is a failure, like the Phoenix test, so they cannot quietly not
run. Set ``TRACER_SCREENS=chapters/ch12/screens`` to keep the desktop screenshot (the README's).
"""

from __future__ import annotations

import os
import re
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from test_export_html import hostile_trace

from tracer.chapter.guide import load_guide
from tracer.cli.main import main
from tracer.files.paths import MAIN_RECORDING, RECORDINGS_DIR

DATA = Path(__file__).parent / "data" / "claude-code" / "layout-2.0"
SUBAGENTS = DATA / "5e55a0f1-0000-4000-8000-000000000001.jsonl"
FAULT = RECORDINGS_DIR / "faults" / "01-result-not-returned.trace.jsonl"
LARGE = RECORDINGS_DIR / "06-large-output.trace.jsonl"  # its step 7's raw JSON is folded
ARGS = [
    "--no-sandbox",
    "--headless",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
SIZES = {"desktop": (1280, 800), "phone": (390, 844)}

# A real browser started for the module: slow, and on one xdist worker so it starts once.
pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("browser")]


def _chromium() -> str | None:
    return os.environ.get("TRACER_CHROMIUM") or shutil.which("chromium") or None


@pytest.fixture(scope="module")
def browser(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    exe = _chromium()
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        exe = None
    if exe is None:
        if os.environ.get("CI"):
            pytest.fail("Chromium or playwright is missing: .ci/run installs them")
        pytest.skip("Chromium or playwright is not installed (apt-get install chromium)")
    with sync_playwright() as driver:
        context = driver.chromium.launch_persistent_context(
            str(tmp_path_factory.mktemp("profile")),  # a fresh user-data-dir
            executable_path=exe,
            args=ARGS,
            headless=True,
            viewport={"width": 1280, "height": 800},
        )
        try:
            yield context
        finally:
            context.close()


@pytest.fixture(scope="module")
def pages(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    folder = tmp_path_factory.mktemp("pages")
    imported = folder / "subagents.trace.jsonl"
    assert main(["import", "claude-code", str(SUBAGENTS), "-o", str(imported)]) == 0
    out = {}
    hostile = hostile_trace(folder)
    traces = (
        ("walk", MAIN_RECORDING),
        ("fault", FAULT),
        ("subagents", imported),
        ("large", LARGE),
        ("hostile", hostile),
    )
    for name, trace in traces:
        out[name] = folder / f"{name}.html"
        assert main(["export", str(trace), "--format", "html", "-o", str(out[name])]) == 0
    return out


def expect(locator: Any) -> Any:
    """Playwright's auto-waiting assertions (``wait_for_function`` would ``eval`` inside the page,
    which its Content-Security-Policy forbids, as it should; a locator's assertion does not).

    The page draws a step's text when its chunk is ready (a promise), so whatever is read right
    after a key or a click is waited for, never slept on."""
    from playwright.sync_api import expect as playwright_expect

    return playwright_expect(locator)


class Opened:
    """A page with its console errors and every request that was not ``file:``."""

    def __init__(self, context: Any, path: Path, fragment: str = "", before: str = "") -> None:
        self.errors: list[str] = []
        self.requests: list[str] = []
        self.page = context.new_page()
        if before:  # a script run before the page's own (to take a browser feature away)
            self.page.add_init_script(before)
        self.page.on("console", lambda m: self.errors.append(m.text) if m.type == "error" else None)
        self.page.on("pageerror", lambda e: self.errors.append(str(e)))
        self.page.route("**/*", self._route)
        self.page.goto(path.as_uri() + fragment)
        if "beside" not in path.name:
            self.wait_step()

    def _route(self, route: Any) -> None:
        url = route.request.url
        if url.startswith("file:"):
            route.continue_()
        else:
            self.requests.append(url)
            route.abort()

    def wait_row(self, row: int) -> int:
        """The row a comparison page has drawn (``data-row``), waited for."""
        expect(self.page.locator("body")).to_have_attribute("data-row", str(row))
        return row

    def wait_step(self, step: int | None = None) -> int:
        """The step the page has drawn (``data-step``, set once its text is in), or wait for it."""
        want = str(step) if step is not None else re.compile(r"^\d+$")
        expect(self.page.locator("body")).to_have_attribute("data-step", want)
        return int(self.page.evaluate("document.body.dataset.step"))

    def text(self, selector: str) -> str:
        return str(self.page.locator(selector).inner_text())

    def close(self) -> None:
        assert self.requests == [], self.requests
        assert self.errors == [], self.errors
        self.page.close()


def test_deep_link_keys_reload_and_language(browser: Any, pages: dict[str, Path]) -> None:
    opened = Opened(browser, pages["walk"], "#step-8")
    page = opened.page
    title = page.locator("#step-title")
    assert opened.text("#step-title").startswith("mapping")
    assert opened.text("#journey [aria-current=step]").endswith("mapping")
    assert "turn 1 · step 8/36" in opened.text("#position")
    assert "tool_result" in opened.text("#view")
    expect(page.locator("#home")).to_be_hidden()  # a page of its own, not of a site
    page.keyboard.press("ArrowRight")
    assert opened.wait_step(9) == 9 and page.url.endswith("#step-9")
    assert opened.text("#step-title").startswith("wrapping")
    page.reload()
    assert opened.wait_step(9) == 9  # the link survives a reload
    page.keyboard.press("1")  # the next mapping step
    expect(title).to_have_text(re.compile(r"^mapping"))
    assert opened.wait_step() > 9
    page.keyboard.press("[")  # back to this turn's start
    expect(title).to_have_text(re.compile(r"^turn start"))
    before = opened.text("#position")
    page.keyboard.press("]")  # the next turn's start
    expect(page.locator("#position")).not_to_have_text(before)
    there = re.search(r"step (\d+)/", opened.text("#position"))
    assert there and opened.wait_step(int(there.group(1))) > 9
    assert opened.text("#step-title").startswith("turn start")
    page.locator("#journey button", has_text="mapping").click()  # the buttons do what keys do
    expect(title).to_have_text(re.compile(r"^mapping"))
    shown = re.fullmatch(r"turn (\d+) · step (\d+)/(\d+)", opened.text("#position"))
    assert shown, opened.text("#position")
    turn, step, total = shown.groups()
    try:
        page.locator("#lang").click()
        guide = load_guide()
        zh = " ".join(guide.stage_text("mapping", "zh").split())[:16]
        expect(page.locator("html")).to_have_attribute("lang", "zh-Hans")
        expect(title).to_have_text(re.compile(r"^翻译（mapping）"))
        assert zh in " ".join(opened.text("#chapter-step").split())
        # the same position in the book's words: 第N轮 · 第N/N步, no space between CJK
        assert opened.text("#position") == f"第{turn}轮 · 第{step}/{total}步"
        page.locator("#raw summary").click()
        assert '"records"' in opened.text("#raw-json")
        page.emulate_media(media="print")  # the print: every step of the session, in Chinese
        shown_css = "e => getComputedStyle(e).display !== 'none'"
        assert not page.locator(".layout").evaluate(shown_css)
        assert not page.locator(".controls").evaluate(shown_css)
        printed = page.locator("#print-all .printed-step")
        expect(printed).to_have_count(int(total))
        assert printed.nth(7).locator("h3").inner_text().startswith("第8步 · 翻译（mapping）")
        assert "tool_result" in printed.nth(7).locator("pre").inner_text()
        page.emulate_media(media="screen")
        assert not page.locator("#print-all").evaluate(shown_css)
        page.locator("#lang").click()  # and back
        expect(page.locator("html")).to_have_attribute("lang", "en")
        expect(title).to_have_text(re.compile(r"^mapping"))
    finally:
        # The choice is remembered per browser, and the other tests share this one: forget it
        # even when an assertion above failed, so one failure does not turn the rest Chinese.
        page.evaluate("localStorage.removeItem('tracer-lang')")
    opened.close()


def test_a_chinese_reader_reads_the_fold_the_chart_and_the_set_up_in_chinese(
    browser: Any, pages: dict[str, Path]
) -> None:
    opened = Opened(browser, pages["large"], "#step-7")
    page = opened.page
    try:
        page.locator("#raw summary").click()
        assert "… folded: showing" in opened.text("#raw-json")
        page.locator("#lang").click()
        expect(page.locator("html")).to_have_attribute("lang", "zh-Hans")
        expect(page.locator("#raw-json")).to_contain_text("… 已折叠：显示")
        assert "folded" not in opened.text("#raw-json")  # the JSON itself is the same
        chart = str(page.locator("#chart").text_content())  # (its labels and bar titles)
        assert "输入 token 数 ≤ " in chart and "第1次请求：" in chart
        assert "input_tokens" not in chart and "request" not in chart
        page.keyboard.press("Home")
        assert opened.wait_step(1) == 1
        total = re.search(r"/(\d+)步", opened.text("#position"))
        assert total and opened.text("#position") == f"准备 · 第1/{total.group(1)}步"  # no turn 0
        page.locator("#lang").click()
        expect(page.locator("#position")).to_have_text(f"set-up · step 1/{total.group(1)}")
    finally:
        page.evaluate("localStorage.removeItem('tracer-lang')")  # (the other tests share it)
    opened.close()


def test_search_finds_steps_and_moves_to_them(browser: Any, pages: dict[str, Path]) -> None:
    opened = Opened(browser, pages["walk"])
    page = opened.page
    page.keyboard.press("/")
    page.keyboard.type("git diff")
    page.keyboard.press("Enter")
    expect(page.locator("#search-count")).to_have_text(re.compile(r"^match 1/\d+$"))
    first = opened.wait_step()
    shown = opened.text("#step-title") + opened.text("#view")
    assert "git diff" in shown  # the session's title names it: step 1 is the first match
    page.keyboard.press("Enter")  # the next match
    expect(page.locator("#search-count")).to_have_text(re.compile(r"^match 2/\d+$"))
    expect(page.locator("body")).not_to_have_attribute("data-step", str(first))
    second = opened.wait_step()
    assert second > first and "git diff" in opened.text("#step-title") + opened.text("#view")
    hits = page.locator("#results li")
    assert hits.count() >= 2
    hits.nth(1).locator("a").click()
    assert opened.wait_step() == second
    marks = page.locator("#step-title mark.hit, #view mark.hit")  # the match is lit
    assert marks.count() >= 1 and {m.lower() for m in marks.all_inner_texts()} == {"git diff"}
    # Both languages are searched: a word only the Chinese text has, from the English page.
    page.locator("#query").fill("翻译")
    page.keyboard.press("Enter")
    expect(page.locator("#search-count")).to_have_text(re.compile(r"^match \d/3$"))  # 3 mappings
    expect(page.locator("#step-title")).to_have_text(re.compile(r"^mapping"))
    page.locator("#query").fill("")
    page.keyboard.press("Enter")
    expect(marks).to_have_count(0)  # an empty search puts the marks out
    opened.close()


def test_findings_are_marked_on_their_steps(browser: Any, pages: dict[str, Path]) -> None:
    opened = Opened(browser, pages["fault"])
    page = opened.page
    first = int(page.evaluate("JSON.parse(document.getElementById('tracer-meta').textContent)"
                              ".findings[0].step"))  # fmt: skip
    page.evaluate(f"tracerPage.go({first})")
    opened.wait_step(first + 1)
    assert page.locator("#findings li").count() >= 1
    assert page.locator("#timeline [aria-current=step] .mark-error, "
                        "#timeline [aria-current=step] .mark-warning").count() == 1  # fmt: skip
    assert page.locator("#chart svg rect").count() > 0
    opened.close()


def test_a_subagent_opens_under_its_task_call(browser: Any, pages: dict[str, Path]) -> None:
    opened = Opened(browser, pages["subagents"], "#step-5")
    page = opened.page
    loop = page.locator("#timeline details.loop")
    assert loop.count() == 1 and not loop.evaluate("d => d.open")  # collapsed until opened
    # named by what it was asked to do (the Task's description), its ids on hover
    assert loop.locator("summary").inner_text() == "subagent: find TODOs"
    assert loop.locator("summary").get_attribute("title") == "subagent b1d2e3f4, run by toolu_l1"
    loop.locator("summary").click()
    assert loop.evaluate("d => d.open")
    loop.locator("a").first.click()
    assert opened.wait_step(6) == 6 and opened.text("#step-title").startswith("session")
    page.keyboard.press("ArrowRight")
    opened.wait_step(7)
    assert page.locator("#timeline details.loop").evaluate("d => d.open")  # inside: open
    # The position names the main loop's turn, as the timeline does, then the subagent's own.
    position = opened.text("#position")
    assert re.fullmatch(r"turn 1 · step 7/\d+ · ↳ subagent (turn \d+|set-up)", position), position
    assert page.locator("#turn > li.here > a").inner_text() == "turn 1"
    page.locator('#timeline details.loop a[href="#step-17"]').click()  # the subagent's turn 2
    opened.wait_step(17)
    assert opened.text("#position") == "turn 1 · step 17/30 · ↳ subagent turn 2"  # not "turn 2"
    names = page.locator("#turn > li > a").all_inner_texts()
    assert names == ["set-up", "turn 1", "turn 1 (cont.)", "turn 2"]  # after the Task's result
    opened.close()


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


def test_the_policy_stops_a_fetch_before_it_leaves(browser: Any, pages: dict[str, Path]) -> None:
    """What a transcript could never do from inside the page, tried from outside: refused."""
    opened = Opened(browser, pages["walk"])
    refused = opened.page.evaluate(
        "fetch('https://example.invalid/x').then(() => 'fetched', (e) => 'refused: ' + e.name)"
    )
    assert refused == "refused: TypeError"
    assert opened.requests == []  # blocked by the policy, so it never reached the network
    opened.errors = [e for e in opened.errors if "Content Security Policy" not in e]
    opened.close()


def test_a_big_page_inflates_the_chunk_it_needs(browser: Any, tmp_path: Path) -> None:
    """Past the first chunk a big trace's steps are deflated; a deep link and search reach them."""
    import sys

    from tracer.files.paths import ROOT

    sys.path.insert(0, str(Path(ROOT) / "bench"))
    try:
        from replay_latency import make_big_trace
    finally:
        sys.path.pop(0)
    trace = make_big_trace(tmp_path / "big.trace.jsonl", turns=200)
    page_path = tmp_path / "big.html"
    assert main(["export", str(trace), "--format", "html", "-o", str(page_path)]) == 0
    opened = Opened(browser, page_path, "#step-1500")
    assert opened.wait_step(1500) == 1500
    assert "step 1500/" in opened.text("#position") and opened.text("#step-title")
    opened.page.locator("#query").fill("request 199")
    opened.page.keyboard.press("Enter")
    expect(opened.page.locator("#search-count")).to_have_text(re.compile(r"^match \d+/\d+$"))
    expect(opened.page.locator("#step-title, #view")).to_contain_text(["request 199"])
    # A query most steps hold: the list shows the first 200 and says how many there are.
    opened.page.locator("#query").fill("tool_result")
    opened.page.keyboard.press("Enter")
    expect(opened.page.locator("#search-count")).to_have_text(re.compile(r"^match [\d,]+/[\d,]+$"))
    total = int(opened.text("#search-count").split("/")[1].replace(",", ""))
    assert total > 200
    assert opened.page.locator("#results li a").count() == 200
    more = opened.text("#results li.results-more")
    assert more == f"the first 200 of {total:,} matching steps"
    opened.page.emulate_media(media="print")  # too long to print whole: it says so
    expect(opened.page.locator("#print-all .printed-step")).to_have_count(100)
    steps = opened.page.evaluate("tracerPage.count")
    expect(opened.page.locator("#print-all .notice")).to_have_text(
        f"Printed here: the first 100 steps of {steps:,} (the session is too long to print whole)."
    )
    opened.page.emulate_media(media="screen")
    opened.close()

    # A browser without DecompressionStream: the first chunk draws, a later step says why not.
    old = Opened(browser, page_path, "#step-1500", before="delete window.DecompressionStream")
    assert old.wait_step(1500) == 1500
    assert "cannot unpack the steps after step 100" in old.text("#view")
    assert "cannot unpack" in old.text("#notice")
    old.page.keyboard.press("Home")
    assert old.wait_step(1) == 1 and old.text("#step-title").startswith("session")
    old.page.locator("#query").fill("turn start")  # search reads the chunk it can
    old.page.keyboard.press("Enter")
    expect(old.page.locator("#search-count")).to_have_text(re.compile(r"^match 1/\d+$"))
    old.close()


def test_a_trace_without_steps_says_so(browser: Any, tmp_path: Path) -> None:
    trace = tmp_path / "empty.trace.jsonl"
    trace.write_text(MAIN_RECORDING.read_text(encoding="utf-8").split("\n")[0] + "\n")
    page_path = tmp_path / "empty.html"
    assert main(["export", str(trace), "--format", "html", "-o", str(page_path)]) == 0
    opened = Opened(browser, page_path)
    assert opened.wait_step() == 0 and "no steps" in opened.text("#view")
    opened.close()


def test_keyboard_only(browser: Any, pages: dict[str, Path]) -> None:
    """Tab reaches the skip link first; a timeline link works with Enter, and keeps the focus."""
    opened = Opened(browser, pages["walk"], "#step-2")
    page = opened.page
    page.keyboard.press("Tab")
    assert page.evaluate("document.activeElement.id") == "skip"
    page.focus('#timeline a[href="#step-4"]')
    page.keyboard.press("Enter")
    assert opened.wait_step(4) == 4
    expect(page.locator("#timeline a:focus")).to_have_attribute("aria-current", "step")
    assert page.evaluate("document.activeElement.getAttribute('href')") == "#step-4"
    page.keyboard.press("ArrowRight")  # the step keys work from the timeline too
    assert opened.wait_step(5) == 5
    page.focus("#prev")
    page.keyboard.press("Enter")  # a button, pressed from the keyboard
    assert opened.wait_step(4) == 4
    opened.close()


def test_a_right_to_left_override_shows_as_an_escape_in_order(
    browser: Any, pages: dict[str, Path]
) -> None:
    opened = Opened(browser, pages["hostile"], "#step-8")
    page = opened.page
    assert "\\u202eexe.txt\\u202c \\x1b[2J \\x00" in opened.text("#view")
    page.locator("#raw summary").click()
    assert "\\u202eexe.txt" in opened.text("#raw-json")
    dom = str(page.evaluate("document.documentElement.outerHTML"))
    assert not any(char in dom for char in "\u202e\u202c\x1b\x00\u2066\u2069\x9b")
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


def test_a_fault_page_says_what_the_doctor_found_first_and_lists_every_turn(
    browser: Any, pages: dict[str, Path]
) -> None:
    opened = Opened(browser, pages["fault"], "#step-3")
    page = opened.page
    meta = page.evaluate("JSON.parse(document.getElementById('tracer-meta').textContent)")
    finding = meta["findings"][0]
    summary = page.locator("#summary")
    expect(summary).to_be_visible()
    assert "1 error, 0 warnings" in opened.text("#summary-title")
    assert finding["rule"] in opened.text("#summary-list") and len(meta["findings"]) == 1
    top = "s => document.querySelector(s).getBoundingClientRect().top"
    assert page.evaluate(top, "#summary") < page.evaluate(top, "#step")  # before the step
    # Every turn of the main loop, not only the current one; the turn with the finding marked.
    items = page.locator("#turn > li.turn-item")
    assert [items.nth(k).locator("> a").inner_text().strip(" ●▲") for k in range(items.count())] \
        == ["set-up", "turn 1", "turn 2", "turn 3"]  # fmt: skip
    assert items.nth(2).locator("> a .mark-error").count() == 1
    assert items.nth(1).locator("[aria-current=step]").count() == 1  # step 3 is in turn 1
    summary.locator("a").first.click()
    assert opened.wait_step(finding["step"] + 1) == finding["step"] + 1
    assert finding["rule"] in opened.text("#findings")
    assert page.locator("#turn > li.here > a").inner_text().startswith("turn 2")
    items.nth(3).locator("> a").click()  # a turn's link opens it on its first step
    assert opened.wait_step(meta["top"][3] + 1) == meta["top"][3] + 1
    assert page.locator("#turn > li.here > a").inner_text() == "turn 3"
    page.locator("#lang").click()
    try:
        title = "诊断（tracer doctor）：1个错误，0个警告"
        expect(page.locator("#summary-title")).to_have_text(title)
        expect(page.locator("#turn > li.here > a")).to_have_text("第3轮")
    finally:
        page.evaluate("localStorage.removeItem('tracer-lang')")
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


def test_the_contents_link_each_step_they_list(browser: Any, pages: dict[str, Path]) -> None:
    opened = Opened(browser, pages["walk"])
    page = opened.page
    page.locator("#toc summary").click()
    station = page.locator("#toc-list li", has_text="Station 3")
    # "Station 3 (step 3, 11, 22, …)": the name opened step 12 (the section's anchored step),
    # which the list does not show; now the name opens step 3 and each number its own step.
    numbers = station.locator("a").all_inner_texts()[1:]
    hrefs = [a.get_attribute("href") for a in station.locator("a").all()]
    assert numbers[:2] == ["3", "11"] and hrefs[0] == "#step-3"
    assert hrefs[1:] == [f"#step-{n}" for n in numbers]
    assert re.fullmatch(r"Station 3: [^(]+\(step 3, 11(, \d+)*\)", station.inner_text())
    station.locator("a", has_text="11").click()
    assert opened.wait_step(11) == 11
    page.locator("#lang").click()
    try:
        zh = page.locator("#toc-list li", has_text="第三站")
        expect(zh).to_have_text(re.compile(r"^第三站：[^（]+（第3、11(、\d+)*步）$"))
    finally:
        page.evaluate("localStorage.removeItem('tracer-lang')")
    opened.close()


def test_the_site_opens_on_the_chapter_and_its_pages_lead_back(
    browser: Any, tmp_path: Path
) -> None:
    site = tmp_path / "site"
    assert main(["export", "--all", "--format", "html", "-o", str(site)]) == 0
    opened = Opened(browser, site / "faults-01-result-not-returned.html")
    page = opened.page
    home = page.locator("#home")
    expect(home).to_be_visible()
    home.click()
    expect(page).to_have_url(re.compile(r"/index\.html$"))
    assert "three stations and four steps" in opened.text(".intro")
    assert page.locator("main ol li a").count() >= 20
    page.locator(".switch a").click()  # the language switch
    expect(page).to_have_url(re.compile(r"/index-zh\.html$"))
    expect(page.locator("html")).to_have_attribute("lang", "zh-Hans")
    assert opened.text(".intro").startswith("第12章“结果回到AI手中”")
    expect(page.locator("h1")).to_have_text("第12章的录制")
    page.locator(".switch a").click()
    expect(page).to_have_url(re.compile(r"/index\.html$"))
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
