"""The twin's whole life after the fork: detach, seal, run the cell, report, exit.

Nothing here returns: every path ends in `os._exit`. Until the seal is on, the twin only
rearranges its own copy of the process (descriptors, mappings, limits, streams). The
verdict's rules live in `verdict.py`; the seal in `seal.py`.
"""

import ctypes
import json
import os
import re
import resource
import signal
import sys
import time
import traceback
from typing import Any, Dict, List, NoReturn, Optional

from . import seal

CELL_FILENAME = "<crane-dry-run-cell>"
REPORT_LIMIT = 60_000  # below a pipe's 64 KiB: the twin's last write never blocks
SHARED_COPY_LIMIT = 256 * 1024 * 1024

PR_SET_PDEATHSIG = 1
MAP_PRIVATE = 0x02
MAP_FIXED = 0x10
MAP_ANONYMOUS = 0x20
PROT_READ = 1
PROT_WRITE = 2

# IPython's translation of `%matplotlib ...`: the twin has switched to Agg already
_MATPLOTLIB_MAGIC = re.compile(r"get_ipython\(\)\.run_line_magic\('matplotlib', '[^'\n]*'\)")


class Declined(Exception):
    """The twin cannot vouch for this cell's run (the verdict is unknown, with this reason)."""


def _write_report(fd: int, report: Dict[str, Any]) -> None:
    data = json.dumps(report, default=str).encode("utf-8", "replace")
    if len(data) > REPORT_LIMIT:
        report.pop("traceback", None)
        report["message"] = str(report.get("message", ""))[:2000]
        data = json.dumps(report, default=str).encode("utf-8", "replace")[:REPORT_LIMIT]
    view = memoryview(data + b"\n")
    while view:
        written = os.write(fd, view)
        view = view[written:]


def _finish(fd: int, report: Dict[str, Any]) -> NoReturn:
    try:
        _write_report(fd, report)
    finally:
        os._exit(0)


def _detach(parent: int) -> None:
    """Own process group, dies with the kernel, first for the OOM killer, lowest priority."""
    os.setpgid(0, 0)
    libc = ctypes.PyDLL(None, use_errno=True)
    libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    if os.getppid() != parent:
        os._exit(0)  # the kernel died between fork and prctl
    with open("/proc/self/oom_score_adj", "w") as score:
        score.write("1000")
    try:
        os.sched_setscheduler(0, os.SCHED_IDLE, os.sched_param(0))
    except (AttributeError, OSError):
        pass
    os.nice(19)


def _vm_size_bytes() -> int:
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith("VmSize:"):
                return int(line.split()[1]) * 1024
    return 0


def _limit(wall_s: float, cpu_s: float, memory_mb: int) -> None:
    """Budgets enforced by the kernel: a deadly SIGALRM, RLIMIT_CPU, RLIMIT_AS, no core file."""
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    seconds = max(1, int(cpu_s + 0.999))
    resource.setrlimit(resource.RLIMIT_CPU, (seconds, seconds + 1))
    if memory_mb > 0:
        cap = _vm_size_bytes() + memory_mb * 1024 * 1024
        resource.setrlimit(resource.RLIMIT_AS, (cap, cap))
    for number in (signal.SIGALRM, signal.SIGXCPU, signal.SIGINT, signal.SIGTERM):
        signal.signal(number, signal.SIG_DFL)
    try:
        signal.set_wakeup_fd(-1)
    except ValueError:
        pass
    signal.setitimer(signal.ITIMER_REAL, wall_s)


def _private_descriptors(keep: int) -> None:
    """Each inherited regular file or directory: a private description at the same offset.

    Everything else (the kernel's ZeroMQ sockets, pipes, eventfds, terminals) becomes
    /dev/null; 0, 1 and 2 are /dev/null too.
    """
    import stat

    null = os.open(os.devnull, os.O_RDWR)
    for name in os.listdir("/proc/self/fd"):
        fd = int(name)
        if fd in (keep, null):
            continue
        try:
            info = os.fstat(fd)
        except OSError:
            continue  # the listing's own descriptor, closed already
        replacement = -1
        if fd > 2 and (stat.S_ISREG(info.st_mode) or stat.S_ISDIR(info.st_mode)):
            try:
                offset = os.lseek(fd, 0, os.SEEK_CUR)
                replacement = os.open("/proc/self/fd/%d" % fd, os.O_RDONLY)
                os.lseek(replacement, offset, os.SEEK_SET)
            except OSError:
                replacement = -1
        inheritable = os.get_inheritable(fd)
        os.dup2(replacement if replacement >= 0 else null, fd, inheritable=inheritable)
        if replacement >= 0:
            os.close(replacement)
    for fd in (0, 1, 2):
        os.dup2(null, fd)
    os.close(null)


