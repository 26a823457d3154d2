"""`eval --engine rules` end to end on tiny case folders, with real kernels."""

from __future__ import annotations

import json
from pathlib import Path

import msgspec
import pytest

from crane_server.cli import main
from crane_server.eval.plan import Plan
from crane_server.eval.session import evaluate
from crane_server.protocol.eval import ResultRow
from tests.eval.dataset import bad_cases, missing_column_case, undefined_name_case

pytestmark = [pytest.mark.kernel, pytest.mark.timeout(240)]


def read_rows(path: Path) -> list[ResultRow]:
    decoder = msgspec.json.Decoder(ResultRow)
    return [decoder.decode(line) for line in path.read_bytes().splitlines() if line.strip()]


def test_rules_end_to_end(
    runtime_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    dataset = tmp_path / "dataset"
    undefined_name_case(dataset)
    missing_column_case(dataset)
    out = tmp_path / "out"
    status = main(["eval", str(dataset), "--engine", "rules", "--out", str(out), "--jobs", "2"])
    assert status == 0
    rows = read_rows(out / "results.jsonl")
    assert len(rows) == 4
    assert all(r.status == "ok" and r.engine == "rules" for r in rows), rows
    by_key = {(r.case_id, r.variant): r for r in rows}
    assert by_key[("pandas_column", "reproduced")].crash is True
    assert by_key[("pandas_column", "reproduced")].exception == "KeyError"
    assert by_key[("pandas_column", "reproduced")].line == 2
    assert by_key[("py_undefined", "reproduced")].exception == "NameError"
    assert by_key[("py_undefined", "fixed")].crash is False
    assert by_key[("pandas_column", "fixed")].crash is False
    assert all(r.latency_ms is not None and r.latency_ms > 0 for r in rows)
    printed = capsys.readouterr().out
    assert "precision 1.000  recall 1.000  F1 1.000" in printed
    assert "exception type 1.000 (2/2)  line 1.000 (2/2)" in printed
    assert "checker time per cell: median" in printed
    report = (out / "report.md").read_text()
    assert "| rules | 1 | 4 | 1.000 | 1.000 | 1.000 | 1.000 |" in report
    assert (out / "scores_per_setting.png").is_file()

    # The same verdicts as `crane-server check --json`, notebook by notebook.
    for row in rows:
        notebook = dataset / row.case_id / f"{row.variant}.ipynb"
        code = main(["check", str(notebook), "--json"])
        checked = json.loads(capsys.readouterr().out)
        first = next((f for f in checked["findings"] if f["severity"] == "error"), {})
        assert code == (1 if row.crash else 0)
        assert (checked["crash"], first.get("exception"), first.get("line")) == (
            row.crash,
            row.exception,
            row.line,
        )

    # A second run finds everything done: nothing is re-checked, the report is rebuilt.
    before = (out / "results.jsonl").read_bytes()
    assert main(["eval", str(dataset), "--out", str(out), "--no-plots"]) == 0
    assert (out / "results.jsonl").read_bytes() == before


async def test_bad_cases_are_reported_and_the_run_goes_on(
    runtime_dir: Path, tmp_path: Path
) -> None:
    dataset = tmp_path / "dataset"
    undefined_name_case(dataset)
    bad_cases(dataset)
    out = tmp_path / "out"
    summary = await evaluate(dataset, out, Plan(engine="rules", jobs=2, timeout=5.0), plots=False)
    rows = {(r.case_id, r.variant): r for r in read_rows(out / "results.jsonl")}
    assert len(rows) == 10
    assert rows[("py_undefined", "reproduced")].status == "ok"
    assert rows[("py_undefined", "reproduced")].crash is True
    assert rows[("bad_missing", "reproduced")].status == "ok"
    missing = rows[("bad_missing", "fixed")]
    assert missing.status == "error" and "fixed.ipynb missing" in (missing.error or "")
    for variant in ("reproduced", "fixed"):
        prefix = rows[("bad_prefix", variant)]
        assert prefix.status == "error" and "ZeroDivisionError" in (prefix.error or "")
        hang = rows[("bad_hang", variant)]
        assert hang.status == "error"
        assert hang.error == "preceding code cell 0 did not finish in time (kernel hung)"
    broken = rows[("bad_json", "fixed")]
    assert broken.status == "error" and "not a valid notebook" in (broken.error or "")
    assert rows[("bad_json", "reproduced")].status == "ok"
    assert "not judged (6):" in summary
    assert "bad_prefix reproduced: preceding code cell 0 failed: ZeroDivisionError" in summary
