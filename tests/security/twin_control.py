"""The controls: run each payload for real in an unsealed fork of a throwaway process.

Usage: python -m tests.security.twin_control SANDBOX < payloads.json > fired.json
The process plays the kernel (it runs the same SETUP); each payload runs in a forked child
without any seal, and the tripwires are read in the parent afterwards, then reset.
"""

from __future__ import annotations

import json
import os
import signal
import sys
import time
from typing import Any

from tests.security.twin_payloads import setup_code

CHILD_TIMEOUT_S = 20.0


def _run_unsealed(code: str) -> None:
    pid = os.fork()
    if pid == 0:
        try:
            exec(compile(code, "<payload>", "exec"), globals())
        finally:
            os._exit(0)
    deadline = time.monotonic() + CHILD_TIMEOUT_S
    while time.monotonic() < deadline:
        done, _status = os.waitpid(pid, os.WNOHANG)
        if done:
            return
        time.sleep(0.01)
    os.kill(pid, signal.SIGKILL)
    os.waitpid(pid, 0)


def main() -> None:
    sandbox = sys.argv[1]
    payloads: list[dict[str, Any]] = json.load(sys.stdin)
    exec(setup_code(sandbox), globals())
    fired: dict[str, list[str]] = {}
    for payload in payloads:
        _run_unsealed(payload["code"])
        time.sleep(0.05)  # a signal or datagram in flight lands before the tripwires are read
        fired[payload["id"]] = globals()["tripwires"]()
        globals()["reset_tripwires"]()
    globals()["SHM"].close()
    globals()["SHM"].unlink()
    json.dump(fired, sys.stdout)


if __name__ == "__main__":
    main()
