"""What the recorder keeps from Claude Code's scratch config folder: the transcript and the
outputs it saved whole, never what a link there points at (the folder is writable by every
command Claude Code runs, and the recorder reads it afterwards, as root perhaps)."""

from __future__ import annotations

import json
from pathlib import Path

from tracer.claude_code.transcript import keep_saved_outputs, keep_transcript
from tracer.trace.redact import Redactor

SECRET_LINE = "root:$6$not-for-the-trace"


def _config(tmp_path: Path) -> tuple[Path, Path]:
    config = tmp_path / "cfg"
    session = config / "projects" / "-work" / "s1" / "tool-results"
    session.mkdir(parents=True)
    (config / "projects" / "-work" / "s1.jsonl").write_text(
        json.dumps({"type": "user", "message": {"content": "hi"}}) + "\n", encoding="utf-8"
    )
    (session / "big.txt").write_text("x" * 100, encoding="utf-8")
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "shadow").write_text(SECRET_LINE, encoding="utf-8")
    return config, outside


def test_the_transcript_and_saved_outputs_are_kept(tmp_path: Path) -> None:
    config, _ = _config(tmp_path)
    kept = keep_transcript(config, tmp_path / "t.claude-code.jsonl", Redactor.from_environ({}))
    assert kept is not None and '"content": "hi"' in kept.read_text()
    saved = keep_saved_outputs(config, tmp_path / "saved", Redactor.from_environ({}))
    assert [p.name for p in saved] == ["big.txt"]


def test_links_planted_in_the_config_folder_are_not_followed(tmp_path: Path) -> None:
    config, outside = _config(tmp_path)
    results = config / "projects" / "-work" / "s1" / "tool-results"
    (results / "evil.txt").symlink_to(outside / "shadow")
    (config / "projects" / "-work" / "zz.jsonl").symlink_to(outside / "shadow")
    (config / "projects" / "linked").symlink_to(outside, target_is_directory=True)
    (outside / "s2").mkdir()
    (outside / "s2.jsonl").write_text(SECRET_LINE * 100, encoding="utf-8")  # the largest
    transcript = keep_transcript(config, tmp_path / "t.jsonl", Redactor.from_environ({}))
    saved = keep_saved_outputs(config, tmp_path / "saved", Redactor.from_environ({}))
    assert transcript is not None and SECRET_LINE not in transcript.read_text()
    assert [p.name for p in saved] == ["big.txt"]
    assert all(SECRET_LINE not in p.read_text() for p in (tmp_path / "saved").iterdir())
