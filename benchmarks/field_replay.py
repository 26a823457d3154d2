"""Field replay: real public notebooks and example scripts not written for crane, run for real.

For each notebook (a temporary copy of its project's vendored folder, so files the notebook
reads sit beside it and files it writes land outside the repository):

1. Before anything runs: the lookahead predictions for every code cell, through the path of
   `crane-server check NOTEBOOK --ahead` (`crane_server.commands.check_ahead.check_ahead`: a
   fresh kernel in the notebook's folder runs the leading import cells, every later cell is
   walked in order without running it).
2. Then, on another fresh kernel in the same folder, cell by cell: the cell is judged just
   before it runs through the engine path the language server uses (`check_cell` with the
   notebook context, then `to_diagnostic` for the severity the editor shows), the kernel's
   execution count, user names, `In` history, `Out` keys and `_`/`__`/`___` are read silently
   before and after that check (the "no trace" fingerprint of tests/probe/kernel_probe.py),
   then the cell runs and its outcome is recorded.

Kernels run with ipykernel's own matplotlib backend (inline), as in Jupyter: figures are
shown and closed at the end of each cell. (Under Agg they stayed open, so a notebook's later
`plt.axis(...)` drew into an earlier cell's 3-D axes and crashed where no user's would.)

Counted: false alarms (an Error on a cell that then ran fine), hits (an Error on a cell that
then raised that exception type), Errors of another type on a crashing cell, misses (a crash
with no Error), tool errors (the check raised, answered with an error or timed out),
lookahead Errors on cells that then ran fine, and checks that changed the kernel.

Sources (tests/field/SOURCES.md): files vendored under tests/field/vendor/ with their
licenses, plus HoloViews' example notebooks shipped inside the installed `holoviews` package.
Scripts are cut into cells at `# %%` markers or sphinx-gallery `####...` comment lines;
Markdown notebooks (MyST `{code-cell}` or fenced ```python blocks) at their code blocks.

    python benchmarks/field_replay.py [--limit N] [--only TEXT] [--json out.json]
        [--markdown docs/measured.md] [--quick]

`--quick` (CI): the two short sources of QUICK (numpy and PyTorch, vendored, one with crashes),
the table written into a temporary copy of docs/measured.md (never the page itself); exit
status 1 on a tool error, a kernel change, a run a check changed or a notebook not measured,
never on times.
"""

from __future__ import annotations

import argparse
import ast
import asyncio
import contextlib
import dataclasses
import json
import os
import re
import shutil
import sys
import tempfile
import time
import uuid
from collections.abc import AsyncIterator, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import nbformat

REPO = Path(__file__).resolve().parents[1]
for _path in (REPO, REPO / "benchmarks"):
    if str(_path) not in sys.path:
        sys.path.insert(0, str(_path))

from measured_page import check_written, quick_page, write_between_markers  # noqa: E402

from crane_server.analysis.engine import CheckOptions, check_cell  # noqa: E402
from crane_server.twin import DryRunOptions  # noqa: E402

# `--dry-run`: each cell is also run in a sealed twin before it really runs (what the
# language server does once a cell of the notebook ran): its false alarms are counted too.
DRY_RUN: list[DryRunOptions | None] = [None]
from ahead_eval import WRITES_A_FILE  # noqa: E402

from crane_server.commands.check_ahead import AHEAD_BUDGET_S, check_ahead  # noqa: E402
from crane_server.documents import Cell, CellDocument  # noqa: E402
from crane_server.documents.notebook import CellSource, notebook_document  # noqa: E402
from crane_server.errors import CraneError  # noqa: E402
from crane_server.kernels.helper import HelperPool  # noqa: E402
from crane_server.kernels.notebook_run import read_code_cells  # noqa: E402
from crane_server.kernels.session import KernelSession  # noqa: E402
from crane_server.lsp.diagnostics import to_diagnostic  # noqa: E402
from tests.probe.kernel_probe import FINGERPRINT  # noqa: E402

