"""The lower ends of the dependency ranges, proved: the wheel runs with the oldest versions allowed.

``pyproject.toml`` gives ``anthropic``, ``textual`` and the rest ranges rather than pins, so that
tracer installs beside other tools. The newest versions are what the test environment resolves
to; the lowest are in ``.venv-lowest``, which ``.ci/run`` builds from the ranges' lower ends
(nothing else may install there). This test builds the wheel and installs it alone into a fresh
venv that sees ``.venv-lowest``'s packages (``install_helpers`` says how; ``.venv-lowest`` itself
stays as CI made it), checks that those packages *are* the lower ends, then records a scenario
through the SDK, lists it with ``tracer show`` and takes one replay screenshot. Outside CI a
missing ``.venv-lowest`` skips the test; in CI (``CI`` set) it fails, so it cannot quietly not run.
"""

from __future__ import annotations

import html
import json
import os
import re
import tomllib
from pathlib import Path

import pytest
from install_helpers import install_marks, install_wheel, run

from tracer.files.paths import CHECKOUT

# Slow (a wheel built and installed over .venv-lowest), on one xdist worker so it is built once.
pytestmark = install_marks("lowest")


def _lower_ends() -> dict[str, str]:
    assert CHECKOUT is not None
    project = tomllib.loads((CHECKOUT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    ends = {}
    for requirement in project["dependencies"]:
        m = re.fullmatch(r"([A-Za-z0-9_.-]+)>=([^,]+)(,.*)?", requirement)
        assert m, f"{requirement}: every dependency is a range with a lower end"
        ends[m.group(1).lower()] = m.group(2)
    return ends


@pytest.fixture(scope="module")
def lowest(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A venv holding the wheel, on top of .venv-lowest's packages; its bin folder."""
    assert CHECKOUT is not None
    base_python = CHECKOUT / ".venv-lowest" / "bin" / "python"
    if not base_python.exists():
        if os.environ.get("CI"):
            pytest.fail(".venv-lowest is missing: .ci/run builds it from pyproject's lower ends")
        pytest.skip(".venv-lowest is missing (see .ci/run)")
    return install_wheel(tmp_path_factory.mktemp("lowest"), deps_from=base_python) / "bin"


def test_the_lowest_versions_run_the_wheel(lowest: Path, tmp_path: Path) -> None:
    code = (
        "import importlib.metadata as m, json, sys\n"
        "names = sys.argv[1:]\n"
        "print(json.dumps({n: m.version(n) for n in names}))"
    )
    ends = _lower_ends()
    proc = run([str(lowest / "python"), "-c", code, *ends], cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout) == ends, (
        "the lowest venv holds other versions than the ranges' ends"
    )
    assert {"anthropic", "textual"} <= ends.keys()
    where = run(
        [str(lowest / "python"), "-c", "import tracer; print(tracer.__file__)"], cwd=tmp_path
    )
    assert Path(where.stdout.strip()).is_relative_to(lowest.parent), where.stdout + where.stderr

    # The SDK's streaming API against the scripted transport, at anthropic's lowest version.
    record = run(
        [str(lowest / "tracer"), "record", "--scenario", "09-no-tools", "-o", "t.jsonl"],
        cwd=tmp_path,
    )
    assert record.returncode == 0 and "ended completed" in record.stderr, record.stderr[-2000:]

    # A stream cut midway is survived at the lowest version too: the plain fallback answers it.
    cut = tmp_path / "cut.yaml"
    cut.write_text(
        "name: cut\nprompt: go\nresponses:\n  - text: whole\n    faults: [{cut_after: 5}]\n",
        encoding="utf-8",
    )
    record = run(
        [str(lowest / "tracer"), "record", "--scenario", str(cut), "-o", "cut.jsonl"],
        cwd=tmp_path,
    )
    assert record.returncode == 0 and "ended completed" in record.stderr, record.stderr[-2000:]
    starts = [
        json.loads(line)
        for line in (tmp_path / "cut.jsonl").read_text(encoding="utf-8").splitlines()
        if '"http_attempt_start"' in line
    ]
    assert [s.get("streaming", True) for s in starts] == [True, False]

    show = run([str(lowest / "tracer"), "show", "01-main-walk"], cwd=tmp_path)
    assert show.returncode == 0, show.stderr
    lines = show.stdout.splitlines()
    # 36 steps, then the token total over the session's model calls.
    assert len(lines) == 37 and " mapping " in lines[7], lines[:8]
    # The same total this checkout's reader finds in the bundled recording.
    assert lines[-1] == _main_walk_tokens(), lines[-1]

    # Textual's lowest version draws the replay.
    out = tmp_path / "mapping.svg"
    shot = run(
        [str(lowest / "tracer"), "replay", "--step", "8", "--lang", "en", "--screenshot", str(out)],
        cwd=tmp_path,
    )
    assert shot.returncode == 0, shot.stderr[-2000:]
    svg = html.unescape(out.read_text(encoding="utf-8")).replace("\xa0", " ")
    assert "mapping" in svg and "no chapter guide" not in svg


def _main_walk_tokens() -> str | None:
    from tracer.cli.show import token_line
    from tracer.files.paths import RECORDINGS_DIR
    from tracer.trace.reader import TraceReader

    return token_line(TraceReader(RECORDINGS_DIR / "01-main-walk.trace.jsonl"))
