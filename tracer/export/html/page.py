"""Put the page together: ``page.html`` with ``page.css``, the script and the data inlined.

One file that needs nothing else: it opens from ``file://`` or any static host, fetches nothing
(its Content-Security-Policy says ``default-src 'none'`` and allows only this page's own style
and script, by their SHA-256), and carries its data in ``<script type="application/json">``
blocks. The data is JSON escaped once, here: every ``<``, ``>`` and ``&`` becomes a ``\\u`` escape
(valid inside a JSON string, and the only place they can occur), so a tool output holding
``</script>`` cannot end the block, and U+2028/U+2029 are escaped for older parsers.

:func:`export_site` writes one page per bundled recording and an ``index.html`` listing them; the
pages link each other from their tables of contents.

The script is written as a few files of one job each (:data:`SCRIPT_PARTS`, in the order they
are joined: the data first, the start last), put by :func:`page_script` into one function, so
they share its names as one script would and nothing leaks onto ``window``. The page carries the
joined text, and its Content-Security-Policy hashes exactly that.
"""

from __future__ import annotations

import base64
import hashlib
import html
import json
import re
from collections.abc import Callable
from importlib.resources import files
from pathlib import Path
from typing import Any

from tracer import __version__
from tracer.export.html.payload import Payload, build
from tracer.export.whole_file import write_whole
from tracer.text.printable import printable_json

_ESCAPES = {
    "<": "\\u003c",
    ">": "\\u003e",
    "&": "\\u0026",
    "\u2028": "\\u2028",
    "\u2029": "\\u2029",
}
_UNSAFE = re.compile("[<>&\u2028\u2029]")
_SLOT = re.compile(r"\{\{(\w+)\}\}")
#: The replay page's script, one job a file, in the order :func:`page_script` joins them: each
#: later file uses names the earlier ones declare (their opening comments say what each does).
SCRIPT_PARTS = (
    "page_data.js",  # the meta, the chunks of steps (inflated when deflated), the reader's place
    "page_draw.js",  # a step's lines, the page around them, draw()
    "page_timeline.js",  # the table of contents and the timeline of turns
    "page_findings.js",  # the doctor's findings: the summary, and at each step
    "page_chart.js",  # the requests chart
    "page_search.js",  # the search index, its hits, the query marked in the step
    "page_print.js",  # printing the whole session
    "page_navigation.js",  # moving, the buttons and keys, the language switch, the start
)
#: Before and after the parts: one strict function around them all.
_SCRIPT_HEAD = (
    "// tracer's replay page: draws one step at a time from the data tracer wrote into this file.\n"
    "// Every word of a step was rendered by tracer's replay layers at export time (see\n"
    "// tracer/export/html/payload.py); this script only places lines, never decides what they\n"
    "// say. It is tracer/export/html/page_*.js, joined in one function by page.py.\n"
    '"use strict";\n'
    "(function () {\n"
)
_SCRIPT_TAIL = "})();\n"
#: Each language by its own name (the switch to it, as the page's language button says it).
_LANGUAGE_NAMES = {"zh": "中文", "en": "English"}


def asset(name: str) -> str:
    """One of the page's hand-written files, from the package (so the wheel carries them)."""
    return files("tracer.export.html").joinpath(name).read_text(encoding="utf-8")


def page_script() -> str:
    """The replay page's script: the :data:`SCRIPT_PARTS` joined, in order, in one function."""
    return _SCRIPT_HEAD + "\n".join(asset(name) for name in SCRIPT_PARTS) + _SCRIPT_TAIL


def script_json(text: str) -> str:
    """JSON text made safe inside a ``<script>`` element (see the module's note); the C1 range
    and the bidi controls become ``\\u`` escapes too (:func:`tracer.text.printable.printable_json`),
    so no raw control character sits in the page's DOM, even inside its data."""
    return _UNSAFE.sub(lambda m: _ESCAPES[m.group()], printable_json(text))


def csp_hash(text: str) -> str:
    return (
        "'sha256-" + base64.b64encode(hashlib.sha256(text.encode("utf-8")).digest()).decode() + "'"
    )


def fill_slots(template: str, values: dict[str, str]) -> str:
    """Each ``{{name}}`` replaced once (a value holding ``{{...}}`` is never filled again)."""
    return _SLOT.sub(lambda m: values[m.group(1)], template)


def chunk_element(number: int, text: str, kind: str = "chunk") -> str:
    """A chunk's script element (``kind`` ``chunk``: its lines, ``raw``: its raw JSON); a
    deflated one (a JSON string) says so in ``data-encoding``."""
    coded = ' data-encoding="deflate"' if text.startswith('"') else ""
    return (
        f'<script type="application/json" id="{kind}-{number}"{coded}>{script_json(text)}</script>'
    )


def page_html(payload: Payload, lang: str = "en") -> str:
    """The whole page for ``payload``."""
    meta = payload.meta
    style, script = asset("page.css"), page_script()
    csp = f"default-src 'none'; style-src {csp_hash(style)}; script-src {csp_hash(script)}"
    title = meta["name"] + (" · " + meta["title"].get(lang, "") if meta.get("title") else "")
    words = meta["words"]
    chunks = [
        chunk_element(n, text) + "\n" + chunk_element(n, raw, "raw")
        for n, (text, raw) in enumerate(zip(payload.chunks, payload.raws, strict=True))
    ]
    return fill_slots(
        asset("page.html"),
        {
            "lang": "zh-Hans" if lang == "zh" else "en",
            "csp": csp,
            "version": __version__,
            "title": html.escape(title),
            "style": style,
            "skip": html.escape(words["skip"][lang]),
            "journey": html.escape(words["journey"][lang]),
            "meta": script_json(json.dumps(meta, ensure_ascii=False, separators=(",", ":"))),
            "first_chunk": chunks[0] if chunks else "",
            "script": script,
            "chunks": "\n".join(chunks[1:]),
        },
    )


