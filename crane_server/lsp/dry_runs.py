"""After the checker's publish: the cells a user is about to run, run in a sealed twin.

One twin at a time per kernel, cells in the order a user is likely to run them next (the
edited cells, then the first pending cell after the ones that ran); results are cached by
(cell text, execution count) in the twin tier. A newer edit or check cancels the pass (and
with it the live twin); a real run kills the twin (twin/runner.py).
"""

from __future__ import annotations

import logging

from crane_server.analysis.merge import merge_dry_run
from crane_server.documents import Cell, CellDocument
from crane_server.kernels.session import KernelSession
from crane_server.lsp.checks import DocumentVerdict
from crane_server.twin import DryRunOptions, dry_run_cell

log = logging.getLogger(__name__)

# Twins per pass: each may take its whole budget; a pass runs at the lowest CPU priority.
MAX_CELLS_PER_PASS = 4


def cells_to_dry_run(
    document: CellDocument, verdict: DocumentVerdict, edited: set[int]
) -> list[Cell]:
    """Pending code cells the checker judged, edited ones first, then in document order."""
    pending = [
        cell
        for cell in document.checked_cells
        if not cell.executed_unchanged
        and cell.index in verdict.results
        and not verdict.results[cell.index].partial
        and cell.text.strip()
    ]
    pending.sort(key=lambda cell: (cell.index not in edited, cell.index))
    return pending[:MAX_CELLS_PER_PASS]


async def refine_in_twins(
    session: KernelSession,
    document: CellDocument,
    verdict: DocumentVerdict,
    options: DryRunOptions,
    edited: set[int],
) -> bool:
    """Merge what a twin saw into `verdict` for the chosen cells; True when anything changed."""
    changed = False
    for cell in cells_to_dry_run(document, verdict, edited):
        if session.state != "idle":
            break
        checked = verdict.results[cell.index]
        dry = await dry_run_cell(session, cell.text, options=options)
        if dry.outcome in ("unknown", "unavailable") and dry.reason:
            log.info("dry run of %s: %s (%s)", cell.uri, dry.outcome, dry.reason)
        merged = merge_dry_run(checked, dry, cell.text)
        if merged.findings != checked.findings or merged.dry_run != checked.dry_run:
            verdict.results[cell.index] = merged
            changed = True
        if dry.outcome == "unavailable":
            break  # the same for every cell of this kernel
    return changed
