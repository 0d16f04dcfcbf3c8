"""Finding one's way around the exported page in Chromium: keys, links, search, language.

A deep link opens its step and survives a reload; the step keys, the journey's buttons and the
turn keys move as the replay's do; search finds steps in both languages and lights the match; a
subagent's loop opens under its Task call; the contents link every step they list; the keyboard
alone reaches everything; an exported site opens on the chapter and leads back. Switched to
Chinese, the page (its fold, chart, set-up and print) reads in the book's words.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from browser_helpers import Opened, expect

from tracer.chapter.guide import load_guide
from tracer.cli.main import main

# A real browser started for the module: slow, and on one xdist worker so it starts once.
pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("browser")]
pytest_plugins = ["browser_helpers"]


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
