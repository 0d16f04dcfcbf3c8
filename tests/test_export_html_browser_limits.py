"""The exported page in Chromium, given a trace that is huge, empty or hostile.

A big trace's later steps are deflated and inflated on demand (a deep link and search reach
them; search and print say how much they show; a browser without ``DecompressionStream`` says
why it cannot); a trace without steps says so; control and direction characters show as escapes,
never raw in the page; and the page's policy stops a fetch before it leaves.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from browser_helpers import Opened, expect

from tracer.cli.main import main
from tracer.files.paths import MAIN_RECORDING

# A real browser started for the module: slow, and on one xdist worker so it starts once.
pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("browser")]
pytest_plugins = ["browser_helpers"]


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
