"""Everything the report shows, computed once from the rows (pure; no I/O)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from itertools import combinations

from crane_server.eval.cases import Case
from crane_server.eval.judge import judge_agreement
from crane_server.eval.metrics import (
    GroupKey,
    Item,
    ItemKey,
    RuleCount,
    Scores,
    Usage,
    breakdown,
    compare,
    group_rows,
    per_run_accuracy,
    rule_counts,
    score,
    usage,
    vote,
)
from crane_server.eval.stats import Agreement, McNemar
from crane_server.protocol.eval import ResultRow


def group_name(key: GroupKey) -> str:
    engine, model, setting, _task = key
    if engine == "rules":
        return "rules"
    return f"{model or 'default'} {setting}".strip()


@dataclass(frozen=True)
class GroupResult:
    key: GroupKey
    name: str
    runs: int
    items: dict[ItemKey, Item]
    scores: Scores
    per_library: dict[str, Scores]
    per_root_cause: dict[str, Scores]
    run_accuracies: list[float]
    usage: Usage
    rules: list[RuleCount]
    errors: int
    latencies: list[float]


@dataclass(frozen=True)
class Comparison:
    first: str
    second: str
    detection: McNemar
    joint: McNemar


@dataclass(frozen=True)
class Analysis:
    cases: int
    rows: int
    groups: list[GroupResult]
    comparisons: list[Comparison]
    agreement: Agreement
    errors: list[tuple[str, str, str]] = field(default_factory=list)  # case, variant, message


def analyse(
    rows: list[ResultRow],
    cases: Mapping[str, Case],
    prices: Mapping[str, tuple[float, float]] | None = None,
) -> Analysis:
    """Votes, scores, breakdowns, usage, rule counts and McNemar tests for every group."""
    groups: list[GroupResult] = []
    for key, members in group_rows(rows).items():
        items = vote(members, cases)
        model = key[1]
        price = (prices or {}).get(model) or (prices or {}).get("*")
        ok = [r for r in members if r.status == "ok"]
        groups.append(
            GroupResult(
                key=key,
                name=group_name(key),
                runs=len({r.run for r in members}),
                items=items,
                scores=score(items.values(), cases),
                per_library=breakdown(items.values(), cases, lambda i: i.library),
                per_root_cause=breakdown(items.values(), cases, lambda i: i.root_cause),
                run_accuracies=per_run_accuracy(ok, cases),
                usage=usage(members, price),
                rules=rule_counts(members, cases) if key[0] == "rules" else [],
                errors=sum(1 for r in members if r.status == "error"),
                latencies=[r.latency_ms for r in ok if r.latency_ms is not None],
            )
        )
    comparisons = [
        Comparison(
            a.name,
            b.name,
            compare(a.items, b.items),
            compare(a.items, b.items, joint=True),
        )
        for a, b in combinations(groups, 2)
    ]
    errors = sorted(
        {(r.case_id, str(r.variant), r.error or "") for r in rows if r.status == "error"}
    )
    return Analysis(
        cases=len({r.case_id for r in rows}),
        rows=len(rows),
        groups=groups,
        comparisons=comparisons,
        agreement=judge_agreement(rows, dict(cases)),
        errors=errors,
    )
