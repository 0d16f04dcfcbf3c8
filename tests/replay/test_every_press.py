"""Every key press is applied, in order, however fast they come: a terminal that sends many
keys in one write (a held →, typing over ssh) moves as many steps as keys were pressed."""

from __future__ import annotations

from typing import Any

import pytest
from replay_helpers import drive, make_app
from textual import events


def _burst(app: Any, keys: list[str]) -> None:
    """Post ``keys`` to the app at once, as the driver does for one read of the terminal."""
    for key in keys:
        app.post_message(events.Key(key, "<" if key == "less_than_sign" else None))


@pytest.mark.parametrize(
    "keys, start, expected",
    [
        (["right"] * 20, 0, 20),
        (["right"] * 50, 0, 35),  # the fixture's last step
        (["right"] * 12 + ["left"] * 5, 0, 7),
        (["left"] * 7 + ["right"] * 2, 10, 5),
        (["right"] * 3 + ["less_than_sign"] + ["right"] * 4, 10, 4),
    ],
)
def test_keys_sent_in_one_write_are_each_applied_in_order(
    keys: list[str], start: int, expected: int
) -> None:
    app = make_app(step=start)

    async def script(pilot: Any) -> None:
        _burst(app, keys)
        await pilot.pause()
        await pilot.pause()

    drive(app, script)
    assert app.replay.step == expected
