"""What a credential looks like, whatever variable (if any) held it.

Redaction by value (:mod:`tracer.trace.redact`) knows the secrets of the recorder's environment.
Two things escape it: a credential that was never in that environment (a key in a file the model
``cat``\\ s, a webhook URL in a config), and a known secret that a command re-encoded (``base64``,
``xxd -p``, ``rev``, upper-casing). This module covers what can be covered of the first; the
second is :func:`tracer.trace.spellings.encoded_forms`, with a secret's other cheap spellings
(only an environment holding a secret needs them, and only then is that module loaded).

:data:`SHAPES` are the common credential formats: the password of a
``scheme://user:password@host`` URL, Stripe (``sk_live_``), Slack tokens (``xox*-``) and
webhooks, Discord webhooks, JSON Web Tokens, PEM private keys, ``Authorization:`` and
``x-api-key:`` values, AWS, Google, GitHub, GitLab, Anthropic, OpenAI, npm and PyPI keys. These
are the formats secret scanners (GitHub's, gitleaks) look for; the patterns here are our own and
deliberately few. :data:`CREDENTIAL_FIELDS` adds the value of a field whose key names a
credential.

What cannot be caught is said in the README's safety section: a secret split across lines
(``fold``), compressed, encrypted, or encoded in any way :mod:`tracer.trace.spellings` does not
list.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Collection, Mapping, Sequence

#: Cheap substrings, by shape: a shape's expression runs only on a text that holds one of its
#: hints, and a line with none of them skips the expressions altogether (the writer checks every
#: line it writes, an import's thousands included).
HINTS_OF: dict[str, tuple[str, ...]] = {
    "private_key": ("-----BEGIN",),
    "slack_webhook": ("hooks.slack",),
    "discord_webhook": ("discord",),
    "jwt": ("eyJ",),
    # The header names in the casings they are written in (``Authorization``, ``X-Api-Key``).
    "authorization": ("uthorization", "UTHORIZATION", "pi-key", "pi-Key", "PI-KEY"),
    "aws_secret_access_key": ("ws_secret", "ws_Secret", "WS_SECRET"),
    # The whole prefix every Stripe key opens with: ``sk_``/``rk_`` alone are in hundreds of
    # a session's words (``work_``, ``mark_``, ``task_id``), each a second look at its line.
    "stripe_key": ("sk_live_", "sk_test_", "rk_live_", "rk_test_"),
    "slack_token": ("xox",),
    "aws_access_key_id": ("AKIA", "ASIA"),
    "google_api_key": ("AIza",),
    "github_token": ("ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_"),
    "gitlab_token": ("glpat-",),
    "api_key": ("sk-",),
    "npm_token": ("npm_",),
    "pypi_token": ("pypi-",),
    "url_password": ("://",),
}
HINTS = tuple(hint for hints in HINTS_OF.values() for hint in hints)

#: The shapes whose every match starts with one of their hints (the others' start before it,
#: ``https://hooks.slack…``, or may be in another case, ``AUTHorization``): where the hints are
#: is where a match can start.
ANCHORED = frozenset(HINTS_OF) - {
    "slack_webhook",
    "discord_webhook",
    "authorization",
    "aws_secret_access_key",
}

_KEEP_PREFIX = r"(?P<keep>"
#: Each shape's name, expression and flags, in the order they are tried. An expression is
#: compiled the first time a text holds its shape's hints (:data:`PATTERNS`), not when the module
#: is imported: compiling all of them cost every ``tracer import`` 1.5 ms of start-up, and a
#: session's lines hold the hints of only a few shapes.
SHAPES: tuple[tuple[str, str, int], ...] = (
    (
        "private_key",
        r"-----BEGIN (?P<label>(?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?)-----"
        r".*?(?:-----END (?P=label)-----|\Z)",
        re.DOTALL,
    ),
    ("slack_webhook", r"https://hooks\.slack\.com/(?:services|workflows|triggers)/[\w/-]+", 0),
    (
        "discord_webhook",
        r"https://(?:(?:canary|ptb)\.)?discord(?:app)?\.com/api/webhooks/\d+/[\w-]+",
        0,
    ),
    ("jwt", r"eyJ[\w-]{8,}\.eyJ[\w-]{8,}\.[\w-]*", 0),
    (
        "authorization",
        _KEEP_PREFIX + r"\b(?:authorization|x-api-key)[\"']?\s*[:=]\s*[\"']?"
        r"(?:(?:bearer|basic|token|digest)\s+)?)[^\s\"',;]+",
        re.IGNORECASE,
    ),
    (
        "aws_secret_access_key",
        _KEEP_PREFIX + r"aws_secret_access_key[\"']?\s*[:=]\s*[\"']?)[A-Za-z0-9/+=]{40}",
        re.IGNORECASE,
    ),
    ("stripe_key", r"[sr]k_(?:live|test)_[0-9A-Za-z]{10,}", 0),
    ("slack_token", r"xox[abprse]-[0-9A-Za-z-]{10,}", 0),
    ("aws_access_key_id", r"(?:AKIA|ASIA)[0-9A-Z]{16}", 0),
    ("google_api_key", r"AIza[0-9A-Za-z_-]{35}", 0),
    ("github_token", r"(?:gh[pousr]_[A-Za-z0-9]{30,}|github_pat_[A-Za-z0-9_]{20,})", 0),
    ("gitlab_token", r"glpat-[\w-]{20,}", 0),
    ("api_key", r"\bsk-(?:ant-|proj-)?[A-Za-z0-9_-]{20,}", 0),
    ("npm_token", r"npm_[A-Za-z0-9]{36}", 0),
    ("pypi_token", r"pypi-[\w-]{50,}", 0),
    # scheme://user:password@host: the password goes, the rest stays (a mark already there
    # is not marked again).
    (
        "url_password",
        # It starts at the "://" its hint names (the scheme before it is only looked at), so
        # a line is tried where its URLs are, not at every word: a transcript is full of them.
        _KEEP_PREFIX + r"(?<=[A-Za-z0-9])://[^/:@\s\"']*:)(?!\[REDACTED)[^/@\s\"']+(?=@)",
        0,
    ),
)


class _Compiled(dict[str, re.Pattern[str]]):
    """Shape name → its compiled expression, compiled on first use."""

    def __missing__(self, name: str) -> re.Pattern[str]:
        pattern, flags = _SOURCES[name]
        compiled = self[name] = re.compile(pattern, flags)
        return compiled


_SOURCES = {name: (pattern, flags) for name, pattern, flags in SHAPES}
_NAMES = tuple(_SOURCES)
PATTERNS: dict[str, re.Pattern[str]] = _Compiled()


def might_hold_a_shape(text: str) -> bool:
    return any(hint in text for hint in HINTS)


def shapes_hinted(text: str) -> list[tuple[str, re.Pattern[str]]]:
    """The shapes whose hints ``text`` holds: the only expressions worth running on it."""
    return [(name, PATTERNS[name]) for name in _NAMES if any(h in text for h in HINTS_OF[name])]


def _shapes(text: str, hinted: Collection[str] | None) -> list[tuple[str, re.Pattern[str]]]:
    # ``hinted``: the shapes a scan already found the hints of (the writer's one pass over
    # many lines), so the hints need not be searched for again; in the order of SHAPES.
    if hinted is None:
        return shapes_hinted(text)
    return [(name, PATTERNS[name]) for name in _NAMES if name in hinted]


def holds_a_shape(text: str, hints: Mapping[str, Sequence[int]] | None = None) -> bool:
    """Does ``text`` (a JSON line, or any text) hold a credential, by its shape or as the value
    of a credential field (``"Authorization":"…"``)?

    ``hints``: where a scan already found each shape's hints in ``text`` (the writer's one pass
    over many lines). A shape of :data:`ANCHORED` is then tried only where its hints are, not
    along the whole text: an 80 KB line that says ``sk_`` once costs one try, not 80,000."""
    if hints is None:
        shapes = shapes_hinted(text)
        return any(p.search(text) for _n, p in shapes) or _a_field(text, [n for n, _p in shapes])
    for name in _NAMES:
        at = hints.get(name)
        if at is None:
            continue
        pattern = PATTERNS[name]
        if name in ANCHORED:
            if any(pattern.match(text, start) for start in at):
                return True
        elif pattern.search(text):
            return True
    return _a_field(text, hints)


def possible_hints(data: bytes | bytearray, hints: Mapping[str, list[int]]) -> dict[str, list[int]]:
    """``hints`` (byte offsets into ``data``, UTF-8) without the places where a match of their
    shape cannot start, and without the shapes left with none: what :func:`holds_a_shape`
    needs to be asked of, found on the bytes, before anything is decoded or compiled.

    Only an anchored shape whose hint is everywhere in text holding no such credential has a
    test here, one that says only what its expression asks first: a session's lines name
    hundreds of URLs and ``task-`` words, and compiling one expression cost an import as much as
    a thousand of these tests. Each looks at ASCII bytes only, which in UTF-8 are never part
    of another character."""
    possible: dict[str, list[int]] = {}
    for name, at in hints.items():
        may = _MAY_START.get(name)
        if may is not None:
            at = [start for start in at if may(data, start)]
            if not at:
                continue
        possible[name] = at
    return possible


def _may_hold_url_password(data: bytes | bytearray, start: int) -> bool:
    """Whether the ``://`` at ``start`` may open a ``user:password@`` part: none holds a ``/``,
    so the first ``@`` after it must come before the first ``/``. Nearly every URL a session
    writes goes on with its path (or ends) first."""
    at = data.find(b"@", start + 3)
    return at >= 0 and data.find(b"/", start + 3, at) < 0


_SLACK_KINDS = tuple(f"{kind}-".encode() for kind in "abprse")


def _may_hold_slack_token(data: bytes | bytearray, start: int) -> bool:
    """``xox`` at ``start`` goes on with a token's kind and a dash (``xoxb-``)."""
    return data.startswith(_SLACK_KINDS, start + 3)


