"""Scenarios: a YAML file that scripts one session, from the workspace to the model's answers.

A scenario names its prompt, the attachment messages that come with it, a real workspace (files
and set-up commands such as ``git init``), permission rules and scripted decisions, ``max_turns``,
API faults, loop faults (for the doctor) and the model's responses. Loading checks every key; a
mistake is one line naming ``file:line`` and what is wrong.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tracer.agent.faults import Faults
from tracer.agent.permissions import ScriptedDecision
from tracer.agent.scripted import ScriptedResponse
from tracer.agent.scripted_faults import FAULT_KINDS, fault_problem
from tracer.agent.tools import DEFAULT_TOOLS
from tracer.errors import UserError
from tracer.workspace import relative_inside
from tracer.yamlfile import YamlMap, YamlSeq, line_of, load_yaml, plain

TOOL_NAMES = [cls.name for cls in DEFAULT_TOOLS]


@dataclass
class Workspace:
    files: dict[str, str] = field(default_factory=dict)
    setup: list[str] = field(default_factory=list)


@dataclass
class Scenario:
    path: Path
    name: str
    title: dict[str, str]
    prompt: str
    responses: list[ScriptedResponse]
    attachments: list[dict[str, Any]] = field(default_factory=list)
    workspace: Workspace = field(default_factory=Workspace)
    allow: list[str] = field(default_factory=list)
    deny: list[str] = field(default_factory=list)
    decisions: list[ScriptedDecision] = field(default_factory=list)
    max_turns: int | None = None
    faults: Faults = field(default_factory=Faults)
    tools: list[str] = field(default_factory=lambda: list(TOOL_NAMES))
    model: str = "claude-sonnet-5-5"
    system: str | None = None
    section: str | None = None
    notes: dict[str, str] = field(default_factory=dict)
    sandbox: bool = False
    """Run Bash and set-up commands in a sandbox (``record --prompt`` always does by default)."""


class _Checker:
    """Reads typed values out of a parsed mapping, failing with ``file:line``."""

    def __init__(self, path: Path) -> None:
        self.path = path

    def fail(self, message: str, node: Any, key: str | None = None) -> UserError:
        return UserError(message, self.path, line_of(node, key))

    def mapping(
        self, node: Any, where: str, allowed: set[str], parent: Any = None, key: str | None = None
    ) -> YamlMap:
        if not isinstance(node, YamlMap):
            raise self.fail(
                f"{where} must be a mapping", parent if parent is not None else node, key
            )
        for name in node:
            if name not in allowed:
                raise self.fail(
                    f"unknown key '{name}' in {where} (allowed: {', '.join(sorted(allowed))})",
                    node,
                    name,
                )
        return node

    def get(
        self,
        node: YamlMap,
        key: str,
        types: type | tuple[type, ...],
        where: str,
        required: bool = False,
        default: Any = None,
    ) -> Any:
        if key not in node:
            if required:
                raise self.fail(f"{where} needs '{key}'", node)
            return default
        value = node[key]
        if not isinstance(value, types) or (
            isinstance(value, bool)
            and bool not in (types if isinstance(types, tuple) else (types,))
        ):
            names = "/".join(t.__name__ for t in (types if isinstance(types, tuple) else (types,)))
            raise self.fail(f"{where}.{key} must be {names}, not {type(value).__name__}", node, key)
        return value

    def text_map(self, node: YamlMap, key: str, where: str, default: Any = None) -> Any:
        """A mapping of strings to strings (a title, notes, a rename table)."""
        value = self.get(node, key, dict, where, default=default)
        for name, text in (value or {}).items():
            if not isinstance(name, str) or not isinstance(text, str):
                raise self.fail(f"{where}.{key} must map strings to strings", node, key)
        return value

    def strings(self, node: YamlMap, key: str, where: str) -> list[str]:
        values = self.get(node, key, list, where, default=[])
        for value in values:
            if not isinstance(value, str):
                raise self.fail(f"{where}.{key} must list strings", node, key)
        return list(values)


_TOP = {
    "name",
    "title",
    "section",
    "notes",
    "prompt",
    "attachments",
    "workspace",
    "permissions",
    "max_turns",
    "faults",
    "responses",
    "tools",
    "model",
    "system",
    "sandbox",
}
_RESPONSE = {"thinking", "text", "tool_use", "blocks", "stop_reason", "faults", "after_text"}


def _stable_tool_id(scenario: str, response: int, block: int) -> str:
    digest = hashlib.sha256(f"{scenario}:{response}:{block}".encode()).hexdigest()
    return f"toolu_01{digest[:22]}"


def _response(
    c: _Checker, node: Any, index: int, scenario: str, parent: YamlSeq
) -> ScriptedResponse:
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


def load_scenario(path: str | Path) -> Scenario:
    path = Path(path)
    doc = load_yaml(path)
    c = _Checker(path)
    top = c.mapping(doc, "the scenario", _TOP)
    name = c.get(top, "name", str, "scenario", required=True)
    title = c.text_map(top, "title", "scenario", default={"en": name})
    prompt = c.get(top, "prompt", str, "scenario", required=True)
    responses_node = c.get(top, "responses", list, "scenario", required=True)
    responses = [_response(c, r, i, name, responses_node) for i, r in enumerate(responses_node)]

    attachments = []
    for i, att in enumerate(c.get(top, "attachments", list, "scenario", default=[])):
        a = c.mapping(att, f"attachments[{i}]", {"type", "content"}, top, "attachments")
        c.get(a, "type", str, f"attachments[{i}]", required=True)
        attachments.append(plain(a))

    ws = Workspace()
    if "workspace" in top:
        w = c.mapping(top["workspace"], "workspace", {"files", "setup"}, top, "workspace")
        files = c.get(w, "files", dict, "workspace", default={})
        for fname, content in files.items():
            if not isinstance(fname, str) or not isinstance(content, str):
                raise c.fail(f"workspace.files.{fname} must be a string", files, fname)
            if not isinstance(fname, str) or not relative_inside(fname):
                raise c.fail(
                    f"workspace.files.{fname} must be a relative path inside the workspace",
                    files,
                    fname,
                )
        ws = Workspace(files=dict(files), setup=c.strings(w, "setup", "workspace"))

    allow: list[str] = []
    deny: list[str] = []
    decisions: list[ScriptedDecision] = []
    if "permissions" in top:
        p = c.mapping(
            top["permissions"], "permissions", {"allow", "deny", "decisions"}, top, "permissions"
        )
        allow, deny = c.strings(p, "allow", "permissions"), c.strings(p, "deny", "permissions")
        for i, d in enumerate(c.get(p, "decisions", list, "permissions", default=[])):
            where = f"permissions.decisions[{i}]"
            dm = c.mapping(d, where, {"rule", "decision", "feedback"}, p, "decisions")
            decision = c.get(dm, "decision", str, where, required=True)
            if decision not in ("approve", "reject"):
                raise c.fail(f"{where}.decision must be approve or reject", dm, "decision")
            decisions.append(
                ScriptedDecision(
                    decision, c.get(dm, "rule", str, where), c.get(dm, "feedback", str, where)
                )
            )

    faults = Faults()
    if "faults" in top:
        f = c.mapping(
            top["faults"],
            "faults",
            {
                "drop_tool_result",
                "rewrite_tool_use_id",
                "malform_block",
                "force_follow_up",
                "feedback_first",
                "send_unpatched",
            },
            top,
            "faults",
        )
        faults = Faults(
            drop_tool_result=c.strings(f, "drop_tool_result", "faults"),
            rewrite_tool_use_id=plain(c.text_map(f, "rewrite_tool_use_id", "faults", default={})),
            malform_block=plain(c.get(f, "malform_block", dict, "faults", default={})),
            force_follow_up=c.get(f, "force_follow_up", bool, "faults", default=False),
            feedback_first=c.get(f, "feedback_first", bool, "faults", default=False),
            send_unpatched=c.get(f, "send_unpatched", bool, "faults", default=False),
        )

    max_turns = c.get(top, "max_turns", int, "scenario")
    if max_turns is not None and max_turns < 1:
        raise c.fail("max_turns must be at least 1", top, "max_turns")
    tools = c.strings(top, "tools", "scenario") or list(TOOL_NAMES)
    for tool in tools:
        if tool not in TOOL_NAMES:
            raise c.fail(f"unknown tool '{tool}' (known: {', '.join(TOOL_NAMES)})", top, "tools")
    return Scenario(
        path=path,
        name=name,
        title=plain(title),
        prompt=prompt,
        responses=responses,
        attachments=attachments,
        workspace=ws,
        allow=allow,
        deny=deny,
        decisions=decisions,
        max_turns=max_turns,
        faults=faults,
        tools=tools,
        model=c.get(top, "model", str, "scenario", default="claude-sonnet-5-5"),
        system=c.get(top, "system", str, "scenario"),
        section=c.get(top, "section", str, "scenario"),
        notes=plain(c.text_map(top, "notes", "scenario", default={})),
        sandbox=c.get(top, "sandbox", bool, "scenario", default=False),
    )