def _private_shared_mappings() -> int:
    """Writable shared mappings (memmap r+, shared memory, SysV shm) become private copies.

    Private and read-only: no write of the twin can reach the file or segment the kernel
    shares, even after an mprotect of its own. Returns the bytes copied.
    """
    regions = []
    with open("/proc/self/maps") as maps:
        for line in maps:
            fields = line.split()
            if len(fields) >= 2 and fields[1][1] == "w" and fields[1][3] == "s":
                start, end = (int(part, 16) for part in fields[0].split("-"))
                regions.append((start, end - start))
    total = sum(size for _, size in regions)
    if total > SHARED_COPY_LIMIT:
        raise Declined(
            "the kernel has %d MB of writable shared memory; the twin copies at most %d MB"
            % (total >> 20, SHARED_COPY_LIMIT >> 20)
        )
    if not regions:
        return 0
    libc = ctypes.PyDLL(None, use_errno=True)
    libc.mmap.restype = ctypes.c_void_p
    libc.mmap.argtypes = [
        ctypes.c_void_p,
        ctypes.c_size_t,
        ctypes.c_int,
        ctypes.c_int,
        ctypes.c_int,
        ctypes.c_long,
    ]
    for start, size in regions:
        copy = ctypes.create_string_buffer(size)
        ctypes.memmove(copy, start, size)
        placed = libc.mmap(
            start, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0
        )
        if placed != start:
            os._exit(70)  # the region is gone: nothing sane can run now
        ctypes.memmove(start, copy, size)
        # read-only as well: a write by the cell is a SIGSEGV (unknown), never a silent success
        # that the user's run, writing to the shared pages, might not repeat
        libc.mprotect(ctypes.c_void_p(start), ctypes.c_size_t(size), PROT_READ)
    return total


def _no_input(fd: int) -> Any:
    def refuse(*args: Any, **kwargs: Any) -> NoReturn:
        _finish(fd, {"outcome": "unknown", "reason": "the cell asks for input()"})

    return refuse


def _mute_kernel(shell: Any, fd: int) -> None:
    """Streams to /dev/null, displays dropped, no kernel message can leave, no input()."""
    import builtins

    sys.stdout = open(1, "w", closefd=False)  # noqa: SIM115 (lives as long as the twin)
    sys.stderr = open(2, "w", closefd=False)  # noqa: SIM115
    sys.displayhook = lambda value: None
    builtins.input = _no_input(fd)
    try:
        import getpass

        getpass.getpass = _no_input(fd)
    except ImportError:
        pass
    if shell is None:
        return
    publisher = getattr(shell, "display_pub", None)
    if publisher is not None:
        publisher.publish = lambda *args, **kwargs: None
        publisher.clear_output = lambda *args, **kwargs: None
    shell.displayhook = lambda *args, **kwargs: None
    kernel = getattr(shell, "kernel", None)
    session = getattr(kernel, "session", None)
    if session is not None:

        def refuse_message(*args: Any, **kwargs: Any) -> NoReturn:
            _finish(fd, {"outcome": "unknown", "reason": "the cell sends a kernel message"})

        session.send = refuse_message
    shell.raw_input = _no_input(fd)


def _quiet_matplotlib() -> None:
    os.environ["MPLBACKEND"] = "agg"
    pyplot = sys.modules.get("matplotlib.pyplot")
    if pyplot is not None:
        pyplot.switch_backend("agg")


def _serial_joblib() -> None:
    """A first import of joblib (scikit-learn's) in the twin runs serial: its import-time
    probe for named semaphores would otherwise create one under /dev/shm, a denied write."""
    if "joblib" not in sys.modules:
        os.environ["JOBLIB_MULTIPROCESSING"] = "0"


