"""How the widgets are wired: keys reach the widget that owns them, messages give way rightly.

Every key of the replay screen is bound once, to an action of the widget its route names (or of
the screen itself), and the command palette does what a key does. A message waiting in a queue
gives way to a newer one only where that one says the same again: a click behind a click, a hit
behind a hit, a poll behind a poll; a step key's move never does.
"""

from __future__ import annotations

from tracer.replay.widgets.findings_panel import FindingsPanel
from tracer.replay.widgets.frame import Frame
from tracer.replay.widgets.progress import StepBar
from tracer.replay.widgets.search_bar import SearchBar
from tracer.replay.widgets.stage_view import StageView
from tracer.replay.widgets.timeline import Timeline


def test_every_screen_key_is_bound_once_to_an_action_of_the_widget_it_names() -> None:
    import re

    from tracer.replay.keys import KEYS, action_of
    from tracer.replay.screen import ReplayScreen
    from tracer.replay.widgets.chapter_column import ChapterColumn
    from tracer.replay.widgets.key_bar import KeyBar
    from tracer.replay.widgets.loader import TraceLoader
    from tracer.replay.widgets.progress import StepBar
    from tracer.view.i18n_keys import PALETTE

    owners = {
        "step-bar": StepBar,
        "main": Frame,
        "stage": StageView,
        "findings": FindingsPanel,
        "search-bar": SearchBar,
        "chapter": ChapterColumn,
        "loader": TraceLoader,
        "keys": KeyBar,
    }
    keys = [key for binding in KEYS for key in binding.key.split(",")]
    assert len(keys) == len(set(keys))  # no key means two things
    for binding in KEYS:
        routed = re.fullmatch(r"to\('([\w-]+)', '(\w+)(\(.*\))?'\)", binding.action)
        if routed is not None:
            owner, action = owners[routed[1]], routed[2]
        elif binding.action.startswith("app."):
            continue
        else:
            owner, action = ReplayScreen, binding.action.split("(")[0]
        assert callable(getattr(owner, f"action_{action}", None)), binding
    assert all(action_of(key) for key, _ in PALETTE)  # the palette does what a key does


def test_only_what_a_newer_message_says_again_is_dropped() -> None:
    """``can_replace``: a click waiting behind a click, a hit behind a hit, a poll behind a poll
    give way to the newer one; a step key's move never does (twenty presses, twenty steps)."""
    from tracer.replay.widgets.loader import TraceLoader
    from tracer.view.state import ReplayState

    def on(state: ReplayState) -> int:
        return state.step + 1

    assert StepBar.Seek(3).can_replace(StepBar.Seek(5))
    assert not StepBar.Seek(move=on).can_replace(StepBar.Seek(move=on))
    assert not StepBar.Seek(3).can_replace(StepBar.Seek(move=on))
    assert not StepBar.Seek(move=on).can_replace(StepBar.Seek(5))
    assert SearchBar.Hit(2).can_replace(SearchBar.Hit(4))
    assert SearchBar.Found([1]).can_replace(SearchBar.Found([1, 2]))
    assert TraceLoader.Poll().can_replace(TraceLoader.Poll())
    assert TraceLoader.Indexed().can_replace(TraceLoader.Indexed())
    assert not TraceLoader.Indexed().can_replace(TraceLoader.Poll())
    assert StepBar.Changed().can_replace(StepBar.Changed())
    assert not Timeline.Selected(2).can_replace(Timeline.Selected(3))  # each row chosen is heard
