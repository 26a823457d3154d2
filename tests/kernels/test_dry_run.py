"""The dry run against real kernels: what only a real run sees, what it must not vouch for,
when it must not run, and what it leaves behind (nothing)."""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
import time
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from crane_server.analysis.engine import CheckOptions, check_cell
from crane_server.kernels.session import KernelSession
from crane_server.twin import DryRunOptions, dry_run_cell
from tests.conftest import RunningKernel
from tests.kernels.conftest import EventQueue, run_cell

pytestmark = pytest.mark.kernel

DRY = CheckOptions(dry_run=DryRunOptions(wall_s=3.0))


@pytest.fixture
async def session(shared_kernel: RunningKernel) -> AsyncIterator[KernelSession]:
    attached = await KernelSession.attach(shared_kernel.connection_file, timeout=10)
    try:
        yield attached
    finally:
        await attached.close()


def _twins_of(kernel: RunningKernel) -> list[tuple[int, str]]:
    """(pid, state) of the kernel process's children that are not zombies."""
    parent = kernel.manager.provisioner.process.pid  # type: ignore[union-attr]
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as stat:
                fields = stat.read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[1]) == parent and fields[0] != "Z":
            found.append((int(entry), fields[0]))
    return found


async def _no_twin_left(kernel: RunningKernel) -> None:
    """The twin is gone within 2 s: SIGKILL was sent, the exit itself (freeing its copy of the
    kernel's memory) takes a moment."""
    deadline = time.monotonic() + 2
    while _twins_of(kernel) and time.monotonic() < deadline:
        await asyncio.sleep(0.01)
    assert _twins_of(kernel) == []


async def test_a_crash_only_a_real_run_sees_is_an_error_on_its_line(
    shared_kernel: RunningKernel, session: KernelSession
) -> None:
    events = EventQueue(session)
    await run_cell(shared_kernel, events, "import json, sqlite3\nraw = \"{'a': 1}\"")
    source = "total = 1\nconfig = json.loads(raw)\nprint(config)"
    result = await check_cell(session, source, options=DRY)
    assert result.dry_run is not None and result.dry_run.outcome == "raised"
    assert result.crash
    (finding,) = [f for f in result.findings if f.severity == "error"]
    assert (finding.exception, finding.line) == ("JSONDecodeError", 2)
    assert "dry run" in finding.message and "double quotes" in finding.message
    # the checker alone does not see it
    alone = await check_cell(session, source)
    assert not alone.crash


async def test_the_twin_draws_the_kernels_random_numbers(
    shared_kernel: RunningKernel, session: KernelSession
) -> None:
    """fork reseeds `random` in the child; the twin puts the kernel's state back."""
    events = EventQueue(session)
    await run_cell(shared_kernel, events, "import random\nrandom.seed(5)")
    dry = await dry_run_cell(session, "assert random.random() == 0.6229016948897019")
    assert dry.outcome == "clean", dry
    # control: the same assertion with another value does raise
    dry = await dry_run_cell(session, "assert random.random() == 0.5")
    assert dry.outcome == "raised" and dry.exception == "AssertionError"


async def test_a_cell_that_writes_a_file_then_crashes_is_unknown(
    shared_kernel: RunningKernel, session: KernelSession, tmp_path: Path
) -> None:
    target = tmp_path / "written.csv"
    source = f"open({str(target)!r}, 'w').write('x')\n[][1]"
    dry = await dry_run_cell(session, source)
    assert dry.outcome == "unknown" and "denies" in (dry.reason or "")
    assert not target.exists()
    # control: the crash after the write is real (a twin of only the crash raises)
    assert (await dry_run_cell(session, "[][1]")).outcome == "raised"


async def test_input_magic_and_exit_are_unknown(session: KernelSession) -> None:
    for source, why in (
        ("name = input('who? ')", "input"),
        ("!ls", "magic"),
        ("%time x = 1", "magic"),
        ("raise SystemExit(0)", "exits"),
    ):
        dry = await dry_run_cell(session, source)
        assert dry.outcome == "unknown" and why in (dry.reason or ""), (source, dry)


