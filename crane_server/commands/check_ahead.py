"""`crane-server check NOTEBOOK --ahead`: predict every code cell as Run All would run it.

A fresh kernel in the notebook's folder runs only the leading import cells (or `--run N`
cells); every later cell is then judged after walking the cells above it in order, never
running them (see `crane_server.analysis.lookahead`). The walk ends at the first predicted
crash, as Run All would.
"""

from __future__ import annotations

import ast
import time
from pathlib import Path

from crane_server.analysis.engine import CheckOptions, check_cell
from crane_server.analysis.lookahead import followable, join_cells, results_by_cell
from crane_server.analysis.merge import merge_dry_run
from crane_server.commands.render import render_result
from crane_server.errors import DocumentError
from crane_server.kernels.helper import HelperPool
from crane_server.kernels.launch import fresh_kernel
from crane_server.kernels.notebook_run import read_code_cells
from crane_server.kernels.outcome import ExecutionOutcome
from crane_server.kernels.session import KernelSession
from crane_server.protocol import CheckResult
from crane_server.protocol.check import AheadReport
from crane_server.twin import DryRunOptions, dry_run_cells

# One budget for the whole run of the pending cells in one twin. Single dry runs took a
# median of 34 ms and a p95 of 1.0 s in the simulation DESIGN.md reports: 10 s covers about
# ten slow cells, and a notebook whose pending cells run longer than that is training
# something, where the checker's walk (which never runs anything) takes over anyway.
AHEAD_BUDGET_S = 10.0

# Line magics that only configure display or extensions: an import cell may hold them.
_QUIET_MAGICS = ("%matplotlib", "%config", "%load_ext", "%autoreload", "%precision")


def is_import_cell(source: str) -> bool:
    """Only imports (and display-configuring magics, comments, docstrings): safe to run."""
    lines = [line for line in source.split("\n") if not line.strip().startswith(_QUIET_MAGICS)]
    try:
        tree = ast.parse("\n".join(lines))
    except SyntaxError:
        return False
    return bool(tree.body) and all(
        isinstance(node, (ast.Import, ast.ImportFrom))
        or (isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant))
        for node in tree.body
    )


def leading_import_cells(sources: list[str]) -> int:
    count = 0
    for source in sources:
        if not is_import_cell(source):
            break
        count += 1
    return count


async def check_ahead(
    path: Path,
    *,
    run_first: int | None = None,
    timeout: float = 120.0,
    check_timeout: float = 30.0,
    helpers: HelperPool | None = None,
    dry_run: DryRunOptions | None = None,
) -> AheadReport:
    """The AheadReport of a notebook (errors of the run become `error`, never a traceback).

    With `helpers`, pending cells that import a library the kernel has not loaded are walked
    again by a helper interpreter (the kernel only ran the first cells, so this is common).
    With `dry_run`, one sealed twin runs the pending cells in order (Run All, seen before it
    happens); what it settles replaces the walk's verdict, up to the first cell it raised on
    or could not vouch for."""
    sources = read_code_cells(path)
    if not sources:
        raise DocumentError(f"{path}: the notebook has no code cells")
    ran = leading_import_cells(sources) if run_first is None else run_first
    if not 0 <= ran <= len(sources):
        raise DocumentError(f"--run {ran}: the notebook has {len(sources)} code cells")
    report = AheadReport(notebook=str(path), ran=ran)
    async with fresh_kernel(path.resolve().parent) as session:
        for position in range(ran):
            outcome = await session.execute(sources[position], timeout=timeout)
            if outcome.status != "ok":
                report.error = _run_failure(outcome, position + 1, ran, timeout)
                return report
        walked: dict[int, str] = {}
        for index in range(ran, len(sources)):
            if not followable(sources[index]):
                report.unfollowed = index + 1
                break
            walked[index] = sources[index]
        results: dict[int, CheckResult] = {}
        joined = join_cells(walked)
        started = time.perf_counter()
        if joined is not None and walked:
            options = CheckOptions(timeout=check_timeout, static_fallback=False)
            checked = await check_cell(session, joined.source, options=options, helpers=helpers)
            labels = {index: f"code cell {index + 1}" for index in walked}
            results = results_by_cell(joined, walked, checked, labels)
        elapsed_ms = (time.perf_counter() - started) * 1000.0
        if dry_run is not None and ran < len(sources):
            results.update(await _run_in_twin(session, sources, ran, results, dry_run, report))
        for index in sorted(results):
            result = results[index]
            result.cell = index + 1
            result.timings["ahead_ms"] = elapsed_ms
            report.results.append(result)
            if result.crash:
                report.stopped_at = index + 1
                report.unfollowed = None
                break
    return report


