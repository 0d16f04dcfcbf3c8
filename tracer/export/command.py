"""``tracer export TRACE --format md|mermaid|otlp-json|html [-o OUT]`` or ``--otlp-endpoint [URL]``.

``--format html`` writes one self-contained page that replays the trace in a browser
(:mod:`tracer.export.html`); ``tracer export --all --format html -o site/`` writes a page per
bundled recording and an index page.

Light at import time (``tracer --help`` loads it); the format modules load when the command runs.
``--otlp-endpoint`` sends the same spans ``otlp-json`` writes to a collector
(:mod:`tracer.export.otlp.http`); without a URL it uses ``OTEL_EXPORTER_OTLP_ENDPOINT``.
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys
from pathlib import Path
from typing import Any

from tracer.arguments import printed_or_file
from tracer.export.whole_file import whole_file, write_whole
from tracer.text.printable import printable, printable_json

TYPE_CHECKING = False
if TYPE_CHECKING:  # only named: the OTLP export is imported when it is asked for
    from tracer.export.otlp.document import Options

FORMATS = {
    "md": "tracer.export.markdown",
    "mermaid": "tracer.export.mermaid",
    "otlp-json": "tracer.export.otlp.document",
}
#: Formats written by a module of their own rather than through :func:`export_text`.
PAGE_FORMATS = ("html",)
#: ``--otlp-endpoint`` given without a URL: take it from the environment.
FROM_ENV = ""
#: ``--beside`` given without a trace: the bundled fault's good twin.
TWIN = Path("")


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "export",
        help="write a trace as Markdown, a Mermaid diagram, OTLP/JSON spans or a web page that "
        "replays it, or send the spans to a tracing backend",
        description="Export a trace for the tools people already use: md (a walk-through, one "
        "section per turn), mermaid (a sequence diagram), otlp-json (OpenTelemetry GenAI spans "
        "for Jaeger, Langfuse or Phoenix), html (one self-contained page that steps through the "
        "trace in a browser); or POST those spans to a collector over OTLP/HTTP.",
    )
    parser.add_argument("trace", type=Path, metavar="TRACE", nargs="?")
    parser.add_argument(
        "--all",
        action="store_true",
        help="with --format html: a page for every bundled recording, and an index page, in "
        "the folder -o names",
    )
    parser.add_argument(
        "--beside",
        nargs="?",
        const=TWIN,
        type=Path,
        metavar="B",
        help="with --format html: compare TRACE with the trace B on one page, step beside step "
        "(aligned by turn and step of the journey, the differences summed up first); without B, "
        "a bundled fault is compared with the good run it breaks",
    )
    parser.add_argument(
        "--full",
        action="store_true",
        help="with --format html: keep long outputs whole instead of folding them as the "
        "replay does",
    )
    parser.add_argument(
        "--lang",
        choices=("zh", "en"),
        default="en",
        help="with --format html: the language a page opens in (the reader can switch)",
    )
    how = parser.add_mutually_exclusive_group(required=True)
    how.add_argument("--format", "-f", choices=sorted([*FORMATS, *PAGE_FORMATS]))
    how.add_argument(
        "--otlp-endpoint",
        nargs="?",
        const=FROM_ENV,
        metavar="URL",
        help="send the spans over OTLP/HTTP to URL (/v1/traces is added unless given); without "
        "URL, to OTEL_EXPORTER_OTLP_[TRACES_]ENDPOINT. Headers come from "
        "OTEL_EXPORTER_OTLP_HEADERS",
    )
    parser.add_argument(
        "--otlp-protocol",
        choices=("http/protobuf", "http/json"),
        help="with --otlp-endpoint: the encoding (default OTEL_EXPORTER_OTLP_PROTOCOL, else "
        "http/protobuf)",
    )
    parser.add_argument(
        "--otlp-content",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="OTLP: send what each request held (messages, system prompt, tool definitions, "
        "tool arguments and results), the GenAI conventions' opt-in content. Default: on for "
        "recordings (redacted), off for imported sessions",
    )
    parser.add_argument(
        "--otlp-max-content",
        type=int,
        default=None,
        metavar="BYTES",
        help="OTLP: keep each span's input messages under BYTES (the prompt and the newest "
        "messages; a marker says what was left out). Default 16000; 0 keeps everything",
    )
    parser.add_argument(
        "--shift-to-now",
        action="store_true",
        help="OTLP: move the session so that it ends now, its shape kept (by default the "
        "trace's own times are kept, so an old import may fall outside a backend's default "
        "window)",
    )
    parser.add_argument(
        "-o",
        "--output",
        type=printed_or_file,
        metavar="OUT",
        help="write here instead of standard output (- is standard output)",
    )
    parser.set_defaults(func=_export)


def export_text(trace: Path, fmt: str, options: Options | None = None) -> str:
    """The export of ``trace`` in ``fmt`` as text (``options``: OTLP's :class:`Options`)."""
    from tracer.export.walk import walk

    if fmt == "otlp-json" and options is not None:
        from tracer.export.otlp.document import payload, to_json

        return to_json(payload(walk(trace), options)) + "\n"
    module = importlib.import_module(FORMATS[fmt])
    return module.render(walk(trace))


def _write_otlp(trace: Path, output: Path | None, options: Options) -> None:
    """The OTLP/JSON document, written a span at a time
    (:func:`~tracer.export.otlp.document.write_json`) into ``output`` or, with its C1 and bidi
    controls escaped (the same JSON value), to stdout."""
    from tracer.export.otlp.document import write_json
    from tracer.export.walk import walk

    w = walk(trace)
    if output is None:
        write_json(w, lambda piece: sys.stdout.write(printable_json(piece.decode())), options)
        return
    # Hundreds of megabytes, renamed into place once whole (see tracer.export.whole_file).
    with whole_file(output) as out:
        write_json(w, out.write, options)
    print(printable(f"wrote {output}"), file=sys.stderr)


def otlp_options(args: argparse.Namespace, salt: str = "") -> Options:
    """The OTLP export's options from the command line."""
    from tracer.errors import UserError
    from tracer.export.otlp.content import DEFAULT_LIMIT
    from tracer.export.otlp.document import Options

    limit = DEFAULT_LIMIT if args.otlp_max_content is None else args.otlp_max_content
    if limit < 0:
        raise UserError("--otlp-max-content: give a number of bytes (0 keeps everything)")
    return Options(salt, args.otlp_content, limit, args.shift_to_now)


def send(
    trace: Path, endpoint: str | None, protocol: str | None, options: Options | None = None
) -> tuple[int, str, str]:
    """POST the trace's spans; (spans sent, trace id, where) for the one line the command prints.

    Each send gets fresh ids (a random salt): two people sending the same bundled recording to
    one server, or one person sending it twice, make separate traces rather than colliding spans.
    """
    from tracer.errors import UserError
    from tracer.export.otlp.document import Options, payload
    from tracer.export.otlp.http import target_from
    from tracer.export.otlp.send import post
    from tracer.export.walk import walk

    target = target_from(endpoint or None, protocol)
    options = options or Options()
    options.salt = os.urandom(8).hex()
    body = payload(walk(trace), options)
    spans = body["resourceSpans"][0]["scopeSpans"][0]["spans"]
    if not spans:
        raise UserError("no spans to send", trace)
    sent = post(body, target)
    return sent, spans[0]["traceId"], f"{target.shown} ({target.protocol})"


def _export_html(args: argparse.Namespace) -> int:
    from tracer.errors import UserError
    from tracer.export.html.page import export_page, export_site

    if args.output is None:
        raise UserError(
            "--format html writes files, not standard output: give -o PAGE.html "
            "(a folder with --all)"
        )
    if args.all:
        from tracer.export.html.beside import export_beside
        from tracer.export.html.tour_page import export_tour

        written = export_site(
            args.output, full=args.full, lang=args.lang, tour=export_tour, beside=export_beside
        )
        print(printable(f"wrote {len(written)} pages into {args.output}"), file=sys.stderr)
        return 0
    if args.beside is not None:
        return _export_beside(args)
    size = export_page(args.trace, args.output, full=args.full, lang=args.lang)
    print(printable(f"wrote {args.output} ({size:,} bytes)"), file=sys.stderr)
    return 0


def _export_beside(args: argparse.Namespace) -> int:
    from tracer.compare.twins import no_twin, twin_of
    from tracer.errors import UserError
    from tracer.export.html.beside import export_beside
    from tracer.files.paths import resolve_trace

    other = resolve_trace(args.beside) if args.beside != TWIN else twin_of(args.trace)
    if other is None:
        raise UserError(no_twin(args.trace))
    for path in (args.trace, other):
        if not path.is_file():
            raise UserError(f"{path}: no such trace file")
    size = export_beside(args.trace, other, args.output, full=args.full, lang=args.lang)
    print(printable(f"wrote {args.output} ({size:,} bytes): {args.trace} beside {other}"),
          file=sys.stderr)  # fmt: skip
    return 0


def _export(args: argparse.Namespace) -> int:
    from tracer.errors import UserError

    if args.all and args.trace is not None:
        raise UserError("give a TRACE or --all, not both")
    if args.trace is None and not args.all:
        raise UserError("give a TRACE to export (or --all with --format html)")
    if args.all and args.format != "html":
        raise UserError("--all goes with --format html")
    if args.full and args.format != "html":
        raise UserError("--full goes with --format html")
    if args.beside is not None and (args.format != "html" or args.all):
        raise UserError("--beside goes with --format html and one TRACE")
    if args.format == "html":
        return _export_html(args)

    if args.otlp_endpoint is not None:
        if args.output is not None:
            raise UserError("-o goes with --format; --otlp-endpoint sends, it writes no file")
        sent, trace_id, where = send(
            args.trace, args.otlp_endpoint, args.otlp_protocol, otlp_options(args)
        )
        print(printable(f"sent {sent} spans of trace {trace_id} to {where}"), file=sys.stderr)
        return 0
    if args.otlp_protocol is not None:
        raise UserError("--otlp-protocol goes with --otlp-endpoint")
    otlp_flags = args.otlp_content is not None or args.otlp_max_content is not None
    if args.format != "otlp-json" and (otlp_flags or args.shift_to_now):
        raise UserError("--otlp-content, --otlp-max-content and --shift-to-now go with OTLP")
    if args.format == "otlp-json":
        _write_otlp(args.trace, args.output, otlp_options(args))
        return 0
    text = export_text(args.trace, args.format, None)
    if args.output is None:
        # A document: as it is into a pipe or a file, made printable on a terminal.
        sys.stdout.write(printable(text, lines=True) if sys.stdout.isatty() else text)
        return 0
    write_whole(args.output, text)
    print(printable(f"wrote {args.output}"), file=sys.stderr)
    return 0
