"""Redaction by value: no secret of the recorder's environment is ever written to a trace.

Filtering by *name* is not enough: a tool can print a secret it found anywhere (``env``,
``cat /proc/$PPID/environ``, a config file), and a variable called ``DATABASE_URL`` or ``GH_PAT``
has no ``KEY`` in its name. So the writer knows the secret *values* instead: the API key in use,
plus every environment variable whose name or value looks secret. Any string holding one of
those values gets the value replaced by ``[REDACTED:NAME]`` before a byte reaches the disk (or,
for tool output, before it reaches the model).

Claude Code has no such layer (its transcripts keep whatever a tool printed); this mirrors the
value-based scrubbing CI systems apply to their logs.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Mapping
from typing import Any

#: Parts of a variable name that say "this is a secret" (``MY_PASSWD``, ``GH_PAT``, ``CI_JOB_JWT``).
_SECRET_NAME_PARTS = frozenset(
    {"PAT", "JWT", "DSN", "PASS", "PASSWD", "PASSWORD", "PWD", "AUTH", "COOKIE", "CREDENTIALS"}
)
#: Substrings of a variable name that say the same (``ANTHROPIC_API_KEY``, ``SLACK_TOKEN``).
_SECRET_NAME_WORDS = ("KEY", "TOKEN", "SECRET", "PASSWORD", "PASSWD", "CREDENTIAL", "PRIVATE")
#: Names whose whole job is to hold a connection string with credentials in it.
_SECRET_NAMES = frozenset({"DATABASE_URL", "REDIS_URL", "MONGODB_URI", "AMQP_URL"})
#: Shell bookkeeping that matches a pattern above but is never secret.
_NEVER_SECRET = frozenset({"PWD", "OLDPWD", "SSH_AUTH_SOCK", "XAUTHORITY", "GPG_AGENT_INFO"})

#: Values that look like a credential whatever the variable is called.
_SECRET_VALUE = re.compile(
    r"""
    ^(?:sk-ant-|sk-|ghp_|gho_|ghu_|ghs_|ghr_|github_pat_|glpat-|xox[abprse]-|npm_|pypi-)
    | ^(?:AKIA|ASIA)[A-Z0-9]{12,}
    | ^eyJ[\w-]+\.eyJ[\w-]+\.            # a JSON Web Token
    """,
    re.VERBOSE,
)
#: ``scheme://user:password@host``: the password is a secret on its own too.
_URL_CREDENTIALS = re.compile(r"^[a-zA-Z][\w+.-]*://[^/:@\s]*:([^/@\s]+)@")

#: The keys the SDK reads: redacted whatever their length.
_API_KEY_NAMES = ("ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN")

#: Shorter values are not redacted (unless they are the API key): ``TOKEN_TTL=60`` would
#: otherwise turn every "60" in a trace into ``[REDACTED:TOKEN_TTL]``.
MIN_SECRET_LENGTH = 8


def name_looks_secret(name: str) -> bool:
    upper = name.upper()
    if upper in _NEVER_SECRET:
        return False
    if upper in _SECRET_NAMES or any(word in upper for word in _SECRET_NAME_WORDS):
        return True
    return any(part in _SECRET_NAME_PARTS for part in re.split(r"[^A-Z0-9]+", upper))


def value_looks_secret(value: str) -> bool:
    return bool(_SECRET_VALUE.search(value) or _URL_CREDENTIALS.search(value))


def secret_values(environ: Mapping[str, str]) -> dict[str, str]:
    """Secret value → the name to show in its place, for every secret in ``environ``."""
    found: dict[str, str] = {}
    for name, value in environ.items():
        if not value or not (name_looks_secret(name) or value_looks_secret(value)):
            continue
        if len(value) >= MIN_SECRET_LENGTH and not _is_plain_path(value):
            found.setdefault(value, name)
        password = _URL_CREDENTIALS.search(value)
        if password and len(password.group(1)) >= MIN_SECRET_LENGTH // 2:
            found.setdefault(password.group(1), name)
    return found


def _is_plain_path(value: str) -> bool:
    # GOOGLE_APPLICATION_CREDENTIALS=/path/creds.json names a file; the file is the secret.
    return value.startswith("/") and os.path.exists(value)


class Redactor:
    """Replaces every known secret value in strings, however deep in a JSON-like value."""

    def __init__(self, secrets: Mapping[str, str]) -> None:
        # Longest first, so a secret that contains a shorter one is replaced whole.
        self.secrets = sorted(secrets.items(), key=lambda item: -len(item[0]))
        # How each secret looks inside a JSON line (quotes and backslashes escaped).
        self._in_json = {json.dumps(s, ensure_ascii=False)[1:-1] for s in secrets} | set(secrets)
        # The same as UTF-8, for lines kept as bytes: a string holds another exactly when its
        # UTF-8 bytes hold the other's (UTF-8 is self-synchronizing).
        self._in_json_bytes = {s.encode("utf-8", "surrogatepass") for s in self._in_json}

    @classmethod
    def from_environ(
        cls, environ: Mapping[str, str] | None = None, *, api_key: str | None = None
    ) -> Redactor:
        """The secrets of ``environ`` (default: this process's), plus ``api_key`` whatever its
        length: it is the one secret we know for sure is in use."""
        environ = os.environ if environ is None else environ
        found = secret_values(environ)
        for name in _API_KEY_NAMES:
            if len(environ.get(name, "")) >= 4:
                found[environ[name]] = name
        if api_key:
            found[api_key] = "ANTHROPIC_API_KEY"
        return cls(found)

    def __bool__(self) -> bool:
        return bool(self.secrets)

    def found_in(self, line: str) -> bool:
        """Does a JSON line hold a secret? The cheap test the writer runs on every line, so the
        walk through the event (:meth:`__call__`) happens only for the rare line that does."""
        # Most environments hold no secret at all: then there is nothing to search for.
        return bool(self._in_json) and any(secret in line for secret in self._in_json)

    def found_in_bytes(self, line: bytes) -> bool:
        """:meth:`found_in` for a line already encoded as UTF-8 (the writer's)."""
        return bool(self._in_json_bytes) and any(s in line for s in self._in_json_bytes)

    def text(self, value: str) -> str:
        for secret, name in self.secrets:
            if secret in value:
                value = value.replace(secret, f"[REDACTED:{name}]")
        return value

    def __call__(self, value: Any) -> Any:
        """``value`` with every secret replaced; the same object when there is nothing to do."""
        if not self.secrets:
            return value
        if isinstance(value, str):
            return self.text(value)
        if isinstance(value, dict):
            return {self(k): self(v) for k, v in value.items()}
        if isinstance(value, list | tuple):
            return type(value)(self(v) for v in value)
        return value

    def bytes(self, data: bytes) -> bytes:
        """The same for a file's bytes (a persisted tool result copied beside the trace)."""
        for secret, name in self.secrets:
            data = data.replace(secret.encode(), f"[REDACTED:{name}]".encode())
        return data
