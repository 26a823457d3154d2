"""Judge every code cell of a document against the current state of its kernel."""

from __future__ import annotations

import asyncio
import logging
import re
import time
from collections.abc import Callable
from dataclasses import dataclass, field

import msgspec

from crane_server.analysis.engine import (
    MAX_CELL_CHARS,
    CellPlace,
    CheckOptions,
    check_cell,
    check_cell_static,
    names_while_busy,
    probe_cells,
    refine_in_helper,
    too_long,
)
from crane_server.analysis.facts import names_bound_before_read
from crane_server.analysis.lookahead import followable, join_cells, results_by_cell
from crane_server.documents import Cell, CellDocument
from crane_server.errors import CraneError, KernelBusy
from crane_server.kernels.helper import HelperPool
from crane_server.kernels.session import KernelSession
from crane_server.protocol import CheckResult, Finding, NameInventory
from crane_server.protocol.handoff import Handoff

log = logging.getLogger(__name__)

_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
# A larger document is not checked at all (one note on its first code cell).
MAX_DOCUMENT_CHARS = 8_000_000


@dataclass
class DocumentVerdict:
    """Results per cell index, with what they were computed from."""

    version: int
    execution_count: int | None
    results: dict[int, CheckResult] = field(default_factory=dict)
    by_text: dict[str, CheckResult] = field(default_factory=dict)
    static: bool = False
    elapsed_ms: float = 0.0
    reused: int = 0
    # Lookahead Errors of one walk (by the joined source of the pending cells), per cell's
    # place in that walk.
    ahead: dict[str, dict[int, list[Finding]]] = field(default_factory=dict)
    # The kernel ran code, but no cell of this notebook is known to have run in it (its state
    # came from elsewhere, or from before the server attached): every cell is judged against
    # that one live state and no pending cell is walked ahead.
    live_state_only: bool = False
    # Cells that first import a library: (position among the checked cells, the kernel's
    # hand-off), walked again by a helper interpreter after the first publish.
    handoffs: dict[int, tuple[int, Handoff]] = field(default_factory=dict)

    def reusable(self, execution_count: int | None) -> dict[str, CheckResult]:
        """Results still valid for a kernel at `execution_count` (same state, same text)."""
        if self.static or execution_count != self.execution_count:
            return {}
        return self.by_text


def touched_by(code: str) -> Callable[[Cell], bool]:
    """A test for cells that mention a name the executed `code` mentions (checked first)."""
    names = set(_IDENTIFIER.findall(code))
    return lambda cell: bool(names.intersection(_IDENTIFIER.findall(cell.text)))


