"""The seal of a twin, enforced by the Linux kernel: no_new_privs, Landlock, seccomp-bpf.

Built with ctypes and raw syscall numbers only (the user's kernel may lack every package).
The seccomp filter is a default-deny allowlist: a syscall outside it, or one inside it with
arguments outside what it allows (a write-mode open, a clone that is not a thread, a write
to a descriptor that is not the report pipe or /dev/null, a signal to another process), kills
the whole twin with SIGSYS (`SECCOMP_RET_KILL_PROCESS`). So a denial is seen at the syscall
level, by its parent, and can never be caught by the cell and turned into another exception.
Two calls that glibc retries with an older form (clone3, openat2) get ENOSYS instead.
Landlock (where the kernel has it) adds a second wall that does not depend on the filter:
no write access anywhere, no TCP bind or connect, and (ABI >= 6) no signals or abstract
unix sockets outside the twin.
"""

import ctypes
import os
import platform
import struct
from typing import Dict, Iterable, List, Optional, Tuple

ARCH_X86_64 = 0xC000003E
X32_SYSCALL_BIT = 0x40000000

RET_KILL_PROCESS = 0x80000000
RET_ALLOW = 0x7FFF0000
RET_ERRNO = 0x00050000
ENOSYS = 38

PR_SET_NO_NEW_PRIVS = 38
PR_SET_SECCOMP = 22
SECCOMP_MODE_FILTER = 2

# classic BPF opcodes
_LD_W_ABS = 0x20
_JEQ_K = 0x15
_JGE_K = 0x35
_AND_K = 0x54
_RET_K = 0x06

# offsets in struct seccomp_data
_NR = 0
_ARCH = 4


def _arg_low(index: int) -> int:
    return 16 + 8 * index


def _arg_high(index: int) -> int:
    return 20 + 8 * index


def _named(table: str) -> Dict[str, int]:
    words = table.split()
    return {name: int(number) for name, number in zip(words[::2], words[1::2])}


# x86_64 syscalls allowed whatever their arguments: reading, memory, time, threads' own
# bookkeeping, descriptors the twin itself created. Derived from strace -f of cells that use
# numpy, pandas, scikit-learn, torch, matplotlib (Agg) and TensorFlow, then kept only where
# the call cannot reach anything outside the twin.
ALWAYS: Dict[str, int] = _named(
    """
    read 0 close 3 stat 4 fstat 5 lstat 6 poll 7 lseek 8 mmap 9 mprotect 10 munmap 11 brk 12
    rt_sigprocmask 14 rt_sigreturn 15 pread64 17 readv 19 access 21 pipe 22 select 23
    sched_yield 24 mremap 25 msync 26 mincore 27 madvise 28 dup 32 dup2 33 pause 34
    nanosleep 35 getitimer 36 getpid 39 wait4 61 uname 63 getdents 78 getcwd 79 chdir 80
    fchdir 81 readlink 89 umask 95 gettimeofday 96 getrlimit 97 getrusage 98 sysinfo 99
    times 100 getuid 102 getgid 104 geteuid 107 getegid 108 getppid 110 getpgrp 111
    getgroups 115 getresuid 118 getresgid 120 getpgid 121 getsid 124 capget 125
    sigaltstack 131 statfs 137 fstatfs 138 getpriority 140 sched_getparam 143
    sched_getscheduler 145 sched_get_priority_max 146 sched_get_priority_min 147
    sched_rr_get_interval 148 arch_prctl 158 gettid 186 getxattr 191 lgetxattr 192
    fgetxattr 193 listxattr 194 llistxattr 195 flistxattr 196 time 201 futex 202
    sched_getaffinity 204 getdents64 217 set_tid_address 218 restart_syscall 219
    fadvise64 221 clock_gettime 228 clock_getres 229 clock_nanosleep 230 exit_group 231
    epoll_wait 232 epoll_ctl 233 exit 60 mbind 237 set_mempolicy 238 get_mempolicy 239
    waitid 247 ioprio_get 252 newfstatat 262 readlinkat 267 faccessat 269 pselect6 270
    ppoll 271 set_robust_list 273 get_robust_list 274 epoll_pwait 281 timerfd_create 283
    eventfd 284 timerfd_settime 286 timerfd_gettime 287 signalfd4 289 eventfd2 290
    epoll_create1 291 dup3 292 pipe2 293 preadv 295 getcpu 309 sched_getattr 315
    getrandom 318 membarrier 324 preadv2 327 statx 332 rseq 334 close_range 436
    faccessat2 439 epoll_pwait2 441 epoll_create 213
    """
)