ERROR = 1  # lsprotocol DiagnosticSeverity.Error
CELL_TIMEOUT = 120.0
CHECK_TIMEOUT = 15.0
AHEAD_TIMEOUT = 300.0
VENDOR = REPO / "tests" / "field" / "vendor"
#: Folders of the installed holoviews package's examples, in the order they are used.
HOLOVIEWS_FOLDERS = (
    "reference/elements/matplotlib",
    "reference/containers/matplotlib",
    "gallery/demos/matplotlib",
)
#: How many HoloViews notebooks the full replay takes (the first ones, in folder order).
HOLOVIEWS_COUNT = 40
#: The sources of `--quick`: short, vendored, no download; the second crashes for real.
QUICK = (
    "numpy-tutorials/content/save-load-arrays.md",
    "pytorch-deep-learning/extras/pytorch_most_common_errors.ipynb",
)
#: What a check may not change in the kernel (fields of the fingerprint).
WATCHED = ("names", "count", "in", "out", "underscores")


@dataclass(frozen=True)
class Source:
    """One notebook or script of the replay.

    `path` is relative to tests/field/vendor/ (its first part is the project folder), or
    `holoviews:<folder>/<name>.ipynb` for a notebook inside the installed package. `stop`
    keeps only the code cells before that index (among non-empty code cells: the rest
    downloads data or needs a package that is not installed); `skip` drops single cells
    (one that downloads data, named in tests/field/SOURCES.md).
    """

    path: str
    library: str
    stop: int | None = None
    skip: tuple[int, ...] = ()

    @property
    def project(self) -> str:
        return "holoviews" if self.path.startswith("holoviews:") else self.path.split("/")[0]


SOURCES: tuple[Source, ...] = (
    # pandas
    Source("handson-mlp/tools_pandas.ipynb", "pandas", skip=(132,)),
    Source("100-pandas-puzzles/100-pandas-puzzles-with-solutions.ipynb", "pandas"),
    # numpy
    Source("handson-mlp/tools_numpy.ipynb", "numpy"),
    Source("handson-mlp/math_linear_algebra.ipynb", "numpy"),
    Source("handson-mlp/extra_autodiff.ipynb", "numpy"),
    Source("numpy-100/100_Numpy_exercises_with_solutions.md", "numpy"),
    Source("numpy-tutorials/content/tutorial-static_equilibrium.md", "numpy"),
    Source("numpy-tutorials/content/tutorial-plotting-fractals.md", "numpy"),
    Source("numpy-tutorials/content/mooreslaw-tutorial.md", "numpy"),
    Source("numpy-tutorials/content/save-load-arrays.md", "numpy"),
    Source("numpy-tutorials/content/tutorial-ma.md", "numpy"),
    Source("numpy-tutorials/content/tutorial-air-quality-analysis.md", "numpy"),
    # scikit-learn
    Source("handson-mlp/04_training_linear_models.ipynb", "scikit-learn"),
    Source("handson-mlp/05_decision_trees.ipynb", "scikit-learn"),
    Source("handson-mlp/06_ensemble_learning_and_random_forests.ipynb", "scikit-learn", stop=21),
    Source("handson-ml3/05_support_vector_machines.ipynb", "scikit-learn", stop=50),
    Source("handson-ml3/09_unsupervised_learning.ipynb", "scikit-learn", stop=31),
    Source("handson-ml3/extra_gradient_descent_comparison.ipynb", "scikit-learn"),
    # PyTorch
    Source("handson-mlp/10_neural_nets_with_pytorch.ipynb", "pytorch", stop=36),
    Source("handson-mlp/11_training_deep_neural_networks.ipynb", "pytorch", stop=23),
    Source("pytorch-deep-learning/00_pytorch_fundamentals.ipynb", "pytorch"),
    Source("pytorch-deep-learning/01_pytorch_workflow.ipynb", "pytorch"),
    Source("pytorch-deep-learning/02_pytorch_classification.ipynb", "pytorch", stop=20),
    Source(
        "pytorch-deep-learning/extras/solutions/00_pytorch_fundamentals_exercise_solutions.ipynb",
        "pytorch",
    ),
    Source(
        "pytorch-deep-learning/extras/solutions/01_pytorch_workflow_exercise_solutions.ipynb",
        "pytorch",
    ),
    Source(
        "pytorch-deep-learning/extras/solutions/02_pytorch_classification_exercise_solutions.ipynb",
        "pytorch",
        stop=10,
    ),
    Source("pytorch-deep-learning/extras/pytorch_most_common_errors.ipynb", "pytorch", stop=6),
    # matplotlib / seaborn
    Source("handson-mlp/tools_matplotlib.ipynb", "matplotlib"),
    *(
        Source(f"seaborn/examples/{name}.py", "seaborn")
        for name in (
            "hexbin_marginals",
            "kde_ridgeplot",
            "layered_bivariate_plot",
            "many_facets",
            "many_pairwise_correlations",
            "palette_choices",
            "palette_generation",
            "radial_facets",
            "residplot",
            "wide_data_lineplot",
        )
    ),
    # statsmodels (not its own example notebooks: those are kept aside)
    *(
        Source(f"time-series-forecasting/{name}.ipynb", "statsmodels")
        for name in (
            "CH02/CH02",
            "CH03/CH03",
            "CH04/CH04",
            "CH05/CH05",
            "CH07/CH07",
            "CH08/CH08",
            "CH09/CH09",
            "CH11/CH11",
            "CH03/CH03_exercises_solution",
            "CH04/CH04_exercises_solution",
            "CH05/CH05_exercises_solution",
            "CH07/CH07_exercises_solution",
            "CH08/CH08_exercises_solution",
            "CH09/CH09_exercises_solution",
        )
    ),
    # boosting
    Source("xgboost/demo/guide-python/sklearn_evals_result.py", "boosting"),
    Source("xgboost/demo/guide-python/cat_pipeline.py", "boosting"),
    Source("xgboost/demo/guide-python/continuation.py", "boosting"),
    Source("lightgbm/examples/python-guide/logistic_regression.py", "boosting"),
    Source("lightgbm/examples/python-guide/notebooks/interactive_plot_example.ipynb", "boosting"),
)


