"""Writing an export whole or not at all.

An export can be large (a 10,000-turn OTLP document is 600 MB, a web page tens of megabytes) and
it is written into a file the reader may already have open in a browser or a backend. So each is
written to a hidden file beside its target and renamed into place once complete: a stop part-way
(Ctrl-C, SIGTERM, a full disk) leaves the previous file, or none, and no hidden piece either. The
same rule as an import's trace (:class:`tracer.trace.writer.TraceWriter` with ``atomic=True``).
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator
from pathlib import Path
from typing import BinaryIO


@contextlib.contextmanager
def whole_file(target: Path) -> Iterator[BinaryIO]:
    """A binary file that becomes ``target`` when the ``with`` block ends without an error."""
    target.parent.mkdir(parents=True, exist_ok=True)
    partial = target.with_name(f".{target.name}.{os.getpid()}.partial")
    try:
        with partial.open("wb") as out:
            yield out
        os.replace(partial, target)
    finally:
        partial.unlink(missing_ok=True)


def write_whole(target: Path, text: str) -> int:
    """``text`` as UTF-8 into ``target``, whole or not at all; the number of bytes."""
    data = text.encode("utf-8")
    with whole_file(target) as out:
        out.write(data)
    return len(data)
