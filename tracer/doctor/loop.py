"""Does the loop end, and how did it end?

Two rows of the chapter's table of common errors:

* **loop-not-ending** (对话循环不终止), an error. The loop of ``queryLoop()`` (``src/query.ts``)
  ends only when a response holds no ``tool_use`` block, so ``needsFollowUp`` must become false
  then. Two ways it goes wrong: ``needsFollowUp`` stays true although the model asked for nothing
  (forced or stuck) until the turn limit stops the loop, or the model asks for the same tool call
  with the same input again and again (``repeat_limit`` times in a row) *and gets the same result
  back each time*, so it learns nothing from the results. A call that reads changing state
  (``BashOutput`` polling a background job with the same ``bash_id``, a status check) repeats its
  input by design; as long as its output changes, the loop is making progress and is not stuck.
* **max-turns** (超过最大轮次), a warning. The session stopped because ``next_turn_count >
  max_turns``: the loop worked, but the task may be unfinished, and the last results were never
  sent. When the loop was stuck, that stop is the stuck loop's symptom, not a second finding.
"""

from __future__ import annotations

import json
from typing import Any

from tracer.doctor.facts import ToolUse, TraceFacts
from tracer.doctor.finding import Finding
from tracer.trace.events import FollowUpDecided, MaxTurnsChecked, SessionStarted

#: The repeated-call finding has its own hint: the model did ask for a tool every time, so the
#: table's check (a reply without tool_use must end the loop) says nothing about it.
REPEAT_HINT = {
    "en": "The model asked for the same call with the same input again and again: compare the "
    "tool_result it got each time with what it asked next. needsFollowUp is rightly true while "
    "it keeps asking; only max_turns stops such a loop.",
    "zh": "AI 一次次用同样的输入请求同一个调用：对比它每次拿到的 tool_result 和它接下来的请求。"
    "只要它还在请求工具，needsFollowUp 为 true 就没有错；这样的循环只有 max_turns 能拦住。",
}


def _dump(value: Any) -> str:
    try:
        return json.dumps(value, sort_keys=True, ensure_ascii=False)
    except (TypeError, ValueError):
        return repr(value)


def _key(use: ToolUse) -> str:
    return f"{use.name} {_dump(use.input)}"


def _same_call(facts: TraceFacts, a: ToolUse, b: ToolUse) -> bool:
    """Same tool, same input, and the same output: a repeat that taught the model nothing."""
    if _key(a) != _key(b):
        return False
    return _dump(facts.outputs.get(a.id)) == _dump(facts.outputs.get(b.id))


def _short(text: str, width: int = 60) -> str:
    return text if len(text) <= width else text[: width - 1] + "…"


def check_repeats(facts: TraceFacts, repeat_limit: int) -> list[Finding]:
    """The same call with the same input and output, ``repeat_limit`` or more times in a row."""
    findings: list[Finding] = []
    run: list[ToolUse] = []

    def close_run() -> None:
        if len(run) >= repeat_limit:
            nth = run[repeat_limit - 1]
            turns = sorted({u.turn for u in run})
            findings.append(
                facts.finding(
                    "loop-not-ending",
                    facts.follow_up_after(nth.response_index),
                    f"the same call {_short(_key(nth))} was made {len(run)} times in a row, "
                    f"with the same result each time (turns {turns[0]}–{turns[-1]}; limit "
                    f"{repeat_limit})",
                    f"同一个调用 {_short(_key(nth))} 连续出现了{len(run)}次，每次结果都一样"
                    f"（第{turns[0]}–{turns[-1]}轮；上限{repeat_limit}次）",
                    hint=REPEAT_HINT,
                )
            )

    for use in facts.tool_uses:
        if run and not _same_call(facts, run[-1], use):
            close_run()
            run = []
        run.append(use)
    close_run()
    return findings


def check_stuck(facts: TraceFacts) -> list[Finding]:
    """``needs_follow_up`` true with no tool call, turn after turn, until max_turns stopped it."""
    findings: list[Finding] = []
    for end in facts.ends:
        if facts.events[end].reason != "max_turns":
            continue
        stuck: list[tuple[int, FollowUpDecided]] = []
        for i in reversed(facts.segment(end)):
            decision = facts.events[i]
            if not isinstance(decision, FollowUpDecided):
                continue
            if not (decision.needs_follow_up and not decision.tool_use_ids):
                break
            stuck.insert(0, (i, decision))
        if not stuck:
            continue
        first_index, first = stuck[0]
        last = stuck[-1][1]
        forced = " (forced)" if any(d.forced for _, d in stuck) else ""
        forced_zh = "（被强制）" if forced else ""
        turns = f"turn {first.turn}" if len(stuck) == 1 else f"turns {first.turn}–{last.turn}"
        turns_zh = f"第{first.turn}轮" if len(stuck) == 1 else f"第{first.turn}–{last.turn}轮"
        limit = _limit(facts, end) or "?"
        findings.append(
            facts.finding(
                "loop-not-ending",
                first_index,
                f"needsFollowUp stayed true{forced} on {turns} although no tool_use was asked "
                f"for; only max_turns {limit} stopped the loop",
                f"{turns_zh}的回复里没有 tool_use，needsFollowUp 却一直是 true{forced_zh}；"
                f"最后只靠 max_turns（{limit}）停下了循环",
            )
        )
    return findings


def _limit(facts: TraceFacts, end: int) -> int | None:
    """The max_turns that applied to the query ``terminal`` step ``end`` closed."""
    for i in reversed(facts.segment(end)):
        event = facts.events[i]
        if isinstance(event, MaxTurnsChecked) and event.max_turns is not None:
            return event.max_turns
    for event in facts.events:
        if isinstance(event, SessionStarted):
            return event.max_turns
    return None


def check_loop_not_ending(facts: TraceFacts, repeat_limit: int) -> list[Finding]:
    return [*check_stuck(facts), *check_repeats(facts, repeat_limit)]


def check_max_turns(facts: TraceFacts, loop_findings: list[Finding]) -> list[Finding]:
    findings: list[Finding] = []
    for end in facts.ends:
        ended = facts.events[end]
        if ended.reason != "max_turns":
            continue
        segment = facts.segment(end)
        steps = range(facts.step(segment.start), facts.step(end) + 1)
        if any(f.step in steps for f in loop_findings):
            continue  # the stuck loop's symptom, already reported
        index = next(
            (
                i
                for i in reversed(segment)
                if isinstance(facts.events[i], MaxTurnsChecked) and facts.events[i].exceeded
            ),
            end,
        )
        limit = _limit(facts, end)
        unsent = [
            u
            for u in facts.tool_uses
            if u.response_index in segment
            and ((r := facts.next_request(u.response_index)) is None or r.index > end)
        ]
        tail = f"; the results of {len(unsent)} tool call(s) were never sent" if unsent else ""
        tail_zh = f"；有{len(unsent)}个工具调用的结果没有发给 AI" if unsent else ""
        shown = limit if limit is not None else "?"
        findings.append(
            facts.finding(
                "max-turns",
                index,
                f"the session stopped at max_turns: turn {ended.turn_count} would exceed the "
                f"limit of {shown}{tail}",
                f"会话因 max_turns 停止：第{ended.turn_count}轮会超过上限 {shown}{tail_zh}",
            )
        )
    return findings
