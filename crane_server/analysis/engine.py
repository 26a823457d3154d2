"""The rules tier: ask the kernel-side checker about a cell and refine its findings."""

from __future__ import annotations

import time

import msgspec

from crane_server.analysis.notebook_rules import annotate
from crane_server.analysis.static_rules import check_cell_static
from crane_server.errors import KernelBusy, ProbeError
from crane_server.kernels.session import KernelSession
from crane_server.protocol import CheckResult, Finding, NameInventory, RuntimeSnapshot

__all__ = [
    "MAX_CELL_CHARS",
    "CheckOptions",
    "check_cell",
    "check_cell_static",
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


async def check_cell(
    session: KernelSession,
    source: str,
    *,
    executed_cells: list[str] | None = None,
    notebook_cells: list[str] | None = None,
    target_index: int | None = None,
    options: CheckOptions | None = None,
    last_snapshot: RuntimeSnapshot | None = None,
) -> CheckResult:
    """Rules findings for `source` against the kernel's live state.

    While the kernel runs a cell, falls back to the static checks over the control-channel
    inventory (findings marked `based_on_last_snapshot`).
    """
    skipped = too_long(source)
    if skipped is not None:
        return skipped
    options = options or CheckOptions()
    started = time.perf_counter()
    try:
        reply = await session.run_probe("check", {"source": source}, timeout=options.timeout)
    except KernelBusy:
        if not options.static_fallback:
            raise
        inventory: NameInventory = await session.inventory(timeout=options.timeout)
        result = check_cell_static(source, inventory, last_snapshot, session.pending_code)
        result.engine = "static"
        result.partial = True  # the kernel was busy: its live objects were not inspected
        result.timings["total_ms"] = (time.perf_counter() - started) * 1000.0
        return result
    if not isinstance(reply, dict) or not isinstance(reply.get("findings"), list):
        raise ProbeError("the checker answered without findings")
    try:
        findings = msgspec.convert(reply["findings"], list[Finding])
    except msgspec.ValidationError as exc:
        raise ProbeError(f"the checker's findings do not match the protocol: {exc}") from exc
    annotate(findings, source, executed_cells, notebook_cells, target_index)
    total = (time.perf_counter() - started) * 1000.0
    timings = {"total_ms": total}
    if isinstance(reply.get("check_ms"), (int, float)):
        timings["check_ms"] = float(reply["check_ms"])
    count = reply.get("execution_count")
    return CheckResult(
        crash=any(f.severity == "error" for f in findings),
        findings=findings,
        timings=timings,
        execution_count=count if isinstance(count, int) else None,
        budget_spent=reply.get("budget_spent") is True,
    )


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
