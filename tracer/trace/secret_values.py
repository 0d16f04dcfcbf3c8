"""Which values of an environment are secrets: the first half of redaction by value.

:class:`~tracer.trace.redact.Redactor` replaces every known secret value wherever it appears;
this module says which values those are. A variable is a secret when its *name* says so (one
of its words is ``KEY``, ``TOKEN``, ``PASSWORD``, ``PAT``, ...: ``GH_PAT`` is, ``MONKEY_NAME`` is
not) or when its *value* has a credential's look whatever it is called (``sk-ant-…``, an AWS key
id, a JSON Web Token, a URL with a password, whose password is a secret on its own too). Shell
and desktop bookkeeping (``PWD``, ``XDG_*``) never is, a value shorter than
:data:`MIN_SECRET_LENGTH` is not worth the name, and a path to a file that exists names the
secret rather than being it.

Every trace writer asks this of the whole environment (an import of a folder makes one writer per
session), so the two predicates keep their answers, and nothing here compiles an expression
unless a value asks for it.
"""

from __future__ import annotations

import functools
import os
import re
from collections.abc import Mapping

#: Words of a variable name that say "this is a secret" (``ANTHROPIC_API_KEY``, ``MY_PASSWD``,
#: ``GH_PAT``, ``CI_JOB_JWT``, ``apiKey``). A name is cut into its words (at ``_``, ``-``, ``.``
#: and where a lower-case letter meets an upper-case one) and each word is compared whole:
#: ``KEY`` in ``KEYBOARD_LAYOUT`` or ``MONKEY_NAME`` is no key, and ``SESSION`` says nothing.
_SECRET_NAME_PARTS = frozenset(
    {
        "KEY",
        "KEYS",
        "APIKEY",
        "SECRETKEY",
        "ACCESSKEY",
        "PRIVATEKEY",
        "TOKEN",
        "TOKENS",
        "AUTHTOKEN",
        "ACCESSTOKEN",
        "SECRET",
        "SECRETS",
        "PASSWORD",
        "PASSWORDS",
        "PASSWD",
        "PASS",
        "PASSPHRASE",
        "PWD",
        "CREDENTIAL",
        "CREDENTIALS",
        "CREDS",
        "CRED",
        "PRIVATE",
        "PAT",
        "JWT",
        "DSN",
        "AUTH",
        "AUTHORIZATION",
        "COOKIE",
        "WEBHOOK",
    }
)
#: What every word of :data:`_SECRET_NAME_PARTS` holds (a test checks it).
_SECRET_ROOTS = (
    "KEY",
    "TOKEN",
    "SECRET",
    "PASS",
    "PWD",
    "CRED",
    "PRIVATE",
    "PAT",
    "JWT",
    "DSN",
    "AUTH",
    "COOKIE",
    "WEBHOOK",
)
#: Names whose whole job is to hold a connection string with credentials in it.
_SECRET_NAMES = frozenset({"DATABASE_URL", "REDIS_URL", "MONGODB_URI", "AMQP_URL"})
#: Shell, session and desktop bookkeeping: never secret, whatever their words.
_NEVER_SECRET = frozenset(
    {
        "PWD",
        "OLDPWD",
        "SSH_AUTH_SOCK",
        "XAUTHORITY",
        "GPG_AGENT_INFO",
        "DESKTOP_SESSION",
        "SESSION_MANAGER",
        "KEYBOARD_LAYOUT",
    }
)
#: Prefixes of bookkeeping families (``XDG_SESSION_TYPE=wayland``, ``XDG_CURRENT_DESKTOP``).
_NEVER_SECRET_PREFIXES = ("XDG_", "GDM", "DBUS_", "WAYLAND_", "KDE_", "GNOME_")

