"""The one pass over a session's events that makes its OTLP spans and hangs each on its parent.

:mod:`tracer.export.otlp.document` says what the spans are; :class:`Walker` meets the events in
the order the trace holds them and calls the builders of :mod:`~tracer.export.otlp.agent`,
:mod:`~tracer.export.otlp.chat` and :mod:`~tracer.export.otlp.tool` at the right ones. The order
is the loop's: in Claude Code's ``queryLoop`` (``query.ts``) each turn is one ``callModel`` stream
(here a ``request`` and its ``response``: a ``chat`` span), then ``runTools`` runs the calls it
asked for (``tool_run``: an ``execute_tool`` span each, under the loop's agent span), and the
results go back with the next request. A ``subagent_start`` opens a loop of its own (an
``invoke_agent`` span under its ``Task`` call's span, made later with the call's result), and its
``subagent_end`` closes it.

The joins are dictionaries, filled as the pass goes: a tool call's span by its ``tool_use`` id
(for the ``mapping`` and ``wrapping`` steps that follow it), by the uuid of the user message that
wrapped its result (for ``appending``, and for ``resending`` on the request that carried that
message), and the ``chat`` span that asked for each call (its ``follow_up``). So the pass takes
time in proportion to the trace (``bench/otlp_export.py``), and a span's times are fitted inside
its parent's once at the end (:func:`~tracer.export.otlp.spans.fit`).
"""

from __future__ import annotations

from typing import Any

from tracer.export.otlp import agent, chat, tool
from tracer.export.otlp import content as oc
from tracer.export.otlp.spans import fit, step_event
from tracer.export.walk import Walk

TYPE_CHECKING = False
if TYPE_CHECKING:  # only named in annotations
    from tracer.trace.events import (
        AnyEvent,
        HttpAttempt,
        RequestSent,
        SessionEnded,
        SubagentStarted,
        ToolFinished,
        ToolStarted,
    )


def _blocks(message: Any) -> list[Any]:
    c = getattr(message, "content", None)
    return c if isinstance(c, list) else ([{"type": "text", "text": c}] if c else [])


