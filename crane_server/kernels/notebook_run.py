"""Build a notebook's kernel state for `check` and `eval`: run the cells before the target."""

from __future__ import annotations

import contextlib
import json
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from pathlib import Path

from crane_server.errors import DocumentError
from crane_server.kernels.launch import fresh_kernel
from crane_server.kernels.outcome import ExecutionOutcome
from crane_server.kernels.session import KernelSession


def read_code_cells(path: Path) -> list[str]:
    """The source of every code cell, in order; DocumentError for anything that is not a notebook."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError as exc:
        raise DocumentError(f"{path}: no such notebook") from exc
    except (OSError, UnicodeDecodeError) as exc:
        raise DocumentError(f"{path}: cannot read the notebook: {exc}") from exc
    try:
        document = json.loads(text)
    except ValueError as exc:
        raise DocumentError(f"{path}: not a valid notebook (invalid JSON: {exc})") from exc
    cells = document.get("cells") if isinstance(document, dict) else None
    if not isinstance(cells, list):
        raise DocumentError(f"{path}: not a valid notebook (no 'cells' list)")
    sources: list[str] = []
    for cell in cells:
        if not isinstance(cell, dict) or cell.get("cell_type") != "code":
            continue
        source = cell.get("source", "")
        if isinstance(source, list):
            source = "".join(str(part) for part in source)
        if not isinstance(source, str):
            raise DocumentError(f"{path}: a code cell has an invalid 'source'")
        sources.append(source)
    if not sources:
        raise DocumentError(f"{path}: the notebook has no code cells")
    return sources


def cell_index(number: int | None) -> int | None:
    """The 0-based index of the code cell people call `number` (from 1; negative: from the end)."""
    if number is None or number < 0:
        return number
    if number == 0:
        raise DocumentError("--cell 0: code cells are numbered from 1 (-1 is the last)")
    return number - 1


def resolve_cell(sources: list[str], cell: int | None) -> int:
    """The target's index among code cells (default: the last); DocumentError when out of range."""
    if cell is None:
        return len(sources) - 1
    index = cell if cell >= 0 else len(sources) + cell
    if not 0 <= index < len(sources):
        raise DocumentError(
            f"--cell {cell + 1 if cell >= 0 else cell} is out of range: "
            f"the notebook has {len(sources)} code cells"
        )
    return index


@dataclass
class PreparedCell:
    """A kernel whose state is the one the target cell would run in."""

    session: KernelSession
    target_source: str
    target_index: int
    executed_sources: list[str]
    all_sources: list[str]
    failed: ExecutionOutcome | None = None
    failed_index: int | None = None
    timings: dict[str, float] = field(default_factory=dict)


@contextlib.asynccontextmanager
async def prepared_notebook(
    path: Path, cell: int | None = None, *, timeout: float = 120.0, startup_timeout: float = 60.0
) -> AsyncIterator[PreparedCell]:
    """A fresh kernel in the notebook's folder that has run the code cells before the target."""
    import time

    sources = read_code_cells(path)
    index = resolve_cell(sources, cell)
    started = time.perf_counter()
    async with fresh_kernel(path.resolve().parent, startup_timeout=startup_timeout) as session:
        prepared = PreparedCell(
            session=session,
            target_source=sources[index],
            target_index=index,
            executed_sources=[],
            all_sources=sources,
        )
        prepared.timings["kernel_start_ms"] = (time.perf_counter() - started) * 1000.0
        for position, source in enumerate(sources[:index]):
            outcome = await session.execute(source, timeout=timeout)
            if outcome.status != "ok":
                prepared.failed, prepared.failed_index = outcome, position
                break
            prepared.executed_sources.append(source)
        prepared.timings["run_cells_ms"] = (
            time.perf_counter() - started
        ) * 1000.0 - prepared.timings["kernel_start_ms"]
        yield prepared
