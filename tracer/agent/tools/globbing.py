"""Glob patterns matched without backtracking, and a walk of the workspace that is bounded.

A glob turned into a regular expression (``**/`` as ``(?:[^/]*/)*``, ``*`` as ``[^/]*``) is
matched by Python's backtracking engine, and nine ``**`` over a long name took it forever. Here a
pattern is split into ``/``-separated segments and matched by dynamic programming: segments
against path components (``**`` takes any number of them, none included), and characters within
a segment with the classic two-pointer wildcard match. Both are polynomial in the sizes (at worst
pattern length times name length), whatever the pattern.

The walk is ``os.fwalk`` from the workspace's own descriptor: it holds each folder open while it
lists it, never follows a symlinked folder (a link to ``/`` would walk the whole disk), and stops
after :data:`MAX_ENTRIES` entries or :data:`WALK_SECONDS`, saying so.
"""

from __future__ import annotations

import os
import stat
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from functools import cache

MAX_ENTRIES = 50_000
WALK_SECONDS = 10.0

_Token = tuple[str, str]  # ("lit", c) | ("any", "") | ("one", "") | ("set", chars) | ("not", chars)


def _tokens(segment: str) -> tuple[_Token, ...]:
    out: list[_Token] = []
    i = 0
    while i < len(segment):
        char = segment[i]
        end = segment.find("]", i + 2) if char == "[" else -1
        if char == "*":
            if not (out and out[-1][0] == "any"):  # ** within a segment is one *
                out.append(("any", ""))
        elif char == "?":
            out.append(("one", ""))
        elif end != -1:
            body = segment[i + 1 : end]
            out.append(("not", body[1:]) if body.startswith("!") else ("set", body))
            i = end
        else:
            out.append(("lit", char))
        i += 1
    return tuple(out)


def _one(token: _Token, char: str) -> bool:
    kind, value = token
    if kind == "lit":
        return char == value
    if kind == "one":
        return True
    if kind == "set":
        return char in value
    return char not in value  # "not"


def segment_matches(tokens: tuple[_Token, ...], name: str) -> bool:
    """Wildcard match of one path component: greedy, going back only to the last ``*``."""
    t = n = 0
    star_t, star_n = -1, 0
    while n < len(name):
        if t < len(tokens) and tokens[t][0] == "any":
            star_t, star_n = t, n
            t += 1
        elif t < len(tokens) and _one(tokens[t], name[n]):
            t += 1
            n += 1
        elif star_t != -1:
            t = star_t + 1
            star_n += 1
            n = star_n
        else:
            return False
    while t < len(tokens) and tokens[t][0] == "any":
        t += 1
    return t == len(tokens)


@dataclass(frozen=True)
class Glob:
    """A compiled pattern: segments, ``None`` standing for ``**``."""

    segments: tuple[tuple[_Token, ...] | None, ...]

    def match(self, relative: str) -> bool:
        parts = tuple(relative.split("/"))
        segments = self.segments

        @cache
        def at(i: int, j: int) -> bool:
            if i == len(segments):
                return j == len(parts)
            seg = segments[i]
            if seg is None:  # ** : none of the parts, or one more and stay on **
                return at(i + 1, j) or (j < len(parts) and at(i, j + 1))
            return j < len(parts) and segment_matches(seg, parts[j]) and at(i + 1, j + 1)

        return at(0, 0)


def compile_glob(pattern: str) -> Glob:
    segments: list[tuple[_Token, ...] | None] = []
    for segment in pattern.split("/"):
        if segment == "**":
            if not (segments and segments[-1] is None):
                segments.append(None)
        elif segment.startswith("**"):  # **.py: any folders, then *.py
            if not (segments and segments[-1] is None):
                segments.append(None)
            segments.append(_tokens(segment[1:]))
        elif segment or not segments:
            segments.append(_tokens(segment))
    return Glob(tuple(segments))


@dataclass
class Walk:
    """The files under a folder descriptor, bounded; ``truncated`` says the bound was hit."""

    top_fd: int
    entries: int = 0
    truncated: bool = False
    started: float = field(default_factory=time.monotonic)

    def files(self) -> Iterator[tuple[str, int, str, bool]]:
        """``(relative path, folder descriptor, name, is_symlink)`` of every non-folder entry
        (``.git`` folders skipped), sorted within each folder."""
        for folder, dirs, names, dir_fd in os.fwalk(".", dir_fd=self.top_fd, follow_symlinks=False):
            dirs[:] = sorted(d for d in dirs if d != ".git" and not _is_link(d, dir_fd))
            for name in sorted(names):
                self.entries += 1
                if self.entries > MAX_ENTRIES or time.monotonic() - self.started > WALK_SECONDS:
                    self.truncated = True
                    return
                relative = name if folder == "." else f"{folder[2:]}/{name}"
                yield relative, dir_fd, name, _is_link(name, dir_fd)
            self.entries += len(dirs)


def _is_link(name: str, dir_fd: int) -> bool:
    try:
        return stat.S_ISLNK(os.stat(name, dir_fd=dir_fd, follow_symlinks=False).st_mode)
    except OSError:
        return False
