"""Recording a session: a workspace, the loop, and a trace file, wired together.

This is the edge where the loop meets the world: it makes the throwaway workspace, builds the SDK
seam (scripted or real), and sends every event the loop emits through the
:class:`~tracer.record.recorder.Recorder` to the trace file (and, with ``--debug``, the chapter's
``[DEBUG]`` lines to stderr). Whatever happens, the trace ends with a ``terminal`` event.

It is also where the session is walled in: secrets are redacted by value on their way to the
disk (:mod:`tracer.trace.redact`), commands get an allowlisted environment and, when asked for,
a sandbox (:mod:`tracer.agent.sandbox`), and SIGINT, SIGTERM and SIGHUP all end the session the
same way: tools killed, the ``terminal`` event written, the temporary folders removed, and the
process exits 130, 143 or 129 (:mod:`tracer.interrupts`).
"""

from __future__ import annotations

import contextlib
import functools
import os
import sys
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from tracer import __version__
from tracer.agent.cgroup_cleanup import remove_pending
from tracer.agent.hide_environ import hidden_from_children
from tracer.agent.pids_cgroup import hierarchy
from tracer.agent.processes import become_subreaper, children, kill_orphans
from tracer.agent.sandbox import Sandbox
from tracer.agent.sandbox_choice import NO_SANDBOX_CHOSEN_NOTE, NO_SANDBOX_NOTE, find_sandbox
from tracer.agent.totals import Totals, shown
from tracer.chapter.scenario import Scenario
from tracer.errors import UserError
from tracer.interrupts import Interrupts
from tracer.record.recorder import write_session
from tracer.record.workspace import SessionDirs, prepare_workspace
from tracer.record.workspace_source import copy_source, refuse_source
from tracer.trace.events import Event, Header
from tracer.trace.redact import Redactor
from tracer.trace.secret_values import API_KEY_NAMES


def _header(source: dict[str, Any], dirs: SessionDirs) -> Header:
    return Header(
        created=datetime.now(UTC).isoformat(timespec="seconds").replace("+00:00", "Z"),
        source=source,
        tracer_version=__version__,
        paths={"workspace": str(dirs.workspace), "tool_results": str(dirs.tool_results)},
    )


def record_scenario(
    scenario: Scenario,
    output: Path,
    *,
    debug: bool = False,
    max_turns: int | None = None,
    validator: Any = None,
    also: list[Callable[[Event], Any]] | None = None,
    timeout: float | None = None,
    sandbox: bool | None = None,
    allow_network: bool = False,
    totals: Totals | None = None,
) -> Path:
    """Play a scenario against the scripted model and write its trace to ``output``.

    The scripted API checks each request as the real one does (``tracer.agent.api_rules``), so
    a loop broken on purpose fails the way it would against the real service. A scenario runs
    its commands in the sandbox unless it (``sandbox: false``) or ``sandbox`` says otherwise.
    """
    from tracer.agent.api_rules import validate_request
    from tracer.agent.scripted import ScriptedTransport
    from tracer.agent.session import Session

    validator = validator or validate_request
    totals = totals or Totals()
    wanted = scenario.sandbox if sandbox is None else sandbox
    walls = _walls(wanted, allow_network or scenario.allow_network, totals)
    redact = Redactor.from_environ()

    dirs = SessionDirs.create()
    try:
        with Interrupts() as interrupts, _guarded(redact, walls):
            prepare_workspace(scenario, dirs, sandbox=walls, redact=redact, totals=totals)
            source = {
                "kind": "scenario",
                "name": scenario.name,
                "path": _display(scenario.path),
                "model": "scripted",
                **_sandbox_field(wanted, walls),
            }
            transport = ScriptedTransport(
                scenario.responses, seed=scenario.name, validator=validator
            )
            session = Session.for_scenario(
                scenario,
                dirs,
                transport=transport,
                max_turns=max_turns or scenario.max_turns,
                **({"timeout": timeout} if timeout else {}),
            )
            session.ctx.sandbox, session.ctx.redact, session.ctx.totals = walls, redact, totals
            _run(session, output, _header(source, dirs), debug, also or [], redact, interrupts)
    finally:
        dirs.cleanup()
    interrupts.raise_if_received()
    return output