# Calls glibc or CPython retry in an older, checkable form when told the call does not exist.
RETRY_OLDER = {"clone3": 435, "openat2": 437}

WRITES = {"write": 1, "pwrite64": 18, "writev": 20, "pwritev": 296, "pwritev2": 328}
O_WRITE_INTENT = 0o3 | 0o100 | 0o1000 | 0o2000 | 0o20000000  # ACCMODE CREAT TRUNC APPEND TMPFILE
CLONE_THREAD = 0x00010000
SIGALRM = 14
SIGXCPU = 24
# ioctl requests that only ask (terminal size, bytes readable) or set the twin's own fd flags
IOCTLS = (0x5401, 0x5413, 0x541B, 0x5421, 0x5450, 0x5451, 0x540F)
# fcntl commands on the twin's own descriptors (dup, fd and status flags, lock queries)
FCNTLS = (0, 1, 2, 3, 4, 5, 36, 1030, 1032, 1033, 1034)
# prctl options that name threads or read: the filter cannot be loosened by any prctl anyway
PRCTLS = (2, 3, 15, 16, 21, 23, 36, 37, 39, 0x53564D41)


class SealUnavailable(Exception):
    """This machine or kernel cannot seal a twin (there is then no twin, never an unsealed one)."""


def seal_support() -> Optional[str]:
    """None when a twin can be sealed here, else why not (said in the hover and `kernels`)."""
    if platform.system() != "Linux":
        return "the dry run needs Linux (seccomp)"
    if platform.machine() not in ("x86_64", "AMD64"):
        return "the dry run's seccomp filter is built for x86_64 only, not %s" % platform.machine()
    try:
        with open("/proc/self/status") as status:
            text = status.read()
    except OSError:
        return "cannot read /proc/self/status"
    if "Seccomp:" not in text:
        return "this Linux kernel has no seccomp"
    return None


class _Program:
    """A classic BPF program built from small blocks that only ever jump forward a little."""

    def __init__(self) -> None:
        self.code: List[Tuple[int, int, int, int]] = []

    def load(self, offset: int) -> None:
        self.code.append((_LD_W_ABS, 0, 0, offset))

    def ret(self, value: int) -> None:
        self.code.append((_RET_K, 0, 0, value))

    def allow_if_nr(self, number: int) -> None:
        self.code.append((_JEQ_K, 0, 1, number))
        self.ret(RET_ALLOW)

    def block_for_nr(self, number: int, block: "_Program") -> None:
        """If the syscall is `number`, run `block` (which must end in a return)."""
        self.code.append((_JEQ_K, 0, len(block.code), number))
        self.code.extend(block.code)
        self.load(_NR)  # blocks load arguments: put the number back for the next test

    def packed(self) -> bytes:
        return b"".join(struct.pack("HBBI", *instruction) for instruction in self.code)


def _one_of(arg: int, values: Iterable[int], *, verdict: int, otherwise: int) -> "_Program":
    block = _Program()
    block.load(_arg_low(arg))
    for value in values:
        block.code.append((_JEQ_K, 0, 1, value & 0xFFFFFFFF))
        block.ret(verdict)
    block.ret(otherwise)
    return block


