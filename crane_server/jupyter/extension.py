"""Jupyter server extension: keep `crane-sessions-<pid>.json` in the runtime dir up to date.

jupyter_server knows which kernel serves which notebook (its sessions); crane-server runs as
a separate process and reads this map to bind a notebook to its kernel without a token.
The map is rewritten after every session create, update or delete and every kernel action
(start, restart, shutdown), and is also served at `GET /crane/sessions`. The extension also
keeps the IOPub status of crane's own probes from the browser (see `quiet`).
"""

from __future__ import annotations

import asyncio
import atexit
import contextlib
import functools
import os
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import msgspec
from jupyter_server.base.handlers import APIHandler
from tornado import web

from crane_server.jupyter.quiet import hide_crane_status
from crane_server.protocol.jupyter_sessions import (
    SESSION_MAP_PREFIX,
    NotebookSession,
    SessionMap,
)

KERNEL_ACTIONS_SCHEMA = "https://events.jupyter.org/jupyter_server/kernel_actions/v1"
WRAPPED_METHODS = ("create_session", "update_session", "delete_session")
SETTINGS_KEY = "crane_session_map"


def session_map_path(runtime_dir: str | Path, pid: int | None = None) -> Path:
    """Return where the server with process id `pid` writes its map."""
    return Path(runtime_dir) / f"{SESSION_MAP_PREFIX}{pid or os.getpid()}.json"


class SessionMapWriter:
    """Build the session map from a running jupyter_server and write it atomically."""

    def __init__(self, serverapp: Any) -> None:
        self._app = serverapp
        self.path = session_map_path(serverapp.runtime_dir)
        self._lock = asyncio.Lock()

    async def build(self) -> SessionMap:
        """Return the current sessions of the server."""
        models = await self._app.session_manager.list_sessions()
        root_dir = getattr(self._app, "root_dir", None)
        sessions = [self._entry(model, root_dir) for model in models]
        return SessionMap(
            server_pid=os.getpid(),
            server_url=self._server_url(),
            root_dir=root_dir,
            updated=time.time(),
            sessions=sessions,
        )

    async def refresh(self) -> None:
        """Rewrite the map file; failures are logged, never raised into the server."""
        try:
            async with self._lock:
                data = msgspec.json.encode(await self.build())
                tmp = self.path.with_suffix(".tmp")
                fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
                with os.fdopen(fd, "wb") as handle:
                    handle.write(data)
                os.replace(tmp, self.path)
        except Exception:
            self._app.log.exception("crane: could not write the session map %s", self.path)

    def remove(self) -> None:
        """Delete the map file (at server exit)."""
        with contextlib.suppress(OSError):
            self.path.unlink()

    def _entry(self, model: dict[str, Any], root_dir: str | None) -> NotebookSession:
        kernel = model.get("kernel") or {}
        kernel_id = str(kernel.get("id", ""))
        path = str(model.get("path", ""))
        return NotebookSession(
            session_id=str(model.get("id", "")),
            path=path,
            abs_path=str(Path(root_dir, path)) if root_dir and path else None,
            name=str(model.get("name") or ""),
            type=str(model.get("type") or "notebook"),
            kernel_id=kernel_id,
            kernel_name=kernel.get("name"),
            connection_file=self._connection_file(kernel_id),
            execution_state=kernel.get("execution_state"),
        )

    def _connection_file(self, kernel_id: str) -> str | None:
        try:
            manager = self._app.kernel_manager.get_kernel(kernel_id)
        except KeyError:
            return None
        connection_file = getattr(manager, "connection_file", None)
        return str(Path(connection_file).resolve()) if connection_file else None

    def _server_url(self) -> str | None:
        try:
            return str(self._app.connection_url)
        except Exception:
            return None


class SessionMapHandler(APIHandler):  # type: ignore[misc]
    """`GET /crane/sessions`: the same map as the file, for clients that prefer HTTP."""

    @web.authenticated  # type: ignore[misc]
    async def get(self) -> None:
        writer: SessionMapWriter = self.settings[SETTINGS_KEY]
        self.set_header("Content-Type", "application/json")
        self.finish(msgspec.json.encode(await writer.build()))


def _refresh_after(
    method: Callable[..., Awaitable[Any]], writer: SessionMapWriter
) -> Callable[..., Awaitable[Any]]:
    """Wrap a session manager coroutine so the map is rewritten after it returns or fails."""

    @functools.wraps(method)
    async def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return await method(*args, **kwargs)
        finally:
            await writer.refresh()

    return wrapper


def load_extension(serverapp: Any) -> SessionMapWriter:
    """Install the map writer, its hooks and its HTTP handler into a running jupyter_server."""
    writer = SessionMapWriter(serverapp)
    manager = serverapp.session_manager
    for name in WRAPPED_METHODS:
        setattr(manager, name, _refresh_after(getattr(manager, name), writer))

    async def on_kernel_action(logger: Any, schema_id: str, data: dict[str, Any]) -> None:
        await writer.refresh()

    with contextlib.suppress(Exception):
        serverapp.event_logger.add_listener(
            schema_id=KERNEL_ACTIONS_SCHEMA, listener=on_kernel_action
        )

    web_app = serverapp.web_app
    web_app.settings[SETTINGS_KEY] = writer
    base_url = web_app.settings.get("base_url", "/")
    web_app.add_handlers(".*$", [(base_url.rstrip("/") + "/crane/sessions", SessionMapHandler)])

    try:
        from jupyter_server.services.kernels.connection.channels import (
            ZMQChannelsWebsocketConnection,
        )

        hide_crane_status(ZMQChannelsWebsocketConnection)
    except Exception:  # another jupyter_server layout: the indicator may flicker, nothing breaks
        serverapp.log.warning("crane: could not hide crane's kernel status messages", exc_info=True)

    atexit.register(writer.remove)
    asyncio.get_event_loop().call_soon(lambda: asyncio.ensure_future(writer.refresh()))
    serverapp.log.info("crane: notebook-to-kernel map at %s", writer.path)
    return writer
