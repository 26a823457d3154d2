"""`crane-server check NOTEBOOK --ahead`: cells predicted as Run All would run them, with real
kernels; every predicted crash is confirmed by running the notebook for real, and every near
miss runs fine for real."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from crane_server.probe.rules.pandas import SMALL_FILE_BYTES
from tests.checker.test_check_command import crane, notebook
from tests.conftest import RunningKernel

pytestmark = pytest.mark.kernel

IMPORTS = "import pandas as pd\nimport numpy as np"
FRAME = "df = pd.DataFrame({'a': [1.0, 2.0], 'b': [3.0, 4.0]})"
TORCH = "import torch\nfrom torch import nn"

# (id, cells, predicted crash: (code cell from 1, exception, cause cell from 1) or None)
CASES = [
    (
        "dropped-above",
        [IMPORTS, FRAME, "df = df.drop(columns=['b'])", "print(df.shape)", "t = df['b'].sum()"],
        (5, "KeyError", 3),
    ),
    (
        "dropped-other-column",
        [IMPORTS, FRAME, "df = df.drop(columns=['a'])", "print(df.shape)", "t = df['b'].sum()"],
        None,
    ),
    (
        "created-above",  # judged on today's state alone, cell 4 would look like a KeyError
        [IMPORTS, FRAME, "df['c'] = df['a'] * 2", "t = df['c'].mean()"],
        None,
    ),
    (
        "never-fitted",
        [
            IMPORTS + "\nfrom sklearn.linear_model import LinearRegression",
            FRAME,
            "model = LinearRegression()",
            "pred = model.predict(df[['a']])",
        ],
        (4, "NotFittedError", 3),
    ),
    (
        "fitted-above",
        [
            IMPORTS + "\nfrom sklearn.linear_model import LinearRegression",
            FRAME,
            "model = LinearRegression().fit(df[['a']], df['b'])",
            "pred = model.predict(df[['a']])",
        ],
        None,
    ),
    (
        "overwritten-above",
        [IMPORTS, FRAME, "df = df['a']", "t = df['b']"],
        (4, "KeyError", 3),
    ),
    (
        "layer-built-above-too-narrow",
        [
            TORCH,
            "features = torch.zeros(8, 6)",
            "model = nn.Sequential(nn.Linear(4, 16), nn.ReLU(), nn.Linear(16, 1))",
            "out = model(features)",
        ],
        (4, "RuntimeError", 3),
    ),
    (
        "layer-built-above-fits",
        [
            TORCH,
            "features = torch.zeros(8, 6)",
            "model = nn.Sequential(nn.Linear(6, 16), nn.ReLU(), nn.Linear(16, 1))",
            "out = model(features)\nloss = nn.MSELoss()(out, torch.zeros(8, 1))",
        ],
        None,
    ),
    (
        # the function is defined in cell 3 and raises only when cell 4 calls it: the Error
        # is on cell 4, the cell that raises, with the defining cell as the cause
        "function-defined-above-called-below",
        [
            IMPORTS,
            FRAME,
            "def total(frame):\n    return frame['c'].sum()",
            "print(df.shape)\nt = total(df)",
        ],
        (4, "KeyError", 3),
    ),
    (
        "function-defined-above-called-right",
        [IMPORTS, FRAME, "def total(frame):\n    return frame['b'].sum()", "t = total(df)"],
        None,
    ),
    (
        "float64-features-into-a-layer-built-above",
        [TORCH, "x = torch.zeros(8, 3, dtype=torch.float64)", "net = nn.Linear(3, 1)", "net(x)"],
        (4, "RuntimeError", 3),
    ),
]


def run_for_real(kernel: RunningKernel, cells: list[str]) -> tuple[int, str] | None:
    """(code cell from 1, exception name) of the first cell that raises, or None."""
    for number, cell in enumerate(cells, start=1):
        reply = kernel.execute(cell)
        if reply["status"] != "ok":
            return number, reply["ename"]
    return None


@pytest.mark.parametrize(("case_id", "cells", "expected"), CASES, ids=[c[0] for c in CASES])
def test_ahead_prediction_matches_the_real_run(
    case_id: str,
    cells: list[str],
    expected: tuple[int, str, int] | None,
    tmp_path: Path,
    kernel: RunningKernel,
) -> None:
    path = notebook(tmp_path / f"{case_id}.ipynb", *cells)
    done = crane("check", str(path), "--ahead", "--json")
    assert done.returncode == (1 if expected else 0), done.stderr
    report = json.loads(done.stdout)
    assert report["ran"] == 1  # only the import cell ran
    crashes = [
        (r["cell"], f["exception"], f["related_cell"])
        for r in report["results"]
        for f in r["findings"]
        if f["severity"] == "error"
    ]
    real = run_for_real(kernel, cells)
    if expected is None:
        assert crashes == [] and report["stopped_at"] is None
        assert real is None
        return
    cell, exception, cause = expected
    assert crashes == [(cell, exception, cause - 1)]  # related_cell is 0-based in the JSON
    assert report["stopped_at"] == cell
    assert real == (cell, exception)


def test_pending_cells_are_walked_never_run(tmp_path: Path) -> None:
    marker = tmp_path / "ran.txt"
    path = notebook(
        tmp_path / "nb.ipynb",
        IMPORTS,
        f"open({str(marker)!r}, 'w').write('x')",
        FRAME,
        "t = df['missing'].sum()",
    )
    done = crane("check", str(path), "--ahead")
    assert done.returncode == 1, done.stderr
    assert not marker.exists()
    assert "code cell 4, line 1:5: error: KeyError: 'missing'" in done.stdout
    assert "Run All would stop at code cell 4." in done.stdout


def test_a_cell_magic_ends_the_walk_and_says_so(tmp_path: Path) -> None:
    path = notebook(
        tmp_path / "nb.ipynb", IMPORTS, FRAME, "%%bash\necho hi", "t = df['missing'].sum()"
    )
    done = crane("check", str(path), "--ahead", "--json")
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert report["unfollowed"] == 3 and report["stopped_at"] is None


def test_run_n_runs_those_cells_for_real(tmp_path: Path) -> None:
    path = notebook(tmp_path / "nb.ipynb", IMPORTS, FRAME, "t = df['missing'].sum()")
    done = crane("check", str(path), "--ahead", "--run", "2", "--json")
    report = json.loads(done.stdout)
    assert report["ran"] == 2
    assert [r["cell"] for r in report["results"]] == [3]
    bad = crane("check", str(path), "--ahead", "--run", "9")
    assert bad.returncode == 2 and "--run 9" in bad.stderr


def test_a_file_read_above_leaves_the_cells_after_it_silent(tmp_path: Path) -> None:
    # A file over the small-file limit is never read by the walk: what the pending cell loads
    # is unknown, so nothing is claimed below (the real run would raise KeyError here).
    rows = "\n".join(str(i) for i in range(SMALL_FILE_BYTES // 6))
    (tmp_path / "input.csv").write_text(f"x\n{rows}\n", encoding="utf-8")
    assert (tmp_path / "input.csv").stat().st_size > SMALL_FILE_BYTES
    path = notebook(
        tmp_path / "nb.ipynb",
        IMPORTS,
        "data = pd.read_csv('input.csv')",
        "t = data['anything'].sum()",
    )
    done = crane("check", str(path), "--ahead", "--json", "--no-dry-run")
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert [r["findings"] for r in report["results"]] == [[], []]
    # The dry run reads the file for real in its twin and sees the real run's KeyError.
    done = crane("check", str(path), "--ahead", "--json")
    assert done.returncode == 1, done.stderr
    report = json.loads(done.stdout)
    assert report["stopped_at"] == 3
    (finding,) = report["results"][-1]["findings"]
    assert (finding["code"], finding["exception"]) == ("dry-run-exception", "KeyError")
    assert any(
        "code cell 2 (not run in the kernel yet) ran before it" in fact
        for fact in finding["evidence"]["facts"]
    )


def test_a_small_file_read_above_is_read_and_the_crash_below_predicted(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "input.csv").write_text("x;y\n1;2\n3;4\n", encoding="utf-8")
    cells = (IMPORTS, "data = pd.read_csv('input.csv')", "t = data['x'].sum()")
    path = notebook(tmp_path / "nb.ipynb", *cells)
    done = crane("check", str(path), "--ahead", "--json")
    assert done.returncode == 1, done.stderr
    report = json.loads(done.stdout)
    assert report["stopped_at"] == 3
    finding = report["results"][-1]["findings"][0]
    assert finding["exception"] == "KeyError" and "x;y" in finding["message"] + str(
        finding["evidence"]
    )
    # the real run: the separator is ';', so the only column is 'x;y'
    namespace: dict[str, object] = {}
    monkeypatch.chdir(tmp_path)
    exec("\n".join(cells[:2]), namespace)
    with pytest.raises(KeyError):
        exec(cells[2], namespace)


def test_a_library_first_imported_in_a_pending_cell_is_judged_by_the_helper(
    tmp_path: Path, kernel: RunningKernel
) -> None:
    cells = [
        IMPORTS,
        "df = pd.DataFrame({'a': [1.0, np.nan, 3.0], 'b': [3.0, 4.0, 5.0]})",
        "from sklearn.linear_model import LinearRegression",
        "model = LinearRegression().fit(df[['a']], df['b'])",
    ]
    path = notebook(tmp_path / "first-import-ahead.ipynb", *cells)
    done = crane("check", str(path), "--ahead", "--json", "--no-dry-run")  # the walk + helper
    assert done.returncode == 1, done.stderr
    report = json.loads(done.stdout)
    crashes = [
        (r["cell"], f["exception"])
        for r in report["results"]
        for f in r["findings"]
        if f["severity"] == "error"
    ]
    assert crashes == [(4, "ValueError")] and report["stopped_at"] == 4
    assert run_for_real(kernel, cells) == (4, "ValueError")
    # without the helper the walk cannot judge the fit (the kernel never imports scikit-learn)
    done = crane("check", str(path), "--ahead", "--json", "--no-helper", "--no-dry-run")
    assert done.returncode == 0, done.stderr
    # the twin imports scikit-learn itself (joblib set serial before its first import) and
    # sees the fit raise, helper or not
    done = crane("check", str(path), "--ahead", "--json", "--no-helper")
    assert done.returncode == 1, done.stderr
    report = json.loads(done.stdout)
    assert report["stopped_at"] == 4 and report["twin_stopped_at"] is None


def test_a_pending_cause_is_named_as_a_cell_that_has_not_run(tmp_path: Path) -> None:
    path = notebook(
        tmp_path / "nb.ipynb",
        IMPORTS,
        "df = pd.DataFrame({'a': [1, 2], 'b': [3, 4]})",
        "df = df.drop(columns=['b'])",
        "total = df['b'].sum()",
    )
    for flags in ((), ("--no-dry-run",)):
        done = crane("check", str(path), "--ahead", "--json", *flags)
        assert done.returncode == 1, done.stderr
        report = json.loads(done.stdout)
        (finding,) = report["results"][-1]["findings"]
        assert finding["related_cell"] == 2  # the drop, a pending cell
        assert "already ran" not in finding["fix"]
        assert (
            "by code cell 3, which has not run yet (`df = df.drop(columns=['b'])`)"
            in finding["fix"]
        )
        if not flags:
            assert any(f.startswith("confirmed by a dry run") for f in finding["evidence"]["facts"])


def test_a_lookahead_crossing_a_cell_that_writes_a_file_stops_there(
    tmp_path: Path, kernel: RunningKernel
) -> None:
    made_csv = str(tmp_path / "made.csv")
    cells = [
        IMPORTS,
        f"pd.DataFrame({{'a': [1, 2]}}).to_csv({made_csv!r}, index=False)",
        f"made = pd.read_csv({made_csv!r})",
        "total = made['b'].sum()",  # the real run: KeyError, on a file the twin may not write
    ]
    path = notebook(tmp_path / "writes.ipynb", *cells)
    done = crane("check", str(path), "--ahead", "--json")
    report = json.loads(done.stdout)
    # the twin stops at the write (denied by the seal); nothing below is claimed from it
    assert report["twin_stopped_at"] == 2, report
    assert "denies" in report["twin_stop_reason"]
    assert not any(r.get("dry_run") for r in report["results"] if r["cell"] > 2)
    assert not (tmp_path / "made.csv").exists()  # nothing was written by the check
    errors = [(r["cell"], f["code"]) for r in report["results"] for f in r["findings"]]
    assert all(code != "dry-run-exception" for _cell, code in errors), errors
    text = crane("check", str(path), "--ahead")
    assert "the dry run stopped at code cell 2" in text.stdout
    assert run_for_real(kernel, cells) == (4, "KeyError")  # control: the crash is real
