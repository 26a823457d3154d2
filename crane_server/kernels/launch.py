"""Start a private kernel for `check` / `eval`, attach to it, and always shut it down."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import re
import secrets
import shutil
import subprocess
import tempfile
import threading
from collections.abc import AsyncIterator, Mapping
from pathlib import Path
from typing import Any

from jupyter_client.manager import AsyncKernelManager

from crane_server.errors import KernelError, KernelNotFound, KernelTimeout
from crane_server.kernels.descendants import descendants, kill_survivors
from crane_server.kernels.session import KernelSession

log = logging.getLogger(__name__)

SHUTDOWN_TIMEOUT = 5.0
# Variables a notebook's code must not read from crane's environment: the LLM settings and
# anything named like a credential.
_SECRET_NAME = re.compile(
    r"(API_?KEY|(^|_)(TOKEN|SECRET|PASSWORD|PASSWD|CREDENTIALS?)($|_)|_KEY$)", re.I
)
_SECRET_PREFIXES = ("CRANE_LLM_", "OPENAI_", "AZURE_OPENAI_", "ANTHROPIC_")


def kernel_environment(
    environ: Mapping[str, str] | None = None, secrets_seen: Mapping[str, str] | None = None
) -> dict[str, str]:
    """crane's environment without its secrets: what a kernel crane starts may read.

    `secrets_seen`: more {name: value} crane read (e.g. from `.env`); a variable with one of
    these names or values is dropped too.
    """
    env = dict(os.environ if environ is None else environ)
    extra = dict(secrets_seen or {})
    values = {value for value in extra.values() if len(value) >= 8}
    return {
        name: value
        for name, value in env.items()
        if not _SECRET_NAME.search(name)
        and not name.upper().startswith(_SECRET_PREFIXES)
        and name not in extra
        and value not in values
    }


def _dotenv_secrets(cwd: Path) -> dict[str, str]:
    """The credential-like values of the `.env` files crane's settings read ({} on failure)."""
    from crane_server.errors import CraneError
    from crane_server.settings import dotenv_layers

    found: dict[str, str] = {}
    for start in {Path.cwd(), cwd}:
        try:
            layers = dotenv_layers(start)
        except CraneError:
            continue
        for _path, values in layers:
            for name, value in values.items():
                if _SECRET_NAME.search(name) or name.upper().startswith(_SECRET_PREFIXES):
                    found[name] = value
    return found


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
                    cwd=str(cwd),
                    env=kernel_environment(secrets_seen=_dotenv_secrets(cwd)),
                    stdout=subprocess.DEVNULL,
                    stderr=subprocess.DEVNULL,
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
        watcher = asyncio.ensure_future(_watch_process(manager, session))
        try:
            yield session
        finally:
            watcher.cancel()
    finally:
        if session is not None:
            await session.close()
        await _stop(manager)
        shutil.rmtree(folder, ignore_errors=True)


async def _watch_process(manager: AsyncKernelManager, session: KernelSession) -> None:
    """Tell the session the moment the kernel process exits (no waiting for a timeout)."""
    process: Any = getattr(manager.provisioner, "process", None)
    if process is None or not hasattr(process, "wait"):
        return
    # A thread of its own waits on the child (no polling, and the loop's shared executor is
    # not held); it returns when the kernel exits, at the latest when `_stop` shuts it down.
    loop = asyncio.get_running_loop()
    exited: asyncio.Future[int] = loop.create_future()

    def wait() -> None:
        code = process.wait()
        with contextlib.suppress(RuntimeError):  # the loop is already closed
            loop.call_soon_threadsafe(_settle, exited, code)

    threading.Thread(target=wait, name="crane-kernel-wait", daemon=True).start()
    session.process_exited(await exited)


def _settle(future: asyncio.Future[int], code: int) -> None:
    if not future.done():
        future.set_result(code)


async def _stop(manager: AsyncKernelManager) -> None:
    """Shut down politely, then kill, then kill what the kernel started (a child that left
    its process group survives both); never raise, never hang."""
    process: Any = getattr(manager.provisioner, "process", None)
    pid = getattr(process, "pid", None)
    started = descendants(pid) if isinstance(pid, int) else []
    try:
        if manager.has_kernel:
            try:
                await asyncio.wait_for(manager.shutdown_kernel(now=False), SHUTDOWN_TIMEOUT)
            except Exception:
                log.debug("polite shutdown failed; killing the kernel", exc_info=True)
                with contextlib.suppress(Exception):
                    await asyncio.wait_for(manager.shutdown_kernel(now=True), SHUTDOWN_TIMEOUT)
    finally:
        killed = kill_survivors(started)
        if killed:
            log.info("killed %d process(es) the kernel had started and left behind", killed)
        with contextlib.suppress(Exception):
            await manager.cleanup_resources()
