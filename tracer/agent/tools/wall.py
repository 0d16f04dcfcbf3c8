"""Opening a file inside the workspace once, so that what is checked is what is used.

Checking a path (``realpath``, ``is_file``) and then opening it again is a race: a command that
outlives its Bash call can swap a folder for a symlink in between, and the open lands outside
(over three runs, 14 Writes did so while reporting success). So a tool here never opens a path
string. It opens the workspace's own folder, then walks the path one component at a time with
``openat`` relative to the folder it holds, each with ``O_NOFOLLOW``. A symlink met on the way
is read (``readlinkat``) and its target walked the same way, from the workspace's descriptor when
it is absolute: a link that leads inside still works, one that leads outside is refused, and a
swap after the check changes nothing, since the check *is* the open. ``..`` climbs the folders
already held, never above the workspace. Then ``fstat`` on the descriptor: a regular file (a
FIFO would block, a device never end) with one name (a hard link's other name may be outside).

Claude Code checks paths by string (``utils/permissions/filesystem.ts``); the descriptor walk is
what ``openat2(RESOLVE_BENEATH)`` does in one call on Linux 5.6 and later.
"""

from __future__ import annotations

import errno
import os
import stat
from collections import deque
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

MAX_SYMLINK_HOPS = 40

Mode = Literal["read", "create", "update", "dir"]
_FILE_FLAGS = {
    "read": os.O_RDONLY,
    "create": os.O_RDWR | os.O_CREAT | os.O_EXCL,  # a symlink in its place is EEXIST
    "update": os.O_RDWR,
}
_BASE = os.O_NOFOLLOW | os.O_CLOEXEC | os.O_NONBLOCK
_DIR = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC


class Outside(Exception):
    """The path leads outside every root it may use."""


class NotAllowed(Exception):
    """The path is inside, but not something a tool may open (its message says why)."""


@dataclass(frozen=True, slots=True)
class Opened:
    """An open descriptor, the real path it stands for, and its ``fstat``."""

    fd: int
    real: Path
    st: os.stat_result

    def close(self) -> None:
        os.close(self.fd)

    def __enter__(self) -> Opened:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _root_of(path: str, roots: list[Path]) -> tuple[Path, list[str]]:
    """Which root ``path`` (absolute) starts under, and the components after it."""
    for root in roots:
        for spelling in {str(root), os.path.realpath(root)}:
            prefix = spelling.rstrip("/") + "/"
            if path == spelling or path.startswith(prefix):
                return Path(os.path.realpath(root)), path[len(prefix) :].split("/")
    raise Outside(path)


def open_inside(
    path: str, roots: list[Path], *, base: Path, mode: Mode, make_parents: bool = False
) -> Opened:
    """Open ``path`` (relative to ``base``) for ``mode`` without leaving the first root it
    names; :class:`Outside`, :class:`NotAllowed` or ``OSError`` (``FileNotFoundError``…)."""
    if "\0" in path:
        raise NotAllowed("The path contains a NUL character.")
    full = path if os.path.isabs(path) else os.path.join(str(base), path)
    root, parts = _root_of(os.path.normpath(full) if ".." not in full else full, roots)
    root_fd = os.open(root, _DIR & ~os.O_NOFOLLOW)
    stack = [root_fd]
    names: list[str] = []
    todo = deque(parts)
    hops = 0
    try:
        while True:
            while todo and todo[0] in ("", "."):
                todo.popleft()
            if not todo:
                if mode != "dir":
                    raise NotAllowed("The path names a folder, not a file.")
                fd = os.dup(stack[-1])
                return Opened(fd, root.joinpath(*names), os.fstat(fd))
            name = todo.popleft()
            if name == "..":
                if len(stack) == 1:
                    raise Outside(path)
                os.close(stack.pop())
                names.pop()
                continue
            last = not any(part not in ("", ".") for part in todo)
            try:
                if last and mode != "dir":
                    fd = os.open(name, _FILE_FLAGS[mode] | _BASE, 0o644, dir_fd=stack[-1])
                else:
                    fd = _open_folder(name, stack[-1], make_parents and not last)
            except OSError as exc:
                if exc.errno not in (errno.ELOOP, errno.ENOTDIR, errno.EMLINK):
                    raise
                target = _link_target(name, stack[-1])
                if target is None:
                    raise
                hops += 1
                if hops > MAX_SYMLINK_HOPS:
                    raise NotAllowed("Too many symbolic links on the way.") from None
                if target.startswith("/"):
                    inner_root, inner = _root_of(target, [root])
                    del inner_root
                    while len(stack) > 1:
                        os.close(stack.pop())
                    names.clear()
                    todo.extendleft(reversed(inner))
                else:
                    todo.extendleft(reversed(target.split("/")))
                continue
            if last and mode != "dir":
                names.append(name)
                return _checked(fd, root.joinpath(*names))
            stack.append(fd)
            names.append(name)
    except Outside:
        raise Outside(path) from None
    finally:
        for fd in stack:
            os.close(fd)


def _open_folder(name: str, dir_fd: int, make: bool) -> int:
    try:
        return os.open(name, _DIR, dir_fd=dir_fd)
    except FileNotFoundError:
        if not make:
            raise
        os.mkdir(name, 0o755, dir_fd=dir_fd)
        return os.open(name, _DIR, dir_fd=dir_fd)


def _link_target(name: str, dir_fd: int) -> str | None:
    try:
        if not stat.S_ISLNK(os.stat(name, dir_fd=dir_fd, follow_symlinks=False).st_mode):
            return None
        return os.readlink(name, dir_fd=dir_fd)
    except OSError:
        return None


def _checked(fd: int, real: Path) -> Opened:
    st = os.fstat(fd)
    try:
        if not stat.S_ISREG(st.st_mode):
            raise NotAllowed("not a regular file")
        if st.st_nlink > 1:
            raise NotAllowed(
                f"has {st.st_nlink} hard links; tracer does not open a file that also lives "
                "under another name, which may be outside the workspace"
            )
        # Regular files never block; reads and writes should not be non-blocking anyway.
        os.set_blocking(fd, True)
    except BaseException:
        os.close(fd)
        raise
    return Opened(fd, real, st)


def read_at_most(fd: int, limit: int) -> bytes:
    """Up to ``limit`` bytes from the start of ``fd``, read in chunks."""
    chunks, total = [], 0
    while total < limit:
        chunk = os.pread(fd, min(1 << 20, limit - total), total)
        if not chunk:
            break
        chunks.append(chunk)
        total += len(chunk)
    return b"".join(chunks)


def replace_content(fd: int, data: bytes) -> None:
    """Make ``data`` the whole content of the open file."""
    os.ftruncate(fd, 0)
    view = memoryview(data)
    offset = 0
    while offset < len(view):
        offset += os.pwrite(fd, view[offset:], offset)
