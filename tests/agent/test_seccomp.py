"""The seccomp filter of each architecture, run by a small BPF interpreter here.

Only one architecture's filter can be loaded on this machine (the attack tests load it, under
bwrap and under a dropped uid); every table's program is checked by running it, instruction by
instruction, on the calls it must refuse and the ones it must let through. Each table's numbers
are checked against the kernel headers where this machine has them.
"""

from __future__ import annotations

import re
import struct
from pathlib import Path

import pytest

from tracer.agent import seccomp, seccomp_tables

ALLOW, DENY = 0x7FFF0000, 0x00050001  # SECCOMP_RET_ALLOW; SECCOMP_RET_ERRNO | EPERM
OTHER_ARCH = {"x86_64": 0x40000003, "aarch64": 0x40000028}  # i386 and 32-bit ARM beside them
# Calls a shell makes all the time, by architecture: read, write, execve, clone, openat.
EVERYDAY = {"x86_64": [0, 1, 59, 56, 257], "aarch64": [63, 64, 221, 220, 56]}
HEADERS = {
    "x86_64": [
        Path("/usr/include/x86_64-linux-gnu/asm/unistd_64.h"),
        Path("/usr/include/asm/unistd_64.h"),
    ],
    "aarch64": [Path("/usr/include/asm-generic/unistd.h")],
}


def run(program: bytes, arch: int, nr: int, arg0: int = 0, arg1: int = 0) -> int:
    """What the kernel would answer to call ``nr`` of ``arch`` with arguments ``arg0, arg1``:
    classic BPF over ``struct seccomp_data`` (only the opcodes a filter of ours uses)."""
    data = struct.pack("<iIQQQ", nr, arch, 0, arg0, arg1)
    insns = [struct.unpack("<HBBI", program[i : i + 8]) for i in range(0, len(program), 8)]
    acc, pc = 0, 0
    while True:
        code, jt, jf, k = insns[pc]
        if code == 0x20:  # ld word at k
            acc = struct.unpack("<I", data[k : k + 4])[0]
            pc += 1
        elif code in (0x15, 0x35):  # jeq / jge k
            taken = acc == k if code == 0x15 else acc >= k
            pc += 1 + (jt if taken else jf)
        elif code == 0x54:  # and k
            acc &= k
            pc += 1
        elif code == 0x06:
            return k
        else:
            raise AssertionError(f"unexpected opcode {code:#x} at {pc}")


@pytest.mark.parametrize("name", sorted(seccomp_tables.TABLES))
def test_each_table_refuses_its_calls_and_lets_the_rest_run(name: str) -> None:
    table = seccomp_tables.TABLES[name]
    program = seccomp.build(table)
    assert len(program) % 8 == 0 and len(program) // 8 < 100
    for call in seccomp_tables.REFUSED:
        if call in table.numbers:
            assert run(program, table.audit_arch, table.numbers[call]) == DENY, call
    for nr in EVERYDAY[name]:
        assert run(program, table.audit_arch, nr) == ALLOW, nr
    socket = table.numbers["socket"]
    assert run(program, table.audit_arch, socket, arg0=1) == DENY  # AF_UNIX
    assert run(program, table.audit_arch, socket, arg0=2) == ALLOW  # AF_INET
    assert run(program, table.audit_arch, socket, arg0=10) == ALLOW  # AF_INET6
    assert run(program, table.audit_arch, socket, arg0=16) == DENY  # AF_NETLINK
    assert run(program, table.audit_arch, socket, arg0=40) == DENY  # AF_VSOCK


