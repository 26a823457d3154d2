"""The processes a kernel started, read from /proc, so that none outlives a kernel crane ends.

A cell may fork a child that leaves the kernel's process group (`os.setpgid`, `setsid`):
killing the group misses it. Its parent link still names the kernel while the kernel lives,
so the tree is read just before the kernel is stopped, and what is left of it afterwards is
killed. A start time read with each pid tells a survivor from a new process that took a
freed pid. Without /proc (not Linux) nothing is found.
"""

from __future__ import annotations

import contextlib
import os
import signal
from pathlib import Path

Process = tuple[int, str]  # pid, start time (clock ticks since boot, as /proc says it)


def _stat(pid: int) -> tuple[int, str] | None:
    """(parent pid, start time) of `pid`, or None when it is gone or a zombie."""
    try:
        text = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    fields = text.rsplit(")", 1)[-1].split()  # after the command name, which may hold spaces
    if len(fields) < 20 or fields[0] in ("Z", "X"):
        return None
    return int(fields[1]), fields[19]


def descendants(pid: int) -> list[Process]:
    """Every live process below `pid` (children, their children, ...), with its start time."""
    children: dict[int, list[Process]] = {}
    try:
        entries = os.listdir("/proc")
    except OSError:
        return []
    for entry in entries:
        if not entry.isdigit():
            continue
        stat = _stat(int(entry))
        if stat is not None:
            children.setdefault(stat[0], []).append((int(entry), stat[1]))
    found: list[Process] = []
    below = [pid]
    while below:
        for child in children.get(below.pop(), []):
            found.append(child)
            below.append(child[0])
    return found


def kill_survivors(processes: list[Process]) -> int:
    """SIGKILL each process still alive as the same process; how many were killed."""
    killed = 0
    for pid, started in processes:
        stat = _stat(pid)
        if stat is None or stat[1] != started:
            continue
        with contextlib.suppress(OSError):
            os.kill(pid, signal.SIGKILL)
            killed += 1
    return killed
