"""Wire against transcript: the requests an import rebuilt, held against the ones really sent.

Claude Code does not log its requests; ``tracer import claude-code`` rebuilds them from the
transcript (``src/utils/sessionStorage.ts`` writes it) the way ``normalizeMessagesForAPI`` in
``src/utils/messages.ts`` turns the history into a request. ``tracer record --claude-code``
captures what 2.1.88 really sent. Given both for one session, :func:`compare_requests` says,
message by message, where the rebuild and the wire part.

The comparison is in three parts, one a module:

* :mod:`.against_bodies` makes a body comparable: what a transcript cannot know and sits inside
  the messages (the ``<system-reminder>`` texts, the ``cache_control`` markers) is taken out and
  counted;
* this module pairs the requests and aligns them, message by message and block by block;
* :mod:`.against_findings` holds what comes out: each :class:`~.against_findings.Difference`, and
  the :class:`~.against_findings.Unknowable` things named with how much of them there was (the
  system prompt, the tools list and the request's other parameters, body keys the rebuilt request
  does not have; the reminders; the markers), not counted as defects.

Everything else is a difference, with its request (numbered from 1, as the trace's
``request_index``) and the message's index in the wire request as sent (or, for a message only
the rebuild has, its index there): a request or message missing or extra, a message moved, a
block missing, extra, different, or the blocks of a message in another order (a request only
the rebuild has is numbered as rebuilt). Requests are paired by the ids of their answers when
both sides have them, else in order; the requests of a resumed session's first run, before the
wire's first, are named (``earlier``). Messages are aligned by their content (``difflib``), so
one missing message is one finding, not a cascade. Pure: bodies in, findings out, no I/O.
"""

from __future__ import annotations

import difflib
from typing import Any

from tracer.doctor.against_bodies import Tally, canonical, comparable_messages, preview, previews
from tracer.doctor.against_findings import (
    Comparison,
    Difference,
    Unknowable,
    difference,
    unknowable,
)


def _blocks(
    req: int, w: int, r: int, wire: dict[str, Any], rebuilt: dict[str, Any]
) -> list[Difference]:
    """Where two paired messages differ, block by block."""
    if wire.get("role") != rebuilt.get("role"):
        return [
            difference("role-differs", req, w, r, None,
                       f"sent as {wire.get('role')}, rebuilt as {rebuilt.get('role')}",
                       f"发出的是{wire.get('role')}，重建的是{rebuilt.get('role')}")
        ]  # fmt: skip
    sent, built = wire["content"], rebuilt["content"]
    sent_keys, built_keys = [canonical(b) for b in sent], [canonical(b) for b in built]
    if sorted(sent_keys) == sorted(built_keys):
        return [
            difference("block-order", req, w, r, None,
                       "the same blocks in another order",
                       "块相同，顺序不同")
        ]  # fmt: skip
    found: list[Difference] = []
    matcher = difflib.SequenceMatcher(None, built_keys, sent_keys, autojunk=False)
    for op, b1, b2, s1, s2 in matcher.get_opcodes():
        pairs = min(b2 - b1, s2 - s1) if op == "replace" else 0
        for k in range(pairs):
            was, now = previews(sent[s1 + k], built[b1 + k])
            found.append(
                difference("block-differs", req, w, r, s1 + k,
                           f"block {s1 + k} differs: sent {was}, rebuilt {now}",
                           f"第{s1 + k}个块不同：发出的是{was}，重建的是{now}")
            )  # fmt: skip
        if op in ("replace", "insert"):
            for s in range(s1 + pairs, s2):
                found.append(
                    difference("missing-block", req, w, r, s,
                               f"block {s} was sent but is not rebuilt: {preview(sent[s])}",
                               f"第{s}个块发出了，重建里没有：{preview(sent[s])}")
                )  # fmt: skip
        if op in ("replace", "delete"):
            for b in range(b1 + pairs, b2):
                found.append(
                    difference("extra-block", req, w, r, b,
                               f"rebuilt block {b} was not sent: {preview(built[b])}",
                               f"重建的第{b}个块并没有发出：{preview(built[b])}")
                )  # fmt: skip
    return found


