"""The tour page (``tour.html`` of ``tracer export --all --format html``): ``tracer tour`` in a
browser, for a reader with no Python.

Put together like the replay page (:mod:`.page`): ``tour.html`` with ``page.css`` and
``tour.css`` (the replay page's look, so a step reads the same, and the tour's own layout) and
``tour.js`` inlined, the data (:func:`.tour_payload.tour_data`) in a
``<script type="application/json">`` block escaped by :func:`.page.script_json`, and a
Content-Security-Policy of ``default-src 'none'`` that allows only this page's own style and
script by their SHA-256. It fetches nothing; it links to the recordings' pages beside it
(``name.html#step-N``), which opens from ``file://`` as from any static host.

The reader's answers and the stop they are at are kept in the browser (``localStorage``, key
``tracer-tour``), as ``tracer tour`` keeps them in ``tour.json``.
"""

from __future__ import annotations

import html
import json
from pathlib import Path
from typing import Any

from tracer import __version__
from tracer.export.html.page import asset, csp_hash, fill_slots, script_json
from tracer.export.html.tour_payload import tour_data
from tracer.export.html.tour_words import tour_page_words
from tracer.export.whole_file import write_whole

TYPE_CHECKING = False
if TYPE_CHECKING:  # only named in annotations
    from tracer.chapter.guide_records import Guide
    from tracer.view.sections import Contents

#: The tour page's file name in the site.
TOUR_PAGE = "tour.html"


def tour_html(data: dict[str, Any], lang: str = "en") -> str:
    """The whole tour page for ``data`` (:func:`~.tour_payload.tour_data`)."""
    words = tour_page_words()
    data = {**data, "words": {**data["words"], **words}}
    style = asset("page.css") + "\n" + asset("tour.css")
    script = asset("tour.js")
    csp = f"default-src 'none'; style-src {csp_hash(style)}; script-src {csp_hash(script)}"
    return fill_slots(
        asset("tour.html"),
        {
            "lang": "zh-Hans" if lang == "zh" else "en",
            "csp": csp,
            "version": __version__,
            "heading": html.escape(words["heading"][lang]),
            "style": style,
            "data": script_json(json.dumps(data, ensure_ascii=False, separators=(",", ":"))),
            "script": script,
        },
    )


def export_tour(
    folder: Path, guide: Guide, contents: Contents, links: dict[str, str], lang: str = "en"
) -> Path | None:
    """Write ``tour.html`` into ``folder`` (None, and nothing written, when the guide plans no
    stop: there is no tour to take)."""
    data = tour_data(guide, contents, links)
    if not data["stops"]:
        return None
    out = folder / TOUR_PAGE
    write_whole(out, tour_html(data, lang))
    return out


__all__ = ["TOUR_PAGE", "export_tour", "tour_html"]
