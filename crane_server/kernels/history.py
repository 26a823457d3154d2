"""Match a notebook to a kernel by the code the kernel executed (`history_request`).

Only significant lines count: imports, blank lines, comments, magics and trivially common
lines (`df.head()`, `plt.show()`, a bare name) are run by many notebooks alike.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from crane_server.kernels.session import KernelSession

_TRIVIAL = re.compile(r"^[A-Za-z_][\w.]*(\(\))?;?$")  # a name, attribute chain or bare call
_BOILERPLATE_PREFIXES = ("#", "import ", "from ", "%", "!", "print(", "display(")
MIN_LINE = 6


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


def significant_lines(sources: list[str]) -> set[str]:
    """The stripped lines of `sources` that say something about this notebook in particular."""
    found: set[str] = set()
    for source in sources:
        for raw in source.splitlines():
            line = raw.strip()
            if len(line) < MIN_LINE or line.startswith(_BOILERPLATE_PREFIXES):
                continue
            if _TRIVIAL.match(line):
                continue
            found.add(line)
    return found


@dataclass(frozen=True)
class HistoryMatch:
    """How many of the notebook's significant lines a kernel ran."""

    matched: int
    total: int

    @property
    def score(self) -> float:
        return self.matched / self.total if self.total else 0.0


async def match_by_history(
    session: KernelSession, cell_sources: list[str], *, timeout: float = 2.0
) -> float:
    """Share (0..1) of the notebook's non-empty cells found in the kernel's history."""
    cells = [source.strip() for source in cell_sources if source.strip()]
    if not cells:
        return 0.0
    executed = {source.strip() for source in await kernel_history(session, timeout=timeout)}
    return sum(1 for cell in cells if cell in executed) / len(cells)


async def match_significant_lines(
    session: KernelSession, cell_sources: list[str], *, timeout: float = 2.0
) -> HistoryMatch:
    """How many of the notebook's significant lines are found in the kernel's history."""
    wanted = significant_lines(cell_sources)
    if not wanted:
        return HistoryMatch(0, 0)
    ran = significant_lines(await kernel_history(session, timeout=timeout))
    return HistoryMatch(len(wanted & ran), len(wanted))
