"""Match a notebook to a kernel by the code the kernel executed (`history_request`)."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from crane_server.kernels.session import KernelSession


async def kernel_history(session: KernelSession, *, timeout: float = 2.0) -> list[str]:
    """Sources this kernel ran in its current session (never `tail`: it mixes all kernels)."""
    content = await session.request(
        "shell",
        "history_request",
        {
            "output": False,
            "raw": True,
            "hist_access_type": "range",
            "session": 0,
            "start": 1,
            "stop": None,
        },
        timeout=timeout,
    )
    entries = content.get("history") or []
    return [str(item[2]) for item in entries if isinstance(item, list | tuple) and len(item) > 2]


async def match_by_history(
    session: KernelSession, cell_sources: list[str], *, timeout: float = 2.0
) -> float:
    """Share (0..1) of the notebook's non-empty cells found in the kernel's history."""
    cells = [source.strip() for source in cell_sources if source.strip()]
    if not cells:
        return 0.0
    executed = {source.strip() for source in await kernel_history(session, timeout=timeout)}
    return sum(1 for cell in cells if cell in executed) / len(cells)
