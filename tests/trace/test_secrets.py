"""No secrets: an API key in the environment never reaches a trace or the files beside it."""

from __future__ import annotations

from pathlib import Path
from typing import Any

FAKE_KEY = "sk-ant-fake-0123456789abcdefTRACERTEST"


def _everything_written(folder: Path) -> bytes:
    return b"".join(p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file())


def test_the_key_is_nowhere_in_a_scenario_recording(tracer_cli: Any, tmp_path: Path) -> None:
    from tracer.paths import SCENARIOS_DIR

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
