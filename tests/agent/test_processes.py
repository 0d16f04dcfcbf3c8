"""Processes die with the recorder: escaped children, pipes held open, the Ctrl-C race, Ctrl-D.

Every test that could hang is bounded by a subprocess timeout (a hang fails the test, it never
blocks the suite); none asserts how fast something was.
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
import uuid
from pathlib import Path
from typing import Any

import pytest

from tracer.agent import pids_cgroup
from tracer.agent.permissions import Permissions, terminal_asker
from tracer.agent.processes import kill_group, run_command
from tracer.agent.sandbox_choice import find_sandbox
from tracer.files.paths import ROOT

linux_only = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="needs Linux /proc")


def _sleep_seconds() -> str:
    """A sleep length no other test uses, so the process can be found by its command line."""
    return f"{1000 + uuid.uuid4().int % 100000}.5"


def _alive(seconds: str) -> list[int]:
    found = []
    for pid in os.listdir("/proc"):
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as fh:
                argv = fh.read().split(b"\0")
            with open(f"/proc/{pid}/stat", "rb") as fh:
                state = fh.read().rsplit(b")", 1)[1].split()[0]
        except OSError:
            continue
        if argv[:2] == [b"sleep", seconds.encode()] and state != b"Z":
            found.append(int(pid))
    return found


def _python(code: str, timeout: float = 60) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )


@linux_only
def test_an_escaped_child_holding_the_pipes_does_not_block(tmp_path: Path) -> None:
    # Before: the recorder waited for end-of-file on pipes the escaped sleep still held.
    seconds = _sleep_seconds()
    done = run_command(
        ["bash", "-c", f"setsid sleep {seconds} & sleep 0.2; echo finished"],
        cwd=tmp_path,
        env={"PATH": os.environ["PATH"]},
        timeout=60,
    )
    assert not done.timed_out and done.returncode == 0
    assert done.stdout == b"finished\n"
    assert _alive(seconds) == []  # and it was killed when the command ended


@linux_only
def test_the_timeout_kills_escaped_children_too(tmp_path: Path) -> None:
    seconds = _sleep_seconds()
    done = run_command(
        ["bash", "-c", f"setsid sleep {seconds} & sleep 60"],
        cwd=tmp_path,
        env={"PATH": os.environ["PATH"]},
        timeout=0.5,
    )
    assert done.timed_out
    assert _alive(seconds) == []


@linux_only
def test_the_recorder_is_a_subreaper_so_orphans_come_back_to_it() -> None:
    proc = _python(
        """
        import os, subprocess, time
        from tracer.agent.processes import become_subreaper
        assert become_subreaper()
        subprocess.run(["bash", "-c", "setsid sleep 321.5 </dev/null >/dev/null 2>&1 &"])
        time.sleep(0.3)
        for pid in os.listdir("/proc"):
            try:
                argv = open(f"/proc/{pid}/cmdline", "rb").read().split(b"\\0")
            except OSError:
                continue
            if argv[:2] == [b"sleep", b"321.5"]:
                stat = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
                print(int(stat[1]) == os.getpid())
                os.kill(int(pid), 9)
                os.waitpid(int(pid), 0)
        """
    )
    assert proc.stdout.strip() == "True", proc.stderr


def test_killing_a_group_that_already_ended_is_not_an_error() -> None:
    proc = subprocess.Popen(["true"], start_new_session=True)
    proc.wait()
    kill_group(proc.pid)  # the Ctrl-C race: the command ended within the grace period


def test_ctrl_c_after_the_command_ended_stays_a_ctrl_c(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The race of the issue: the command is already gone when Ctrl-C is handled. The model must
    never be told "No such process"; the interruption goes on as an interruption."""
    real_wait = subprocess.Popen.wait

    def wait_then_interrupt(self: subprocess.Popen[bytes], timeout: float | None = None) -> int:
        real_wait(self)  # the command finishes (and is reaped) ...
        monkeypatch.setattr(subprocess.Popen, "wait", real_wait)
        raise KeyboardInterrupt  # ... and only then does Ctrl-C arrive

    monkeypatch.setattr(subprocess.Popen, "wait", wait_then_interrupt)
    with pytest.raises(KeyboardInterrupt):
        run_command(["true"], cwd=tmp_path, env={"PATH": os.environ["PATH"]}, timeout=10)


def test_ctrl_d_at_the_permission_prompt_means_reject(monkeypatch: pytest.MonkeyPatch) -> None:
    def end_of_input(prompt: str = "") -> str:
        raise EOFError

    monkeypatch.setattr("builtins.input", end_of_input)
    assert terminal_asker("Bash", {"command": "rm -rf x"}) == ("reject", None)
    decision = Permissions(asker=terminal_asker).check("Bash", {"command": "rm -rf x"})
    assert decision.decision == "reject" and not decision.allowed


# -- signals, on a real recorder ----------------------------------------------------------------


