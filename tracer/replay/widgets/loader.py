"""The loader: what comes in from the files behind the replay, away from the screen's thread.

It draws nothing (``replay.tcss`` never displays it); it owns the replay's background work,
each a worker or a timer of its own:

- the rest of a long trace is indexed after the first frame, in a thread, so the step count
  fills in as it goes (:meth:`TraceLoader.track` starts it for each trace opened);
- ``--follow`` polls every :data:`FOLLOW_INTERVAL` seconds: it calls the live import's ``feed``
  (when the replay follows a Claude Code transcript) and asks the screen to take in the new
  lines, or, on a file not written yet (:class:`~tracer.view.opening.WaitingReader`), looks
  for its header line;
- ``O`` (the loader's key, made the screen's so it works from any panel) opens the picker; a
  Claude Code transcript chosen there or in the command palette (:meth:`TraceLoader.choose`)
  is imported in a thread first, since a long session takes a moment.

The screen hands it the open trace (:meth:`TraceLoader.track`, attributes down) and it says
what came (messages up): :class:`TraceLoader.Indexed`, :class:`TraceLoader.Poll` and
:class:`TraceLoader.Open`. It never opens a trace or moves the cursor itself.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from textual import work
from textual.binding import Binding
from textual.message import Message
from textual.reactive import var
from textual.widget import Widget
from textual.worker import get_current_worker

from tracer.view.i18n import tr
from tracer.view.opening import WaitingReader, choices
from tracer.view.state import ReplayState
from tracer.view.steps import CHUNK

#: How often ``--follow`` looks for new lines, in seconds.
FOLLOW_INTERVAL = 0.25


class TraceLoader(Widget):
    """Background indexing, ``--follow``'s polling, the picker and imports, for the screen."""

    SCREEN_KEYS = [Binding("O", "pick", "open", id="open-recording")]  # noqa: RUF012
    """Keys that work from any panel (the screen passes them on to the loader)."""

    @dataclass
    class Indexed(Message):
        """More of the trace was indexed (:attr:`TraceLoader.indexing` says if there is more)."""

        def can_replace(self, message: Message) -> bool:
            return isinstance(message, TraceLoader.Indexed)  # (the newer says as much)

    @dataclass
    class Poll(Message):
        """Time to take in what the recorder appended (``--follow``)."""

        # The screen takes it all in and redraws in the same go, so the count on screen never
        # lags behind the trace; one poll waiting covers another.
        def can_replace(self, message: Message) -> bool:
            return isinstance(message, TraceLoader.Poll)

    @dataclass
    class Open(Message):
        """Open the trace at ``path`` (chosen, imported into, or a followed file now written)."""

        path: Path
        at_end: bool = False
        """Open it at its last step, as ``tail -F`` shows a file's end, and follow it from there."""

    lang: var[str] = var("en", init=False)
    """The reader's language (bound to the screen's): the picker and the notices speak it."""

    def __init__(
        self,
        state: ReplayState,
        *,
        lang: str = "en",
        follow: bool = False,
        feed: Callable[[], object] | None = None,
        id: str | None = None,
    ) -> None:
        super().__init__(id=id)
        self.state, self.follow = state, follow
        self.set_reactive(TraceLoader.lang, lang)
        self.feed = feed
        """With ``replay --follow <transcript>``: called on each poll to import new lines."""
        self.indexing = False
        """Whether the open trace is still being indexed in the background."""
        self._asked_open = False

    def on_mount(self) -> None:
        if self.follow:
            self.set_interval(FOLLOW_INTERVAL, self.poll)

    def track(self, state: ReplayState, *, after_first_frame: bool = False) -> None:
        """Load ``state``'s trace from now on; the work on the one before is dropped."""
        self.workers.cancel_group(self, "index")
        self.state, self._asked_open = state, False
        self.indexing = not state.index.complete
        if not self.indexing:
            return
        if after_first_frame:
            self.call_after_refresh(self._index_rest)
        else:
            self._index_rest()

    @work(thread=True, exclusive=True, group="index")
    def _index_rest(self) -> None:
        """Index the rest of a long trace; the count fills in as it goes."""
        worker = get_current_worker()
        index = self.state.index
        while not index.complete and not worker.is_cancelled:
            index.extend(CHUNK)
            self.app.call_from_thread(self._indexed)

    def _indexed(self) -> None:
        self.indexing = not self.state.index.complete
        self.post_message(self.Indexed())

    def poll(self) -> None:
        """``--follow``: pick up the lines the recorder appended (or the file, once it exists)."""
        reader = self.state.index.reader
        if isinstance(reader, WaitingReader):
            if reader.ready() and not self._asked_open:  # (asked once: the screen says why not)
                self._asked_open = True
                self.post_message(self.Open(reader.path, at_end=True))
            return
        if self.feed is not None:
            self.feed()  # a live import writes what Claude Code appended since the last tick
        if not self.indexing:
            self.post_message(self.Poll())

    def action_pick(self) -> None:
        """``O``: the picker (the bundled recordings, this folder's traces, recent files, this
        machine's Claude Code sessions)."""

        def chosen(path: Path | None) -> None:
            if path is not None:
                self.choose(path)

        from tracer.replay.widgets.picker import PickerScreen

        current = getattr(self.state.index.reader, "path", None)
        self.app.push_screen(PickerScreen(self.lang, choices(), current), chosen)

    def choose(self, path: Path) -> None:
        """Open what the reader chose in the picker or the palette: a trace, or a Claude Code
        transcript, imported first."""
        from tracer.files.paths import TRACE_SUFFIX
        from tracer.importers.claude_code.live import is_transcript

        # A *.trace.jsonl file is opened as a trace, whatever is in it, as the command line
        # opens it: an empty or binary one is refused with the command line's words rather
        # than taken for a Claude Code transcript and imported.
        if is_transcript(Path(path)) and not Path(path).name.endswith(TRACE_SUFFIX):
            self.notify(tr("importing", self.lang, name=Path(path).name), timeout=3)
            self._import(Path(path))
            return
        from tracer.view.sources import remember

        remember(Path(path))
        self.post_message(self.Open(path))

    @work(thread=True, exclusive=True, group="import")
    def _import(self, transcript: Path) -> None:
        """Import a Claude Code transcript into a trace, then ask for it to be opened."""
        from tracer.errors import UserError
        from tracer.view.sources import import_session

        try:
            trace = import_session(transcript)
        except (UserError, OSError) as exc:
            self.app.call_from_thread(self.notify, str(exc), severity="error")
            return
        if not get_current_worker().is_cancelled:
            self.app.call_from_thread(self.post_message, self.Open(trace))
