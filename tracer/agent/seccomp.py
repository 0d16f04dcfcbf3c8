"""A seccomp filter for sandboxed commands: the system calls a shell never needs, refused.

Namespaces hide the machine; a seccomp filter narrows what the kernel will even do. Claude Code's
sandbox runtime loads one under bubblewrap that refuses ``socket(AF_UNIX, …)`` (a Unix socket on
the host, such as ``/run/docker.sock``, is a door out of any mount namespace, since a read-only
bind mount does not stop ``connect``); Codex's Linux sandbox loads one beside Landlock that refuses
the network calls. This one does the first, and refuses what container runtimes refuse by
default: mounting, the kernel keyring (which no namespace separates), module and kexec loading,
``ptrace`` and its cousins ``process_vm_readv``/``process_vm_writev``, ``bpf``,
``perf_event_open``, ``userfaultfd``, ``io_uring`` and ``open_by_handle_at`` (the classic way out
of a container). Each refusal is ``EPERM``, so a program sees a plain error and goes on.

Socket families are filtered by the first argument of ``socket``: Unix, netlink and vsock are
refused (:data:`REFUSED_FAMILIES`), and ``socketpair(AF_UNIX, SOCK_DGRAM)`` too, since an unbound
datagram socket reaches any socket file or abstract name by ``sendto``. A connected stream pair
(asyncio's self-pipe, libuv's child pipes) reaches nothing else, so it is left. ``personality``
may only ask, or set plain Linux.

The program is classic BPF, built here byte by byte (no libseccomp): it is 60-odd instructions,
and ``bwrap --seccomp FD`` loads it (or, as root without bwrap, the trampoline of
:mod:`tracer.agent.unprivileged`). System call numbers differ from one architecture to the next,
so there is a table per architecture (:mod:`tracer.agent.seccomp_tables`), and the program's
first test is that the call comes from that architecture (``AUDIT_ARCH_*``): a 32-bit call on a
64-bit kernel would otherwise be read with the wrong numbers. Tables exist for x86-64 and
aarch64 (which uses the kernel's generic numbering, ``asm-generic/unistd.h``, and never had some
old calls such as ``uselib`` or ``iopl``: a name an architecture lacks is simply not in its
table). On any other architecture there is no filter: :func:`program` returns ``None`` and says
so once on stderr (the namespaces and the dropped capabilities still hold).
"""

from __future__ import annotations

import functools
import platform
import struct
import sys

from tracer.agent.seccomp_tables import TABLES, Table, table_for

_X32_BIT = 0x40000000
_AF_UNIX = 1
_AF_NETLINK = 16
_AF_VSOCK = 40
#: Socket families a command may not open: Unix sockets (``/run/docker.sock``, and with the
#: network on, every abstract socket of the host's network namespace), netlink (the kernel's
#: own sockets: routing, audit, uevents) and vsock (the hypervisor's side of a virtual machine).
REFUSED_FAMILIES = (_AF_UNIX, _AF_NETLINK, _AF_VSOCK)
_SOCK_DGRAM = 2
_SOCK_TYPE_MASK = 0xF
#: ``personality(PER_LINUX)`` and ``personality(0xffffffff)`` (a question, changing nothing)
#: are all a shell's programs ask; the rest turn off address randomisation
#: (``ADDR_NO_RANDOMIZE``) or make data executable (``READ_IMPLIES_EXEC``).
_PER_LINUX = 0
_PER_QUERY = 0xFFFFFFFF
_EPERM = 1

_RET_ALLOW = 0x7FFF0000
_RET_ERRNO = 0x00050000

# Classic BPF opcodes (linux/filter.h).
_LD_W_ABS = 0x20
_JEQ_K = 0x15
_JGE_K = 0x35
_AND_K = 0x54
_RET_K = 0x06

# Offsets in struct seccomp_data: nr, arch, then args[6] from byte 16 (low word first).
_NR, _ARCH, _ARG0, _ARG1 = 0, 4, 16, 24


