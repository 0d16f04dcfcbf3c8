"""One pass over what is written: which known secrets and which credential hints it holds.

A :class:`~tracer.trace.redact.Redactor` has two kinds of needle: the JSON forms of its known
secrets (each encoding of each value), and the hints of the credential shapes
(:data:`~tracer.trace.secret_shapes.HINTS_OF`). :class:`SecretScan` puts both in one search
(:mod:`tracer.trace.many_substrings`) and maps each needle found back to what it is: a secret
(the text must be redacted), or the hint of some shapes (their expressions must run on it).

:meth:`SecretScan.lines` answers that for a whole batch of JSON lines at once, line by line:
the writer of an import hands it a megabyte of lines and gets back the few that need a second
look, instead of searching each of the ~850 lines for each of the ~30 needles in turn.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable

from tracer.trace.many_substrings import finder, first_finder, first_occurrences, occurrences
from tracer.trace.secret_shapes import HINTS_OF

#: Shape name → where its hints start, in the order found.
Hints = dict[str, list[int]]

TYPE_CHECKING = False
if TYPE_CHECKING:
    from tracer.trace.many_substrings import Finder


class SecretScan:
    """The needles of one redactor, searched for together: the shapes' hints as written, the
    secrets' forms (and the markers of another spelling) in any case, by searching the data
    lower-cased for the needles lower-cased."""

    def __init__(self, secrets: Iterable[bytes]) -> None:
        hints: dict[bytes, frozenset[str]] = {}
        for name, words in HINTS_OF.items():
            for hint in words:
                hints[hint.encode()] = hints.get(hint.encode(), frozenset()) | {name}
        # None empty (the redactor drops an empty one: it hides nothing).
        lowered = list(dict.fromkeys(form.lower() for form in secrets))
        self.needles = [*hints, *lowered]
        self._secret = [False] * len(hints) + [True] * len(lowered)
        self._shapes = [*hints.values(), *[frozenset()] * len(lowered)]
        self._split = len(hints)
        self._longest = max(len(n) for n in self.needles)
        self._lowered = lowered
        # Which lines of a batch hold a needle at all: one found per line is enough to know.
        # A JSON line never holds a raw newline (an encoder writes it as \n, two characters),
        # so a needle with one (only a secret's raw form can have one) is no secret of any one
        # line: it is left out, a match never runs from one line into the next, and no line's
        # own needle is skipped.
        self._first_hints = first_finder(list(hints))
        one_line = [n for n in lowered if b"\n" not in n]
        self._first_secrets = first_finder(one_line) if one_line else None

    def _searches(self, short_haystacks: bool) -> tuple[Finder, Finder | None]:
        """The searches for every occurrence of the hints and of the secrets (see
        :func:`~tracer.trace.many_substrings.finder` for ``short_haystacks``)."""
        hints = finder(self.needles[: self._split], short_haystacks=short_haystacks)
        if not self._lowered:
            return hints, None
        return hints, finder(self._lowered, short_haystacks=short_haystacks)

    @functools.cached_property
    def _whole(self) -> tuple[Finder, Finder | None]:
        """:meth:`_searches` for data of any length (a line, a value, a file); built when first
        asked: an import's writer never asks (it looks again only near what :meth:`lines`
        found, :attr:`_short`)."""
        return self._searches(short_haystacks=False)

    @functools.cached_property
    def _short(self) -> tuple[Finder, Finder | None]:
        """:meth:`_searches` built for :meth:`_near`'s short stretches."""
        return self._searches(short_haystacks=True)

    def _occurrences(
        self, data: bytes, searches: tuple[Finder, Finder | None]
    ) -> list[tuple[int, int, int]]:
        hints, secrets = searches
        found = occurrences(hints, data)
        if secrets is not None:
            shift = self._split
            found += [(i + shift, a, b) for i, a, b in occurrences(secrets, data.lower())]
        return found

    def what_is_in(self, data: bytes) -> tuple[bool, Hints]:
        """Whether ``data`` holds a known secret, and where the hints of each shape are in it."""
        return self._found(data, self._whole)

    def _found(self, data: bytes, searches: tuple[Finder, Finder | None]) -> tuple[bool, Hints]:
        hints: Hints
        secret, hints = False, {}
        for index, start, _end in self._occurrences(data, searches):
            secret = secret or self._secret[index]
            for shape in self._shapes[index]:
                hints.setdefault(shape, []).append(start)
        return secret, hints

    def lines(self, batch: bytes | bytearray) -> list[tuple[int, int, bool, Hints]]:
        """For each line of ``batch`` (JSON lines, each ended by ``\\n``) that holds a needle:
        where it starts and ends (the newline left out), whether it holds a secret, and where
        in the line the hints of each shape are. Lines holding none are not listed.

        Two passes: the quick search names the lines holding some needle (a match never spans
        two lines, so every such line has one of its own), and every occurrence is then found
        by searching again only near what the quick search found (:meth:`_near`)."""
        firsts = first_occurrences(self._first_hints, batch)
        if self._first_secrets is not None:
            firsts += first_occurrences(self._first_secrets, batch.lower())
        # In order along the batch (the stdlib's way reports needle by needle).
        found = sorted((start, end) for _index, start, end in firsts)
        lines: list[tuple[int, int]] = []
        stretches: list[list[int]] = []
        """From each find to as far as the longest needle reaches past it (never past its
        line's end), overlapping ones made one: ``[start, end, line]``."""
        reach = self._longest - 1
        line_end = -1
        for start, end in found:
            if start > line_end:  # the first find of another line
                line_start = batch.rfind(b"\n", 0, start) + 1
                line_end = batch.find(b"\n", start)
                line_end = len(batch) if line_end < 0 else line_end
                lines.append((line_start, line_end))
            end = min(end + reach, line_end)
            if stretches and stretches[-1][2] == len(lines) - 1 and start < stretches[-1][1]:
                stretches[-1][1] = max(stretches[-1][1], end)
            else:
                stretches.append([start, end, len(lines) - 1])
        return self._near(batch, lines, stretches) if lines else []

    def _near(
        self, batch: bytes | bytearray, lines: list[tuple[int, int]], stretches: list[list[int]]
    ) -> list[tuple[int, int, bool, Hints]]:
        """:meth:`what_is_in` of each of ``lines`` (``(start, end)`` in ``batch``), asked only
        of its ``stretches``.

        That covers every occurrence: the quick search reports the leftmost match, then goes on
        from where it ends, so a needle it did not report starts inside one it did (of the same
        search), and ends at most a needle's length later. A line is often a long tool output
        that names a hint or two: it is searched again where they are, not all along.

        The stretches of the whole batch are searched in one call (a call costs as much as
        searching a few hundred bytes, and a batch has a hundred stretches or more), joined by a
        newline, which no JSON line holds: an occurrence that runs from one stretch into the
        next is in neither, and is dropped."""
        joined = b"\n".join([batch[start:end] for start, end, _line in stretches])
        offsets, at = [], 0  # where each stretch starts in ``joined``
        for start, end, _line in stretches:
            offsets.append(at)
            at += end - start + 1
        secret = [False] * len(lines)
        hints: list[Hints] = [{} for _ in lines]
        k = 0
        for start, end, index in sorted(
            (a, b, i) for i, a, b in self._occurrences(joined, self._short)
        ):
            while k + 1 < len(offsets) and offsets[k + 1] <= start:
                k += 1
            first, last, line = stretches[k]
            if end > offsets[k] + last - first:
                continue  # it runs on past its stretch
            secret[line] = secret[line] or self._secret[index]
            at = start - offsets[k] + first - lines[line][0]  # where it is in its line
            for shape in self._shapes[index]:
                hints[line].setdefault(shape, []).append(at)
        return [(a, b, secret[n], hints[n]) for n, (a, b) in enumerate(lines)]


def in_text(data: bytes | bytearray, text: str, hints: Hints) -> Hints:
    """``hints`` (byte offsets into ``data``) as offsets into ``text``, ``data`` decoded."""
    if len(text) == len(data):  # ASCII: a byte is a character
        return hints
    # Every hint is ASCII, so each offset is a character boundary: the text before it is the
    # bytes before it decoded. Decoded piece by piece, from one offset to the next, the whole
    # line is decoded once however many hints it holds.
    offsets = sorted({at for ats in hints.values() for at in ats})
    chars, done, last = {}, 0, 0
    for at in offsets:
        done += len(data[last:at].decode("utf-8", "surrogatepass"))
        chars[at], last = done, at
    return {shape: [chars[at] for at in ats] for shape, ats in hints.items()}