def holoviews_sources(count: int | None = HOLOVIEWS_COUNT) -> list[Source]:
    """The first `count` example notebooks shipped inside the installed holoviews package."""
    import holoviews

    root = Path(holoviews.__file__).parent / "examples"
    found = [
        Source(f"holoviews:{path.relative_to(root)}", "holoviews")
        for folder in HOLOVIEWS_FOLDERS
        for path in sorted((root / folder).glob("*.ipynb"))
    ]
    return found[:count] if count else found


def all_sources() -> list[Source]:
    return [*SOURCES, *holoviews_sources()]


# ------------------------------------------------------------------------------ cells

_PERCENT = re.compile(r"^# ?%%")
_GALLERY = re.compile(r"^#{10,}\s*$")
_FENCE = re.compile(r"^(`{3,}|~{3,})\s*(\{code-cell\}|python3?|ipython3?)(?:\s.*)?$")


def script_cells(text: str) -> list[str]:
    """A script cut at `# %%` markers, else at sphinx-gallery `####...` comment lines."""
    lines = text.split("\n")
    marker = _PERCENT if any(_PERCENT.match(line) for line in lines) else _GALLERY
    cells: list[list[str]] = [[]]
    for line in lines:
        if marker.match(line):
            cells.append([])
        cells[-1].append(line)
    return [_strip_comment_only("\n".join(cell)) for cell in cells]


def _strip_comment_only(source: str) -> str:
    """'' for a cell of comments and blank lines only (a text block of the gallery)."""
    if all(not line.strip() or line.lstrip().startswith("#") for line in source.split("\n")):
        return ""
    return source.strip("\n") + "\n"


def markdown_cells(text: str) -> list[str]:
    """The code blocks of a Markdown notebook: MyST `{code-cell}`s if any, else ```python."""
    blocks: list[tuple[str, list[str]]] = []
    fence: str | None = None
    for line in text.split("\n"):
        if fence is None:
            opened = _FENCE.match(line)
            if opened:
                fence = opened.group(1)
                blocks.append((opened.group(2), []))
        elif line.strip() == fence:
            fence = None
        else:
            blocks[-1][1].append(line)
    myst = any(kind == "{code-cell}" for kind, _ in blocks)
    cells = []
    for kind, body in blocks:
        if myst and kind != "{code-cell}":
            continue
        if kind == "{code-cell}":
            body = _drop_myst_options(body)
        cells.append("\n".join(body).strip("\n") + "\n")
    return cells


def _drop_myst_options(body: list[str]) -> list[str]:
    """A MyST code cell without its `:key: value` lines or `---` front block."""
    if body and body[0].strip() == "---":
        end = next((i for i, line in enumerate(body[1:], 1) if line.strip() == "---"), 0)
        return body[end + 1 :]
    start = 0
    while start < len(body) and re.match(r"^:[\w-]+:", body[start]):
        start += 1
    return body[start:]