def _flags_clear(arg: int, mask: int) -> "_Program":
    block = _Program()
    block.load(_arg_low(arg))
    block.code.append((_AND_K, 0, 0, mask))
    block.code.append((_JEQ_K, 0, 1, 0))
    block.ret(RET_ALLOW)
    block.ret(RET_KILL_PROCESS)
    return block


def _flags_set(arg: int, flag: int) -> "_Program":
    block = _Program()
    block.load(_arg_low(arg))
    block.code.append((_AND_K, 0, 0, flag))
    block.code.append((_JEQ_K, 0, 1, flag))
    block.ret(RET_ALLOW)
    block.ret(RET_KILL_PROCESS)
    return block


def _null_pointer(arg: int) -> "_Program":
    block = _Program()
    block.load(_arg_low(arg))
    block.code.append((_JEQ_K, 0, 3, 0))
    block.load(_arg_high(arg))
    block.code.append((_JEQ_K, 0, 1, 0))
    block.ret(RET_ALLOW)
    block.ret(RET_KILL_PROCESS)
    return block


def build_filter(pid: int, writable_fds: Iterable[int]) -> bytes:
    """The twin's seccomp program: `pid` is the twin, `writable_fds` the only write targets."""
    program = _Program()
    program.load(_ARCH)
    program.code.append((_JEQ_K, 1, 0, ARCH_X86_64))
    program.ret(RET_KILL_PROCESS)
    program.load(_NR)
    program.code.append((_JGE_K, 0, 1, X32_SYSCALL_BIT))
    program.ret(RET_KILL_PROCESS)
    for number in sorted(ALWAYS.values()):
        program.allow_if_nr(number)
    for number in RETRY_OLDER.values():
        program.code.append((_JEQ_K, 0, 1, number))
        program.ret(RET_ERRNO | ENOSYS)
    fds = sorted(set(writable_fds))
    for number in WRITES.values():
        program.block_for_nr(number, _one_of(0, fds, verdict=RET_ALLOW, otherwise=RET_KILL_PROCESS))
    program.block_for_nr(257, _flags_clear(2, O_WRITE_INTENT))  # openat
    program.block_for_nr(2, _flags_clear(1, O_WRITE_INTENT))  # open
    program.block_for_nr(56, _flags_set(0, CLONE_THREAD))  # clone: threads only
    for number in (62, 234, 129, 297):  # kill, tgkill, rt_sigqueueinfo, rt_tgsigqueueinfo
        program.block_for_nr(
            number, _one_of(0, (pid,), verdict=RET_ALLOW, otherwise=RET_KILL_PROCESS)
        )
    # rt_sigaction: the budget's signals keep their default (deadly) action
    program.block_for_nr(
        13,
        _one_of(0, (SIGALRM, SIGXCPU), verdict=RET_KILL_PROCESS, otherwise=RET_ALLOW),
    )
    program.block_for_nr(16, _one_of(1, IOCTLS, verdict=RET_ALLOW, otherwise=RET_KILL_PROCESS))
    program.block_for_nr(72, _one_of(1, FCNTLS, verdict=RET_ALLOW, otherwise=RET_KILL_PROCESS))
    program.block_for_nr(157, _one_of(0, PRCTLS, verdict=RET_ALLOW, otherwise=RET_KILL_PROCESS))
    program.block_for_nr(302, _null_pointer(2))  # prlimit64: queries only
    program.block_for_nr(  # sched_setaffinity of the twin's own threads
        203, _one_of(0, (0, pid), verdict=RET_ALLOW, otherwise=RET_KILL_PROCESS)
    )
    program.ret(RET_KILL_PROCESS)
    return program.packed()


class _SockFprog(ctypes.Structure):
    _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.c_void_p)]


def _libc() -> "ctypes.CDLL":
    # PyDLL keeps the GIL across the call: the twin is single-threaded when it seals
    return ctypes.PyDLL(None, use_errno=True)


