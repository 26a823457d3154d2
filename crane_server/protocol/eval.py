"""Evaluation results: one JSONL row per case x variant x engine x model x setting x run."""

from __future__ import annotations

from typing import Literal

import msgspec

Variant = Literal["reproduced", "fixed"]
RowStatus = Literal["ok", "error"]
DiagnosisLabel = Literal["correct", "partially correct", "reasoning wrong", "wrong"]


class ResultRow(msgspec.Struct, kw_only=True, omit_defaults=True):
    """What one engine predicted for one notebook variant of one case, in one run.

    `status="error"` rows record a case that could not be judged (missing notebook, failing
    preceding cell, hung kernel, model error); metrics leave them out and the report lists them.
    `retry` marks a transient failure (a model call that failed) that a re-run tries again.
    `exception` and `line` are the predicted exception type and 1-based target-cell line.
    """

    case_id: str
    variant: Variant
    engine: str
    model: str = ""
    setting: str = ""
    task: str = "detection"
    run: int = 0
    library: str = ""
    root_cause: str | None = None
    status: RowStatus = "ok"
    error: str | None = None
    retry: bool = False
    crash: bool | None = None
    exception: str | None = None
    line: int | None = None
    codes: list[str] = msgspec.field(default_factory=list)
    reasoning: str = ""
    label: DiagnosisLabel | None = None
    label_source: Literal["auto", "judge"] | None = None
    judge_label: DiagnosisLabel | None = None
    latency_ms: float | None = None
    # rules: the checker's walk stopped at its time budget
    budget_spent: bool = False
    prepare_ms: float | None = None
    prompt_tokens: int | None = None
    completion_tokens: int | None = None
    finished_at: float | None = None

    def key(self) -> tuple[str, str, str, str, str, str, int]:
        """The identity a resumed run uses to skip finished work."""
        return (
            self.case_id,
            self.variant,
            self.engine,
            self.model,
            self.setting,
            self.task,
            self.run,
        )
