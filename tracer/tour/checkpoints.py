"""The chapter's checkpoints as questions: predict, step on, and compare with the trace.

Python Tutor's lesson is that a reader who guesses the next step before seeing it learns more
than one who only watches. Each checkpoint in the guide names the step that shows it (the
``nth`` step of a stage, in a turn, of a scenario's recording) and what to ask (``ask``). The
tour stops one step *before* that step, asks, and only then steps on.

The answer is never written in the guide: :func:`build_question` computes it from the trace, so
it stays right when the recordings are made again (the loop's order or the scenario's ids may
change; the question follows). Three steps matter, all computed: the checkpoint's own step
(:attr:`Question.at`), the step where the answer shows (:attr:`Question.land`, where the reveal
stands) and the step where the reader is asked (:attr:`Question.ask`), chosen so that nothing on
the screen gives the answer away. The kinds, where their answer comes from and where it shows:

``tool_use_id``        the mapped block's ``tool_use_id`` (choices: the turn's other calls' ids,
                       the response's message id, an internal uuid); shows on the mapping step;
``api_user_messages``  how many ``user`` messages the next request carries (the prompt is one),
                       rebuilt with :func:`tracer.trace.requests.rebuild_requests`; shows on
                       that request's ``resending`` step, not on the wrapping step;
``loop_turn``          the message count of the next ``turn_start`` (its ``Loop turn`` line),
                       shown there; asked before the appending step, which prints the new count;
``content_blocks``     how many content blocks the wrapped user message has; shows on that step;
``is_error``           the mapped block's ``is_error`` (true, false or no such field), shown on
                       that step; asked before the call's ``tool_run``, which says if it failed;
``needs_follow_up``    the decision of the ``follow_up`` step;
``max_turns_stop``     whether the ``max_turns_check`` step stops the loop.

Pure: no Textual; reads events through a :class:`~tracer.view.steps.StepIndex`.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

from tracer.trace import events as ev
from tracer.view.steps import StepIndex

TYPE_CHECKING = False
if TYPE_CHECKING:  # only named in annotations
    from tracer.chapter.guide_records import Checkpoint

#: Words for the fixed choices, in both languages.
CHOICE_WORDS: dict[str, dict[str, str]] = {
    "true": {"zh": "true", "en": "true"},
    "false": {"zh": "false", "en": "false"},
    "absent": {"zh": "没有这个字段", "en": "no such field"},
    "stop": {"zh": "停下（max_turns）", "en": "stop (max_turns)"},
    "go on": {"zh": "继续，进入下一轮", "en": "go on to the next turn"},
}


@dataclass(frozen=True)
class Choice:
    value: str
    label: dict[str, str]

    def text(self, lang: str) -> str:
        return self.label.get(lang) or self.label["en"]


@dataclass(frozen=True)
class Question:
    """A checkpoint ready to ask: where, what, and the answer the trace gives."""

    checkpoint: Checkpoint
    land: int
    """The 0-based step that shows the answer (the reveal stands there)."""
    answer: str
    choices: tuple[Choice, ...] = ()
    """Empty for a question answered with a number."""
    evidence: str = ""
    """What the trace shows at :attr:`land` (a debug line, a field), for the reveal, in English."""
    evidence_zh: str = ""
    """The same in Chinese, where it has words and not only literals (else :attr:`evidence`)."""
    at: int = -1
    """The checkpoint's own step (the ``nth`` of its stage); :attr:`land` when not given."""
    asked: int = -1
    """The step the reader stands on when asked; one before :attr:`at` when not given."""

    @property
    def step(self) -> int:
        """The checkpoint's own step: where it belongs in the chapter."""
        return self.land if self.at < 0 else self.at

    @property
    def ask(self) -> int:
        """The step the reader stands on when asked: before anything shows the answer."""
        return max(self.step - 1, 0) if self.asked < 0 else self.asked

    def evidence_text(self, lang: str) -> str:
        return (self.evidence_zh or self.evidence) if lang == "zh" else self.evidence

    @property
    def numeric(self) -> bool:
        return not self.choices

    def check(self, given: str) -> bool:
        return normalize(given) == normalize(self.answer)

    def answer_text(self, lang: str) -> str:
        found = next((c for c in self.choices if c.value == self.answer), None)
        return found.text(lang) if found else self.answer