async def check_document(
    session: KernelSession,
    document: CellDocument,
    *,
    timeout: float = 5.0,
    previous_verdict: DocumentVerdict | None = None,
    first: Callable[[Cell], bool] | None = None,
    on_partial: Callable[[DocumentVerdict], None] | None = None,
    handoff: bool = False,
) -> DocumentVerdict:
    """Check every code cell; a busy kernel gets the static check from its inventory.

    Cells whose text was already judged against the same kernel state (same execution
    count) reuse that result, so an edit costs one probe, not one per cell; identical cells
    are checked once. With `first`, the cells it selects are checked and handed to
    `on_partial` before the others. With `handoff`, cells that first import a library keep
    the kernel's hand-off in `verdict.handoffs` (see `refine_in_helpers`).
    """
    started = time.perf_counter()
    verdict = DocumentVerdict(version=document.version, execution_count=session.execution_count)
    known = previous_verdict.reusable(session.execution_count) if previous_verdict else {}
    cells = document.checked_cells
    sources = [cell.text for cell in cells]
    executed = [cell.text for cell in cells if cell.executed_unchanged]
    busy = session.state == "busy"
    inventory: NameInventory | None = None
    running: list[str] | None = None
    if busy:
        inventory, running = await asyncio.wait_for(names_while_busy(session, timeout), timeout + 1)
    options = CheckOptions(timeout=timeout)

    async def judge(items: list[tuple[int, Cell]]) -> None:
        """Verdicts for `items`: reused, or the kernel's for each new text in one batch (one
        request at a time: the kernel's shell runs them one by one anyway)."""
        fresh: dict[str, tuple[int, Cell]] = {}
        for position, cell in items:
            if not busy and cell.text in known:
                verdict.by_text[cell.text] = known[cell.text]
                verdict.reused += 1
            elif cell.text not in verdict.by_text:
                fresh.setdefault(cell.text, (position, cell))  # identical cells: checked once
        if busy:
            assert inventory is not None
            for text in fresh:
                verdict.by_text[text] = too_long(text) or check_cell_static(
                    text, inventory, None, running
                )
        elif fresh:
            asked = [
                (
                    cell.text,
                    CellPlace(executed_cells=executed, notebook_cells=sources, target_index=p),
                )
                for p, cell in fresh.values()
            ]
            try:
                answers = await asyncio.wait_for(
                    probe_cells(session, asked, options=options, handoff=handoff), timeout + 1
                )
            except KernelBusy:
                verdict.static = True
                answers = []
            except (CraneError, TimeoutError) as exc:
                log.info("cells of %s not checked: %r", document.uri, exc)
                answers = []
            for (position, cell), answer in zip(fresh.values(), answers):
                if answer is None:
                    continue
                result, request = answer
                verdict.by_text[cell.text] = result
                if request is not None:
                    verdict.handoffs[cell.index] = (position, request)
        for _, cell in items:
            if cell.text in verdict.by_text:
                verdict.results[cell.index] = verdict.by_text[cell.text]

    order = list(enumerate(cells))
    if first is not None:
        early = [(p, c) for p, c in order if first(c)]
        order = [(p, c) for p, c in order if not first(c)]
        await judge(early)
        if on_partial is not None and early and order:
            on_partial(verdict)
    await judge(order)
    verdict.static = verdict.static or busy
    verdict.elapsed_ms = (time.perf_counter() - started) * 1000.0
    return verdict


async def refine_in_helpers(
    document: CellDocument,
    verdict: DocumentVerdict,
    helpers: HelperPool,
    timeout: float,
) -> bool:
    """Walk the cells that first import a library again in a helper interpreter (one at a
    time, outside the kernel's probe slot); True when a result changed."""
    cells = {cell.index: cell for cell in document.checked_cells}
    sources = [cell.text for cell in document.checked_cells]
    executed = [cell.text for cell in document.checked_cells if cell.executed_unchanged]
    changed = False
    for index, (position, request) in list(verdict.handoffs.items()):
        cell, before = cells.get(index), verdict.results.get(index)
        if cell is None or before is None:
            continue
        place = CellPlace(executed_cells=executed, notebook_cells=sources, target_index=position)
        after = await refine_in_helper(
            before, request, helpers, source=cell.text, place=place, timeout=timeout
        )
        verdict.handoffs.pop(index, None)
        verdict.results[index] = verdict.by_text[cell.text] = after
        changed = changed or after.findings != before.findings
    return changed


def oversized(document: CellDocument, limit: int = MAX_DOCUMENT_CHARS) -> DocumentVerdict | None:
    """The verdict for a document too large to check: a note on its first code cell."""
    size = sum(len(cell.text) for cell in document.cells)
    cells = document.checked_cells
    if size <= limit or not cells:
        return None
    note = Finding(
        code="crane-document-too-large",
        exception="",
        message=(
            f"not checked: this document has {size:,} characters; "
            f"crane-server checks documents of up to {limit:,}"
        ),
        line=1,
        severity="information",
    )
    verdict = DocumentVerdict(version=document.version, execution_count=None)
    verdict.results[cells[0].index] = CheckResult(
        crash=False, findings=[note], engine="none", partial=True
    )
    return verdict


# Lookahead walks at most this many pending cells, in one walk per document check.
MAX_AHEAD_PENDING = 200


