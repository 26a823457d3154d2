"""The rules tier: ask the kernel-side checker about a cell and refine its findings."""

from __future__ import annotations

import logging
import time

import msgspec

from crane_server.analysis.merge import merge_dry_run
from crane_server.analysis.notebook_rules import annotate
from crane_server.analysis.static_rules import check_cell_static
from crane_server.errors import HelperError, KernelBusy, ProbeError
from crane_server.kernels.helper import HelperPool
from crane_server.kernels.session import KernelSession
from crane_server.protocol import CheckResult, Finding, NameInventory, RuntimeSnapshot
from crane_server.protocol.handoff import Handoff
from crane_server.twin import DryRunOptions, dry_run_cell

log = logging.getLogger(__name__)

__all__ = [
    "MAX_CELL_CHARS",
    "CellPlace",
    "CheckOptions",
    "check_cell",
    "check_cell_static",
    "probe_cell",
    "probe_cells",
    "refine_in_helper",
    "snapshot_for_cell",
    "too_long",
]

# Longer cells are not sent to the kernel: parsing and walking them would cost the user's
# kernel (and this server's memory) far more than a check may. 500,000 characters is about
# 10,000 lines of ordinary code.
MAX_CELL_CHARS = 500_000


def too_long(source: str, limit: int = MAX_CELL_CHARS) -> CheckResult | None:
    """The verdict for a cell too long to check (an Information note), or None."""
    if len(source) <= limit:
        return None
    note = Finding(
        code="crane-cell-too-long",
        exception="",
        message=(
            f"not checked: this cell has {len(source):,} characters; "
            f"crane-server checks cells of up to {limit:,}"
        ),
        line=1,
        severity="information",
        fix="split the cell, or move data literals into a file the cell reads",
    )
    return CheckResult(crash=False, findings=[note], engine="none", partial=True)


class CheckOptions(msgspec.Struct, kw_only=True):
    timeout: float = 5.0
    static_fallback: bool = True
    # A cell's first import of a library: the helper interpreter's walk (first imports
    # included) may take this long before the kernel's own verdict is used alone.
    helper_timeout: float = 20.0
    # Run the cell in a sealed twin of the kernel too (None: the checker alone).
    dry_run: DryRunOptions | None = None


class CellPlace(msgspec.Struct, kw_only=True):
    """Where the target cell sits: what notebook-order annotations are computed from."""

    executed_cells: list[str] | None = None
    notebook_cells: list[str] | None = None
    target_index: int | None = None


async def check_cell(
    session: KernelSession,
    source: str,
    *,
    executed_cells: list[str] | None = None,
    notebook_cells: list[str] | None = None,
    target_index: int | None = None,
    options: CheckOptions | None = None,
    last_snapshot: RuntimeSnapshot | None = None,
    helpers: HelperPool | None = None,
) -> CheckResult:
    """Rules findings for `source` against the kernel's live state, refined by a dry run.

    While the kernel runs a cell, falls back to the static checks over the control-channel
    inventory (findings marked `based_on_last_snapshot`). With `options.dry_run`, the cell
    runs in a sealed twin of the idle kernel and what it saw is merged in (merge.py). With
    `helpers`, a cell that imports a library the kernel has not loaded is walked again in a
    helper interpreter, unless the twin already settled it.
    """
    options = options or CheckOptions()
    place = CellPlace(
        executed_cells=executed_cells, notebook_cells=notebook_cells, target_index=target_index
    )
    result, handoff = await probe_cell(
        session,
        source,
        place=place,
        options=options,
        last_snapshot=last_snapshot,
        handoff=helpers is not None,
    )
    if options.dry_run is not None and not result.partial and result.error is None:
        dry = await dry_run_cell(session, source, options=options.dry_run)
        result = merge_dry_run(result, dry, source)
        if dry.outcome in ("raised", "clean"):
            return result
    if helpers is None or handoff is None:
        return result
    return await refine_in_helper(
        result, handoff, helpers, source=source, place=place, timeout=options.helper_timeout
    )


async def probe_cell(
    session: KernelSession,
    source: str,
    *,
    place: CellPlace,
    options: CheckOptions,
    last_snapshot: RuntimeSnapshot | None = None,
    handoff: bool = False,
) -> tuple[CheckResult, Handoff | None]:
    """The kernel's verdict, and the hand-off for a helper interpreter when the cell is the
    first to import a library (only asked for with `handoff`, for a kernel on this machine)."""
    skipped = too_long(source)
    if skipped is not None:
        return skipped, None
    started = time.perf_counter()
    try:
        payload = {"source": source, "handoff": handoff and session.on_this_machine}
        reply = await session.run_probe("check", payload, timeout=options.timeout)
    except KernelBusy:
        if not options.static_fallback:
            raise
        inventory, running = await names_while_busy(session, options.timeout)
        result = check_cell_static(source, inventory, last_snapshot, running)
        result.engine = "static"
        result.partial = True  # the kernel was busy: its live objects were not inspected
        result.timings["total_ms"] = (time.perf_counter() - started) * 1000.0
        return result, None
    return _verdict_of(reply, source, place, started)


