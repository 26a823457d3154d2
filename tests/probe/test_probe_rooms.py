"""The kernel-side probe's rooms: everything shipped, in order, layered, with no import circle,
Python 3.9 syntax and the standard library only."""

from __future__ import annotations

import ast
import sys
from importlib import resources
from importlib.abc import Traversable

import pytest

from crane_server.probe.manifest import SHIPPED_MODULES

# Which rooms each room may import from (the root holds the shared value model).
ALLOWED = {
    "root": {"root"},
    "snapshot": {"root", "snapshot"},
    "rules": {"root", "rules"},
    "interpreter": {"root", "rules", "interpreter"},
    "twin": {"root", "twin"},
    "entry": {"root", "snapshot", "interpreter", "twin"},
}
PACKAGE = resources.files("crane_server.probe")


def _file(name: str) -> Traversable:
    *rooms, leaf = name.split(".")
    found = PACKAGE
    for room in rooms:
        found = found.joinpath(room)
    return found.joinpath(f"{leaf}.py")


def _room(name: str) -> str:
    if name == "entry":
        return "entry"
    return name.split(".")[0] if "." in name else "root"


def _tree(name: str) -> ast.Module:
    return ast.parse(_file(name).read_text("utf-8"), feature_version=(3, 9))


def _resolve(name: str, node: ast.ImportFrom) -> list[str]:
    """The shipped modules a relative import in module `name` refers to."""
    package = name.split(".")[:-1]
    base = package[: len(package) - (node.level - 1)] if node.level > 1 else package
    stem = [*base, *(node.module.split(".") if node.module else [])]
    found = []
    for alias in node.names:
        candidate = ".".join([*stem, alias.name])
        found.append(candidate if candidate in SHIPPED_MODULES else ".".join(stem))
    return [f for f in found if f in SHIPPED_MODULES]


def _imports(name: str, *, top_level_only: bool) -> set[str]:
    tree = _tree(name)
    nodes = tree.body if top_level_only else list(ast.walk(tree))
    found: set[str] = set()
    for node in nodes:
        if isinstance(node, ast.ImportFrom) and node.level > 0:
            found.update(_resolve(name, node))
    return found


def _on_disk() -> set[str]:
    names = set()
    for entry in PACKAGE.iterdir():
        if entry.name.endswith(".py") and entry.name not in ("__init__.py", "manifest.py"):
            names.add(entry.name[:-3])
        elif entry.is_dir() and entry.joinpath("__init__.py").is_file():
            names.update(
                f"{entry.name}.{sub.name[:-3]}"
                for sub in entry.iterdir()
                if sub.name.endswith(".py") and sub.name != "__init__.py"
            )
    return names


def test_every_module_on_disk_is_shipped_once() -> None:
    assert len(set(SHIPPED_MODULES)) == len(SHIPPED_MODULES)
    assert set(SHIPPED_MODULES) == _on_disk()


def test_each_module_is_shipped_after_what_it_imports_at_load_time() -> None:
    for position, name in enumerate(SHIPPED_MODULES):
        for dependency in _imports(name, top_level_only=True):
            assert SHIPPED_MODULES.index(dependency) < position, (name, dependency)


def test_rooms_import_only_downwards() -> None:
    for name in SHIPPED_MODULES:
        for dependency in _imports(name, top_level_only=False):
            assert _room(dependency) in ALLOWED[_room(name)], (name, dependency)


def test_no_import_circle_even_through_lazy_imports() -> None:
    graph = {name: _imports(name, top_level_only=False) - {name} for name in SHIPPED_MODULES}
    visiting: list[str] = []
    done: set[str] = set()

    def visit(name: str) -> None:
        if name in done:
            return
        assert name not in visiting, "import circle: " + " -> ".join([*visiting, name])
        visiting.append(name)
        for dependency in sorted(graph[name]):
            visit(dependency)
        visiting.pop()
        done.add(name)

    for name in SHIPPED_MODULES:
        visit(name)


def test_the_circle_test_sees_a_circle() -> None:
    node = ast.parse("from ..quiet import quiet\nfrom . import python\n").body
    assert _resolve("rules.pandas", node[0]) == ["quiet"]  # type: ignore[arg-type]
    assert _resolve("rules.pandas", node[1]) == ["rules.python"]  # type: ignore[arg-type]


@pytest.mark.parametrize("name", SHIPPED_MODULES)
def test_python_39_and_only_the_standard_library(name: str) -> None:
    tree = _tree(name)
    imported: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            imported.update(alias.name.partition(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            imported.add(node.module.partition(".")[0])
    assert imported - {"__future__"} <= set(sys.stdlib_module_names), name
