"""An armed kernel: every side effect a payload aims at is watched from outside and inside.

Outside (this process): the marker file must not appear, the sentinel file and directory must
not vanish, the listening socket must get no connection. Inside (the kernel, read silently):
user names, execution count, sys.modules, cwd and AUDIT (an audit hook recording spawns,
removals, connects, unpickling, bait imports, opens under the sandbox; a wrapped raw_input)
must not move. The dry run's own fork is counted apart (TWIN_FORKS): after it the payload runs
for real, sealed, and the outside tripwires are what show nothing escaped.
"""

from __future__ import annotations

import ast
import json
import os
import socket
import time
from pathlib import Path
from typing import Any

from tests.conftest import RunningKernel
from tests.probe.kernel_probe import _request, run_probe
from tests.security.payloads import SETUP, Reduce, evil_pickle, kernel_functions

STATE = (
    "__import__('json').dumps({"
    "'names': sorted(dir()),"
    "'count': get_ipython().execution_count,"
    "'modules': sorted(k for k in __import__('sys').modules if not k.startswith('_crane_probe')),"
    "'audit': [list(a) for a in AUDIT],"
    "'twin_forks': len(TWIN_FORKS),"
    "'cwd': __import__('os').getcwd()"
    "})"
)
SENTINEL_TEXT = "keep me"


def kernel_state(kernel: RunningKernel, timeout: float = 30) -> dict[str, Any]:
    content = {
        "code": "",
        "silent": True,
        "store_history": False,
        "user_expressions": {"state": STATE},
        "allow_stdin": False,
        "stop_on_error": False,
    }
    reply, _iopub = _request(kernel, content, timeout)
    result = reply["user_expressions"]["state"]
    assert result["status"] == "ok", result
    return json.loads(ast.literal_eval(result["data"]["text/plain"]))  # type: ignore[no-any-return]


class Armed:
    """A kernel holding the payloads' targets, and the tripwires around it."""

    def __init__(self, kernel: RunningKernel, sandbox: Path, extra: str = "") -> None:
        self.kernel = kernel
        self.sandbox = sandbox
        self.mark = sandbox / "mark"
        self.sentinel = sandbox / "sentinel"
        self.victim_dir = sandbox / "victim_dir"
        self.listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self.listener.bind(("127.0.0.1", 0))
        self.listener.listen(16)
        self.listener.setblocking(False)
        self.port = self.listener.getsockname()[1]
        self.restore_files()
        (sandbox / "evil.pkl").write_bytes(evil_pickle(str(sandbox)))
        import numpy as np

        loads_system = Reduce(os.system, ("touch " + str(self.mark),))
        np.save(sandbox / "evil.npy", np.array([loads_system], dtype=object), allow_pickle=True)
        setup = SETUP.format(
            sandbox=str(sandbox), port=self.port, evil_pickle=evil_pickle(str(sandbox))
        )
        reply = kernel.execute(setup + "\n" + kernel_functions() + "\n" + extra)
        assert reply["status"] == "ok", reply
        run_probe(kernel, "check", {"source": "x = 1"})  # install the probe once
        self.baseline = kernel_state(kernel)
        assert self.baseline["audit"] == [], self.baseline["audit"]

    def restore_files(self) -> None:
        if self.mark.is_dir():
            self.mark.rmdir()
        elif self.mark.exists():
            self.mark.unlink()
        self.sentinel.write_text(SENTINEL_TEXT)
        self.victim_dir.mkdir(exist_ok=True)
        (self.victim_dir / "keep").write_text(SENTINEL_TEXT)

    def connections(self) -> int:
        count = 0
        while True:
            try:
                conn, _ = self.listener.accept()
            except (BlockingIOError, InterruptedError):
                return count
            conn.close()
            count += 1

    def effects(self) -> list[str]:
        """What changed since the last call (the world is restored after each finding)."""
        found = []
        if self.mark.exists():
            found.append("created " + self.mark.name)
        if not self.sentinel.exists() or self.sentinel.read_text() != SENTINEL_TEXT:
            found.append("removed or changed the sentinel file")
        if not (self.victim_dir / "keep").exists():
            found.append("removed the victim directory")
        if self.connections():
            found.append("connected to the listening socket")
        state = kernel_state(self.kernel)
        for key in ("names", "count", "modules", "audit", "cwd"):
            if state[key] != self.baseline[key]:
                before, after = self.baseline[key], state[key]
                if key == "audit":
                    found.append(f"audit: {after[len(before) :][:8]}")
                elif isinstance(before, list):
                    new = [x for x in after if x not in before]
                    gone = [x for x in before if x not in after]
                    found.append(f"{key} changed: +{new[:8]} -{gone[:8]}")
                else:
                    found.append(f"{key} changed: {before!r} -> {after!r}")
        if found:
            self.restore_files()
            self.baseline = state
        return found

    def twin_forks(self) -> int:
        """How many dry runs forked a twin of the armed kernel so far."""
        return int(kernel_state(self.kernel)["twin_forks"])

    def check(self, cell: str, timeout: float = 30) -> tuple[list[str], float, Any]:
        """Check `cell` through the probe; the effects it had, the seconds it took, the result."""
        started = time.perf_counter()
        # with a hand-off allowed: a first import packs the names the cell reads
        payload = {"source": cell, "handoff": True}
        result, _iopub = run_probe(self.kernel, "check", payload, timeout=timeout)
        elapsed = time.perf_counter() - started
        return self.effects(), elapsed, result

    def close(self) -> None:
        self.listener.close()
