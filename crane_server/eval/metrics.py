"""Metrics over result rows: detection and joint detection+diagnosis, as in the CRANE-LLM paper.

Every (case, variant) is one item: the reproduced notebook is a positive (it crashes), the
fixed one a negative. Repeated runs are merged by majority vote (a tie counts as "no crash").
Joint task: a reproduced item is a true positive only when the crash is predicted *and* the
diagnosis is `correct`; a predicted crash with a wrong diagnosis counts as a false negative.
Fixed items score exactly as in detection.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass

from crane_server.eval.cases import Case
from crane_server.eval.labels import auto_label, exception_right, line_right
from crane_server.eval.stats import McNemar, Spread, mcnemar_paired
from crane_server.protocol.eval import ResultRow

GroupKey = tuple[str, str, str, str]  # engine, model, setting, task
ItemKey = tuple[str, str]  # case_id, variant


@dataclass(frozen=True)
class Confusion:
    tp: int = 0
    fp: int = 0
    tn: int = 0
    fn: int = 0

    @property
    def n(self) -> int:
        return self.tp + self.fp + self.tn + self.fn

    @property
    def accuracy(self) -> float | None:
        return (self.tp + self.tn) / self.n if self.n else None

    @property
    def precision(self) -> float | None:
        predicted = self.tp + self.fp
        return self.tp / predicted if predicted else None

    @property
    def recall(self) -> float | None:
        actual = self.tp + self.fn
        return self.tp / actual if actual else None

    @property
    def f1(self) -> float | None:
        p, r = self.precision, self.recall
        if p is None or r is None or p + r == 0:
            return None if p is None or r is None else 0.0
        return 2 * p * r / (p + r)


def confusion(pairs: Iterable[tuple[bool, bool]]) -> Confusion:
    """Count (actual crash, predicted crash) pairs."""
    counts = Counter(pairs)
    return Confusion(
        tp=counts[(True, True)],
        fp=counts[(False, True)],
        tn=counts[(False, False)],
        fn=counts[(True, False)],
    )


def row_label(row: ResultRow, case: Case | None) -> str | None:
    """The diagnosis label of a run: automatic where the case allows, else the judge's."""
    if case is not None and case.auto_judgeable:
        return auto_label(case, row.exception, row.line)
    return row.judge_label


@dataclass(frozen=True)
class Item:
    """One (case, variant) after majority vote over its runs."""

    case_id: str
    variant: str
    runs: int
    crash: bool
    joint_hit: bool
    exception: str | None
    line: int | None
    library: str
    root_cause: str | None

    @property
    def actual(self) -> bool:
        return self.variant == "reproduced"

    @property
    def detection_right(self) -> bool:
        return self.crash == self.actual

    @property
    def joint_right(self) -> bool:
        return self.joint_hit if self.actual else not self.crash


def _mode(values: list[object]) -> object | None:
    present = [v for v in values if v is not None]
    return Counter(present).most_common(1)[0][0] if present else None


def vote(rows: list[ResultRow], cases: Mapping[str, Case]) -> dict[ItemKey, Item]:
    """Merge the ok runs of one group into one item per (case, variant) by majority vote."""
    by_item: dict[ItemKey, list[ResultRow]] = defaultdict(list)
    for row in rows:
        if row.status == "ok" and row.crash is not None:
            by_item[(row.case_id, row.variant)].append(row)
    items: dict[ItemKey, Item] = {}
    for (case_id, variant), runs in by_item.items():
        case = cases.get(case_id)
        crashes = [r for r in runs if r.crash]
        hits = sum(1 for r in crashes if row_label(r, case) == "correct")
        exception = _mode([r.exception for r in crashes])
        line = _mode([r.line for r in crashes])
        items[(case_id, variant)] = Item(
            case_id=case_id,
            variant=variant,
            runs=len(runs),
            crash=2 * len(crashes) > len(runs),
            joint_hit=2 * hits > len(runs),
            exception=exception if isinstance(exception, str) else None,
            line=line if isinstance(line, int) else None,
            library=case.library if case else runs[0].library,
            root_cause=case.root_cause if case else runs[0].root_cause,
        )
    return items


@dataclass(frozen=True)
class Scores:
    """Metrics of one group of items."""

    detection: Confusion
    joint: Confusion
    exception_hits: int
    exception_total: int
    line_hits: int
    line_total: int

    @property
    def exception_accuracy(self) -> float | None:
        return self.exception_hits / self.exception_total if self.exception_total else None

    @property
    def line_accuracy(self) -> float | None:
        return self.line_hits / self.line_total if self.line_total else None


