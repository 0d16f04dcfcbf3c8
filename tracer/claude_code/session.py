"""One recorded Claude Code session: the loopback server up, ``claude`` run against it, the
trace written as it goes, the transcript and saved outputs kept, and the ending said.

:mod:`tracer.claude_code.record` prepares what differs (a scenario's workspace and script, a
prompt's proxy, a resumed transcript) and hands over here; a stop signal kills ``claude`` and
its commands and still ends the trace (:mod:`tracer.interrupts`), the time limit likewise.
"""

from __future__ import annotations

import contextlib
import functools
import shutil
import sys
from pathlib import Path
from typing import Any

from tracer.agent.sandbox import Sandbox
from tracer.agent.sandbox_choice import NO_SANDBOX_CHOSEN_NOTE, NO_SANDBOX_NOTE, find_sandbox
from tracer.claude_code.bridge import ApiLink
from tracer.claude_code.capture import Capture
from tracer.claude_code.launch import (
    claude_argv,
    claude_environ,
    claude_version,
    version_warning,
    walled,
)
from tracer.claude_code.live import LiveTrace, claude_ending, no_loop_error
from tracer.claude_code.prose import strip_lines, strip_trace
from tracer.claude_code.resume import plant
from tracer.claude_code.transcript import keep_saved_outputs, keep_transcript
from tracer.interrupts import Interrupts, SessionInterrupted
from tracer.record.workspace import SessionDirs
from tracer.trace.redact import Redactor

#: The longest a whole Claude Code session may run (a scripted one takes seconds).
SESSION_TIMEOUT_S = 600.0


def transcript_path(output: Path) -> Path:
    """Where Claude Code's own transcript is kept: ``NAME.claude-code.jsonl`` beside the trace."""
    stem = output.name.removesuffix(".jsonl").removesuffix(".trace")
    return output.with_name(f"{stem}.claude-code.jsonl")


def run_session(
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
            with contextlib.ExitStack() as stack:
                link = stack.enter_context(ApiLink(server.address)) if walls else None
                walled_argv = walled(argv, dirs.workspace, config, walls, program, link)
                full, fds = stack.enter_context(walled_argv)
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
def checked_version(program: Path) -> str:
    """The program's version, warned about in one line when it is not the one tracer mirrors."""
    version = claude_version(program)
    if warning := version_warning(version):
        print(warning, file=sys.stderr)
    return version or "unknown"


def walls_for(wanted: bool | None) -> Sandbox | None:
    """The bwrap sandbox ``claude`` runs in (``wanted`` false: none); its absence said once."""
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
