"""``tracer record --claude-code``: play a scenario (or a prompt) to the real Claude Code.

The scenario's workspace is prepared as tracer's own recorder prepares it
(:func:`~tracer.workspace.prepare_workspace`); a loopback server plays its scripted answers
(:mod:`.server`), ``claude`` runs headless in the workspace with the scenario's allow rules as
``--allowedTools`` (:mod:`.launch`), and every exchange becomes the trace as it happens
(:mod:`.live`). Claude Code's own transcript, from its scratch config folder, is kept beside the
trace (``NAME.claude-code.jsonl``) so that ``tracer import claude-code`` of it can be held
against the wire.

One rule is added to the scenario's: Claude Code checks the paths a Bash command writes on top
of the command's own rule (``src/tools/BashTool/pathValidation.ts``: a write in the working
folder needs ``acceptEdits`` or an ``Edit`` rule), and tracer's scenarios know no such second
check. ``Edit(//WORKSPACE/**)`` stands for "a Bash rule the scenario allows may write in the
workspace"; it is added only when the scenario allows some ``Bash(…)`` rule.
"""

from __future__ import annotations

import functools
import shutil
import sys
from pathlib import Path
from typing import Any

from tracer.agent.sandbox import NO_SANDBOX_CHOSEN_NOTE, NO_SANDBOX_NOTE, Sandbox, find_sandbox
from tracer.claude_code.capture import Capture
from tracer.claude_code.launch import (
    claude_argv,
    claude_environ,
    claude_version,
    find_claude,
    version_warning,
    walled,
)
from tracer.claude_code.live import LiveTrace, claude_ending, no_loop_error
from tracer.claude_code.prose import strip_lines, strip_trace
from tracer.claude_code.resume import plant
from tracer.claude_code.transcript import keep_saved_outputs, keep_transcript
from tracer.errors import UserError
from tracer.interrupts import Interrupts, SessionInterrupted
from tracer.scenario import Scenario
from tracer.trace.redact import Redactor
from tracer.workspace import SessionDirs, copy_source, prepare_workspace, refuse_source

#: The longest a whole Claude Code session may run (a scripted one takes seconds).
SESSION_TIMEOUT_S = 600.0


def transcript_path(output: Path) -> Path:
    """Where Claude Code's own transcript is kept: ``NAME.claude-code.jsonl`` beside the trace."""
    stem = output.name.removesuffix(".jsonl").removesuffix(".trace")
    return output.with_name(f"{stem}.claude-code.jsonl")


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
    from tracer.agent.scripted import ScriptedTransport
    from tracer.claude_code.server import ScriptedBackend

    program = find_claude(claude)
    version = _checked_version(program)
    walls = _walls(scenario.sandbox if sandbox is None else sandbox)
    redact = Redactor.from_environ()
    dirs = SessionDirs.create()
    try:
        prepare_workspace(scenario, dirs, sandbox=walls, redact=redact)
        transport = ScriptedTransport(
            scenario.responses, seed=scenario.name, validator=validate_request
        )
        source = {
            "path": f"{scenario.name} (played to claude {version})",
            "version": version,
            "claude_code": {"scenario": scenario.name, "transcript": transcript_path(output).name},
        }
        _session(
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
    version = _checked_version(program)
    walls = _walls(sandbox)
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
        _session(
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
    from tracer.agent.scripted import ScriptedTransport
    from tracer.claude_code.server import ScriptedBackend

    program = find_claude(claude)
    version = _checked_version(program)
    walls = _walls(scenario.sandbox)
    redact = Redactor.from_environ()
    dirs = SessionDirs.create()
    try:
        prepare_workspace(scenario, dirs, sandbox=walls, redact=redact)
        source = {
            "path": f"{scenario.name} resumed in claude {version}",
            "version": version,
            "claude_code": {"scenario": scenario.name, "resumed": True},
        }
        _session(
            dirs,
            ScriptedBackend(ScriptedTransport(scenario.responses, seed=scenario.name)),
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


def _session(
    dirs: SessionDirs,
    backend: Any,
    output: Path,
    source: dict[str, Any],
    *,
    prompt: str,
    model: str | None,
    allowed: list[str],
    denied: list[str],
    max_turns: int | None = None,
    program: Path,
    walls: Sandbox | None,
    redact: Redactor,
    timeout: float,
    strip_prose: bool = False,
    resume: list[dict[str, Any]] | None = None,
) -> None:
    """Serve ``backend`` on loopback, run ``claude`` against it, write the trace as it goes
    (with ``resume``, the transcript records it resumes: :mod:`.resume`)."""
    from tracer.agent.processes import run_command
    from tracer.claude_code.server import WireServer, session_token

    config = dirs.root / "claude-config"
    config.mkdir()
    resumed = plant(config, dirs.workspace, resume) if resume else None
    live = LiveTrace(output, source)
    capture = Capture(dirs.root / "wire.jsonl", redact, on_pair=live.update)
    done, stopped = None, None
    try:
        token = session_token()  # claude's key: the only one the server takes
        with WireServer(backend, capture, token) as server, Interrupts() as interrupts:
            argv = claude_argv(
                Path(shutil.which(str(program)) or program).resolve(),
                prompt,
                model=model,
                allowed=allowed,
                denied=denied,
                max_turns=max_turns,
            ) + (["--resume", resumed] if resumed else [])
            env = claude_environ(dirs.workspace, config, server.url, token)
            with walled(argv, dirs.workspace, config, walls, program) as (full, fds):
                # A stop signal kills claude's whole process group here (run_command's finally).
                done = run_command(full, cwd=dirs.workspace, env=env, timeout=timeout, pass_fds=fds)
            interrupts.raise_if_received()
    except SessionInterrupted as stop:
        stopped = stop
    finally:
        capture.close()
        cut = (
            f"recording stopped by {stopped.name}: claude was killed"
            if stopped
            else f"claude still ran after {timeout:g} s and was killed"
            if done is not None and done.timed_out
            else None
        )
        requests = live.close(
            capture.pairs, ending=claude_ending(done.stdout) if done else None, cut=cut
        )
    kept = keep_transcript(config, transcript_path(output), redact)
    if strip_prose:
        if output.exists():
            strip_trace(output)
        if kept is not None:
            strip_lines(kept)
    saved = transcript_path(output).with_suffix(".tool-results")
    shutil.rmtree(saved, ignore_errors=True)  # a recording made again: only this run's files
    keep_saved_outputs(config, saved, redact)
    if stopped is not None:
        raise stopped
    if requests == 0 and done is not None:
        output.unlink(missing_ok=True)
        raise no_loop_error(redact((done.stderr or done.stdout).decode("utf-8", "replace")))
    if cut:
        print(f"tracer: note: {cut}", file=sys.stderr)


@functools.cache  # said once, however many scenarios --all plays
def _checked_version(program: Path) -> str:
    version = claude_version(program)
    if warning := version_warning(version):
        print(warning, file=sys.stderr)
    return version or "unknown"


def _walls(wanted: bool | None) -> Sandbox | None:
    if wanted is False:
        _note_once(NO_SANDBOX_CHOSEN_NOTE)
        return None
    walls = find_sandbox(True)
    if walls is None:
        _note_once(NO_SANDBOX_NOTE)
    return walls


@functools.cache  # said once, however many scenarios --all plays
def _note_once(note: str) -> None:
    print(f"tracer: note: {note}", file=sys.stderr)