def source_file(source: Source) -> Path:
    if source.project == "holoviews":
        import holoviews

        return Path(holoviews.__file__).parent / "examples" / source.path.split(":", 1)[1]
    return VENDOR / source.path


def code_cells(source: Source) -> list[str]:
    """The non-empty code cells the replay uses, in order (`stop` and `skip` applied)."""
    path = source_file(source)
    if path.suffix == ".ipynb":
        notebook = nbformat.read(path, as_version=4)
        cells = [c.source for c in notebook.cells if c.cell_type == "code"]
    elif path.suffix == ".py":
        cells = script_cells(path.read_text(encoding="utf-8"))
    else:
        cells = markdown_cells(path.read_text(encoding="utf-8"))
    cells = [text for text in cells if text.strip()]
    cells = cells[: source.stop]
    return [text for index, text in enumerate(cells) if index not in source.skip]


def materialise(source: Source, root: Path) -> Path:
    """A temporary copy of the notebook's project folder, with the replayed cells written as
    `<name>.replay.ipynb` beside the original; the path of that notebook."""
    original = source_file(source)
    if source.project == "holoviews":
        folder = root / "holoviews"  # the notebook alone, as field_readiness ran it
        folder.mkdir(parents=True, exist_ok=True)
        target = folder / original.name
    else:
        shutil.copytree(VENDOR / source.project, root / source.project, dirs_exist_ok=True)
        target = root / source.path
    notebook = nbformat.v4.new_notebook()
    notebook.cells = [nbformat.v4.new_code_cell(text) for text in code_cells(source)]
    notebook.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3"}
    replay = target.with_name(target.stem + ".replay.ipynb")
    nbformat.write(notebook, replay)
    return replay


# ------------------------------------------------------------------------------ counts


@dataclass
class NotebookCounts:
    """What one notebook showed: lookahead first, then each cell judged and run in order."""

    name: str
    library: str
    cells: int = 0
    ran: int = 0  # cells that were run (a timeout or a dead kernel ends the run)
    crashed: dict[int, str] = field(default_factory=dict)  # cell -> exception type
    crash_messages: dict[int, str] = field(default_factory=dict)  # cell -> its first line
    errors: dict[int, list[str]] = field(default_factory=dict)  # cell -> Error exception types
    messages: dict[int, list[str]] = field(default_factory=dict)
    false_alarms: list[int] = field(default_factory=list)
    hits: list[int] = field(default_factory=list)
    other_type: list[int] = field(default_factory=list)  # Error, but another exception raised
    misses: list[int] = field(default_factory=list)
    tool_errors: dict[int, str] = field(default_factory=dict)
    kernel_changes: dict[int, list[str]] = field(default_factory=dict)
    modules_loaded: dict[int, list[str]] = field(default_factory=dict)  # by a check (info)
    ahead_ran: int = 0  # import cells the lookahead ran
    ahead_judged: int = 0
    ahead_errors: dict[int, list[str]] = field(default_factory=dict)
    ahead_false: list[int] = field(default_factory=list)
    ahead_hits: list[int] = field(default_factory=list)
    ahead_note: str | None = None  # the lookahead did not walk (import cells failed, ...)
    ahead_tool_error: str | None = None
    # With --dry-run, the lookahead's twin runs the pending cells too: where it stopped, why,
    # and whether that cell writes a file (by its source; the seal's known limit).
    ahead_twin_stop: int | None = None
    ahead_twin_reason: str | None = None
    ahead_twin_stop_writes: bool = False
    check_ms: list[float] = field(default_factory=list)
    # The same cells run on another fresh kernel without any check: where a cell's outcome
    # differs (ran / raised, or another exception), a check changed the run.
    unchecked_crashed: dict[int, str] = field(default_factory=dict)
    runs_changed: dict[int, str] = field(default_factory=dict)
    stopped: str | None = None  # why the run ended early
    seconds: float = 0.0


def _document(name: str, sources: list[str], executed: set[str]) -> CellDocument:
    cells = [
        CellSource(uri=f"cell:{name}#{i}", kind="code", text=text) for i, text in enumerate(sources)
    ]
    document = notebook_document(f"file:///field/{name}", 1, cells)
    marked = [
        dataclasses.replace(cell, executed_unchanged=cell.text in executed)
        for cell in document.cells
    ]
    return dataclasses.replace(document, cells=marked)


