"""The summariser's source obeys the kernel-side rules: Python 3.9 syntax, stdlib only."""

from __future__ import annotations

import ast
import sys
from importlib import resources

import pytest

from crane_server.probe.manifest import SHIPPED_MODULES

SUMMARY_MODULES = [name for name in SHIPPED_MODULES if name.startswith("summar")]


def _source(name: str) -> str:
    return resources.files("crane_server.probe").joinpath(f"{name}.py").read_text("utf-8")


def test_summary_modules_are_shipped_before_summarise() -> None:
    position = SHIPPED_MODULES.index("summarise")
    helpers = [name for name in SUMMARY_MODULES if name != "summarise"]
    assert helpers, "no summary_* helper modules in the manifest"
    assert all(SHIPPED_MODULES.index(name) < position for name in helpers)
    files = {path.name for path in resources.files("crane_server.probe").iterdir()}
    on_disk = {name[:-3] for name in files if name.startswith("summary_") and name.endswith(".py")}
    assert on_disk == set(helpers)


@pytest.mark.parametrize("name", SUMMARY_MODULES)
def test_parses_as_python_39_and_imports_only_the_stdlib(name: str) -> None:
    tree = ast.parse(_source(name), feature_version=(3, 9))
    imported: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            imported.update(alias.name.partition(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            imported.add(node.module.partition(".")[0])
    assert imported - {"__future__"} <= set(sys.stdlib_module_names)
    first = tree.body[1] if isinstance(tree.body[0], ast.Expr) else tree.body[0]
    assert isinstance(first, ast.ImportFrom) and first.module == "__future__"
