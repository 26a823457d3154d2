"""After the checker's publish: the notebook's pending cells, run in order in a sealed twin.

One twin per pass runs the pending code cells (the ones that did not run unchanged in the
kernel) in document order, as Run All would, on its copy of the kernel: each cell it ran
clean is clean, the first that raised gets the real exception, and a cell the twin cannot
vouch for (a denied write, the budget, a magic, `input()`) ends the run there, leaving the
cells below to the checker's walk. A cell run alone would be judged without the pending
cells above it (a name they define would be a false NameError). Results are cached by
(cells, execution count) in the twin tier, and a run that stopped is reused for every list
with the same cells up to the stop. A newer edit or check cancels the pass (and with it the
live twin); a real run kills the twin (twin/runner.py).
"""

from __future__ import annotations

import logging

from crane_server.analysis.merge import DRY_RUN_CODE, merge_dry_run
from crane_server.documents import Cell, CellDocument
from crane_server.kernels.session import KernelSession
from crane_server.lsp.checks import DocumentVerdict
from crane_server.protocol import CheckResult
from crane_server.twin import DryRunOptions, dry_run_cells

log = logging.getLogger(__name__)

# Cells one twin runs in order at most (the budget usually ends a long notebook first).
MAX_CELLS_PER_PASS = 50


def cells_to_dry_run(document: CellDocument, verdict: DocumentVerdict) -> list[Cell]:
    """The pending code cells in document order, up to the first the checker has not judged."""
    pending: list[Cell] = []
    for cell in document.checked_cells:
        if cell.executed_unchanged:
            continue
        checked = verdict.results.get(cell.index)
        if checked is None or checked.partial or len(pending) >= MAX_CELLS_PER_PASS:
            break
        pending.append(cell)
    return pending


def pass_budget(cells: int, per_cell_s: float, per_document_s: float) -> float:
    """The wall budget of one twin running `cells` cells: per cell, capped per document."""
    return max(0.1, min(per_cell_s * max(cells, 1), max(per_document_s, per_cell_s)))


def _first_line(cell: Cell) -> str:
    first = next((line.strip() for line in cell.text.splitlines() if line.strip()), "")
    return first if len(first) <= 60 else first[:57] + "..."


def ran_before_note(before: list[Cell]) -> str:
    """Evidence naming the pending cells the twin ran before the one that raised."""
    if len(before) <= 3:
        named = ", ".join(f"cell {c.index + 1} (`{_first_line(c)}`)" for c in before)
    else:
        named = f"cells {before[0].index + 1}-{before[-1].index + 1} ({len(before)} cells)"
    return f"in the dry run, {named}, not run in the kernel yet, ran before it"


def _with_ran_before(result: CheckResult, before: list[Cell]) -> CheckResult:
    """The twin's own Error says which pending cells ran first; a walk's names its cause."""
    if before:
        for finding in result.findings:
            if finding.code == DRY_RUN_CODE and finding.related_cell is None:
                # second, after "seen in a dry run": clients show the first facts only
                finding.evidence.facts.insert(1, ran_before_note(before))
    return result


async def refine_in_twins(
    session: KernelSession,
    document: CellDocument,
    verdict: DocumentVerdict,
    options: DryRunOptions,
    per_document_s: float,
) -> bool:
    """Merge what one twin saw running the pending cells in order; True when anything changed."""
    cells = cells_to_dry_run(document, verdict)
    if not cells or session.state != "idle":
        return False
    budget = pass_budget(len(cells), options.wall_s, per_document_s)
    run_options = DryRunOptions(wall_s=budget, memory_mb=options.memory_mb, timeout=options.timeout)
    reached = await dry_run_cells(session, [cell.text for cell in cells], options=run_options)
    changed = False
    for position, (cell, dry) in enumerate(zip(cells, reached)):
        if dry.outcome in ("unknown", "unavailable") and dry.reason:
            log.info("dry run of %s: %s (%s)", cell.uri, dry.outcome, dry.reason)
        checked = verdict.results[cell.index]
        merged = merge_dry_run(checked, dry, cell.text)
        if dry.outcome == "raised":
            merged = _with_ran_before(merged, cells[:position])
        if merged.findings != checked.findings or merged.dry_run != checked.dry_run:
            verdict.results[cell.index] = merged
            changed = True
    return changed
