"""Find the kernels in the Jupyter runtime dir, verify each, and map them to notebooks."""

from __future__ import annotations

import asyncio
import os
from pathlib import Path

from jupyter_core.paths import jupyter_runtime_dir

from crane_server.errors import KernelError, KernelNotFound
from crane_server.kernels.connection import kernel_id_from_path, read_connection_file_async
from crane_server.kernels.history import match_by_history
from crane_server.kernels.servers import NotebookLink, server_links
from crane_server.kernels.session import KernelSession
from crane_server.protocol.kernels import KernelRecord

__all__ = ["default_runtime_dir", "discover_kernels", "match_by_history"]

_CONCURRENT_ATTACHES = 64  # each attach holds three sockets until its kernel answers


def default_runtime_dir() -> Path:
    """`$JUPYTER_RUNTIME_DIR`, else Jupyter's default runtime dir."""
    return Path(os.environ.get("JUPYTER_RUNTIME_DIR") or jupyter_runtime_dir())


async def discover_kernels(
    runtime_dir: Path | None = None, *, timeout: float = 1.0
) -> list[KernelRecord]:
    """Every `kernel-*.json`, verified concurrently by a control request; stale and bad marked."""
    folder = runtime_dir or default_runtime_dir()
    files = sorted(folder.glob("kernel-*.json")) if folder.is_dir() else []
    limit = asyncio.Semaphore(_CONCURRENT_ATTACHES)

    async def verify(path: Path) -> KernelRecord:
        async with limit:
            return await _verify(path, timeout)

    records, links = await asyncio.gather(
        asyncio.gather(*(verify(path) for path in files)),
        server_links(folder, timeout=timeout) if folder.is_dir() else _no_links(),
    )
    for record in records:
        link = links.get(record.kernel_id or "")
        if link is not None and not record.stale:
            record.notebook_path = link.notebook_path
            record.server_url = link.server_url
            record.mapped_by = link.mapped_by
    return list(records)


async def _no_links() -> dict[str, NotebookLink]:
    return {}


async def _verify(path: Path, timeout: float) -> KernelRecord:
    """One file's record: live (state, pid), stale (no kernel answered) or bad (unusable)."""
    record = KernelRecord(kernel_id=kernel_id_from_path(path), connection_file=str(path))
    try:
        info = await read_connection_file_async(path, timeout=max(1.0, timeout))
        record.kernel_name = info.get("kernel_name") or None
        session_name = info.get("jupyter_session")
        if isinstance(session_name, str) and session_name:
            record.notebook_path = session_name
            record.mapped_by = "jupyter_session"
        session = await KernelSession.attach(path, timeout=timeout)
    except KernelError as exc:
        record.stale = True
        record.state = "bad" if isinstance(exc, KernelNotFound) else "stale"
        record.error = str(exc)
        record.notebook_path = record.mapped_by = None
        return record
    except Exception as exc:  # never let one file stop the listing of the others
        record.stale = True
        record.state = "bad"
        record.error = f"unusable connection file {path}: {type(exc).__name__}: {exc}"[:300]
        record.notebook_path = record.mapped_by = None
        return record
    language = (session.info.get("language_info") or {}).get("name")
    record.language = language if isinstance(language, str) else None
    implementation = session.info.get("implementation")
    version = session.info.get("implementation_version")
    if implementation:
        record.implementation = f"{implementation} {version or ''}".strip()
    record.state = session.state
    record.pid = session.pid
    await session.close()
    return record
