"""Redaction by value: no secret of the recorder's environment is ever written to a trace.

Filtering by *name* is not enough: a tool can print a secret it found anywhere (``env``,
``cat /proc/$PPID/environ``, a config file), and a variable called ``DATABASE_URL`` or ``GH_PAT``
has no ``KEY`` in its name. So the writer knows the secret *values* instead: the API key in use,
plus every environment variable whose name or value looks secret. Any string holding one of
those values gets the value replaced by ``[REDACTED:NAME]`` before a byte reaches the disk (or,
for tool output, before it reaches the model).

Known values are the first half (:mod:`tracer.trace.secret_values` says which values of the
environment those are). The second adds the forms a command can re-encode a known value into
(base64, hex, URL-encoding, reversed, other case: :mod:`tracer.trace.spellings`) and, in
:mod:`tracer.trace.secret_shapes`, the shapes of common credentials nobody told us about
(``sk_live_…``, Slack and Discord webhooks, JWTs, PEM private keys, ``Authorization:`` values,
cloud keys), and the value of a field whose key names a credential (``{"Authorization": "Bearer
…"}``: the value alone has no shape). A value that is a word of the trace format itself
(``assistant``, ``tool_result``) is structure, and rewriting it would make a trace that no longer
validates.

Every needle (each form of each secret, each shape's hint) is looked for in one pass
(:mod:`tracer.trace.secret_scan`): the writer asks this of every line it writes.

What this cannot catch (the README's safety section says it too): a value shorter than
:data:`~tracer.trace.secret_values.MIN_SECRET_LENGTH` (unless it is the API key), and any
re-encoding not listed in :func:`~tracer.trace.spellings.encoded_forms` (``fold``,
compression, encryption, a secret spelled out character by character). That is why the
sandbox keeps secrets from reaching a command in the first place; redaction is the second line.

Claude Code has no such layer (its transcripts keep whatever a tool printed); this mirrors the
value-based scrubbing CI systems apply to their logs.
"""

from __future__ import annotations

import functools
import json
import os
import re
from collections.abc import Mapping

from tracer.trace.secret_scan import Hints, SecretScan, in_text
from tracer.trace.secret_shapes import holds_a_shape, possible_hints, redact_field, redact_shapes
from tracer.trace.secret_values import API_KEY_NAMES, secret_values

TYPE_CHECKING = False
if TYPE_CHECKING:
    from os import PathLike
    from typing import Any

    StrPath = str | PathLike[str]