def _start_recording(write_scenario: Any, out: Path, seconds: str) -> subprocess.Popen[str]:
    scenario = write_scenario(
        {
            "permissions": {"allow": ["Bash"]},
            "responses": [
                {
                    "tool_use": [
                        {"name": "Bash", "input": {"command": f"setsid sleep {seconds} & wait"}}
                    ]
                },
                {"text": "never reached"},
            ],
        }
    )
    return subprocess.Popen(
        [sys.executable, "-m", "tracer", "record", "--scenario", str(scenario), "-o", str(out)],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def _wait_for_the_tool(out: Path, proc: subprocess.Popen[str], seconds: str) -> None:
    import time

    for _ in range(600):  # bounded: at most about a minute
        if b'"kind":"tool_start"' in (out.read_bytes() if out.exists() else b"") and _alive(
            seconds
        ):
            return
        assert proc.poll() is None, proc.communicate()
        time.sleep(0.1)
    raise AssertionError("the tool never started")


@linux_only
@pytest.mark.parametrize(
    "signum, code, reason",
    [
        ("SIGINT", 130, "aborted_tools"),
        ("SIGTERM", 143, "aborted_tools"),
        ("SIGHUP", 129, "aborted_tools"),
    ],
)
def test_a_stop_signal_ends_the_session_cleanly(
    signum: str,
    code: int,
    reason: str,
    write_scenario: Any,
    open_recording: Any,
    tmp_path: Path,
) -> None:
    import signal

    from tracer.trace.schema import validate_trace

    out = tmp_path / "stopped.trace.jsonl"
    seconds = _sleep_seconds()
    proc = _start_recording(write_scenario, out, seconds)
    _wait_for_the_tool(out, proc, seconds)
    proc.send_signal(getattr(signal, signum))
    _, stderr = proc.communicate(timeout=60)

    assert proc.returncode == code, stderr  # 128 + the signal: never 0
    assert "Traceback" not in stderr
    rec = open_recording(out)
    assert rec.terminal.reason == reason
    assert rec.terminal.error == (
        "interrupted by the user (Ctrl-C)" if code == 130 else f"stopped by {signum}"
    )
    assert validate_trace(out)[1] == []
    assert _alive(seconds) == []  # the escaped child died with the session
    workspace = Path(rec.reader.header["paths"]["workspace"])
    assert not workspace.parent.exists()  # the temporary folders are gone


@linux_only
def test_nohup_still_means_no_hangup(
    write_scenario: Any, open_recording: Any, tmp_path: Path
) -> None:
    import signal

    out = tmp_path / "kept.trace.jsonl"
    seconds = _sleep_seconds()
    scenario = write_scenario(
        {
            "permissions": {"allow": ["Bash"]},
            "responses": [
                {"tool_use": [{"name": "Bash", "input": {"command": f"sleep 1; echo {seconds}"}}]},
                {"text": "done"},
            ],
        }
    )
    argv = [sys.executable, "-m", "tracer", "record", "--scenario", str(scenario), "-o", str(out)]
    proc = subprocess.Popen(
        ["nohup", *argv],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    import time

    for _ in range(600):  # bounded: wait until the tool runs, then hang up
        if b'"kind":"tool_start"' in (out.read_bytes() if out.exists() else b""):
            break
        assert proc.poll() is None, proc.communicate()
        time.sleep(0.05)
    proc.send_signal(signal.SIGHUP)
    _, stderr = proc.communicate(timeout=60)
    assert proc.returncode == 0, stderr
    assert open_recording(out).terminal.reason == "completed"


@linux_only
def test_a_child_that_shed_the_marker_dies_when_the_session_ends(
    tracer_cli: Any, write_scenario: Any, tmp_path: Path
) -> None:
    # env -i drops TRACER_RUN, so the end of the command cannot find it; the subreaper can.
    seconds = _sleep_seconds()
    command = f"env -i setsid sleep {seconds} >/dev/null 2>&1 & sleep 0.2"
    scenario = write_scenario(
        {
            "permissions": {"allow": ["Bash"]},
            "responses": [
                {"tool_use": [{"name": "Bash", "input": {"command": command}}]},
                {
                    "tool_use": [
                        {"name": "Bash", "input": {"command": f"pgrep -fc 'slee[p] {seconds}'"}}
                    ]
                },
                {"text": "done"},
            ],
        }
    )
    out = tmp_path / "t.trace.jsonl"
    proc = tracer_cli("record", "--scenario", str(scenario), "-o", str(out))
    assert proc.returncode == 0, proc.stderr
    from tracer.trace.reader import TraceReader

    runs = [e for e in TraceReader(out) if e.kind == "tool_run"]
    # Only with neither wall below does the child outlive its command (the subreaper finds it
    # when the session ends): a pids cgroup of the command's own (root, a writable pids
    # hierarchy) is emptied when the command ends, marker or not, and a bwrap sandbox's PID
    # namespace dies with its command. (The pattern is "slee[p]" so that pgrep does not count
    # the shell whose command line holds it.)
    walled = pids_cgroup.hierarchy() is not None or find_sandbox() is not None
    assert runs[1].output["stdout"].strip() == ("0" if walled else "1")
    assert _alive(seconds) == []  # never outlives the session