async def test_results_are_cached_by_text_and_execution_count(
    shared_kernel: RunningKernel, session: KernelSession
) -> None:
    first = await dry_run_cell(session, "1 / 0")
    again = await dry_run_cell(session, "1 / 0")
    assert (first.cached, again.cached) == (False, True)
    events = EventQueue(session)
    await run_cell(shared_kernel, events, "x_cache = 1")
    assert not (await dry_run_cell(session, "1 / 0")).cached  # a new execution count


async def test_a_busy_kernel_gets_no_twin(
    shared_kernel: RunningKernel, session: KernelSession
) -> None:
    shared_kernel.client.execute("import time\ntime.sleep(1.5)")
    deadline = time.monotonic() + 5
    while session.state != "busy" and time.monotonic() < deadline:
        await asyncio.sleep(0.01)
    dry = await dry_run_cell(session, "1 / 0")
    assert dry.outcome == "unknown" and "busy" in (dry.reason or "")
    assert _twins_of(shared_kernel) == []
    while session.state != "idle" and time.monotonic() < deadline + 5:
        await asyncio.sleep(0.02)


async def test_a_cell_past_the_budget_is_unknown_and_a_real_run_kills_the_twin(
    shared_kernel: RunningKernel, session: KernelSession
) -> None:
    sleeping = asyncio.ensure_future(
        dry_run_cell(session, "import time\ntime.sleep(30)", options=DryRunOptions(wall_s=10))
    )
    deadline = time.monotonic() + 5
    while not _twins_of(shared_kernel) and time.monotonic() < deadline:
        await asyncio.sleep(0.01)
    assert len(_twins_of(shared_kernel)) == 1
    started = time.monotonic()
    reply = shared_kernel.execute("answer = 6 * 7")  # the user runs a cell meanwhile
    assert reply["status"] == "ok"
    assert time.monotonic() - started < 2.0  # the kernel answered (never waited for the twin)
    dry = await asyncio.wait_for(sleeping, 5)
    assert dry.outcome == "unknown" and "real run" in (dry.reason or "")
    await _no_twin_left(shared_kernel)
    deadline = time.monotonic() + 5
    while session.state != "idle" and time.monotonic() < deadline:
        await asyncio.sleep(0.01)  # the reply can reach the test before IOPub's idle
    over = await dry_run_cell(session, "while True:\n    pass", options=DryRunOptions(wall_s=0.5))
    assert over.outcome == "unknown" and "budget" in (over.reason or "")


async def test_a_kernel_with_a_non_fork_safe_runtime_gets_no_twin(
    shared_kernel: RunningKernel, session: KernelSession
) -> None:
    events = EventQueue(session)
    fake = "import sys, types\nsys.modules['polars'] = types.ModuleType('polars')"
    await run_cell(shared_kernel, events, fake)
    try:
        dry = await dry_run_cell(session, "1 / 0")
        assert dry.outcome == "unavailable" and "polars" in (dry.reason or "")
    finally:
        await run_cell(shared_kernel, events, "del sys.modules['polars']")
    assert (await dry_run_cell(session, "1 / 0")).outcome == "raised"