def _synchronous_dask() -> None:
    """Dask computes on its synchronous scheduler in the twin: the threaded one's pool lost its
    threads in the fork, so a compute would wait for them until the budget. Same results and
    exceptions, on one thread. Not with a `distributed` client: a cluster's workers may see
    what this machine does not (a compute there stays a denied socket write, unknown)."""
    default_client = getattr(sys.modules.get("distributed"), "default_client", None)
    if callable(default_client):
        try:
            default_client()
            return
        except Exception:
            pass  # no client: dask computes here
    os.environ["DASK_SCHEDULER"] = "synchronous"  # a first import of dask in the cell
    config = getattr(sys.modules.get("dask.config"), "set", None)
    if callable(config):
        config(scheduler="synchronous")


def _tqdm_without_process_lock() -> None:
    """tqdm makes a multiprocessing lock (a named semaphore under /dev/shm, a denied write) for
    its first bar, and goes on without one when it cannot: a bar in the twin, which starts no
    process, takes that path before the seal rather than ending the twin."""
    std = sys.modules.get("tqdm.std")
    lock = getattr(std, "TqdmDefaultWriteLock", None)
    if lock is not None and not hasattr(lock, "mp_lock"):
        lock.mp_lock = None


def _known_user() -> None:
    """Look the user up once before the seal. glibc asks its name-service cache daemon over a
    unix socket first (a denied call in the twin), and after that socket fails it skips the
    daemon for the next lookups: `getpass.getuser()` in a library (torch's cache folder) then
    reads /etc/passwd, as the kernel would without the daemon."""
    try:
        import pwd

        pwd.getpwuid(os.getuid())
    except (ImportError, KeyError, OSError):
        pass


def _known_tempdir() -> None:
    """Settle `tempfile.gettempdir()` without its write probe (it creates and deletes a file
    to choose the folder, a denied write in the twin): the first candidate folder that exists
    and that the user may write to, as the probe would choose it."""
    import tempfile

    if tempfile.tempdir is not None:
        return
    for folder in tempfile._candidate_tempdir_list():  # type: ignore[attr-defined]
        if os.path.isdir(folder) and os.access(folder, os.W_OK | os.X_OK):
            tempfile.tempdir = os.path.abspath(folder)
            return


def _exact_mkdir() -> None:
    """`os.mkdir` of a path that exists fails with EEXIST before anything is written, in the
    kernel as here: answer that without the call (`os.makedirs(folder, exist_ok=True)` of a
    library's existing cache folder, torch's among them). Any other mkdir is the real call,
    which the seal denies."""
    import errno

    real = os.mkdir

    def mkdir(path: Any, mode: int = 0o777, *, dir_fd: Optional[int] = None) -> None:
        if dir_fd is None and os.path.lexists(path):
            raise FileExistsError(errno.EEXIST, os.strerror(errno.EEXIST), os.fspath(path))
        real(path, mode, dir_fd=dir_fd)

    os.mkdir = mkdir


def _drop_import_guard() -> None:
    from .. import imports

    sys.meta_path[:] = [
        finder for finder in sys.meta_path if not isinstance(finder, imports.ImportGuard)
    ]


def _python_of(shell: Any, source: str) -> str:
    """The cell as Python, or Declined for magics and shell escapes the twin cannot run."""
    if shell is None:
        return source
    python = shell.transform_cell(source)
    python = _MATPLOTLIB_MAGIC.sub("pass", python)
    if "get_ipython()" in python and "get_ipython()" not in source:
        raise Declined("the cell has a magic or a shell escape")
    if python.count("\n") > source.count("\n") + 1:
        raise Declined("IPython rewrote the cell into more lines")
    return python


def _innermost_cell_line(tb: Any) -> Optional[int]:
    line = None
    for frame, number in traceback.walk_tb(tb):
        if frame.f_code.co_filename == CELL_FILENAME:
            line = number
    return line


def _frames(tb: Any, source_lines: List[str]) -> List[Dict[str, Any]]:
    frames = []
    summaries = traceback.extract_tb(tb)
    first = next((i for i, s in enumerate(summaries) if s.filename == CELL_FILENAME), 0)
    for summary in summaries[first:][-12:]:
        text = summary.line or ""
        if summary.filename == CELL_FILENAME and 0 < (summary.lineno or 0) <= len(source_lines):
            text = source_lines[(summary.lineno or 1) - 1].strip()
        frames.append(
            {
                "file": "cell" if summary.filename == CELL_FILENAME else summary.filename,
                "line": summary.lineno,
                "function": summary.name,
                "text": text[:200],
            }
        )
    return frames