def export_page(trace: Path, output: Path, *, full: bool = False, lang: str = "en") -> int:
    """Write the page of ``trace`` to ``output``; its size in bytes."""
    return write_whole(output, page_html(build(trace, full=full), lang))


def page_name(short: str) -> str:
    """``faults/01-result-not-returned`` → ``faults-01-result-not-returned.html``."""
    return short.replace("/", "-") + ".html"


def export_site(
    folder: Path,
    *,
    full: bool = False,
    lang: str = "en",
    tour: Callable[..., Any] | None = None,
    beside: Callable[..., Any] | None = None,
) -> list[Path]:
    """A page per bundled recording in ``folder``, and ``index.html``; the files written.

    ``tour``: writes the tour's page from the guide, contents and links (the command passes
    :func:`tracer.export.html.tour_page.export_tour`, which builds on this module).
    ``beside``: writes a fault's comparison page with its good twin
    (:func:`tracer.export.html.beside.export_beside`), so a student can see each of the
    chapter's common errors beside the run that works, from the same folder."""
    from tracer.compare.twins import twin_of
    from tracer.files.paths import bundled_recordings, short_name
    from tracer.view.section_text import load_guide
    from tracer.view.sections import bundled_contents

    folder.mkdir(parents=True, exist_ok=True)
    recordings = bundled_recordings()
    links = {short_name(p): page_name(short_name(p)) for p in recordings}
    guide, _problem = load_guide()
    contents = bundled_contents(guide, recordings) if guide is not None else None
    written: list[Path] = []
    rows: list[dict[str, Any]] = []
    for path in recordings:
        payload = build(path, full=full, guide=guide, contents=contents, links=links)
        out = folder / links[short_name(path)]
        write_whole(out, page_html(payload, lang))
        written.append(out)
        rows.append({"href": out.name, "name": payload.meta["name"], "title": payload.meta["title"],
                     "count": payload.meta["count"]})  # fmt: skip
        twin = twin_of(path) if beside is not None else None
        if beside is not None and twin is not None:
            pair = folder / out.name.replace(".html", "-beside.html")
            beside(path, twin, pair, full=full, lang=lang)
            written.append(pair)
            rows[-1]["beside"] = pair.name
    made = tour(folder, guide, contents, links, lang) if tour and guide is not None else None
    written += [made] if made is not None else []
    # The front page in the language asked for, and in the other one, each linking the other.
    for each in (lang, *(other for other in ("zh", "en") if other != lang)):
        index = folder / index_name(each, lang)
        start = made.name if made is not None else None
        write_whole(index, index_html(rows, each, index_name(other_lang(each), lang), tour=start))
        written.append(index)
    return written


def other_lang(lang: str) -> str:
    return "en" if lang == "zh" else "zh"


def index_name(lang: str, first: str) -> str:
    """``index.html`` in the site's first language, ``index-zh.html`` (or ``-en``) in the other."""
    return "index.html" if lang == first else f"index-{lang}.html"


def index_html(
    rows: list[dict[str, Any]], lang: str, switch: str = "", tour: str | None = None
) -> str:
    """The site's front page: what the chapter is about, the tour's start (``tour``: its page),
    then every recording, its title and its number of steps; ``switch``: the same page in the
    other language."""
    from tracer.export.html.words import page_words

    words = page_words()
    style = asset("page.css")
    items = "\n".join(
        f'<li><a href="{html.escape(r["href"])}">{html.escape(r["name"])}</a>'
        f" · {html.escape(r['title'].get(lang, '') if r['title'] else '')}"
        f" ({html.escape(words['steps_n'][lang].format(n=r['count']))})"
        + (
            f' · <a class="beside-link" href="{html.escape(r["beside"])}">'
            f"{html.escape(words['index_beside'][lang])}</a>"
            if r.get("beside")
            else ""
        )
        + "</li>"
        for r in rows
    )
    heading = html.escape(words["index_title"][lang])
    start = ""
    if tour is not None:
        from tracer.export.html.tour_words import TOUR_PAGE

        start = (
            f'<p class="tour-start"><a href="{html.escape(tour)}">'
            f"{html.escape(TOUR_PAGE['index_tour'][lang])} →</a></p>\n"
        )
    other = other_lang(lang)
    language = (
        f'<p class="switch"><a href="{html.escape(switch)}" hreflang="{other}" lang="'
        f'{"zh-Hans" if other == "zh" else "en"}">{_LANGUAGE_NAMES[other]}'
        "</a></p>\n"
        if switch
        else ""
    )
    return (
        "<!doctype html>\n"
        f'<html lang="{"zh-Hans" if lang == "zh" else "en"}">\n<head>\n<meta charset="utf-8">\n'
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        '<meta http-equiv="Content-Security-Policy" '
        f"content=\"default-src 'none'; style-src {csp_hash(style)}\">\n"
        f"<title>{heading} · tracer</title>\n<style>{style}</style>\n</head>\n"
        f'<body class="index">\n<main>\n{language}<h1>{heading}</h1>\n'
        f'<p class="intro">{html.escape(words["index_intro"][lang])}</p>\n'
        f"{start}<ol>\n{items}\n</ol>\n</main>\n</body>\n</html>\n"
    )
