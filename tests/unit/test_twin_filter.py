"""The seccomp program, run by a classic-BPF interpreter: what it allows, kills and retries."""

from __future__ import annotations

import struct

import pytest

from crane_server.probe.twin import seal

PID = 4242
REPORT_FD = 9


def run_filter(
    program: bytes, nr: int, args: tuple[int, ...] = (), arch: int = seal.ARCH_X86_64
) -> int:
    """Evaluate the filter on one syscall as the kernel would (the subset of BPF it uses)."""
    padded = (list(args) + [0] * 6)[:6]
    data = struct.pack("<iIQ6Q", nr, arch, 0, *padded)
    code = [struct.unpack("HBBI", program[i : i + 8]) for i in range(0, len(program), 8)]
    accumulator, pc = 0, 0
    while True:
        op, jt, jf, k = code[pc]
        if op == 0x20:
            accumulator = struct.unpack_from("<I", data, k)[0]
        elif op == 0x54:
            accumulator &= k
        elif op in (0x15, 0x35):
            taken = accumulator == k if op == 0x15 else accumulator >= k
            pc += jt if taken else jf
        elif op == 0x06:
            return k
        else:
            raise AssertionError(f"unexpected opcode {op:#x}")
        pc += 1


PROGRAM = seal.build_filter(PID, (1, 2, REPORT_FD))
ALLOW, KILL = seal.RET_ALLOW, seal.RET_KILL_PROCESS
O_WRONLY, O_RDWR, O_CREAT, O_TRUNC, O_APPEND = 1, 2, 0o100, 0o1000, 0o2000


@pytest.mark.parametrize(
    ("nr", "args", "verdict"),
    [
        pytest.param(0, (5, 0, 10), ALLOW, id="read any fd"),
        pytest.param(1, (1,), ALLOW, id="write stdout (/dev/null)"),
        pytest.param(1, (REPORT_FD,), ALLOW, id="write the report pipe"),
        pytest.param(1, (7,), KILL, id="write an inherited fd"),
        pytest.param(20, (3,), KILL, id="writev another fd"),
        pytest.param(257, (-100 & 0xFFFFFFFF, 0, 0), ALLOW, id="openat read-only"),
        pytest.param(257, (0, 0, O_WRONLY), KILL, id="openat write-only"),
        pytest.param(257, (0, 0, O_RDWR), KILL, id="openat read-write"),
        pytest.param(257, (0, 0, O_CREAT), KILL, id="openat create"),
        pytest.param(257, (0, 0, O_TRUNC), KILL, id="openat truncate"),
        pytest.param(257, (0, 0, O_APPEND), KILL, id="openat append"),
        pytest.param(2, (0, O_RDWR), KILL, id="open read-write"),
        pytest.param(56, (0x3D0F00,), ALLOW, id="clone a thread"),
        pytest.param(56, (0x01200011,), KILL, id="clone a process (fork)"),
        pytest.param(435, (), seal.RET_ERRNO | seal.ENOSYS, id="clone3 retried as clone"),
        pytest.param(437, (), seal.RET_ERRNO | seal.ENOSYS, id="openat2 retried as openat"),
        pytest.param(62, (PID, 10), ALLOW, id="kill self"),
        pytest.param(62, (PID - 1, 10), KILL, id="kill the parent"),
        pytest.param(62, (0, 10), KILL, id="kill the group"),
        pytest.param(234, (PID, PID + 1, 10), ALLOW, id="tgkill own thread"),
        pytest.param(234, (1, 1, 10), KILL, id="tgkill another process"),
        pytest.param(13, (14, 1, 0), KILL, id="sigaction SIGALRM (the budget)"),
        pytest.param(13, (2, 1, 0), ALLOW, id="sigaction SIGINT"),
        pytest.param(302, (0, 7, 0, 1), ALLOW, id="prlimit64 query"),
        pytest.param(302, (0, 7, 0x7FFF0000, 0), KILL, id="prlimit64 set"),
        pytest.param(16, (1, 0x5401), ALLOW, id="ioctl TCGETS"),
        pytest.param(16, (1, 0x5412), KILL, id="ioctl TIOCSTI"),
        pytest.param(72, (3, 1), ALLOW, id="fcntl F_GETFD"),
        pytest.param(72, (3, 6), KILL, id="fcntl F_SETLK"),
        pytest.param(157, (15,), ALLOW, id="prctl PR_SET_NAME"),
        pytest.param(157, (22,), KILL, id="prctl PR_SET_SECCOMP"),
        pytest.param(59, (), KILL, id="execve"),
        pytest.param(57, (), KILL, id="fork"),
        pytest.param(41, (2, 1, 0), KILL, id="socket"),
        pytest.param(101, (), KILL, id="ptrace"),
        pytest.param(311, (), KILL, id="process_vm_writev"),
        pytest.param(425, (), KILL, id="io_uring_setup"),
        pytest.param(321, (), KILL, id="bpf"),
        pytest.param(298, (), KILL, id="perf_event_open"),
        pytest.param(165, (), KILL, id="mount"),
        pytest.param(250, (), KILL, id="keyctl"),
        pytest.param(87, (), KILL, id="unlink"),
        pytest.param(82, (), KILL, id="rename"),
        pytest.param(83, (), KILL, id="mkdir"),
        pytest.param(30, (), KILL, id="shmat"),
        pytest.param(38, (), KILL, id="setitimer (the budget)"),
        pytest.param(0x40000000 + 0, (), KILL, id="x32 ABI read"),
    ],
)
def test_filter_verdict(nr: int, args: tuple[int, ...], verdict: int) -> None:
    assert run_filter(PROGRAM, nr, args) == verdict


def test_another_architecture_is_killed() -> None:
    assert run_filter(PROGRAM, 0, (), arch=0x40000003) == KILL  # i386


def test_every_always_allowed_call_is_allowed_and_nothing_else_between() -> None:
    for nr in range(0, 460):
        verdict = run_filter(PROGRAM, nr, (REPORT_FD, 0, 0))
        if nr in seal.ALWAYS.values():
            assert verdict == ALLOW, nr
    assert len(PROGRAM) // 8 < 4096  # the kernel's limit on one filter
