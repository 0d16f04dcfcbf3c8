"""Attacks through ``--workspace``: folders that hold keys, logs and root's files are refused
(one line, exit 2) unless ``--i-know``; the default throwaway workspace under /tmp still works.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from tracer.errors import UserError
from tracer.record.workspace_source import refuse_source

API = {"ANTHROPIC_API_KEY": "sk-ant-x", "ANTHROPIC_BASE_URL": "http://127.0.0.1:9"}


@pytest.fixture
def home(tmp_path: Path) -> Path:
    """A home of our own, holding the folders an attacker wants copied."""
    home = tmp_path / "home"
    for name in (".ssh", ".aws", ".gnupg", ".config/gcloud"):
        (home / name).mkdir(parents=True)
        (home / name / "key").write_text("-----BEGIN OPENSSH PRIVATE KEY-----\n")
    return home


@pytest.mark.parametrize("name", [".ssh", ".aws", ".gnupg", ".config", ".config/gcloud"])
def test_a_folder_of_keys_is_refused(tracer_here: Any, home: Path, name: str) -> None:
    proc = tracer_here(
        "record", "--prompt", "hi", "--workspace", str(home / name), env={**API, "HOME": str(home)}
    )
    assert proc.returncode == 2, proc.stderr
    (line,) = proc.stderr.strip().splitlines()
    assert line.startswith("tracer: --workspace refuses") and "--i-know" in line


@pytest.mark.parametrize("folder", ["/var/log", "/var/lib", "/var/tmp", "/etc/ssl", "/root"])
def test_system_folders_that_hold_secrets_are_refused(folder: str) -> None:
    if not os.path.isdir(folder):
        pytest.skip(f"{folder} does not exist here")
    with pytest.raises(UserError, match="--workspace refuses"):
        refuse_source(Path(folder))


def test_a_folder_that_holds_a_home_is_refused(tmp_path: Path, home: Path) -> None:
    with pytest.raises(UserError, match=r"holding \.ssh"):
        refuse_source(home)


def test_i_know_lets_a_sensitive_folder_through(home: Path, tmp_path: Path) -> None:
    assert refuse_source(home / ".config", i_know=True) == Path(os.path.realpath(home / ".config"))
    if os.path.isdir("/var/tmp"):
        assert refuse_source(Path("/var/tmp"), i_know=True) == Path("/var/tmp").resolve()


def test_the_root_and_the_home_stay_refused_even_with_i_know() -> None:
    for folder in ("/", "/var", os.path.expanduser("~")):
        with pytest.raises(UserError):
            refuse_source(Path(folder), i_know=True)


def test_a_project_under_tmp_is_fine(tmp_path: Path) -> None:
    project = tmp_path / "project"
    project.mkdir()
    assert refuse_source(project) == Path(os.path.realpath(project))