def _insn(code: int, k: int, jt: int = 0, jf: int = 0) -> bytes:
    return struct.pack("<HBBI", code, jt, jf, k)


#: One instruction before its jumps are resolved: opcode, k, and the labels (or ``None``: the
#: next instruction) a jump goes to when true and when false.
_Op = tuple[int, int, str | None, str | None]


def _assemble(ops: list[_Op | str]) -> bytes:
    """Classic BPF from ``ops``, where a plain string is a label for the next instruction."""
    labels: dict[str, int] = {}
    flat: list[_Op] = []
    for op in ops:
        if isinstance(op, str):
            labels[op] = len(flat)
        else:
            flat.append(op)

    def offset(label: str | None, here: int) -> int:
        return 0 if label is None else labels[label] - here - 1

    return b"".join(
        _insn(code, k, offset(yes, i), offset(no, i)) for i, (code, k, yes, no) in enumerate(flat)
    )


def build(table: Table) -> bytes:
    """The filter. Another architecture (or x32): EPERM. A refused call: EPERM.
    ``socket`` of the families in :data:`REFUSED_FAMILIES`: EPERM. ``socketpair(AF_UNIX,
    SOCK_DGRAM)``: EPERM (an unbound datagram socket reaches any socket on the host by
    ``sendto``; a stream or seqpacket pair is connected for good, and asyncio and libuv need
    one). ``personality`` other than asking, or setting plain Linux: EPERM. Anything else
    runs."""
    n = table.numbers
    ops: list[_Op | str] = [
        (_LD_W_ABS, _ARCH, None, None),
        (_JEQ_K, table.audit_arch, None, "deny"),
        (_LD_W_ABS, _NR, None, None),
    ]
    if table.x32:
        ops.append((_JGE_K, _X32_BIT, "deny", None))
    ops += [
        (_JEQ_K, n["socket"], "socket", None),
        (_JEQ_K, n["socketpair"], "socketpair", None),
        (_JEQ_K, n["personality"], "personality", None),
    ]
    ops += [(_JEQ_K, nr, "deny", None) for nr in table.refused()]
    ops += [(_RET_K, _RET_ALLOW, None, None), "socket", (_LD_W_ABS, _ARG0, None, None)]
    ops += [(_JEQ_K, family, "deny", None) for family in REFUSED_FAMILIES]
    ops += [
        (_RET_K, _RET_ALLOW, None, None),
        "socketpair",
        (_LD_W_ABS, _ARG0, None, None),
        (_JEQ_K, _AF_UNIX, None, "allow"),
        (_LD_W_ABS, _ARG1, None, None),
        (_AND_K, _SOCK_TYPE_MASK, None, None),  # without SOCK_NONBLOCK, SOCK_CLOEXEC
        (_JEQ_K, _SOCK_DGRAM, "deny", "allow"),
        "personality",
        (_LD_W_ABS, _ARG0, None, None),
        (_JEQ_K, _PER_LINUX, "allow", None),
        (_JEQ_K, _PER_QUERY, "allow", "deny"),
        "allow",
        (_RET_K, _RET_ALLOW, None, None),
        "deny",
        (_RET_K, _RET_ERRNO | _EPERM, None, None),
    ]
    return _assemble(ops)


def program(machine: str | None = None) -> bytes | None:
    """The filter for ``machine`` (default: this one), or ``None`` where there is no table."""
    table = table_for(machine)
    if table is None:
        if machine is None:
            _say_no_table(platform.machine() or "unknown")
        return None
    return _built(table.name)


@functools.cache
def _built(name: str) -> bytes:
    return build(TABLES[name])


@functools.cache
def _say_no_table(machine: str) -> None:
    if sys.platform.startswith("linux"):
        print(
            f"tracer: note: no seccomp filter for this machine's architecture ({machine}): "
            "commands run without one",
            file=sys.stderr,
        )
