"""The frame: the row that holds the timeline, the step view and the chapter panel, and decides
which of them fit.

It owns the layout the way a widget owns its state: the reader's wishes (the toggle keys ``T``
timeline, ``c`` chapter, ``D`` debug console, the frame's own, made the screen's so they work
from any panel) and the plan
:func:`tracer.view.layout.plan` makes from them and the terminal's size. It plans again on
every resize of its own, not only at start, so going from 140x42 down to 80x24 folds the
timeline and the chapter panel away (the app's resize event comes before the app knows its new
size, so the frame listens to its own). When the focused panel is folded away the step view
gets the keys back.

Zoom (``z``) is layout too: the frame maximizes the focused panel on its screen and, since the
header and the key bar are hidden then, writes on the panel's bottom border where the reader is
and how to come back (:attr:`Frame.caption`). The frame is bound to the screen's cursor, language
and open trace (attributes down) and keeps the caption current on every step.
"""

from __future__ import annotations

from textual.binding import Binding
from textual.containers import Horizontal
from textual.events import Resize
from textual.reactive import var
from textual.widget import Widget

from tracer.view import layout
from tracer.view.i18n import position, tr
from tracer.view.state import ReplayState


class Frame(Horizontal):
    """Timeline | centre (step view, findings, debug console) | chapter, as room allows."""

    SCREEN_KEYS = [  # noqa: RUF012 (Textual's own convention)
        Binding("T", "toggle_panel('timeline')", "timeline", id="toggle-timeline"),
        Binding("c", "toggle_panel('chapter')", "chapter", id="toggle-chapter"),
        Binding("D", "toggle_panel('debug')", "debug console", id="toggle-debug"),
        Binding("z", "zoom", "zoom", id="zoom"),
    ]
    """Keys that work from any panel (the screen passes them on to the frame)."""

    step: var[int] = var(0, init=False)
    lang: var[str] = var("en", init=False)
    state: var[ReplayState | None] = var(None, init=False)

    def __init__(self, *children: object, id: str | None = None) -> None:
        super().__init__(*children, id=id)  # type: ignore[arg-type]
        self.wishes = layout.Wishes()
        self.caption = ""
        """What a zoomed panel's border says ("turn T · step S/N · z or Esc: back"); "" none."""
        self._subtitles: dict[Widget, str | None] = {}  # a zoomed panel's own border subtitle

    def on_mount(self) -> None:
        self._plan()  # the panels that fit, before the first step is drawn

    def on_resize(self, event: Resize) -> None:
        self.apply()

    def watch_step(self) -> None:
        self.draw()

    def watch_lang(self) -> None:
        self.draw()

    def draw(self) -> None:
        """Keep the caption ("turn T · step S/N · z or Esc: back") and a zoomed panel's border
        current."""
        state = self.state
        if state is None:
            return
        index, step, lang = state.index, self.step, self.lang
        if not len(index):
            self.caption = ""
            return
        where = position(lang, index.turn(step), step + 1, len(index))
        self.caption = f"{where} · {tr('zoom_hint', lang)}"
        screen = self.screen
        zoomed = screen.maximized if self.app.screen is screen else None
        if zoomed is not None:  # keep the zoomed panel's "turn · step" current
            stage = self.query_one("#stage")
            if zoomed is stage:
                self.keep_subtitle(stage, state.place(step))
            self.zoomed(zoomed)

    def apply(self) -> layout.Plan | None:
        """Show the panels that fit the screen (and the reader's wishes)."""
        if not self.is_mounted:
            return None  # (not yet composed)
        return self._plan()

    def _plan(self) -> layout.Plan | None:
        if not self.query("Timeline"):
            return None  # (the app is closing)
        width, height = self.screen.size
        plan = layout.plan(width, height, self.wishes)
        self.query_one("Timeline").display = plan.timeline
        self.query_one("#chapter").display = plan.chapter
        self.query_one("DebugConsole").display = plan.debug
        self.screen.set_class(plan.narrow, "-narrow")
        focused = self.screen.focused
        if focused is not None and not all(
            node.display for node in focused.ancestors_with_self if node is not self.app
        ):
            self.query_one("#stage").focus()  # the focused panel was folded away
        return plan

    def shown(self, panel: str) -> bool:
        """Whether ``panel`` ("timeline", "chapter", "debug") is on screen now."""
        selector = {"timeline": "Timeline", "chapter": "#chapter", "debug": "DebugConsole"}
        return bool(self.query_one(selector[panel]).display)

    def action_toggle_panel(self, panel: str) -> None:
        """The toggle key for ``panel``: show it if hidden, hide it if shown."""
        self.wishes = layout.toggled(self.wishes, panel, self.shown(panel))
        self.apply()

    def show_panel(self, panel: str) -> None:
        """Make sure ``panel`` is shown (a filter needs the timeline, a section the chapter)."""
        if not self.shown(panel):
            self.action_toggle_panel(panel)

    def action_zoom(self) -> None:
        """``z``: the focused panel (else the step view) fills the screen; ``z`` or Escape
        (Textual's own) restores it. The header and the key bar are hidden then, so the panel's
        bottom border says where the reader is and how to come back."""
        self.toggle_zoom(self.screen.focused or self.query_one("#stage"))

    def toggle_zoom(self, widget: Widget) -> None:
        """``widget`` fills the screen, or (zoomed already) the zoom ends."""
        screen = self.screen
        if screen.maximized is not None:
            screen.minimize()
            return
        screen.maximize(widget, container=False)
        self.watch(screen, "maximized", self.zoomed, init=True)

    def keep_subtitle(self, widget: Widget, subtitle: str) -> None:
        """``widget``'s own border subtitle, given back when the zoom ends."""
        self._subtitles[widget] = subtitle

    def zoomed(self, widget: Widget | None) -> None:
        """Mark the zoomed panel (``widget``; None: no zoom) and caption its border."""
        for panel in self.screen.query(".-zoomed"):
            panel.remove_class("-zoomed")
            panel.border_subtitle = self._subtitles.get(panel, "")
        if widget is None or not self.caption:
            return
        widget.add_class("-zoomed")
        self._subtitles[widget] = widget.border_subtitle
        widget.border_subtitle = self.caption
