"""Scenarios: a YAML file that scripts one session, from the workspace to the model's answers.

A scenario names its prompt, the attachment messages that come with it, a real workspace (files
and set-up commands such as ``git init``), permission rules and scripted decisions, ``max_turns``,
API faults, loop faults (for the doctor) and the model's responses. Loading checks every key; a
mistake is one line naming ``file:line`` and what is wrong.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import Any

from tracer.agent.faults import Faults
from tracer.agent.permissions import ScriptedDecision
from tracer.agent.scripted import ScriptedResponse
from tracer.agent.tools import DEFAULT_TOOLS
from tracer.chapter.scenario_checks import ScenarioChecker
from tracer.chapter.scenario_responses import scripted_response
from tracer.files.yamlfile import YamlMap, load_yaml, plain

TOOL_NAMES = [cls.name for cls in DEFAULT_TOOLS]


@dataclass
class Workspace:
    """What the throwaway workspace holds before the session starts."""

    files: dict[str, str] = field(default_factory=dict)
    setup: list[str] = field(default_factory=list)


@dataclass
class Scenario:
    """One scripted session, as loaded and checked from its YAML file."""

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
    sandbox: bool | None = None
    """``false`` runs Bash and set-up commands without a sandbox; unset or ``true``: in one,
    where the machine has one (the default of every mode)."""
    allow_network: bool = False
    """Let sandboxed commands use the network (off by default)."""

    def put_rules_first(self, allow: list[str], deny: list[str]) -> None:
        """Put the command line's ``--allow``/``--deny`` rules before the scenario's own: a
        deny given there beats the scenario's allow."""
        self.allow = [*allow, *self.allow]
        self.deny = [*deny, *self.deny]


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
    "allow_network",
}


def load_scenario(path: str | Path) -> Scenario:
    """Read and check a scenario file; a mistake is a :class:`~tracer.errors.UserError`."""
    path = Path(path)
    doc = load_yaml(path)
    c = ScenarioChecker(path)
    top = c.mapping(doc, "the scenario", _TOP)
    name = c.get(top, "name", str, "scenario", required=True)
    title = c.text_map(top, "title", "scenario", default={"en": name})
    prompt = c.get(top, "prompt", str, "scenario", required=True)
    responses_node = c.get(top, "responses", list, "scenario", required=True)
    responses = [
        scripted_response(c, r, i, name, responses_node) for i, r in enumerate(responses_node)
    ]

    attachments = []
    for i, att in enumerate(c.get(top, "attachments", list, "scenario", default=[])):
        a = c.mapping(att, f"attachments[{i}]", {"type", "content"}, top, "attachments")
        c.get(a, "type", str, f"attachments[{i}]", required=True)
        attachments.append(plain(a))

    ws = _workspace(c, top)
    allow, deny, decisions = _permissions(c, top)
    faults = _faults(c, top)

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
        sandbox=c.get(top, "sandbox", bool, "scenario"),
        allow_network=c.get(top, "allow_network", bool, "scenario", default=False),
    )


def _workspace(c: ScenarioChecker, top: YamlMap) -> Workspace:
    """The files to write and the set-up commands to run before the session starts."""
    if "workspace" not in top:
        return Workspace()
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
    return Workspace(files=dict(files), setup=c.strings(w, "setup", "workspace"))


def _permissions(
    c: ScenarioChecker, top: YamlMap
) -> tuple[list[str], list[str], list[ScriptedDecision]]:
    """The allow and deny rules, and the user's scripted answers when a call asks."""
    decisions: list[ScriptedDecision] = []
    if "permissions" not in top:
        return [], [], decisions
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
    return allow, deny, decisions


def _faults(c: ScenarioChecker, top: YamlMap) -> Faults:
    """The loop faults: the bugs a fault scenario plants on purpose, for the doctor to find."""
    if "faults" not in top:
        return Faults()
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
    return Faults(
        drop_tool_result=c.strings(f, "drop_tool_result", "faults"),
        rewrite_tool_use_id=plain(c.text_map(f, "rewrite_tool_use_id", "faults", default={})),
        malform_block=_malform_block(c, f),
        force_follow_up=c.get(f, "force_follow_up", bool, "faults", default=False),
        feedback_first=c.get(f, "feedback_first", bool, "faults", default=False),
        send_unpatched=c.get(f, "send_unpatched", bool, "faults", default=False),
    )


def _malform_block(c: ScenarioChecker, f: YamlMap) -> dict[str, dict[str, Any]]:
    """``faults.malform_block``: tool_use id (or ``all``) → ``{remove: [fields], set: {field:
    value}}``, every shape checked here so that a wrong one is a line, not a traceback."""
    blocks = f.get("malform_block", {})
    if not isinstance(blocks, dict):
        raise c.fail(
            "faults.malform_block must be a mapping (tool_use id or all: {remove, set})",
            f,
            "malform_block",
        )
    out: dict[str, dict[str, Any]] = {}
    for tool_use_id, spec in blocks.items():
        where = f"faults.malform_block.{tool_use_id}"
        if not isinstance(tool_use_id, str):
            raise c.fail(
                "faults.malform_block must map tool_use ids to a mapping", f, "malform_block"
            )
        m = c.mapping(spec, where, {"remove", "set"}, blocks, tool_use_id)
        sets = m.get("set", {})
        if not isinstance(sets, dict) or not all(isinstance(name, str) for name in sets):
            raise c.fail(f"{where}.set must be a mapping of field names to values", m, "set")
        out[tool_use_id] = {"remove": c.strings(m, "remove", where), "set": plain(sets)}
    return out


def relative_inside(name: str) -> bool:
    """Is ``name`` a relative path that cannot climb out (no ``..``, not absolute)?"""
    parts = PurePosixPath(name).parts
    return (
        bool(parts) and not name.startswith(("/", "\\")) and ".." not in parts and "\0" not in name
    )
