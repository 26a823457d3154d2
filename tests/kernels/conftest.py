"""Helpers for the kernel-layer tests: event queues, stale files, a real Jupyter server."""

from __future__ import annotations

import asyncio
import json
import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

import httpx
import pytest

from crane_server.kernels.events import ExecutionFinished, KernelEvent
from crane_server.kernels.session import KernelSession
from tests.conftest import RunningKernel

E = TypeVar("E")


class EventQueue:
    """Collects a session's events; `next(kind)` waits (with a timeout) for the next of a kind."""

    def __init__(self, session: KernelSession) -> None:
        self.queue: asyncio.Queue[KernelEvent] = asyncio.Queue()
        self.seen: list[KernelEvent] = []
        self.unsubscribe = session.subscribe(self._on_event)

    def _on_event(self, event: KernelEvent) -> None:
        self.seen.append(event)
        self.queue.put_nowait(event)

    async def next(self, kind: type[E], timeout: float = 10.0, **match: Any) -> E:
        async def wait() -> E:
            while True:
                event = await self.queue.get()
                if isinstance(event, kind) and all(
                    getattr(event, key) == value for key, value in match.items()
                ):
                    return event

        return await asyncio.wait_for(wait(), timeout)


async def run_cell(kernel: RunningKernel, events: EventQueue, code: str) -> ExecutionFinished:
    """Run code as a user (the test's client) and wait until the session saw it finish."""
    msg_id = kernel.client.execute(code)
    finished = await events.next(ExecutionFinished, msg_id=msg_id)
    while kernel.client.get_shell_msg(timeout=10)["parent_header"].get("msg_id") != msg_id:
        pass  # replies of earlier cells the test did not read
    return finished


def free_ports(count: int) -> list[int]:
    """Ports nothing listens on (bound, then released)."""
    sockets = [socket.socket() for _ in range(count)]
    for sock in sockets:
        sock.bind(("127.0.0.1", 0))
    ports = [sock.getsockname()[1] for sock in sockets]
    for sock in sockets:
        sock.close()
    return ports


def write_dead_connection_file(path: Path, **extra: Any) -> Path:
    """A connection file whose ports no kernel listens on."""
    shell, iopub, stdin, control, hb = free_ports(5)
    info = {
        "shell_port": shell,
        "iopub_port": iopub,
        "stdin_port": stdin,
        "control_port": control,
        "hb_port": hb,
        "ip": "127.0.0.1",
        "key": "0123456789abcdef",
        "transport": "tcp",
        "signature_scheme": "hmac-sha256",
        "kernel_name": "python3",
        **extra,
    }
    path.write_text(json.dumps(info), encoding="utf-8")
    return path


def copy_connection_file(source: Path, target: Path, **changes: Any) -> Path:
    """Another connection file for the same kernel, with some keys changed."""
    info = json.loads(source.read_text(encoding="utf-8"))
    info.update(changes)
    target.write_text(json.dumps(info), encoding="utf-8")
    return target


@dataclass
class JupyterServer:
    url: str
    token: str
    runtime_dir: Path
    root_dir: Path
    process: subprocess.Popen[bytes]

    def api(self, method: str, path: str, **kwargs: Any) -> httpx.Response:
        headers = {"Authorization": f"token {self.token}"}
        return httpx.request(method, self.url + path, headers=headers, timeout=30, **kwargs)


def _wait_for(condition: Any, timeout: float, what: str) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise TimeoutError(f"timed out waiting for {what}")
        time.sleep(0.05)


@pytest.fixture(scope="module")
def jupyter_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[JupyterServer]:
    """A real `jupyter server` on 127.0.0.1 with a token, in its own runtime dir."""
    runtime_dir = tmp_path_factory.mktemp("server-runtime")
    root_dir = tmp_path_factory.mktemp("server-root")
    (port,) = free_ports(1)
    token = "crane-test-token"
    env = {**os.environ, "JUPYTER_RUNTIME_DIR": str(runtime_dir)}
    command = [
        sys.executable, "-m", "jupyter_server", "--no-browser", "--allow-root",
        f"--port={port}", "--ServerApp.port_retries=0", "--ServerApp.ip=127.0.0.1",
        f"--ServerApp.token={token}", f"--ServerApp.root_dir={root_dir}",
    ]  # fmt: skip
    process = subprocess.Popen(
        command, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    server = JupyterServer(f"http://127.0.0.1:{port}/", token, runtime_dir, root_dir, process)
    try:
        _wait_for(
            lambda: any(runtime_dir.glob("jpserver-*.json")) or process.poll() is not None,
            60,
            "the Jupyter server",
        )
        assert process.poll() is None, "the Jupyter server exited"
        yield server
    finally:
        try:
            server.api("POST", "api/shutdown")
            process.wait(timeout=15)
        except Exception:
            process.kill()
            process.wait(timeout=15)
