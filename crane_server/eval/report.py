"""Render an Analysis: the Markdown report and the short summary `eval` prints."""

from __future__ import annotations

import statistics
from collections.abc import Sequence

from crane_server.eval.analysis import Analysis, GroupResult
from crane_server.eval.metrics import Scores
from crane_server.eval.stats import Spread


def fmt(value: float | None, digits: int = 3) -> str:
    return "–" if value is None else f"{value:.{digits}f}"


def fmt_ms(value: float | None) -> str:
    if value is None:
        return "–"
    return f"{value:.1f} ms" if value < 1000 else f"{value / 1000:.2f} s"


def fmt_p(value: float) -> str:
    return f"{value:.4f}" if value >= 1e-4 else f"{value:.1e}"


def table(header: Sequence[str], rows: Sequence[Sequence[str]]) -> str:
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(row) + " |" for row in rows]
    return "\n".join(lines)


def _score_cells(scores: Scores, *, joint: bool = True) -> list[str]:
    """Table cells of one Scores; joint columns are blank for detection-only runs."""
    d, j = scores.detection, scores.joint
    return [
        str(d.n),
        fmt(d.accuracy),
        fmt(d.precision),
        fmt(d.recall),
        fmt(d.f1),
        fmt(j.accuracy if joint else None),
        fmt(j.f1 if joint else None),
        _ratio(scores.exception_hits, scores.exception_total),
        _ratio(scores.line_hits, scores.line_total),
    ]


def _ratio(hits: int, total: int) -> str:
    return f"{hits / total:.3f} ({hits}/{total})" if total else "–"


SCORE_HEADER = [
    "items",
    "det. acc",
    "precision",
    "recall",
    "F1",
    "joint acc",
    "joint F1",
    "exception acc",
    "line acc",
]


def _spread_cells(spread: Spread) -> list[str]:
    return [fmt_ms(spread.median), fmt_ms(spread.p95)]


def _tokens(spread: Spread) -> str:
    return "–" if spread.median is None else f"{spread.median:.0f} / {fmt(spread.p95, 0)}"


def render_markdown(analysis: Analysis, *, title: str, plots: Sequence[str] = ()) -> str:
    """The full report: overall, per library, per root cause, rules, McNemar, usage, errors."""
    out = [f"# {title}", ""]
    out.append(
        f"{analysis.cases} cases, {analysis.rows} result rows, "
        f"{len(analysis.errors)} case variants that could not be judged."
    )
    out += [
        "",
        "Detection: the reproduced notebook is a positive, the fixed one a negative; runs are "
        "merged by majority vote. Joint: a crash counts only with a correct diagnosis "
        "(exception type and line where the case gives them, else the LLM judge). "
        "Exception and line accuracy are over detected crashes.",
        "",
        "## Overall",
        "",
        table(
            ["engine / setting", "runs", *SCORE_HEADER],
            [
                [g.name, str(g.runs), *_score_cells(g.scores, joint=_joint(g))]
                for g in analysis.groups
            ],
        ),
    ]
    multi = [g for g in analysis.groups if len(g.run_accuracies) > 1]
    if multi:
        out += ["", "## Spread across runs (detection accuracy)", ""]
        out.append(
            table(
                ["engine / setting", "runs", "mean", "sd", "min", "max"],
                [
                    [
                        g.name,
                        str(len(g.run_accuracies)),
                        fmt(statistics.mean(g.run_accuracies)),
                        fmt(statistics.stdev(g.run_accuracies)),
                        fmt(min(g.run_accuracies)),
                        fmt(max(g.run_accuracies)),
                    ]
                    for g in multi
                ],
            )
        )
    for attribute, heading in (("per_library", "library"), ("per_root_cause", "root cause")):
        sections = [(g, getattr(g, attribute)) for g in analysis.groups if getattr(g, attribute)]
        if not sections:
            continue
        out += ["", f"## Per {heading}", ""]
        for group, breakdown in sections:
            out += [f"### {group.name}", ""]
            out.append(
                table(
                    [heading, *SCORE_HEADER],
                    [
                        [name, *_score_cells(s, joint=_joint(group))]
                        for name, s in breakdown.items()
                    ],
                )
            )
            out.append("")
    out += _rules_section(analysis.groups)
    out += _comparison_section(analysis)
    out += ["", "## Latency, tokens and cost", ""]
    out.append(
        table(
            [
                "engine / setting",
                "latency median",
                "latency p95",
                "prompt tokens median / p95",
                "completion tokens median / p95",
                "cost",
            ],
            [
                [
                    g.name,
                    *_spread_cells(g.usage.latency_ms),
                    _tokens(g.usage.prompt_tokens),
                    _tokens(g.usage.completion_tokens),
                    "–" if g.usage.cost is None else f"${g.usage.cost:.4f}",
                ]
                for g in analysis.groups
            ],
        )
    )
    if analysis.agreement.n:
        out += [
            "",
            "## LLM judge versus automatic labels",
            "",
            f"{analysis.agreement.n} diagnoses labelled both ways: agreement "
            f"{fmt(analysis.agreement.agreement)}, Cohen's kappa {fmt(analysis.agreement.kappa)}.",
        ]
    if analysis.errors:
        out += ["", "## Not judged", ""]
        out.append(table(["case", "variant", "reason"], [list(e) for e in analysis.errors]))
    if plots:
        out += ["", "## Plots", ""]
        out += [f"![{name}]({name})" for name in plots]
    return "\n".join(out) + "\n"


