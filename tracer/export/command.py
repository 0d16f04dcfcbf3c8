"""``tracer export TRACE --format md|mermaid|otlp-json [-o OUT]``.

Light at import time (``tracer --help`` loads it); the format modules load when the command runs.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from pathlib import Path
from typing import Any

FORMATS = {"md": "tracer.export.markdown", "mermaid": "tracer.export.mermaid",
           "otlp-json": "tracer.export.otlp"}


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "export", help="write a trace as Markdown, a Mermaid diagram or OTLP/JSON spans",
        description="Export a trace for the tools people already use: md (a walk-through, one "
                    "section per turn), mermaid (a sequence diagram), otlp-json (OpenTelemetry "
                    "GenAI spans for Jaeger, Langfuse or Phoenix).")
    parser.add_argument("trace", type=Path, metavar="TRACE")
    parser.add_argument("--format", "-f", choices=sorted(FORMATS), required=True)
    parser.add_argument("-o", "--output", type=Path, metavar="OUT",
                        help="write here instead of standard output")
    parser.set_defaults(func=_export)


def export_text(trace: Path, fmt: str) -> str:
    """The export of ``trace`` in ``fmt`` as text."""
    from tracer.export.walk import walk

    module = importlib.import_module(FORMATS[fmt])
    return module.render(walk(trace))


def _export(args: argparse.Namespace) -> int:
    text = export_text(args.trace, args.format)
    if args.output is None:
        sys.stdout.write(text)
        return 0
    args.output.parent.mkdir(parents=True, exist_ok=True)
    args.output.write_text(text, encoding="utf-8")
    print(f"wrote {args.output}", file=sys.stderr)
    return 0