async def _judge(
    session: KernelSession,
    document: CellDocument,
    cell: Cell,
    position: int,
    helpers: HelperPool | None = None,
) -> tuple[list[tuple[str, str]], str | None]:
    """(exception, first message line) of the Errors the editor would show on `cell`, and the
    check's own error if it failed."""
    checked = document.checked_cells
    result = await asyncio.wait_for(
        check_cell(
            session,
            cell.text,
            executed_cells=[c.text for c in checked if c.executed_unchanged],
            notebook_cells=[c.text for c in checked],
            target_index=position,
            options=CheckOptions(timeout=CHECK_TIMEOUT, dry_run=DRY_RUN[0]),
            helpers=helpers,
        ),
        CHECK_TIMEOUT * 2 + CheckOptions().helper_timeout,
    )
    errors = []
    for finding in result.findings:
        placed = to_diagnostic(document, cell, finding)
        if placed is not None and placed[1].severity == ERROR:
            errors.append((finding.exception, placed[1].message.split("\n")[0]))
    return errors, result.error


async def fingerprint(session: KernelSession) -> dict[str, Any]:
    """The tests' "no trace" fingerprint, read silently (user_expressions, no history)."""
    content = {
        "code": "",
        "silent": True,
        "store_history": False,
        "user_expressions": {"state": FINGERPRINT},
        "allow_stdin": False,
        "stop_on_error": False,
    }
    reply = await session.request("shell", "execute_request", content, timeout=60.0)
    state = reply["user_expressions"]["state"]
    if state.get("status") != "ok":
        raise CraneError(f"the fingerprint failed: {state.get('ename')}: {state.get('evalue')}")
    return json.loads(ast.literal_eval(state["data"]["text/plain"]))  # type: ignore[no-any-return]


def differences(before: dict[str, Any], after: dict[str, Any]) -> list[str]:
    """What a check changed among the watched fields (the length of `In`, not its text)."""
    changed = []
    for key in WATCHED:
        old, new = before[key], after[key]
        if key == "in":
            old, new = len(old), len(new)
        if old == new:
            continue
        if isinstance(old, list):
            added = [x for x in new if x not in old][:5]
            gone = [x for x in old if x not in new][:5]
            changed.append(f"{key}: +{added} -{gone}")
        else:
            changed.append(f"{key}: {old!r} -> {new!r}")
    return changed


async def _lookahead(
    replay: Path, counts: NotebookCounts, helpers: HelperPool | None = None
) -> None:
    """Every code cell's lookahead prediction before anything runs (the `check --ahead` path)."""
    try:
        twin = DryRunOptions(wall_s=AHEAD_BUDGET_S) if DRY_RUN[0] is not None else None
        report = await asyncio.wait_for(
            check_ahead(replay, helpers=helpers, dry_run=twin), AHEAD_TIMEOUT
        )
    except (CraneError, asyncio.TimeoutError, OSError) as exc:
        counts.ahead_tool_error = f"{type(exc).__name__}: {exc}"
        return
    counts.ahead_ran = report.ran
    counts.ahead_judged = len(report.results)
    if report.twin_stopped_at is not None:
        counts.ahead_twin_stop = report.twin_stopped_at
        counts.ahead_twin_reason = report.twin_stop_reason
        stopping = read_code_cells(replay)[report.twin_stopped_at - 1]
        counts.ahead_twin_stop_writes = bool(WRITES_A_FILE.search(stopping))
    if report.error:
        counts.ahead_note = report.error
    for result in report.results:
        if result.error:
            counts.ahead_tool_error = result.error
        errors = [f.exception for f in result.findings if f.severity == "error"]
        if errors and result.cell is not None:
            counts.ahead_errors[result.cell - 1] = errors


@contextlib.asynccontextmanager
async def _fresh_kernel(folder: Path, runtime: Path) -> AsyncIterator[KernelSession]:
    """A kernel started in `folder` and attached to, shut down afterwards."""
    manager, session = await _start(folder, runtime)
    try:
        yield session
    finally:
        await session.close()
        manager.shutdown_kernel(now=True)
        manager.cleanup_resources()


