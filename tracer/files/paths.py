"""Where the bundled content lives: the guide, scenarios, faults and recordings.

In the repository, ``chapters/`` and ``recordings/`` sit at the top level, beside the ``tracer``
package, because the chapter's material is not code. A wheel cannot ship folders outside its
packages, so the build maps them *into* the package (the build hook in ``hatch_build.py``): an
installed tracer finds them at ``tracer/_bundled/chapters`` and ``tracer/_bundled/recordings``,
located through :mod:`importlib.resources` like any other package data. An editable install
(``pip install -e .``) imports the package from the checkout, so it reads the checkout's own
folders and a change to a scenario shows at once.

:data:`CHECKOUT` says which case this is: the root of the clone, or ``None`` when tracer runs from
an installed wheel (``pip install .``, ``pipx``, ``uv tool``). Commands that *write* bundled data
(``record --all``) need it: they may write into a clone, never into ``site-packages``.

Commands that take a trace go through :func:`resolve_trace`, so that a bundled recording can be
named by its short name (``05-max-turns``, ``faults/03-malformed-result``) from any directory, and
the replay's picker lists :func:`bundled_recordings`. :func:`resolve_scenario` does the same for
``record --scenario 01-main-walk``.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from importlib import resources
from pathlib import Path

from tracer.errors import UserError

#: The folder, inside the installed package, that the wheel's build maps the content into.
BUNDLE_PACKAGE_DIR = "_bundled"


def _checkout() -> Path | None:
    """The clone this package was imported from, if it was imported from one."""
    root = Path(__file__).resolve().parents[2]  # tracer/files/paths.py -> the clone
    if (root / "pyproject.toml").is_file() and (root / "chapters").is_dir():
        return root
    return None


def _content_root() -> Path:
    """The folder holding ``chapters/`` and ``recordings/``: the checkout or the package's copy."""
    if CHECKOUT is not None:
        return CHECKOUT
    bundled = resources.files("tracer").joinpath(BUNDLE_PACKAGE_DIR)
    # pip, pipx and uv always unpack a wheel, so the package data are real files; a zipped
    # import (zipapp, an egg) would give a Traversable that isn't one, and the replay, the doctor
    # and record --all all need to open files by path.
    if not isinstance(bundled, Path):
        raise UserError(f"tracer's bundled content is not on disk ({bundled}); install it unpacked")
    return bundled


CHECKOUT = _checkout()
ROOT = _content_root()
CHAPTERS_DIR = ROOT / "chapters"
SCENARIOS_DIR = CHAPTERS_DIR / "ch12" / "scenarios"
FAULTS_DIR = CHAPTERS_DIR / "ch12" / "faults"
#: Good runs recorded only to be compared with a fault (``tracer.compare.twins``).
TWINS_DIR = CHAPTERS_DIR / "ch12" / "twins"
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


def _bundled(arg: str | Path, folders: tuple[Path, ...], suffix: str) -> Path | None:
    """The first ``folder/<name><suffix>`` that exists, for a bare or ``faults/`` name."""
    name = str(arg).removesuffix(suffix)
    if not name or Path(name).is_absolute() or ".." in Path(name).parts:
        return None
    for folder in folders:
        candidate = folder / f"{name}{suffix}"
        if candidate.is_file():
            return candidate
    return None


def resolve_trace(arg: str | Path) -> Path:
    """A trace argument as a path: an existing file as given, else a bundled recording's name.

    ``05-max-turns``, ``05-max-turns.trace.jsonl``, ``faults/03-malformed-result`` and
    ``03-malformed-result`` all name bundled recordings. Anything that names neither is returned
    unchanged, so the caller's own "no such file" error names what the user typed.
    """
    path = Path(arg)
    if path.exists():
        return path
    found = _bundled(arg, (RECORDINGS_DIR, RECORDINGS_DIR / "faults"), TRACE_SUFFIX)
    return found if found is not None else path


def resolve_scenario(arg: str | Path) -> Path:
    """A scenario argument as a path: an existing file, else a bundled scenario's name.

    ``01-main-walk``, ``01-main-walk.yaml``, ``03-malformed-result`` and
    ``faults/03-malformed-result`` all name bundled scenarios (``faults/`` lives beside
    ``scenarios/``, so the prefixed form is looked up from the chapter's folder).
    """
    path = Path(arg)
    if path.exists():
        return path
    found = _bundled(arg, (SCENARIOS_DIR, FAULTS_DIR, SCENARIOS_DIR.parent), ".yaml")
    return found if found is not None else path


def bundled_scenarios() -> list[tuple[Path, Path]]:
    """Every bundled scenario with the folder its recording belongs in (relative to recordings/):
    the chapter's, the faults, and the faults' good twins."""
    return [
        *((p, Path(".")) for p in sorted(SCENARIOS_DIR.glob("*.yaml"))),
        *((p, Path("faults")) for p in sorted(FAULTS_DIR.glob("*.yaml"))),
        *((p, Path("twins")) for p in sorted(TWINS_DIR.glob("*.yaml"))),
    ]


#: Where tracer keeps what it remembers between runs (the tour's progress, recent files).
STATE_ENV = "TRACER_STATE_DIR"


def state_dir(environ: Mapping[str, str] | None = None) -> Path:
    """Where tracer keeps state between runs (``$TRACER_STATE_DIR`` for tests)."""
    env = os.environ if environ is None else environ
    if env.get(STATE_ENV):
        return Path(env[STATE_ENV])
    import platformdirs  # reads XDG_STATE_HOME and HOME from the process's environment

    return platformdirs.user_state_path("tracer", appauthor=False)
