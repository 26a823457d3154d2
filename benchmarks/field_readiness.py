"""Readiness on real notebooks not written for crane: no Error on a cell that then runs fine.

Each notebook is opened on a fresh kernel and judged through the engine path the language
server uses (`check_cell` with the notebook context, then `to_diagnostic` for the severity the
editor shows). Counted: Errors before anything runs (each must be on a cell that really
crashes when the notebook runs top to bottom), then, running top to bottom, each cell judged
just before it runs: an Error on a cell that then runs fine is a false Error.

The notebooks are the HoloViews example notebooks shipped inside the installed `holoviews`
package (BSD-3-Clause; see tests/field/SOURCES.md): nothing is copied into this repository.

    python benchmarks/field_readiness.py [--limit N] [--json out.json]
"""

from __future__ import annotations

import argparse
import asyncio
import dataclasses
import json
import os
import sys
import tempfile
import time
import uuid
from dataclasses import dataclass, field
from pathlib import Path

import nbformat

from crane_server.analysis.engine import CheckOptions, check_cell
from crane_server.documents import Cell, CellDocument
from crane_server.documents.notebook import CellSource, notebook_document
from crane_server.errors import CraneError
from crane_server.kernels.session import KernelSession
from crane_server.lsp.diagnostics import to_diagnostic

ERROR = 1  # lsprotocol DiagnosticSeverity.Error
CELL_TIMEOUT = 120.0
CHECK_TIMEOUT = 15.0
#: Folders of the installed holoviews package's examples, in the order they are used.
FOLDERS = (
    "reference/elements/matplotlib",
    "reference/containers/matplotlib",
    "gallery/demos/matplotlib",
)


def field_notebooks(limit: int | None = None, per_folder: int | None = None) -> list[Path]:
    """The example notebooks shipped inside the installed holoviews package."""
    import holoviews

    root = Path(holoviews.__file__).parent / "examples"
    found = [
        path for folder in FOLDERS for path in sorted((root / folder).glob("*.ipynb"))[:per_folder]
    ]
    return found[:limit] if limit else found


@dataclass
class NotebookCounts:
    """What one notebook showed before and while it ran top to bottom."""

    name: str
    cells: int = 0
    crashed: list[int] = field(default_factory=list)  # cells that raised when run in order
    errors_before: list[int] = field(default_factory=list)  # cells with an Error before any run
    false_before: list[int] = field(default_factory=list)  # ... of those, cells that ran fine
    errors_just_before: list[int] = field(default_factory=list)  # Error just before its run
    false_errors: list[int] = field(default_factory=list)  # ... of those, cells that ran fine
    hints_before: int = 0
    messages: dict[int, list[str]] = field(default_factory=dict)
    seconds: float = 0.0


def code_cells(path: Path) -> list[str]:
    """The notebook's non-empty code cells, in order."""
    notebook = nbformat.read(path, as_version=4)
    return [c.source for c in notebook.cells if c.cell_type == "code" and c.source.strip()]


def _document(name: str, sources: list[str], executed: set[str]) -> CellDocument:
    cells = [
        CellSource(uri=f"cell:{name}#{i}", kind="code", text=text) for i, text in enumerate(sources)
    ]
    document = notebook_document(f"file:///field/{name}", 1, cells)
    marked = [
        dataclasses.replace(cell, executed_unchanged=cell.text in executed)
        for cell in document.cells
    ]
    return dataclasses.replace(document, cells=marked)


async def _judge(
    session: KernelSession, document: CellDocument, cell: Cell, position: int
) -> tuple[list[str], int]:
    """Messages of the Errors the editor would show on `cell`, and its Hint count."""
    checked = document.checked_cells
    result = await check_cell(
        session,
        cell.text,
        executed_cells=[c.text for c in checked if c.executed_unchanged],
        notebook_cells=[c.text for c in checked],
        target_index=position,
        options=CheckOptions(timeout=CHECK_TIMEOUT),
    )
    errors, hints = [], 0
    for finding in result.findings:
        placed = to_diagnostic(document, cell, finding)
        if placed is None:
            continue
        if placed[1].severity == ERROR:
            errors.append(placed[1].message.split("\n")[0])
        elif placed[1].severity == 4:
            hints += 1
    return errors, hints


