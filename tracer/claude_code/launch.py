"""Finding the real ``claude`` and starting it headless, offline and walled in.

Claude Code 2.1.88 runs without a terminal as ``claude -p PROMPT --output-format stream-json
--verbose`` (its ``print`` mode, ``src/cli/print.ts``), talks to whatever
``ANTHROPIC_BASE_URL`` names, and keeps its settings and transcripts in ``CLAUDE_CONFIG_DIR``.
Here it gets a scratch config folder of its own, a key made for the session (the only one the
loopback server takes, :func:`~tracer.claude_code.server.session_token`) and
``CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1`` (no telemetry, no update checks).

It runs like tracer's own Bash commands (:mod:`tracer.agent.sandbox`): in bwrap as ``nobody``
without capabilities, in a network namespace of its own, the workspace and its config folder the
only writable places. The loopback server it talks to is reached through a socket file
(:mod:`tracer.claude_code.bridge`), so ``claude`` and the commands it runs reach that server and
no other address. Without bwrap, as root, it drops to the session's own uid
(:mod:`tracer.agent.unprivileged`): it never runs as host uid 0.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

from tracer.agent import seccomp, unprivileged
from tracer.agent.limits import LIMITS
from tracer.agent.pids_cgroup import capped
from tracer.agent.sandbox import Sandbox, allowlisted_environ
from tracer.claude_code.bridge import ApiLink, bridged
from tracer.errors import UserError
from tracer.interrupts import holding

#: The version tracer's loop mirrors, and the one these recordings are made with.
VERSION = "2.1.88"
INSTALL = f"npm install -g @anthropic-ai/claude-code@{VERSION}"
#: The environment variable that names the program (the tests and CI set it).
ENV_NAME = "TRACER_CLAUDE"


def find_claude(given: str | Path | None = None) -> Path:
    """``--claude PATH``, else ``$TRACER_CLAUDE``, else ``claude`` on ``PATH``."""
    name = str(given) if given else os.environ.get(ENV_NAME) or "claude"
    found = shutil.which(name)
    if found is None:
        where = (
            f"{name} is not an executable"
            if given or os.environ.get(ENV_NAME)
            else ("no claude on PATH")
        )
        raise UserError(f"{where}: install Claude Code {VERSION} with `{INSTALL}`")
    return Path(found)


def claude_version(claude: Path) -> str | None:
    """What ``claude --version`` says (``2.1.88 (Claude Code)`` → ``2.1.88``), or ``None``."""
    try:
        # Started under holding(): a stop signal inside Popen() left claude running, its pid
        # never handed back to be killed (subprocess.run kills only what Popen returned).
        with holding():
            proc = subprocess.Popen(
                [str(claude), "--version"],
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                stdin=subprocess.DEVNULL,
                env=allowlisted_environ(Path.cwd()),
            )
        with proc:
            try:
                out = proc.communicate(timeout=60)[0]
            except BaseException:  # the timeout, or a stop signal: it goes with us
                proc.kill()
                raise
    except (OSError, subprocess.SubprocessError):
        return None
    words = out.decode("utf-8", "replace").split()
    return words[0] if proc.returncode == 0 and words else None


def version_warning(version: str | None) -> str | None:
    """One line when the program is not the version tracer mirrors."""
    if version == VERSION:
        return None
    return (
        f"tracer: warning: this claude is {version or 'of an unknown version'}; tracer mirrors "
        f"{VERSION} (`{INSTALL}`), so what it records may differ from what tracer teaches"
    )


def claude_argv(
    claude: Path,
    prompt: str,
    *,
    model: str | None,
    allowed: list[str],
    denied: list[str],
    max_turns: int | None = None,
) -> list[str]:
    argv = [str(claude), "-p", prompt, "--output-format", "stream-json", "--verbose"]
    if max_turns:
        argv += ["--max-turns", str(max_turns)]
    if model:
        argv += ["--model", model]
    if allowed:
        argv += ["--allowedTools", ",".join(allowed)]
    if denied:
        argv += ["--disallowedTools", ",".join(denied)]
    return argv


def claude_environ(workspace: Path, config: Path, base_url: str, api_key: str) -> dict[str, str]:
    """The allowlisted environment, plus what points Claude Code at the loopback server."""
    return allowlisted_environ(
        workspace,
        {
            "HOME": str(config),
            "CLAUDE_CONFIG_DIR": str(config),
            "ANTHROPIC_BASE_URL": base_url,
            "ANTHROPIC_API_KEY": api_key,
            "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
            "DISABLE_AUTOUPDATER": "1",
            "LANG": "C.UTF-8",
            "TZ": "UTC",
        },
    )


def package_root(claude: Path) -> Path:
    """The folder of the installed package (``claude`` is a link to its ``cli.js``)."""
    real = Path(os.path.realpath(claude))
    for folder in [real.parent, *real.parents]:
        if (folder / "package.json").is_file():
            return folder
    return real.parent


def claude_limited(argv: list[str]) -> list[str]:
    """``argv`` under tracer's limits on processes, file size and CPU time, but not on address
    space: Node reserves far more than it uses (WebAssembly's guard regions alone take gigabytes
    of it), and under a Bash command's 4 GiB cap ``claude`` cannot even parse an HTTP answer."""
    tool = shutil.which("prlimit")
    if tool is None or not sys.platform.startswith("linux"):
        return argv
    kept = {k: v for k, v in LIMITS.items() if k != "as"}
    return [tool, *(f"--{name}={value}" for name, value in kept.items()), "--", *argv]