def _strict_utf8(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


class Redactor:
    """Replaces every known secret value (and its encodings, and every credential shape) in the
    string values of a JSON-like value, however deep."""

    def __init__(self, secrets: Mapping[str, str], *, shapes: bool = True) -> None:
        self.shapes = shapes
        """Also replace credentials by their shape (:data:`SHAPES`), not only known values."""
        secrets = {secret: name for secret, name in secrets.items() if secret}  # "" hides nothing
        forms = dict(secrets)
        marked: set[str] = set()
        if secrets:
            # The other spellings of a secret are looked for only when there is one: most
            # imports run in an environment without, and never load tracer.trace.spellings.
            from tracer.trace.spellings import encoded_forms, markers, pieces

            for secret, name in secrets.items():
                for form in (*encoded_forms(secret), *pieces(secret)):
                    forms.setdefault(form, name)
            marked = set(markers())
        # Longest first, so a secret that contains a shorter one is replaced whole.
        self.secrets = sorted(forms.items(), key=lambda item: -len(item[0]))
        self._names = {form.lower(): name for form, name in reversed(self.secrets)}
        self._pattern = _pattern([form for form, _ in self.secrets], set(secrets))
        # How each secret looks inside a JSON line (quotes and backslashes escaped); with a
        # secret known, the markers of another spelling too (an invisible character, an
        # escape, an entity): a string holding one is looked at again, unspelled.
        needles = set(forms) | marked
        self._in_json = {json.dumps(s, ensure_ascii=False)[1:-1] for s in needles} | needles
        # The same as UTF-8, for lines kept as bytes: a string holds another exactly when its
        # UTF-8 bytes hold the other's (UTF-8 is self-synchronizing).
        self._in_json_bytes = {s.encode("utf-8", "surrogatepass") for s in self._in_json}
        # bytes() searches a file for each secret's strict UTF-8; a secret that has none (a lone
        # surrogate, from an environment that was not UTF-8) keeps it on the slow path, which
        # fails as it always did rather than miss the secret.
        self._utf8 = all(_strict_utf8(s) for s in forms)

    @classmethod
    def from_environ(
        cls,
        environ: Mapping[str, str] | None = None,
        *,
        api_key: str | None = None,
        shapes: bool = True,
    ) -> Redactor:
        """The secrets of ``environ`` (default: this process's), plus ``api_key`` whatever its
        length: it is the one secret we know for sure is in use."""
        environ = os.environ if environ is None else environ
        found = secret_values(environ)
        for name in API_KEY_NAMES:
            if len(environ.get(name, "")) >= 4:
                found[environ[name]] = name
        if api_key:
            found[api_key] = "ANTHROPIC_API_KEY"
        return cls(found, shapes=shapes)

    def names(self) -> set[str]:
        """The variables whose values are known secrets."""
        return {name for _secret, name in self.secrets}

    def __bool__(self) -> bool:
        return bool(self.secrets)

    @functools.cached_property
    def _words(self) -> frozenset[str]:
        # Asked only of a value being redacted: a writer whose lines hold no secret (nearly
        # every import) never lists them (a millisecond and a half of every import's start).
        from tracer.trace.format_words import format_words

        return format_words()

    @functools.cached_property
    def _scan(self) -> SecretScan:
        # Built on first use, once: a Redactor made only to list names never pays for it.
        return SecretScan(self._in_json_bytes)

    def found_in(self, line: str) -> bool:
        """Does a JSON line hold a secret? The cheap test the writer runs on every line, so the
        walk through the event (:meth:`__call__`) happens only for the rare line that does."""
        # A string holds another exactly when its UTF-8 bytes hold the other's.
        data = line.encode("utf-8", "surrogatepass")
        secret, hints = self._scan.what_is_in(data)
        return secret or (self.shapes and bool(hints) and self._shaped(data, line, hints))

    def found_in_bytes(self, line: bytes) -> bool:
        """:meth:`found_in` for a line already encoded as UTF-8 (the writer's): one pass over
        it for every needle, and decoded only when a hint is in it."""
        secret, hints = self._scan.what_is_in(line)
        if secret:
            return True
        if not (self.shapes and hints):
            return False
        return self._shaped(line, line.decode("utf-8", "surrogatepass"), hints)

    def lines_to_redact(self, batch: bytes | bytearray) -> list[tuple[int, int]]:
        """Where the lines of ``batch`` (JSON lines, each ended by a newline) are that
        :meth:`found_in_bytes` would say hold a secret: one pass over the whole batch, then a
        second look at only the lines a needle was found in."""
        return [
            (start, end)
            for start, end, secret, hints in self._scan.lines(batch)
            if secret or (self.shapes and hints and self._shaped(batch[start:end], None, hints))
        ]

    @staticmethod
    def _shaped(data: bytes | bytearray, text: str | None, hints: Hints) -> bool:
        """Does ``data`` (``text`` once decoded) hold a shape, its hints being at ``hints``?"""
        possible = possible_hints(data, hints)
        if not possible:  # nearly every line: its hints open no credential (a URL's path)
            return False
        if text is None:
            text = data.decode("utf-8", "surrogatepass")
        return holds_a_shape(text, in_text(data, text, possible))

    def text(self, value: str) -> str:
        secret, hinted = self._scan.what_is_in(value.encode("utf-8", "surrogatepass"))
        if secret:  # rare: every form of every secret, in any case, then the shapes
            value = self._replace(value)
            return redact_shapes(value) if self.shapes else value
        # No secret replaced, so the hints found are the text's own.
        return redact_shapes(value, hinted) if self.shapes and hinted else value

    def _replace(self, value: str) -> str:
        """``value`` with every known secret replaced, in any case; and when it spells one
        another way (invisible characters, escapes, entities), ``value`` unspelled, with it
        replaced there. Left as it was when it holds none either way."""
        from tracer.trace.spellings import unspell  # a value holding a secret: see __init__

        out = self._pattern.sub(self._mark, value) if self._pattern else value
        plain = unspell(out)
        if plain != out and self._pattern:
            replaced = self._pattern.sub(self._mark, plain)
            if replaced != plain:
                return replaced
        return out

    def _mark(self, match: re.Match[str]) -> str:
        return f"[REDACTED:{self._names[match.group(0).lower()]}]"

    def __call__(self, value: Any) -> Any:
        """``value`` with every secret replaced in its strings, but never in a string that is a
        word of the format (a field name, an event kind, an enumeration's value). A string
        under a credential field's key (``Authorization``, ``x-api-key``) is a credential
        whatever it looks like (:func:`~tracer.trace.secret_shapes.redact_field`)."""
        if isinstance(value, str):
            return value if value in self._words else self.text(value)
        if isinstance(value, dict):
            return {self(k): self._field(k, v) for k, v in value.items()}
        if isinstance(value, list | tuple):
            return type(value)(self(v) for v in value)
        return value

    def _field(self, key: Any, value: Any) -> Any:
        # A credential field is known by its key as written; the key is left to the dict's
        # own walk (a field's name holds no secret, so it comes out as it went in).
        if self.shapes and isinstance(value, str) and isinstance(key, str):
            return redact_field(key, self(value))
        return self(value)

    def copy_file(self, source: StrPath, target: StrPath, chunk: int = 1 << 20) -> None:
        """Copy ``source`` to ``target`` redacted, a chunk at a time (a kept output can be tens
        of megabytes). The last bytes of each chunk wait for the next, so that a secret that
        straddles two chunks is still whole when it is searched for."""
        # Four bytes a character: a secret spelled with an invisible character between every
        # two is still whole when it is searched for.
        keep = 4 * max((len(s.encode()) for s, _ in self.secrets), default=1) - 1
        with open(source, "rb") as src, open(target, "wb") as dst:
            carry = b""
            while block := src.read(chunk):
                data = self.bytes(carry + block)
                cut = max(len(data) - keep, 0)
                dst.write(data[:cut])
                carry = data[cut:]
            dst.write(self.bytes(carry))

    def bytes(self, data: bytes) -> bytes:
        """The same for a file's bytes (a persisted tool result copied beside the trace)."""
        if self._utf8:
            secret, hinted = self._scan.what_is_in(data)
            if not secret:  # the common case: the shapes at most, from the hints found
                if not (self.shapes and hinted):
                    return data
                text = data.decode("utf-8", "surrogateescape")
                return redact_shapes(text, hinted).encode("utf-8", "surrogateescape")
        else:
            for secret_form, name in self.secrets:
                data = data.replace(secret_form.encode(), f"[REDACTED:{name}]".encode())
        text = self._replace(data.decode("utf-8", "surrogateescape"))
        if self.shapes:
            text = redact_shapes(text)
        return text.encode("utf-8", "surrogateescape")


#: A raw value shorter than this is replaced only where it stands alone: never inside a longer
#: word or a hash (a 7-digit value in the middle of a commit SHA is not that value).
ALONE_BELOW = 16


def _pattern(forms: list[str], values: set[str]) -> re.Pattern[str] | None:
    """One expression for every form, longest first, in any case; a short raw value bounded."""
    if not forms:
        return None
    short = {value.lower() for value in values if len(value) < ALONE_BELOW}
    parts = []
    for form in forms:
        escaped = re.escape(form)
        if form.lower() in short:
            escaped = rf"(?<![0-9A-Za-z]){escaped}(?![0-9A-Za-z])"
        parts.append(escaped)
    return re.compile("|".join(parts), re.IGNORECASE)