async def _run_in_twin(
    session: KernelSession,
    sources: list[str],
    ran: int,
    walked: dict[int, CheckResult],
    options: DryRunOptions,
    report: AheadReport,
) -> dict[int, CheckResult]:
    """The pending cells' verdicts the twin settled (clean, or the one that raised); where it
    stopped without a verdict goes on the `report`."""
    settled: dict[int, CheckResult] = {}
    for offset, dry in enumerate(await dry_run_cells(session, sources[ran:], options=options)):
        index = ran + offset
        if dry.outcome not in ("clean", "raised"):
            report.twin_stopped_at = index + 1
            report.twin_stop_reason = dry.reason or dry.outcome
            break
        base = walked.get(index) or CheckResult(crash=False)
        merged = merge_dry_run(base, dry, sources[index])
        if dry.outcome == "raised":
            if index > ran:
                before = (
                    f"code cell {ran + 1}"
                    if index == ran + 1
                    else (f"code cells {ran + 1}-{index}")
                )
                note = f"in the dry run, {before} (not run in the kernel yet) ran before it"
                for finding in merged.findings:
                    if finding.severity == "error":
                        finding.evidence.facts.append(note)
            settled[index] = merged
            break
        settled[index] = merged
    return settled


def render_ahead(report: AheadReport, sources: list[str]) -> str:
    """The text report: what ran, every predicted crash with its cause, where Run All stops."""
    lines = []
    if report.ran:
        which = "code cell 1" if report.ran == 1 else f"code cells 1-{report.ran}"
        lines.append(f"{report.notebook}: ran {which} in a fresh kernel")
    judged = [r.cell for r in report.results if r.cell is not None]
    if judged:
        lines.append(
            f"{report.notebook}: predicted code cells {judged[0]}-{judged[-1]} in order, "
            "without running them"
        )
    for result in report.results:
        if not result.findings or result.cell is None:
            continue
        lines.append(render_result(result, report.notebook, sources[result.cell - 1]))
        causes = sorted({f.related_cell for f in result.findings if f.related_cell is not None})
        for cause in causes:
            first = sources[cause].strip().split("\n")[0]
            lines.append(f"  because of code cell {cause + 1}: {first[:80]}")
    if report.twin_stopped_at is not None and (
        report.stopped_at is None or report.twin_stopped_at <= report.stopped_at
    ):
        lines.append(
            f"the dry run stopped at code cell {report.twin_stopped_at} "
            f"({report.twin_stop_reason}): from there on, predicted without running"
        )
    if report.stopped_at is not None:
        lines.append(f"Run All would stop at code cell {report.stopped_at}.")
    elif report.unfollowed is not None:
        lines.append(
            f"code cell {report.unfollowed} is a cell magic the walk cannot follow: "
            "cells from there on were not predicted"
        )
    else:
        lines.append("no crash predicted for Run All")
    return "\n".join(lines)


def _run_failure(outcome: ExecutionOutcome, number: int, ran: int, timeout: float) -> str:
    """One line on how code cell `number` failed while the first `ran` cells ran."""
    if outcome.status == "timeout":
        detail = f"no answer within {timeout:g} s"
    elif outcome.status == "died":
        detail = (
            f"it ended the kernel: {outcome.evalue}" if outcome.evalue else "it ended the kernel"
        )
    else:
        detail = f"{outcome.ename or 'error'}: {outcome.evalue or ''}".rstrip()
    return f"code cell {number} failed while running the first {ran} cells ({detail})"
