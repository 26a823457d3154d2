"""`%%crane` / `%%crane_llm`: check a cell body against the live namespace without running it.

Rules first (the in-process checker), then the model when one is configured. Options on
the magic line: `--no-llm`, `--model M` (or a bare model name), `--setting S`,
`--task T`, `--privacy P`, `--show-prompt`.
"""

from __future__ import annotations

import argparse
import asyncio
import concurrent.futures
import shlex
from typing import Any

import msgspec

from crane_server.errors import CraneError
from crane_server.protocol.findings import Finding
from crane_server.protocol.llm import LlmOutcome
from crane_server.protocol.snapshot import RuntimeSnapshot

MAGIC_NAMES = ("crane", "crane_llm")


def register(ipython: Any) -> None:
    """Register the cell magics on an InteractiveShell."""

    def crane(line: str, cell: str) -> None:
        print(check_body(ipython, line, cell))

    for name in MAGIC_NAMES:
        ipython.register_magic_function(crane, magic_kind="cell", magic_name=name)


def parse_line(line: str) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="%%crane", add_help=False, exit_on_error=False)
    parser.add_argument("model_word", nargs="?", default=None)
    parser.add_argument("--no-llm", action="store_true")
    parser.add_argument("--model", default=None)
    parser.add_argument("--setting", default="runtime")
    parser.add_argument("--task", default="joint")
    parser.add_argument("--privacy", default=None)
    parser.add_argument("--show-prompt", action="store_true")
    try:
        return parser.parse_args(shlex.split(line))
    except (argparse.ArgumentError, ValueError, SystemExit) as exc:
        raise CraneError(f"%%crane: cannot read the options {line!r}: {exc}") from exc


def check_body(ipython: Any, line: str, body: str) -> str:
    """The verdict for `body` as text; never raises into the notebook."""
    try:
        options = parse_line(line)
    except CraneError as exc:
        return str(exc)
    report: list[str] = []
    findings = _rule_findings(body, report)
    if findings:
        report.insert(0, "CRANE: crash certain (built-in check)")
        report.extend(_finding_lines(findings))
    else:
        report.insert(0, "CRANE: no certain crash found by the built-in checks")
    if not options.no_llm:
        report.extend(_llm_lines(ipython, body, findings, options))
    return "\n".join(report)


def _rule_findings(body: str, report: list[str]) -> list[Finding]:
    try:
        from crane_server.probe.interpreter import checker

        answer = checker.check_request({"source": body})
        return msgspec.convert(answer.get("findings", []), list[Finding])
    except Exception as exc:  # the checker must never break the user's notebook
        report.append(f"  (built-in check failed: {type(exc).__name__}: {exc})")
        return []


def _llm_lines(
    ipython: Any, body: str, findings: list[Finding], options: argparse.Namespace
) -> list[str]:
    from crane_server.llm.cell_uses import cell_uses
    from crane_server.llm.engine import check_cell_llm
    from crane_server.llm.prompts import categories_for, render_prompt
    from crane_server.settings import resolve_settings

    try:
        settings = resolve_settings(
            model=options.model or options.model_word, privacy=options.privacy
        )
        categories = categories_for(options.setting)
        snapshot = _snapshot(cell_uses(body).probe_names(), categories) if categories else None
        executed = _executed_cells(ipython)
        lines = []
        if options.show_prompt:
            lines.append(
                render_prompt(
                    body,
                    executed_cells=executed,
                    snapshot=snapshot,
                    rule_findings=findings,
                    setting=options.setting,
                    task=options.task,
                    privacy=settings.privacy,
                )
            )
        if not settings.configured:
            lines.append(
                "CRANE-LLM: no model configured (crane_server.set_api_key(...) or "
                "CRANE_LLM_API_KEY); only the built-in checks ran"
            )
            return lines
        coroutine = check_cell_llm(
            None,
            body,
            executed_cells=executed,
            snapshot=snapshot,
            rule_findings=findings,
            settings=settings,
            setting=options.setting,
            task=options.task,
        )
        budget = settings.timeout * (settings.max_retries + 1) + 30
        # The kernel's own event loop is running: the model call gets a loop in a thread.
        with concurrent.futures.ThreadPoolExecutor(max_workers=1) as pool:
            outcome = pool.submit(asyncio.run, coroutine).result(timeout=budget)
    except CraneError as exc:
        return [f"CRANE-LLM: failed: {exc}"]
    except concurrent.futures.TimeoutError:
        return ["CRANE-LLM: failed: no answer in time"]
    return lines + _outcome_lines(outcome)


def _snapshot(names: list[str], categories: tuple[str, ...]) -> RuntimeSnapshot | None:
    try:
        from crane_server.probe.snapshot import summarise

        raw = summarise.summarise_request({"names": names, "categories": list(categories)})
        return msgspec.convert(raw, RuntimeSnapshot)
    except Exception:  # a snapshot is optional; the prompt says it is missing
        return None


def _executed_cells(ipython: Any) -> list[str]:
    history = getattr(getattr(ipython, "history_manager", None), "input_hist_raw", None) or []
    cells = []
    for cell in history:
        text = str(cell).strip()
        if not text or text.startswith(("%%crane", "%load_ext", "%reload_ext")):
            continue
        cells.append(text)
    return cells


def _finding_lines(findings: list[Finding]) -> list[str]:
    lines = []
    for finding in findings:
        lines.append(f"  line {finding.line}: {finding.message}")
        if finding.fix:
            lines.append(f"    fix: {finding.fix}")
    return lines


def _outcome_lines(outcome: LlmOutcome) -> list[str]:
    usage = outcome.usage
    head = "crash predicted" if outcome.verdict.crash else "no crash predicted"
    lines = [f"CRANE-LLM ({usage.model}): {head}" + (" (cached)" if outcome.cached else "")]
    lines.extend(_finding_lines(outcome.findings))
    if outcome.verdict.reasoning:
        lines.append(f"  reasoning: {outcome.verdict.reasoning}")
    lines.append(
        f"  tokens: {usage.input_tokens} in / {usage.output_tokens} out, {usage.latency_ms:.0f} ms"
    )
    return lines
