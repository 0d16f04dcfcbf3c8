"""The cheap spellings of a known secret: what :mod:`tracer.trace.redact` undoes before it looks.

A command that wants a secret out does not need encryption: the key came back whole in mixed
case, with a zero-width space between every two characters, as ``\\uXXXX`` escapes, as HTML
entities, as base32, and half in one tool call and half in the next. Each of these is cheap to
undo or to list:

* :func:`unspell` removes the invisible characters (zero-width spaces and joiners, the soft
  hyphen, direction marks, variation selectors, tag characters: :data:`INVISIBLE`) and decodes
  ``\\uXXXX``/``\\UXXXXXXXX`` escapes and HTML entities (``&#115;``, ``&#x73;``, ``&lowbar;``),
  a few times over for a double encoding. The redactor runs it only on a string where a
  :func:`markers` needle was found, and keeps the string as it was unless a secret is in the
  result.
* Case is ignored when a known value is looked for (the redactor's search is case-insensitive).
* :func:`encoded_forms`: the forms a command can re-encode it into (``base64``, ``xxd -p``,
  ``rev``, URL-encoding), base32 among them (:func:`base32_forms`).
* :func:`pieces`: a long value's prefixes and suffixes, so that each half of a value split across
  two tool calls is caught on its own (a piece must be long and mixed enough to be the secret's,
  not a common word: ``postgres://`` is not a piece of ``DATABASE_URL``).

Still out of reach (the README says so): rot13 and other ciphers, compression, a value cut into
three or more pieces, one spelled out in words.
"""

from __future__ import annotations

import functools
import re

#: Characters that print as nothing: zero-width space, non-joiner and joiner, word joiner and
#: the invisible operators, the BOM, the soft hyphen, the combining grapheme joiner, direction
#: marks and embeddings, the Mongolian vowel separator, Hangul fillers, variation selectors.
INVISIBLE = frozenset(
    [chr(c) for c in (0x00AD, 0x034F, 0x061C, 0x115F, 0x1160, 0x17B4, 0x17B5, 0x3164, 0xFEFF)]
    + [chr(c) for c in range(0x180B, 0x1810)]
    + [chr(c) for c in range(0x200B, 0x2010)]
    + [chr(c) for c in range(0x202A, 0x202F)]
    + [chr(c) for c in range(0x2060, 0x2070)]
    + [chr(c) for c in range(0xFE00, 0xFE10)]
    + [chr(0xFFA0)]
    + [chr(c) for c in range(0xE0000, 0xE0080)]  # tag characters
)
#: Each of them mapped to nothing, for ``str.translate`` (the same as removing them with a
#: character class, without compiling one at every start).
_DROP_INVISIBLE = dict.fromkeys(map(ord, INVISIBLE))


@functools.cache
def markers() -> tuple[str, ...]:
    """Needles that say a string may spell something another way: an invisible character, an
    escape, an entity. Compared lower-cased (``\\U`` and ``&#X`` included).

    Made on first use, not at import: only a redactor that knows secrets searches for them,
    and listing the entities (HTML's table of two thousand) cost every ``tracer import`` a
    millisecond of start-up in an environment with none."""
    from html.entities import html5

    # Named HTML entities that stand for one printable ASCII character (``&lowbar;`` is ``_``):
    # with ``&#``, the ways an entity can spell a secret's characters.
    ascii_entities = sorted(
        f"&{name}" if name.endswith(";") else f"&{name};"
        for name, char in html5.items()
        if len(char) == 1 and 0x21 <= ord(char) < 0x7F and name.endswith(";")
    )
    return (*sorted(INVISIBLE), "\\u", "&#", *ascii_entities)


#: Compiled (and kept by ``re``) the first time a marked string is unspelled, not at every start.
_ESCAPE = r"\\u([0-9a-fA-F]{4})|\\U([0-9a-fA-F]{8})"


def _unescape(match: re.Match[str]) -> str:
    code = int(match.group(1) or match.group(2), 16)
    return chr(code) if code <= 0x10FFFF and not 0xD800 <= code < 0xE000 else match.group(0)


def unspell(text: str, rounds: int = 3) -> str:
    """``text`` with every invisible character removed and every escape and entity decoded,
    until nothing changes (at most ``rounds`` times: an entity of an escape, and so on)."""
    import html  # only a string holding a marker gets here (see markers)

    for _ in range(rounds):
        plain = html.unescape(re.sub(_ESCAPE, _unescape, text)).translate(_DROP_INVISIBLE)
        if plain == text:
            break
        text = plain
    return text


def base32_forms(raw: bytes) -> set[str]:
    """``raw``'s base32, at each of the five alignments it can have inside a longer stream (only
    the characters that depend on its bytes alone, as for base64)."""
    import base64  # only for a secret of the environment's (see encoded_forms)

    forms = set()
    for skip in range(5):
        first = -(-skip * 8 // 5)
        last = (skip + len(raw)) * 8 // 5
        forms.add(base64.b32encode(b"\0" * skip + raw).decode("ascii")[first:last])
    return forms


#: Derived forms shorter than this are not searched for: they would match by accident.
MIN_FORM_LENGTH = 6


def encoded_forms(secret: str) -> set[str]:
    """The ways a command can print ``secret`` re-encoded that can be searched for: its base64
    (standard and URL-safe, at each of the three alignments it can have inside a longer stream),
    base32 (:func:`base32_forms`), hex, URL-encoded and reversed forms; case is ignored by the
    search (:mod:`.secret_scan`)."""
    # Imported here, as in base32_forms: urllib.parse (with ipaddress) and base64 cost 4M
    # instructions to import, and a redactor with no secret to look for never asks for a form.
    import base64
    from urllib.parse import quote, quote_plus

    raw = secret.encode("utf-8")
    # Case is the redactor's to ignore: no upper- or lower-cased form is needed.
    forms = {raw.hex(), quote(secret, safe=""), quote_plus(secret), secret[::-1]}
    forms |= base32_forms(raw)
    for skip in range(3):
        padded = b"\0" * skip + raw
        # Only the characters that depend on the secret's bytes alone: the first ones also
        # carry the bytes before it, the last ones the bytes after it.
        first = -(-skip * 8 // 6)
        last = (skip + len(raw)) * 8 // 6
        for encode in (base64.b64encode, base64.urlsafe_b64encode):
            forms.add(encode(padded).decode("ascii")[first:last])
    forms.discard(secret)
    return {form for form in forms if len(form) >= MIN_FORM_LENGTH}


#: A value shorter than this is not cut into pieces.
PIECES_FROM = 24


def pieces(secret: str) -> set[str]:
    """The prefixes and suffixes of ``secret`` long enough to be its own: at least a third of it
    and 12 characters, holding two kinds of character (letters and digits, or two cases), so
    that a common word or a URL's scheme is never one."""
    if len(secret) < PIECES_FROM:
        return set()
    least = max(12, len(secret) // 3)
    found = set()
    for cut in range(least, len(secret)):
        for piece in (secret[:cut], secret[-cut:]):
            if _mixed(piece):
                found.add(piece)
    return found


def _mixed(piece: str) -> bool:
    kinds = (
        any(c.isdigit() for c in piece),
        any(c.islower() for c in piece),
        any(c.isupper() for c in piece),
    )
    return sum(kinds) >= 2
