"""Where the bundled content lives: ``chapters/`` and ``recordings/`` beside the package.

tracer is installed from its checkout (``pip install -e .``), so these are the repository's own
folders.
"""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CHAPTERS_DIR = ROOT / "chapters"
SCENARIOS_DIR = CHAPTERS_DIR / "ch12" / "scenarios"
RECORDINGS_DIR = ROOT / "recordings"
MAIN_RECORDING = RECORDINGS_DIR / "01-main-walk.trace.jsonl"
