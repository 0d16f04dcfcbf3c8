"""``tracer export TRACE --format md|mermaid|otlp-json [-o OUT]`` or ``--otlp-endpoint [URL]``.

Light at import time (``tracer --help`` loads it); the format modules load when the command runs.
``--otlp-endpoint`` sends the same spans ``otlp-json`` writes to a collector
(:mod:`tracer.export.otlp_http`); without a URL it uses ``OTEL_EXPORTER_OTLP_ENDPOINT``.
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys
from pathlib import Path
from typing import Any

from tracer.printable import printable, printable_json

FORMATS = {
    "md": "tracer.export.markdown",
    "mermaid": "tracer.export.mermaid",
    "otlp-json": "tracer.export.otlp",
}
#: ``--otlp-endpoint`` given without a URL: take it from the environment.
FROM_ENV = ""


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "export",
        help="write a trace as Markdown, a Mermaid diagram or OTLP/JSON spans, or send the "
        "spans to a tracing backend",
        description="Export a trace for the tools people already use: md (a walk-through, one "
        "section per turn), mermaid (a sequence diagram), otlp-json (OpenTelemetry GenAI spans "
        "for Jaeger, Langfuse or Phoenix); or POST those spans to a collector over OTLP/HTTP.",
    )
    parser.add_argument("trace", type=Path, metavar="TRACE")
    how = parser.add_mutually_exclusive_group(required=True)
    how.add_argument("--format", "-f", choices=sorted(FORMATS))
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
        "-o", "--output", type=Path, metavar="OUT", help="write here instead of standard output"
    )
    parser.set_defaults(func=_export)


def export_text(trace: Path, fmt: str) -> str:
    """The export of ``trace`` in ``fmt`` as text."""
    from tracer.export.walk import walk

    module = importlib.import_module(FORMATS[fmt])
    return module.render(walk(trace))


def send(trace: Path, endpoint: str | None, protocol: str | None) -> tuple[int, str, str]:
    """POST the trace's spans; (spans sent, trace id, where) for the one line the command prints.

    Each send gets fresh ids (a random salt): two people sending the same bundled recording to
    one server, or one person sending it twice, make separate traces rather than colliding spans.
    """
    from tracer.errors import UserError
    from tracer.export.otlp import payload
    from tracer.export.otlp_http import post, target_from
    from tracer.export.walk import walk

    target = target_from(endpoint or None, protocol)
    body = payload(walk(trace), salt=os.urandom(8).hex())
    spans = body["resourceSpans"][0]["scopeSpans"][0]["spans"]
    if not spans:
        raise UserError("no spans to send", trace)
    sent = post(body, target)
    return sent, spans[0]["traceId"], f"{target.shown} ({target.protocol})"


def _export(args: argparse.Namespace) -> int:
    from tracer.errors import UserError

    if args.otlp_endpoint is not None:
        if args.output is not None:
            raise UserError("-o goes with --format; --otlp-endpoint sends, it writes no file")
        sent, trace_id, where = send(args.trace, args.otlp_endpoint, args.otlp_protocol)
        print(printable(f"sent {sent} spans of trace {trace_id} to {where}"), file=sys.stderr)
        return 0
    if args.otlp_protocol is not None:
        raise UserError("--otlp-protocol goes with --otlp-endpoint")
    text = export_text(args.trace, args.format)
    if args.output is None:
        if args.format == "otlp-json":  # the same JSON value, its C1 and bidi controls escaped
            sys.stdout.write(printable_json(text))
        else:  # a document: as it is into a pipe or a file, made printable on a terminal
            sys.stdout.write(printable(text, lines=True) if sys.stdout.isatty() else text)
        return 0
    args.output.parent.mkdir(parents=True, exist_ok=True)
    args.output.write_text(text, encoding="utf-8")
    print(printable(f"wrote {args.output}"), file=sys.stderr)
    return 0
