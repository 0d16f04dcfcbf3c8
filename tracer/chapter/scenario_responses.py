"""A scenario's scripted answers: what the model says, block by block, on each turn.

Each entry of a scenario's ``responses`` is one answer of the scripted model, played by
:class:`~tracer.agent.scripted.ScriptedTransport` as the API's own event stream. It is written
either as whole ``blocks`` or in short form: ``thinking``, ``text``, ``tool_use`` calls and
``after_text``, which become blocks in that order (a response of thinking, text and one call is
three content blocks, and so three internal assistant messages). A ``tool_use`` without an
``id`` gets a stable one, ``toolu_01`` and a hash of the scenario's name and the block's place,
so a recording is the same every time; a thinking block gets a stable signature the same way.
``faults`` are the API faults of that answer (:mod:`tracer.agent.scripted_faults`).
"""

from __future__ import annotations

import hashlib
from typing import Any

from tracer.agent.scripted import ScriptedResponse
from tracer.agent.scripted_faults import FAULT_KINDS, fault_problem
from tracer.chapter.scenario_checks import ScenarioChecker
from tracer.files.yamlfile import YamlSeq, plain

_RESPONSE = {"thinking", "text", "tool_use", "blocks", "stop_reason", "faults", "after_text"}


def _stable_tool_id(scenario: str, response: int, block: int) -> str:
    digest = hashlib.sha256(f"{scenario}:{response}:{block}".encode()).hexdigest()
    return f"toolu_01{digest[:22]}"


def scripted_response(
    c: ScenarioChecker, node: Any, index: int, scenario: str, parent: YamlSeq
) -> ScriptedResponse:
    """Response ``index`` of ``scenario``, checked, with every block spelled out."""
    where = f"responses[{index}]"
    m = c.mapping(node, where, _RESPONSE, parent)
    blocks: list[dict[str, Any]] = []
    if "blocks" in m:
        for i, block in enumerate(c.get(m, "blocks", list, where)):
            b = c.mapping(
                block,
                f"{where}.blocks[{i}]",
                {"type", "thinking", "text", "name", "input", "id", "signature"},
                m,
                "blocks",
            )
            for name in ("type", "thinking", "text", "name", "id", "signature"):
                c.get(b, name, str, f"{where}.blocks[{i}]")
            blocks.append(plain(b))
    else:
        if "thinking" in m:
            thinking = c.get(m, "thinking", str, where)
            signature = hashlib.sha256(thinking.encode()).hexdigest()[:32]
            blocks.append({"type": "thinking", "thinking": thinking, "signature": signature})
        if "text" in m:
            blocks.append({"type": "text", "text": c.get(m, "text", str, where)})
        for i, use in enumerate(c.get(m, "tool_use", list, where, default=[])):
            u = c.mapping(use, f"{where}.tool_use[{i}]", {"name", "input", "id"}, m, "tool_use")
            name = c.get(u, "name", str, f"{where}.tool_use[{i}]", required=True)
            blocks.append(
                {
                    "type": "tool_use",
                    "id": c.get(u, "id", str, f"{where}.tool_use[{i}]") or "",
                    "name": name,
                    "input": plain(u.get("input", {})),
                }
            )
        if "after_text" in m:
            blocks.append({"type": "text", "text": c.get(m, "after_text", str, where)})
    for i, block in enumerate(blocks):
        kind = block.get("type")
        if kind not in ("thinking", "text", "tool_use"):
            raise c.fail(f"{where}: block type must be thinking, text or tool_use, not {kind!r}", m)
        if kind == "tool_use" and not block.get("id"):
            block["id"] = _stable_tool_id(scenario, index, i)
    if not blocks:
        raise c.fail(f"{where} has no blocks (give text, thinking, tool_use or blocks)", m)
    faults = []
    for fault in c.get(m, "faults", list, where, default=[]):
        f = c.mapping(fault, f"{where}.faults", set(FAULT_KINDS), m, "faults")
        if problem := fault_problem(dict(f)):
            raise c.fail(f"{where}.faults: {problem}", f)
        faults.append(dict(f))
    return ScriptedResponse(
        blocks=blocks, stop_reason=c.get(m, "stop_reason", str, where), faults=faults
    )