def normalize(text: str) -> str:
    return " ".join(str(text).strip().lower().split())


class NotInTrace(LookupError):
    """The trace does not hold the step or the record a checkpoint needs."""


def landing_step(index: StepIndex, checkpoint: Checkpoint) -> int:
    """The step that shows ``checkpoint``: the ``nth`` of its stage (in its turn, if given)."""
    index.extend()
    seen = 0
    for step in range(len(index)):
        if index.stage(step) != checkpoint.stage:
            continue
        if checkpoint.turn is not None and index.turn(step) != checkpoint.turn:
            continue
        seen += 1
        if seen == (getattr(checkpoint, "nth", 1) or 1):
            return step
    raise NotInTrace(f"no {checkpoint.stage} step for checkpoint {checkpoint.id}")


#: The kinds whose answer shows on a later step than the checkpoint's own: the stage it shows on.
_SHOWN_ON = {"api_user_messages": "resending", "loop_turn": "turn_start"}


def answer_step(index: StepIndex, checkpoint: Checkpoint) -> int:
    """The step that shows ``checkpoint``'s answer (where the replay marks it and the tour's
    reveal stands): its own step, or for a count the request or the turn it is counted on."""
    land = landing_step(index, checkpoint)
    stage = _SHOWN_ON.get(getattr(checkpoint, "ask", None) or "")
    if stage is None:
        return land
    found = _next_of(index, land, stage)
    if found is None:
        raise NotInTrace(f"no {stage} step after step {land + 1}")
    return found


def _next_of(index: StepIndex, after: int, stage: str) -> int | None:
    return next((s for s in range(after, len(index)) if index.stage(s) == stage), None)


def _same_turn(index: StepIndex, step: int, stage: str) -> int | None:
    turn = index.turn(step)
    return next(
        (s for s in range(len(index)) if index.turn(s) == turn and index.stage(s) == stage), None
    )


def _shuffled(values: list[str]) -> list[str]:
    """A fixed order that does not give the answer away (not always first or last)."""
    return sorted(dict.fromkeys(values), key=lambda v: hashlib.sha256(v.encode()).hexdigest())


def _tool_run_of(index: StepIndex, before: int, tool_use_id: object) -> int | None:
    """The ``tool_run`` step of the call ``tool_use_id``, at or before ``before``."""
    return next(
        (
            s
            for s in range(before, -1, -1)
            if index.stage(s) == "tool_run"
            and getattr(index.event(s), "tool_use_id", None) == tool_use_id
        ),
        None,
    )


def _debug_line_after(index: StepIndex, step: int, hook: str) -> str:
    """The first ``[DEBUG]`` line of ``hook`` printed after ``step``."""
    reader = index.reader
    for i in range(index.positions[step], len(reader)):
        if reader.kind_of(i) == "debug_hook":
            event = reader[i]
            if isinstance(event, ev.DebugHook) and event.hook == hook:
                return str(event.line)
    return ""


