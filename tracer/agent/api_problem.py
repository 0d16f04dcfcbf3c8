"""One reason the Messages API would refuse a request, as :mod:`tracer.agent.api_rules` finds it.

A :class:`Problem` carries the API's own sentence (what the HTTP 400 ``invalid_request_error``
says) and, for the doctor, where it is (``messages.N``, ``content.M``) and which tool ids are
involved. The field checks (:mod:`tracer.agent.api_fields`) and the shape checks
(:mod:`tracer.agent.api_shape`) both make them.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Problem:
    """One reason the API would refuse a request."""

    code: str
    """``schema`` (a field missing or of the wrong type), ``first_not_user``,
    ``empty_content``, ``empty_text``, ``duplicate_tool_use_id``, ``unexpected_tool_use_id``,
    ``results_not_first`` or ``tool_use_without_result``."""
    text: str
    """The API's error message."""
    message_index: int | None = None
    block_index: int | None = None
    block_type: str | None = None
    """The type of the block the problem is in (``None`` for message-level problems)."""
    ids: tuple[str, ...] = ()
    """The tool ids involved (tool_use ids or tool_result ``tool_use_id`` values)."""
