"""Run one job (rules or one model/setting) against a prepared notebook, as a ResultRow."""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import TYPE_CHECKING

from crane_server.eval.cases import Case
from crane_server.eval.plan import Job
from crane_server.protocol import CheckResult, Finding
from crane_server.protocol.eval import ResultRow
from crane_server.protocol.llm import LlmOutcome

if TYPE_CHECKING:
    from crane_server.kernels.helper import HelperPool
    from crane_server.kernels.notebook_run import PreparedCell
    from crane_server.llm.client import LlmClient
    from crane_server.settings import LlmSettings


@dataclass(frozen=True)
class LlmBinding:
    """The resolved settings of one model and the client reused for all its calls."""

    settings: LlmSettings
    client: LlmClient


def base_row(case: Case, variant: str, job: Job) -> ResultRow:
    """A row with the identity of (case, variant, job) and nothing predicted yet."""
    return ResultRow(
        case_id=case.case_id,
        variant="reproduced" if variant == "reproduced" else "fixed",
        engine=job.engine,
        model=job.model,
        setting=job.setting,
        task=job.task,
        run=job.run,
        library=case.library,
        root_cause=case.root_cause,
    )


def error_row(
    case: Case, variant: str, job: Job, message: str, *, retry: bool = False
) -> ResultRow:
    row = base_row(case, variant, job)
    row.status = "error"
    row.error = message
    row.retry = retry
    row.finished_at = time.time()
    return row


def _errors_first(findings: list[Finding]) -> list[Finding]:
    return [f for f in findings if f.severity == "error"]


def row_from_check(row: ResultRow, result: CheckResult, latency_ms: float) -> ResultRow:
    """Fill a rules row from the checker's result: the first error finding is the diagnosis."""
    errors = _errors_first(result.findings)
    if result.error:
        row.status = "error"
        row.error = result.error
    row.crash = bool(result.crash and errors) if result.error is None else None
    if errors:
        row.exception = errors[0].exception
        row.line = errors[0].line
        row.reasoning = errors[0].message
    row.codes = [f.code for f in errors]
    row.budget_spent = result.budget_spent
    row.latency_ms = latency_ms
    row.finished_at = time.time()
    return row


async def run_rules(
    prepared: PreparedCell, case: Case, variant: str, job: Job, helpers: HelperPool | None = None
) -> ResultRow:
    """The rules tier on the prepared kernel (read-only: the state stays for the next job),
    refined by a dry run in a sealed twin when the job's setting is "dry-run"."""
    from crane_server.analysis.engine import CheckOptions, check_cell
    from crane_server.twin import DryRunOptions

    options = CheckOptions(dry_run=DryRunOptions() if job.setting == "dry-run" else None)

    started = time.perf_counter()
    result = await check_cell(
        prepared.session,
        prepared.target_source,
        executed_cells=prepared.executed_sources,
        notebook_cells=prepared.all_sources,
        target_index=prepared.target_index,
        helpers=helpers,
        options=options,
    )
    latency_ms = (time.perf_counter() - started) * 1000
    return row_from_check(base_row(case, variant, job), result, latency_ms)


def row_from_llm(row: ResultRow, outcome: LlmOutcome, latency_ms: float) -> ResultRow:
    """Fill an LLM row from the tier's outcome: the first diagnosis is the predicted crash."""
    verdict = outcome.verdict
    row.crash = bool(verdict.crash)
    row.reasoning = verdict.reasoning or ""
    if verdict.crash and verdict.diagnoses:
        first = verdict.diagnoses[0]
        row.exception = first.exception
        row.line = first.line
        if first.cause and not row.reasoning:
            row.reasoning = first.cause
    row.codes = sorted({f.code for f in outcome.findings})
    row.prompt_tokens = outcome.usage.input_tokens
    row.completion_tokens = outcome.usage.output_tokens
    row.latency_ms = outcome.usage.latency_ms or latency_ms
    row.finished_at = time.time()
    return row


async def run_llm(
    prepared: PreparedCell, case: Case, variant: str, job: Job, binding: LlmBinding
) -> ResultRow:
    """One uncached model call for one setting (the LLM tier reads the snapshot it needs)."""
    from crane_server.llm.engine import check_cell_llm

    started = time.perf_counter()
    outcome = await check_cell_llm(
        prepared.session,
        prepared.target_source,
        executed_cells=prepared.executed_sources,
        snapshot=None,
        rule_findings=[],
        settings=binding.settings,
        setting=job.setting,
        task=job.task,
        client=binding.client,
        cache=None,
    )
    latency_ms = (time.perf_counter() - started) * 1000
    return row_from_llm(base_row(case, variant, job), outcome, latency_ms)