async def _start(folder: Path, runtime: Path) -> tuple[Any, KernelSession]:
    from jupyter_client.manager import KernelManager

    connection = runtime / f"kernel-{uuid.uuid4().hex[:12]}.json"
    manager = KernelManager(kernel_name="python3", connection_file=str(connection))
    manager.start_kernel(cwd=str(folder), env=_jupyter_environment())
    client = manager.client()
    client.start_channels()
    client.wait_for_ready(timeout=120)
    client.stop_channels()
    return manager, await KernelSession.attach(connection, timeout=30.0)


async def replay_notebook(
    source: Source, runtime: Path, helpers: HelperPool | None = None
) -> NotebookCounts:
    """Lookahead, then judge-and-run every cell of `source` on a fresh kernel."""
    started = time.perf_counter()
    counts = NotebookCounts(name=source.path, library=source.library)
    workdir = Path(tempfile.mkdtemp(prefix="field-replay-"))
    replay = materialise(source, workdir)
    sources = code_cells(source)
    counts.cells = len(sources)
    await _lookahead(replay, counts, helpers)
    try:
        async with _fresh_kernel(replay.parent, runtime) as session:
            await _judge_and_run(session, replay, sources, counts, helpers)
    except CraneError as exc:
        counts.stopped = f"not measured: {exc}"
    finally:
        shutil.rmtree(workdir, ignore_errors=True)
    if counts.stopped is None:
        await _run_unchecked(source, sources[: counts.ran], runtime, counts)
    _tally(counts)
    counts.seconds = time.perf_counter() - started
    return counts


async def _judge_and_run(
    session: KernelSession,
    replay: Path,
    sources: list[str],
    counts: NotebookCounts,
    helpers: HelperPool | None,
) -> None:
    """Each cell judged just before it runs, then run; the kernel is fingerprinted around
    every check."""
    executed: set[str] = set()
    for position, text in enumerate(sources):
        document = _document(replay.name, sources, executed)
        before = await fingerprint(session)
        checked = time.perf_counter()
        try:
            errors, failure = await _judge(
                session, document, document.checked_cells[position], position, helpers
            )
        except (CraneError, asyncio.TimeoutError) as exc:
            errors, failure = [], f"{type(exc).__name__}: {exc}"
        counts.check_ms.append((time.perf_counter() - checked) * 1000.0)
        after = await fingerprint(session)
        if failure:
            counts.tool_errors[position] = failure
        changed = differences(before, after)
        if changed:
            counts.kernel_changes[position] = changed
        loaded = sorted(set(after["modules"]) - set(before["modules"]))
        if loaded:
            counts.modules_loaded[position] = loaded[:10] + (["..."] if len(loaded) > 10 else [])
        if errors:
            counts.errors[position] = [exception for exception, _ in errors]
            counts.messages[position] = [message for _, message in errors]
        outcome = await session.execute(text, timeout=CELL_TIMEOUT)
        executed.add(text)
        counts.ran = position + 1
        if outcome.status != "ok":
            counts.crashed[position] = outcome.ename or outcome.status
            counts.crash_messages[position] = (outcome.evalue or "").split("\n")[0][:200]
        if outcome.status in ("died", "timeout"):
            counts.stopped = f"cell {position}: {outcome.status}"
            break


async def _run_unchecked(
    source: Source, sources: list[str], runtime: Path, counts: NotebookCounts
) -> None:
    """The same cells on another fresh kernel in a fresh copy, with no check at all."""
    workdir = Path(tempfile.mkdtemp(prefix="field-unchecked-"))
    try:
        replay = materialise(source, workdir)
        async with _fresh_kernel(replay.parent, runtime) as session:
            for position, text in enumerate(sources):
                outcome = await session.execute(text, timeout=CELL_TIMEOUT)
                if outcome.status != "ok":
                    counts.unchecked_crashed[position] = outcome.ename or outcome.status
                if outcome.status in ("died", "timeout"):
                    break
    except CraneError as exc:
        counts.runs_changed[-1] = f"unchecked run not measured: {exc}"
    finally:
        shutil.rmtree(workdir, ignore_errors=True)
    for position in sorted(set(counts.crashed) | set(counts.unchecked_crashed)):
        checked = counts.crashed.get(position, "ran")
        unchecked = counts.unchecked_crashed.get(position, "ran")
        if checked != unchecked:
            counts.runs_changed[position] = f"checked: {checked}, unchecked: {unchecked}"


