"""Chain.is_ancestor keeps the last walk that reached a root; the answers must be those of a
plain walk up the parentUuid links, whatever was asked before (side branches, cycles, records
missing from the file, a step limit)."""

from __future__ import annotations

import random

from tracer.importers.claude_code.census import take_census
from tracer.importers.claude_code.chain import Chain


def _plain(parents: dict[str, str | None], older: str, uid: str | None, limit: int) -> bool:
    """The definition: ``older`` is among the first ``limit`` records walking up from ``uid``."""
    for _ in range(limit):
        if uid is None:
            return False
        if uid == older:
            return True
        uid = parents.get(uid)
    return False


def _chain(parents: dict[str, str | None]) -> Chain:
    records = [
        (n, {"uuid": u, "type": "user", "parentUuid": p, "message": {"content": "x"}})
        for n, (u, p) in enumerate(parents.items(), 1)
    ]
    return Chain(take_census(records), [])


def test_a_walk_that_joins_the_kept_one_gives_the_plain_answer() -> None:
    # a <- b <- c <- d, and a side branch b <- x <- y; "gone" is named but not in the file.
    parents = {"a": None, "b": "a", "c": "b", "d": "c", "x": "b", "y": "x", "z": "gone"}
    chain = _chain(parents)
    asked = [("z", "d"), ("a", "y"), ("x", "d"), ("b", "y"), ("d", "a"), ("gone", "z")]
    for limit in (10_000, 2):
        for older, uid in asked:
            assert chain.is_ancestor(older, uid, limit) == _plain(parents, older, uid, limit)
    assert chain.is_ancestor("b", "y") and not chain.is_ancestor("x", "d")


def test_random_files_with_cycles_answer_as_the_plain_walk() -> None:
    rng = random.Random(12)
    for _ in range(300):
        n = rng.randint(1, 12)
        names = [f"u{i}" for i in range(n + 3)]  # the last three are never written
        parents = {names[i]: rng.choice([None, *names]) for i in range(n)}
        chain = _chain(parents)
        for _ in range(20):
            older, uid, limit = rng.choice(names), rng.choice(names), rng.choice([10_000, 4])
            assert chain.is_ancestor(older, uid, limit) == _plain(parents, older, uid, limit)
