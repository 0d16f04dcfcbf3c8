"""Autoplay (``a``): step forward on a timer, like asciinema's player; ``+`` and ``-`` change speed.

Kept apart from the app so the app only wires keys to it. It stops by itself at the last step,
unless the app is following a trace that is still being written.
"""

from __future__ import annotations

from collections.abc import Callable

from textual.timer import Timer

#: Speeds in steps per second; ``+`` and ``-`` move along this list.
SPEEDS = (0.5, 1.0, 2.0, 4.0, 8.0, 16.0)


class Autoplay:
    """A timer that calls ``tick`` ``SPEEDS[speed]`` times a second while playing.

    ``tick`` returns False to stop (the end was reached).
    """

    def __init__(self, set_interval: Callable[..., Timer], tick: Callable[[], bool]) -> None:
        self._set_interval = set_interval
        self._tick = tick
        self.speed = 2
        self.timer: Timer | None = None

    @property
    def playing(self) -> bool:
        return self.timer is not None

    @property
    def steps_per_second(self) -> float:
        return SPEEDS[self.speed]

    def toggle(self) -> None:
        if self.timer is not None:
            self.stop()
        else:
            self.timer = self._set_interval(1 / SPEEDS[self.speed], self._step)

    def stop(self) -> None:
        if self.timer is not None:
            self.timer.stop()
            self.timer = None

    def change_speed(self, delta: int) -> None:
        self.speed = max(0, min(self.speed + delta, len(SPEEDS) - 1))
        if self.timer is not None:  # restart at the new pace
            self.stop()
            self.toggle()

    def _step(self) -> None:
        if not self._tick():
            self.stop()
