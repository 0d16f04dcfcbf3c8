"""A seccomp filter for sandboxed commands: the system calls a shell never needs, refused.

Namespaces hide the machine; a seccomp filter narrows what the kernel will even do. Claude Code's
sandbox runtime loads one under bubblewrap that refuses ``socket(AF_UNIX, …)`` (a Unix socket on
the host, such as ``/run/docker.sock``, is a door out of any mount namespace, since a read-only
bind mount does not stop ``connect``); Codex's Linux sandbox loads one beside Landlock that refuses
the network calls. This one does the first, and refuses what container runtimes refuse by
default: mounting, the kernel keyring (which no namespace separates), module and kexec loading,
``ptrace``, ``bpf``, ``perf_event_open``, ``userfaultfd``, ``io_uring`` and
``open_by_handle_at`` (the classic way out of a container). Each refusal is ``EPERM``, so a
program sees a plain error and goes on.

The program is classic BPF, built here byte by byte (no libseccomp): it is 40-odd instructions,
and ``bwrap --seccomp FD`` loads it. Only x86-64 has a table; on another architecture there is no
filter and :func:`program` returns ``None`` (the namespaces and capabilities still hold).
"""

from __future__ import annotations

import platform
import struct

AUDIT_ARCH_X86_64 = 0xC000003E
_X32_BIT = 0x40000000
_AF_UNIX = 1
_EPERM = 1

_RET_ALLOW = 0x7FFF0000
_RET_ERRNO = 0x00050000

# Classic BPF opcodes (linux/filter.h).
_LD_W_ABS = 0x20
_JEQ_K = 0x15
_JGE_K = 0x35
_RET_K = 0x06

# Offsets in struct seccomp_data: nr, arch, then args[6] from byte 16 (low word first).
_NR, _ARCH, _ARG0 = 0, 4, 16

#: x86-64 numbers of the refused calls (arch/x86/entry/syscalls/syscall_64.tbl).
X86_64_REFUSED = {
    "ptrace": 101,
    "syslog": 103,
    "pivot_root": 155,
    "chroot": 161,
    "acct": 163,
    "mount": 165,
    "umount2": 166,
    "swapon": 167,
    "swapoff": 168,
    "reboot": 169,
    "init_module": 175,
    "delete_module": 176,
    "quotactl": 179,
    "kexec_load": 246,
    "add_key": 248,
    "request_key": 249,
    "keyctl": 250,
    "unshare": 272,
    "perf_event_open": 298,
    "name_to_handle_at": 303,
    "open_by_handle_at": 304,
    "setns": 308,
    "finit_module": 313,
    "kexec_file_load": 320,
    "bpf": 321,
    "userfaultfd": 323,
    "io_uring_setup": 425,
    "io_uring_enter": 426,
    "io_uring_register": 427,
    "open_tree": 428,
    "move_mount": 429,
    "fsopen": 430,
    "fsconfig": 431,
    "fsmount": 432,
    "fspick": 433,
    "mount_setattr": 442,
}
X86_64_SOCKET = 41


def _insn(code: int, k: int, jt: int = 0, jf: int = 0) -> bytes:
    return struct.pack("<HBBI", code, jt, jf, k)


def build(refused: dict[str, int], socket_nr: int, arch: int) -> bytes:
    """The filter: wrong architecture or x32 → EPERM; a refused call → EPERM;
    ``socket(AF_UNIX, …)`` → EPERM; anything else runs."""
    numbers = sorted(refused.values())
    # Layout: 0 ld arch, 1 jeq arch, 2 ld nr, 3 jge x32, 4 jeq socket, 5.. jeq refused,
    # A ret allow, A+1 ld arg0, A+2 jeq AF_UNIX, A+3 ret errno, A+4 ret allow.
    allow = 5 + len(numbers)
    deny = allow + 3

    def to(target: int, here: int) -> int:
        return target - here - 1

    out = [
        _insn(_LD_W_ABS, _ARCH),
        _insn(_JEQ_K, arch, 0, to(deny, 1)),
        _insn(_LD_W_ABS, _NR),
        _insn(_JGE_K, _X32_BIT, to(deny, 3), 0),
        _insn(_JEQ_K, socket_nr, to(allow + 1, 4), 0),
    ]
    for i, nr in enumerate(numbers):
        out.append(_insn(_JEQ_K, nr, to(deny, 5 + i), 0))
    out += [
        _insn(_RET_K, _RET_ALLOW),
        _insn(_LD_W_ABS, _ARG0),
        _insn(_JEQ_K, _AF_UNIX, 0, 1),
        _insn(_RET_K, _RET_ERRNO | _EPERM),
        _insn(_RET_K, _RET_ALLOW),
    ]
    return b"".join(out)


def program() -> bytes | None:
    """The filter for this machine's architecture, or ``None`` where there is no table."""
    if platform.machine() not in ("x86_64", "AMD64"):
        return None
    return build(X86_64_REFUSED, X86_64_SOCKET, AUDIT_ARCH_X86_64)
