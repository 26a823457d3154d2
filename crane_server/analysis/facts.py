"""Pure AST facts of a cell: names it reads before defining, names it binds, names it deletes."""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass, field

_MAGIC_LINE = re.compile(r"^\s*[%!]")


def strip_magics(source: str) -> str:
    """Blank out IPython magic and shell lines (keeping line numbers) so `ast` can parse."""
    lines = source.splitlines()
    if lines and lines[0].lstrip().startswith("%%"):
        return "\n" * len(lines)
    return "\n".join("" if _MAGIC_LINE.match(line) else line for line in lines)


@dataclass
class NameUse:
    name: str
    line: int
    column: int
    end_column: int


@dataclass
class CellFacts:
    """What a cell does with names, in evaluation order at module level."""

    reads_before_binding: list[NameUse] = field(default_factory=list)
    binds: set[str] = field(default_factory=set)
    deletes: set[str] = field(default_factory=set)
    star_import: bool = False
    subscripts: list[tuple[str, object, ast.Subscript]] = field(default_factory=list)


class _Walker(ast.NodeVisitor):
    def __init__(self, facts: CellFacts) -> None:
        self.facts = facts
        self.bound: set[str] = set()

    def _bind_target(self, target: ast.AST) -> None:
        for node in ast.walk(target):
            if isinstance(node, ast.Name):
                self.bound.add(node.id)
                self.facts.binds.add(node.id)

    def visit_Name(self, node: ast.Name) -> None:
        if isinstance(node.ctx, ast.Load) and node.id not in self.bound:
            self.facts.reads_before_binding.append(
                NameUse(
                    node.id, node.lineno, node.col_offset, node.end_col_offset or node.col_offset
                )
            )
        elif isinstance(node.ctx, ast.Store):
            self.bound.add(node.id)
            self.facts.binds.add(node.id)
        elif isinstance(node.ctx, ast.Del):
            self.facts.deletes.add(node.id)

    def visit_Assign(self, node: ast.Assign) -> None:
        self.visit(node.value)
        for target in node.targets:
            self.visit(target)

    def visit_AugAssign(self, node: ast.AugAssign) -> None:
        self.visit(node.value)
        if isinstance(node.target, ast.Name):
            self.visit_Name(
                ast.Name(
                    id=node.target.id,
                    ctx=ast.Load(),
                    lineno=node.lineno,
                    col_offset=node.col_offset,
                    end_col_offset=node.target.end_col_offset,
                )
            )
        self.visit(node.target)

    def visit_For(self, node: ast.For) -> None:
        self.visit(node.iter)
        self._bind_target(node.target)
        # A loop body may read names bound later in the body on the next iteration: only
        # names bound nowhere in the loop are judged.
        loop_bound = {
            n.id for n in ast.walk(node) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)
        }
        self.bound |= loop_bound
        for stmt in node.body + node.orelse:
            self.visit(stmt)

    visit_AsyncFor = visit_For  # type: ignore[assignment]

    def visit_While(self, node: ast.While) -> None:
        loop_bound = {
            n.id for n in ast.walk(node) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)
        }
        self.bound |= loop_bound
        self.visit(node.test)
        for stmt in node.body + node.orelse:
            self.visit(stmt)

    def visit_Import(self, node: ast.Import) -> None:
        for alias in node.names:
            name = alias.asname or alias.name.split(".")[0]
            self.bound.add(name)
            self.facts.binds.add(name)

    def visit_ImportFrom(self, node: ast.ImportFrom) -> None:
        for alias in node.names:
            if alias.name == "*":
                self.facts.star_import = True
                continue
            name = alias.asname or alias.name
            self.bound.add(name)
            self.facts.binds.add(name)

    def _scope(self, node: ast.AST, name: str | None) -> None:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            for decorator in node.decorator_list:
                self.visit(decorator)
        if name:
            self.bound.add(name)
            self.facts.binds.add(name)

    def visit_FunctionDef(self, node: ast.FunctionDef) -> None:
        for default in node.args.defaults + [d for d in node.args.kw_defaults if d is not None]:
            self.visit(default)
        self._scope(node, node.name)

    visit_AsyncFunctionDef = visit_FunctionDef  # type: ignore[assignment]

    def visit_ClassDef(self, node: ast.ClassDef) -> None:
        for base in node.bases:
            self.visit(base)
        self._scope(node, node.name)

    def visit_Lambda(self, node: ast.Lambda) -> None:
        return

    def _comprehension(self, node: ast.AST) -> None:
        generators = node.generators  # type: ignore[attr-defined]
        self.visit(generators[0].iter)
        saved = set(self.bound)
        for generator in generators:
            self._bind_target(generator.target)
        for index, generator in enumerate(generators):
            if index:
                self.visit(generator.iter)
            for condition in generator.ifs:
                self.visit(condition)
        for child in ("elt", "key", "value"):
            value = getattr(node, child, None)
            if value is not None:
                self.visit(value)
        self.bound = saved | (
            self.bound
            & self.facts.binds
            - {n.id for g in generators for n in ast.walk(g.target) if isinstance(n, ast.Name)}
        )

    visit_ListComp = visit_SetComp = visit_GeneratorExp = visit_DictComp = _comprehension  # type: ignore[assignment]

    def visit_ExceptHandler(self, node: ast.ExceptHandler) -> None:
        if node.type is not None:
            self.visit(node.type)
        if node.name:
            self.bound.add(node.name)
        for stmt in node.body:
            self.visit(stmt)

    def visit_Try(self, node: ast.Try) -> None:
        # Names used under try may be guarded by a NameError handler: bind-only walk.
        for stmt in node.body + node.orelse + node.finalbody:
            for sub in ast.walk(stmt):
                if isinstance(sub, ast.Name) and isinstance(sub.ctx, ast.Store):
                    self.bound.add(sub.id)
                    self.facts.binds.add(sub.id)
        for handler in node.handlers:
            self.visit_ExceptHandler(handler)

    def visit_Subscript(self, node: ast.Subscript) -> None:
        self.generic_visit(node)
        if (
            isinstance(node.value, ast.Name)
            and isinstance(node.slice, ast.Constant)
            and isinstance(node.ctx, ast.Load)
        ) and node.value.id not in self.bound:
            self.facts.subscripts.append((node.value.id, node.slice.value, node))


def cell_facts(source: str) -> CellFacts:
    """Facts of one cell; raises SyntaxError when the cell does not parse."""
    tree = ast.parse(strip_magics(source))
    facts = CellFacts()
    walker = _Walker(facts)
    for stmt in tree.body:
        walker.visit(stmt)
    return facts


def bound_names(source: str) -> set[str]:
    """Names a cell binds at module level (empty when it does not parse)."""
    try:
        return cell_facts(source).binds
    except SyntaxError:
        return set()


def deleted_names(source: str) -> set[str]:
    try:
        return cell_facts(source).deletes
    except SyntaxError:
        return set()


def names_bound_before_read(sources: list[str]) -> set[str]:
    """Names these cells, run in order, bind before any of them reads the name: a value they
    build from scratch, not one they take from the state they start from."""
    read: set[str] = set()
    fresh: set[str] = set()
    for source in sources:
        try:
            facts = cell_facts(source)
        except SyntaxError:
            continue
        read |= {use.name for use in facts.reads_before_binding} - fresh
        fresh |= facts.binds - read
    return fresh
