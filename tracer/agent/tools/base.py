"""What every tool is: a name, a schema, a call, and its own mapping to a ``tool_result`` block.

Mirrors Claude Code's ``Tool`` interface (``Tool.ts``): ``isConcurrencySafe``,
``maxResultSizeChars``, ``validateInput``, ``call`` and ``mapToolResultToToolResultBlockParam``.
The mapping is the chapter's "first station": each tool decides how its raw output looks to the
model, and that raw output is still kept whole as ``tool_use_result``.
"""

from __future__ import annotations

import contextlib
import math
import os
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar

from tracer.agent.processes import kill_group
from tracer.agent.sandbox import Launch, Sandbox, allowlisted_environ, launch
from tracer.agent.tools.wall import Mode, NotAllowed, Opened, Outside, open_inside
from tracer.agent.totals import Totals, over_workspace


class ToolFailure(Exception):
    """A failure the tool reports to the model as an ``is_error`` result (not a crash)."""

    def __init__(self, content: str, output: Any = None) -> None:
        super().__init__(content)
        self.content = content
        self.output = output if output is not None else f"Error: {content}"


class FileMissing(ToolFailure):
    """The path names no file: a tool may answer it in its own words (Read does, as 2.1.88's)."""


@dataclass
class ToolContext:
    """What a tool may touch: the session's workspace and what it has read so far."""

    workspace: Path
    bash_timeout_s: float = 120.0
    env: dict[str, str] = field(default_factory=dict)
    """Fixed values every command gets on top of the allowlisted environment."""
    sandbox: Sandbox | None = None
    """Where Bash runs walled in; ``None`` runs it directly (allowlisted environment only)."""
    redact: Callable[[Any], Any] = lambda value: value
    """Removes secret values from a tool's raw output before anything else sees it."""
    read_file_state: dict[str, float] = field(default_factory=dict)
    """Path → mtime when Read last saw it; Edit refuses files not read first (or changed since)."""
    readable_roots: list[Path] = field(default_factory=list)
    results_dir: Path | None = None
    """Where a command's overflowing output is kept (the session's ``tool-results``)."""
    running: set[int] = field(default_factory=set)
    """Process groups of commands still running, so Ctrl-C can stop them all."""
    totals: Totals = field(default_factory=Totals)
    """What the whole sandbox may take: memory, ``/tmp``, the workspace (:mod:`..totals`)."""
    stopped: str | None = None
    """Why the session must end after this batch of calls (a total was passed), if it must."""

    def kill_running(self) -> None:
        for pgid in list(self.running):
            kill_group(pgid)

    def launch(
        self, argv: list[str], notes: list[str] | None = None
    ) -> contextlib.AbstractContextManager[Launch]:
        """The command line that runs ``argv`` walled in, and the descriptors to pass it;
        what the walls did to it (a process killed for the memory total) goes to ``notes``."""
        return launch(argv, self.workspace, self.sandbox, self.totals.memory_bytes, notes)

    def check_workspace(self) -> str | None:
        """After a command: past the workspace total, the reason the session ends (kept in
        :attr:`stopped`), else ``None``."""
        reason = over_workspace(self.workspace, self.totals)
        if reason is not None:
            self.stopped = reason
        return reason

    def command_environ(self) -> dict[str, str]:
        return allowlisted_environ(self.workspace, self.env)

    def resolve(self, path: str, *, reading: bool = False) -> Path:
        """An absolute path inside the workspace, or a :class:`ToolFailure`: the early check of
        ``validate_input``. The work itself opens through :meth:`open`, which checks again on
        the descriptor it opens (the path may have changed in between).

        Relative paths count from the workspace; anything that resolves outside it is refused, so a
        scripted or real model can never read or edit the reader's own files. Reading may also
        reach ``readable_roots``: the session's ``tool-results`` folder, where a too-large result
        was saved and which the ``<persisted-output>`` preview tells the model to read.
        """
        try:
            p = Path(path)
            if not p.is_absolute():
                p = self.workspace / p
            resolved = Path(os.path.realpath(p))
            roots = [self.workspace, *(self.readable_roots if reading else [])]
            inside = any(_inside(resolved, Path(os.path.realpath(root))) for root in roots)
        except (OSError, ValueError, RuntimeError):  # a NUL byte, a name too long, a loop
            raise ToolFailure(f"Path {path!r} cannot be used.") from None
        if not inside:
            raise self._outside(path)
        return resolved

    def _outside(self, path: str) -> ToolFailure:
        return ToolFailure(
            f"Path {path} is outside the session's workspace ({self.workspace}); "
            "tracer only lets tools touch files inside it."
        )

    def open(self, path: str, mode: Mode, *, make_parents: bool = False) -> Opened:
        """Open ``path`` once, walking from the workspace's descriptor (:mod:`.wall`): what is
        checked is what is used. Failures are :class:`ToolFailure`."""
        roots = [self.workspace, *(self.readable_roots if mode == "read" else [])]
        try:
            return open_inside(
                path, roots, base=self.workspace, mode=mode, make_parents=make_parents
            )
        except Outside:
            raise self._outside(path) from None
        except NotAllowed as why:
            raise ToolFailure(f"{path}: {why}.") from None
        except FileNotFoundError:
            raise FileMissing(f"File does not exist: {path}") from None
        except IsADirectoryError:
            raise ToolFailure(f"{path} is a directory.") from None
        except OSError as exc:
            raise ToolFailure(f"{path}: {exc.strerror or type(exc).__name__}") from None

    def inside(self, path: Path) -> bool:
        """Is ``path``, once every symlink is followed, inside the workspace?"""
        try:
            return _inside(Path(os.path.realpath(path)), Path(os.path.realpath(self.workspace)))
        except (OSError, ValueError):
            return False


