"""`crane-server check NOTEBOOK` against notebooks whose earlier cells misbehave when run.

`check NOTEBOOK` starts a fresh kernel and runs the code cells before the target; `--ahead
--run N` runs the first N. A cell run that way may end the kernel (`os._exit`, SIGKILL of
itself), hang, flood its output, fork, change the working directory or delete the notebook.
Whatever it does, the command ends within a hard bound with the documented status (0 none, 1
a crash predicted, 2 the check could not run, with one clear line on stderr), leaves no
process of the kernel behind and never writes the notebook.

Every kernel crane starts inherits crane's environment, so a tag in that environment finds
every process the run left behind (the kernel, its forks, the twin) in /proc. Each fault cell
first writes a marker file: a control that the faulty cell really ran.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

pytestmark = pytest.mark.kernel

HARD_BOUND_S = 60.0
TARGET = "x = 1\nprint(x)"


@dataclass(frozen=True)
class Fault:
    """A cell that misbehaves, what `check` answers after running it, and its stderr line."""

    name: str
    code: str
    status: int
    stderr: str = ""  # a phrase of the one line on stderr (status 2), `check`
    ahead_stderr: str = ""  # the same with `--ahead`
    deletes_notebook: bool = False


FAULTS = [
    Fault("os-exit", "import os\nos._exit(3)", 2, "ended the kernel", "exited with status 3"),
    Fault(
        "sigkill-self",
        "import os, signal\nos.kill(os.getpid(), signal.SIGKILL)",
        2,
        "ended the kernel",
        "exited with status -9",
    ),
    Fault("hang", "import time\ntime.sleep(1000)", 2, "no answer within 3 s", "within 3 s"),
    Fault(
        "flood",
        "import sys\nchunk = 'x' * 1_000_000\n"
        "for _ in range(100):\n    sys.stdout.write(chunk + '\\n')\n",
        0,
    ),
    Fault(
        "fork-child-sleeps",
        "import os, time\npid = os.fork()\nif pid == 0:\n    time.sleep(1000)\n    os._exit(0)",
        0,
    ),
    Fault(
        "fork-child-detaches",
        "import os, time\npid = os.fork()\nif pid == 0:\n    os.setpgid(0, 0)\n"
        "    time.sleep(1000)\n    os._exit(0)",
        0,
    ),
    Fault("chdir", "import os\nos.chdir('/')", 0),
    Fault(
        "delete-notebook",
        "import os\nos.remove(NOTEBOOK)",
        0,
        deletes_notebook=True,
    ),
]

MODES = {
    # the default: every code cell before the target runs
    "check": lambda path: ["check", str(path), "--timeout", "3"],
    # --ahead: the first N cells run (here: the fault and the cell before it)
    "ahead": lambda path: ["check", str(path), "--ahead", "--run", "2", "--timeout", "3"],
}


def write_notebook(path: Path, *cells: str) -> bytes:
    document = {
        "cells": [
            {
                "cell_type": "code",
                "execution_count": None,
                "metadata": {},
                "outputs": [],
                "source": cell,
            }
            for cell in cells
        ],
        "metadata": {},
        "nbformat": 4,
        "nbformat_minor": 5,
    }
    data = json.dumps(document).encode()
    path.write_bytes(data)
    return data


def tagged_processes(tag: str) -> list[int]:
    """The live (not zombie) processes whose environment holds `tag`."""
    found = []
    needle = f"CRANE_FAULT_TAG={tag}".encode()
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            environ = Path(f"/proc/{entry}/environ").read_bytes()
            stat = Path(f"/proc/{entry}/stat").read_text()
        except OSError:
            continue
        state = stat.rsplit(")", 1)[-1].split()[0]
        if needle in environ.split(b"\0") and state != "Z":
            found.append(int(entry))
    return found


def settled_processes(tag: str) -> list[int]:
    """The tagged processes still alive after a short grace (a kill is not instantaneous)."""
    deadline = time.monotonic() + 5.0
    while True:
        left = tagged_processes(tag)
        if not left or time.monotonic() > deadline:
            return left
        time.sleep(0.1)


@pytest.fixture
def tag() -> Iterator[str]:
    value = uuid.uuid4().hex
    yield value
    for pid in tagged_processes(value):  # never leave a stray behind, whatever the verdict
        try:
            os.kill(pid, signal.SIGKILL)
        except OSError:
            pass


def run_crane(args: list[str], tag: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "CRANE_FAULT_TAG": tag}
    return subprocess.run(
        [sys.executable, "-m", "crane_server", *args],
        capture_output=True,
        text=True,
        timeout=HARD_BOUND_S,
        env=env,
    )


CASES = [
    pytest.param(
        fault,
        mode,
        id=f"{fault.name}-{mode}",
    )
    for fault in FAULTS
    for mode in MODES
]


@pytest.mark.parametrize(("fault", "mode"), CASES)
def test_a_faulty_earlier_cell_gets_a_clear_answer(
    tmp_path: Path, tag: str, fault: Fault, mode: str
) -> None:
    path = tmp_path / "faulty.ipynb"
    marker = tmp_path / "reached.txt"
    reach = f"open({str(marker)!r}, 'w').write('ran')\nNOTEBOOK = {str(path)!r}"
    original = write_notebook(path, reach, fault.code, TARGET)
    done = run_crane(MODES[mode](path), tag)

    assert marker.read_text() == "ran"  # control: the cells before the target really ran
    assert done.returncode == fault.status, (done.returncode, done.stdout[-2000:], done.stderr)
    assert "Traceback" not in done.stderr
    if fault.status == 2:
        lines = done.stderr.strip().splitlines()
        assert len(lines) == 1, done.stderr
        phrase = fault.stderr if mode == "check" else fault.ahead_stderr
        assert lines[0].startswith("crane-server: error: ") and phrase in lines[0]
        assert "code cell 2" in lines[0]
    else:
        assert done.stderr == ""
        if mode == "check":
            assert "no crash predicted" in done.stdout
        else:
            assert "no crash predicted" in done.stdout.lower() or "Run All" in done.stdout
    assert settled_processes(tag) == []
    if fault.deletes_notebook:
        assert not path.exists()
    else:
        assert path.read_bytes() == original


def test_the_process_tag_finds_a_forked_child(tmp_path: Path, tag: str) -> None:
    """Control: a child left running carries the tag, so `settled_processes` would see it."""
    child = subprocess.Popen(
        [sys.executable, "-c", "import time; time.sleep(60)"],
        env={**os.environ, "CRANE_FAULT_TAG": tag},
    )
    try:
        assert tagged_processes(tag) == [child.pid]
    finally:
        child.kill()
        child.wait()
    assert tagged_processes(tag) == []
