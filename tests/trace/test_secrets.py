"""No secrets: an API key in the environment never reaches a trace or the files beside it."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

FAKE_KEY = "sk-ant-fake-0123456789abcdefTRACERTEST"


def _everything_written(folder: Path) -> bytes:
    return b"".join(p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file())


def test_the_key_is_nowhere_in_a_scenario_recording(tracer_cli: Any, tmp_path: Path) -> None:
    from tracer.files.paths import SCENARIOS_DIR

    out = tmp_path / "out"
    out.mkdir()
    proc = tracer_cli(
        "record",
        "--scenario",
        str(SCENARIOS_DIR / "01-main-walk.yaml"),
        "-o",
        str(out / "walk.trace.jsonl"),
        "--debug",
        env={"ANTHROPIC_API_KEY": FAKE_KEY},
    )
    assert proc.returncode == 0, proc.stderr
    written = _everything_written(out)
    assert b"Loop turn" in written
    assert FAKE_KEY.encode() not in written
    assert FAKE_KEY not in proc.stdout + proc.stderr


def test_a_tool_cannot_leak_the_key_into_the_trace(
    record: Any, monkeypatch: Any, tmp_path: Path
) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", FAKE_KEY)
    rec = record(
        {
            "permissions": {"allow": ["Bash"]},
            "responses": [
                {"tool_use": [{"name": "Bash", "input": {"command": "env | sort"}}]},
                {"text": "ok"},
            ],
        }
    )
    assert FAKE_KEY.encode() not in rec.path.read_bytes()


#: Secrets a CI machine or a laptop really has, none of them with KEY in its name.
SECRETS = {
    "ANTHROPIC_API_KEY": FAKE_KEY,
    "DATABASE_URL": "postgres://app:db-pass-0123456@db.internal:5432/app",
    "SENTRY_DSN": "https://abcdef0123456789@o1.ingest.sentry.io/42",
    "CI_JOB_JWT": "eyJhbGciOiJSUzI1NiJ9.eyJqb2IiOiIxIn0.c2lnbmF0dXJl",
    "MY_PASSWD": "correct-horse-battery",
    "GH_PAT": "ghp_0123456789abcdefghijklmnopqrstuvwxyz",
    "INNOCENT": "xoxb-1111-2222-abcdefabcdef",
}


def test_reading_the_recorders_environ_leaks_nothing_anywhere(
    tracer_cli: Any, write_scenario: Any, tmp_path: Path
) -> None:
    # Without a sandbox, /proc/$PPID/environ *is* the recorder's environment block: the recorder
    # overwrites its secrets there before any command starts, and redaction by value is the
    # second wall. The output is large enough to be persisted to a file as well.
    command = "cat /proc/$PPID/environ | tr '\\0' '\\n'; echo; env; seq 1 8000"
    scenario = write_scenario(
        {
            "permissions": {"allow": ["Bash"]},
            "responses": [
                {"tool_use": [{"name": "Bash", "input": {"command": command}}]},
                {"text": "done"},
            ],
        }
    )
    out = tmp_path / "out"
    out.mkdir()
    proc = tracer_cli(
        "record",
        "--scenario",
        str(scenario),
        "-o",
        str(out / "leak.trace.jsonl"),
        "--debug",
        env={**SECRETS, "TRACER_SANDBOX": "none"},
    )
    assert proc.returncode == 0, proc.stderr
    written = _everything_written(out)
    assert list(out.glob("*.tool-results/*")), "the big output should have been persisted"
    for name, value in SECRETS.items():
        assert value.encode() not in written, name
        assert value not in proc.stdout + proc.stderr, name
        if os.geteuid() == 0:
            # Root's commands run under a uid of their own (tracer.agent.unprivileged): the
            # recorder's block is closed to them.
            assert b"/environ: Permission denied" in written
        else:
            # The command did read the block: the name is there, its value overwritten.
            assert f"{name}=".encode() + b"*" * len(value) in written, name


def test_commands_get_an_allowlisted_environment(record: Any, monkeypatch: Any) -> None:
    for name, value in SECRETS.items():
        monkeypatch.setenv(name, value)
    monkeypatch.setenv("SOME_HARMLESS_SETTING", "on")
    rec = record(
        {
            "permissions": {"allow": ["Bash"]},
            "responses": [
                {"tool_use": [{"name": "Bash", "input": {"command": "env"}}]},
                {"text": "ok"},
            ],
        }
    )
    (run,) = rec.of("tool_run")
    names = {line.split("=", 1)[0] for line in run.output["stdout"].splitlines()}
    assert not names & {*SECRETS, "SOME_HARMLESS_SETTING"}
    assert {"PATH", "HOME", "LANG"} <= names
    home = next(v for v in run.output["stdout"].splitlines() if v.startswith("HOME="))
    assert home.endswith("/workspace")  # HOME is the workspace, not the user's


def test_the_model_is_never_sent_a_secret(record: Any, monkeypatch: Any) -> None:
    from tracer.agent.api_rules import validate_request

    monkeypatch.setenv("MY_PASSWD", SECRETS["MY_PASSWD"])
    sent: list[str] = []

    def spy(body: dict[str, Any]) -> str | None:
        sent.append(json.dumps(body))
        return validate_request(body)

    rec = record(
        {
            "workspace": {"files": {"notes.txt": f"the password is {SECRETS['MY_PASSWD']}\n"}},
            "permissions": {"allow": ["Bash"]},
            "responses": [
                {"tool_use": [{"name": "Bash", "input": {"command": "cat notes.txt"}}]},
                {"text": "ok"},
            ],
        },
        validator=spy,
    )
    assert len(sent) == 2
    assert SECRETS["MY_PASSWD"] not in sent[1]
    assert "the password is [REDACTED:MY_PASSWD]" in sent[1]
    assert SECRETS["MY_PASSWD"].encode() not in rec.path.read_bytes()


def test_a_failing_setup_never_prints_a_secret(
    tracer_cli: Any, write_scenario: Any, tmp_path: Path
) -> None:
    scenario = write_scenario(
        {
            "workspace": {
                "setup": ["cat /proc/$PPID/environ | tr '\\0' '\\n' | grep PASSWD >&2; exit 1"]
            },
            "responses": [{"text": "never"}],
        }
    )
    proc = tracer_cli(
        "record",
        "--scenario",
        str(scenario),
        "-o",
        str(tmp_path / "x.trace.jsonl"),
        env={"MY_PASSWD": SECRETS["MY_PASSWD"], "TRACER_SANDBOX": "none"},
    )
    assert proc.returncode == 2
    assert SECRETS["MY_PASSWD"] not in proc.stderr
    if os.geteuid() == 0:  # root's set-up runs under a uid of its own: the block is closed
        assert "/environ: Permission denied" in proc.stderr
    else:  # overwritten in the recorder's environment block before the set-up ran
        assert "MY_PASSWD=" + "*" * len(SECRETS["MY_PASSWD"]) in proc.stderr
    errors = [line for line in proc.stderr.splitlines() if not line.startswith("tracer: note:")]
    assert len(errors) == 1 and "Traceback" not in proc.stderr


def test_an_import_redacts_a_credential_by_its_shape(tmp_path: Path) -> None:
    """A key pasted into a conversation is as secret as one in the environment: an imported
    session is shared as readily as a recording, so its trace is searched for shapes too."""
    from tracer.importers.claude_code.importer import import_claude_code

    source = Path(__file__).parent.parent / "data" / "claude-code"
    text = (source / "v1.0-compaction-summary-root.jsonl").read_text(encoding="utf-8")
    key = "sk_live_" + "4eC39HqLyjWDarjtT1zdp7dc"
    pasted = "Count the lines of every Python file under src."
    assert pasted in text
    transcript = tmp_path / "pasted.jsonl"
    transcript.write_text(text.replace(pasted, f"{pasted} My key is {key}."), encoding="utf-8")
    out = tmp_path / "t.jsonl"
    import_claude_code(transcript, out)
    written = out.read_text(encoding="utf-8")
    assert key not in written and "[REDACTED:" in written and "My key is" in written
