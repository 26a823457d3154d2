"""The JSONL results store: append, resume, torn lines, retried errors."""

from __future__ import annotations

from pathlib import Path

from crane_server.eval.store import ResultStore
from tests.eval.helpers import row


def test_rows_survive_a_reopen(tmp_path: Path) -> None:
    path = tmp_path / "out" / "results.jsonl"
    store = ResultStore(path)
    first = row("a", "reproduced", True, exception="KeyError", line=2)
    store.append(first)
    store.append(row("a", "fixed", False))
    reopened = ResultStore(path)
    assert reopened.is_done(first.key())
    assert len(reopened.all_rows()) == 2
    assert reopened.rows[first.key()].exception == "KeyError"


def test_torn_last_line_is_skipped_and_next_row_starts_clean(tmp_path: Path) -> None:
    path = tmp_path / "results.jsonl"
    store = ResultStore(path)
    store.append(row("a", "reproduced", True))
    with path.open("ab") as handle:
        handle.write(b'{"case_id": "b", "variant": "repro')  # killed mid-write
    resumed = ResultStore(path)
    assert resumed.skipped_lines == 1
    resumed.append(row("b", "fixed", False))
    again = ResultStore(path)
    assert again.skipped_lines == 1
    assert {r.case_id for r in again.all_rows()} == {"a", "b"}


def test_error_rows_are_done_unless_retried(tmp_path: Path) -> None:
    store = ResultStore(tmp_path / "results.jsonl")
    failed = row("a", "reproduced", None, status="error")
    store.append(failed)
    assert store.is_done(failed.key())
    assert not store.is_done(failed.key(), retry_errors=True)
    store.append(row("a", "reproduced", True))
    assert ResultStore(tmp_path / "results.jsonl").rows[failed.key()].status == "ok"


def test_keys_separate_engines_settings_and_runs(tmp_path: Path) -> None:
    store = ResultStore(tmp_path / "results.jsonl")
    store.append(row("a", "reproduced", True, engine="llm", model="m", setting="code", run=0))
    assert not store.is_done(
        row("a", "reproduced", True, engine="llm", model="m", setting="code", run=1).key()
    )
    assert not store.is_done(
        row("a", "reproduced", True, engine="llm", model="m", setting="runtime", run=0).key()
    )
    assert not store.is_done(row("a", "reproduced", True).key())


def test_transient_model_errors_are_retried(tmp_path: Path) -> None:
    store = ResultStore(tmp_path / "results.jsonl")
    failed = row("a", "reproduced", None, engine="llm", model="m", setting="code", status="error")
    failed.retry = True
    store.append(failed)
    assert not ResultStore(tmp_path / "results.jsonl").is_done(failed.key())
