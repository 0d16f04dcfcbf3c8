"""The chapter panel: the chapter's words for the current step, beside the step view.

Two of these stack on the right of the screen: the top one says what this kind of step is in the
book's terms (and which checkpoint lands here), the bottom one shows the chapter's section for
the step (notes, source anchors, where tracer or Claude Code 2.1.88 differs). The app hands each
its text (:mod:`tracer.view.section_text`, :mod:`tracer.view.chapter_panel`); the panel only wraps
and scrolls it, as every :class:`~tracer.replay.widgets.pager.Pager` does.
"""

from __future__ import annotations

from tracer.replay.widgets.pager import Pager


class ChapterPanel(Pager):
    """The chapter's section for this step: notes, source anchors, fidelity, checkpoint."""