def record_prompt(
    prompt: str,
    output: Path,
    *,
    model: str,
    debug: bool = False,
    max_turns: int | None = None,
    allow: list[str] | None = None,
    deny: list[str] | None = None,
    workspace_from: Path | None = None,
    timeout: float | None = None,
    sandbox: bool | None = None,
    allow_network: bool = False,
    i_know: bool = False,
    totals: Totals | None = None,
) -> Path:
    """Run a real model on ``prompt`` (``ANTHROPIC_API_KEY``, optional ``ANTHROPIC_BASE_URL``).

    Bash runs in a sandbox by default here: the commands come from a real model.
    """
    from tracer.agent.session import Session

    api_key = os.environ.get("ANTHROPIC_API_KEY")
    if not api_key:
        raise UserError(
            "tracer record --prompt needs ANTHROPIC_API_KEY (or record a --scenario offline)"
        )
    source_dir = (
        refuse_source(workspace_from, i_know=i_know) if workspace_from is not None else None
    )
    wanted = True if sandbox is None else sandbox
    totals = totals or Totals()
    walls = _walls(wanted, allow_network, totals)
    redact = Redactor.from_environ(api_key=api_key)
    dirs = SessionDirs.create()
    try:
        with Interrupts() as interrupts:
            if source_dir is not None:
                copy_source(source_dir, dirs.workspace)
            session = Session.online(
                prompt,
                dirs,
                model=model,
                api_key=api_key,
                base_url=os.environ.get("ANTHROPIC_BASE_URL"),
                max_turns=max_turns,
                allow=allow or [],
                deny=deny or [],
                interactive=sys.stdin.isatty(),
                **({"timeout": timeout} if timeout else {}),
            )
            session.ctx.sandbox, session.ctx.redact, session.ctx.totals = walls, redact, totals
            source = {"kind": "model", "model": model, **_sandbox_field(wanted, walls)}
            # The SDK client holds the key now: out of the environment before any child exists.
            with _guarded(redact, walls):
                _run(session, output, _header(source, dirs), debug, [], redact, interrupts)
    finally:
        dirs.cleanup()
    interrupts.raise_if_received()
    return output


def _walls(wanted: bool | None, allow_network: bool, totals: Totals) -> Sandbox | None:
    """The sandbox to use (the default, unless ``wanted`` is false); says in one line, once
    per process, when there is none and what that gives up, and when the memory total cannot
    be held here (no memory cgroup)."""
    if hierarchy("memory") is None:
        _note_once(
            f"no memory cgroup can be made here: the memory total ({shown(totals.memory_bytes)},"
            " --max-memory) is not held; each process keeps its own address-space limit",
            "limit",
        )
    if wanted is False:
        _note_once(NO_SANDBOX_CHOSEN_NOTE)
        return None
    walls = find_sandbox(allow_network, tmp_bytes=totals.tmp_bytes)
    if walls is None:
        _note_once(NO_SANDBOX_NOTE)
    return walls


@functools.cache
def _note_once(note: str, kind: str = "note") -> None:
    print(f"tracer: {kind}: {note}", file=sys.stderr)


def _sandbox_field(wanted: bool | None, walls: Sandbox | None) -> dict[str, Any]:
    # Only when asked for either way, so that a bundled recording's header does not depend on
    # the machine that made it (bwrap here, none there).
    if wanted is None:
        return {}
    if not wanted:
        return {"sandbox": "off"}
    return {"sandbox": walls.describe() if walls else "none"}


def _guarded(redact: Redactor, walls: Sandbox | None) -> contextlib.AbstractContextManager[None]:
    """The recorder's secrets out of its children's reach (:mod:`tracer.agent.hide_environ`):
    gone from its environment, and, without a sandbox to hide it, the recorder not dumpable."""
    return hidden_from_children(redact.names() | set(API_KEY_NAMES), undumpable=walls is None)


def _run(
    session: Any,
    output: Path,
    header: Header,
    debug: bool,
    also: list[Callable[[Event], Any]],
    redact: Redactor,
    interrupts: Interrupts,
) -> None:
    become_subreaper()  # escaped children of a command come back to us, to be killed
    before = children()
    try:
        write_session(session, output, header, debug, also, redact, interrupts)
    finally:
        kill_orphans(before)
        remove_pending()  # a command's cgroup that a zombie kept busy, reaped by now


def _display(path: Path) -> str:
    """A path as the user would type it: relative to the current directory when inside it."""
    try:
        return str(path.resolve().relative_to(Path.cwd().resolve()))
    except ValueError:
        return str(path)


__all__ = [
    "record_prompt",
    "record_scenario",
]
