"""Path names spelled as :mod:`pathlib` spells them, without importing it.

``tracer import claude-code`` names its files in what it prints and writes (the trace's
``source.path``, a subagent file's ``file:line``) as ``str(Path(...))`` always did: ``./s.jsonl``
is ``s.jsonl``, ``a//b/`` is ``a/b``. But ``pathlib`` (with ``urllib.parse``, ``ipaddress`` and
``fnmatch``, which it imports) costs an import about 17M instructions of its start, an eighth
of what ``json.loads`` alone spends on the same file (``bench/import_speed.py``), and the
importer only joins names, takes them apart and lists a folder. So it does that here, on plain
strings, with :mod:`os.path` for what asks the file system, and gives the same names.

POSIX only, as the rest of tracer (signals, the sandbox): a name is split on ``/``; empty parts
and ``.`` are dropped, ``..`` is kept (``Path`` does not resolve it either); a name that starts
with exactly two slashes keeps them, as POSIX allows that root to mean something else.
Every function takes a ``str`` or an ``os.PathLike`` (a ``Path`` from a caller works the same).
"""

from __future__ import annotations

import os

TYPE_CHECKING = False
if TYPE_CHECKING:
    from os import PathLike

    Name = str | PathLike[str]


def _split(path: Name) -> tuple[str, list[str]]:
    """The root (``""``, ``"/"`` or ``"//"``) and the parts, as ``PurePosixPath`` parses them."""
    text = os.fspath(path)
    if not isinstance(text, str):
        raise TypeError(f"a path name must be text, not {type(text).__name__}")
    root = ""
    if text.startswith("/"):
        root = "//" if text.startswith("//") and not text.startswith("///") else "/"
    return root, [part for part in text.split("/") if part and part != "."]


def _join(root: str, parts: list[str]) -> str:
    return root + "/".join(parts) or "."


def pathname(path: Name) -> str:
    """``str(Path(path))``."""
    return _join(*_split(path))


def join(path: Name, *more: str) -> str:
    """``str(Path(path, *more))``: a part that starts with ``/`` starts again from it."""
    root, parts = _split(path)
    for piece in more:
        own_root, own_parts = _split(piece)
        if own_root:
            root, parts = own_root, own_parts
        else:
            parts += own_parts
    return _join(root, parts)


def parent(path: Name) -> str:
    """``str(Path(path).parent)``: the root and ``.`` are their own parent."""
    root, parts = _split(path)
    return _join(root, parts[:-1])


def name(path: Name) -> str:
    """``Path(path).name``: the last part (``""`` for a root or ``.``)."""
    parts = _split(path)[1]
    return parts[-1] if parts else ""


def stem(path: Name) -> str:
    """``Path(path).stem``: the name without its last suffix (a leading dot is no suffix)."""
    last = name(path)
    dot = last.rfind(".")
    return last[:dot] if 0 < dot < len(last) - 1 else last


def listed(folder: Name, prefix: str, suffix: str) -> list[str]:
    """``sorted(Path(folder).glob(prefix + "*" + suffix))``: the entries of ``folder`` (of any
    kind, as ``glob`` gives them) whose names start with ``prefix`` and end with ``suffix``,
    sorted; none when ``folder`` is not a folder that can be listed."""
    try:
        names = os.listdir(pathname(folder))
    except OSError:
        return []
    shortest = len(prefix) + len(suffix)
    return sorted(
        join(folder, n)
        for n in names
        if len(n) >= shortest and n.startswith(prefix) and n.endswith(suffix)
    )
