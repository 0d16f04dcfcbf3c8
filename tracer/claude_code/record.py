"""``tracer record --claude-code``: play a scenario (or a prompt) to the real Claude Code.

The scenario's workspace is prepared as tracer's own recorder prepares it
(:func:`~tracer.record.workspace.prepare_workspace`); a loopback server plays its scripted answers
(:mod:`.server`), ``claude`` runs headless in the workspace with the scenario's allow rules as
``--allowedTools`` (:mod:`.launch`), and every exchange becomes the trace as it happens
(:mod:`.live`). Claude Code's own transcript, from its scratch config folder, is kept beside the
trace (``NAME.claude-code.jsonl``) so that ``tracer import claude-code`` of it can be held
against the wire. The session itself, the same for every mode, is :mod:`.session`.

One rule is added to the scenario's: Claude Code checks the paths a Bash command writes on top
of the command's own rule (``src/tools/BashTool/pathValidation.ts``: a write in the working
folder needs ``acceptEdits`` or an ``Edit`` rule), and tracer's scenarios know no such second
check. ``Edit(//WORKSPACE/**)`` stands for "a Bash rule the scenario allows may write in the
workspace"; it is added only when the scenario allows some ``Bash(…)`` rule.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tracer.chapter.scenario import Scenario
from tracer.claude_code.launch import find_claude
from tracer.claude_code.session import (
    SESSION_TIMEOUT_S,
    checked_version,
    run_session,
    transcript_path,
    walls_for,
)
from tracer.errors import UserError
from tracer.record.workspace import SessionDirs, prepare_workspace
from tracer.record.workspace_source import copy_source, refuse_source
from tracer.trace.redact import Redactor

__all__ = [
    "record_prompt_claude_code",
    "record_resumed_claude_code",
    "record_scenario_claude_code",
    "scenario_rules",
]


def scenario_rules(scenario: Scenario, workspace: Path) -> list[str]:
    """The scenario's allow rules, plus the workspace's Edit rule when a Bash rule is allowed."""
    rules = list(scenario.allow)
    if any(rule.startswith("Bash(") for rule in rules):
        rules.append(f"Edit(/{workspace}/**)")
    return rules


def record_scenario_claude_code(
    scenario: Scenario,
    output: Path,
    *,
    claude: str | Path | None = None,
    sandbox: bool | None = None,
    timeout: float | None = None,
    strip_prose: bool = False,
) -> Path:
    """Play ``scenario`` to the real Claude Code; write its trace to ``output`` (with
    ``strip_prose``, Claude Code's own text kept only as its size and hash: :mod:`.prose`)."""
    from tracer.agent.api_rules import validate_request
    from tracer.agent.script_clock import WallClock
    from tracer.agent.scripted import ScriptedTransport
    from tracer.claude_code.server import ScriptedBackend

    program = find_claude(claude)
    version = checked_version(program)
    walls = walls_for(scenario.sandbox if sandbox is None else sandbox)
    redact = Redactor.from_environ()
    dirs = SessionDirs.create()
    try:
        prepare_workspace(scenario, dirs, sandbox=walls, redact=redact)
        # A real program waits on the other end of the socket: scripted silence is real silence.
        transport = ScriptedTransport(
            scenario.responses, seed=scenario.name, validator=validate_request, clock=WallClock()
        )
        source = {
            "path": f"{scenario.name} (played to claude {version})",
            "version": version,
            "claude_code": {"scenario": scenario.name, "transcript": transcript_path(output).name},
        }
        run_session(
            dirs,
            ScriptedBackend(transport),
            output,
            source,
            prompt=scenario.prompt,
            model=scenario.model,
            allowed=scenario_rules(scenario, dirs.workspace),
            denied=list(scenario.deny),
            max_turns=scenario.max_turns,
            program=program,
            walls=walls,
            redact=redact,
            timeout=timeout or SESSION_TIMEOUT_S,
            strip_prose=strip_prose,
        )
    finally:
        dirs.cleanup()
    return output


def record_prompt_claude_code(
    prompt: str,
    output: Path,
    *,
    claude: str | Path | None = None,
    model: str | None = None,
    allow: list[str] | None = None,
    deny: list[str] | None = None,
    workspace_from: Path | None = None,
    i_know: bool = False,
    sandbox: bool | None = None,
    timeout: float | None = None,
    strip_prose: bool = False,
) -> Path:
    """Run the real Claude Code on ``prompt`` against the real API, through a loopback proxy
    (:mod:`.proxy`) that writes the trace as the session goes. Needs ``ANTHROPIC_API_KEY``; the
    key goes upstream from the proxy, never to ``claude`` or the trace."""
    import os

    from tracer.claude_code.proxy import DEFAULT_UPSTREAM, ProxyBackend

    api_key = os.environ.get("ANTHROPIC_API_KEY")
    if not api_key:
        raise UserError("tracer record --claude-code --prompt needs ANTHROPIC_API_KEY")
    source_dir = refuse_source(workspace_from, i_know=i_know) if workspace_from else None
    program = find_claude(claude)
    version = checked_version(program)
    walls = walls_for(sandbox)
    redact = Redactor.from_environ(api_key=api_key)
    upstream = os.environ.get("ANTHROPIC_BASE_URL") or DEFAULT_UPSTREAM
    backend = ProxyBackend(upstream, api_key)
    dirs = SessionDirs.create()
    try:
        if source_dir is not None:
            copy_source(source_dir, dirs.workspace)
        source = {
            "path": f"claude {version} through tracer's proxy",
            "version": version,
            "claude_code": {"prompt": True, "transcript": transcript_path(output).name},
        }
        run_session(
            dirs,
            backend,
            output,
            source,
            prompt=prompt,
            model=model,
            allowed=list(allow or []),
            denied=list(deny or []),
            program=program,
            walls=walls,
            redact=redact,
            timeout=timeout or SESSION_TIMEOUT_S,
            strip_prose=strip_prose,
        )
    finally:
        backend.close()
        dirs.cleanup()
    return output


def record_resumed_claude_code(
    scenario: Scenario,
    records: list[dict[str, Any]],
    output: Path,
    *,
    prompt: str = "go on",
    claude: str | Path | None = None,
    timeout: float | None = None,
) -> Path:
    """Resume the session ``records`` (a transcript, damaged as a fault damages it) in the
    scenario's workspace with ``prompt``; the scenario's responses answer what it sends next."""
    from tracer.agent.script_clock import WallClock
    from tracer.agent.scripted import ScriptedTransport
    from tracer.claude_code.server import ScriptedBackend

    program = find_claude(claude)
    version = checked_version(program)
    walls = walls_for(scenario.sandbox)
    redact = Redactor.from_environ()
    dirs = SessionDirs.create()
    try:
        prepare_workspace(scenario, dirs, sandbox=walls, redact=redact)
        source = {
            "path": f"{scenario.name} resumed in claude {version}",
            "version": version,
            "claude_code": {"scenario": scenario.name, "resumed": True},
        }
        run_session(
            dirs,
            # A seed of its own: with the first run's, the resumed answers would reuse its
            # message ids, which the API never does (and an import then joins the two as one).
            ScriptedBackend(
                ScriptedTransport(
                    scenario.responses, seed=f"{scenario.name} resumed", clock=WallClock()
                )
            ),
            output,
            source,
            prompt=prompt,
            model=scenario.model,
            allowed=scenario_rules(scenario, dirs.workspace),
            denied=list(scenario.deny),
            program=program,
            walls=walls,
            redact=redact,
            timeout=timeout or SESSION_TIMEOUT_S,
            resume=records,
        )
    finally:
        dirs.cleanup()
    return output