def _tally(counts: NotebookCounts) -> None:
    for position, exceptions in counts.errors.items():
        crashed = counts.crashed.get(position)
        if crashed is None:
            counts.false_alarms.append(position)
        elif crashed in exceptions:
            counts.hits.append(position)
        else:
            counts.other_type.append(position)
    counts.misses = [p for p in counts.crashed if p not in counts.errors]
    for position in counts.ahead_errors:
        if position >= counts.ran:
            continue  # never ran: nothing to compare with
        if position in counts.crashed:
            counts.ahead_hits.append(position)
        else:
            counts.ahead_false.append(position)


def _jupyter_environment() -> dict[str, str]:
    """This process's environment without MPLBACKEND: the kernel picks inline, as in Jupyter."""
    return {name: value for name, value in os.environ.items() if name != "MPLBACKEND"}


async def run_all(sources: Iterable[Source]) -> list[NotebookCounts]:
    # The lookahead's kernel (`check --ahead`) inherits this process's environment.
    backend = os.environ.pop("MPLBACKEND", None)
    try:
        return await _run_all(sources)
    finally:
        if backend is not None:
            os.environ["MPLBACKEND"] = backend


async def _run_all(sources: Iterable[Source]) -> list[NotebookCounts]:
    runtime = Path(tempfile.mkdtemp(prefix="field-runtime-"))
    results = []
    # as the language server does: first imports are walked by a helper interpreter
    async with HelperPool() as helpers:
        for source in sources:
            counts = await replay_notebook(source, runtime, helpers)
            results.append(counts)
            print(
                f"{counts.name}: {counts.ran}/{counts.cells} cells run, crashed "
                f"{sorted(counts.crashed.items())}, Errors {sorted(counts.errors)} "
                f"(false {counts.false_alarms}), lookahead Errors {sorted(counts.ahead_errors)} "
                f"(false {counts.ahead_false}), tool errors {sorted(counts.tool_errors)}, "
                f"kernel changes {sorted(counts.kernel_changes)}, runs changed "
                f"{counts.runs_changed}, {counts.seconds:.1f} s",
                file=sys.stderr,
                flush=True,
            )
    shutil.rmtree(runtime, ignore_errors=True)
    return results


# ------------------------------------------------------------------------------ report

COLUMNS = (
    ("notebooks", "notebooks"),
    ("cells", "cells"),
    ("crashed", "cells that crashed"),
    ("false_alarms", "false alarms"),
    ("hits", "hits"),
    ("other_type", "Error, other type"),
    ("misses", "misses"),
    ("tool_errors", "tool errors"),
    ("ahead_errors", "lookahead Errors"),
    ("ahead_false", "lookahead false alarms"),
    ("kernel_changes", "kernel changes"),
    ("runs_changed", "cells whose run a check changed"),
)


def summary(results: list[NotebookCounts]) -> dict[str, Any]:
    """Totals over `results`."""
    return {
        "notebooks": len(results),
        "cells": sum(r.cells for r in results),
        "cells_run": sum(r.ran for r in results),
        "crashed": sum(len(r.crashed) for r in results),
        "errors": sum(len(r.errors) for r in results),
        "false_alarms": sum(len(r.false_alarms) for r in results),
        "hits": sum(len(r.hits) for r in results),
        "other_type": sum(len(r.other_type) for r in results),
        "misses": sum(len(r.misses) for r in results),
        "tool_errors": sum(len(r.tool_errors) + bool(r.ahead_tool_error) for r in results),
        "ahead_judged": sum(r.ahead_judged for r in results),
        "ahead_errors": sum(len(r.ahead_errors) for r in results),
        "ahead_twin_stops": sum(1 for r in results if r.ahead_twin_stop is not None),
        "ahead_twin_stops_on_a_file_write": sum(1 for r in results if r.ahead_twin_stop_writes),
        "ahead_false": sum(len(r.ahead_false) for r in results),
        "ahead_hits": sum(len(r.ahead_hits) for r in results),
        "kernel_changes": sum(len(r.kernel_changes) for r in results),
        "runs_changed": sum(len(r.runs_changed) for r in results),
        "checks_loading_modules": sum(len(r.modules_loaded) for r in results),
        "seconds": round(sum(r.seconds for r in results), 1),
    }


