"""One evaluation: load the dataset, run the plan, write results, report and plots."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path
from typing import Any

from crane_server.errors import CraneError
from crane_server.eval.analysis import analyse
from crane_server.eval.cases import Case, load_dataset, select_split
from crane_server.eval.engines import LlmBinding
from crane_server.eval.judge import make_judge
from crane_server.eval.plan import Plan
from crane_server.eval.progress import ProgressBar
from crane_server.eval.report import render_markdown, render_summary
from crane_server.eval.runner import Runner
from crane_server.eval.store import ResultStore
from crane_server.kernels.helper import HelperPool

RESULTS_FILE = "results.jsonl"
REPORT_FILE = "report.md"


def load_cases(
    dataset: Path, out: Path, *, junobench: bool, split: str | None = None
) -> list[Case]:
    if junobench:
        from crane_server.eval.junobench import convert_junobench

        return load_dataset(convert_junobench(dataset, out / "cases"))
    cases = load_dataset(dataset)
    return select_split(cases, dataset, split) if split else cases


@contextlib.asynccontextmanager
async def _judge(plan: Plan) -> AsyncIterator[Callable[[Case, Any], Awaitable[str | None]] | None]:
    """The LLM judge over the LLM tier's client, when --judge-model is given."""
    if not plan.judge_model:
        yield None
        return
    from crane_server.llm.client import LlmClient
    from crane_server.settings import resolve_settings

    client = LlmClient(resolve_settings(model=plan.judge_model))

    async def complete(prompt: str) -> str:
        # The client always asks for a verdict-shaped JSON object: the label goes in `reasoning`.
        system = "Put your one-word-or-two label in the `reasoning` field and set crash to true."
        reply = await client.ask(system, prompt, task="detection")
        return reply.verdict.reasoning

    try:
        yield make_judge(complete)
    finally:
        await client.aclose()


@contextlib.asynccontextmanager
async def _llm_bindings(
    plan: Plan,
) -> AsyncIterator[tuple[str, Callable[[str], LlmBinding] | None]]:
    """(default model name, model -> settings and one reused client) for LLM plans."""
    if not plan.uses_llm:
        yield "", None
        return
    from crane_server.llm.client import LlmClient
    from crane_server.settings import resolve_settings

    default = resolve_settings(model=plan.models[0] if plan.models else None).model
    bindings: dict[str, LlmBinding] = {}

    def binding_for(model: str) -> LlmBinding:
        if model not in bindings:
            settings = resolve_settings(model=model or default)
            bindings[model] = LlmBinding(settings, LlmClient(settings))
        return bindings[model]

    try:
        for model in plan.models or (default,):
            binding_for(model)  # an unconfigured tier fails here, before any kernel starts
        yield default, binding_for
    finally:
        for binding in bindings.values():
            await binding.client.aclose()


async def evaluate(
    dataset: Path,
    out: Path,
    plan: Plan,
    *,
    junobench: bool = False,
    plots: bool = True,
    report_only: bool = False,
    split: str | None = None,
) -> str:
    """Run what is not in `out/results.jsonl` yet, then write the report; return the summary."""
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise CraneError(f"cannot create {out}: {exc}") from exc
    cases = load_cases(dataset, out, junobench=junobench, split=split)
    store = ResultStore(out / RESULTS_FILE)
    if not report_only:
        async with (
            _llm_bindings(plan) as (default_model, binding_for),
            _judge(plan) as judge,
            HelperPool(enabled=plan.helper) as helpers,
        ):
            jobs = plan.job_list(default_model)
            runner = Runner(plan, store, jobs, llm_binding=binding_for, judge=judge)
            runner.helpers = helpers
            runner.progress = ProgressBar(runner.count_pending(cases))
            try:
                await runner.run(cases)
            finally:
                runner.progress.close()
    by_id = {case.case_id: case for case in cases}
    rows = [row for row in store.all_rows() if row.case_id in by_id]
    analysis = analyse(rows, by_id, plan.prices)
    written: list[str] = []
    if plots:
        from crane_server.eval.plots import write_plots

        written = write_plots(analysis, out)
    title = f"crane-server eval: {dataset.name or dataset}"
    report = render_markdown(analysis, title=title, plots=written)
    try:
        (out / REPORT_FILE).write_text(report, encoding="utf-8")
    except OSError as exc:
        raise CraneError(f"cannot write {out / REPORT_FILE}: {exc}") from exc
    return render_summary(analysis)
