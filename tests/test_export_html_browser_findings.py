"""What the doctor found, on the exported page in Chromium.

Each finding is marked on its step in the timeline; a fault's page sums up what the doctor found
first, before the step, lists every turn of the main loop with the turn of the finding marked,
and its links open the step and the turn they name, in English and in Chinese.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from browser_helpers import Opened, expect

# A real browser started for the module: slow, and on one xdist worker so it starts once.
pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("browser")]
pytest_plugins = ["browser_helpers"]


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
