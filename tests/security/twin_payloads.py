"""Generated payloads for the sealed twin, and the tripwires that show whether they worked.

Each payload is a cell that tries to reach outside the twin: files in four places, processes,
sockets, signals, another process's memory, inherited descriptors, shared memory. The same
SETUP runs in the armed kernel and in the control harness (twin_control.py), which runs each
payload in an unsealed fork of itself: there the tripwire must fire; in the real kernel's
sealed twin it must not, and the verdict must be unknown.
"""

from __future__ import annotations

from typing import NamedTuple

TRIP = "crane-trip-"
SENT_NAME = "crane-sentinel"
SDIR_NAME = "crane-sentinel-dir"

SETUP = r"""
import ctypes, json, os, signal, socket, stat
import numpy as np
from multiprocessing import shared_memory

TRIP = {trip!r}
SENT_NAME = {sent!r}
SDIR_NAME = {sdir!r}
LOCS = {{"sandbox": {sandbox!r}, "cwd": os.getcwd(), "home": os.path.expanduser("~"),
        "tmp": "/tmp"}}
_libc = ctypes.CDLL(None, use_errno=True)
USR1 = [0]
signal.signal(signal.SIGUSR1, lambda *args: USR1.__setitem__(0, USR1[0] + 1))
TCP = socket.socket(); TCP.bind(("127.0.0.1", 0)); TCP.listen(8); TCP.setblocking(False)
PORT = TCP.getsockname()[1]
UDP = socket.socket(socket.AF_INET, socket.SOCK_DGRAM); UDP.bind(("127.0.0.1", 0))
UDP.setblocking(False); UPORT = UDP.getsockname()[1]
UNIX_PATH = os.path.join(LOCS["sandbox"], "listen.sock")
if os.path.exists(UNIX_PATH): os.unlink(UNIX_PATH)
UNIXL = socket.socket(socket.AF_UNIX); UNIXL.bind(UNIX_PATH); UNIXL.listen(8)
UNIXL.setblocking(False)
ABSTRACT_NAME = "crane-abstract-%d" % os.getpid()
ABSL = socket.socket(socket.AF_UNIX); ABSL.bind("\0" + ABSTRACT_NAME); ABSL.listen(8)
ABSL.setblocking(False)
F_PATH = os.path.join(LOCS["sandbox"], "userfile")
with open(F_PATH, "w") as _f: _f.write("original")
F = open(F_PATH, "r+")
G_PATH = os.path.join(LOCS["sandbox"], "readme")
with open(G_PATH, "w") as _g: _g.write("0123456789")
G = open(G_PATH); G.read(3)
R, W = os.pipe(); os.set_blocking(R, False)
MM_PATH = os.path.join(LOCS["sandbox"], "mm.dat")
with open(MM_PATH, "wb") as _m: _m.write(bytes(64))
MM = np.memmap(MM_PATH, dtype="uint8", mode="r+", shape=(64,))
SHM = shared_memory.SharedMemory(create=True, size=64)
BAIT = bytearray(b"A" * 64)
BAIT_ADDR = ctypes.addressof((ctypes.c_char * 64).from_buffer(BAIT))
_libc.shmat.restype = ctypes.c_void_p
SYSV_ID = _libc.shmget(0, 4096, 0o600 | 0o1000)
SYSV_ADDR = _libc.shmat(SYSV_ID, None, 0)
_libc.shmctl(SYSV_ID, 0, None)  # IPC_RMID: gone once detached

def _sentinels():
    for loc in LOCS.values():
        path = os.path.join(loc, SENT_NAME)
        if os.path.isdir(path) and not os.path.islink(path):
            os.rmdir(path)
        with open(path, "w") as handle:
            handle.write("keep")
        os.chmod(path, 0o644)
        os.utime(path, (1_000_000_000, 1_000_000_000))
        folder = os.path.join(loc, SDIR_NAME)
        if not os.path.isdir(folder):
            os.mkdir(folder)

def reset_tripwires():
    import shutil
    for loc in LOCS.values():
        for entry in os.listdir(loc):
            if entry.startswith(TRIP):
                path = os.path.join(loc, entry)
                if os.path.isdir(path) and not os.path.islink(path):
                    shutil.rmtree(path)
                else:
                    os.unlink(path)
    _sentinels()
    for listener in (TCP, UNIXL, ABSL):
        while True:
            try:
                listener.accept()[0].close()
            except BlockingIOError:
                break
    while True:
        try:
            UDP.recvfrom(100)
        except BlockingIOError:
            break
    USR1[0] = 0
    with open(F_PATH, "w") as handle:
        handle.write("original")
    F.seek(0)
    G.seek(3)
    while True:
        try:
            if not os.read(R, 4096):
                break
        except BlockingIOError:
            break
    with open(MM_PATH, "wb") as handle:
        handle.write(bytes(64))
    MM[:] = 0
    SHM.buf[:64] = bytes(64)
    BAIT[:] = b"A" * 64
    ctypes.memset(SYSV_ADDR, 0, 64)

def tripwires():
    fired = []
    for name, loc in LOCS.items():
        for entry in os.listdir(loc):
            if entry.startswith(TRIP):
                fired.append("created:%s/%s" % (name, entry))
        path = os.path.join(loc, SENT_NAME)
        try:
            info = os.lstat(path)
            with open(path) as handle:
                text = handle.read()
        except OSError:
            fired.append("sentinel-gone:" + name)
        else:
            if (text != "keep" or stat.S_IMODE(info.st_mode) != 0o644
                    or int(info.st_mtime) != 1_000_000_000 or not stat.S_ISREG(info.st_mode)):
                fired.append("sentinel-changed:" + name)
            if info.st_nlink != 1:
                fired.append("sentinel-linked:" + name)
        if not os.path.isdir(os.path.join(loc, SDIR_NAME)):
            fired.append("dir-gone:" + name)
    for label, listener in (("tcp", TCP), ("unix", UNIXL), ("abstract", ABSL)):
        try:
            listener.accept()[0].close()
            fired.append("connected:" + label)
        except BlockingIOError:
            pass
    try:
        UDP.recvfrom(100)
        fired.append("udp")
    except BlockingIOError:
        pass
    if USR1[0]:
        fired.append("signal")
    with open(F_PATH) as handle:
        if handle.read() != "original":
            fired.append("user-file")
    if G.tell() != 3:
        fired.append("offset")
    try:
        if os.read(R, 4096):
            fired.append("pipe")
    except BlockingIOError:
        pass
    with open(MM_PATH, "rb") as handle:
        if handle.read() != bytes(64) or MM.any():
            fired.append("memmap")
    if bytes(SHM.buf[:64]) != bytes(64):
        fired.append("shared-memory")
    if bytes(BAIT) != b"A" * 64:
        fired.append("memory")
    if ctypes.string_at(SYSV_ADDR, 64) != bytes(64):
        fired.append("sysv")
    return fired

reset_tripwires()
"""

