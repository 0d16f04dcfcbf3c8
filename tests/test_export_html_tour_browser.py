"""The tour page in a real browser: predict first, then step; answers kept; zh and en; offline.

Debian's ``chromium`` driven through Playwright's ``executable_path``, as in
``browser_helpers.py`` (no browser is ever downloaded; without one the tests skip,
in CI they fail). Each test gets a fresh browser context (its own localStorage) at the desktop
size or a phone's (390x844, touch), where the moves are taps. Every request other than
``file:`` is aborted and recorded, and must not happen. Set ``TRACER_SCREENS=chapters/ch12/
screens`` to keep the screenshots the README shows.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from browser_helpers import ARGS, SIZES, _chromium, expect

from tracer.cli.main import main

pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("browser")]

#: The screenshots the README shows (TRACER_SCREENS keeps these, not every one).
README_SHOTS = {"tour-desktop-zh-reveal", "tour-phone-en-question"}

WORDS = {
    "en": {"wrong": "✗ Not quite", "right": "✓ Right", "tour": "Tour"},
    "zh": {"wrong": "✗ 不对", "right": "✓ 答对了", "tour": "导览"},
}


@pytest.fixture(scope="module")
def driver() -> Iterator[Any]:
    exe = _chromium()
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        exe = None
    if exe is None:
        if os.environ.get("CI"):
            pytest.fail("Chromium or playwright is missing: .ci/run installs them")
        pytest.skip("Chromium or playwright is not installed (apt-get install chromium)")
    with sync_playwright() as play:
        browser = play.chromium.launch(executable_path=exe, args=ARGS, headless=True)
        try:
            yield browser
        finally:
            browser.close()


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("site")
    assert main(["export", "--all", "--format", "html", "-o", str(folder)]) == 0
    return folder


@pytest.fixture(scope="module")
def data(site: Path) -> dict[str, Any]:
    page = (site / "tour.html").read_text(encoding="utf-8")
    block = re.search(r'<script type="application/json" id="tour-data">(.*?)</script>', page, re.S)
    assert block is not None
    return dict(json.loads(block.group(1)))


class Tab:
    """A page in a fresh context of the given size, with its errors and outside requests."""

    def __init__(self, browser: Any, size: str) -> None:
        width, height = SIZES[size]
        phone = size == "phone"
        self.width, self.phone = width, phone
        self.context = browser.new_context(
            viewport={"width": width, "height": height}, has_touch=phone, is_mobile=phone
        )
        self.page = self.context.new_page()
        self.errors: list[str] = []
        self.requests: list[str] = []
        self.page.on("console", lambda m: self.errors.append(m.text) if m.type == "error" else None)
        self.page.on("pageerror", lambda e: self.errors.append(str(e)))
        self.page.route("**/*", self._route)

    def _route(self, route: Any) -> None:
        if route.request.url.startswith("file:"):
            route.continue_()
        else:
            self.requests.append(route.request.url)
            route.abort()

    def open(self, path: Path, fragment: str = "") -> None:
        self.page.goto(path.as_uri() + fragment)
        expect(self.page.locator("body")).to_have_attribute("data-stop", re.compile(r"^\d+$"))

    def press(self, selector: str) -> None:
        """A tap on a phone, a click elsewhere."""
        target = self.page.locator(selector)
        target.tap() if self.phone else target.click()

    def at(self, stop: int) -> None:
        expect(self.page.locator("body")).to_have_attribute("data-stop", str(stop + 1))

    def move_to(self, stop: int) -> None:
        """Stop by stop with the next button (a phone) or the w key, as a reader does."""
        now = int(self.page.locator("body").get_attribute("data-stop") or "1") - 1
        while now < stop:
            self.press("#next-stop") if self.phone else self.page.keyboard.press("w")
            now += 1
            self.at(now)

    def no_sideways_scroll(self) -> None:
        assert self.page.evaluate("document.documentElement.scrollWidth") <= self.width

    def close(self) -> None:
        assert self.requests == [], self.requests
        assert self.errors == [], self.errors
        self.context.close()


def shot(tab: Tab, tmp_path: Path, name: str) -> None:
    out = tmp_path / f"{name}.png"
    tab.page.screenshot(path=str(out))
    assert out.stat().st_size > 10_000
    keep = os.environ.get("TRACER_SCREENS")
    if keep and name in README_SHOTS:
        tab.page.screenshot(path=str(Path(keep) / f"{name}.png"))


def questions(data: dict[str, Any], numeric: bool) -> list[int]:
    return [
        n
        for n, s in enumerate(data["stops"])
        if s["kind"] == "checkpoint" and s["question"]["numeric"] == numeric
    ]


def view_of(data: dict[str, Any], view: int) -> str:
    step = data["steps"][view]
    return f"{step['recording']}#{step['step'] + 1}"


@pytest.mark.parametrize("lang", ["en", "zh"])
@pytest.mark.parametrize("size", sorted(SIZES))
def test_predict_then_step_wrong_and_right_kept_over_a_reload(
    driver: Any, site: Path, data: dict[str, Any], size: str, lang: str, tmp_path: Path
) -> None:
    tab = Tab(driver, size)
    page, said = tab.page, WORDS[lang]
    tab.open(site / "tour.html")
    tab.at(0)
    if lang == "zh":
        tab.press("#lang")
    expect(page.locator("html")).to_have_attribute("lang", "zh-Hans" if lang == "zh" else "en")
    expect(page.locator("#position")).to_have_text(f"{said['tour']} 1/{len(data['stops'])}")
    tab.no_sideways_scroll()

    # A choice question: asked on the step before, nothing revealed until the reader commits.
    chosen = questions(data, numeric=False)[0]
    stop = data["stops"][chosen]
    question = stop["question"]
    tab.move_to(chosen)
    expect(page.locator("#prompt")).to_have_text(question["prompt"][lang])
    assert page.locator("#reveal").is_hidden()
    expect(page.locator("body")).to_have_attribute("data-view", view_of(data, stop["view"]))
    buttons = page.locator("#choices button.choice")
    assert buttons.count() == len(question["choices"])
    for button in buttons.all():
        height = button.bounding_box()["height"]
        assert height >= 44, height  # a thumb's target
    shot(tab, tmp_path, f"tour-{size}-{lang}-question")
    wrong = next(n for n, c in enumerate(question["choices"]) if c["value"] != question["answer"])
    if tab.phone:
        buttons.nth(wrong).tap()
    else:
        page.keyboard.press(str(wrong + 1))  # one key per guess, as in the terminal
    reveal = page.locator("#reveal")
    expect(reveal).to_be_visible()
    expect(reveal).to_contain_text(said["wrong"])
    assert page.locator("#choices").is_hidden()  # answered once: the reveal stays
    expect(page.locator("body")).to_have_attribute("data-view", view_of(data, question["land"]))
    tab.no_sideways_scroll()
    shot(tab, tmp_path, f"tour-{size}-{lang}-reveal")
    path = question["path"]
    assert len(path) >= 2 and path[-1] == question["land"]
    tab.press("#path-prev")  # the steps on the way to the answer, one by one
    expect(page.locator("body")).to_have_attribute("data-view", view_of(data, path[-2]))
    tab.press("#path-next")
    expect(page.locator("body")).to_have_attribute("data-view", view_of(data, question["land"]))
    assert page.locator("#path-next").is_disabled()

    # A number question, answered right: typed, then Enter (keys) or Check (taps).
    counted = questions(data, numeric=True)[0]
    question = data["stops"][counted]["question"]
    tab.move_to(counted)
    assert page.locator("#reveal").is_hidden()
    if tab.phone:
        page.locator("#number-input").tap()
        page.locator("#number-input").fill("x")
        tab.press("#check")  # not a number: nothing is committed
        expect(page.locator("#number-input")).to_have_attribute("aria-invalid", "true")
        page.locator("#number-input").fill(question["answer"])
        tab.press("#check")
    else:
        page.keyboard.type(question["answer"])  # a digit puts the focus in the box
        page.keyboard.press("Enter")
    expect(reveal).to_contain_text(said["right"])
    expect(page.locator("body")).to_have_attribute("data-view", view_of(data, question["land"]))

    # Kept over a reload: the stop, both answers, their reveals.
    page.reload()
    tab.at(counted)
    expect(reveal).to_contain_text(said["right"])
    stored = json.loads(page.evaluate("localStorage.getItem('tracer-tour')"))
    given = {k: v["right"] for k, v in stored["answers"].items()}
    assert given == {data["stops"][chosen]["question"]["checkpoint"]: False,
                     question["checkpoint"]: True}  # fmt: skip
    page.locator("#answers summary").click()
    marks = page.locator("#answer-list a")
    expect(marks.filter(has_text="✓")).to_have_count(1)
    expect(marks.filter(has_text="✗")).to_have_count(1)
    tab.close()


def test_the_score_the_end_and_starting_over(
    driver: Any, site: Path, data: dict[str, Any], tmp_path: Path
) -> None:
    tab = Tab(driver, "desktop")
    page = tab.page
    chosen = questions(data, numeric=False)[0]
    question = data["stops"][chosen]["question"]
    tab.open(site / "tour.html", f"#stop-{chosen + 1}")
    tab.at(chosen)
    page.locator("#choices button.choice", has_text=question["answer"]).first.click()
    expect(page.locator("#reveal")).to_contain_text("✓ Right")
    # The checkpoints section's card shows the live score in tracer tour's words.
    section = next(n for n, s in enumerate(data["stops"]) if s["id"] == "section:checkpoints")
    page.keyboard.press("v")
    expect(page.locator("#answers")).to_have_attribute("open", "")
    page.locator(f'#answer-list a[href="#stop-{chosen + 1}"]').click()
    tab.at(chosen)
    page.evaluate(f"tracerTour.go({section})")
    tab.at(section)
    total = len(data["checkpoints"])
    expect(page.locator("#card")).to_contain_text(f"Checkpoints: 1 right of 1 answered ({total}")
    expect(page.locator("#card")).to_contain_text("not answered yet")
    shot(tab, tmp_path, "tour-desktop-en-score")
    page.evaluate(f"tracerTour.go({len(data['stops'])})")  # after the last stop
    expect(page.locator("#stop-title")).to_have_text("The end of the tour")
    assert page.locator("#next-stop").is_disabled()
    page.keyboard.press("ArrowLeft")
    tab.at(len(data["stops"]) - 1)
    page.locator("#restart").click()
    tab.at(0)
    expect(page.locator("#notice")).to_be_visible()
    assert json.loads(page.evaluate("localStorage.getItem('tracer-tour')"))["answers"] == {}
    page.evaluate(f"tracerTour.go({chosen})")
    expect(page.locator("#choices")).to_be_visible()  # asked again
    assert page.locator("#reveal").is_hidden()
    tab.close()


@pytest.mark.parametrize("size", sorted(SIZES))
def test_the_index_leads_to_the_tour_and_a_stop_to_its_recording(
    driver: Any, site: Path, data: dict[str, Any], size: str
) -> None:
    tab = Tab(driver, size)
    page = tab.page
    page.goto((site / "index.html").as_uri())
    start = page.locator(".tour-start a")
    box = start.bounding_box()
    first_recording = page.locator("main ol a").first.bounding_box()
    height = page.viewport_size["height"]
    # After what the chapter is about, before the recordings, on the first screen, and big
    # enough to tap.
    assert box["y"] + box["height"] <= height and box["y"] < first_recording["y"]
    assert box["height"] >= 44
    tab.press(".tour-start a")
    tab.at(0)
    tab.no_sideways_scroll()
    step = data["steps"][data["stops"][0]["view"]]
    tab.press("#open-step")  # the step in its recording's page, offline from file://
    expect(page.locator("body")).to_have_attribute("data-step", str(step["step"] + 1))
    assert page.url.endswith(f"{step['href']}#step-{step['step'] + 1}")
    tab.close()


def test_keyboard_only_and_a_hand_edited_store(
    driver: Any, site: Path, data: dict[str, Any]
) -> None:
    """Tab and Enter answer a question; answers read back are checked again, not trusted."""
    tab = Tab(driver, "desktop")
    page = tab.page
    chosen, counted = questions(data, numeric=False)[0], questions(data, numeric=True)[0]
    first, second = data["stops"][chosen]["question"], data["stops"][counted]["question"]
    tab.open(site / "tour.html", f"#stop-{chosen + 1}")
    right = next(n for n, c in enumerate(first["choices"]) if c["value"] == first["answer"])
    page.locator("#choices button.choice").nth(right).focus()
    page.keyboard.press("Enter")  # a button, pressed from the keyboard
    expect(page.locator("#reveal")).to_contain_text("✓ Right")
    stored = {
        "version": 1,
        "stop": data["stops"][chosen]["id"],
        "answers": {
            first["checkpoint"]: {"given": "not one of the choices", "right": True},
            second["checkpoint"]: {"given": str(int(second["answer"]) + 1), "right": True},
        },
    }
    page.evaluate(f"localStorage.setItem('tracer-tour', {json.dumps(json.dumps(stored))})")
    page.reload()
    tab.at(chosen)
    expect(page.locator("#choices")).to_be_visible()  # no such choice: asked again
    assert page.locator("#reveal").is_hidden()
    page.evaluate(f"tracerTour.go({counted})")
    expect(page.locator("#reveal")).to_contain_text("✗ Not quite")  # checked, not trusted
    tab.close()
