"""What the install tests share: this checkout's wheel, installed alone into a fresh venv.

Both ``test_install.py`` (the test environment's newest dependencies) and
``test_lowest_versions.py`` (``.venv-lowest``'s oldest ones) need the same thing: the wheel built
from this checkout with no network (``--no-build-isolation`` uses the hatchling the test extra
installed), installed with ``--no-deps --no-index`` into a venv of its own, and the dependencies
seen through a ``.pth`` line naming another environment's ``site-packages``. Python appends such a
folder to ``sys.path`` without running the ``.pth`` files inside it, so an editable ``tracer``
there stays out of sight and the wheel's copy is the one imported; the other environment itself
is left as it was.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tracer.files.paths import CHECKOUT

PURELIB = "import sysconfig; print(sysconfig.get_paths()['purelib'])"


def install_marks(group: str) -> list[Any]:
    """Slow, needs the source checkout, and on one xdist worker so the wheel is built once."""
    return [
        pytest.mark.skipif(CHECKOUT is None, reason="needs the source checkout to build"),
        pytest.mark.slow,
        pytest.mark.xdist_group(group),
    ]


def run(args: list[str], cwd: Path, timeout: float = 240) -> subprocess.CompletedProcess[str]:
    """``args`` outside the test environment: no PYTHONPATH, no venv, no API key, no .pyc."""
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    env["PYTHONDONTWRITEBYTECODE"] = "1"  # keep site-packages as the wheel left it
    env.pop("ANTHROPIC_API_KEY", None)  # offline: the scripted transport answers
    return subprocess.run(
        args, capture_output=True, text=True, cwd=cwd, timeout=timeout, check=False, env=env
    )


def python_says(python: Path, code: str, cwd: Path) -> str:
    """What ``code`` prints when ``python`` runs it (it must succeed)."""
    proc = run([str(python), "-c", code], cwd=cwd)
    assert proc.returncode == 0, proc.stderr
    return proc.stdout.strip()


def build_wheel(dist: Path) -> Path:
    """This checkout's wheel, built into ``dist`` without touching the network or the checkout."""
    assert CHECKOUT is not None
    build = run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q",
         "-w", str(dist), str(CHECKOUT)],
        cwd=dist.parent,
    )  # fmt: skip
    assert build.returncode == 0, build.stderr[-3000:]
    wheels = list(dist.glob("agent_loop_tracer-*.whl"))
    assert len(wheels) == 1, wheels
    assert not (CHECKOUT / "build").exists(), "building the wheel left build/ in the checkout"
    return wheels[0]


def install_wheel(base: Path, deps_from: Path) -> Path:
    """A venv in ``base`` holding only the wheel, on top of ``deps_from``'s packages; the venv.

    ``deps_from`` is a Python interpreter: the venv is made from it (so it runs the same
    version) and sees its ``site-packages`` through ``_test_deps.pth``.
    """
    wheel = build_wheel(base / "dist")
    venv = base / "venv"
    made = run([str(deps_from), "-m", "venv", "--without-pip", str(venv)], cwd=base)
    assert made.returncode == 0, made.stderr
    theirs = python_says(deps_from, PURELIB, base)
    ours = python_says(venv / "bin" / "python", PURELIB, base)
    (Path(ours) / "_test_deps.pth").write_text(theirs + "\n", encoding="utf-8")
    pip = run(
        [sys.executable, "-m", "pip", "--python", str(venv / "bin" / "python"), "install",
         "-q", "--no-deps", "--no-index", str(wheel)],
        cwd=base,
    )  # fmt: skip
    assert pip.returncode == 0, pip.stderr[-3000:]
    return venv
