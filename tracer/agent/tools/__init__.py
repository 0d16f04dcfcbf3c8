"""The tools a session can use, one module each; :data:`DEFAULT_TOOLS` names them in order."""

from __future__ import annotations

from tracer.agent.tools.base import Tool, ToolContext, ToolFailure, schema_issues
from tracer.agent.tools.bash import BashTool
from tracer.agent.tools.edit import EditTool, WriteTool
from tracer.agent.tools.grep import GrepTool
from tracer.agent.tools.read import ReadTool
from tracer.agent.tools.search import GlobTool

DEFAULT_TOOLS: tuple[type[Tool], ...] = (
    BashTool,
    ReadTool,
    EditTool,
    WriteTool,
    GlobTool,
    GrepTool,
)


def tool_registry(names: list[str] | None = None) -> dict[str, Tool]:
    """Instances of the named tools (all of them by default), keyed by name."""
    tools = {cls.name: cls() for cls in DEFAULT_TOOLS}
    if names is None:
        return tools
    unknown = [n for n in names if n not in tools]
    if unknown:
        raise KeyError(", ".join(unknown))
    return {n: tools[n] for n in names}


__all__ = ["DEFAULT_TOOLS", "Tool", "ToolContext", "ToolFailure", "schema_issues", "tool_registry"]
