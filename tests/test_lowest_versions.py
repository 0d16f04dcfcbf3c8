"""The lower ends of the dependency ranges, proved: the wheel runs with the oldest versions allowed.

``pyproject.toml`` gives ``anthropic``, ``textual`` and the rest ranges rather than pins, so that
tracer installs beside other tools. The newest versions are what the test environment resolves
to; the lowest are in ``.venv-lowest``, which ``.ci/run`` builds from the ranges' lower ends
(nothing else may install there). This test builds the wheel (no network:
``--no-build-isolation``), installs it with ``--no-deps --no-index`` into a fresh venv that sees
``.venv-lowest``'s packages through a ``.pth`` line (so ``.venv-lowest`` itself stays as CI made
it), checks that those packages *are* the lower ends, then records a scenario through the SDK,
lists it with ``tracer show`` and takes one replay screenshot. Outside CI a missing
``.venv-lowest`` skips the test; in CI (``CI`` set) it fails, so it cannot quietly not run.
"""

from __future__ import annotations

import html
import json
import os
import re
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from tracer.paths import CHECKOUT

# Slow (a wheel built and installed into .venv-lowest), on one xdist worker so it is built once.
pytestmark = [
    pytest.mark.skipif(CHECKOUT is None, reason="needs the source checkout to build"),
    pytest.mark.slow,
    pytest.mark.xdist_group("lowest"),
]


def _run(args: list[str], cwd: Path, timeout: float = 240) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    env.pop("ANTHROPIC_API_KEY", None)  # offline: the scripted transport answers
    return subprocess.run(
        args, capture_output=True, text=True, cwd=cwd, timeout=timeout, check=False, env=env
    )


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
    base = tmp_path_factory.mktemp("lowest")
    dist = base / "dist"
    build = _run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q",
         "-w", str(dist), str(CHECKOUT)],
        cwd=base,
    )  # fmt: skip
    assert build.returncode == 0, build.stderr[-3000:]
    (wheel,) = dist.glob("*.whl")
    venv = base / "venv"
    assert (
        _run([str(base_python), "-m", "venv", "--without-pip", str(venv)], cwd=base).returncode == 0
    )
    where = "import sysconfig; print(sysconfig.get_paths()['purelib'])"
    theirs = _run([str(base_python), "-c", where], cwd=base).stdout.strip()
    ours = _run([str(venv / "bin" / "python"), "-c", where], cwd=base).stdout.strip()
    (Path(ours) / "_lowest_deps.pth").write_text(theirs + "\n", encoding="utf-8")
    pip = _run(
        [sys.executable, "-m", "pip", "--python", str(venv / "bin" / "python"), "install",
         "-q", "--no-deps", "--no-index", str(wheel)],
        cwd=base,
    )  # fmt: skip
    assert pip.returncode == 0, pip.stderr[-3000:]
    return venv / "bin"


def test_the_lowest_versions_run_the_wheel(lowest: Path, tmp_path: Path) -> None:
    code = (
        "import importlib.metadata as m, json, sys\n"
        "names = sys.argv[1:]\n"
        "print(json.dumps({n: m.version(n) for n in names}))"
    )
    ends = _lower_ends()
    proc = _run([str(lowest / "python"), "-c", code, *ends], cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout) == ends, (
        "the lowest venv holds other versions than the ranges' ends"
    )
    assert {"anthropic", "textual"} <= ends.keys()
    where = _run(
        [str(lowest / "python"), "-c", "import tracer; print(tracer.__file__)"], cwd=tmp_path
    )
    assert Path(where.stdout.strip()).is_relative_to(lowest.parent), where.stdout + where.stderr

    # The SDK's streaming API against the scripted transport, at anthropic's lowest version.
    record = _run(
        [str(lowest / "tracer"), "record", "--scenario", "09-no-tools", "-o", "t.jsonl"],
        cwd=tmp_path,
    )
    assert record.returncode == 0 and "ended completed" in record.stderr, record.stderr[-2000:]

    show = _run([str(lowest / "tracer"), "show", "01-main-walk"], cwd=tmp_path)
    assert show.returncode == 0, show.stderr
    lines = show.stdout.splitlines()
    # 36 steps, then the token total over the session's model calls.
    assert len(lines) == 37 and " mapping " in lines[7], lines[:8]
    assert lines[-1].startswith("tokens over 4 model call(s): input 4,392"), lines[-1]

    # Textual's lowest version draws the replay.
    out = tmp_path / "mapping.svg"
    shot = _run(
        [str(lowest / "tracer"), "replay", "--step", "8", "--lang", "en", "--screenshot", str(out)],
        cwd=tmp_path,
    )
    assert shot.returncode == 0, shot.stderr[-2000:]
    svg = html.unescape(out.read_text(encoding="utf-8")).replace("\xa0", " ")
    assert "mapping" in svg and "no chapter guide" not in svg
