"""The LLM judge: labels a predicted diagnosis against the case's known crash reason.

Labels, as in the CRANE-LLM paper: `correct` (right crash, right cause), `partially correct`
(right crash, cause incomplete or imprecise), `reasoning wrong` (right crash predicted for a
wrong reason), `wrong` (a different crash).
"""

from __future__ import annotations

import re
from collections.abc import Awaitable, Callable, Iterable

from crane_server.eval.cases import Case
from crane_server.eval.labels import LABELS, auto_label
from crane_server.eval.stats import Agreement, cohen_kappa
from crane_server.protocol.eval import ResultRow

Complete = Callable[[str], Awaitable[str]]

JUDGE_INSTRUCTIONS = """\
You judge a crash diagnosis of a Jupyter notebook cell. The cell really crashes.
Compare the predicted diagnosis with the actual crash and answer with exactly one label:
correct - the predicted exception and its cause match the actual crash;
partially correct - the right crash, but the cause is incomplete or imprecise;
reasoning wrong - a crash is predicted for the right line or exception, for a wrong reason;
wrong - the predicted crash is a different one.
Answer with the label only."""


def judge_prompt(case: Case, row: ResultRow) -> str:
    """The judge's prompt for one predicted crash."""
    actual = [f"Exception: {case.expected_exception or 'unknown'}"]
    if case.crash_line is not None:
        actual.append(f"Line in the target cell: {case.crash_line}")
    actual.append(f"Reason: {case.reason or 'not given'}")
    predicted = [
        f"Exception: {row.exception or 'not given'}",
        f"Line in the target cell: {row.line if row.line is not None else 'not given'}",
        f"Reasoning: {row.reasoning or 'not given'}",
    ]
    return (
        f"{JUDGE_INSTRUCTIONS}\n\nActual crash:\n"
        + "\n".join(actual)
        + "\n\nPredicted diagnosis:\n"
        + "\n".join(predicted)
        + "\n\nLabel:"
    )


_LABEL_PATTERN = re.compile(r"partially\s+correct|reasoning\s+wrong|correct|wrong", re.IGNORECASE)


def parse_label(text: str) -> str | None:
    """The first of the four labels in the judge's answer; None if there is none."""
    match = _LABEL_PATTERN.search(text or "")
    if match is None:
        return None
    label = " ".join(match.group(0).lower().split())
    return label if label in LABELS else None


def make_judge(complete: Complete) -> Callable[[Case, ResultRow], Awaitable[str | None]]:
    """A judge over any text-completion function (the LLM tier's client, or a test double)."""

    async def judge(case: Case, row: ResultRow) -> str | None:
        return parse_label(await complete(judge_prompt(case, row)))

    return judge


def judge_agreement(rows: Iterable[ResultRow], cases: dict[str, Case]) -> Agreement:
    """The judge's agreement with the automatic labels, where a case allows both."""
    auto: list[str] = []
    judged: list[str] = []
    for row in rows:
        case = cases.get(row.case_id)
        if row.judge_label is None or case is None or not case.auto_judgeable:
            continue
        label = auto_label(case, row.exception, row.line)
        if label is not None:
            auto.append(label)
            judged.append(row.judge_label)
    return cohen_kappa(auto, judged)