def walked_cells(document: CellDocument) -> dict[int, str]:
    """The pending cells (position in the checked cells -> text) one walk follows: all of
    them in order, up to the first the walk cannot follow, or fewer when joined they would
    be too long to check."""
    cells = document.checked_cells
    walked: dict[int, str] = {}
    size = 0
    for position, cell in enumerate(cells):
        if cell.executed_unchanged:
            continue
        size += len(cell.text) + 1
        if not followable(cell.text) or len(walked) >= MAX_AHEAD_PENDING or size > MAX_CELL_CHARS:
            break
        walked[position] = cell.text
    return walked


async def look_ahead(
    session: KernelSession,
    document: CellDocument,
    verdict: DocumentVerdict,
    timeout: float,
    previous: DocumentVerdict | None = None,
    helpers: HelperPool | None = None,
) -> bool:
    """Add the crashes Run All would reach: walk the pending cells in order, once, never
    running them, and give each pending cell below the first that has no Error of its own
    the Error the walk predicts for it. True when a result changed. A cell magic ends the
    walk for the cells below it. The same walk against the same kernel state is reused from
    `previous`."""
    known: dict[str, dict[int, list[Finding]]] = {}
    if previous is not None and previous.execution_count == verdict.execution_count:
        known = {} if previous.static else previous.ahead
    cells = document.checked_cells
    walked = walked_cells(document)
    joined = join_cells(walked)
    if joined is None or len(walked) < 2 or session.state != "idle":
        return False
    # the cause is named as the user counts cells ("cell 3"): part of what a walk is reused for
    labels = {position: f"cell {cells[position].index + 1}" for position in walked}
    key = joined.source + "\x00" + ",".join(labels.values())
    errors = known.get(key)
    if errors is None:
        options = CheckOptions(timeout=timeout, static_fallback=False, helper_timeout=timeout)
        try:
            checked = await asyncio.wait_for(
                check_cell(session, joined.source, options=options, helpers=helpers),
                2 * timeout + 1,
            )
        except (CraneError, TimeoutError) as exc:
            log.info("lookahead of %s failed: %r", document.uri, exc)
            return False
        by_cell = results_by_cell(joined, walked, checked, labels)
        # keyed by the cell's place in the walk: the same walk may sit at other indices later
        errors = {
            number: [f for f in by_cell[position].findings if f.severity == "error"]
            for number, position in enumerate(joined.indices)
            if position in by_cell
        }
    verdict.ahead[key] = errors
    changed = False
    for number, position in enumerate(joined.indices[1:], start=1):
        result = verdict.results.get(cells[position].index)
        found = errors.get(number, [])
        if not found or result is None or any(f.severity == "error" for f in result.findings):
            continue
        kept = [f for f in result.findings if f.code != "notebook-waiting"]
        verdict.results[cells[position].index] = msgspec.structs.replace(
            result, findings=kept + found, crash=True
        )
        changed = True
    return changed


async def state_is_not_this_notebooks(
    session: KernelSession, document: CellDocument, timeout: float
) -> bool:
    """No cell of this notebook is known to have run in the kernel, yet its cells build from
    scratch names the kernel already holds: the kernel's state was built by these cells
    elsewhere (a console, before the server attached) or by other code. A notebook whose
    cells build on a state from elsewhere (reading its names first) is walked ahead."""
    cells = document.checked_cells
    if any(cell.executed_unchanged for cell in cells):
        return False
    sources: list[str] = []
    for cell in cells:
        if len(cell.text) > MAX_CELL_CHARS:
            break  # never parsed (crane-cell-too-long): what it binds and reads is unknown
        sources.append(cell.text)
    rebuilt = names_bound_before_read(sources)
    if not rebuilt:
        return False
    try:
        inventory = await asyncio.wait_for(session.inventory(timeout=timeout), timeout + 1)
    except (CraneError, TimeoutError):
        return False
    return any(inventory.names.get(name) not in (None, "module") for name in rebuilt)