def test_killing_the_daemon_mid_dry_run_leaves_no_twin(
    shared_kernel: RunningKernel, tmp_path: Path
) -> None:
    cell = tmp_path / "spin.py"
    cell.write_text("while True:\n    pass\n")
    daemon = subprocess.Popen(
        [sys.executable, "-m", "crane_server", "check", "--connection-file",
         str(shared_kernel.connection_file), str(cell), "--dry-run-budget", "2"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )  # fmt: skip
    deadline = time.monotonic() + 20
    while not _twins_of(shared_kernel) and time.monotonic() < deadline:
        time.sleep(0.02)
    assert _twins_of(shared_kernel), "the dry run did not start"
    daemon.send_signal(signal.SIGKILL)
    daemon.wait(10)
    deadline = time.monotonic() + 6
    while _twins_of(shared_kernel) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert _twins_of(shared_kernel) == []
    assert shared_kernel.execute("after_kill = 1")["status"] == "ok"


async def test_a_kernel_that_only_imported_pyplot_gets_a_twin(runtime_dir: Path) -> None:
    # The twin switches matplotlib to Agg; a kernel that only imported pyplot (its inline
    # backend) has not loaded Agg yet, and the probe's import guard must not refuse it.
    kernel = RunningKernel(runtime_dir)
    try:
        assert kernel.execute("import matplotlib.pyplot as plt")["status"] == "ok"
        probe = "import sys\nassert 'matplotlib.backends.backend_agg' not in sys.modules"
        assert kernel.execute(probe)["status"] == "ok"  # the case this test is about
        attached = await KernelSession.attach(kernel.connection_file, timeout=10)
        try:
            dry = await dry_run_cell(attached, "plt.plot([1, 2])\nsizes = [1, 2]\nsizes[5]")
        finally:
            await attached.close()
        assert (dry.outcome, dry.exception, dry.line) == ("raised", "IndexError", 3), dry
    finally:
        kernel.shutdown()


async def test_a_first_scikit_learn_import_in_the_twin_is_vouched_for(runtime_dir: Path) -> None:
    # joblib's import-time semaphore probe would be a denied write under /dev/shm: the twin
    # runs joblib serial, so a cell that first imports scikit-learn gets a real verdict.
    kernel = RunningKernel(runtime_dir)
    try:
        setup = "import sys\nimport numpy as np\nassert 'joblib' not in sys.modules"
        assert kernel.execute(setup)["status"] == "ok"  # the case this test is about
        source = (
            "from sklearn.linear_model import LinearRegression\n"
            "model = LinearRegression().fit(np.arange(4.0).reshape(-1, 1), np.arange(4.0))\n"
            "model.predict(np.arange(6.0).reshape(-1, 2))"
        )
        attached = await KernelSession.attach(kernel.connection_file, timeout=10)
        try:
            dry = await dry_run_cell(attached, source, options=DryRunOptions(wall_s=10.0))
        finally:
            await attached.close()
        assert (dry.outcome, dry.exception, dry.line) == ("raised", "ValueError", 3), dry
        # and the kernel itself never imported scikit-learn or joblib
        after = kernel.execute(
            "assert 'joblib' not in sys.modules and 'sklearn' not in sys.modules"
        )
        assert after["status"] == "ok"
    finally:
        kernel.shutdown()


async def test_a_first_torch_optimizer_in_the_twin_is_vouched_for(
    runtime_dir: Path, tmp_path: Path
) -> None:
    # torch's first optimizer imports torch._dynamo, which looks the user up (glibc first
    # tries a unix socket), settles tempfile's folder (a write probe) and makes its cache
    # folder with makedirs(exist_ok=True): each a denied call in the twin, unless answered
    # exactly (the lookup and the folder before the seal, a mkdir of an existing path).
    cache = tmp_path / "inductor-cache"
    cache.mkdir()
    absent = tmp_path / "never-made"
    kernel = RunningKernel(runtime_dir)
    try:
        setup = (
            "import os, sys\nimport torch\n"
            f"os.environ['TORCHINDUCTOR_CACHE_DIR'] = {str(cache)!r}\n"
            "assert 'torch._dynamo' not in sys.modules"
        )
        assert kernel.execute(setup)["status"] == "ok"  # the case this test is about
        source = (
            "layer = torch.nn.Linear(3, 1)\n"
            "optimizer = torch.optim.SGD(layer.parameters(), lr=0.1)\n"
            "layer(torch.ones(2, 4))"
        )
        existing = f"os.makedirs({str(cache)!r}, exist_ok=True)\nos.mkdir({str(cache)!r})"
        attached = await KernelSession.attach(kernel.connection_file, timeout=10)
        try:
            options = DryRunOptions(wall_s=20.0)
            dry = await dry_run_cell(attached, source, options=options)
            assert (dry.outcome, dry.exception, dry.line) == ("raised", "RuntimeError", 3), dry
            # a mkdir of an existing path fails as it would in the kernel, without the call
            dry = await dry_run_cell(attached, existing, options=options)
            assert (dry.outcome, dry.exception, dry.line) == ("raised", "FileExistsError", 2)
            # control: a folder that does not exist is a real mkdir, which the seal denies
            dry = await dry_run_cell(
                attached, f"os.makedirs({str(absent)!r}, exist_ok=True)", options=options
            )
            assert dry.outcome == "unknown", dry
        finally:
            await attached.close()
        assert not absent.exists()
        after = kernel.execute("assert 'torch._dynamo' not in sys.modules")
        assert after["status"] == "ok"  # the kernel never imported what the twin did
    finally:
        kernel.shutdown()


async def test_a_first_tqdm_bar_in_the_twin_is_vouched_for(runtime_dir: Path) -> None:
    # tqdm's first bar makes a multiprocessing lock (a named semaphore, a denied write): the
    # twin takes tqdm's own no-lock path, so a loop over a progress bar gets a verdict.
    kernel = RunningKernel(runtime_dir)
    try:
        setup = (
            "import numpy as np\nfrom tqdm import tqdm\nimport tqdm.std as tqdm_std\n"
            "assert not hasattr(tqdm_std.TqdmDefaultWriteLock, 'mp_lock')"
        )
        assert kernel.execute(setup)["status"] == "ok"  # no bar yet: the case of this test
        source = "rows = [np.zeros(3) for _ in tqdm(range(4))]\nnp.stack(rows).reshape(5, 2)"
        attached = await KernelSession.attach(kernel.connection_file, timeout=10)
        try:
            dry = await dry_run_cell(attached, source, options=DryRunOptions(wall_s=10.0))
        finally:
            await attached.close()
        assert (dry.outcome, dry.exception, dry.line) == ("raised", "ValueError", 2), dry
        # the kernel's tqdm is as it was: no lock made, none set aside
        after = kernel.execute("assert not hasattr(tqdm_std.TqdmDefaultWriteLock, 'mp_lock')")
        assert after["status"] == "ok"
    finally:
        kernel.shutdown()


async def test_keras_shape_errors_are_seen_once_tensorflow_ran(runtime_dir: Path) -> None:
    # Once TensorFlow ran an op in the kernel, a forked copy hangs on work for its thread
    # pools (a valid predict): the budget ends it, unknown. Keras checks shapes in Python
    # first, so the crash a user meets most (a wrong input shape) is seen, on its line.
    kernel = RunningKernel(runtime_dir)
    try:
        setup = (
            "import numpy as np\nimport tensorflow as tf\n"
            "model = tf.keras.Sequential([tf.keras.Input((3,)), tf.keras.layers.Dense(2)])\n"
            "model.compile(optimizer='adam', loss='mse')\nmodel(np.zeros((1, 3)))"
        )
        assert kernel.execute(setup, timeout=120)["status"] == "ok"
        attached = await KernelSession.attach(kernel.connection_file, timeout=10)
        try:
            wrong = "batch = np.zeros((2, 4))\nmodel.predict(batch, verbose=0)"
            dry = await dry_run_cell(attached, wrong, options=DryRunOptions(wall_s=10.0))
            assert (dry.outcome, dry.exception, dry.line) == ("raised", "ValueError", 2), dry
            # control: a valid predict needs TensorFlow's pools (measured here: it never ends
            # in the twin, unknown at the budget); it is never a crash on its own line
            right = "model.predict(np.zeros((2, 3)), verbose=0)\n1 / 0"
            dry = await dry_run_cell(attached, right, options=DryRunOptions(wall_s=2.0))
            assert dry.outcome == "unknown" or (dry.exception, dry.line) == (
                "ZeroDivisionError",
                2,
            ), dry
        finally:
            await attached.close()
    finally:
        kernel.shutdown()


async def test_dask_computes_in_the_twin_on_its_synchronous_scheduler(runtime_dir: Path) -> None:
    # Once a compute ran in the kernel, Dask's threaded scheduler holds a pool whose threads a
    # fork does not copy: the twin computes on the synchronous scheduler instead, and sees the
    # crashes only a compute meets (a value that does not convert), on their lines.
    kernel = RunningKernel(runtime_dir)
    try:
        setup = (
            "import numpy as np, pandas as pd, dask, dask.dataframe as dd\n"
            "ddf = dd.from_pandas(pd.DataFrame({'a': np.arange(100.0), 'b': ['x'] * 100}),"
            " npartitions=4)\n"
            "total = ddf.a.sum().compute()"
        )
        assert kernel.execute(setup, timeout=120)["status"] == "ok"
        attached = await KernelSession.attach(kernel.connection_file, timeout=10)
        try:
            cells = {
                "ddf.b.astype(float).sum().compute()": ("raised", "ValueError", 1),
                "mean = ddf.a.mean().compute()\nmean / 0 if mean > 1e9 else 1 / 0": (
                    "raised",
                    "ZeroDivisionError",
                    2,
                ),
                "ddf['missing']": ("raised", "KeyError", 1),
                "ddf.a.max().compute()": ("clean", None, None),
            }
            for cell, expected in cells.items():
                dry = await dry_run_cell(attached, cell, options=DryRunOptions(wall_s=10.0))
                assert (dry.outcome, dry.exception, dry.line) == expected, (cell, dry)
            # control: the threaded scheduler asked for by name waits for its lost threads
            threads = "ddf.a.sum().compute(scheduler='threads')\n1 / 0"
            dry = await dry_run_cell(attached, threads, options=DryRunOptions(wall_s=2.0))
            assert dry.outcome == "unknown", dry
        finally:
            await attached.close()
        # the kernel's own scheduler setting is untouched
        probe = "assert dask.config.get('scheduler', None) is None"
        assert kernel.execute(probe)["status"] == "ok"
    finally:
        kernel.shutdown()


async def test_a_kernel_with_polars_loaded_gets_no_twin(runtime_dir: Path) -> None:
    # polars' thread pool does not survive a fork: no twin, and the reason says why
    kernel = RunningKernel(runtime_dir)
    try:
        assert kernel.execute("import polars as pl")["status"] == "ok"
        attached = await KernelSession.attach(kernel.connection_file, timeout=10)
        try:
            dry = await dry_run_cell(attached, "pl.DataFrame({'a': [1]})['b']")
        finally:
            await attached.close()
        assert dry.outcome == "unavailable" and "polars" in (dry.reason or ""), dry
    finally:
        kernel.shutdown()


async def test_a_real_run_that_began_before_the_twin_was_known_still_ends_it(
    shared_kernel: RunningKernel, session: KernelSession
) -> None:
    # The user's cell reaches the kernel just before the twin's start request: the kernel
    # forks only after the cell ended, and its busy notice came before the twin's pid was
    # known. That run still ends the twin at once, not at the end of its 10 s budget.
    deadline = time.monotonic() + 5
    while session.state != "idle" and time.monotonic() < deadline:
        await asyncio.sleep(0.01)
    msg_id = shared_kernel.client.execute("import time\ntime.sleep(1)")
    started = time.monotonic()
    dry = await dry_run_cell(session, "while True:\n    pass", options=DryRunOptions(wall_s=10))
    elapsed = time.monotonic() - started
    assert dry.outcome == "unknown" and "real run" in (dry.reason or ""), dry
    assert elapsed < 6.0, elapsed  # the budget would be 10 s
    await _no_twin_left(shared_kernel)
    while shared_kernel.client.get_shell_msg(timeout=10)["parent_header"]["msg_id"] != msg_id:
        pass
