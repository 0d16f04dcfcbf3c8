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

#: Finds closer together than this many bytes are searched again as one stretch: a call costs
#: about as much as searching that many bytes.
NEAR = 256

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

    @functools.cached_property
    def _whole(self) -> tuple[Finder, Finder | None]:
        """The searches for every occurrence of the hints and of the secrets, for data of any
        length (a line, a value, a file); built when first asked: an import's writer never
        asks (it looks again only near what :meth:`lines` found, :attr:`_short`)."""
        hints = finder(self.needles[: self._split])
        return hints, finder(self._lowered) if self._lowered else None

    @functools.cached_property
    def _short(self) -> tuple[Finder, Finder | None]:
        """The same searches for :meth:`_near`'s short stretches (built for them)."""
        hints = finder(self.needles[: self._split], short_haystacks=True)
        return hints, finder(self._lowered, short_haystacks=True) if self._lowered else None

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
        secret, hints = False, {}
        for index, start, _end in self._occurrences(data, searches):
            secret = secret or self._secret[index]
            for shape in self._shapes[index]:
                hints.setdefault(shape, []).append(start)
        return secret, hints

    def lines(self, batch: bytes) -> list[tuple[int, int, bool, Hints]]:
        """For each line of ``batch`` (JSON lines, each ended by ``\\n``) that holds a needle:
        where it starts and ends (the newline left out), whether it holds a secret, and where
        in the line the hints of each shape are. Lines holding none are not listed.

        Two passes: the quick search names the lines holding some needle (a match never spans
        two lines, so every such line has one of its own), and every occurrence is then found
        by searching again only near what the quick search reported (:meth:`_near`)."""
        out: list[tuple[int, int, bool, Hints]] = []
        firsts = first_occurrences(self._first_hints, batch)
        if self._first_secrets is not None:
            firsts += first_occurrences(self._first_secrets, batch.lower())
        # In order along the batch (the stdlib's way reports needle by needle).
        found = sorted((start, end) for _index, start, end in firsts)
        k = 0
        while k < len(found):
            start = found[k][0]
            line_start = batch.rfind(b"\n", 0, start) + 1
            line_end = batch.find(b"\n", start)
            line_end = len(batch) if line_end < 0 else line_end
            last = k + 1  # past this line's finds
            while last < len(found) and found[last][0] < line_end:
                last += 1
            secret, hints = self._near(batch, found[k:last], line_start, line_end)
            out.append((line_start, line_end, secret, hints))
            k = last
        return out

    def _near(
        self, batch: bytes, found: list[tuple[int, int]], line_start: int, line_end: int
    ) -> tuple[bool, Hints]:
        """:meth:`what_is_in` of the line, asked only of the stretches around ``found`` (the
        quick search's finds in it, in order), each from a find's start to as far as the longest
        needle reaches past its end.

        That covers every occurrence: the quick search reports the leftmost match, then goes on
        from where it ends, so a needle it did not report starts inside one it did (of the same
        search), and ends at most a needle's length later. A line is often a long tool output
        that names a hint or two: it is searched again where they are, not all along."""
        reach = self._longest - 1
        stretches: list[list[int]] = []
        for start, end in found:
            end = min(end + reach, line_end)
            if stretches and start < stretches[-1][1] + NEAR:  # close: searched as one
                stretches[-1][1] = max(stretches[-1][1], end)
            else:
                stretches.append([start, end])
        secret, hints = False, {}
        for start, end in stretches:
            found_secret, found_at = self._found(batch[start:end], self._short)
            secret = secret or found_secret
            shift = start - line_start
            for shape, ats in found_at.items():
                hints.setdefault(shape, []).extend(at + shift for at in ats)
        return secret, hints


def in_text(data: bytes, text: str, hints: Hints) -> Hints:
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