def _inside(path: Path, root: Path) -> bool:
    return path == root or root in path.parents


class Tool:
    """Base class; subclasses set the class attributes and implement :meth:`call` and
    :meth:`map_result`."""

    name: ClassVar[str]
    description: ClassVar[str]
    input_schema: ClassVar[dict[str, Any]]
    max_result_size_chars: ClassVar[float] = 50_000
    read_only: ClassVar[bool] = False

    def is_concurrency_safe(self, tool_input: dict[str, Any]) -> bool:
        """May this call run at the same time as other safe calls? (Claude Code's default: no.)"""
        return self.read_only

    def validate_input(self, tool_input: dict[str, Any], ctx: ToolContext) -> str | None:
        """A reason the call cannot run, checked before it runs; ``None`` when it can."""
        return None

    def call(self, tool_input: dict[str, Any], ctx: ToolContext) -> Any:
        raise NotImplementedError

    def map_result(self, output: Any, tool_use_id: str) -> dict[str, Any]:
        raise NotImplementedError

    def to_api(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "description": self.description,
            "input_schema": self.input_schema,
        }

    @property
    def persistence_threshold(self) -> float:
        """Above this many characters a result is saved to a file; Read never is (``inf``)."""
        if math.isinf(self.max_result_size_chars):
            return math.inf
        return min(self.max_result_size_chars, DEFAULT_MAX_RESULT_SIZE_CHARS)


DEFAULT_MAX_RESULT_SIZE_CHARS = 50_000

_JSON_TYPES: dict[str, tuple[type, ...]] = {
    "string": (str,),
    "number": (int, float),
    "integer": (int,),
    "boolean": (bool,),
    "object": (dict,),
    "array": (list,),
}


def _type_name(value: Any) -> str:
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int | float):
        return "number"
    if value is None:
        return "null"
    for name, types in _JSON_TYPES.items():
        if isinstance(value, types):
            return name
    return type(value).__name__


def schema_issues(schema: dict[str, Any], tool_input: Any) -> list[str]:
    """Each way ``tool_input`` breaks the tool's schema, worded like Claude Code's messages."""
    if not isinstance(tool_input, dict):
        return [f"The input is expected as `object` but provided as `{_type_name(tool_input)}`"]
    props: dict[str, Any] = schema.get("properties", {})
    issues = [
        f"The required parameter `{name}` is missing"
        for name in schema.get("required", [])
        if name not in tool_input
    ]
    # Grouped as formatZodValidationError (toolErrors.ts) lists them: missing parameters, then
    # unexpected ones, then type mismatches.
    issues += [
        f"An unexpected parameter `{name}` was provided" for name in tool_input if name not in props
    ]
    for name, value in tool_input.items():
        if name not in props:
            continue
        expected = props[name].get("type")
        ok = expected is None or (
            isinstance(value, _JSON_TYPES[expected])
            and not (expected in ("number", "integer") and isinstance(value, bool))
        )
        if not ok:
            issues.append(
                f"The parameter `{name}` type is expected as `{expected}` "
                f"but provided as `{_type_name(value)}`"
            )
    return issues
