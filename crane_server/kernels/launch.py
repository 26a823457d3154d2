"""Start a private kernel for `check` / `eval`, attach to it, and always shut it down."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import secrets
import shutil
import subprocess
import tempfile
from collections.abc import AsyncIterator
from pathlib import Path

from jupyter_client.manager import AsyncKernelManager

from crane_server.errors import KernelError, KernelNotFound, KernelTimeout
from crane_server.kernels.session import KernelSession

log = logging.getLogger(__name__)

SHUTDOWN_TIMEOUT = 5.0


@contextlib.asynccontextmanager
async def fresh_kernel(
    cwd: Path, *, kernel_name: str = "python3", startup_timeout: float = 60
) -> AsyncIterator[KernelSession]:
    """A new kernel in `cwd` with a random key and its own connection file; killed on exit."""
    folder = Path(tempfile.mkdtemp(prefix="crane-kernel-"))
    manager = AsyncKernelManager(
        kernel_name=kernel_name, connection_file=str(folder / "kernel-crane.json")
    )
    manager.session.key = secrets.token_hex(16).encode()
    session: KernelSession | None = None
    try:
        try:
            await asyncio.wait_for(
                manager.start_kernel(
                    cwd=str(cwd), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
                ),
                startup_timeout,
            )
        except asyncio.TimeoutError as exc:
            raise KernelTimeout(f"the {kernel_name} kernel did not start in time") from exc
        except KernelError:
            raise
        except Exception as exc:  # NoSuchKernel, OSError from Popen
            raise KernelNotFound(f"cannot start a {kernel_name} kernel: {exc}") from exc
        session = await KernelSession.attach(manager.connection_file, timeout=startup_timeout)
        yield session
    finally:
        if session is not None:
            await session.close()
        await _stop(manager)
        shutil.rmtree(folder, ignore_errors=True)


async def _stop(manager: AsyncKernelManager) -> None:
    """Shut down politely, then kill; never raise, never hang."""
    try:
        if manager.has_kernel:
            try:
                await asyncio.wait_for(manager.shutdown_kernel(now=False), SHUTDOWN_TIMEOUT)
            except Exception:
                log.debug("polite shutdown failed; killing the kernel", exc_info=True)
                with contextlib.suppress(Exception):
                    await asyncio.wait_for(manager.shutdown_kernel(now=True), SHUTDOWN_TIMEOUT)
    finally:
        with contextlib.suppress(Exception):
            await manager.cleanup_resources()
