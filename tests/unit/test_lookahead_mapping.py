"""One walk of the pending cells, mapped back to cells: lines relative to each cell, the
cause named by the cell above that changes the crashing line's names, nothing after the first
predicted crash (Run All stops there)."""

from __future__ import annotations

from crane_server.analysis.lookahead import join_cells, results_by_cell
from crane_server.protocol import CheckResult, Finding

SOURCES = {
    2: "df = df.drop(columns=['b'])",
    3: "n = len(df)\nprint(n)",
    5: "x = 1\ntotal = df['b'].sum()",
    6: "df['c'].mean()",
}


def finding(line: int, severity: str = "error") -> Finding:
    return Finding(
        code="pandas-missing-column",
        exception="KeyError",
        message="KeyError: 'b'",
        line=line,
        end_line=line,
        severity=severity,  # type: ignore[arg-type]
    )


def test_findings_move_to_their_cell_with_the_cause_above() -> None:
    joined = join_cells(SOURCES)
    assert joined is not None and joined.indices == [2, 3, 5, 6]
    # joined lines: 1 = cell 2, 2-3 = cell 3, 4-5 = cell 5, 6 = cell 6
    checked = CheckResult(crash=True, findings=[finding(3, "hint"), finding(5)])
    results = results_by_cell(joined, SOURCES, checked)
    assert sorted(results) == [2, 3, 5]  # cell 6 comes after the crash: no claim about it
    assert results[2].findings == [] and not results[2].crash
    assert [f.line for f in results[3].findings] == [2] and not results[3].crash
    crash = results[5].findings[0]
    assert results[5].crash and (crash.line, crash.end_line) == (2, 2)
    assert crash.related_cell == 2  # the cell that rebinds `df`, not the one that reads it
    assert results[5].cell == 6 and results[5].engine == "rules-ahead"


def test_a_walk_without_a_crash_answers_for_every_cell() -> None:
    joined = join_cells(SOURCES)
    assert joined is not None
    results = results_by_cell(joined, SOURCES, CheckResult(crash=False))
    assert sorted(results) == [2, 3, 5, 6]
    assert not any(r.crash or r.findings for r in results.values())


def test_a_cell_magic_cannot_be_joined() -> None:
    assert join_cells({0: "x = 1", 1: "%%bash\necho hi"}) is None


def test_a_crash_in_a_function_from_a_cell_above_belongs_to_the_calling_cell() -> None:
    sources = {1: "def total(frame):\n    return frame['c'].sum()", 2: "x = 1\nt = total(df)"}
    joined = join_cells(sources)
    assert joined is not None
    # the walk found the crash on joined line 2 (inside `total`), reached from line 4's call
    crash = Finding(
        code="pandas-missing-column",
        exception="KeyError",
        message="KeyError: 'c'",
        line=2,
        end_line=2,
        statement_line=4,
        statement_end_line=4,
    )
    results = results_by_cell(joined, sources, CheckResult(crash=True, findings=[crash]))
    assert results[1].findings == [] and not results[1].crash
    moved = results[2].findings[0]
    assert (moved.line, moved.end_line, moved.related_cell) == (2, 2, 1)
    assert moved.evidence.facts[-1] == ("it raises in code cell 2, line 2: return frame['c'].sum()")


def test_names_built_from_scratch_are_told_from_names_built_on() -> None:
    from crane_server.analysis.facts import names_bound_before_read

    cells = ["df = pd.read_csv('a.csv')", "ahead = ahead.drop(columns=['b'])", "x = df.a", "df = 1"]
    assert names_bound_before_read(cells) == {"df", "x"}
    assert names_bound_before_read(["y = y + 1", "y = 2"]) == set()
    assert names_bound_before_read(["def (:"]) == set()
