"""The analysis, Markdown report, printed summary and plots from a table of rows."""

from __future__ import annotations

from pathlib import Path

from crane_server.eval.analysis import analyse
from crane_server.eval.plots import write_plots
from crane_server.eval.report import render_markdown, render_summary
from tests.eval.helpers import case, row

CASES = {
    c.case_id: c
    for c in (
        case("a", library="pandas", root_cause="API misuse"),
        case("b", library="numpy", exception="ValueError", root_cause="data confusion"),
    )
}


def _rows() -> list:
    rows = [
        row(
            "a",
            "reproduced",
            True,
            exception="KeyError",
            line=2,
            codes=("pandas-missing-column",),
            latency_ms=4.0,
        ),
        row("a", "fixed", False, latency_ms=5.0),
        row("b", "reproduced", False, latency_ms=6.0),
        row("b", "fixed", None, status="error", latency_ms=None),
    ]
    for setting, crash in (("code", False), ("runtime", True)):
        for run in range(3):
            for case_id in ("a", "b"):
                rows.append(
                    row(
                        case_id,
                        "reproduced",
                        crash,
                        engine="llm",
                        model="m",
                        setting=setting,
                        run=run,
                        exception="KeyError" if crash else None,
                        line=2 if crash else None,
                        latency_ms=900.0 + run,
                        prompt_tokens=1200,
                        completion_tokens=80,
                    )
                )
                rows.append(
                    row(
                        case_id,
                        "fixed",
                        False,
                        engine="llm",
                        model="m",
                        setting=setting,
                        run=run,
                        latency_ms=800.0,
                        prompt_tokens=1100,
                        completion_tokens=60,
                    )
                )
    return rows


def test_analysis_groups_and_comparisons() -> None:
    analysis = analyse(_rows(), CASES, {"m": (1.0, 4.0)})
    names = [g.name for g in analysis.groups]
    assert names == ["rules", "m code", "m runtime"]
    rules, code, runtime = analysis.groups
    assert rules.scores.detection.tp == 1 and rules.scores.detection.fn == 1
    assert rules.errors == 1
    assert runtime.scores.detection.recall == 1.0
    assert code.scores.detection.recall == 0.0
    assert runtime.runs == 3 and len(runtime.run_accuracies) == 3
    assert runtime.usage.cost is not None and runtime.usage.cost > 0
    assert len(analysis.comparisons) == 3
    code_vs_runtime = analysis.comparisons[-1]
    assert (code_vs_runtime.detection.b, code_vs_runtime.detection.c) == (0, 2)
    assert analysis.errors == [("b", "fixed", "boom")]


def test_markdown_report_has_every_section() -> None:
    analysis = analyse(_rows(), CASES, {"*": (1.0, 4.0)})
    text = render_markdown(analysis, title="demo", plots=["latency.png"])
    for heading in (
        "# demo",
        "## Overall",
        "## Spread across runs",
        "## Per library",
        "## Per root cause",
        "## Per rule",
        "## Exact McNemar tests",
        "## Latency, tokens and cost",
        "## Not judged",
        "![latency.png]",
    ):
        assert heading in text, heading
    assert "| m runtime | 3 | 4 | 1.000 | 1.000 | 1.000 | 1.000 |" in text
    assert "| m code | 3 | 4 | 0.500 | – | 0.000 |" in text
    assert "pandas-missing-column" in text


def test_summary_lists_scores_rules_and_timing() -> None:
    summary = render_summary(analyse(_rows(), CASES))
    assert "rules: 3 notebooks (2 crashing, 1 fixed)" in summary
    assert "precision 1.000  recall 0.500" in summary
    assert "checker time per cell: median 5.0 ms" in summary
    assert "pandas-missing-column" in summary
    assert "McNemar m code vs m runtime" in summary
    assert "b fixed: boom" in summary


def test_plots_are_png_files(tmp_path: Path) -> None:
    written = write_plots(analyse(_rows(), CASES), tmp_path)
    assert written == ["scores_per_setting.png", "f1_per_library.png", "latency.png"]
    for name in written:
        assert (tmp_path / name).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_empty_analysis_renders() -> None:
    analysis = analyse([], {})
    assert write_plots(analysis, Path("/nonexistent")) == []
    assert "0 cases" in render_markdown(analysis, title="empty")
    assert render_summary(analysis) == ""


async def test_report_only_rebuilds_from_results(tmp_path: Path) -> None:
    from crane_server.eval.plan import Plan
    from crane_server.eval.session import evaluate
    from crane_server.eval.store import ResultStore
    from tests.eval.dataset import missing_column_case

    dataset = tmp_path / "dataset"
    missing_column_case(dataset, "a")
    store = ResultStore(tmp_path / "out" / "results.jsonl")
    store.append(row("a", "reproduced", True, exception="KeyError", line=2, latency_ms=3.0))
    store.append(row("a", "fixed", False, latency_ms=4.0))
    store.append(row("gone", "fixed", True))  # a case no longer in the dataset: left out
    summary = await evaluate(dataset, tmp_path / "out", Plan(), plots=False, report_only=True)
    assert "rules: 2 notebooks (1 crashing, 1 fixed)" in summary
    assert "| rules | 1 | 2 | 1.000 |" in (tmp_path / "out" / "report.md").read_text()
