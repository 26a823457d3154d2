"""Running Jupyter servers (`jpserver-*.json`) and the notebook each of their kernels serves."""

from __future__ import annotations

import asyncio
import json
import logging
import os
from pathlib import Path
from typing import TYPE_CHECKING, Any

import msgspec

from crane_server.errors import KernelNotFound
from crane_server.kernels.connection import read_regular_file
from crane_server.protocol.jupyter_sessions import SESSION_MAP_PREFIX, SessionMap

if TYPE_CHECKING:  # httpx is loaded only when a Jupyter server is running
    import httpx

log = logging.getLogger(__name__)

_MAX_SERVER_FILE = 64 * 1024


class NotebookLink(msgspec.Struct, kw_only=True):
    """Where a kernel id was found to serve a notebook."""

    notebook_path: str
    server_url: str | None = None
    mapped_by: str


def _read_json(path: Path) -> Any:
    """A small JSON file, or None; a FIFO or device in its place is never opened."""
    try:
        return json.loads(read_regular_file(path, _MAX_SERVER_FILE).decode("utf-8"))
    except (KernelNotFound, ValueError, RecursionError):
        return None


def _resolve(root_dir: str | None, path: str) -> str:
    if root_dir and not os.path.isabs(path):
        return os.path.join(root_dir, path)
    return path


async def _server_sessions(
    client: httpx.AsyncClient, info: dict[str, Any]
) -> dict[str, NotebookLink]:
    """kernel id -> notebook from one server's `GET /api/sessions`; empty if unreachable."""
    url = str(info.get("url") or "")
    if not url:
        return {}
    base = url if url.endswith("/") else url + "/"
    headers = {"Authorization": f"token {info['token']}"} if info.get("token") else {}
    import httpx

    try:
        response = await client.get(base + "api/sessions", headers=headers)
        response.raise_for_status()
        sessions = response.json()
    except (httpx.HTTPError, ValueError) as exc:
        log.debug("server %s: no sessions (%s)", url, exc)
        return {}
    links: dict[str, NotebookLink] = {}
    root_dir = info.get("root_dir") or info.get("notebook_dir")
    for item in sessions if isinstance(sessions, list) else []:
        if not isinstance(item, dict):
            continue
        kernel = item.get("kernel") or {}
        path = item.get("path") or (item.get("notebook") or {}).get("path")
        if isinstance(kernel, dict) and kernel.get("id") and isinstance(path, str) and path:
            links[kernel["id"]] = NotebookLink(
                notebook_path=_resolve(root_dir, path), server_url=url, mapped_by="server-sessions"
            )
    return links


async def server_links(runtime_dir: Path, *, timeout: float) -> dict[str, NotebookLink]:
    """kernel id -> notebook, from crane session maps and every live server's sessions API."""
    links: dict[str, NotebookLink] = {}
    for path in sorted(runtime_dir.glob(f"{SESSION_MAP_PREFIX}*.json")):
        try:
            data = read_regular_file(path, 16 * _MAX_SERVER_FILE)
            session_map = msgspec.json.decode(data, type=SessionMap)
        except (KernelNotFound, RecursionError, msgspec.DecodeError, msgspec.ValidationError):
            continue
        for item in session_map.sessions:
            links[item.kernel_id] = NotebookLink(
                notebook_path=item.abs_path or _resolve(session_map.root_dir, item.path),
                server_url=session_map.server_url,
                mapped_by="crane-sessions",
            )
    servers = [_read_json(path) for path in sorted(runtime_dir.glob("jpserver-*.json"))]
    servers = [info for info in servers if isinstance(info, dict)]
    if servers:
        import httpx

        async with httpx.AsyncClient(timeout=timeout, trust_env=False) as client:
            results = await asyncio.gather(*(_server_sessions(client, info) for info in servers))
        for result in results:
            links.update(result)
    return links
