"""The corpus is true: every reproduced target really raises what its case.json says, on the
lines it says, and every fixed twin really runs clean (fresh kernel per notebook)."""

from __future__ import annotations

import importlib.util
import json
import sys
from collections.abc import Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path
from types import ModuleType

import nbformat
import pytest

from tests.checker.corpus_runner import TargetOutcome, load_case, outcome_problems, run_notebook

ROOT = Path(__file__).resolve().parents[2]
CORPUS = ROOT / "tests" / "corpus"
CASES = sorted(path for path in CORPUS.iterdir() if (path / "case.json").is_file())
VARIANTS = ("reproduced", "fixed")
FIELDS = {
    "case_id": str,
    "library": str,
    "expected_exception": str,
    "crash_line": int,
    "crash_lines": list,
    "reason": str,
    "target_identical": bool,
    "rule": str,
}
WORKERS = 2

pytestmark = [pytest.mark.kernel, pytest.mark.slow]


class NotebookPrefetcher:
    """Runs the selected notebooks `WORKERS` at a time, in test order, ahead of the tests."""

    def __init__(self, jobs: list[tuple[Path, str]], connection_dir: Path) -> None:
        self._pool = ThreadPoolExecutor(max_workers=WORKERS, thread_name_prefix="corpus")
        self._futures: dict[tuple[Path, str], Future[TargetOutcome]] = {}
        for folder, variant in jobs:
            notebook = folder / f"{variant}.ipynb"
            self._futures[(folder, variant)] = self._pool.submit(
                run_notebook, notebook, connection_dir=connection_dir
            )

    def outcome(self, folder: Path, variant: str, timeout: float) -> TargetOutcome:
        """Wait for one notebook's outcome."""
        return self._futures[(folder, variant)].result(timeout=timeout)

    def close(self) -> None:
        self._pool.shutdown(wait=True, cancel_futures=True)


@pytest.fixture(scope="module")
def prefetcher(request: pytest.FixtureRequest, runtime_dir: Path) -> Iterator[NotebookPrefetcher]:
    """Start running every notebook this session selected from this module, in order."""
    jobs: list[tuple[Path, str]] = []
    for item in request.session.items:
        callspec = getattr(item, "callspec", None)
        if callspec is None or getattr(item, "module", None) is not request.module:
            continue
        if "folder" in callspec.params and "variant" in callspec.params:
            jobs.append((callspec.params["folder"], callspec.params["variant"]))
    fetcher = NotebookPrefetcher(jobs, runtime_dir)
    try:
        yield fetcher
    finally:
        fetcher.close()


@pytest.mark.timeout(180)
@pytest.mark.parametrize("variant", VARIANTS)
@pytest.mark.parametrize("folder", CASES, ids=[path.name for path in CASES])
def test_notebook_behaves_as_case_says(
    prefetcher: NotebookPrefetcher, folder: Path, variant: str
) -> None:
    outcome = prefetcher.outcome(folder, variant, timeout=170)
    problems = outcome_problems(load_case(folder), variant, outcome)
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize("folder", CASES, ids=[path.name for path in CASES])
def test_case_folder_format(folder: Path) -> None:
    case = load_case(folder)
    for name, kind in FIELDS.items():
        assert isinstance(case.get(name), kind), f"{name} missing or not {kind.__name__}"
    assert case["case_id"] == folder.name
    assert case["crash_lines"] and case["crash_lines"][-1] == case["crash_line"]  # type: ignore[index]
    targets = []
    for variant in VARIANTS:
        notebook = nbformat.read(folder / f"{variant}.ipynb", as_version=4)  # type: ignore[no-untyped-call]
        nbformat.validate(notebook)
        code = [cell.source for cell in notebook.cells if cell.cell_type == "code"]
        assert len(code) >= 2, "a case needs set-up cells and a target cell"
        targets.append(code[-1])
    assert case["target_identical"] == (targets[0] == targets[1])
    lines = targets[0].split("\n")
    assert 1 <= case["crash_line"] <= len(lines)  # type: ignore[operator]


def test_corpus_size_and_spread() -> None:
    libraries: dict[str, int] = {}
    for folder in CASES:
        library = str(load_case(folder)["library"])
        libraries[library] = libraries.get(library, 0) + 1
    assert len(CASES) >= 80
    for family in ("python", "NBspecific", "pandas", "numpy", "sklearn", "torch", "matplotlib"):
        assert libraries.get(family, 0) >= 5, f"too few {family} cases: {libraries}"


def _load_generator() -> ModuleType:
    spec = importlib.util.spec_from_file_location(
        "make_corpus", ROOT / "scripts" / "make_corpus.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up while the class is built
    spec.loader.exec_module(module)
    return module


def test_generated_folders_match_the_generator(tmp_path: Path) -> None:
    generator = _load_generator()
    for case in generator.all_cases():
        generator.write_case(case, tmp_path)
    written = sorted(path.name for path in tmp_path.iterdir())
    assert written == [path.name for path in CASES]
    for folder in tmp_path.iterdir():
        committed_names = sorted(path.name for path in (CORPUS / folder.name).iterdir())
        assert committed_names == sorted(path.name for path in folder.iterdir()), (
            f"{folder.name}: stray or missing files; rerun scripts/make_corpus.py"
        )
        for file in folder.iterdir():
            committed = CORPUS / folder.name / file.name
            assert committed.is_file(), f"{committed} is missing: rerun scripts/make_corpus.py"
            if file.suffix in (".json", ".ipynb"):
                same = json.loads(file.read_text()) == json.loads(committed.read_text())
            else:
                same = file.read_text() == committed.read_text()
            assert same, f"{committed} differs from the generator: rerun scripts/make_corpus.py"
