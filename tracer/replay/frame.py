"""The frame around the step view: which panels show, which has the focus, and how a step is shown.

:class:`FrameControls` is mixed into :class:`~tracer.replay.app.ReplayApp`, like the doctor's
controls. It owns three things the step logic does not care about:

- **Layout.** After every resize and every toggle (``T`` timeline, ``c`` chapter, ``D`` debug
  console) it asks :func:`tracer.replay.layout.plan` what fits and shows or hides the panels; the
  widths are fractions in ``replay.tcss``. ``z`` maximises the focused panel (Textual's
  ``Screen.maximize``; ``z`` or Escape restores it).
- **Focus.** The step view has the focus at start; Tab and shift+Tab cycle the panels (Textual's
  own focus chain), and the focused one has a bright border. Each panel scrolls itself; the step
  keys are the app's, so they work from any panel.
- **How the step is shown.** Folded (the default), unfolded (Enter or ``o``: every fold of
  :mod:`tracer.replay.fold` opened) or raw (``r``: :func:`tracer.replay.raw.step_json`). ``y``
  copies what the focused panel holds (the raw JSON in raw mode) through Textual's clipboard,
  which writes an OSC 52 sequence, so it works over ssh too.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from rich.text import Text

from tracer.replay import layout
from tracer.replay.fold import unfolded
from tracer.replay.i18n import tr
from tracer.replay.raw import step_json
from tracer.replay.render import render_step
from tracer.replay.widgets.pager import Pager

#: The line of the mapping view between the raw output and the tool_result block.
BLOCK_MARK = "⇓"

if TYPE_CHECKING:
    from tracer.replay.steps import StepIndex


class FrameControls:
    """Layout, focus, zoom, and the step view's modes (folded, unfolded, raw)."""

    # Set by ReplayApp.__init__; query_one, screen, size, notify, … come from Textual's App.
    index: StepIndex
    lang: str
    wishes: layout.Wishes
    view_mode: str
    """"folded", "unfolded" or "raw"; back to "folded" on every new step."""

    # -- layout ----------------------------------------------------------------------------

    def apply_layout(self) -> layout.Plan:
        """Show the panels that fit the screen (and the reader's wishes)."""
        app: Any = self
        width, height = app.size
        plan = layout.plan(width, height, self.wishes)
        app.query_one("Timeline").display = plan.timeline
        app.query_one("#chapter").display = plan.chapter
        app.query_one("DebugConsole").display = plan.debug
        app.screen.set_class(plan.narrow, "-narrow")
        focused = app.focused
        hidden = focused is not None and not all(
            node.display for node in focused.ancestors_with_self if node is not app
        )
        if hidden:
            app.query_one("#stage").focus()  # the focused panel was folded away
        return plan

    def on_resize(self, event: object) -> None:
        self.apply_layout()

    def _toggle(self, panel: str, selector: str) -> None:
        app: Any = self
        shown = bool(app.query_one(selector).display)
        self.wishes = layout.toggled(self.wishes, panel, shown)
        self.apply_layout()

    def action_timeline(self) -> None:
        self._toggle("timeline", "Timeline")

    def action_chapter(self) -> None:
        self._toggle("chapter", "#chapter")

    def action_debug(self) -> None:
        self._toggle("debug", "DebugConsole")

    def action_zoom(self) -> None:
        app: Any = self
        screen = app.screen
        if screen.maximized is not None:
            screen.minimize()
            return
        target = app.focused or app.query_one("#stage")
        screen.maximize(target, container=False)

    # -- how the step is shown -------------------------------------------------------------

    def step_text(self, step: int) -> Text:
        """The step view's text for ``step`` in the current mode."""
        if self.view_mode == "raw":
            from rich.syntax import Syntax

            code = step_json(self.index, step)
            highlighted = Syntax(code, "json", theme="ansi_dark", word_wrap=False).highlight(code)
            highlighted.rstrip()
            return highlighted
        if self.view_mode == "unfolded":
            with unfolded():
                return render_step(self.index, step, self.lang)
        return render_step(self.index, step, self.lang)

    def mode_label(self) -> str:
        return "" if self.view_mode == "folded" else " · " + tr(f"mode_{self.view_mode}", self.lang)

    def _set_mode(self, mode: str) -> None:
        app: Any = self
        self.view_mode = mode if self.view_mode != mode else "folded"
        app.render_step(keep_mode=True)

    def action_unfold(self) -> None:
        self._set_mode("unfolded")

    def action_raw(self) -> None:
        self._set_mode("raw")

    def action_block(self) -> None:
        """``b``: on a small screen, jump between the raw output and the block it became."""
        app: Any = self
        app.query_one("#stage", Pager).toggle_mark(BLOCK_MARK)

    def action_copy(self) -> None:
        """Copy the focused panel's text (the raw JSON itself in raw mode)."""
        app: Any = self
        if not len(self.index):
            return
        focused = app.focused
        if self.view_mode == "raw" and (focused is None or focused.id == "stage"):
            text = step_json(self.index, app.step)
        elif isinstance(focused, Pager):
            text = focused.text.plain
        else:
            text = app.query_one("#stage", Pager).text.plain
        app.copy_to_clipboard(text)
        app.notify(tr("copied", self.lang, n=text.count("\n") + 1), timeout=2)