def _may_hold_api_key(data: bytes | bytearray, start: int) -> bool:
    """``sk-`` at ``start`` begins a word (``\\b``): not after an ASCII letter, digit or ``_``
    (``task-``, ``disk-`` are no key). After a byte of a non-ASCII character it may: whether
    that character is a letter is the expression's to say."""
    before = data[start - 1 : start]
    return not (before.isalnum() or before == b"_")


_MAY_START = {
    "url_password": _may_hold_url_password,
    "slack_token": _may_hold_slack_token,
    "api_key": _may_hold_api_key,
}
""":func:`possible_hints`' test of each shape that has one."""


def _a_field(text: str, shapes: Collection[str]) -> bool:
    return any(name in _FIELD_SHAPES for name in shapes) and bool(re.search(_FIELD_IN_JSON, text))


def redact_shapes(text: str, hinted: Collection[str] | None = None) -> str:
    """``text`` with every recognisable credential replaced by ``[REDACTED:<shape>]``."""
    for name, pattern in _shapes(text, hinted):
        text = pattern.sub(_replacement(name), text)
    return text


#: Fields (dict keys, compared lower-cased) whose string value is a credential whatever it
#: looks like, and the shape it is redacted as. In text the shapes see ``Authorization: Bearer
#: …`` whole; in a JSON value (``{"Authorization": "Bearer …"}``) the key is structure and the
#: value arrives alone, with nothing to say what it is but the key.
CREDENTIAL_FIELDS = {
    "authorization": "authorization",
    "proxy-authorization": "authorization",
    "x-api-key": "authorization",
    "aws_secret_access_key": "aws_secret_access_key",
}
_FIELD_SHAPES = frozenset(CREDENTIAL_FIELDS.values())
#: One of those fields with a non-empty string value, in a JSON line. Its hints are the shapes'
#: own (``uthorization``, ``pi-key``, ``ws_secret``), so it runs only where they are.
#: These three are compiled (and kept by ``re``) the first time a line needs them, which most
#: imports never do, not at every start.
_FIELD_IN_JSON = r'(?i)"(?:(?:proxy-)?authorization|x-api-key|aws_secret_access_key)"\s*:\s*"(?!")'
#: The scheme word the text shape keeps too: ``Bearer [REDACTED:authorization]`` still says
#: what kind of credential was there.
_SCHEME = r"(?i)\s*(?:(?:bearer|basic|token|digest)\s+)?"
#: A value that is already a redaction mark (by value, by shape, or a log's own) stays as it is.
_A_MARK = r"\s*\[REDACTED(?::[\w-]+)?\]\s*"


def redact_field(key: str, value: str) -> str:
    """``value`` as it may be written under the dict key ``key``: redacted whole (but for its
    scheme word) when ``key`` names a credential field."""
    shape = CREDENTIAL_FIELDS.get(key.lower())
    if shape is None:
        return value
    keep = re.match(_SCHEME, value).end()  # type: ignore[union-attr]  # it can match nothing
    rest = value[keep:]
    if not rest.strip() or re.fullmatch(_A_MARK, rest):
        return value
    return f"{value[:keep]}[REDACTED:{shape}]"


def _replacement(name: str) -> Callable[[re.Match[str]], str]:
    def replace(match: re.Match[str]) -> str:
        keep = match.groupdict().get("keep") or ""
        return f"{keep}[REDACTED:{name}]"

    return replace