async def probe_cells(
    session: KernelSession,
    cells: list[tuple[str, CellPlace]],
    *,
    options: CheckOptions,
    handoff: bool = False,
) -> list[tuple[CheckResult, Handoff | None] | None]:
    """The kernel's verdicts on several cells, one probe request per batch instead of one per
    cell (the kernel answers a batch for at most its BATCH_BUDGET_S, then the rest is asked);
    None for a cell whose answer was not a verdict. KernelBusy while a user cell runs, as for
    `probe_cell`."""
    verdicts: dict[int, tuple[CheckResult, Handoff | None] | None] = {}
    asked: list[int] = []
    for position, (source, _) in enumerate(cells):
        skipped = too_long(source)
        if skipped is not None:
            verdicts[position] = (skipped, None)
        else:
            asked.append(position)
    while asked:
        started = time.perf_counter()
        payload = {
            "sources": [cells[position][0] for position in asked],
            "handoff": handoff and session.on_this_machine,
        }
        reply = await session.run_probe("check_many", payload, timeout=options.timeout)
        replies = reply.get("results") if isinstance(reply, dict) else None
        if not isinstance(replies, list) or not replies:
            raise ProbeError("the checker answered a batch without results")
        for position, one in zip(asked, replies):
            source, place = cells[position]
            try:
                verdicts[position] = _verdict_of(one, source, place, started)
            except ProbeError as exc:
                log.info("a cell of the batch was not checked: %s", exc)
                verdicts[position] = None
        asked = asked[len(replies) :]
    return [verdicts[position] for position in range(len(cells))]


def _verdict_of(
    reply: object, source: str, place: CellPlace, started: float
) -> tuple[CheckResult, Handoff | None]:
    """One cell's CheckResult (and hand-off) from the probe's answer for it."""
    if not isinstance(reply, dict) or not isinstance(reply.get("findings"), list):
        raise ProbeError("the checker answered without findings")
    try:
        findings = msgspec.convert(reply["findings"], list[Finding])
    except msgspec.ValidationError as exc:
        raise ProbeError(f"the checker's findings do not match the protocol: {exc}") from exc
    annotate(findings, source, place.executed_cells, place.notebook_cells, place.target_index)
    timings = {"total_ms": (time.perf_counter() - started) * 1000.0}
    if isinstance(reply.get("check_ms"), (int, float)):
        timings["check_ms"] = float(reply["check_ms"])
    count = reply.get("execution_count")
    result = CheckResult(
        crash=any(f.severity == "error" for f in findings),
        findings=findings,
        timings=timings,
        execution_count=count if isinstance(count, int) else None,
        budget_spent=reply.get("budget_spent") is True,
    )
    return result, _handoff(reply.get("handoff"))


async def names_while_busy(
    session: KernelSession, timeout: float
) -> tuple[NameInventory, list[str] | None]:
    """The names a static check judges against while a cell runs, and the running cells'
    code; no names and None (names not judged) when no listing stands for the busy kernel."""
    try:
        return await session.inventory(timeout=timeout), session.pending_code
    except KernelBusy:
        return NameInventory(), None


def _handoff(raw: object) -> Handoff | None:
    """The kernel's hand-off, checked against the protocol (a bad one is dropped)."""
    if raw is None:
        return None
    try:
        return msgspec.convert(raw, Handoff)
    except msgspec.ValidationError as exc:
        log.info("the kernel's hand-off does not match the protocol: %s", exc)
        return None


async def refine_in_helper(
    result: CheckResult,
    handoff: Handoff,
    helpers: HelperPool,
    *,
    source: str,
    place: CellPlace,
    timeout: float,
) -> CheckResult:
    """The verdict with the helper interpreter's walk of the cell: whichever crash comes
    first. The kernel's verdict stands alone when the helper cannot say in time."""
    started = time.perf_counter()
    helped = await _walk_in_helper(helpers, handoff, timeout)
    timings = dict(result.timings)
    timings["helper_ms"] = (time.perf_counter() - started) * 1000.0
    timings["total_ms"] = timings.get("total_ms", 0.0) + timings["helper_ms"]
    if helped is None:
        return msgspec.structs.replace(result, timings=timings)
    found, spent = helped
    annotate(found, source, place.executed_cells, place.notebook_cells, place.target_index)
    findings = _first_crash(result.findings, found)
    return msgspec.structs.replace(
        result,
        findings=findings,
        crash=any(f.severity == "error" for f in findings),
        timings=timings,
        budget_spent=result.budget_spent or spent,
    )


async def _walk_in_helper(
    helpers: HelperPool, handoff: Handoff, timeout: float
) -> tuple[list[Finding], bool] | None:
    """The helper interpreter's findings for a handed-off cell, or None when it cannot say."""
    try:
        reply = await helpers.walk(handoff, timeout=timeout)
        found = msgspec.convert(reply.get("findings"), list[Finding])
    except (HelperError, msgspec.ValidationError) as exc:
        log.debug("helper interpreter: %s", exc)
        return None
    return found, reply.get("budget_spent") is True


def _first_crash(kernel: list[Finding], helper: list[Finding]) -> list[Finding]:
    """The findings of whichever walk crashed first: the run stops at the first crash."""

    def first(findings: list[Finding]) -> tuple[int, int] | None:
        errors = [(f.line, f.column) for f in findings if f.severity == "error"]
        return min(errors) if errors else None

    mine, theirs = first(kernel), first(helper)
    if theirs is None:
        return kernel
    if mine is None or theirs < mine:
        return helper
    return kernel


async def snapshot_for_cell(
    session: KernelSession,
    source: str,
    *,
    categories: tuple[str, ...] = ("S", "V", "R"),
    timeout: float = 5.0,
) -> RuntimeSnapshot:
    """The runtime snapshot of the names the cell reads."""
    from crane_server.analysis.facts import cell_facts

    try:
        facts = cell_facts(source)
        names = sorted({use.name for use in facts.reads_before_binding})
    except SyntaxError:
        names = []
    reply = await session.run_probe(
        "summarise", {"names": names, "categories": list(categories)}, timeout=timeout
    )
    try:
        return msgspec.convert(reply, RuntimeSnapshot)
    except msgspec.ValidationError as exc:
        raise ProbeError(f"the snapshot does not match the protocol: {exc}") from exc
