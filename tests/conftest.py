"""Shared fixtures: real ipykernel kernels in an isolated Jupyter runtime dir."""

from __future__ import annotations

import os
import sys
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest


@pytest.fixture(scope="session")
def runtime_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """An isolated JUPYTER_RUNTIME_DIR for the whole test session."""
    path = tmp_path_factory.mktemp("jupyter-runtime")
    os.environ["JUPYTER_RUNTIME_DIR"] = str(path)
    return path


class RunningKernel:
    """A real kernel started with jupyter_client, plus a blocking client for the test's own use."""

    def __init__(self, runtime_dir: Path, cwd: Path | None = None) -> None:
        from jupyter_client.manager import KernelManager

        self.kernel_id = uuid.uuid4().hex[:12]
        self.connection_file = runtime_dir / f"kernel-{self.kernel_id}.json"
        self.manager = KernelManager(
            kernel_name="python3", connection_file=str(self.connection_file)
        )
        self.manager.session.key = uuid.uuid4().hex.encode()
        self.manager.start_kernel(cwd=str(cwd) if cwd else None)
        self.client = self.manager.client()
        self.client.start_channels()
        self.client.wait_for_ready(timeout=60)

    def execute(self, code: str, timeout: float = 60) -> dict:
        """Run code as a user would (history, execution count); return the reply content."""
        reply = self.client.execute_interactive(code, timeout=timeout, output_hook=lambda msg: None)
        return reply["content"]

    def shutdown(self) -> None:
        self.client.stop_channels()
        if self.manager.is_alive():
            self.manager.shutdown_kernel(now=True)
        self.manager.cleanup_resources()


@pytest.fixture
def kernel(runtime_dir: Path) -> Iterator[RunningKernel]:
    """A fresh kernel for one test."""
    running = RunningKernel(runtime_dir)
    try:
        yield running
    finally:
        running.shutdown()


@pytest.fixture(scope="module")
def shared_kernel(runtime_dir: Path) -> Iterator[RunningKernel]:
    """One kernel for a whole test module (tests must not depend on each other's state)."""
    running = RunningKernel(runtime_dir)
    try:
        yield running
    finally:
        running.shutdown()


@pytest.fixture(scope="session")
def python_executable() -> str:
    return sys.executable
