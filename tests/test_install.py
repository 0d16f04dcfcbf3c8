"""tracer installed the way command-line tools are: a wheel, in a fresh venv, run from elsewhere.

An editable install reads the checkout, so it cannot show that the wheel carries the chapter's
guide, scenarios, faults and recordings. Here the wheel is built from this checkout and installed
alone into a fresh venv that sees the test environment's dependencies (``install_helpers`` says
how); every command then runs in an empty directory, as a user's would after ``pipx install`` or
``uv tool install``.
"""

from __future__ import annotations

import html
import subprocess
import sys
from pathlib import Path

import pytest
from install_helpers import install_marks, install_wheel, python_says, run

from tracer.chapter.guide import load_guide
from tracer.export.html.page import SCRIPT_PARTS

# Slow (a wheel built, a venv made, every command run from it), and kept on one xdist worker so
# that the wheel is built once.
pytestmark = install_marks("install")


class Installed:
    """A venv holding only the wheel; ``tracer(...)`` runs its console script in ``home``."""

    def __init__(self, venv: Path, home: Path) -> None:
        self.venv = venv
        self.home = home
        self.bin = venv / "bin"

    def tracer(self, *args: str) -> subprocess.CompletedProcess[str]:
        return run([str(self.bin / "tracer"), *args], cwd=self.home)

    def python(self, code: str) -> str:
        return python_says(self.bin / "python", code, self.home)


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Installed:
    base = tmp_path_factory.mktemp("install")
    venv = install_wheel(base, deps_from=Path(sys.executable))
    home = base / "elsewhere"
    home.mkdir()
    return Installed(venv, home)


def test_the_wheel_is_what_runs(installed: Installed) -> None:
    where = installed.python(
        "import tracer.files.paths as p; print(p.__file__, p.CHECKOUT, p.ROOT)"
    )
    module, checkout, root = where.split()
    assert Path(module).is_relative_to(installed.venv), module
    assert checkout == "None"
    assert Path(root).is_relative_to(installed.venv) and Path(root).name == "_bundled"


def test_replay_screenshot_shows_the_guide(installed: Installed) -> None:
    out = installed.home / "mapping.svg"
    proc = installed.tracer("replay", "--step", "8", "--lang", "en", "--screenshot", str(out))
    assert proc.returncode == 0, proc.stderr
    svg = html.unescape(out.read_text(encoding="utf-8")).replace("\xa0", " ")
    guide = load_guide()
    # The chapter panel wraps its text at its own width: its first words fit on one line.
    assert guide.stage_text("mapping", "en")[:24] in svg
    section = guide.section_for_stage("mapping")
    # The panel names the section by its title (a raw id such as station-1 is never shown).
    assert section is not None and section.title["en"][:24] in svg and section.id not in svg
    assert "no chapter guide" not in svg


def test_show_a_bundled_recording_by_name(installed: Installed) -> None:
    proc = installed.tracer("show", "01-main-walk")
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    # 36 steps, then the token total over the session's model calls.
    assert len(lines) == 37 and " mapping " in lines[7], lines[:8]
    # The same total this checkout's reader finds in the bundled recording.
    assert lines[-1] == _main_walk_tokens(), lines[-1]


def test_doctor_hint_comes_from_the_guide(installed: Installed) -> None:
    proc = installed.tracer("doctor", "faults/03-malformed-result", "--lang", "en")
    assert proc.returncode == 1, proc.stderr
    entry = load_guide().rule("malformed-result")
    assert entry is not None
    assert entry.check["en"].split("\n")[0].strip() in proc.stdout


def test_record_a_bundled_scenario_by_name(installed: Installed) -> None:
    proc = installed.tracer("record", "--scenario", "01-main-walk", "-o", "walk.trace.jsonl")
    assert proc.returncode == 0, proc.stderr
    assert "ended completed" in proc.stderr
    valid = installed.tracer("validate", "walk.trace.jsonl")
    assert valid.returncode == 0, valid.stdout + valid.stderr


def test_record_all_never_writes_into_site_packages(installed: Installed) -> None:
    refused = installed.tracer("record", "--all")
    assert refused.returncode == 2
    assert refused.stderr.count("\n") == 1 and "--out DIR" in refused.stderr, refused.stderr
    proc = installed.tracer("record", "--all", "--out", "fresh")
    assert proc.returncode == 0, proc.stderr[-2000:]
    written = sorted(p.relative_to(installed.home / "fresh").as_posix()
                     for p in (installed.home / "fresh").rglob("*.trace.jsonl"))  # fmt: skip
    bundled = installed.python(
        "from tracer.files.paths import RECORDINGS_DIR, bundled_recordings, short_name\n"
        "twins = sorted((RECORDINGS_DIR / 'twins').glob('*.trace.jsonl'))\n"
        "print(' '.join(short_name(p) + '.trace.jsonl' for p in [*bundled_recordings(), *twins]))"
    ).split()
    assert "twins/03-read-calc.trace.jsonl" in bundled  # the faults' twins are recorded too
    assert written == sorted(bundled)


def test_export_html_uses_the_page_files_the_wheel_carries(installed: Installed) -> None:
    proc = installed.tracer("export", "01-main-walk", "--format", "html", "-o", "walk.html")
    assert proc.returncode == 0, proc.stderr
    page = (installed.home / "walk.html").read_text(encoding="utf-8")
    for name in ("page.css", *SCRIPT_PARTS):  # inlined from the installed package's own copies
        shipped = installed.python(
            f"from importlib.resources import files; print(files('tracer.export.html')"
            f".joinpath('{name}'))"
        )
        assert Path(shipped).is_relative_to(installed.venv), shipped
        assert Path(shipped).read_text(encoding="utf-8") in page
    # the comparison page's own files travel too, and a bundled fault finds its twin
    proc = installed.tracer("export", "faults/01-result-not-returned", "--beside", "--format",
                            "html", "-o", "beside.html")  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    beside = (installed.home / "beside.html").read_text(encoding="utf-8")
    script = installed.python(
        "from importlib.resources import files; print(files('tracer.export.html')"
        ".joinpath('beside.js').read_text(encoding='utf-8'), end='')"
    )
    assert script and script in beside and "twins/01-status-and-diff" in beside


def test_usage_errors_are_one_line(installed: Installed) -> None:
    proc = installed.tracer("replay", "--stage", "bogus")
    assert proc.returncode == 2
    assert proc.stderr.startswith("tracer: replay: ") and proc.stderr.count("\n") == 1


def _main_walk_tokens() -> str | None:
    from tracer.cli.show import token_line
    from tracer.files.paths import RECORDINGS_DIR
    from tracer.trace.reader import TraceReader

    return token_line(TraceReader(RECORDINGS_DIR / "01-main-walk.trace.jsonl"))
