"""One shared KernelSession per kernel, whatever number of documents use it."""

from __future__ import annotations

import asyncio
import functools
import logging
import os
from collections.abc import Callable, Coroutine
from pathlib import Path
from typing import Any

from crane_server.documents import normalise_source
from crane_server.errors import CraneError, KernelNotFound
from crane_server.kernels.discovery import discover_kernels
from crane_server.kernels.events import ExecutionFinished, KernelEvent, KernelRestarted
from crane_server.kernels.history import kernel_history
from crane_server.kernels.session import KernelSession
from crane_server.protocol.kernels import KernelRecord

log = logging.getLogger(__name__)

EventListener = Callable[[KernelSession, KernelEvent], None]


class KernelRegistry:
    """Attach to kernels on demand, share the sessions, relay their events."""

    def __init__(self, on_event: EventListener, *, attach_timeout: float = 2.0) -> None:
        self._on_event = on_event
        self._attach_timeout = attach_timeout
        self.heartbeat = 5.0
        self._sessions: dict[Path, KernelSession] = {}
        self._pending: dict[Path, asyncio.Future[KernelSession]] = {}  # attaches in flight
        self._unsubscribe: dict[Path, Callable[[], None]] = {}
        self._executed: dict[Path, set[str]] = {}

    @property
    def sessions(self) -> list[KernelSession]:
        return list(self._sessions.values())

    def executed_sources(self, session: KernelSession) -> set[str]:
        """Normalised texts of the user executions seen on this kernel since attaching."""
        return self._executed.get(Path(session.connection_file), set())

    async def attach(self, connection_file: str | Path) -> KernelSession:
        """Return the session of this kernel, attaching once even under concurrent calls.

        The attach runs in a task of its own: a caller that is cancelled (a superseded check)
        never leaves a half-attached session behind.
        """
        path = Path(connection_file).expanduser().resolve()
        session = self._sessions.get(path)
        if session is not None and session.state != "dead":
            return session
        pending = self._pending.get(path)
        if pending is None:
            pending = asyncio.ensure_future(self._attach(path))
            self._pending[path] = pending
            pending.add_done_callback(lambda _: self._pending.pop(path, None))
        return await asyncio.shield(pending)

    async def attach_remote(
        self,
        server_url: str,
        kernel_id: str,
        token: str | None,
        headers: tuple[tuple[str, str], ...] | None = None,
    ) -> KernelSession:
        """The session of kernel `kernel_id` of the Jupyter Server at `server_url`."""
        key = Path("api/kernels", kernel_id)  # what a remote session names its location
        session = self._sessions.get(key)
        if session is not None and session.state != "dead":
            return session
        pending = self._pending.get(key)
        if pending is None:
            remote = KernelSession.attach_remote(
                server_url,
                kernel_id,
                token=token,
                timeout=max(self._attach_timeout, 5.0),
                heartbeat=self.heartbeat,
                headers=headers,
            )
            pending = asyncio.ensure_future(self._attach(key, remote))
            self._pending[key] = pending
            pending.add_done_callback(lambda _: self._pending.pop(key, None))
        return await asyncio.shield(pending)

    async def _attach(
        self, path: Path, remote: Coroutine[Any, Any, KernelSession] | None = None
    ) -> KernelSession:
        if path in self._sessions:
            await self._drop(path)
        if remote is not None:
            session = await remote
        else:
            session = await KernelSession.attach(
                path, timeout=self._attach_timeout, heartbeat=self.heartbeat
            )
        try:
            executed = await self._history(session)
            unsubscribe = session.subscribe(functools.partial(self._relay, session))
        except BaseException:
            await session.close()
            raise
        self._executed[path] = executed
        self._unsubscribe[path] = unsubscribe
        self._sessions[path] = session
        return session

    async def attach_id(self, kernel_id: str) -> KernelSession:
        """Attach to a kernel known by its id (runtime dir file `kernel-<id>.json`)."""
        for record in await self.discover():
            if record.kernel_id == kernel_id and not record.stale:
                return await self.attach(record.connection_file)
        runtime = os.environ.get("JUPYTER_RUNTIME_DIR")
        if runtime and (Path(runtime) / f"kernel-{kernel_id}.json").exists():
            return await self.attach(Path(runtime) / f"kernel-{kernel_id}.json")
        raise KernelNotFound(f"no running kernel with id {kernel_id!r}")

    async def _history(self, session: KernelSession) -> set[str]:
        try:
            return {normalise_source(code) for code in await kernel_history(session)}
        except CraneError as exc:
            log.info("no history from %s: %s", session.connection_file, exc)
            return set()

    async def discover(self) -> list[KernelRecord]:
        return await discover_kernels()

    async def close(self) -> None:
        for path in list(self._sessions):
            await self._drop(path)

    async def _drop(self, path: Path) -> None:
        unsubscribe = self._unsubscribe.pop(path, None)
        if unsubscribe is not None:
            unsubscribe()
        session = self._sessions.pop(path, None)
        if session is not None:
            try:
                await session.close()
            except Exception:
                log.exception("closing the session of %s failed", path)

    def _relay(self, session: KernelSession, event: KernelEvent) -> None:
        executed = self._executed.setdefault(Path(session.connection_file), set())
        if isinstance(event, ExecutionFinished):
            executed.add(normalise_source(event.code))
        elif isinstance(event, KernelRestarted):
            executed.clear()
        try:
            self._on_event(session, event)
        except Exception:
            log.exception("handling kernel event %r failed", event)