#: Values that look like a credential whatever the variable is called: those that start with
#: one of these, an AWS key id (``AKIA`` or ``ASIA`` and 12 or more capitals or digits), or a
#: JSON Web Token (:data:`_JWT`). Told by ``str.startswith``, not one regular expression: every
#: writer asks it of every variable of the environment, and compiling the expression cost 1.5M
#: instructions of every import.
_SECRET_PREFIXES = (
    "sk-ant-",
    "sk-",
    "sk_live_",
    "sk_test_",
    "rk_live_",
    "ghp_",
    "gho_",
    "ghu_",
    "ghs_",
    "ghr_",
    "github_pat_",
    "glpat-",
    *(f"xox{letter}-" for letter in "abprse"),
    "npm_",
    "pypi-",
    "AIza",
    "https://hooks.slack.com/",
    "https://discord.com/api/",
    "https://discordapp.com/api/",
)
_AWS_KEY_CHARACTERS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789")
#: A JSON Web Token, tried only on a value that starts ``eyJ``.
_JWT = r"eyJ[\w-]+\.eyJ[\w-]+\."
#: ``scheme://user:password@host``: the password is a secret on its own too. Tried only on a
#: value that holds ``://`` (compiled then, and kept by ``re``).
_URL_CREDENTIALS = r"^[a-zA-Z][\w+.-]*://[^/:@\s]*:([^/@\s]+)@"

#: The keys the SDK reads: redacted whatever their length.
API_KEY_NAMES = ("ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN")

#: Shorter values are not redacted (unless they are the API key): ``TOKEN_TTL=60`` would
#: otherwise turn every "60" in a trace into ``[REDACTED:TOKEN_TTL]``. Six still catches a
#: short password (``hunter2``); what is shorter than that is not a secret worth the name.
MIN_SECRET_LENGTH = 6


# Both predicates are pure, and every trace writer asks them of the whole environment (an
# import of a folder makes one writer per session): their answers are kept.
@functools.lru_cache(maxsize=4096)
def name_looks_secret(name: str) -> bool:
    upper = name.upper()
    if upper in _NEVER_SECRET or upper.startswith(_NEVER_SECRET_PREFIXES):
        return False
    if upper in _SECRET_NAMES:
        return True
    # Cutting a name into words never makes a word its letters did not already spell (it only
    # puts "_" between them): a name that spells no root of one, nearly every name, is not cut.
    if not any(root in upper for root in _SECRET_ROOTS):
        return False
    return any(word in _SECRET_NAME_PARTS for word in name_words(name))


_LOWER_OR_DIGIT = frozenset("abcdefghijklmnopqrstuvwxyz0123456789")
_UPPER = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZ")
_WORD = _UPPER | frozenset("0123456789")


def name_words(name: str) -> list[str]:
    """A variable name's words, upper-cased: cut where a lower-case ASCII letter or a digit
    meets an upper-case one (``apiKey``: ``API``, ``KEY``) and at every character that is not
    an ASCII letter or digit once upper-cased (``_``, ``-``, ``.``).

    What ``re.sub(r"([a-z0-9])([A-Z])", r"\\1_\\2", name).upper()`` then ``re.split(r"[^A-Z0-9]+",
    …)`` answer, done by hand: compiling those two expressions cost every writer (every import)
    a million instructions, to look at the three dozen names of an environment."""
    cut: list[str] = []
    before = ""
    for c in name:
        if c in _UPPER and before in _LOWER_OR_DIGIT:
            cut.append("_")
        cut.append(c)
        before = c
    return "".join(c if c in _WORD else " " for c in "".join(cut).upper()).split()


@functools.lru_cache(maxsize=4096)
def value_looks_secret(value: str) -> bool:
    if value.startswith(_SECRET_PREFIXES):
        return True
    aws = value.startswith(("AKIA", "ASIA")) and len(value) >= 16
    if aws and _AWS_KEY_CHARACTERS.issuperset(value[4:16]):
        return True
    if value.startswith("eyJ") and re.match(_JWT, value):
        return True
    return _url_password(value) is not None


def _url_password(value: str) -> re.Match[str] | None:
    """``value`` as a URL with a password in it (the password is its first group)."""
    return re.match(_URL_CREDENTIALS, value) if "://" in value else None


def secret_values(environ: Mapping[str, str]) -> dict[str, str]:
    """Secret value → the name to show in its place, for every secret in ``environ``."""
    found: dict[str, str] = {}
    for name, value in environ.items():
        if not value or not (name_looks_secret(name) or value_looks_secret(value)):
            continue
        if len(value) >= MIN_SECRET_LENGTH and not _is_plain_path(value):
            found.setdefault(value, name)
        password = _url_password(value)
        if password and len(password.group(1)) >= MIN_SECRET_LENGTH // 2:
            found.setdefault(password.group(1), name)
    return found


def _is_plain_path(value: str) -> bool:
    # GOOGLE_APPLICATION_CREDENTIALS=/path/creds.json names a file; the file is the secret.
    return value.startswith("/") and os.path.exists(value)