@pytest.mark.parametrize("name", sorted(seccomp_tables.TABLES))
def test_a_datagram_pair_and_personality_changes_are_refused(name: str) -> None:
    table = seccomp_tables.TABLES[name]
    program = seccomp.build(table)
    pair, persona = table.numbers["socketpair"], table.numbers["personality"]
    cloexec_nonblock = 0o2000000 | 0o4000
    assert run(program, table.audit_arch, pair, 1, 2) == DENY  # AF_UNIX, SOCK_DGRAM
    assert run(program, table.audit_arch, pair, 1, 2 | cloexec_nonblock) == DENY
    assert run(program, table.audit_arch, pair, 1, 1) == ALLOW  # SOCK_STREAM: asyncio, libuv
    assert run(program, table.audit_arch, pair, 1, 5 | cloexec_nonblock) == ALLOW  # SEQPACKET
    assert run(program, table.audit_arch, persona, 0xFFFFFFFF) == ALLOW  # a question
    assert run(program, table.audit_arch, persona, 0) == ALLOW  # PER_LINUX
    assert run(program, table.audit_arch, persona, 0x0040000) == DENY  # ADDR_NO_RANDOMIZE
    assert run(program, table.audit_arch, persona, 0x0400000) == DENY  # READ_IMPLIES_EXEC
    assert run(program, table.audit_arch, persona, 0x0008) == DENY  # PER_LINUX32


@pytest.mark.parametrize("name", sorted(seccomp_tables.TABLES))
def test_a_call_of_another_architecture_is_refused_whatever_it_is(name: str) -> None:
    table = seccomp_tables.TABLES[name]
    program = seccomp.build(table)
    foreign = OTHER_ARCH[name]
    assert all(run(program, foreign, nr) == DENY for nr in EVERYDAY[name])
    other = seccomp_tables.TABLES["aarch64" if name == "x86_64" else "x86_64"]
    assert run(program, other.audit_arch, EVERYDAY[name][0]) == DENY


def test_only_x86_64_refuses_the_x32_numbers() -> None:
    x86, arm = seccomp_tables.TABLES["x86_64"], seccomp_tables.TABLES["aarch64"]
    x32_read = 0x40000000
    assert run(seccomp.build(x86), x86.audit_arch, x32_read) == DENY
    # aarch64 has no such numbering: its program has no test for it (one instruction fewer).
    assert len(seccomp.build(x86)) // 8 - len(x86.refused()) == (
        len(seccomp.build(arm)) // 8 - len(arm.refused()) + 1
    )


def test_a_call_aarch64_lacks_is_left_out_of_its_table() -> None:
    arm, x86 = seccomp_tables.TABLES["aarch64"], seccomp_tables.TABLES["x86_64"]
    absent = [call for call in seccomp_tables.REFUSED if call not in arm.numbers]
    assert {"uselib", "iopl", "ioperm"} <= set(absent)
    assert all(call in x86.numbers for call in seccomp_tables.REFUSED)
    assert len(arm.refused()) == len(seccomp_tables.REFUSED) - len(absent)


@pytest.mark.parametrize("name", sorted(seccomp_tables.TABLES))
def test_the_numbers_are_the_kernels(name: str) -> None:
    header = next((h for h in HEADERS[name] if h.is_file()), None)
    if header is None:
        pytest.skip(f"no {name} system call header on this machine")
    text = header.read_text()
    kernel = {
        m[1]: int(m[2])
        for m in re.finditer(r"^#define __NR(?:3264)?_(\w+)\s+(\d+)\s*$", text, re.M)
    }
    table = seccomp_tables.TABLES[name].numbers
    assert {call: table[call] for call in table} == {call: kernel[call] for call in table}
    # Absent from the table means absent from the kernel's list, not forgotten.
    missing = [call for call in seccomp_tables.REFUSED if call not in table]
    assert [call for call in missing if call in kernel] == []


@pytest.mark.parametrize(
    ("machine", "name"),
    [("x86_64", "x86_64"), ("AMD64", "x86_64"), ("aarch64", "aarch64"), ("arm64", "aarch64")],
)
def test_the_machine_picks_its_table(machine: str, name: str) -> None:
    table = seccomp_tables.table_for(machine)
    assert table is not None and table.name == name
    assert seccomp.program(machine) == seccomp.build(table)


def test_an_unknown_architecture_gets_no_filter_and_says_so_once(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(seccomp.platform, "machine", lambda: "riscv64")
    monkeypatch.setattr(seccomp.sys, "platform", "linux")
    seccomp._say_no_table.cache_clear()
    assert seccomp.program() is None and seccomp.program() is None
    err = capsys.readouterr().err.splitlines()
    assert err == [
        "tracer: note: no seccomp filter for this machine's architecture (riscv64): "
        "commands run without one"
    ]
    seccomp._say_no_table.cache_clear()