def build_question(index: StepIndex, checkpoint: Checkpoint) -> Question:
    """The question for ``checkpoint`` over the trace in ``index``, its answer computed."""
    land = landing_step(index, checkpoint)
    event = index.event(land)
    kind = checkpoint.ask
    if kind == "tool_use_id":
        if isinstance(event, ev.ResultMapped):  # the id in the block: what the AI reads back
            answer = str(event.block.get("tool_use_id"))
        elif isinstance(event, (ev.PermissionDecided, ev.ToolFinished, ev.ResultWrapped)):
            answer = str(event.tool_use_id)
        else:
            raise TypeError(f"step {land + 1} is a {event.kind} record, which names no tool call")
        others: list[str] = []
        decision = _same_turn(index, land, "follow_up")
        if decision is not None:
            ids = index.event_as(decision, ev.FollowUpDecided).tool_use_ids
            others += [i for i in ids if i != answer]
        response = _same_turn(index, land, "response")
        if response is not None:  # the response's message id, and an internal message uuid
            reply = index.event_as(response, ev.ResponseReceived)
            others += [str(reply.message_id), *map(str, reply.assistant_uuids[-1:])]
        values = _shuffled([answer, *others[:3]])
        return Question(
            checkpoint,
            land,
            answer,
            tuple(Choice(v, {"zh": v, "en": v}) for v in values),
            f"tool_use_id: {answer}",
        )
    if kind == "api_user_messages":
        request = _next_of(index, land, "resending")
        if request is None:
            raise NotInTrace(f"no request after step {land + 1}")
        wanted = index.event_as(request, ev.RequestSent).request_index
        from tracer.trace.requests import rebuild_requests

        rebuilt = next(r for r in rebuild_requests(index.reader) if r.event.request_index == wanted)
        users = sum(1 for m in rebuilt.api_messages if m.role == "user")
        total = len(rebuilt.api_messages)
        return Question(
            checkpoint,
            request,
            str(users),
            (),
            f"request {wanted}: {total} API messages, {users} of them user messages",
            f"第{wanted}次请求：API 消息{total}条，其中用户消息{users}条",
            at=land,
        )
    if kind == "loop_turn":
        start = _next_of(index, land, "turn_start")
        if start is None:
            raise NotInTrace(f"no turn starts after step {land + 1}")
        count = index.event_as(start, ev.TurnStarted).message_count
        line = _debug_line_after(index, start, "loop_turn")
        # The appending step itself prints the new count: ask on the step before it.
        return Question(checkpoint, start, str(count), (), line, at=land)
    if kind == "content_blocks":
        uuid = index.event_as(land, ev.ResultWrapped).message_uuid
        message = next(
            (e for e in index.reader if isinstance(e, ev.MessageRecorded) and e.uuid == uuid), None
        )
        if message is None:
            raise NotInTrace(f"no message {uuid}")
        content = message.content
        blocks = content if isinstance(content, list) else [content]
        kinds = ", ".join(str(b.get("type")) if isinstance(b, dict) else "text" for b in blocks)
        return Question(
            checkpoint,
            land,
            str(len(blocks)),
            (),
            f"content: [{kinds}]",
            f"content：[{kinds}]，共{len(blocks)}个内容块",
        )
    if kind == "is_error":
        block = index.event_as(land, ev.ResultMapped).block
        value = block.get("is_error")
        answer = "absent" if value is None else str(bool(value)).lower()
        shown = "undefined" if value is None else str(value).lower()
        # The call's tool_run step already says whether it failed: ask before it.
        run = _tool_run_of(index, land, block.get("tool_use_id"))
        return Question(
            checkpoint,
            land,
            answer,
            _fixed("true", "false", "absent"),
            f"is_error: {shown}",
            asked=max((land if run is None else run) - 1, 0),
        )
    if kind == "needs_follow_up":
        answer = str(bool(index.event_as(land, ev.FollowUpDecided).needs_follow_up)).lower()
        return Question(
            checkpoint,
            land,
            answer,
            _fixed("true", "false"),
            _debug_line_after(index, land, "needs_follow_up"),
        )
    if kind == "max_turns_stop":
        check = index.event_as(land, ev.MaxTurnsChecked)
        answer = "stop" if check.exceeded else "go on"
        return Question(
            checkpoint,
            land,
            answer,
            _fixed("stop", "go on"),
            f"next_turn_count ({check.next_turn_count}) > max_turns ({check.max_turns})"
            f" → {str(bool(check.exceeded)).lower()}",
        )
    raise NotInTrace(f"checkpoint {checkpoint.id} asks nothing the tour knows ({kind!r})")


def _fixed(*values: str) -> tuple[Choice, ...]:
    return tuple(Choice(v, CHOICE_WORDS[v]) for v in values)