def _check(result: int, what: str) -> int:
    if result < 0:
        number = ctypes.get_errno()
        raise SealUnavailable("%s failed: %s" % (what, os.strerror(number)))
    return result


def no_new_privs() -> None:
    libc = _libc()
    _check(libc.prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0), "PR_SET_NO_NEW_PRIVS")


def install_seccomp(program: bytes) -> None:
    libc = _libc()
    buffer = ctypes.create_string_buffer(program, len(program))
    fprog = _SockFprog(len(program) // 8, ctypes.addressof(buffer))
    prctl = libc.prctl
    prctl.argtypes = [ctypes.c_int, ctypes.c_ulong, ctypes.c_void_p, ctypes.c_ulong, ctypes.c_ulong]
    _check(
        prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, ctypes.addressof(fprog), 0, 0), "seccomp filter"
    )


# Landlock
_SYS_CREATE_RULESET = 444
_SYS_RESTRICT_SELF = 446
_CREATE_RULESET_VERSION = 1
_FS_WRITE_RIGHTS_BY_ABI = (
    (
        1,
        (1 << 1)
        | (1 << 4)
        | (1 << 5)
        | (1 << 6)
        | (1 << 7)
        | (1 << 8)
        | (1 << 9)
        | (1 << 10)
        | (1 << 11)
        | (1 << 12),
    ),
    (2, 1 << 13),  # REFER
    (3, 1 << 14),  # TRUNCATE
    (5, 1 << 15),  # IOCTL_DEV
)
_NET_TCP = 1 | 2  # BIND_TCP, CONNECT_TCP (ABI 4)
_SCOPED = 1 | 2  # ABSTRACT_UNIX_SOCKET, SIGNAL (ABI 6)


def landlock_abi() -> int:
    """The running kernel's Landlock ABI version (0: none)."""
    libc = _libc()
    libc.syscall.restype = ctypes.c_long
    version = libc.syscall(
        ctypes.c_long(_SYS_CREATE_RULESET),
        None,
        ctypes.c_size_t(0),
        ctypes.c_uint32(_CREATE_RULESET_VERSION),
    )
    return int(version) if version > 0 else 0


def install_landlock() -> int:
    """Deny every write, TCP bind/connect and outside signals; return the ABI used (0: none)."""
    abi = landlock_abi()
    if abi <= 0:
        return 0
    fs = 0
    for since, rights in _FS_WRITE_RIGHTS_BY_ABI:
        if abi >= since:
            fs |= rights
    fields = [fs]
    if abi >= 4:
        fields.append(_NET_TCP)
    if abi >= 6:
        fields.append(_SCOPED)
    attr = struct.pack("Q" * len(fields), *fields)
    buffer = ctypes.create_string_buffer(attr, len(attr))
    libc = _libc()
    libc.syscall.restype = ctypes.c_long
    fd = libc.syscall(
        ctypes.c_long(_SYS_CREATE_RULESET), buffer, ctypes.c_size_t(len(attr)), ctypes.c_uint32(0)
    )
    _check(int(fd), "landlock_create_ruleset")
    try:
        _check(
            int(
                libc.syscall(
                    ctypes.c_long(_SYS_RESTRICT_SELF), ctypes.c_int(fd), ctypes.c_uint32(0)
                )
            ),
            "landlock_restrict_self",
        )
    finally:
        os.close(fd)
    return abi


def seal(pid: int, writable_fds: Iterable[int]) -> Dict[str, object]:
    """Seal the calling (single-threaded) process for good; what was installed comes back."""
    program = build_filter(pid, writable_fds)
    no_new_privs()
    try:
        abi = install_landlock()
    except SealUnavailable:
        abi = 0  # seccomp alone still denies every write, process and socket
    install_seccomp(program)
    return {"landlock_abi": abi, "filter_instructions": len(program) // 8}
