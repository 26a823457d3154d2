"""The LLM tier's part of `crane-server check`: its arguments and one call to run it."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TextIO

import msgspec

from crane_server.errors import LlmError
from crane_server.llm.cache import LlmCache
from crane_server.llm.engine import (
    DEFAULT_CACHE,
    ProbeSession,
    check_cell_llm,
    fetch_snapshot,
    merge_findings,
)
from crane_server.llm.prompts import SETTINGS, TASKS, categories_for, render_prompt
from crane_server.protocol.findings import CheckResult
from crane_server.protocol.llm import LlmOutcome
from crane_server.protocol.snapshot import RuntimeSnapshot
from crane_server.settings import resolve_settings


def add_llm_arguments(parser: argparse.ArgumentParser) -> None:
    """--llm, --model, --setting, --task, --privacy, --show-prompt, --llm-cache."""
    group = parser.add_argument_group("LLM tier")
    group.add_argument("--llm", action="store_true", help="also ask the configured model")
    group.add_argument("--model", default=None, help="model name (overrides the settings)")
    group.add_argument("--setting", choices=SETTINGS, default="runtime", help="prompt setting")
    group.add_argument("--task", choices=TASKS, default="joint", help="detection or joint")
    group.add_argument(
        "--privacy",
        choices=("full", "schema", "types"),
        default=None,
        help="runtime values sent: full, schema (no values), types (type names only)",
    )
    group.add_argument(
        "--show-prompt",
        action="store_true",
        help="print the exact prompt to stderr (without --llm nothing is sent)",
    )
    group.add_argument("--llm-cache", type=Path, default=None, help="on-disk answer cache")


@dataclass
class LlmCheck:
    """The merged result, the model's outcome (None when not asked), and any LLM error."""

    result: CheckResult
    outcome: LlmOutcome | None = None
    prompt: str | None = None
    error: str | None = None


async def run_llm_check(
    session: ProbeSession | None,
    source: str,
    *,
    executed_cells: Sequence[str],
    rule_result: CheckResult,
    args: argparse.Namespace,
    snapshot: RuntimeSnapshot | None = None,
    prompt_stream: TextIO | None = None,
) -> LlmCheck:
    """Run the LLM tier as the check command's arguments say; LLM failures become `error`."""
    ask = bool(getattr(args, "llm", False))
    show = bool(getattr(args, "show_prompt", False))
    if not ask and not show:
        return LlmCheck(result=rule_result)
    settings = resolve_settings(model=args.model, privacy=args.privacy)
    setting, task = args.setting, args.task
    categories = categories_for(setting)
    if categories and snapshot is None and session is not None:
        snapshot = await fetch_snapshot(
            session, source, categories, with_calls=setting == "runtime+doc"
        )
    prompt = None
    if show:
        prompt = render_prompt(
            source,
            executed_cells=executed_cells,
            snapshot=snapshot,
            rule_findings=rule_result.findings,
            setting=setting,
            task=task,
            privacy=settings.privacy,
        )
        print(prompt, end="", file=prompt_stream or sys.stderr)
    if not ask:
        return LlmCheck(result=rule_result, prompt=prompt)
    cache = LlmCache(args.llm_cache) if getattr(args, "llm_cache", None) else DEFAULT_CACHE
    try:
        outcome = await check_cell_llm(
            session,
            source,
            executed_cells=executed_cells,
            snapshot=snapshot,
            rule_findings=rule_result.findings,
            settings=settings,
            setting=setting,
            task=task,
            cache=cache,
        )
    except LlmError as exc:
        failed = msgspec.structs.replace(rule_result, error=f"LLM tier: {exc}")
        return LlmCheck(result=failed, prompt=prompt, error=str(exc))
    timings = {**rule_result.timings, "llm_ms": 0.0 if outcome.cached else outcome.usage.latency_ms}
    merged = msgspec.structs.replace(
        rule_result,
        crash=rule_result.crash or outcome.verdict.crash,
        findings=merge_findings(rule_result.findings, outcome),
        timings=timings,
        engine="rules+llm",
    )
    return LlmCheck(result=merged, outcome=outcome, prompt=prompt)
