"""The one error users see: what went wrong and where, on a single line.

Anything the user gave us (a trace, a scenario, a transcript, a command-line value) that is wrong
raises :class:`UserError`; the command line prints ``str(error)`` to stderr and exits 2.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:  # only named: every command imports this module, most before any path
    from os import PathLike


class UserError(Exception):
    """Bad input: ``path:line: message`` (path and line when known)."""

    def __init__(
        self, message: str, path: str | PathLike[str] | None = None, line: int | None = None
    ):
        self.message = message
        self.path = str(path) if path is not None else None
        self.line = line
        super().__init__(str(self))

    def __str__(self) -> str:
        where = self.path or ""
        if where and self.line is not None:
            where = f"{where}:{self.line}"
        return f"{where}: {self.message}" if where else self.message
