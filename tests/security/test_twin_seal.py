"""The sealed twin against 220 generated payloads, each paired with a control that fires.

The control (twin_control.py) runs every payload for real in an unsealed fork of a
throwaway process armed the same way: each of its tripwires must fire there. Then each
payload runs as a dry run in a real kernel armed with the same SETUP: no tripwire fires (no
file created, changed or removed in the sandbox, the notebook folder, home or /tmp; no
connection, datagram or signal reaches the kernel; the kernel's file offsets, pipes,
memmap, shared memory, SysV segment and memory are unchanged), the kernel's state is the
same, and the verdict is unknown (a payload that only reads: clean).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from crane_server.twin.verdict import read_report
from tests.conftest import RunningKernel
from tests.probe.kernel_probe import fingerprint, run_probe
from tests.security.twin_payloads import SDIR_NAME, SENT_NAME, TRIP, generate, setup_code

pytestmark = pytest.mark.kernel

PAYLOADS = generate()
REPO = Path(__file__).resolve().parents[2]


def _silent(kernel: RunningKernel, expression: str) -> Any:
    content = {
        "code": "",
        "silent": True,
        "store_history": False,
        "user_expressions": {"x": expression},
        "allow_stdin": False,
        "stop_on_error": False,
    }
    from tests.probe.kernel_probe import _request

    reply, _iopub = _request(kernel, content, 30)
    result = reply["user_expressions"]["x"]
    assert result["status"] == "ok", result
    return json.loads(eval(result["data"]["text/plain"]))  # the repr of a JSON str


def _clean_shared_places() -> None:
    for folder in (Path.home(), Path("/tmp")):
        for entry in folder.iterdir():
            if entry.name.startswith(TRIP) or entry.name in (SENT_NAME, SDIR_NAME):
                if entry.is_dir() and not entry.is_symlink():
                    shutil.rmtree(entry)
                else:
                    entry.unlink()


@pytest.fixture(scope="module")
def armed(
    runtime_dir: Path, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[tuple[RunningKernel, Path]]:
    sandbox = tmp_path_factory.mktemp("twin-sandbox")
    notebook = tmp_path_factory.mktemp("twin-notebook")
    kernel = RunningKernel(runtime_dir, cwd=notebook)
    try:
        reply = kernel.execute(setup_code(str(sandbox)))
        assert reply["status"] == "ok", reply
        yield kernel, sandbox
        kernel.execute("SHM.close(); SHM.unlink()")
    finally:
        kernel.shutdown()
        _clean_shared_places()


def dry_run(kernel: RunningKernel, source: str, wall_s: float = 3.0) -> dict[str, Any]:
    started, _iopub = run_probe(kernel, "twin_start", {"source": source, "wall_s": wall_s})
    assert "pid" in started, started
    deadline = time.monotonic() + wall_s + 5
    while time.monotonic() < deadline:
        report, iopub = run_probe(kernel, "twin_collect", {"pid": started["pid"]})
        assert not [m for m in iopub if m["msg_type"] in ("stream", "display_data", "error")]
        if report["state"] != "running":
            return report  # type: ignore[no-any-return]
        time.sleep(0.02)
    raise AssertionError("the twin outlived its budget")


def test_every_control_fires(tmp_path: Path) -> None:
    """Unsealed, each payload really does what it aims at (else its tripwire proves nothing)."""
    sandbox = tmp_path / "sandbox"
    notebook = tmp_path / "notebook"  # the harness's cwd, as the kernel's is its notebook's
    sandbox.mkdir()
    notebook.mkdir()
    env = dict(os.environ, PYTHONPATH=str(REPO))
    listing = json.dumps([p._asdict() for p in PAYLOADS])
    try:
        finished = subprocess.run(
            [sys.executable, "-m", "tests.security.twin_control", str(sandbox)],
            input=listing,
            capture_output=True,
            text=True,
            cwd=notebook,
            env=env,
            timeout=300,
            start_new_session=True,  # the signal payloads aim at the process group
        )
    finally:
        _clean_shared_places()
    assert finished.returncode == 0, finished.stderr[-2000:]
    fired = json.loads(finished.stdout)
    silent = [ident for ident, wires in fired.items() if not wires]
    assert len(fired) == len(PAYLOADS) >= 200
    assert silent == []


def test_sealed_twin_keeps_every_payload_in(armed: tuple[RunningKernel, Path]) -> None:
    kernel, _sandbox = armed
    random_before = kernel_state_random(kernel)
    run_probe(kernel, "ping", {})  # the probe is installed before the state is read
    before = fingerprint(kernel)
    wrong: list[tuple[str, str, str | None]] = []
    fired_any: list[tuple[str, list[str]]] = []
    for payload in PAYLOADS:
        verdict = read_report(dry_run(kernel, payload.code))
        if verdict.outcome != payload.expected:
            wrong.append((payload.id, verdict.outcome, verdict.reason))
        fired = _silent(kernel, "__import__('json').dumps(tripwires())")
        if fired:
            fired_any.append((payload.id, fired))
            _silent(kernel, "__import__('json').dumps(reset_tripwires())")
    assert fired_any == []
    assert wrong == []
    after = fingerprint(kernel)
    assert set(after["modules"]) ^ set(before["modules"]) == set()
    assert after == before
    assert kernel_state_random(kernel) == random_before
    assert kernel.execute("assert USR1[0] == 0 and G.tell() == 3")["status"] == "ok"


def kernel_state_random(kernel: RunningKernel) -> Any:
    return _silent(
        kernel,
        "__import__('json').dumps([repr(__import__('random').getstate()), "
        "repr(__import__('numpy').random.get_state()[1][:4].tolist())])",
    )


def test_payload_list_covers_the_issue() -> None:
    ids = {p.id.split("@")[0] for p in PAYLOADS}
    for needed in (
        "file-create", "file-append", "file-truncate", "file-unlink", "file-rename",
        "file-chmod", "file-mkdir", "file-symlink", "file-link", "file-utime", "subprocess",
        "os-system", "execv", "fork", "multiprocessing", "joblib", "tcp-connect", "udp-send",
        "unix-connect", "abstract-connect", "kill-parent", "killpg-parent", "ptrace-seize",
        "proc-mem", "every-fd", "user-file", "user-pipe", "shared-offset", "memmap",
        "shared-memory",
    ):  # fmt: skip
        assert needed in ids
    assert sum(p.id.endswith("+caught") for p in PAYLOADS) == len(PAYLOADS) // 2
