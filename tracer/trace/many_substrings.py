"""Every place where any of many byte strings occurs, in one pass over the data.

The redactor looks for a few dozen needles in everything the writer writes: the credential
shapes' hints (``sk_``, ``eyJ``, ``-----BEGIN``) and each known secret in every form it can take
(base64, hex, JSON-escaped, …). Searched one needle at a time, that is one pass over the data
per needle, and the passes cost an import more than its JSON. An Aho-Corasick automaton finds
them all at once: it reads each byte once, whatever the number of needles. ``ahocorasick-rs``
(a Rust library with a Python wheel) builds one; where its wheel is missing,
:class:`OneAtATime` gives the same answers with ``bytes.find``, a pass per needle, as before.

Answers are ``(needle index, start, end)`` for *every* occurrence, overlapping ones included,
so that one needle found inside another never hides it. Their order is not part of the answer.

A batch of lines is searched a cheaper way first (:func:`first_finder`): most lines hold no
needle, and to tell which do, one occurrence per line is enough. That search may skip an
occurrence that overlaps one it reported, so it finds *where* to look, not *what* is there; the
few lines it names are then searched again, every occurrence, by the automaton above.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence

try:  # compiled code: without its wheel the search takes the stdlib's way
    import ahocorasick_rs as _aho
except ImportError:  # pragma: no cover - depends on the platform
    _aho = None  # type: ignore[assignment]  # no wheel: the checks below ask

#: Up to this many bytes of needles, the automaton is built as a DFA: the fastest to search
#: (about 1.5 ms per MB here, against 3.5 for the contiguous NFA) but the slowest to build
#: (about 0.6 µs per needle byte: 5 ms at this bound). An environment with many long secrets
#: (each has a dozen encoded forms) gets the NFA, which builds six times faster.
DFA_BOUND = 8_000


TYPE_CHECKING = False
if TYPE_CHECKING:  # only named: typing costs 12M instructions to import, and no search needs it
    from typing import Protocol

    class Finder(Protocol):
        def find_matches_as_indexes(
            self, haystack: bytes | bytearray, overlapping: bool = False
        ) -> list[tuple[int, int, int]]: ...


class OneAtATime:
    """The stdlib's way: one ``bytes.find`` pass per needle, every occurrence reported."""

    def __init__(self, needles: Sequence[bytes]) -> None:
        self.needles = list(needles)

    def find_matches_as_indexes(
        self, haystack: bytes | bytearray, overlapping: bool = False
    ) -> list[tuple[int, int, int]]:
        found: list[tuple[int, int, int]] = []
        for index, needle in enumerate(self.needles):
            at = haystack.find(needle)
            step = 1 if overlapping else len(needle)  # overlapping: the next one may start inside
            while at >= 0:
                found.append((index, at, at + len(needle)))
                at = haystack.find(needle, at + step)
        return found


def finder(needles: Sequence[bytes], *, short_haystacks: bool = False) -> Finder:
    """A search for ``needles`` (none of them empty), built once per set of needles: every
    writer of a process (a folder import writes one trace per session) shares it.

    ``short_haystacks``: it will search only short stretches (a few hundred bytes each, what an
    import's writer looks at again, :meth:`~tracer.trace.secret_scan.SecretScan.lines`), so it
    is built as the contiguous NFA: a third of the DFA's build, for a search that would be two
    and a half times slower on long data."""
    return _build(tuple(needles), _aho is not None, first=False, nfa=short_haystacks)


def first_finder(needles: Sequence[bytes]) -> Finder:
    """A search for ``needles`` that reports non-overlapping occurrences, leftmost first: every
    stretch of the data holding a needle holds a reported one that starts or overlaps there.
    Three times faster than :func:`finder` here: with the leftmost-first semantics the automaton
    can skip ahead with a vectorized prefilter (Teddy), which an overlapping search cannot use."""
    return _build(tuple(needles), _aho is not None, first=True)


@functools.lru_cache(maxsize=16)
def _build(needles: tuple[bytes, ...], compiled: bool, *, first: bool, nfa: bool = False) -> Finder:
    if not compiled or _aho is None or not needles:
        # Every occurrence: for a first_finder, more than is asked, never less.
        return OneAtATime(needles)
    size = sum(len(n) for n in needles)
    dfa = size <= DFA_BOUND and not nfa
    kind = _aho.Implementation.DFA if dfa else _aho.Implementation.ContiguousNFA
    if first:
        return ByLength(needles, kind)
    return _aho.BytesAhoCorasick(list(needles), implementation=kind)


#: Needles of at most this many bytes (the shortest credential hints) are searched apart from
#: the longer ones by a :func:`first_finder`: see :class:`ByLength`.
SHORT = 3


#: Up to this many needles, a leftmost-first search is done by the automaton's vectorized
#: prefilter (Teddy), not by the automaton: on an import's trace 40 or 64 needles cost the same
#: to search built as a DFA or as a contiguous NFA, 100 cost 2.2 times as much as an NFA. So a
#: :class:`ByLength` group this small is built as the NFA, for a third of the DFA's build.
PREFILTERED = 64


class ByLength:
    """A leftmost-first search made of two: the short needles (the credential hints ``sk-``,
    ``eyJ``, ``xox``, …), and the rest. Searched together, the few short ones slowed the
    prefilter for all (measured, not derived from how it works): on a real import's trace,
    0.36 ms a pass for the 28 hints alone and 0.50 ms with three secrets' forms added, against
    0.14 ms and 0.16 ms for the two searches.
    Each reports its own leftmost-first occurrences, so together they report at least what one
    search would: every stretch holding a needle still holds a reported one."""

    def __init__(self, needles: Sequence[bytes], kind: _aho.Implementation) -> None:
        groups = (
            [i for i, n in enumerate(needles) if len(n) <= SHORT],
            [i for i, n in enumerate(needles) if len(n) > SHORT],
        )
        self._searches = [
            (
                ids,
                _aho.BytesAhoCorasick(
                    [needles[i] for i in ids],
                    matchkind=_aho.MatchKind.LeftmostFirst,
                    implementation=(
                        _aho.Implementation.ContiguousNFA if len(ids) <= PREFILTERED else kind
                    ),
                ),
            )
            for ids in groups
            if ids
        ]

    def find_matches_as_indexes(
        self, haystack: bytes | bytearray, overlapping: bool = False
    ) -> list[tuple[int, int, int]]:
        # Never asked to overlap: the leftmost-first kind cannot (see first_finder).
        found: list[tuple[int, int, int]] = []
        for ids, search in self._searches:  # each group's indexes back to the needles'
            found += [
                (ids[k], start, end) for k, start, end in search.find_matches_as_indexes(haystack)
            ]
        return found


def first_occurrences(search: Finder, haystack: bytes | bytearray) -> list[tuple[int, int, int]]:
    """Non-overlapping ``(needle, start, end)`` of a :func:`first_finder` search."""
    return search.find_matches_as_indexes(haystack)


def occurrences(search: Finder, haystack: bytes | bytearray) -> list[tuple[int, int, int]]:
    """Every ``(needle, start, end)`` in ``haystack``, overlapping ones included."""
    return search.find_matches_as_indexes(haystack, overlapping=True)
