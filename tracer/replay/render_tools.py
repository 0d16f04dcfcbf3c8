"""The tool steps as Rich text, under the name callers import them by.

The work is done by the modules of each station: :mod:`render_mapping` (station 1: the tool
runs, ① 翻译 maps its output to a ``tool_result`` block), :mod:`render_wrapping` (station 2: the
permission gate, ② 包装 wraps the block in a user message) and, below both,
:mod:`render_output` (each tool's raw output) and :mod:`render_parts` (titles, fields, blocks).
This module only gathers their names, so ``from tracer.replay.render_tools import ...`` keeps
working.
"""

from __future__ import annotations

from tracer.replay.i18n import say
from tracer.replay.render_mapping import kept_copy, render_mapping, render_tool_run
from tracer.replay.render_output import (
    diff_text,
    failed_raw_note,
    line_range,
    raw_output_text,
    shown_path,
)
from tracer.replay.render_parts import ERROR, LABEL, block_text, content_text, indented
from tracer.replay.render_wrapping import render_wrapping

__all__ = [
    "ERROR",
    "LABEL",
    "block_text",
    "content_text",
    "diff_text",
    "failed_raw_note",
    "indented",
    "kept_copy",
    "line_range",
    "raw_output_text",
    "render_mapping",
    "render_tool_run",
    "render_wrapping",
    "say",
    "shown_path",
]
