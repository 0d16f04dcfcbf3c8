"""tracer installed the way command-line tools are: a wheel, in a fresh venv, run from elsewhere.

An editable install reads the checkout, so it cannot show that the wheel carries the chapter's
guide, scenarios, faults and recordings. Here the wheel is built from this checkout (no network:
``--no-build-isolation`` uses the hatchling the test extra installed), installed with
``--no-deps`` into a new virtual environment, and its dependencies come from the test
environment's ``site-packages`` through a ``.pth`` line: Python appends that folder to
``sys.path`` but does not run the ``.pth`` files inside it, so the test environment's editable
``tracer`` stays out of sight and the wheel's own copy is the one imported. Every command then
runs in an empty directory, as a user's would after ``pipx install`` or ``uv tool install``.
"""

from __future__ import annotations

import html
import os
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest

from tracer.chapters import load_guide
from tracer.paths import CHECKOUT

# Slow (a wheel built, a venv made, every command run from it), and kept on one xdist worker so
# that the wheel is built once.
pytestmark = [
    pytest.mark.skipif(CHECKOUT is None, reason="needs the source checkout to build"),
    pytest.mark.slow,
    pytest.mark.xdist_group("install"),
]


def _run(args: list[str], cwd: Path, timeout: float = 180) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    env["PYTHONDONTWRITEBYTECODE"] = "1"  # keep site-packages as the wheel left it
    return subprocess.run(
        args, capture_output=True, text=True, cwd=cwd, timeout=timeout, check=False, env=env
    )


class Installed:
    """A venv holding only the wheel; ``tracer(...)`` runs its console script in ``home``."""

    def __init__(self, venv: Path, home: Path) -> None:
        self.venv = venv
        self.home = home
        self.bin = venv / "bin"

    def tracer(self, *args: str) -> subprocess.CompletedProcess[str]:
        return _run([str(self.bin / "tracer"), *args], cwd=self.home)

    def python(self, code: str) -> str:
        proc = _run([str(self.bin / "python"), "-c", code], cwd=self.home)
        assert proc.returncode == 0, proc.stderr
        return proc.stdout.strip()


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Installed:
    assert CHECKOUT is not None
    base = tmp_path_factory.mktemp("install")
    dist = base / "dist"
    build = _run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q",
         "-w", str(dist), str(CHECKOUT)],
        cwd=base,
    )  # fmt: skip
    assert build.returncode == 0, build.stderr[-3000:]
    wheels = list(dist.glob("agent_loop_tracer-*.whl"))
    assert len(wheels) == 1, wheels
    assert not (CHECKOUT / "build").exists(), "building the wheel left build/ in the checkout"

    venv = base / "venv"
    made = _run([sys.executable, "-m", "venv", "--without-pip", str(venv)], cwd=base)
    assert made.returncode == 0, made.stderr
    target = Path(_run_python(venv, "import sysconfig; print(sysconfig.get_paths()['purelib'])"))
    (target / "_test_deps.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    pip = _run(
        [sys.executable, "-m", "pip", "--python", str(venv / "bin" / "python"), "install",
         "-q", "--no-deps", "--no-index", str(wheels[0])],
        cwd=base,
    )  # fmt: skip
    assert pip.returncode == 0, pip.stderr[-3000:]
    home = base / "elsewhere"
    home.mkdir()
    return Installed(venv, home)


def _run_python(venv: Path, code: str) -> str:
    proc = _run([str(venv / "bin" / "python"), "-c", code], cwd=venv)
    assert proc.returncode == 0, proc.stderr
    return proc.stdout.strip()


def test_the_wheel_is_what_runs(installed: Installed) -> None:
    where = installed.python("import tracer.paths as p; print(p.__file__, p.CHECKOUT, p.ROOT)")
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
    assert lines[-1].startswith("tokens over 4 model call(s): input 4,392"), lines[-1]


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
        "from tracer.paths import bundled_recordings, short_name\n"
        "print(' '.join(short_name(p) + '.trace.jsonl' for p in bundled_recordings()))"
    ).split()
    assert written == sorted(bundled)


def test_export_html_uses_the_page_files_the_wheel_carries(installed: Installed) -> None:
    proc = installed.tracer("export", "01-main-walk", "--format", "html", "-o", "walk.html")
    assert proc.returncode == 0, proc.stderr
    page = (installed.home / "walk.html").read_text(encoding="utf-8")
    for name in ("page.css", "page.js"):  # inlined from the installed package's own copies
        shipped = installed.python(
            f"from importlib.resources import files; print(files('tracer.export.html')"
            f".joinpath('{name}'))"
        )
        assert Path(shipped).is_relative_to(installed.venv), shipped
        assert Path(shipped).read_text(encoding="utf-8") in page


def test_usage_errors_are_one_line(installed: Installed) -> None:
    proc = installed.tracer("replay", "--stage", "bogus")
    assert proc.returncode == 2
    assert proc.stderr.startswith("tracer: replay: ") and proc.stderr.count("\n") == 1
