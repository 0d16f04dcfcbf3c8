"""``tracer tour``: the chapter in the book's order, one stop at a time, with its checkpoints.

The tour is a list of stops made from the guide and the bundled recordings:

* one **section stop** per section, in the book's order, at the first step that shows the
  section (:mod:`tracer.view.sections`: an anchored or scenario step first; on a fault
  recording, the step where the doctor finds the fault);
* one **checkpoint stop** per checkpoint, right after the section its step belongs to. It opens
  before that step (where nothing on the screen gives the answer away) and asks the reader to
  predict what comes next (:mod:`tracer.tour.checkpoints` computes the answer from the trace
  and the step that shows it); after the answer the tour goes to that step and explains.

:class:`Tour` moves through the stops and keeps the reader's answers in a :class:`Progress`,
saved as JSON under ``$TRACER_STATE_DIR``, else the platform's folder for state a program keeps
between runs (``platformdirs``, installed with Textual: ``$XDG_STATE_HOME/tracer`` or
``~/.local/state/tracer`` on Linux, ``~/Library/Application Support/tracer`` on macOS), so a
tour resumes where it was left. Nothing here imports Textual.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from tracer.errors import UserError
from tracer.files.untrusted import loads, read_bytes
from tracer.tour.checkpoints import NotInTrace, Question, build_question
from tracer.view.sections import Contents, recording_info, section_for_step

TYPE_CHECKING = False
if TYPE_CHECKING:  # only named in annotations
    from tracer.chapter.guide_records import Checkpoint, Guide, Section
    from tracer.view.steps import StepIndex

PROGRESS_FILE = "tour.json"
PROGRESS_VERSION = 1
MAX_PROGRESS = 1024 * 1024
"""Bytes in the progress file (a finished tour's is about 2 KB)."""


@dataclass(frozen=True)
class Stop:
    """Where the tour goes next: a recording, a step (0-based) and what to show there."""

    id: str
    kind: Literal["section", "checkpoint"]
    section: Section | None
    """The section the stop is about (a checkpoint's: the section its step belongs to, None if
    none covers it)."""
    recording: Path
    step: int
    question: Question | None = None


# -- planning the stops ------------------------------------------------------------------------


def _fault_step(path: Path, steps: list[int]) -> int | None:
    """On a fault recording, the first step where the doctor finds the fault."""
    from tracer.view.diagnose import diagnose

    found = diagnose(path).first_step
    return found if found is not None and found in steps else None


@dataclass(frozen=True)
class Located:
    """A checkpoint's question with the recording it was built from (the tour opens it)."""

    path: Path
    index: StepIndex
    """The recording's :class:`~tracer.view.steps.StepIndex`."""
    question: Question


def plan_stops(
    guide: Guide,
    contents: Contents,
    question_for: Callable[[Checkpoint], Located | None] | None = None,
) -> list[Stop]:
    """Every stop of the tour, in the book's order.

    ``question_for`` finds a checkpoint's recording and question (default: the bundled
    recording of the checkpoint's scenario, :func:`bundled_question`).
    """
    question_for = question_for or bundled_question
    after: dict[str, list[Stop]] = {}
    for checkpoint in guide.checkpoints:
        if not getattr(checkpoint, "ask", None):
            continue
        located = question_for(checkpoint)
        if located is None:
            continue
        question, index = located.question, located.index
        rec = recording_info(located.path, index.reader.header)
        section, _ = section_for_step(
            guide, rec, index.stage(question.step), index.turn(question.step)
        )
        key = section.id if section is not None else guide.sections[-1].id
        after.setdefault(key, []).append(
            Stop(
                f"checkpoint:{checkpoint.id}",
                "checkpoint",
                section,
                located.path,
                question.ask,
                question,
            )
        )
    stops: list[Stop] = []
    for section in guide.sections:
        entry = contents.first_stop(section.id)
        if entry is not None and entry.recording.path is not None:
            step = entry.first
            if entry.recording.fault:
                step = _fault_step(entry.recording.path, entry.steps) or step
            stops.append(
                Stop(f"section:{section.id}", "section", section, entry.recording.path, step)
            )
        stops.extend(after.get(section.id, []))
    return stops


def question_in(path: Path, checkpoint: Checkpoint) -> Located | None:
    """The question of ``checkpoint`` over the trace at ``path`` (None if it cannot be asked)."""
    from tracer.trace.reader import TraceReader
    from tracer.view.steps import StepIndex

    if not path.is_file():
        return None
    index = StepIndex(TraceReader(path))
    try:
        return Located(path, index, build_question(index, checkpoint))
    except NotInTrace:
        return None


def bundled_question(checkpoint: Checkpoint) -> Located | None:
    """The question of ``checkpoint`` over the bundled recording of its scenario."""
    from tracer.files.paths import resolve_trace

    return question_in(resolve_trace(checkpoint.scenario), checkpoint)


# -- progress ----------------------------------------------------------------------------------


@dataclass
class Progress:
    """Which stop the reader is at and what they answered (checkpoint id → answer)."""

    stop: str | None = None
    answers: dict[str, dict[str, Any]] = field(default_factory=dict)
    lang: str | None = None

    def score(self) -> tuple[int, int]:
        """(right, answered)."""
        return sum(1 for a in self.answers.values() if a.get("right")), len(self.answers)

    def to_json(self) -> str:
        return json.dumps(
            {
                "version": PROGRESS_VERSION,
                "stop": self.stop,
                "answers": self.answers,
                "lang": self.lang,
            },
            ensure_ascii=False,
            indent=1,
        )


def load_progress(path: Path) -> Progress:
    """The saved progress, or a fresh start when there is none or it cannot be read (it is
    tracer's own file: a damaged one is replaced rather than reported)."""
    # Through the reading layer like every other input: a FIFO put there would block a plain
    # open forever, /dev/zero never ends, and 3,000 nested brackets overflow json's recursion.
    try:
        data = loads(read_bytes(path, "the tour's progress", MAX_PROGRESS), path)
    except UserError:
        return Progress()
    if not isinstance(data, dict) or data.get("version") != PROGRESS_VERSION:
        return Progress()
    answers = data.get("answers")
    stop, lang = data.get("stop"), data.get("lang")
    return Progress(
        stop if isinstance(stop, str) else None,
        {str(k): v for k, v in answers.items() if isinstance(v, dict)}
        if isinstance(answers, dict)
        else {},
        lang if isinstance(lang, str) else None,
    )


def save_progress(progress: Progress, path: Path) -> None:
    """Write atomically (a tour interrupted mid-write keeps the previous file)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    temporary = path.with_suffix(".tmp")
    temporary.write_text(progress.to_json() + "\n", encoding="utf-8")
    temporary.replace(path)


# -- moving through the stops ------------------------------------------------------------------


class Tour:
    """The reader's place in the stops, and their answers; saves after every change."""

    def __init__(
        self, stops: list[Stop], progress: Progress | None = None, path: Path | None = None
    ) -> None:
        if not stops:
            raise ValueError("a tour needs at least one stop")
        self.stops = stops
        self.progress = progress or Progress()
        self.path = path
        self.save_problem: str | None = None
        ids = [s.id for s in stops]
        self.position = ids.index(self.progress.stop) if self.progress.stop in ids else 0

    @property
    def current(self) -> Stop:
        return self.stops[self.position]

    @property
    def at_end(self) -> bool:
        return self.position == len(self.stops) - 1

    def answered(self, stop: Stop | None = None) -> dict[str, Any] | None:
        stop = stop or self.current
        if stop.question is None:
            return None
        return self.progress.answers.get(stop.question.checkpoint.id)

    def move(self, delta: int) -> Stop:
        self.position = max(0, min(self.position + delta, len(self.stops) - 1))
        self._save()
        return self.current

    def answer(self, given: str) -> bool:
        """Check ``given`` against the current checkpoint's answer and keep it."""
        question = self.current.question
        if question is None:
            raise ValueError("this stop asks nothing")
        right = question.check(given)
        self.progress.answers[question.checkpoint.id] = {"given": given, "right": right}
        self._save()
        return right

    def restart(self) -> None:
        self.progress = Progress(lang=self.progress.lang)
        self.position = 0
        self._save()

    def _save(self) -> None:
        self.progress.stop = self.current.id
        if self.path is None:
            return
        try:
            save_progress(self.progress, self.path)
        except OSError as exc:  # checked writable at start; losing it later must not end the tour
            self.save_problem = exc.strerror or str(exc)


__all__ = [
    "Located",
    "Progress",
    "Stop",
    "Tour",
    "load_progress",
    "plan_stops",
    "save_progress",
]
