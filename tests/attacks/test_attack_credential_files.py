"""Credentials that reach the model through ``--workspace`` or a URL (issue 31, point 6).

``--workspace`` refused a folder holding ``.ssh`` but copied one holding ``.netrc`` or
``.git-credentials``, whose passwords then went to the model and into the trace; a password in
``scheme://user:password@host`` was not redacted in text unless its variable was known; and
``--workspace`` given with ``--scenario`` was silently ignored.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tracer.errors import UserError
from tracer.record.workspace_source import refuse_source
from tracer.trace.redact import Redactor

PASSWORD = "pw-Zq7Rw2Lp9XkT"
FILES = {
    ".netrc": f"machine example.com login bob password {PASSWORD}\n",
    ".git-credentials": f"https://bob:{PASSWORD}@github.com\n",
    ".pgpass": f"db:5432:app:bob:{PASSWORD}\n",
    ".npmrc": f"//registry.npmjs.org/:_authToken={PASSWORD}\n",
    ".pypirc": f"[pypi]\nusername = __token__\npassword = {PASSWORD}\n",
    ".docker/config.json": '{"auths": {"ghcr.io": {"auth": "Ym9iOnB3"}}}\n',
}


@pytest.mark.parametrize("name", sorted(FILES))
@pytest.mark.parametrize("where", ["top", "nested"])
def test_a_folder_holding_a_credential_file_is_refused(
    tmp_path: Path, name: str, where: str
) -> None:
    project = tmp_path / "project"
    target = project / ("sub/deeper" if where == "nested" else "") / name
    target.parent.mkdir(parents=True)
    target.write_text(FILES[name])
    (project / "main.py").write_text("print('hi')\n")
    with pytest.raises(UserError) as refused:
        refuse_source(project)
    message = str(refused.value)
    # (.docker at the top is refused as a folder of its own, like .ssh.)
    assert name.split("/")[0] in message and "--i-know" in message
    assert refuse_source(project, i_know=True) == project.resolve()


def test_an_ordinary_project_is_copied(tmp_path: Path) -> None:
    project = tmp_path / "project"
    (project / "docs").mkdir(parents=True)
    (project / "docs" / "netrc-format.md").write_text("how .netrc files look\n")
    (project / "config.json").write_text("{}\n")  # not under .docker
    assert refuse_source(project) == project.resolve()


def test_the_cli_refuses_it_in_one_line(tracer_cli: Any, tmp_path: Path) -> None:
    project = tmp_path / "project"
    project.mkdir()
    (project / ".git-credentials").write_text(FILES[".git-credentials"])
    proc = tracer_cli(
        "record",
        "--prompt",
        "hello",
        "--workspace",
        str(project),
        "-o",
        str(tmp_path / "t.trace.jsonl"),
        env={"ANTHROPIC_API_KEY": "sk-ant-test-not-used-0123456789", "ANTHROPIC_BASE_URL": ""},
    )
    assert proc.returncode == 2
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and ".git-credentials" in lines[0] and "Traceback" not in proc.stderr
    assert not (tmp_path / "t.trace.jsonl").exists()


@pytest.mark.parametrize(
    ("text", "kept"),
    [
        (f"clone https://bob:{PASSWORD}@github.com/x.git", "https://bob:[REDACTED:url_password]@"),
        (f"redis://:{PASSWORD}@cache:6379/0", "redis://:[REDACTED:url_password]@cache"),
        (f"postgres://app:{PASSWORD}@db.internal/app", "postgres://app:[REDACTED:url_password]@"),
    ],
)
def test_a_password_in_a_url_is_redacted_in_text(text: str, kept: str) -> None:
    out = Redactor({})(text)
    assert PASSWORD not in out and kept in out


@pytest.mark.parametrize(
    "text",
    ["http://host:8080/path@v2", "mailto:bob@example.com", "ftp://anon:@host", "a:b@c d"],
)
def test_urls_without_a_password_are_kept(text: str) -> None:
    assert Redactor({})(text) == text


PRINTS_A_URL = "echo origin https://bob:$(echo pw-Zq7R)$(echo w2Lp9XkT)@h"


def test_a_url_password_a_command_prints_stays_out_of_the_trace(record: Any) -> None:
    rec = record(
        {
            "permissions": {"allow": ["Bash"]},
            "responses": [
                {
                    "tool_use": [
                        {
                            "name": "Bash",
                            "input": {"command": PRINTS_A_URL},
                        }
                    ]
                },
                {"text": "done"},
            ],
        }
    )
    text = rec.path.read_text()
    assert PASSWORD not in text and "[REDACTED:url_password]" in text


def test_workspace_with_a_scenario_is_an_error(
    tracer_cli: Any, write_scenario: Any, tmp_path: Path
) -> None:
    project = tmp_path / "project"
    project.mkdir()
    scenario = write_scenario({"responses": [{"text": "ok"}]})
    out = tmp_path / "t.trace.jsonl"
    proc = tracer_cli(
        "record", "--scenario", str(scenario), "--workspace", str(project), "-o", str(out)
    )
    assert proc.returncode == 2
    assert proc.stderr.strip().splitlines() == [
        "tracer: --workspace DIR goes with --prompt; a scenario brings its own workspace "
        "(its workspace.files and workspace.setup)"
    ]
    assert not out.exists()