def _request(
    req: int, wire: dict[str, Any], rebuilt: dict[str, Any], tally: Tally
) -> list[Difference]:
    for key in wire:
        if key != "messages" and key not in rebuilt:
            tally.keys[key] = tally.keys.get(key, 0) + 1
    found = []
    for key in wire:
        if key != "messages" and key in rebuilt and wire[key] != rebuilt[key]:
            was, now = previews(wire[key], rebuilt[key])
            found.append(
                difference("param-differs", req, None, None, None,
                           f"{key} was {was}, rebuilt {now}", f"{key}发出的是{was}，重建的是{now}")
            )  # fmt: skip
    sent, built = comparable_messages(wire, tally), comparable_messages(rebuilt, None)
    sent_keys, built_keys = [canonical(m) for _, m in sent], [canonical(m) for _, m in built]
    missing: list[int] = []  # positions in sent
    extra: list[int] = []  # positions in built
    matcher = difflib.SequenceMatcher(None, built_keys, sent_keys, autojunk=False)
    for op, b1, b2, s1, s2 in matcher.get_opcodes():
        pairs = min(b2 - b1, s2 - s1) if op == "replace" else 0
        for k in range(pairs):
            (w, wm), (r, rm) = sent[s1 + k], built[b1 + k]
            found += _blocks(req, w, r, wm, rm)
        missing += range(s1 + pairs, s2) if op in ("replace", "insert") else []
        extra += range(b1 + pairs, b2) if op in ("replace", "delete") else []
    for s in missing:
        w = sent[s][0]
        moved = next((b for b in extra if built_keys[b] == sent_keys[s]), None)
        if moved is not None:
            extra.remove(moved)
            found.append(
                difference("message-moved", req, w, built[moved][0], None,
                           f"rebuilt at index {built[moved][0]}, out of order",
                           f"重建时排在第{built[moved][0]}条，顺序不对")
            )  # fmt: skip
        else:
            found.append(
                difference("missing-message", req, w, None, None,
                           f"sent but not rebuilt: {preview(sent[s][1])}",
                           f"发出了，重建里没有：{preview(sent[s][1])}")
            )  # fmt: skip
    for b in extra:
        found.append(
            difference("extra-message", req, None, built[b][0], None,
                       f"rebuilt but never sent: {preview(built[b][1])}",
                       f"重建了，却没有发出：{preview(built[b][1])}")
        )  # fmt: skip
    return found


def _pairs(
    n_rebuilt: int, n_wire: int, rebuilt_answers: list[Any] | None, wire_answers: list[Any] | None
) -> tuple[list[tuple[int, int | None]], list[int], int]:
    """Which rebuilt request each wire request is paired with (``None``: none), the rebuilt
    requests paired with none, and how many of those came before the first pair.

    By the id of the message that answered each request when both sides have them all (the
    API never gives two answers one id): a resumed session's transcript holds the requests of
    the first run too, which this run's wire never carried. Else in order."""
    ids = wire_answers or []
    known = rebuilt_answers is not None and len(ids) == n_wire and None not in ids
    if not known or len(set(ids)) != len(ids):
        pairs: list[tuple[int, int | None]] = [
            (i, i if i < n_rebuilt else None) for i in range(n_wire)
        ]
        return pairs, list(range(n_wire, n_rebuilt)), 0
    where = {answer: j for j, answer in enumerate(rebuilt_answers or []) if answer is not None}
    pairs = [(i, where.get(answer)) for i, answer in enumerate(ids)]
    paired = {j for _, j in pairs if j is not None}
    first = min(paired, default=n_rebuilt)
    unpaired = [j for j in range(n_rebuilt) if j not in paired]
    return pairs, [j for j in unpaired if j > first], sum(j < first for j in unpaired)


def compare_requests(
    rebuilt: list[dict[str, Any]],
    wire: list[dict[str, Any]],
    *,
    rebuilt_answers: list[Any] | None = None,
    wire_answers: list[Any] | None = None,
) -> Comparison:
    """Hold each rebuilt request body against the one sent.

    ``*_answers`` are the ids of the messages that answered each request, when known: requests
    are then paired by them, else by position."""
    result = Comparison(wire_requests=len(wire), rebuilt_requests=len(rebuilt))
    tally = Tally()
    pairs, extra, earlier = _pairs(len(rebuilt), len(wire), rebuilt_answers, wire_answers)
    for i, j in pairs:
        if j is None:
            result.differences.append(
                difference("missing-request", i + 1, None, None, None,
                           "sent, but the rebuild has no such request",
                           "发出了，重建里没有这次请求")
            )  # fmt: skip
        else:
            result.differences += _request(i + 1, wire[i], rebuilt[j], tally)
    for j in extra:
        result.differences.append(
            difference("extra-request", j + 1, None, None, None,
                       "rebuilt, but never sent", "重建了，却没有发出")
        )  # fmt: skip
    result.unknowable = unknowable(tally)
    if earlier:
        result.unknowable.append(
            Unknowable("earlier", earlier,
                       f"{earlier} requests of the transcript before this wire's first "
                       "(a resumed session: an earlier run sent them)",
                       f"记录文件里比这次线上第一个请求更早的{earlier}次请求"
                       "（会话是恢复的：它们由之前的一次执行发出）")
        )  # fmt: skip
    return result