async def run_notebook(path: Path, runtime: Path) -> NotebookCounts:
    """Open `path` on a fresh kernel, judge every cell, then run and judge top to bottom."""
    from jupyter_client.manager import KernelManager

    started = time.perf_counter()
    sources = code_cells(path)
    counts = NotebookCounts(name=f"{path.parent.parent.name}/{path.parent.name}/{path.name}")
    counts.cells = len(sources)
    connection = runtime / f"kernel-{uuid.uuid4().hex[:12]}.json"
    manager = KernelManager(kernel_name="python3", connection_file=str(connection))
    workdir = Path(tempfile.mkdtemp(prefix="field-"))
    env = {**os.environ, "MPLBACKEND": "Agg"}
    manager.start_kernel(cwd=str(workdir), env=env)
    session: KernelSession | None = None
    try:
        client = manager.client()
        client.start_channels()
        client.wait_for_ready(timeout=120)
        client.stop_channels()
        session = await KernelSession.attach(connection, timeout=30.0)
        executed: set[str] = set()
        before: list[list[str]] = []
        document = _document(path.name, sources, executed)
        for position, cell in enumerate(document.checked_cells):
            errors, hints = await _judge(session, document, cell, position)
            before.append(errors)
            counts.hints_before += hints
        just_before: list[list[str]] = []
        for position, source in enumerate(sources):
            document = _document(path.name, sources, executed)
            errors, _ = await _judge(session, document, document.checked_cells[position], position)
            just_before.append(errors)
            outcome = await session.execute(source, timeout=CELL_TIMEOUT)
            executed.add(source)
            if outcome.status != "ok":
                counts.crashed.append(position)
            if outcome.status in ("died", "timeout"):
                break
        for position, errors in enumerate(before):
            if errors:
                counts.errors_before.append(position)
                counts.messages[position] = errors
                if position not in counts.crashed and position < len(just_before):
                    counts.false_before.append(position)
        for position, errors in enumerate(just_before):
            if errors:
                counts.errors_just_before.append(position)
                counts.messages.setdefault(position, errors)
                if position not in counts.crashed:
                    counts.false_errors.append(position)
    except CraneError as exc:
        counts.messages[-1] = [f"not measured: {exc}"]
    finally:
        if session is not None:
            await session.close()
        manager.shutdown_kernel(now=True)
        manager.cleanup_resources()
    counts.seconds = time.perf_counter() - started
    return counts


async def run_all(paths: list[Path]) -> list[NotebookCounts]:
    runtime = Path(tempfile.mkdtemp(prefix="field-runtime-"))
    results = []
    for path in paths:
        counts = await run_notebook(path, runtime)
        results.append(counts)
        print(
            f"{counts.name}: {counts.cells} cells, crashed {counts.crashed}, "
            f"Errors before {counts.errors_before} (false {counts.false_before}), "
            f"just before {counts.errors_just_before} (false {counts.false_errors}), "
            f"{counts.seconds:.1f} s",
            file=sys.stderr,
        )
    return results


def summary(results: list[NotebookCounts]) -> dict[str, int]:
    return {
        "notebooks": len(results),
        "cells": sum(r.cells for r in results),
        "cells_crashing_top_to_bottom": sum(len(r.crashed) for r in results),
        "errors_before_running": sum(len(r.errors_before) for r in results),
        "false_errors_before_running": sum(len(r.false_before) for r in results),
        "hints_before_running": sum(r.hints_before for r in results),
        "errors_just_before_each_run": sum(len(r.errors_just_before) for r in results),
        "false_errors_just_before_each_run": sum(len(r.false_errors) for r in results),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--limit", type=int, default=None)
    parser.add_argument("--per-folder", type=int, default=None)
    parser.add_argument("--json", type=Path, default=None)
    args = parser.parse_args()
    results = asyncio.run(run_all(field_notebooks(args.limit, args.per_folder)))
    total = summary(results)
    print(json.dumps(total, indent=2))
    if args.json:
        args.json.write_text(
            json.dumps(
                {"summary": total, "notebooks": [dataclasses.asdict(r) for r in results]},
                indent=2,
            )
        )


if __name__ == "__main__":
    main()