def _run(shell: Any, code: Any, namespace: Dict[str, Any]) -> None:
    trap = getattr(shell, "builtin_trap", None)
    if trap is None:
        exec(code, namespace)
        return
    with trap:
        exec(code, namespace)


def _run_cell(shell: Any, source: str, namespace: Dict[str, Any]) -> Dict[str, Any]:
    """One cell in the sealed twin: its line of the report (clean, raised or unknown)."""
    ran = time.perf_counter()
    report: Dict[str, Any] = {}
    try:
        code = compile(_python_of(shell, source), CELL_FILENAME, "exec", dont_inherit=True)
    except Declined as exc:
        return {"outcome": "unknown", "reason": str(exc)}
    except SyntaxError as exc:
        return {"outcome": "unknown", "reason": "SyntaxError: %s" % exc.msg}
    try:
        _run(shell, code, namespace)
        report["outcome"] = "clean"
    except BaseException as exc:  # the cell's own exception: the verdict's material
        report["outcome"] = "raised"
        try:
            report["exception"] = type(exc).__name__
            report["module"] = type(exc).__module__
            report["message"] = str(exc)[:4000]
            report["line"] = _innermost_cell_line(exc.__traceback__)
            report["traceback"] = _frames(exc.__traceback__, source.splitlines())
            report["base"] = [klass.__name__ for klass in type(exc).__mro__]
        except BaseException as formatting:
            report["outcome"] = "unknown"
            report["reason"] = "the exception could not be described (%s)" % (
                type(formatting).__name__
            )
    report["run_ms"] = (time.perf_counter() - ran) * 1000.0
    return report


def live(request: Dict[str, Any], report_fd: int, parent: int, state: Dict[str, Any]) -> NoReturn:
    """The twin, from the instant after fork to its exit.

    `request["sources"]` are run in order, as Run All would; the report is one JSON line per
    cell, written as soon as the cell ends, and the run stops at the first cell that raised
    or could not be vouched for (a denial kills the twin: the lines before it stay readable).
    """
    started = time.perf_counter()
    try:
        _detach(parent)
        _limit(float(request["wall_s"]), float(request["cpu_s"]), int(request["memory_mb"]))
        sys.dont_write_bytecode = True  # an import's .pyc write would be a denied open
        import gc  # here, in the twin: the kernel itself may never have imported it

        gc.freeze()  # no finaliser of a kernel object runs in the twin's collections
        _private_descriptors(report_fd)
        copied = _private_shared_mappings()
        random_state = state.get("random")
        if random_state is not None:
            import random

            random.setstate(random_state)  # fork reseeded it in the twin; the kernel's is exact
        ipython = sys.modules.get("IPython")
        shell = ipython.get_ipython() if ipython is not None else None
        sources = [str(source) for source in request["sources"]]
        _mute_kernel(shell, report_fd)
        # The probe's import guard first: switching matplotlib to Agg may import its backend
        # (a kernel that only imported pyplot has not loaded it yet).
        _drop_import_guard()
        _quiet_matplotlib()
        _serial_joblib()
        _synchronous_dask()
        _tqdm_without_process_lock()
        _known_user()
        _known_tempdir()
        _exact_mkdir()
        namespace = shell.user_ns if shell is not None else sys.modules["__main__"].__dict__
        sealed = seal.seal(os.getpid(), (1, 2, report_fd))
    except Declined as exc:
        _finish(report_fd, {"outcome": "unknown", "reason": str(exc)})
    except BaseException as exc:
        _finish(
            report_fd,
            {
                "outcome": "unknown",
                "reason": "the twin could not be sealed (%s: %s)" % (type(exc).__name__, exc),
            },
        )
    setup = {
        "setup_ms": (time.perf_counter() - started) * 1000.0,
        "shared_copied": copied,
        "seal": sealed,
    }
    for index, source in enumerate(sources):
        report = _run_cell(shell, source, namespace)
        report["cell"] = index
        if index == 0:
            report.update(setup)
        report["cpu_ms"] = time.process_time() * 1000.0
        if report["outcome"] != "clean":
            _finish(report_fd, report)
        _write_report(report_fd, report)
    os._exit(0)
