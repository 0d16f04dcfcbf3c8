"""Which system calls the seccomp filter refuses, and their numbers on each architecture.

:mod:`tracer.agent.seccomp` writes the filter's program; this module holds what that program
is built from: the refused calls by name (:data:`REFUSED`), one table of numbers per
architecture with the ``AUDIT_ARCH_*`` value the kernel reports for its calls (:class:`Table`),
and the choice of a table for the machine at hand (:func:`table_for`). System call numbers
differ from one architecture to the next, so a name means nothing to the kernel until a table
turns it into a number. Tables exist for x86-64 and aarch64 (which uses the kernel's generic
numbering, ``asm-generic/unistd.h``, and never had some old calls such as ``uselib`` or
``iopl``: a name an architecture lacks is simply not in its table); any other machine gets no
table, and so no filter.

Claude Code 2.1.88's sandbox runtime (its ``SeccompFilter`` in ``cli.js``) does not build its
filter at all: it ships a pre-generated one per architecture
(``vendor/seccomp/{x64,arm64}/unix-block.bpf``), picked by ``process.arch``, and refuses to
filter 32-bit x86, whose ``socketcall()`` would slip past a ``socket`` test. tracer's tables
are written out here instead, and checked against the kernel's headers by
``tests/agent/test_seccomp.py``.
"""

from __future__ import annotations

import platform
import struct
from dataclasses import dataclass

# AUDIT_ARCH_* (linux/audit.h): the ELF machine, plus 64-bit and little-endian flags.
AUDIT_ARCH_X86_64 = 0xC000003E
AUDIT_ARCH_AARCH64 = 0xC00000B7

#: The refused calls, by name; each architecture's table gives their numbers.
REFUSED = (
    "ptrace",
    "process_vm_readv",
    "process_vm_writev",
    "syslog",
    "pivot_root",
    "chroot",
    "acct",
    "mount",
    "umount2",
    "swapon",
    "swapoff",
    "reboot",
    "init_module",
    "delete_module",
    "quotactl",
    "kexec_load",
    "add_key",
    "request_key",
    "keyctl",
    "unshare",
    "perf_event_open",
    "name_to_handle_at",
    "open_by_handle_at",
    "setns",
    "finit_module",
    "kexec_file_load",
    "bpf",
    "userfaultfd",
    "io_uring_setup",
    "io_uring_enter",
    "io_uring_register",
    "open_tree",
    "move_mount",
    "fsopen",
    "fsconfig",
    "fsmount",
    "fspick",
    "mount_setattr",
    "uselib",
    "iopl",
    "ioperm",
)

#: x86-64 numbers (arch/x86/entry/syscalls/syscall_64.tbl).
X86_64_NUMBERS = {
    "socket": 41,
    "socketpair": 53,
    "personality": 135,
    "ptrace": 101,
    "syslog": 103,
    "uselib": 134,
    "pivot_root": 155,
    "chroot": 161,
    "acct": 163,
    "mount": 165,
    "umount2": 166,
    "swapon": 167,
    "swapoff": 168,
    "reboot": 169,
    "iopl": 172,
    "ioperm": 173,
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
    "process_vm_readv": 310,
    "process_vm_writev": 311,
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

#: aarch64 numbers: the generic table (include/uapi/asm-generic/unistd.h). No ``uselib``,
#: ``iopl`` nor ``ioperm`` (nor ``open`` or ``fork``: ``openat`` and ``clone`` do their work).
AARCH64_NUMBERS = {
    "umount2": 39,
    "mount": 40,
    "pivot_root": 41,
    "chroot": 51,
    "quotactl": 60,
    "acct": 89,
    "personality": 92,
    "unshare": 97,
    "kexec_load": 104,
    "init_module": 105,
    "delete_module": 106,
    "syslog": 116,
    "ptrace": 117,
    "reboot": 142,
    "socket": 198,
    "socketpair": 199,
    "add_key": 217,
    "request_key": 218,
    "keyctl": 219,
    "swapon": 224,
    "swapoff": 225,
    "perf_event_open": 241,
    "name_to_handle_at": 264,
    "open_by_handle_at": 265,
    "setns": 268,
    "process_vm_readv": 270,
    "process_vm_writev": 271,
    "finit_module": 273,
    "bpf": 280,
    "userfaultfd": 282,
    "kexec_file_load": 294,
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


@dataclass(frozen=True, slots=True)
class Table:
    """One architecture's side of the filter."""

    name: str
    audit_arch: int
    numbers: dict[str, int]
    x32: bool = False
    """x86-64 also takes x32 calls (numbers with bit 30 set) under the same ``AUDIT_ARCH``."""

    def refused(self) -> list[int]:
        """The numbers of the refused calls this architecture has (absent ones are skipped)."""
        return sorted({self.numbers[name] for name in REFUSED if name in self.numbers})


TABLES = {
    "x86_64": Table("x86_64", AUDIT_ARCH_X86_64, X86_64_NUMBERS, x32=True),
    "aarch64": Table("aarch64", AUDIT_ARCH_AARCH64, AARCH64_NUMBERS),
}
#: What ``platform.machine()`` says on each (Linux, the BSDs, macOS spell them differently).
MACHINES = {"x86_64": "x86_64", "amd64": "x86_64", "aarch64": "aarch64", "arm64": "aarch64"}


def table_for(machine: str | None = None) -> Table | None:
    """The table for ``machine`` (default: this one), or ``None`` where there is none.

    A 32-bit Python on a 64-bit kernel reports the kernel's machine, but its programs make
    32-bit calls, which the 64-bit table would refuse one and all: no table for it either."""
    if machine is None:
        if struct.calcsize("P") != 8:
            return None
        machine = platform.machine()
    key = MACHINES.get(machine.lower())
    return TABLES.get(key) if key else None
