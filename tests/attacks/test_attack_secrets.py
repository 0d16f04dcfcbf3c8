"""Attacks on the secrets: planted in the recorder's environment and in workspace files, then
printed by commands plainly and re-encoded. None may reach a trace, a kept file, a request or
the terminal; and a secret that is a word of the format must not break the trace.
"""

from __future__ import annotations

import base64
import subprocess
import sys
from pathlib import Path
from typing import Any
from urllib.parse import quote

import pytest

from tracer.trace.redact import Redactor

#: Planted in the environment of ``tracer record``.
ENV_SECRETS = {
    "ANTHROPIC_API_KEY": "sk-ant-api03-attack-0123456789abcdef",
    "AWS_SECRET_ACCESS_KEY": "wJalrXUtnFEMI/K7MDENG/bPxRfiCYattack0123",
    "GITHUB_TOKEN": "ghp_attack0123456789abcdefghijklmnopqrstu",
    "AUTHORIZATION": "Bearer attack-bearer-0123456789",
    "GCP_CREDS": "gcp-attack-creds-0123456789",
    "DB_PASSWORD": "hunter2",
}
#: Credentials nobody told tracer about, in a file the model reads.
FILE_SECRETS = {
    "stripe": "sk_live_51Hattack0123456789abcdefXYZ",
    "slack": "https://hooks.slack.com/services/T00000000/B00000000/XXXXattackXXXXXXXXXXXX",
    "discord": "https://discord.com/api/webhooks/123456789012345678/attack-token_abcdefghij",
    "jwt": "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJhdHRhY2sifQ.c2lnbmF0dXJlLWF0dGFjaw",
    "slack_token": "xoxb-1234567890-attack-abcdefghij",
    "aws_id": "AKIAIOSFODNN7ATTACK1",
    "pem": "-----BEGIN RSA PRIVATE KEY-----\nMIIEattackattackattack\nQUJD\n"
    "-----END RSA PRIVATE KEY-----",
}


def _encodings(value: str) -> list[str]:
    raw = value.encode()
    return [value, base64.b64encode(raw).decode(), raw.hex(), value[::-1], value.upper()]


def _everything(folder: Path) -> bytes:
    return b"".join(p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file())


@pytest.mark.parametrize("sandbox", ["auto", "none"])
def test_planted_secrets_come_out_of_no_command(
    tracer_cli: Any, write_scenario: Any, tmp_path: Path, sandbox: str
) -> None:
    # Each secret printed plainly and re-encoded, from the environment and from the parent.
    commands = [
        "cat /proc/$PPID/environ | tr '\\0' '\\n'; env",
        "for f in *.txt; do cat $f; base64 -w0 $f; echo; xxd -p $f | tr -d '\\n'; echo; "
        "rev $f; tr a-z A-Z < $f; done",
    ]
    files = {f"env-{name}.txt": value for name, value in ENV_SECRETS.items()}
    files.update({f"file-{name}.txt": value for name, value in FILE_SECRETS.items()})
    scenario = write_scenario(
        {
            "workspace": {"files": files},
            "permissions": {"allow": ["Bash"]},
            "responses": [
                *({"tool_use": [{"name": "Bash", "input": {"command": c}}]} for c in commands),
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
        env={**ENV_SECRETS, "TRACER_SANDBOX": sandbox},
    )
    assert proc.returncode == 0, proc.stderr
    written = _everything(out).decode("utf-8", "replace") + proc.stdout + proc.stderr
    # The workspace files were written from the scenario, so whatever reached the trace came
    # through a command's output (and on to the request the model got). A known secret is
    # caught re-encoded too; an unknown credential by its shape, printed as it is.
    for value in ENV_SECRETS.values():
        for form in _encodings(value):
            assert form not in written, (value, form)
    for value in FILE_SECRETS.values():
        assert value not in written, value
    assert "[REDACTED:" in written  # the commands did print them


def test_a_secret_that_is_a_word_of_the_format_leaves_the_trace_valid(
    tracer_here: Any, tracer_cli: Any, write_scenario: Any, tmp_path: Path
) -> None:
    scenario = write_scenario(
        {
            "permissions": {"allow": ["Bash"]},
            "responses": [
                {"tool_use": [{"name": "Bash", "input": {"command": "echo the assistant"}}]},
                {"text": "the assistant is done"},
            ],
        }
    )
    trace = tmp_path / "word.trace.jsonl"
    env = {"APP_SECRET": "assistant", "OTHER_TOKEN": "tool_result"}
    proc = tracer_here("record", "--scenario", str(scenario), "-o", str(trace), env=env)
    assert proc.returncode == 0, proc.stderr
    check = tracer_cli("validate", str(trace))
    assert check.returncode == 0, check.stdout + check.stderr
    text = trace.read_text()
    assert '"type":"assistant"' in text and "[REDACTED:APP_SECRET]" in text  # in prose only


def test_redaction_catches_the_encodings_of_a_known_secret() -> None:
    secret = "s3cr3t-value-0123"
    redact = Redactor({secret: "MY_TOKEN"})
    raw = secret.encode()
    for prefix in ("", "x", "xy"):  # the three alignments inside a longer base64 stream
        stream = base64.b64encode(prefix.encode() + raw + b"\n").decode()
        assert "[REDACTED:MY_TOKEN]" in redact.text(stream), prefix
    for form in (raw.hex(), raw.hex().upper(), quote(secret + "/", safe=""), secret[::-1]):
        assert redact.text(f"<{form}>") != f"<{form}>", form


def test_the_api_key_leaves_the_recorders_environment_before_any_child() -> None:
    # In a fresh interpreter: the block /proc/PID/environ shows must lose the value too.
    code = (
        "import os, subprocess\n"
        "from tracer.agent.hide_environ import hidden_from_children\n"
        "with hidden_from_children(['ANTHROPIC_API_KEY'], undumpable=False):\n"
        "    seen = subprocess.run(['cat', f'/proc/{os.getpid()}/environ'],\n"
        "                          capture_output=True).stdout\n"
        "    print('ANTHROPIC_API_KEY' in os.environ, b'sk-ant-hidden-0123' in seen,\n"
        "          b'ANTHROPIC_API_KEY=*' in seen)\n"
        "print(os.environ['ANTHROPIC_API_KEY'] == 'sk-ant-hidden-0123')\n"
    )
    proc = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        timeout=30,
        env={"ANTHROPIC_API_KEY": "sk-ant-hidden-0123", "PATH": "/usr/bin:/bin"},
        check=False,
    )
    assert proc.stdout.split() == ["False", "False", "True", "True"], proc.stderr