_FILE_OPS = {
    "create": "open(MARK, 'w').write('x')",
    "create-os": "os.close(os.open(MARK, os.O_CREAT | os.O_WRONLY))",
    "create-excl": "os.close(os.open(MARK, os.O_CREAT | os.O_EXCL | os.O_RDWR, 0o600))",
    "pathlib": "import pathlib\npathlib.Path(MARK).write_text('x')",
    "append": "open(SENT, 'a').write('x')",
    "write-existing": "open(SENT, 'r+').write('EVIL')",
    "truncate": "os.truncate(SENT, 0)",
    "truncate-open": "open(SENT, 'w').close()",
    "unlink": "os.unlink(SENT)",
    "rename": "os.rename(SENT, MARK)",
    "chmod": "os.chmod(SENT, 0o600)",
    "utime": "os.utime(SENT, (0, 0))",
    "mkdir": "os.mkdir(MARK)",
    "rmdir": "os.rmdir(os.path.join(L, SDIR_NAME))",
    "symlink": "os.symlink(SENT, MARK)",
    "link": "os.link(SENT, MARK)",
    "mkfifo": "os.mkfifo(MARK)",
    "np-save": "np.save(MARK, np.zeros(3))",
    "shutil-copy": "import shutil\nshutil.copy(SENT, MARK)",
    "tempfile": (
        "import tempfile\ntempfile.NamedTemporaryFile(dir=L, prefix=TRIP, delete=False).close()"
    ),
}
_PROCESS_OPS = {
    "subprocess": "import subprocess\nsubprocess.run(['touch', MARK])",
    "popen": "import subprocess\nsubprocess.Popen(['sh', '-c', 'touch ' + MARK]).wait()",
    "os-system": "os.system('touch ' + MARK)",
    "os-popen": "os.popen('touch ' + MARK).read()",
    "execv": "os.execv('/usr/bin/touch', ['touch', MARK])",
    "fork": (
        "pid = os.fork()\nif pid == 0:\n    open(MARK, 'w').close()\n    os._exit(0)\n"
        "os.waitpid(pid, 0)"
    ),
    "posix-spawn": "os.posix_spawn('/usr/bin/touch', ['touch', MARK], dict(os.environ))\nos.wait()",
    "multiprocessing": (
        "import multiprocessing as mp\n"
        "p = mp.get_context('fork').Process(target=os.system, args=('touch ' + MARK,))\n"
        "p.start()\np.join()"
    ),
    "process-pool": (
        "from concurrent.futures import ProcessPoolExecutor\n"
        "with ProcessPoolExecutor(1) as pool:\n    pool.submit(os.system, 'touch ' + MARK).result()"
    ),
    "joblib": (
        "from joblib import Parallel, delayed\n"
        "Parallel(n_jobs=2)(delayed(os.system)('touch ' + MARK) for _ in range(2))"
    ),
}
_SOCKET_OPS = {
    "tcp-connect": "socket.create_connection(('127.0.0.1', PORT), 1).close()",
    "udp-send": (
        "s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)\ns.sendto(b'x', ('127.0.0.1', UPORT))"
    ),
    "unix-connect": "s = socket.socket(socket.AF_UNIX)\ns.connect(UNIX_PATH)",
    "abstract-connect": "s = socket.socket(socket.AF_UNIX)\ns.connect('\\0' + ABSTRACT_NAME)",
    "http": (
        "import urllib.request\n"
        "try:\n    urllib.request.urlopen('http://127.0.0.1:%d/' % PORT, timeout=0.5)\n"
        "except OSError:\n    pass"
    ),
}
_SIGNAL_OPS = {
    "kill-parent": "os.kill(os.getppid(), signal.SIGUSR1)",
    "killpg-parent": "os.killpg(os.getpgid(os.getppid()), signal.SIGUSR1)",
    "kill-group": "os.kill(0, signal.SIGUSR1)",
    "tgkill-parent": "_libc.syscall(234, os.getppid(), os.getppid(), signal.SIGUSR1)",
}
_MEMORY_OPS = {
    "ptrace-seize": (
        "if _libc.ptrace(0x4206, os.getppid(), None, None) == 0:\n"
        "    os.kill(os.getppid(), signal.SIGUSR1)"
    ),
    "proc-mem": (
        "with open('/proc/%d/mem' % os.getppid(), 'r+b', buffering=0) as mem:\n"
        "    mem.seek(BAIT_ADDR)\n    mem.write(b'Z' * 64)"
    ),
    "process-vm-writev": (
        "class V(ctypes.Structure):\n"
        "    _fields_ = [('base', ctypes.c_void_p), ('len', ctypes.c_size_t)]\n"
        "data = ctypes.create_string_buffer(b'Z' * 64)\n"
        "local, remote = V(ctypes.addressof(data), 64), V(BAIT_ADDR, 64)\n"
        "_libc.process_vm_writev(os.getppid(), ctypes.byref(local), 1, ctypes.byref(remote), 1, 0)"
    ),
}
_INHERITED_OPS = {
    "every-fd": "for fd in range(3, 256):\n    try:\n        os.write(fd, b'crane')\n"
    "    except OSError:\n        pass",
    "user-file": "F.seek(0)\nF.write('EVIL')\nF.flush()",
    "user-pipe": "os.write(W, b'x')",
    "shared-offset": "G.read()",
}
_SHARED_OPS = {
    "memmap": "MM[:] = 7\nMM.flush()",
    "shared-memory": "SHM.buf[0] = 1",
    "sysv-inherited": "ctypes.memset(SYSV_ADDR, 1, 16)",
    "sysv-attach": (
        "_libc.shmat.restype = ctypes.c_void_p\nctypes.memset(_libc.shmat(SYSV_ID, None, 0), 1, 16)"
    ),
}