def _joint(group: GroupResult) -> bool:
    """Whether the group's engine was asked for a diagnosis (rules always give one)."""
    return group.key[3] != "detection"


def _rules_section(groups: Sequence[GroupResult]) -> list[str]:
    counted = [g for g in groups if g.rules]
    if not counted:
        return []
    out = ["", "## Per rule", ""]
    for group in counted:
        out += [f"### {group.name}", ""]
        out.append(
            table(
                [
                    "rule",
                    "on reproduced",
                    "on fixed (false alarms)",
                    "precision",
                    "exception right",
                ],
                [
                    [
                        r.code,
                        str(r.on_reproduced),
                        str(r.on_fixed),
                        fmt(r.precision),
                        str(r.exception_right),
                    ]
                    for r in group.rules
                ],
            )
        )
        out.append("")
    return out


def _comparison_section(analysis: Analysis) -> list[str]:
    if not analysis.comparisons:
        return []
    out = ["", "## Exact McNemar tests", ""]
    out.append(
        "b: items only the first gets right, c: only the second; two-sided exact binomial p."
    )
    out.append("")
    out.append(
        table(
            [
                "first",
                "second",
                "paired items",
                "detection b / c",
                "detection p",
                "joint b / c",
                "joint p",
            ],
            [
                [
                    c.first,
                    c.second,
                    str(c.detection.n),
                    f"{c.detection.b} / {c.detection.c}",
                    fmt_p(c.detection.p_value),
                    f"{c.joint.b} / {c.joint.c}",
                    fmt_p(c.joint.p_value),
                ]
                for c in analysis.comparisons
            ],
        )
    )
    return out


def render_summary(analysis: Analysis) -> str:
    """The human summary `eval` prints: per engine/setting, per library, per rule, timing."""
    lines: list[str] = []
    for group in analysis.groups:
        s = group.scores
        d = s.detection
        lines.append(f"{group.name}: {d.n} notebooks ({d.tp + d.fn} crashing, {d.tn + d.fp} fixed)")
        lines.append(
            f"  precision {fmt(d.precision)}  recall {fmt(d.recall)}  F1 {fmt(d.f1)}  "
            f"accuracy {fmt(d.accuracy)}  (TP {d.tp}, FP {d.fp}, TN {d.tn}, FN {d.fn})"
        )
        lines.append(
            f"  joint accuracy {fmt(s.joint.accuracy if _joint(group) else None)}  exception type "
            f"{_ratio(s.exception_hits, s.exception_total)}  line "
            f"{_ratio(s.line_hits, s.line_total)}"
        )
        timing = group.usage.latency_ms
        what = "checker time per cell" if group.key[0] == "rules" else "latency per call"
        spent = (
            f"; time budget ran out on {group.usage.budget_spent} of {timing.n} checks"
            if group.key[0] == "rules"
            else ""
        )
        lines.append(f"  {what}: median {fmt_ms(timing.median)}, p95 {fmt_ms(timing.p95)}{spent}")
        if group.usage.prompt_tokens.n:
            lines.append(
                f"  tokens: prompt median {fmt(group.usage.prompt_tokens.median, 0)}, "
                f"completion median {fmt(group.usage.completion_tokens.median, 0)}"
                + ("" if group.usage.cost is None else f", cost ${group.usage.cost:.4f}")
            )
        for name, lib in group.per_library.items():
            ld = lib.detection
            lines.append(
                f"    {name:<14} P {fmt(ld.precision)}  R {fmt(ld.recall)}  F1 {fmt(ld.f1)}  "
                f"({ld.tp}/{ld.tp + ld.fn} crashes, {ld.fp} false alarms)"
            )
        if group.rules:
            lines.append("  rules fired (reproduced / fixed):")
            lines += [f"    {r.code:<40} {r.on_reproduced} / {r.on_fixed}" for r in group.rules]
    for comparison in analysis.comparisons:
        lines.append(
            f"McNemar {comparison.first} vs {comparison.second}: detection p "
            f"{fmt_p(comparison.detection.p_value)}, joint p {fmt_p(comparison.joint.p_value)}"
        )
    if analysis.errors:
        lines.append(f"not judged ({len(analysis.errors)}):")
        lines += [f"  {case} {variant}: {message}" for case, variant, message in analysis.errors]
    return "\n".join(lines)
