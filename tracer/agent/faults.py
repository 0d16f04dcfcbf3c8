"""Faults: ways to break the loop on purpose, so the doctor has something to catch.

A fault scenario's ``faults:`` key becomes a :class:`Faults`. Each field is a place in the loop
where the chapter's table of common errors says things go wrong:

* ``drop_tool_result``: ``resultingMessages.push()`` is skipped for these tool_use ids (or
  ``"all"``), so the result never reaches the model;
* ``rewrite_tool_use_id``: the block is mapped with the wrong ``tool_use_id``;
* ``malform_block``: fields removed from, or set on, a mapped block;
* ``force_follow_up``: ``needs_follow_up`` stays true even when no tool was asked for;
* ``feedback_first``: ``addToolResult`` puts the permission feedback text *ahead of* the
  ``tool_result`` in the user message, instead of after it;
* ``send_unpatched``: not a break but a lens: the first request that Claude Code's
  ``ensureToolResultPairing`` has to patch is also sent once as the loop built it, so the trace
  shows the bare API's answer (HTTP 400) beside the patched request Claude Code sends.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass
class Faults:
    drop_tool_result: list[str] = field(default_factory=list)
    rewrite_tool_use_id: dict[str, str] = field(default_factory=dict)
    """Original id → the id written into the block instead."""
    malform_block: dict[str, dict[str, Any]] = field(default_factory=dict)
    """tool_use id → ``{"remove": [fields], "set": {field: value}}``."""
    force_follow_up: bool = False
    feedback_first: bool = False
    send_unpatched: bool = False

    def drops(self, tool_use_id: str) -> bool:
        return "all" in self.drop_tool_result or tool_use_id in self.drop_tool_result

    def break_block(self, block: dict[str, Any]) -> dict[str, Any]:
        """The block as this fault scenario mangles it (unchanged when no fault applies)."""
        original_id = block.get("tool_use_id", "")
        out = dict(block)
        if original_id in self.rewrite_tool_use_id:
            out["tool_use_id"] = self.rewrite_tool_use_id[original_id]
        spec = self.malform_block.get(original_id) or self.malform_block.get("all")
        if spec:
            for name in spec.get("remove", []):
                out.pop(name, None)
            out.update(spec.get("set", {}))
        return out

    @property
    def active(self) -> bool:
        return bool(
            self.drop_tool_result
            or self.rewrite_tool_use_id
            or self.malform_block
            or self.force_follow_up
            or self.feedback_first
        )
