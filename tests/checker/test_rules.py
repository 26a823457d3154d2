"""Every rule, twice: the checker's prediction, and the real run that confirms it."""

from __future__ import annotations

import os
from typing import Any

import pytest

from crane_server.probe.interpreter.checker import run_checker
from tests.checker.rule_cases import CASES, RuleCase
from tests.checker.rule_harness import assert_prediction, namespace_for, real_exception


@pytest.fixture(autouse=True)
def _in_tmp(tmp_path: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    os.environ.setdefault("MPLBACKEND", "Agg")


@pytest.mark.parametrize("case", [pytest.param(c, id=c.id) for c in CASES])
@pytest.mark.filterwarnings("ignore")
def test_checker_prediction(case: RuleCase) -> None:
    assert_prediction(case)


@pytest.mark.parametrize("case", [pytest.param(c, id=c.id) for c in CASES])
@pytest.mark.filterwarnings("ignore")
def test_real_run_confirms(case: RuleCase) -> None:
    assert real_exception(case) == case.exception


def test_checker_does_not_mutate_namespace_objects(tmp_path: Any) -> None:
    case = CASES[0]
    namespace = namespace_for(RuleCase("m", case.setup, "", None))
    frame = namespace["df"]
    before = frame.copy()
    names = set(namespace)
    cell = (
        "df.drop(columns='Amount', inplace=True)\ndf['new'] = 1\ndel df['City']\n"
        "df.rename(columns={'Class': 'c'}, inplace=True)\nrows = []\nrows.append(1)\ndf.sort_values('c', inplace=True)"
    )
    run_checker(cell, namespace)
    assert namespace["df"] is frame
    assert frame.equals(before) and list(frame.columns) == list(before.columns)
    assert set(namespace) == names


def test_user_functions_given_to_library_methods_are_not_called(tmp_path: Any) -> None:
    case = next(c for c in CASES if c.id == "apply-user-function-not-called")
    namespace = namespace_for(case)
    run_checker(
        case.cell + "\nlabels = df['City'].map(tag)\nparts = df.groupby('City').apply(tag)",
        namespace,
    )
    assert namespace["calls"] == []


def test_small_file_reads_never_block_or_call_anything(tmp_path: Any) -> None:
    """The walk reads only small regular files with plain arguments: a FIFO would block
    forever, and a converter is user code."""
    os.mkfifo("pipe.csv")
    (tmp_path / "ok.csv").write_text("a,b\n1,2\n", encoding="utf-8")
    namespace = namespace_for(RuleCase("r", "import pandas as pd\ncalls = []", "", None))
    namespace["tag"] = lambda value: namespace["calls"].append(value) or value
    cells = [
        "x = pd.read_csv('pipe.csv')\nx['zz']",
        "x = pd.read_csv('ok.csv', converters={'a': tag})\nx['zz']",
        "x = pd.read_csv('ok.csv', chunksize=1)\nx['zz']",
    ]
    for cell in cells:
        findings, errors = run_checker(cell, namespace)
        assert (findings, errors) == ([], []), cell
    assert namespace["calls"] == []
    findings, _ = run_checker("x = pd.read_csv('ok.csv')\nx['zz']", namespace)
    assert findings[0]["exception"] == "KeyError"


def test_a_move_to_a_device_this_kernel_never_used_is_not_followed() -> None:
    """`x.to('cuda')` in a kernel that never used CUDA may itself raise (no GPU): nothing
    after it is claimed, so a later error is never reported in place of the real one."""
    setup = "import torch\nfrom torch import nn\nlayer = nn.Linear(10, 3)\nwide = torch.ones(4, 12)"
    namespace = namespace_for(RuleCase("d", setup, "", None))
    import torch

    assert not torch.cuda.is_initialized()
    for cell in ("out = layer(wide.to('cuda'))", "out = layer(wide.cuda())"):
        assert run_checker(cell, namespace) == ([], []), cell


def test_batch_norm_and_dropout_run_on_shadows_only() -> None:
    """A training-mode batch norm updates running statistics and dropout draws a mask: the
    walk runs both on copies, so the user's model, buffers and RNG stay as they were."""
    case = next(c for c in CASES if c.id == "dropout-batchnorm-forward-ok")
    namespace = namespace_for(case)
    import torch

    net = namespace["net"]
    norm = net.body[1]
    before = (norm.running_mean.clone(), int(norm.num_batches_tracked), net.training)
    rng = torch.get_rng_state()
    cell = "out = net(x)\nnet.eval()\nagain = net(x)\nnet.train()\nthird = net(x).sum()"
    assert run_checker(cell, namespace) == ([], [])
    assert torch.equal(norm.running_mean, before[0])
    assert (int(norm.num_batches_tracked), net.training) == before[1:]
    assert torch.equal(torch.get_rng_state(), rng)


def test_a_walk_that_runs_out_of_time_says_so(monkeypatch: pytest.MonkeyPatch) -> None:
    """The walk stops at its CPU budget: the result says so instead of claiming nothing."""
    from crane_server.probe.interpreter import checker as checker_module
    from crane_server.probe.interpreter.checker import walk_cell

    monkeypatch.setattr(checker_module, "TIME_BUDGET_S", 0.25)
    monkeypatch.setattr(checker_module, "WALL_LIMIT_S", 2.0)
    namespace = namespace_for(
        RuleCase("b", "import numpy as np\na = np.ones((300, 300))", "", None)
    )
    findings, errors, spent = walk_cell("b = a @ a\n" * 2000 + "a[1000]\n", namespace)
    assert (findings, errors, spent) == ([], [], True)
    findings, errors, spent = walk_cell("b = a @ a\na[1000]\n", namespace)
    assert findings[0]["exception"] == "IndexError" and not spent


def test_the_line_of_a_chain_is_the_line_python_reports() -> None:
    import sys
    import traceback

    case = next(c for c in CASES if c.id == "chain-over-lines-reports-method-line")
    namespace = namespace_for(case)
    try:
        exec(compile(case.cell, "<cell>", "exec"), namespace)
    except TypeError as exc:
        frames = [f for f in traceback.extract_tb(exc.__traceback__) if f.filename == "<cell>"]
        real_line = frames[-1].lineno
    else:
        raise AssertionError("the cell ran")
    findings, _ = run_checker(case.cell, namespace_for(case))
    assert findings[0]["line"] == real_line == (4 if sys.version_info >= (3, 11) else 1)


def test_dry_run_fits_a_clone_in_this_process_only() -> None:
    """The user's estimator stays unfitted, the global RNG where it was, no worker starts."""
    import multiprocessing
    import threading

    import numpy as np

    from crane_server.probe.entry import GlobalState

    case = next(c for c in CASES if c.id == "many-trees-and-jobs-fit-ok")
    namespace = namespace_for(case)
    namespace["mine"] = namespace["RandomForestClassifier"](n_estimators=50, n_jobs=-1)
    rng = np.random.get_state()[1].copy()
    threads = threading.active_count()
    state = GlobalState()
    findings, errors = run_checker("mine.fit(X, y)\nout = mine.predict(X)\nout[100]", namespace)
    state.restore()
    assert findings and findings[0]["exception"] == "IndexError"  # the clone's predictions
    assert errors == []
    assert not hasattr(namespace["mine"], "estimators_")
    assert np.array_equal(np.random.get_state()[1], rng)
    assert multiprocessing.active_children() == []
    assert threading.active_count() == threads


def test_item_assignment_never_reaches_the_users_array() -> None:
    case = next(c for c in CASES if c.id == "array-set-row")
    namespace = namespace_for(case)
    grid, counts = namespace["grid"], namespace["counts"]
    run_checker("grid[0] = np.ones(4)\nview = grid[1]\ngrid[1] = 7\ncounts[:] = 3", namespace)
    assert grid.sum() == 0 and counts.tolist() == [0, 1, 2, 3, 4]
    assert namespace["grid"] is grid and "view" not in namespace


def test_scratch_axes_leave_pyplot_alone() -> None:
    case = next(c for c in CASES if c.id == "plot-misspelled-property")
    namespace = namespace_for(case)
    plt = namespace["plt"]
    figures = plt.get_fignums()
    findings, _ = run_checker(case.cell + "\nplt.xlabel('a', colour='k')", namespace)
    assert findings[0]["code"] == "matplotlib-unknown-property"
    assert plt.get_fignums() == figures


def test_boosting_dry_runs_start_no_native_threads() -> None:
    """XGBoost and LightGBM fit on one thread: no OpenMP pool appears in the kernel."""
    case = next(c for c in CASES if c.id == "xgb-numeric-columns")
    namespace = namespace_for(case)
    tasks = len(os.listdir("/proc/self/task"))
    cell = (
        "a = xgb.XGBClassifier(n_estimators=50, n_jobs=4).fit(df[['Amount', 'Class']], labels)\n"
        "b = lgb.LGBMClassifier(n_estimators=50, n_jobs=4, verbose=-1).fit(df[['Amount']], labels)\n"
        "a.predict(df[['Amount', 'Class']])[9]"
    )
    findings, errors = run_checker(cell, namespace)
    assert findings and findings[0]["exception"] == "IndexError" and errors == []
    assert len(os.listdir("/proc/self/task")) == tasks