@contextlib.contextmanager
def walled(
    argv: list[str],
    workspace: Path,
    config: Path,
    sandbox: Sandbox | None,
    claude: Path,
    link: ApiLink | None = None,
) -> Iterator[tuple[list[str], tuple[int, ...]]]:
    """``argv`` ready to start: in bwrap (a network of its own, the loopback server reached
    through ``link``; the config folder writable; the package readable even where bwrap hides a
    home), or, as root without one, under the session's own uid."""
    if sandbox is None:
        if unprivileged.needed():
            owner = unprivileged.identity_for(workspace)
            for folder in (workspace, config):
                os.chown(folder, owner.uid, owner.gid)
                unprivileged.hand_over(folder, owner)
            argv = unprivileged.dropped(argv, owner, unprivileged.loadable_filter())
        with capped(claude_limited(argv)) as full:
            yield full, ()
        return
    if link is None:
        raise ValueError("claude in bwrap needs the link to reach the loopback server")
    walls = Sandbox(
        sandbox.kind, False, disable_userns=sandbox.disable_userns, filtered=sandbox.filtered
    )
    package = str(package_root(claude))
    extra = ["--ro-bind", package, package, "--bind", str(config), str(config)]
    argv = bridged(argv, link.target[1], link.fd)
    program = seccomp.program() if walls.filtered else None
    fd = workspace_fd = None
    who: unprivileged.Identity | None = None
    if unprivileged.needed():
        # As a Bash command's (Sandbox.launch): bwrap itself starts as the session's own uid,
        # so claude's nobody is that uid on the host, never root; both folders it writes are
        # handed to it first.
        who = unprivileged.identity_for(workspace)
        closed = unprivileged.closed_above(os.path.realpath(workspace), who)
        if closed is not None:
            raise UserError(
                f"the workspace {workspace} lies under {closed}, which the sandbox's uid "
                f"{who.uid} cannot cross; use a workspace under an open folder"
            )
        for folder in (workspace, config):
            unprivileged.hand_over(folder, who)
        workspace_fd = os.open(workspace, os.O_PATH | os.O_DIRECTORY | os.O_CLOEXEC)
    if program is not None:
        fd = os.memfd_create("tracer-seccomp", 0)
        os.write(fd, program)
        os.lseek(fd, 0, os.SEEK_SET)
    try:
        wrapped = walls.wrap(argv, workspace, fd, workspace_fd)
        at = wrapped.index("--chdir")
        wrapped = [*wrapped[:at], *extra, *wrapped[at:]]
        if who is not None:
            wrapped = unprivileged.as_user(wrapped, who)
        passed = tuple(x for x in (fd, workspace_fd, link.fd) if x is not None)
        with capped(claude_limited(wrapped)) as full:
            yield full, passed
    finally:
        if workspace_fd is not None:
            os.close(workspace_fd)
        if fd is not None:
            os.close(fd)
