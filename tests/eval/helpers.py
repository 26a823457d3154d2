"""Builders of cases and result rows for the eval tests."""

from __future__ import annotations

from pathlib import Path

from crane_server.eval.cases import Case
from crane_server.protocol.eval import ResultRow


def case(
    case_id: str,
    library: str = "pandas",
    exception: str | None = "KeyError",
    lines: tuple[int, ...] = (2,),
    root_cause: str | None = None,
    reason: str = "",
) -> Case:
    return Case(
        case_id=case_id,
        folder=Path("/nonexistent") / case_id,
        library=library,
        expected_exception=exception,
        crash_line=lines[-1] if lines else None,
        crash_lines=lines,
        reason=reason,
        root_cause=root_cause,
    )


def row(
    case_id: str,
    variant: str,
    crash: bool | None,
    *,
    engine: str = "rules",
    model: str = "",
    setting: str = "",
    run: int = 0,
    exception: str | None = None,
    line: int | None = None,
    codes: tuple[str, ...] = (),
    status: str = "ok",
    latency_ms: float | None = 1.0,
    judge_label: str | None = None,
    prompt_tokens: int | None = None,
    completion_tokens: int | None = None,
) -> ResultRow:
    return ResultRow(
        case_id=case_id,
        variant=variant,  # type: ignore[arg-type]
        engine=engine,
        model=model,
        setting=setting,
        task="joint" if engine == "llm" else "",
        run=run,
        crash=crash,
        exception=exception,
        line=line,
        codes=list(codes),
        status=status,  # type: ignore[arg-type]
        error="boom" if status == "error" else None,
        latency_ms=latency_ms,
        judge_label=judge_label,  # type: ignore[arg-type]
        prompt_tokens=prompt_tokens,
        completion_tokens=completion_tokens,
    )