def score(items: Iterable[Item], cases: Mapping[str, Case]) -> Scores:
    """Detection and joint confusions; exception and line accuracy over detected crashes."""
    listed = list(items)
    exc_hits = exc_total = line_hits = line_total = 0
    for item in listed:
        case = cases.get(item.case_id)
        if not (item.actual and item.crash and case is not None):
            continue
        type_ok = exception_right(case, item.exception)
        if type_ok is not None:
            exc_total += 1
            exc_hits += type_ok
        line_ok = line_right(case, item.line)
        if line_ok is not None:
            line_total += 1
            line_hits += line_ok
    return Scores(
        detection=confusion((i.actual, i.crash) for i in listed),
        joint=confusion((i.actual, i.joint_hit if i.actual else i.crash) for i in listed),
        exception_hits=exc_hits,
        exception_total=exc_total,
        line_hits=line_hits,
        line_total=line_total,
    )


def group_rows(rows: Iterable[ResultRow]) -> dict[GroupKey, list[ResultRow]]:
    """Rows by (engine, model, setting, task), in first-seen order."""
    groups: dict[GroupKey, list[ResultRow]] = {}
    for row in rows:
        groups.setdefault((row.engine, row.model, row.setting, row.task), []).append(row)
    return groups


def breakdown(
    items: Iterable[Item], cases: Mapping[str, Case], by: Callable[[Item], str | None]
) -> dict[str, Scores]:
    """Scores per value of `by` (library, root cause, ...); items without a value are left out."""
    buckets: dict[str, list[Item]] = defaultdict(list)
    for item in items:
        value = by(item)
        if value:
            buckets[value].append(item)
    return {name: score(bucket, cases) for name, bucket in sorted(buckets.items())}


def per_run_accuracy(rows: list[ResultRow], cases: Mapping[str, Case]) -> list[float]:
    """Detection accuracy of each run separately (to show the spread across runs)."""
    by_run: dict[int, list[ResultRow]] = defaultdict(list)
    for row in rows:
        by_run[row.run].append(row)
    accuracies = []
    for run in sorted(by_run):
        accuracy = score(vote(by_run[run], cases).values(), cases).detection.accuracy
        if accuracy is not None:
            accuracies.append(accuracy)
    return accuracies


@dataclass(frozen=True)
class RuleCount:
    """How often one rule fired on crashing and on fixed notebooks."""

    code: str
    on_reproduced: int
    on_fixed: int
    exception_right: int

    @property
    def precision(self) -> float | None:
        fired = self.on_reproduced + self.on_fixed
        return self.on_reproduced / fired if fired else None


def rule_counts(rows: Iterable[ResultRow], cases: Mapping[str, Case]) -> list[RuleCount]:
    """Per rule code (Finding.code): hits on reproduced, false alarms on fixed."""
    reproduced: Counter[str] = Counter()
    fixed: Counter[str] = Counter()
    right: Counter[str] = Counter()
    for row in rows:
        if row.status != "ok":
            continue
        for code in set(row.codes):
            if row.variant == "reproduced":
                reproduced[code] += 1
                case = cases.get(row.case_id)
                if case is not None and row.codes and row.codes[0] == code:
                    right[code] += bool(exception_right(case, row.exception))
            else:
                fixed[code] += 1
    codes = sorted(set(reproduced) | set(fixed))
    return [RuleCount(c, reproduced[c], fixed[c], right[c]) for c in codes]


def compare(
    first: Mapping[ItemKey, Item], second: Mapping[ItemKey, Item], *, joint: bool = False
) -> McNemar:
    """Exact McNemar test on the items both groups judged."""
    shared = sorted(set(first) & set(second))

    def right(item: Item) -> bool:
        return item.joint_right if joint else item.detection_right

    return mcnemar_paired([right(first[k]) for k in shared], [right(second[k]) for k in shared])


@dataclass(frozen=True)
class Usage:
    """Latency, token and cost statistics of one group."""

    latency_ms: Spread
    prompt_tokens: Spread
    completion_tokens: Spread
    cost: float | None
    budget_spent: int = 0  # rows whose walk stopped at its time budget


def usage(rows: Iterable[ResultRow], price: tuple[float, float] | None = None) -> Usage:
    """Latency and tokens over ok rows; cost from a (input, output) price per 1M tokens."""
    ok = [r for r in rows if r.status == "ok"]
    prompt = [float(r.prompt_tokens) for r in ok if r.prompt_tokens is not None]
    completion = [float(r.completion_tokens) for r in ok if r.completion_tokens is not None]
    cost = None
    if price is not None and (prompt or completion):
        cost = (sum(prompt) * price[0] + sum(completion) * price[1]) / 1_000_000
    return Usage(
        latency_ms=Spread.of([r.latency_ms for r in ok if r.latency_ms is not None]),
        prompt_tokens=Spread.of(prompt),
        completion_tokens=Spread.of(completion),
        cost=cost,
        budget_spent=sum(1 for r in ok if r.budget_spent),
    )