def by_library(results: list[NotebookCounts]) -> dict[str, dict[str, Any]]:
    libraries: dict[str, list[NotebookCounts]] = {}
    for result in results:
        libraries.setdefault(result.library, []).append(result)
    return {name: summary(group) for name, group in libraries.items()}


def table(results: list[NotebookCounts]) -> str:
    """The per-library and total table, in Markdown."""
    head = "| library | " + " | ".join(title for _, title in COLUMNS) + " |\n"
    rule = "|---|" + "---:|" * len(COLUMNS) + "\n"
    rows = []
    for name, totals in [*by_library(results).items(), ("**total**", summary(results))]:
        rows.append(f"| {name} | " + " | ".join(str(totals[key]) for key, _ in COLUMNS) + " |\n")
    return head + rule + "".join(rows)


def counts_line(results: list[NotebookCounts]) -> str:
    total = summary(results)
    return (
        f"Field replay: {total['notebooks']} public notebooks and example scripts, "
        f"{total['cells']} code cells run top to bottom: {total['false_alarms']} false alarms, "
        f"{total['hits']} crashes predicted just before they ran, {total['misses']} missed, "
        f"{total['tool_errors']} tool errors, {total['ahead_false']} lookahead false alarms, "
        f"{total['kernel_changes']} kernel changes, {total['runs_changed']} cells whose run a "
        "check changed."
    )


def select(sources: list[Source], only: str | None, limit: int | None) -> list[Source]:
    chosen = [s for s in sources if only is None or only in s.path or only == s.library]
    return chosen[:limit] if limit else chosen


def quick_failures(results: list[NotebookCounts]) -> list[str]:
    """What a quick run must not show: the tool failing or changing the user's kernel."""
    found = []
    for counts in results:
        problems = {
            "tool errors": sorted(counts.tool_errors.items()),
            "lookahead tool error": counts.ahead_tool_error,
            "kernel changes": sorted(counts.kernel_changes.items()),
            "runs changed": sorted(counts.runs_changed.items()),
            "stopped": counts.stopped,
        }
        found += [f"{counts.name}: {what}: {value}" for what, value in problems.items() if value]
    return found


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--limit", type=int, default=None, help="only the first N notebooks")
    parser.add_argument(
        "--dry-run", action="store_true", help="judge each cell with the dry run's twin too"
    )
    parser.add_argument("--only", default=None, help="a library, or text in the path")
    parser.add_argument("--json", type=Path, default=None)
    parser.add_argument(
        "--markdown", type=Path, default=None, help="write the table between its markers"
    )
    parser.add_argument(
        "--from-json", type=Path, default=None, help="report a saved run instead of running"
    )
    parser.add_argument(
        "--quick", action="store_true", help="two short sources, a copy of the page (CI)"
    )
    args = parser.parse_args()
    if args.dry_run:
        DRY_RUN[0] = DryRunOptions()
    if args.quick:
        args.markdown = quick_page()
    started = time.perf_counter()
    if args.quick and not args.from_json:
        results = asyncio.run(run_all([s for s in SOURCES if s.path in QUICK]))
        elapsed = time.perf_counter() - started
    elif args.from_json:
        saved = json.loads(args.from_json.read_text())
        results = [NotebookCounts(**notebook) for notebook in saved["notebooks"]]
        elapsed = saved.get("wall_seconds", 0.0)
    else:
        results = asyncio.run(run_all(select(all_sources(), args.only, args.limit)))
        elapsed = time.perf_counter() - started
    print(table(results))
    print(counts_line(results))
    print(f"wall time {elapsed:.0f} s")
    if args.json and not args.from_json:
        args.json.write_text(
            json.dumps(
                {
                    "summary": summary(results),
                    "libraries": by_library(results),
                    "wall_seconds": round(elapsed, 1),
                    "notebooks": [dataclasses.asdict(r) for r in results],
                },
                indent=2,
            )
        )
    if args.markdown:
        write_between_markers(args.markdown, "field-replay", table(results))
    if args.quick:
        if args.markdown:
            check_written(args.markdown, "field-replay", table(results))
            print(f"table written into a copy of the page, {args.markdown}")
        failures = quick_failures(results)
        for failure in failures:
            print(f"error: {failure}")
        if failures or len(results) != len(QUICK):
            return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