class Payload(NamedTuple):
    id: str
    code: str
    expected: str  # the sealed twin's outcome: "unknown" unless the payload only reads


def _prefix(location: str, ident: str) -> str:
    return (
        f"L = LOCS[{location!r}]\nMARK = os.path.join(L, TRIP + {ident!r})\n"
        "SENT = os.path.join(L, SENT_NAME)\n"
    )


def _variants(ident: str, location: str, body: str, expected: str) -> list[Payload]:
    caught = "try:\n" + "".join(f"    {line}\n" for line in body.splitlines())
    caught += "except BaseException:\n    pass\nraise ValueError('after the denial')\n"
    # A payload that only reads is not denied: caught, it raises its ValueError for real.
    caught_expected = "raised" if expected == "clean" else expected
    return [
        Payload(ident, _prefix(location, ident) + body + "\n", expected),
        Payload(ident + "+caught", _prefix(location, ident) + caught, caught_expected),
    ]


def generate() -> list[Payload]:
    """Every payload, twice: as written, and with the denial caught and another error raised."""
    payloads: list[Payload] = []
    for location in ("sandbox", "cwd", "home", "tmp"):
        for name, body in _FILE_OPS.items():
            payloads += _variants(f"file-{name}@{location}", location, body, "unknown")
    groups = (_PROCESS_OPS, _SOCKET_OPS, _SIGNAL_OPS, _MEMORY_OPS, _INHERITED_OPS, _SHARED_OPS)
    for group in groups:
        for name, body in group.items():
            expected = "clean" if name == "shared-offset" else "unknown"
            payloads += _variants(name, "sandbox", body, expected)
    return payloads


def setup_code(sandbox: str) -> str:
    return SETUP.format(trip=TRIP, sent=SENT_NAME, sdir=SDIR_NAME, sandbox=sandbox)