class Walker:
    """One pass over the events; dictionaries for every join, so time grows with the trace.

    ``ctx`` carries the ids, the session's base time, whether content goes in and the server's
    host (:func:`tracer.export.otlp.document.spans` makes it from the export's options);
    ``max_content`` bounds each piece of content in bytes (0: none).
    """

    def __init__(self, w: Walk, ctx: chat.Context, max_content: int) -> None:
        self.w = w
        self.ctx = ctx
        self.history = oc.History(max_content)
        self.spans: list[dict[str, Any]] = []
        self.grow: set[str] = set()  # spans that cover their children (fit)
        self.loops: list[agent.Loop] = []
        self.tool_count: dict[str, int] = {}  # tool_use id -> spans made for it so far
        self.descriptions: dict[str, str] = {}  # tool name -> its description
        self.calls: dict[str, Any] = {}  # tool_use id -> its input (a Task's subagent_type)
        self.asked: dict[str, dict[str, Any]] = {}  # tool_use id -> the chat span that asked
        self.by_call: dict[str, dict[str, Any]] = {}  # tool span by tool_use id
        self.by_message: dict[str, dict[str, Any]] = {}  # tool span by its wrapped result
        self.starts: dict[str, ToolStarted] = {}
        self.model = "unknown"

    def open(self, parent: str | None, key: str, start: SubagentStarted | None, at: int) -> None:
        call = self.calls.get(start.tool_use_id) if start is not None else None
        loop = agent.opened(self.ctx, parent, key, start, call, at)
        self.spans.append(loop.span)
        if start is not None:  # a subagent's span covers its loop; the session's starts at 0
            self.grow.add(loop.id)
        self.loops.append(loop)

    def close(self, last: AnyEvent | None) -> None:
        loop = self.loops.pop()
        totals = None
        if not self.loops:
            totals = agent.session_totals(self.w.events, len(self.w.turns))
        agent.closed(self.ctx, loop, last or loop.ended, totals)

    def run(self) -> list[dict[str, Any]]:
        """Every span of the session, the main ``invoke_agent`` span first, each child fitted
        inside its parent; times still as integers (:func:`~.spans.finish` writes them)."""
        ctx, events = self.ctx, self.w.events
        self.open(None, "invoke_agent", None, ctx.base)
        pending: RequestSent | None = None
        sent = chat.Sent({})
        attempts: list[HttpAttempt] = []
        last_chat: dict[str, Any] | None = None
        for e in events:
            k, loop = e.kind, self.loops[-1]
            if k == "message":
                self.history.message(e)
                for block in _blocks(e) if e.type == "assistant" else ():
                    if isinstance(block, dict) and block.get("type") == "tool_use":
                        self.calls[str(block.get("id"))] = block.get("input")
            elif k == "session_start":
                self.model = e.model
                for tool in (e.request_params or {}).get("tools") or ():
                    if isinstance(tool, dict) and tool.get("description"):
                        self.descriptions[str(tool.get("name"))] = tool["description"]
                agent.set_up(ctx, loop, e, self.w.header.get("source") or {})
            elif k == "request":
                if pending is not None:
                    self._failed(pending, sent, attempts, None)
                pending, attempts = e, []
                self.history.request(e)
                sent = chat.Sent.of(self.history, ctx.content)
                carried = {part[0] for m in e.tail for part in m.get("parts", ())}
                for uuid in carried & self.by_message.keys():
                    self.by_message.pop(uuid)["events"].append(
                        step_event("resending", ctx.at(e), tracer__request_index=e.request_index)
                    )
            elif k == "http_attempt" and pending is not None:
                attempts.append(e)
            elif k == "response" and pending is not None:
                blocks = [b for u in e.assistant_uuids for b in _blocks(self.w.messages.get(u))]
                loop.last_text = [
                    b for b in blocks if isinstance(b, dict) and b.get("type") == "text"
                ]
                last_chat = chat.answered(ctx, loop.id, pending, e, sent, blocks)
                self.spans.append(last_chat)
                pending = None
            elif k == "follow_up" and last_chat is not None:
                for tool_use_id in e.tool_use_ids:
                    self.asked[tool_use_id] = last_chat
            elif k == "subagent_start":
                n = self.tool_count.get(e.tool_use_id, 0)
                parent = ctx.ids.span(f"tool:{e.tool_use_id}:{n}")  # the Task span, made later
                self.grow.add(parent)
                self.open(parent, f"agent:{e.loop}:{e.seq}", e, ctx.at(e))
            elif k == "subagent_end" and len(self.loops) > 1:
                self.close(e)
            elif k == "tool_start":
                self.starts[e.tool_use_id] = e
            elif k == "tool_run":
                self._tool(loop, e, self.starts.get(e.tool_use_id, e))
            else:
                self._step(e)
            if k == "terminal":
                if pending is not None:
                    self._failed(pending, sent, attempts, e)
                    pending = None
                loop.ended = e
        if pending is not None:  # the trace stops mid-request
            self._failed(pending, sent, attempts, None)
        while self.loops:
            self.close(events[-1] if events else None)
        fit(self.spans, self.grow)
        return self.spans

    def _failed(
        self,
        request: RequestSent,
        sent: chat.Sent,
        attempts: list[HttpAttempt],
        ended: SessionEnded | None,
    ) -> None:
        parent = self.loops[-1].id
        self.spans.append(chat.failed(self.ctx, parent, request, sent, attempts, ended, self.model))

    def _tool(self, loop: agent.Loop, e: ToolFinished, start: ToolStarted | ToolFinished) -> None:
        n = self.tool_count.get(e.tool_use_id, 0)
        self.tool_count[e.tool_use_id] = n + 1
        asking = self.asked.get(e.tool_use_id)
        s = tool.ran(self.ctx, loop.id, e, start, n, asking, self.descriptions.get(e.tool))
        self.spans.append(s)
        self.by_call[e.tool_use_id] = s

    def _step(self, e: Any) -> None:
        """The first three steps of the journey, as events on the tool's span."""
        at = self.ctx.at(e)
        if e.kind == "mapping" and e.tool_use_id in self.by_call:
            tool.mapped(self.ctx, self.by_call[e.tool_use_id], e)
        elif e.kind == "wrapping" and e.tool_use_id in self.by_call:
            s = self.by_call[e.tool_use_id]
            s["events"].append(step_event("wrapping", at, tracer__message_uuid=e.message_uuid))
            self.by_message[e.message_uuid] = s
        elif e.kind == "appending":
            for uuid in e.new_uuids:
                if uuid in self.by_message:
                    self.by_message[uuid]["events"].append(
                        step_event("appending", at, tracer__after_count=e.after_count)
                    )
