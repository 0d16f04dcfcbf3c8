"""Where the bundled content lives: ``chapters/`` and ``recordings/`` beside the package.

tracer is installed from its checkout (``pip install -e .``), so these are the repository's own
folders.

Commands that take a trace go through :func:`resolve_trace`, so that a bundled recording can be
named by its short name (``05-max-turns``, ``faults/03-malformed-result``) from any directory, and
the replay's picker lists :func:`bundled_recordings`.
"""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CHAPTERS_DIR = ROOT / "chapters"
SCENARIOS_DIR = CHAPTERS_DIR / "ch12" / "scenarios"
FAULTS_DIR = CHAPTERS_DIR / "ch12" / "faults"
RECORDINGS_DIR = ROOT / "recordings"
MAIN_RECORDING = RECORDINGS_DIR / "01-main-walk.trace.jsonl"

TRACE_SUFFIX = ".trace.jsonl"


def short_name(trace: Path) -> str:
    """A bundled recording's short name: ``01-main-walk`` or ``faults/03-malformed-result``."""
    try:
        rel = trace.resolve().relative_to(RECORDINGS_DIR.resolve())
    except ValueError:
        rel = Path(trace.name)
    text = rel.as_posix()
    return text[: -len(TRACE_SUFFIX)] if text.endswith(TRACE_SUFFIX) else text


def bundled_recordings() -> list[Path]:
    """The bundled recordings, the chapter's scenarios first and then the fault ones."""
    main = sorted(RECORDINGS_DIR.glob(f"*{TRACE_SUFFIX}"))
    faults = sorted((RECORDINGS_DIR / "faults").glob(f"*{TRACE_SUFFIX}"))
    return main + faults


def resolve_trace(arg: str | Path) -> Path:
    """A trace argument as a path: an existing file as given, else a bundled recording's name.

    ``05-max-turns``, ``05-max-turns.trace.jsonl``, ``faults/03-malformed-result`` and
    ``03-malformed-result`` all name bundled recordings. Anything that names neither is returned
    unchanged, so the caller's own "no such file" error names what the user typed.
    """
    path = Path(arg)
    if path.exists():
        return path
    name = str(arg).removesuffix(TRACE_SUFFIX)
    for candidate in (
        RECORDINGS_DIR / f"{name}{TRACE_SUFFIX}",
        RECORDINGS_DIR / "faults" / f"{name}{TRACE_SUFFIX}",
    ):
        if candidate.is_file():
            return candidate
    return path
