"""Run a plan over a dataset: one prepared kernel per notebook variant, every job against it.

Variants run in parallel up to `plan.jobs`; each finished job is appended to the store at
once, so an interrupted run resumes where it stopped and never pays for a finished call.
Anything that goes wrong with one case (missing notebook, failing preceding cell, hung
kernel, model error) becomes an error row for that case and the run goes on.
"""

from __future__ import annotations

import asyncio
import logging
import shutil
import tempfile
import time
from collections.abc import Awaitable, Callable
from contextlib import AsyncExitStack, ExitStack
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from crane_server.errors import CraneError
from crane_server.eval.cases import VARIANTS, Case
from crane_server.eval.engines import LlmBinding, error_row, run_llm, run_rules
from crane_server.eval.plan import Job, Plan
from crane_server.eval.progress import ProgressBar
from crane_server.eval.store import ResultStore, RowKey
from crane_server.protocol.eval import ResultRow

if TYPE_CHECKING:
    from crane_server.kernels.helper import HelperPool
    from crane_server.kernels.notebook_run import PreparedCell

log = logging.getLogger(__name__)

# Kernel start-up and shutdown, on top of the per-cell timeout.
STARTUP_ALLOWANCE = 90.0

Judge = Callable[[Case, ResultRow], Awaitable[str | None]]


def job_key(case: Case, variant: str, job: Job) -> RowKey:
    return (case.case_id, variant, job.engine, job.model, job.setting, job.task, job.run)


@dataclass
class Runner:
    plan: Plan
    store: ResultStore
    jobs: list[Job]
    llm_binding: Callable[[str], LlmBinding] | None = None
    judge: Judge | None = None
    progress: ProgressBar | None = None
    helpers: HelperPool | None = None

    def pending(self, case: Case, variant: str) -> list[Job]:
        return [
            job
            for job in self.jobs
            if not self.store.is_done(
                job_key(case, variant, job), retry_errors=self.plan.retry_errors
            )
        ]

    def count_pending(self, cases: list[Case]) -> int:
        return sum(len(self.pending(case, variant)) for case in cases for variant in VARIANTS)

    async def run(self, cases: list[Case]) -> None:
        semaphore = asyncio.Semaphore(self.plan.jobs)

        async def bounded(case: Case, variant: str) -> None:
            if not self.pending(case, variant):
                return
            async with semaphore:
                await self.run_variant(case, variant)

        await asyncio.gather(*(bounded(c, v) for c in cases for v in VARIANTS))

    def _record(self, row: ResultRow) -> None:
        self.store.append(row)
        if self.progress is not None:
            self.progress.advance(error=row.status == "error")

    def _fail(self, case: Case, variant: str, jobs: list[Job], message: str) -> None:
        for job in jobs:
            self._record(error_row(case, variant, job, message))

    async def run_variant(self, case: Case, variant: str) -> None:
        """Prepare the kernel state of one notebook once, then run every pending job on it."""
        todo = self.pending(case, variant)
        notebook = case.notebook(variant)
        if not notebook.is_file():
            self._fail(case, variant, todo, f"{notebook.name} missing")
            return
        from crane_server.kernels.notebook_run import prepared_notebook, read_code_cells

        started = time.perf_counter()
        remaining = list(todo)
        try:
            async with AsyncExitStack() as stack:
                notebook = _scratch_copy(notebook, stack)
                cm = prepared_notebook(notebook, None, timeout=self.plan.timeout)
                # Each cell is bounded by the timeout already; this only catches a stuck start-up.
                cells = len(read_code_cells(notebook))
                guard = self.plan.timeout * cells + STARTUP_ALLOWANCE
                try:
                    prepared = await asyncio.wait_for(stack.enter_async_context(cm), guard)
                except asyncio.TimeoutError as exc:
                    raise CraneError(f"preparing the kernel took over {guard:.0f} s") from exc
                prepare_ms = (time.perf_counter() - started) * 1000
                if prepared.failed is not None:
                    self._fail(case, variant, remaining, _describe_failure(prepared))
                    return
                await self._warm_up(prepared)
                for job in todo:
                    row = await self._run_job(prepared, case, variant, job)
                    row.prepare_ms = prepare_ms
                    self._record(row)
                    remaining.remove(job)
        except CraneError as exc:
            self._fail(case, variant, remaining, str(exc))
        except Exception as exc:  # a bug must not sink the other cases; it is recorded
            log.exception("case %s/%s failed", case.case_id, variant)
            self._fail(case, variant, remaining, f"{type(exc).__name__}: {exc}")

    async def _warm_up(self, prepared: PreparedCell) -> None:
        """Ship the probe before timing anything, as a long-running server would have."""
        try:
            await prepared.session.run_probe("ping", {}, timeout=self.plan.timeout)
        except CraneError as exc:  # the checks report the problem themselves
            log.debug("probe warm-up failed: %s", exc)

    async def _run_job(
        self, prepared: PreparedCell, case: Case, variant: str, job: Job
    ) -> ResultRow:
        try:
            if job.engine == "rules":
                coro = run_rules(prepared, case, variant, job, self.helpers)
            else:
                if self.llm_binding is None:
                    raise CraneError("the LLM tier is not configured")
                coro = run_llm(prepared, case, variant, job, self.llm_binding(job.model))
            row = await asyncio.wait_for(coro, self.plan.timeout)
        except asyncio.TimeoutError:
            message = f"no answer within {self.plan.timeout:g} s"
            return error_row(case, variant, job, message, retry=job.engine == "llm")
        except CraneError as exc:
            return error_row(case, variant, job, str(exc), retry=job.engine == "llm")
        if self.judge is not None and job.engine == "llm" and row.crash and variant == "reproduced":
            try:
                label = await asyncio.wait_for(self.judge(case, row), self.plan.timeout)
            except (CraneError, asyncio.TimeoutError) as exc:
                log.warning("judge failed on %s: %s", case.case_id, exc)
                label = None
            if label is not None:
                row.judge_label = label  # type: ignore[assignment]
        return row


def _describe_failure(prepared: PreparedCell) -> str:
    """One line for the preceding cell that failed or hung."""
    outcome = prepared.failed
    where = (
        "a preceding cell"
        if prepared.failed_index is None
        else (f"preceding code cell {prepared.failed_index}")
    )
    if outcome is None:
        return f"{where} failed"
    if outcome.status == "timeout":
        return f"{where} did not finish in time (kernel hung)"
    detail = f"{outcome.ename or 'error'}: {outcome.evalue or ''}".rstrip(": ")
    return f"{where} failed: {detail}"


def _scratch_copy(notebook: Path, stack: ExitStack | AsyncExitStack) -> Path:
    """The notebook inside a temporary copy of its case folder, so running it writes nothing into the dataset."""
    scratch = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="crane-eval-")))
    folder = scratch / notebook.parent.name
    shutil.copytree(notebook.parent, folder)
    return folder / notebook.name
