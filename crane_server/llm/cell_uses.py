"""What a target cell uses, from its AST: names, attributes, subscript keys and strings."""

from __future__ import annotations

import ast
import builtins
import re
from collections.abc import Callable
from dataclasses import dataclass, field

_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
BUILTIN_NAMES = frozenset(dir(builtins))


@dataclass
class CellUses:
    """Names read by the cell (in order), and per name the attributes and string keys used."""

    names: list[str] = field(default_factory=list)
    attributes: dict[str, list[str]] = field(default_factory=dict)
    keys: dict[str, list[str]] = field(default_factory=dict)
    strings: set[str] = field(default_factory=set)
    calls: list[str] = field(default_factory=list)  # dotted callables, e.g. "pd.read_csv"
    bound: set[str] = field(default_factory=set)  # names the cell binds before reading them

    def probe_names(self) -> list[str]:
        """Names worth summarising: read from the kernel, not builtins, not bound here first."""
        return [n for n in self.names if n not in BUILTIN_NAMES and n not in self.bound]


def python_source(source: str) -> str:
    """The cell without IPython magics and shell escapes (blank lines keep line numbers)."""
    lines = []
    for line in source.splitlines():
        stripped = line.lstrip()
        lines.append("" if stripped.startswith(("%", "!")) else line)
    return "\n".join(lines)


def cell_uses(source: str) -> CellUses:
    """Collect what the cell reads; falls back to identifiers when it does not parse."""
    uses = CellUses()
    try:
        tree = ast.parse(python_source(source))
    except SyntaxError:
        for name in _IDENTIFIER.findall(source):
            if name not in uses.names:
                uses.names.append(name)
        return uses
    first_store: dict[str, int] = {}
    first_load: dict[str, int] = {}
    for node in ast.walk(tree):
        line = getattr(node, "lineno", 0)
        for name in _binding(node):
            first_store[name] = min(first_store.get(name, line), line)
        read = node.target if isinstance(node, ast.AugAssign) else node  # `x += 1` reads x
        if isinstance(read, ast.Name) and (read is not node or not isinstance(read.ctx, ast.Store)):
            _add(uses.names, read.id)
            first_load[read.id] = min(first_load.get(read.id, line), line)
        elif isinstance(node, ast.Attribute):
            base = _root_name(node.value)
            if base is not None and isinstance(node.value, ast.Name):
                uses.attributes.setdefault(base, [])
                _add(uses.attributes[base], node.attr)
        elif isinstance(node, ast.Subscript):
            base = _root_name(node.value)
            if base is not None:
                for key in _string_keys(node.slice):
                    uses.keys.setdefault(base, [])
                    _add(uses.keys[base], key)
        elif isinstance(node, ast.Constant) and isinstance(node.value, str):
            if len(node.value) <= 200:
                uses.strings.add(node.value)
        elif isinstance(node, ast.Call):
            dotted = _dotted(node.func)
            if dotted is not None:
                _add(uses.calls, dotted)
    uses.names.sort(key=_first_position(source))
    # bound before any read, on an earlier line: not something the kernel must provide
    uses.bound = {n for n, line in first_store.items() if line < first_load.get(n, line + 1)}
    return uses


def _binding(node: ast.AST) -> list[str]:
    """Names a node binds (assignment targets, definitions, imports, handlers, arguments)."""
    if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
        return [node.id]
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        return [node.name]
    if isinstance(node, (ast.Import, ast.ImportFrom)):
        return [(alias.asname or alias.name).split(".", 1)[0] for alias in node.names]
    if isinstance(node, ast.ExceptHandler) and node.name:
        return [node.name]
    if isinstance(node, ast.arg):
        return [node.arg]
    return []


def _add(items: list[str], item: str) -> None:
    if item not in items:
        items.append(item)


def _root_name(node: ast.expr) -> str | None:
    """`df` for df, df.loc, df["a"].str; None for anything not rooted in a name."""
    while isinstance(node, (ast.Attribute, ast.Subscript, ast.Call)):
        node = node.func if isinstance(node, ast.Call) else node.value
    return node.id if isinstance(node, ast.Name) else None


def _string_keys(node: ast.expr) -> list[str]:
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return [node.value]
    if isinstance(node, (ast.List, ast.Tuple)):
        return [key for item in node.elts for key in _string_keys(item)]
    return []


def _dotted(node: ast.expr) -> str | None:
    parts: list[str] = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if not isinstance(node, ast.Name):
        return None
    parts.append(node.id)
    return ".".join(reversed(parts))


def _first_position(source: str) -> Callable[[str], int]:
    positions: dict[str, int] = {}
    for match in _IDENTIFIER.finditer(source):
        positions.setdefault(match.group(), match.start())

    def key(name: str) -> int:
        return positions.get(name, len(source))

    return key
