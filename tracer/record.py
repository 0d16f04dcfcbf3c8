"""Recording a session: a workspace, the loop, and a trace file, wired together.

This is the edge where the loop meets the world: it makes the throwaway workspace, builds the SDK
seam (scripted or real), sends every event the loop emits to the :class:`TraceWriter` (and, with
``--debug``, the chapter's ``[DEBUG]`` lines to stderr), and keeps a copy of every persisted
oversized result beside the trace. Whatever happens, the trace ends with a ``terminal`` event.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, TextIO

from tracer import __version__
from tracer.errors import UserError
from tracer.scenario import Scenario
from tracer.trace.events import DebugHook, Event, Header, ResultMapped, SessionEnded
from tracer.trace.writer import TraceWriter

#: Fixed identity and clock for set-up commands, so git hashes are the same on every run.
DETERMINISTIC_ENV = {
    "GIT_AUTHOR_NAME": "tracer",
    "GIT_AUTHOR_EMAIL": "tracer@example.invalid",
    "GIT_COMMITTER_NAME": "tracer",
    "GIT_COMMITTER_EMAIL": "tracer@example.invalid",
    "GIT_AUTHOR_DATE": "2026-05-15T09:00:00+00:00",
    "GIT_COMMITTER_DATE": "2026-05-15T09:00:00+00:00",
    "GIT_CONFIG_NOSYSTEM": "1",
    "LANG": "C.UTF-8",
    "LC_ALL": "C.UTF-8",
    "TZ": "UTC",
    "TERM": "dumb",
    "NO_COLOR": "1",
}


@dataclass
class SessionDirs:
    """A session's temporary home: ``workspace/`` (tools run here) and ``tool-results/``."""

    root: Path

    @classmethod
    def create(cls) -> SessionDirs:
        # A fixed parent keeps path lengths equal from run to run, so request sizes match too.
        base = "/tmp" if os.path.isdir("/tmp") else None
        root = Path(tempfile.mkdtemp(prefix="tracer-", dir=base))
        (root / "workspace").mkdir()
        (root / "home").mkdir()
        return cls(root)

    @property
    def workspace(self) -> Path:
        return self.root / "workspace"

    @property
    def tool_results(self) -> Path:
        return self.root / "tool-results"

    @property
    def env(self) -> dict[str, str]:
        return {**DETERMINISTIC_ENV, "HOME": str(self.root / "home")}

    def cleanup(self) -> None:
        shutil.rmtree(self.root, ignore_errors=True)


def prepare_workspace(scenario: Scenario, dirs: SessionDirs) -> None:
    """Write the scenario's files and run its set-up commands for real."""
    for name, content in scenario.workspace.files.items():
        target = dirs.workspace / name
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(content, encoding="utf-8")
    for command in scenario.workspace.setup:
        proc = subprocess.run(
            ["bash", "-c", command],
            cwd=dirs.workspace,
            env={**os.environ, **dirs.env},
            capture_output=True,
            text=True,
            check=False,
        )
        if proc.returncode != 0:
            detail = (proc.stderr or proc.stdout).strip().splitlines()
            raise UserError(
                f"workspace set-up command failed ({command!r}): "
                f"{detail[-1] if detail else f'exit {proc.returncode}'}",
                scenario.path,
            )


@dataclass
class Recorder:
    """The ``emit`` callback of a recording: writes, echoes hooks, keeps persisted files."""

    writer: TraceWriter
    debug_stream: TextIO | None = None
    also: list[Callable[[Event], Any]] = field(default_factory=list)
    ended: bool = False

    def __call__(self, event: Event) -> Event:
        if isinstance(event, ResultMapped) and event.persisted:
            event = replace(event, persisted=self._keep(event.persisted))
        stamped = self.writer.write(event)
        if isinstance(event, DebugHook) and self.debug_stream is not None:
            print(event.line, file=self.debug_stream, flush=True)
        if isinstance(event, SessionEnded):
            self.ended = True
        for callback in self.also:
            callback(stamped)
        return stamped

    def _keep(self, persisted: dict[str, Any]) -> dict[str, Any]:
        source = Path(persisted["path"])
        folder = self.writer.path.with_name(self.writer.path.stem + ".tool-results")
        folder.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(source, folder / source.name)
        return {**persisted, "saved": f"{folder.name}/{source.name}"}


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
) -> Path:
    """Play a scenario against the scripted model and write its trace to ``output``.

    The scripted API checks each request as the real one does (``tracer.agent.api_rules``), so
    a loop broken on purpose fails the way it would against the real service.
    """
    from tracer.agent.api_rules import validate_request
    from tracer.agent.scripted import ScriptedTransport
    from tracer.agent.session import Session

    validator = validator or validate_request

    dirs = SessionDirs.create()
    try:
        prepare_workspace(scenario, dirs)
        source = {
            "kind": "scenario",
            "name": scenario.name,
            "path": _display(scenario.path),
            "model": "scripted",
        }
        transport = ScriptedTransport(scenario.responses, seed=scenario.name, validator=validator)
        session = Session.for_scenario(
            scenario, dirs, transport=transport, max_turns=max_turns or scenario.max_turns
        )
        _run(session, output, _header(source, dirs), debug, also or [])
    finally:
        dirs.cleanup()
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
) -> Path:
    """Run a real model on ``prompt`` (``ANTHROPIC_API_KEY``, optional ``ANTHROPIC_BASE_URL``)."""
    from tracer.agent.session import Session

    api_key = os.environ.get("ANTHROPIC_API_KEY")
    if not api_key:
        raise UserError(
            "tracer record --prompt needs ANTHROPIC_API_KEY (or record a --scenario offline)"
        )
    dirs = SessionDirs.create()
    try:
        if workspace_from is not None:
            if not workspace_from.is_dir():
                raise UserError("not a directory", workspace_from)
            shutil.copytree(workspace_from, dirs.workspace, dirs_exist_ok=True, symlinks=True)
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
        )
        source = {"kind": "model", "model": model}
        _run(session, output, _header(source, dirs), debug, [])
    finally:
        dirs.cleanup()
    return output


def _run(
    session: Any, output: Path, header: Header, debug: bool, also: list[Callable[[Event], Any]]
) -> None:
    with TraceWriter(output, header) as writer:
        recorder = Recorder(writer, sys.stderr if debug else None, also)
        try:
            recorder(session.start_event())
            session.run(recorder)
        except KeyboardInterrupt:
            if not recorder.ended:
                recorder(
                    SessionEnded(
                        reason="aborted_streaming",
                        turn_count=session.turn,
                        message_count=session.message_count,
                        error="interrupted by the user (Ctrl-C)",
                    )
                )
        except Exception as exc:
            # A bug of ours must still leave a trace that ends validly; then let it surface.
            if not recorder.ended:
                recorder(
                    SessionEnded(
                        reason="model_error",
                        turn_count=session.turn,
                        message_count=session.message_count,
                        error=f"tracer failed: {type(exc).__name__}: {exc}",
                    )
                )
            raise


def _display(path: Path) -> str:
    """A path as the user would type it: relative to the current directory when inside it."""
    try:
        return str(path.resolve().relative_to(Path.cwd().resolve()))
    except ValueError:
        return str(path)


__all__ = ["SessionDirs", "record_prompt", "record_scenario"]
