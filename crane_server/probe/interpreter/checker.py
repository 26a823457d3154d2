"""Walks a target cell in evaluation order over the real objects and reports certain crashes.

The checker is an abstract interpreter: statements run over an overlay of the user
namespace (assignments never reach the namespace), values are tracked as `values.Val` or
lost as `values.UNKNOWN`, and each operation is offered to the rules of the library of the
value involved. A finding is reported only on a path that is certainly reached; after the
first certain crash the walk stops, because the real run would stop there too.
"""

from __future__ import annotations

import ast
import builtins
import sys
import time
import types
from typing import Any, Dict, List, Optional, Set, Tuple

from .. import gate, imports, purity, shadows
from ..outcomes import CallSite, Raise, Result, to_finding
from ..quiet import quiet
from ..rules import boosting as rules_boosting
from ..rules import dask as rules_dask
from ..rules import keras as rules_keras
from ..rules import numpy as rules_numpy
from ..rules import pandas as rules_pandas
from ..rules import plotting as rules_plotting
from ..rules import polars as rules_polars
from ..rules import progress as rules_progress
from ..rules import python as rules_python
from ..rules import sklearn as rules_sklearn
from ..rules import statsmodels as rules_statsmodels
from ..rules import torch as rules_torch
from ..shadows import from_namespace
from ..values import (
    LIBRARY_ROOTS,
    UNKNOWN,
    BoundMethod,
    LibraryRef,
    Opaque,
    ProgressBar,
    UserFunction,
    Val,
    as_dict,
    is_dataframe,
    is_library_object,
    is_plain_data,
    length_of,
    loaded,
    plain_dataclass,
    safe_to_iterate,
    type_root,
)
from . import calls

# Library-specific rules first; the generic Python rules answer what none of them claimed.
RULE_MODULES = (
    rules_polars,
    rules_dask,
    rules_pandas,
    rules_sklearn,
    rules_torch,
    rules_keras,
    rules_boosting,
    rules_plotting,
    rules_statsmodels,
    rules_numpy,
    rules_progress,
    rules_python,
)
MAX_UNROLL = 64
# Library methods that read their arguments without changing them (the receiver may change).
ARGUMENT_READING_METHODS = frozenset(
    """predict predict_proba predict_log_proba predict_classes decision_function evaluate score
    transform inverse_transform summary plot""".split()
)
# The walk's budget is CPU time of the thread that walks (time.thread_time): what the walk
# itself costs. Neither a machine busy with other processes nor the user's own background
# threads in the kernel (a training thread, a progress monitor) cut it short.
TIME_BUDGET_S = 0.25
# Whatever the CPU accounting says, the walk never holds the kernel longer than this (a walk
# blocked in a library call it made does not count CPU time).
WALL_LIMIT_S = 2.0
# Time spent while libraries import themselves is added to both, up to this much.
WARM_UP_ALLOWANCE_S = 3.0
MUTABLE_BUILTINS = (list, dict, set, bytearray)
# Names IPython or the kernel injects that are not in builtins.
INJECTED_NAMES = frozenset(
    {"In", "Out", "get_ipython", "exit", "quit", "display", "_ih", "_oh", "_dh"}
)


class StopWalk(Exception):
    """The first certain crash was found (or the budget ran out): stop walking."""


class MutedCrash(Exception):
    """A crash found in a walk whose findings are not certain for the run (a dataset item at
    a representative index): the walked call's value is unknown, nothing is reported."""


class Flow(Exception):
    """break / continue / return inside the walked code."""

    def __init__(self, kind: str) -> None:
        super().__init__(kind)
        self.kind = kind


def _user_namespace() -> Dict[str, Any]:
    ipython = sys.modules.get("IPython")
    if ipython is not None:
        shell = ipython.get_ipython()
        if shell is not None:
            return shell.user_ns
    main = sys.modules.get("__main__")
    return vars(main) if main is not None else {}


def assigned_names(nodes: List[ast.stmt]) -> Set[str]:
    """Names bound anywhere in these statements at their own scope level."""
    found: Set[str] = set()
    for node in nodes:
        for sub in ast.walk(node):
            if isinstance(sub, ast.Name) and isinstance(sub.ctx, (ast.Store, ast.Del)):
                found.add(sub.id)
            elif isinstance(sub, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                found.add(sub.name)
            elif isinstance(sub, (ast.Import, ast.ImportFrom)):
                for alias in sub.names:
                    found.add((alias.asname or alias.name).split(".")[0])
            elif isinstance(sub, ast.ExceptHandler) and sub.name:
                found.add(sub.name)
    return found


def may_jump(nodes: List[ast.stmt]) -> bool:
    """Do these statements contain break/continue/return/raise outside nested functions?"""
    for node in nodes:
        for sub in ast.walk(node):
            if isinstance(sub, (ast.Break, ast.Continue, ast.Return, ast.Raise)):
                return True
    return False


class Checker:
    """One walk over one cell."""

    def __init__(
        self,
        tree: ast.Module,
        lines: List[str],
        namespace: Dict[str, Any],
        line_offset: int = 0,
        tracked: Optional[Dict[int, Any]] = None,
    ):
        self.tree = tree
        self.lines = lines
        self.namespace = namespace
        self.line_offset = line_offset
        self.env: Dict[str, Any] = {}
        self.deleted: Set[str] = set()
        self.tainted: Set[int] = set()
        self.certain = True
        self.names_unreliable = False
        # Set once a call may have written files: "no such file" is no longer certain.
        self.files_unreliable = False
        # Shared with the walks of called functions: set once a module's train()/eval() ran,
        # after which no module's training mode is known (the user's modules are not shadows).
        self.modes_unknown: List[bool] = [False]
        # Shared too: set once torch's default dtype or device may have been changed by the
        # walked code; tensors and layers it would build are then not built.
        self.torch_defaults_changed: List[bool] = [False]
        # Shared too: set when the walk stopped because its time budget was spent.
        self.budget_spent: List[bool] = [False]
        self.cell_bound = assigned_names(tree.body)
        # Magics (%run, %store -r, %time x = ...) run through get_ipython() and may bind names.
        if any(
            isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id == "get_ipython"
            for n in ast.walk(tree)
        ):
            self.names_unreliable = True
        self.findings: List[Dict[str, Any]] = []
        self.deadline = time.thread_time() + TIME_BUDGET_S
        self.budget_checked = time.thread_time()
        self.wall_deadline = time.monotonic() + WALL_LIMIT_S
        self.modules_seen = len(sys.modules)
        self.warm_up_left = WARM_UP_ALLOWANCE_S
        self.refused_at_start = imports.refused_count()
        # The top-level statement of the walked source being walked now (root walk only).
        self.statement: Optional[ast.stmt] = None
        self.loop_depth = 0
        self.rule_errors: List[str] = []
        self.loop_bound: List[Set[str]] = []  # names bound inside each enclosing loop
        # id of a namespace object -> its tracked form (seeded by a hand-off's shadows)
        self.wrapped: Dict[int, Any] = dict(tracked or {})
        # Library modules the cell imports that the kernel has not loaded (see handoff.py).
        self.unloaded: List[Tuple[str, int]] = []
        self.code = ""  # the transformed source walked
        # Set on child checkers that walk a user function's body.
        self.depth = 0
        self.parent: Optional["Checker"] = None
        self.report_at: Optional[ast.AST] = None
        self.local_names: Set[str] = set()
        self.returned: List[Any] = []
        self.active_functions: Set[int] = set()
        # Set on child checkers whose crashes are not certain for the run (see MutedCrash).
        self.muted = False

    # ----------------------------------------------------------------- results

    def report(self, outcome: Raise, node: ast.AST) -> None:
        """Record a certain crash and stop; drop it when the path is not certain."""
        if not self.certain or shadows.shadow_limit_message(outcome.message):
            return
        if imports.refused_count() != self.refused_at_start:
            # An import was refused during the walk: what library code computed after it
            # may have taken a fallback path the run will not take.
            raise StopWalk()
        if self.muted:
            raise MutedCrash()
        if self.report_at is not None:
            outcome.node = None
            outcome.replace_node = None
            node = self.report_at
        finding = to_finding(outcome, node, self.lines, self.line_offset)
        statement = self.root().statement
        if statement is not None:
            first = statement.lineno + self.line_offset
            last = (getattr(statement, "end_lineno", None) or statement.lineno) + self.line_offset
            if not first <= finding["line"] <= last:
                # inside a function defined elsewhere in the source: the statement that calls it
                finding["statement_line"], finding["statement_end_line"] = first, last
        self.findings.append(finding)
        raise StopWalk()

    def root(self) -> "Checker":
        """The walk of the cell itself (a function body's walk has the caller as parent)."""
        checker = self
        while checker.parent is not None:
            checker = checker.parent
        return checker

    def child(
        self, node: Any, bound: Dict[str, Any], call_node: ast.AST, in_cell: bool
    ) -> "Checker":
        """A checker for the body of a user function called at `call_node`."""
        body = ast.Module(body=list(node.body), type_ignores=[])
        kid = Checker(body, self.lines, self.namespace, self.line_offset)
        kid.parent = self
        kid.depth = self.depth + 1
        kid.findings = self.findings
        kid.rule_errors = self.rule_errors
        kid.deadline = self.deadline
        kid.wall_deadline = self.wall_deadline
        kid.budget_checked = self.budget_checked
        kid.modules_seen = self.modules_seen
        kid.warm_up_left = self.warm_up_left
        kid.refused_at_start = self.refused_at_start
        kid.tainted = self.tainted
        kid.names_unreliable = self.names_unreliable
        kid.files_unreliable = self.files_unreliable
        kid.modes_unknown = self.modes_unknown
        kid.torch_defaults_changed = self.torch_defaults_changed
        kid.budget_spent = self.budget_spent
        kid.certain = self.certain
        kid.active_functions = self.active_functions | {id(node)}
        kid.muted = self.muted
        kid.report_at = (
            self.report_at if self.report_at is not None else (None if in_cell else call_node)
        )
        kid.local_names = assigned_names(node.body) | set(bound)
        kid.env = dict(bound)
        kid.cell_bound = set()
        return kid

    def walk_user_method(
        self, obj: Any, name: str, args: List[Any], node: ast.AST, muted: bool = False
    ) -> Any:
        """The value `obj.name(*args)` returns, walking the user-defined method (never calling
        it); UNKNOWN when it cannot be followed. Rules use it for library calls that call back
        into the user's class (a DataLoader asking its Dataset for an item). `muted`: a crash
        inside is not certain for the run, so it makes the value unknown instead."""
        method = _static_attribute(obj, name)
        if method is None or not self.certain:
            return UNKNOWN
        user = UserFunction(
            name,
            _function_globals(method),
            _defines_globals(method),
            func=method,
            bound_self=Val(obj, origin="namespace", live=True),
        )
        was_muted = self.muted
        self.muted = self.muted or muted
        try:
            return calls.walk_call(self, user, args, {}, node, False)
        except MutedCrash:
            if was_muted:
                raise
            return UNKNOWN
        finally:
            self.muted = was_muted

    def walk_user_callable(self, func: Any, args: List[Any], node: ast.AST) -> Any:
        """The value a user function or lambda returns for `args`, walking its body (never
        calling it); UNKNOWN when it cannot be followed. A certain crash inside is reported."""
        target = func.obj if isinstance(func, Val) else None
        if isinstance(target, types.FunctionType) and rules_python.is_user_callable(target):
            target = UserFunction(
                target.__name__, _function_globals(target), _defines_globals(target), func=target
            )
        if not isinstance(target, UserFunction) or not self.certain:
            return UNKNOWN
        return calls.walk_call(self, target, args, {}, node, False)

    def run_function(self) -> Any:
        """Walk the body; the returned value when certain, else UNKNOWN."""
        completed = False
        try:
            self.exec_block(self.tree.body)
            completed = True
        except Flow as flow:
            if flow.kind != "return":
                return UNKNOWN
        if completed:
            return Val(None) if self.certain and not self.returned else UNKNOWN
        if len(self.returned) == 1 and self.certain:
            return self.returned[0]
        return UNKNOWN

    def ask(self, hook: Any, *args: Any) -> Any:
        """Offer an operation to one rule; a rule that fails is skipped (and remembered)."""
        try:
            return hook(self, *args)
        except (StopWalk, Flow):
            raise
        except Exception as exc:
            self.rule_errors.append(
                "%s.%s: %s: %s"
                % (
                    getattr(hook, "__module__", "?").rsplit(".", 1)[-1],
                    hook.__name__,
                    type(exc).__name__,
                    exc,
                )
            )
            return None

    def outcome(self, answer: Any, node: ast.AST) -> Any:
        if isinstance(answer, Raise):
            self.report(answer, node)
            return UNKNOWN
        if isinstance(answer, Result):
            return answer.value
        return None

    # ------------------------------------------------------------------- names

    def lookup(self, name: str, node: ast.AST) -> Any:
        if name in self.env:
            return self.env[name]
        if self.parent is not None:
            if name in self.local_names:
                return UNKNOWN  # an unbound local: not judged
            root = self.root()
            found, value = root.resolve(name)
            if found:
                return value
            if not root.names_unreliable and name not in INJECTED_NAMES:
                self.report(rules_python.name_error(name, node), node)
            return UNKNOWN
        if name in self.deleted:
            if not self.names_unreliable:
                self.report(rules_python.name_error(name, node, deleted=True), node)
            return UNKNOWN
        if name in self.namespace:
            value = self.namespace[name]
            if id(value) in self.tainted:
                return UNKNOWN
            return self.wrap(value)
        if hasattr(builtins, name):
            return Val(getattr(builtins, name), origin="builtin")
        if name in INJECTED_NAMES or (name.startswith("_") and name.strip("_i").isdigit()):
            return UNKNOWN
        if not self.names_unreliable and self.certain:
            bound_later = name in self.cell_bound
            in_loop = any(name in names for names in self.loop_bound)
            if not bound_later or not in_loop:
                if not bound_later:
                    self.report(rules_python.name_error(name, node), node)
                else:
                    self.report(rules_python.name_error(name, node, later=True), node)
        return UNKNOWN

    def resolve(self, name: str) -> Tuple[bool, Any]:
        """A module-level name's value without judging anything: (found, value)."""
        if name in self.env:
            return True, self.env[name]
        if name in self.deleted:
            return False, UNKNOWN
        if name in self.namespace:
            value = self.namespace[name]
            return True, (UNKNOWN if id(value) in self.tainted else self.wrap(value))
        if hasattr(builtins, name):
            return True, Val(getattr(builtins, name), origin="builtin")
        return name in self.cell_bound and self.loop_depth > 0, UNKNOWN

    def wrap(self, value: Any) -> Any:
        """The tracked form of a namespace object, computed once per walk (sampling is not free)."""
        root = self.root()
        key = id(value)
        if key not in root.wrapped:
            # type(), never isinstance: isinstance reads a user object's `__class__`
            opaque = type(value) is Opaque or gate.runs_user_code_inside(value)
            root.wrapped[key] = UNKNOWN if opaque else from_namespace(value)
        return root.wrapped[key]

    def bind(self, name: str, value: Any) -> None:
        self.deleted.discard(name)
        self.env[name] = value if self.certain else UNKNOWN

    def havoc_value(self, value: Any) -> None:
        """A call we did not follow may have mutated this value."""
        if isinstance(value, Val) and not self._immutable(value.obj):
            self.tainted.add(id(value.obj))
            for key, bound in list(self.env.items()):
                if isinstance(bound, Val) and bound.obj is value.obj:
                    self.env[key] = UNKNOWN

    def havoc_owner(self, node: ast.expr) -> None:
        """`df.loc[k] = v`, `d['a'][0] = v`: the object the indexer or item belongs to changes."""
        while isinstance(node, (ast.Attribute, ast.Subscript)):
            node = node.value
            if isinstance(node, ast.Name):
                self.havoc_value(self.env.get(node.id, UNKNOWN))
                if node.id not in self.env and node.id in self.namespace:
                    self.tainted.add(id(self.namespace[node.id]))  # and its other names
                self.bind(node.id, UNKNOWN)

    def havoc_names(self, names: Tuple[str, ...]) -> None:
        for name in names:
            current = self.env.get(name, self.namespace.get(name))
            if isinstance(current, Val):
                current = current.obj
            if current is None or self._immutable(current):
                continue
            self.env[name] = UNKNOWN

    @staticmethod
    def _immutable(obj: Any) -> bool:
        import types

        return isinstance(
            obj,
            (
                types.ModuleType,
                type,
                types.FunctionType,
                types.BuiltinFunctionType,
                int,
                float,
                str,
                bytes,
                bool,
                tuple,
                frozenset,
                type(None),
            ),
        )

    # -------------------------------------------------------------- statements

    def check_budget(self) -> None:
        """Stop the walk when its time is spent; a library loading itself is not counted.

        The first call into a library often imports its submodules (torch's meta-device
        decompositions load sympy): time in which modules appeared is warm-up, not walking, and
        moves both deadlines (by at most WARM_UP_ALLOWANCE_S per check).
        """
        now = time.thread_time()
        modules = len(sys.modules)
        if modules != self.modules_seen:
            allowance = min(now - self.budget_checked, self.warm_up_left)
            self.deadline += allowance
            self.wall_deadline += allowance
            self.warm_up_left -= allowance
            self.modules_seen = modules
        self.budget_checked = now
        if now > self.deadline or time.monotonic() > self.wall_deadline:
            self.budget_spent[0] = True
            raise StopWalk()

    def run(self) -> None:
        try:
            self.exec_block(self.tree.body)
        except (StopWalk, Flow):
            pass

    def exec_block(self, body: List[ast.stmt]) -> None:
        top_level = self.parent is None and body is self.tree.body
        for stmt in body:
            self.check_budget()
            if top_level:
                self.statement = stmt
            self.exec_stmt(stmt)

    def exec_stmt(self, stmt: ast.stmt) -> None:
        handler = getattr(self, "stmt_" + type(stmt).__name__, None)
        if handler is None:
            self.forget(assigned_names([stmt]))
            return
        handler(stmt)

    def forget(self, names: Set[str]) -> None:
        for name in names:
            self.deleted.discard(name)
            self.env[name] = UNKNOWN

    def stmt_Expr(self, stmt: ast.Expr) -> None:
        self.eval(stmt.value)

    def stmt_Pass(self, stmt: ast.Pass) -> None:
        return

    def stmt_Assign(self, stmt: ast.Assign) -> None:
        value = self.eval(stmt.value)
        for target in stmt.targets:
            self.assign(target, value, stmt.value)

    def stmt_AnnAssign(self, stmt: ast.AnnAssign) -> None:
        if stmt.value is not None:
            self.assign(stmt.target, self.eval(stmt.value), stmt.value)

    def stmt_AugAssign(self, stmt: ast.AugAssign) -> None:
        load = _as_load(stmt.target)
        value = self.binop(ast.BinOp(left=load, op=stmt.op, right=stmt.value), stmt)
        self.assign(stmt.target, value, stmt)

    def stmt_Delete(self, stmt: ast.Delete) -> None:
        for target in stmt.targets:
            if isinstance(target, ast.Name):
                self.lookup(target.id, target)
                self.env.pop(target.id, None)
                if self.certain:
                    self.deleted.add(target.id)
            elif isinstance(target, ast.Subscript):
                base = self.eval(target.value)
                key = self.eval(target.slice)
                answer = rules_pandas.delete_item(self, target, base, key)
                if answer is None:
                    self.havoc_value(base)
                else:
                    new = self.outcome(answer, target)
                    if isinstance(target.value, ast.Name) and new is not None:
                        self.bind(target.value.id, new)
            else:
                self.havoc_value(
                    self.eval(target.value) if isinstance(target, ast.Attribute) else UNKNOWN
                )

    def stmt_Import(self, stmt: ast.Import) -> None:
        for alias in stmt.names:
            self.outcome(
                rules_python.import_module(alias.name, stmt, not self.files_unreliable), stmt
            )
            top = alias.name.split(".")[0]
            bound = alias.asname or top
            qualname = alias.name if alias.asname else top
            module = sys.modules.get(qualname)
            if module is not None:
                self.bind(bound, Val(module, origin="import"))
            else:
                self.note_unloaded(alias.name, stmt)
                self.bind(
                    bound,
                    Val(LibraryRef(qualname)) if rules_python.installed(qualname) else UNKNOWN,
                )

    def stmt_ImportFrom(self, stmt: ast.ImportFrom) -> None:
        if stmt.level or not stmt.module:
            self.forget({(a.asname or a.name) for a in stmt.names})
            return
        self.outcome(rules_python.import_module(stmt.module, stmt, not self.files_unreliable), stmt)
        module = sys.modules.get(stmt.module)
        for alias in stmt.names:
            if alias.name == "*":
                self.names_unreliable = True
                continue
            value: Any = UNKNOWN
            if module is None:
                self.note_unloaded(stmt.module, stmt)
            if module is None and rules_python.installed(stmt.module):
                value = Val(LibraryRef(stmt.module + "." + alias.name))
            if module is not None:
                answer = rules_python.import_name(
                    module, stmt.module, alias.name, stmt, not self.files_unreliable
                )
                got = self.outcome(answer, stmt)
                value = got if got is not None else UNKNOWN
            self.bind(alias.asname or alias.name, value)

    def note_unloaded(self, module: str, stmt: ast.stmt) -> None:
        """Remember an import the kernel cannot follow: a helper interpreter may."""
        if self.parent is None and rules_python.installed(module):
            self.unloaded.append((module, stmt.lineno + self.line_offset))

    def stmt_FunctionDef(self, stmt: ast.FunctionDef) -> None:
        user = _user_function_from_ast(stmt)
        if self.parent is not None:
            user.node = None  # a nested function closes over this frame: never walked
        self.bind(stmt.name, Val(user, origin="cell"))

    stmt_AsyncFunctionDef = stmt_FunctionDef

    def stmt_ClassDef(self, stmt: ast.ClassDef) -> None:
        self.bind(stmt.name, Val(_user_function_from_ast(stmt), origin="cell"))

    def stmt_Global(self, stmt: ast.Global) -> None:
        return

    stmt_Nonlocal = stmt_Global

    def stmt_Assert(self, stmt: ast.Assert) -> None:
        self.eval(stmt.test)

    def stmt_Raise(self, stmt: ast.Raise) -> None:
        # A raise is a crash we do not diagnose; nothing after it runs.
        if self.certain:
            raise StopWalk()
        raise Flow("raise")

    def stmt_Return(self, stmt: ast.Return) -> None:
        value = self.eval(stmt.value) if stmt.value is not None else Val(None)
        self.returned.append(value if self.certain else UNKNOWN)
        raise Flow("return")

    def stmt_Break(self, stmt: ast.Break) -> None:
        raise Flow("break")

    def stmt_Continue(self, stmt: ast.Continue) -> None:
        raise Flow("continue")

    def stmt_If(self, stmt: ast.If) -> None:
        test = self.eval(stmt.test)
        truth = self.truth(test)
        if truth is True:
            self.exec_block(stmt.body)
            return
        if truth is False:
            self.exec_block(stmt.orelse)
            return
        self.uncertain_branches([stmt.body, stmt.orelse])

    def uncertain_branches(self, branches: List[List[ast.stmt]]) -> None:
        was_certain = self.certain
        self.certain = False
        for branch in branches:
            try:
                self.exec_block(branch)
            except Flow:
                pass
        self.forget(assigned_names([s for b in branches for s in b]))
        jumps = any(may_jump(b) for b in branches)
        self.certain = was_certain and not jumps

    def stmt_With(self, stmt: ast.With) -> None:
        known = True
        for item in stmt.items:
            expr = item.context_expr
            factory = self.callee(expr.func) if isinstance(expr, ast.Call) else None
            manager = self.eval(expr)
            if not (
                rules_python.non_suppressing_context(manager)
                or rules_python.non_suppressing_factory(factory)
            ):
                known = False
            if item.optional_vars is not None:
                self.assign(item.optional_vars, UNKNOWN, item.context_expr)
        if known:
            self.exec_block(stmt.body)
        else:
            self.uncertain_branches([stmt.body])

    def stmt_Try(self, stmt: ast.Try) -> None:
        self.uncertain_branches([stmt.body, *[h.body for h in stmt.handlers], stmt.orelse])
        self.exec_block(stmt.finalbody)

    def stmt_While(self, stmt: ast.While) -> None:
        self.loop_bound.append(assigned_names(stmt.body))
        try:
            self._while(stmt)
        finally:
            self.loop_bound.pop()

    def _while(self, stmt: ast.While) -> None:
        iterations = 0
        was_certain = self.certain
        while iterations < MAX_UNROLL:
            truth = self.truth(self.eval(stmt.test))
            if truth is False:
                break
            if truth is None:
                self.uncertain_loop(stmt.body)
                break
            iterations += 1
            if self.run_iteration(stmt.body) == "break":
                break
        else:
            self.uncertain_loop(stmt.body)
        self.certain = was_certain
        if stmt.orelse:
            self.uncertain_branches([stmt.orelse])

    def stmt_For(self, stmt: ast.For) -> None:
        iterable = self.eval(stmt.iter)
        items, complete = self.iterate(iterable, stmt.iter)
        was_certain = self.certain
        self.loop_depth += 1
        self.loop_bound.append(
            assigned_names(stmt.body) | assigned_names([_target_stmt(stmt.target)])
        )
        try:
            if items is None:
                self.assign(stmt.target, UNKNOWN, stmt.iter)
                self.uncertain_loop(stmt.body)
                return
            broke = False
            for item in items:
                self.assign(stmt.target, item, stmt.iter)
                if self.run_iteration(stmt.body) == "break":
                    broke = True
                    break
                if not self.certain:
                    break
            if not complete and not broke:
                self.uncertain_loop(stmt.body, stmt.target)
            elif not self.certain:
                self.forget(assigned_names(stmt.body) | assigned_names([_target_stmt(stmt.target)]))
        finally:
            self.loop_depth -= 1
            self.loop_bound.pop()
            self.certain = was_certain
        if stmt.orelse:
            self.uncertain_branches([stmt.orelse])

    def run_iteration(self, body: List[ast.stmt]) -> Optional[str]:
        """One certain iteration; returns "break" when the loop certainly ends here."""
        was_certain = self.certain
        try:
            self.exec_block(body)
        except Flow as flow:
            if flow.kind == "continue":
                self.certain = was_certain
                return None
            if flow.kind == "break":
                self.certain = was_certain
                return "break"
            raise
        # An uncertain continue only spoils this iteration; break/return/raise spoil the loop.
        if (
            not self.certain
            and was_certain
            and not any(
                isinstance(n, (ast.Break, ast.Return, ast.Raise)) for s in body for n in ast.walk(s)
            )
        ):
            self.certain = True
        return None

    def uncertain_loop(self, body: List[ast.stmt], target: Optional[ast.expr] = None) -> None:
        was_certain = self.certain
        self.certain = False
        if target is not None:
            self.assign(target, UNKNOWN, target)
        try:
            self.exec_block(body)
        except Flow:
            pass
        names = assigned_names(body)
        if target is not None:
            names |= assigned_names([_target_stmt(target)])
        self.forget(names)
        self.certain = was_certain

    # ------------------------------------------------------------- assignment

    def assign(self, target: ast.expr, value: Any, value_node: ast.AST) -> None:
        if isinstance(target, ast.Name):
            self.bind(target.id, value)
        elif isinstance(target, (ast.Tuple, ast.List)):
            parts = self.unpack(
                value,
                len(target.elts),
                target,
                value_node,
                any(isinstance(e, ast.Starred) for e in target.elts),
            )
            for element, part in zip(target.elts, parts):
                if isinstance(element, ast.Starred):
                    self.assign(element.value, UNKNOWN, value_node)
                else:
                    self.assign(element, part, value_node)
        elif isinstance(target, ast.Subscript):
            base = self.eval(target.value)
            key = self.eval(target.slice)
            answer = rules_pandas.set_item(self, target, base, key, value)
            if answer is None and self.certain:  # in place: only on a path that certainly runs
                answer = rules_numpy.set_item(self, target, base, key, value)
            if answer is None and self.certain:
                answer = rules_torch.set_item(self, target, base, key, value)
            if answer is None and self.certain:
                answer = rules_python.container_set_item(target, base, key, value)
            new = self.outcome(answer, target) if answer is not None else None
            if isinstance(target.value, ast.Name) and new is not None:
                self.bind(target.value.id, new)
            else:
                self.havoc_value(base)
                if isinstance(target.value, ast.Name) and answer is None:
                    self.bind(target.value.id, UNKNOWN)
                self.havoc_owner(target.value)
        elif isinstance(target, ast.Attribute):
            base = self.eval(target.value)
            answer = rules_pandas.set_attribute(self, target, base, value)
            new = self.outcome(answer, target) if answer is not None else None
            if isinstance(target.value, ast.Name) and new is not None:
                self.bind(target.value.id, new)
                return
            self.havoc_value(base)
            if isinstance(target.value, ast.Name):
                self.bind(target.value.id, UNKNOWN)
        elif isinstance(target, ast.Starred):
            self.assign(target.value, UNKNOWN, value_node)

    def unpack(
        self, value: Any, count: int, target: ast.AST, node: ast.AST, starred: bool
    ) -> List[Any]:
        answer = rules_python.unpack(value, count, starred, node)
        if isinstance(answer, Raise):
            self.report(answer, node)
        if isinstance(answer, Result) and isinstance(answer.value, list):
            return answer.value
        return [UNKNOWN] * count

    # ------------------------------------------------------------- expressions

    def eval(self, node: ast.expr) -> Any:
        handler = getattr(self, "expr_" + type(node).__name__, None)
        if handler is None:
            for child in ast.iter_child_nodes(node):
                if isinstance(child, ast.expr):
                    self.eval(child)
            return UNKNOWN
        value = handler(node)
        if isinstance(value, Val) and gate.lookup_runs_user_code(value.obj):
            return UNKNOWN  # even isinstance() on it would run the user's code
        return value

    def expr_Constant(self, node: ast.Constant) -> Any:
        return Val(node.value, origin="literal")

    def expr_Name(self, node: ast.Name) -> Any:
        return self.lookup(node.id, node)

    def expr_JoinedStr(self, node: ast.JoinedStr) -> Any:
        for part in node.values:
            if isinstance(part, ast.FormattedValue):
                self.eval(part.value)
        return UNKNOWN

    def _elements(self, elts: List[ast.expr]) -> Optional[List[Any]]:
        values = []
        known = True
        for element in elts:
            if isinstance(element, ast.Starred):
                self.eval(element.value)
                known = False
                continue
            value = self.eval(element)
            values.append(value)
            if not isinstance(value, Val) or value.live:
                known = False  # a user's own object (no shadow) never enters a built container
        return [v.obj for v in values] if known else None

    def expr_List(self, node: ast.List) -> Any:
        items = self._elements(node.elts)
        return Val(items, origin="literal") if items is not None else UNKNOWN

    def expr_Tuple(self, node: ast.Tuple) -> Any:
        items = self._elements(node.elts)
        return Val(tuple(items), origin="literal") if items is not None else UNKNOWN

    def expr_Set(self, node: ast.Set) -> Any:
        items = self._elements(node.elts)
        if items is None:
            return UNKNOWN
        try:
            return Val(set(items), origin="literal")
        except TypeError:
            return UNKNOWN

    def expr_Dict(self, node: ast.Dict) -> Any:
        result: Dict[Any, Any] = {}
        known = True
        for key_node, value_node in zip(node.keys, node.values):
            key = self.eval(key_node) if key_node is not None else UNKNOWN
            value = self.eval(value_node)
            if key_node is None or not isinstance(key, Val) or not isinstance(value, Val):
                known = False
                continue
            if key.live or value.live:
                known = False
                continue
            try:
                result[key.obj] = value.obj
            except TypeError:
                known = False
        return Val(result, origin="literal") if known else UNKNOWN

    def expr_Attribute(self, node: ast.Attribute) -> Any:
        base = self.eval(node.value)
        if not isinstance(base, Val):
            return UNKNOWN
        for module in RULE_MODULES:
            answer = self.ask(module.on_attribute, node, base)
            got = self.outcome(answer, node)
            if got is not None:
                return got
        return UNKNOWN

    def expr_Subscript(self, node: ast.Subscript) -> Any:
        base = self.eval(node.value)
        key = self.eval(node.slice)
        if not isinstance(base, Val):
            return UNKNOWN
        if gate.subscript_runs_user_code(base.obj):
            return UNKNOWN  # CG[int]: the class's __class_getitem__ is user code
        if isinstance(key, Val) and not gate.rule_inputs_allowed([key.obj]):
            return UNKNOWN  # a callable key (loc[f], df[f]) would be called by the library
        for module in RULE_MODULES:
            answer = self.ask(module.on_subscript, node, base, key)
            got = self.outcome(answer, node)
            if got is not None:
                return got
        return UNKNOWN

    def expr_Slice(self, node: ast.Slice) -> Any:
        parts: List[Any] = []
        for part in (node.lower, node.upper, node.step):
            if part is None:
                parts.append(None)
                continue
            value = self.eval(part)
            if not isinstance(value, Val) or gate.index_runs_user_code(value.obj):
                return UNKNOWN  # a user `__index__` would run when the slice is applied
            parts.append(value.obj)
        return Val(slice(*parts), origin="literal")

    def expr_Index(self, node: Any) -> Any:  # Python 3.8 ast
        return self.eval(node.value)

    def expr_BinOp(self, node: ast.BinOp) -> Any:
        return self.binop(node, node)

    def binop(self, node: ast.BinOp, where: ast.AST) -> Any:
        left = self.eval(node.left)
        right = self.eval(node.right)
        if not isinstance(left, Val) or not isinstance(right, Val):
            return UNKNOWN
        if gate.binop_too_large(type(node.op).__name__, left.obj, right.obj):
            return UNKNOWN
        for module in RULE_MODULES:
            answer = self.ask(module.on_binop, node, left, right)
            got = self.outcome(answer, node)
            if got is not None:
                return got
        return UNKNOWN

    def expr_UnaryOp(self, node: ast.UnaryOp) -> Any:
        import operator

        operand = self.eval(node.operand)
        if not isinstance(operand, Val):
            return UNKNOWN
        if isinstance(node.op, ast.Not):
            truth = self.truth(operand)
            return Val(not truth) if truth is not None else UNKNOWN
        if not (is_plain_data(operand.obj) or is_library_object(operand.obj)):
            return UNKNOWN
        unary: Dict[type, Any] = {
            ast.USub: operator.neg,
            ast.UAdd: operator.pos,
            ast.Invert: operator.invert,
        }
        func = unary[type(node.op)]
        try:
            with quiet():
                result = func(operand.obj)
        except Exception:
            return UNKNOWN
        return Val(result, sampled=operand.sampled, rows=operand.rows, fake=operand.fake)

    def expr_BoolOp(self, node: ast.BoolOp) -> Any:
        """`a or b`, `a and b`: each operand is certainly evaluated while the ones before it
        have known truth values that do not decide the result."""
        deciding = isinstance(node.op, ast.Or)
        last: Any = UNKNOWN
        for position, operand in enumerate(node.values):
            last = self.eval(operand)
            truth = self.truth(last) if isinstance(last, Val) else None
            if truth is None:
                rest = node.values[position + 1 :]
                if rest:
                    was_certain = self.certain
                    self.certain = False
                    for value in rest:
                        self.eval(value)
                    self.certain = was_certain
                    return UNKNOWN
                return last
            if truth is deciding:
                return last
        return last

    def expr_Compare(self, node: ast.Compare) -> Any:
        left = self.eval(node.left)
        rights = [self.eval(c) for c in node.comparators]
        if len(rights) != 1 or not isinstance(left, Val) or not isinstance(rights[0], Val):
            return UNKNOWN
        return rules_python.compare(left, node.ops[0], rights[0])

    def expr_IfExp(self, node: ast.IfExp) -> Any:
        truth = self.truth(self.eval(node.test))
        if truth is True:
            return self.eval(node.body)
        if truth is False:
            return self.eval(node.orelse)
        was_certain = self.certain
        self.certain = False
        self.eval(node.body)
        self.eval(node.orelse)
        self.certain = was_certain
        return UNKNOWN

    def expr_Lambda(self, node: ast.Lambda) -> Any:
        user = UserFunction("<lambda>", tuple(_loaded_names(node.body)))
        if self.parent is None:  # a lambda in a function closes over its frame: not walked
            user.node = _lambda_function(node)
        return Val(user, origin="cell")

    def expr_Starred(self, node: ast.Starred) -> Any:
        self.eval(node.value)
        return UNKNOWN

    def expr_NamedExpr(self, node: ast.NamedExpr) -> Any:
        value = self.eval(node.value)
        self.bind(node.target.id, value)
        return value

    def expr_ListComp(self, node: Any) -> Any:
        return self.comprehension(node, list)

    def expr_SetComp(self, node: Any) -> Any:
        return self.comprehension(node, set)

    def expr_GeneratorExp(self, node: Any) -> Any:
        return self.comprehension(node, list, lazy=True)

    def expr_DictComp(self, node: Any) -> Any:
        return self.comprehension(node, dict)

    def comprehension(self, node: Any, kind: type, lazy: bool = False) -> Any:
        """Unroll a comprehension over a known iterable in a child scope."""
        saved_env = dict(self.env)
        saved_certain = self.certain
        if lazy:
            # A generator runs only when consumed: judge nothing inside it.
            self.certain = False
        results: List[Any] = []
        known = True
        try:
            known = self._comprehend(node, 0, results)
        except StopWalk:
            raise
        finally:
            comp_names = {
                n.id for g in node.generators for n in ast.walk(g.target) if isinstance(n, ast.Name)
            }
            for name in comp_names:
                if name in saved_env:
                    self.env[name] = saved_env[name]
                else:
                    self.env.pop(name, None)
            self.certain = saved_certain
        if not known or lazy:
            return UNKNOWN
        try:
            if kind is dict:
                return Val(dict(results))
            return Val(kind(results))
        except TypeError:
            return UNKNOWN

    def _comprehend(self, node: Any, level: int, results: List[Any]) -> bool:
        generator = node.generators[level]
        items, complete = self.iterate(self.eval(generator.iter), generator.iter)
        if items is None:
            was = self.certain
            self.certain = False
            self.assign(generator.target, UNKNOWN, generator.iter)
            for cond in generator.ifs:
                self.eval(cond)
            self._comprehension_element(node)
            self.certain = was
            return False
        known = complete
        for item in items:
            self.assign(generator.target, item, generator.iter)
            was = self.certain
            skip = False
            for cond in generator.ifs:
                truth = self.truth(self.eval(cond))
                if truth is False:
                    skip = True
                    break
                if truth is None:
                    self.certain = False
                    known = False
            if not skip:
                if level + 1 < len(node.generators):
                    known = self._comprehend(node, level + 1, results) and known
                else:
                    element = self._comprehension_element(node)
                    if element is None:
                        known = False
                    else:
                        results.append(element)
            self.certain = was
        return known

    def _comprehension_element(self, node: Any) -> Any:
        if isinstance(node, ast.DictComp):
            key = self.eval(node.key)
            value = self.eval(node.value)
            if isinstance(key, Val) and isinstance(value, Val):
                return (key.obj, value.obj)
            return None
        value = self.eval(node.elt)
        return value.obj if isinstance(value, Val) else None

    # ------------------------------------------------------------------- calls

    def expr_Call(self, node: ast.Call) -> Any:
        func = self.callee(node.func)
        args: List[Any] = []
        has_star = False
        for arg in node.args:
            if isinstance(arg, ast.Starred):
                starred = self.eval(arg.value)
                expanded = self.iterate(starred, arg.value)[0] if isinstance(starred, Val) else None
                if expanded is None or not is_plain_data(starred.obj):
                    has_star = True
                else:
                    args.extend(expanded)
            else:
                args.append(self.eval(arg))
        kwargs: Dict[str, Any] = {}
        for keyword in node.keywords:
            value = self.eval(keyword.value)
            if keyword.arg is None:
                if (
                    isinstance(value, Val)
                    and type(value.obj) is dict
                    and all(isinstance(k, str) for k in value.obj)
                ):
                    for k, v in value.obj.items():
                        kwargs[k] = Val(v)
                else:
                    has_star = True
            else:
                kwargs[keyword.arg] = value
        site = CallSite(node, func, args, kwargs, has_star, _dotted(node.func))
        return self.call(site)

    def callee(self, node: ast.expr) -> Any:
        """The called object; `x.method` becomes a BoundMethod when x is tracked."""
        if isinstance(node, ast.Attribute):
            base = self.eval(node.value)
            if not isinstance(base, Val):
                return UNKNOWN
            receiver = base.obj
            if isinstance(receiver, LibraryRef):
                return Val(receiver.child(node.attr))
            if is_library_object(receiver) or type(receiver).__name__ == "module":
                for module in RULE_MODULES:
                    answer = self.ask(module.on_attribute, node, base)
                    got = self.outcome(answer, node)
                    if got is not None:
                        if (
                            isinstance(got, Val)
                            and callable(got.obj)
                            and not isinstance(receiver, type(sys))
                        ):
                            return BoundMethod(base, node.attr, got.obj)
                        return got
                return UNKNOWN
            method = _static_attribute(receiver, node.attr)
            if method is not None:
                return Val(
                    UserFunction(
                        node.attr,
                        _function_globals(method),
                        _defines_globals(method),
                        func=method,
                        bound_self=base,
                    )
                )
            for module in RULE_MODULES:  # e.g. a layer stored on a user nn.Module
                got = self.outcome(self.ask(module.on_attribute, node, base), node)
                if isinstance(got, Val):
                    return got
                if got is not None:
                    break
            return BoundMethod(base, node.attr, None)
        return self.eval(node)

    def call(self, site: CallSite) -> Any:
        handed = rules_pandas.apply_user_function(self, site)
        if handed is not None:
            return self.outcome(handed, site.node)
        try:
            values = [
                v.obj for v in list(site.args) + list(site.kwargs.values()) if isinstance(v, Val)
            ]
            if gate.rule_inputs_allowed(values):  # rules hand their inputs to library code
                for module in RULE_MODULES:
                    answer = self.ask(module.on_call, site)
                    got = self.outcome(answer, site.node)
                    if got is not None:
                        return got
            return self.call_generic(site)
        finally:
            if not self.files_unreliable and purity.may_write_files(site):
                self.files_unreliable = True

    def call_generic(self, site: CallSite) -> Any:
        """Evaluate a pure library call for real, or forget what it may have touched."""
        func = site.func
        if isinstance(func, BoundMethod):
            if func.func is None:
                self.havoc_value(func.receiver)
                self.havoc_all(site)
                return UNKNOWN
            if purity.pure_method(func.receiver.obj, func.name, _plain_kwargs(site)):
                return self.evaluate(site, func.func, [func.receiver])
            if self.certain and not func.receiver.live:
                # the walk's own list, dict or set: changed in place, as the run will
                answer = rules_python.container_method(func.receiver, func.name, site)
                if answer is not None:
                    return self.outcome(answer, site.node)
            self.havoc_value(func.receiver)
            if func.name not in ARGUMENT_READING_METHODS:
                self.havoc_all(site)
            return UNKNOWN
        if not isinstance(func, Val):
            self.havoc_all(site)
            return UNKNOWN
        target = func.obj
        if (
            not isinstance(target, UserFunction)
            and isinstance(target, types.FunctionType)
            and rules_python.is_user_callable(target)
        ):
            target = UserFunction(
                target.__name__, _function_globals(target), _defines_globals(target), func=target
            )
        if not isinstance(target, UserFunction):
            forward = calls.module_forward(target)
            if forward is not None:
                result = calls.walk_call(
                    self, forward, site.args, site.kwargs, site.node, site.has_star
                )
                self.havoc_all(site)
                self.havoc_value(func)
                return result
        if plain_dataclass(target) and not site.has_star:
            return calls.build_record(target, site.args, site.kwargs)
        if isinstance(target, LibraryRef):
            if target.root not in rules_python.READ_ONLY_ROOTS:
                self.havoc_all(site)
            return UNKNOWN
        if isinstance(target, UserFunction):
            result = calls.walk_call(self, target, site.args, site.kwargs, site.node, site.has_star)
            self.havoc_all(site)
            if target.bound_self is not None:
                self.havoc_value(target.bound_self)
            self.havoc_names(target.global_names)
            if target.defines_globals:
                self.names_unreliable = True
            return result
        if purity.pure_builtin(target) is not None or purity.pure_function(target):
            return self.evaluate(site, target, [])
        if rules_python.is_user_callable(target):
            self.havoc_all(site)
            self.havoc_names(_function_globals(target))
            if _defines_globals(target):
                self.names_unreliable = True
            return UNKNOWN
        if not rules_python.reads_only(target):
            self.havoc_all(site)
        if getattr(target, "__name__", "") in (
            "exec",
            "eval",
            "globals",
            "locals",
            "vars",
            "setattr",
        ):
            self.names_unreliable = True
        return UNKNOWN

    def havoc_all(self, site: CallSite) -> None:
        for value in list(site.args) + list(site.kwargs.values()):
            self.havoc_value(value)

    def evaluate(self, site: CallSite, func: Any, inputs: List[Val]) -> Any:
        """Call a pure library function on tracked values; a raise becomes a finding."""
        if purity.pure_builtin(func) in purity.ITERATING_BUILTINS:
            site = _through_progress_bars(site)
        values = list(site.args) + list(site.kwargs.values())
        if site.has_star or not all(isinstance(v, Val) for v in values):
            return UNKNOWN
        everything = inputs + values
        for value in everything:
            obj = value.obj
            if not (is_library_object(obj) or is_plain_data(obj)) or isinstance(obj, UserFunction):
                return UNKNOWN
        sampled = any(v.sampled for v in everything)
        fake = any(v.fake for v in everything)
        builtin = purity.pure_builtin(func)
        start = _enumerate_start(site) if builtin == "enumerate" else None
        if start is not None:
            batch = rules_torch.loader_batch(site.args[0].obj, self, site.node)
            if batch is not None:
                batch = shadows.shadow_batch(batch)
            if batch is not None:
                # The first (index, batch) pair; the loop's later iterations are not judged.
                return Val([(start, batch)], sampled=True, rows=1 << 30, origin="standin")
        if builtin == "len" and len(site.args) == 1:
            length = length_of(site.args[0])
            return Val(length) if length is not None else UNKNOWN
        if any(v.live for v in everything):
            return UNKNOWN  # the user's own object: no shadow of it exists to evaluate on
        if builtin in purity.ITERATING_BUILTINS and not all(
            safe_to_iterate(v.obj) or not _iterable(v.obj) for v in everything
        ):
            return UNKNOWN  # never iterate loaders, generators or user containers
        if gate.call_allowed(func, [v.obj for v in site.args], _plain_kwargs(site)) is not None:
            self.havoc_all(site)  # the real call may change what it was given
            for value in inputs:
                self.havoc_value(value)
            return UNKNOWN
        try:
            with quiet():
                result = func(
                    *[v.obj for v in site.args], **{k: v.obj for k, v in site.kwargs.items()}
                )
                if purity.pure_builtin(func) in ("enumerate", "zip", "reversed"):
                    result = list(result)  # iterate our own copy, never a lazy object twice
        except Exception as exc:  # the real call would raise the same on exact inputs
            if fake or not self.certain or shadows.shadow_limit(exc):
                return UNKNOWN
            if sampled and not self.raises_without_rows(site, exc):
                return UNKNOWN
            self.report(rules_python.raised(exc, site), site.node)
            return UNKNOWN
        if not sampled:
            standin = any(v.origin == "standin" for v in everything)
            return Val(result, fake=fake, origin="standin" if standin else "")
        if is_dataframe(result) and self.columns_from_rows(site, result):
            return UNKNOWN  # columns named by values of the sample's rows (get_dummies, pivot)
        # Computed on a sample: the true row count is known only for row-preserving operations.
        rows = rules_pandas.rows_after(func, inputs, site)
        return Val(result, sampled=True, rows=rows, fake=fake)

    def raises_without_rows(self, site: CallSite, exc: Exception) -> bool:
        """A call that raised on a head sample raises the same on no rows at all: what it
        objects to is not in the rows, so the whole data fails it too (the sample keeps the
        dtypes, labels of columns and index type of all rows). Lookups (KeyError, IndexError)
        are never judged so: a row label or position beyond the sample may exist. Only pandas
        is judged so: numpy's errors are mostly about shapes, where the rows the sample lacks
        may be what makes a shape fit (a square matrix larger than the sample)."""
        if isinstance(exc, LookupError):
            return False
        func = site.func
        if isinstance(func, BoundMethod):
            if type_root(type(func.receiver.obj)) != "pandas":
                return False
        elif not (isinstance(func, Val) and type_root(func.obj) == "pandas"):
            return False
        inputs = [*site.args, *site.kwargs.values()]
        if isinstance(func, BoundMethod):
            inputs.append(func.receiver)
        if sum(1 for v in inputs if isinstance(v, Val) and v.sampled) != 1 or not all(
            v.sampled or _small_plain(v.obj) for v in inputs if isinstance(v, Val)
        ):
            return False  # one sample, beside nothing whose size could relate to its rows
        outcome, again = self.call_without_rows(site)
        return outcome == "raised" and type(again) is type(exc) and str(again) == str(exc)

    def columns_from_rows(self, site: CallSite, result: Any) -> bool:
        """Do the columns of a frame computed from a sample depend on the rows (get_dummies,
        pivot, unstack)? Computed once more on no rows: other columns, or no answer, is yes."""
        outcome, again = self.call_without_rows(site)
        pd = loaded("pandas")
        return not (
            outcome == "returned"
            and pd is not None
            and type(again) is pd.DataFrame
            and again.columns.equals(result.columns)
        )

    def call_without_rows(self, site: CallSite) -> Tuple[str, Any]:
        """The call once more with every sampled input cut to no rows: ("raised", exception),
        ("returned", value), or ("impossible", None) when an input cannot be cut that way."""
        func = site.func
        receiver = None
        if isinstance(func, BoundMethod):
            receiver = shadows.without_rows(func.receiver)
            if receiver is shadows.NOT_SHADOWED or not is_library_object(receiver):
                return "impossible", None
        elif not (isinstance(func, Val) and purity.pure_function(func.obj)):
            return "impossible", None
        args = [shadows.without_rows(v) for v in site.args]
        kwargs = {k: shadows.without_rows(v) for k, v in site.kwargs.items()}
        if any(a is shadows.NOT_SHADOWED for a in [*args, *kwargs.values()]):
            return "impossible", None
        try:
            target = getattr(receiver, func.name) if receiver is not None else func.obj
        except Exception:
            return "impossible", None
        if gate.call_allowed(target, args, kwargs) is not None:
            return "impossible", None
        try:
            with quiet():
                return "returned", target(*args, **kwargs)
        except Exception as again:
            return "raised", again

    # ----------------------------------------------------------------- helpers

    def truth(self, value: Any) -> Optional[bool]:
        """The truth value of a tracked value when it is safe and certain to compute."""
        if not isinstance(value, Val) or value.sampled or value.fake:
            return None
        obj = value.obj
        if type(obj) in (bool, int, float, str, bytes, list, tuple, dict, set, type(None), range):
            return bool(obj)
        np = loaded("numpy")
        if np is not None and isinstance(obj, np.bool_):
            return bool(obj)
        return None

    def iterate(self, value: Any, node: ast.AST) -> Tuple[Optional[List[Any]], bool]:
        """The first items of a tracked iterable and whether they are all of them."""
        if not isinstance(value, Val):
            return None, False
        if isinstance(value.obj, ProgressBar):
            return self.iterate(value.obj.inner, node)
        items = rules_python.iteration_items(value, MAX_UNROLL, self)
        if items is None:
            return None, False
        listed, complete = items
        origin = "standin" if value.origin == "standin" else ""
        return [
            Val(i, fake=value.fake, origin=origin) if not isinstance(i, Val) else i for i in listed
        ], complete


# Containers beside a sample stay this small: their length can never be a sample's (at least
# SAMPLE_ROWS rows) nor all rows' (more than that), so an error about it is an error on all rows.
SMALL_CONTAINER = 64


def _small_plain(obj: Any) -> bool:
    """A scalar, text, slice or small container of them (no rows of their own)."""
    if obj is None or type(obj) in (bool, int, float, complex, str, bytes, slice):
        return True
    if type(obj) in (list, tuple, set, frozenset):
        return len(obj) <= SMALL_CONTAINER and all(_small_plain(item) for item in obj)
    if type(obj) is dict:
        return len(obj) <= SMALL_CONTAINER and all(
            _small_plain(k) and _small_plain(v) for k, v in obj.items()
        )
    return False


def _through_progress_bars(site: CallSite) -> CallSite:
    """`enumerate(tqdm(x))`, `list(tqdm(x))`: a builtin that iterates a bar iterates `x`."""
    args = [
        a.obj.inner if isinstance(a, Val) and isinstance(a.obj, ProgressBar) else a
        for a in site.args
    ]
    if all(new is old for new, old in zip(args, site.args)):
        return site
    return CallSite(site.node, site.func, args, site.kwargs, site.has_star, site.name)


def _enumerate_start(site: CallSite) -> Optional[int]:
    """The start of `enumerate(x)`, `enumerate(x, 1)` or `enumerate(x, start=1)`, if plain."""
    args, kwargs = site.args, site.kwargs
    if not args or len(args) > 2 or set(kwargs) - {"start"} or (len(args) == 2 and kwargs):
        return None
    given = args[1] if len(args) == 2 else kwargs.get("start")
    if given is None:
        return 0
    return given.obj if isinstance(given, Val) and type(given.obj) is int else None


def _iterable(obj: Any) -> bool:
    return hasattr(type(obj), "__iter__") or hasattr(type(obj), "__getitem__")


def _plain_kwargs(site: CallSite) -> Dict[str, Any]:
    return {k: v.obj for k, v in site.kwargs.items() if isinstance(v, Val)}


def _as_load(target: ast.expr) -> ast.expr:
    clone = ast.parse(ast.unparse(target), mode="eval").body if hasattr(ast, "unparse") else target
    ast.copy_location(clone, target)
    for sub in ast.walk(clone):
        if hasattr(sub, "lineno"):
            ast.copy_location(sub, target)
    return clone


def _target_stmt(target: ast.expr) -> ast.stmt:
    return ast.Assign(targets=[target], value=ast.Constant(None))


def _dotted(node: ast.expr) -> str:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return _dotted(node.value) + "." + node.attr
    if isinstance(node, ast.Call):
        return _dotted(node.func) + "()"
    return "<expr>"


def _loaded_names(node: ast.AST) -> Set[str]:
    return {n.id for n in ast.walk(node) if isinstance(n, ast.Name)}


def _user_function_from_ast(node: Any) -> UserFunction:
    names = tuple(sorted(_loaded_names(node)))
    defines = any(isinstance(n, ast.Global) for n in ast.walk(node))
    return UserFunction(
        node.name, names, defines, node=node if isinstance(node, ast.FunctionDef) else None
    )


def _lambda_function(node: ast.Lambda) -> ast.FunctionDef:
    """A lambda as the function it is: `def <lambda>(args): return body`, at its place."""
    body = ast.Return(value=node.body)
    ast.copy_location(body, node.body)
    function = ast.FunctionDef(
        name="<lambda>", args=node.args, body=[body], decorator_list=[], returns=None
    )
    ast.copy_location(function, node)
    return function


def _static_attribute(obj: Any, name: str) -> Any:
    """A plain function found on the class of a user object, without running user code."""
    import inspect

    if name in as_dict(obj):
        return None
    try:
        found = inspect.getattr_static(obj, name)
    except AttributeError:
        return None
    if isinstance(found, (staticmethod, classmethod)):
        found = found.__func__
    if not callable(found) or not hasattr(found, "__code__"):
        return None
    module = getattr(found, "__module__", None) or "__main__"
    return None if rules_python.type_root_name(module) in LIBRARY_ROOTS else found


def _function_globals(func: Any) -> Tuple[str, ...]:
    code = getattr(func, "__code__", None)
    names: Set[str] = set()
    stack = [code] if code is not None else []
    while stack:
        current = stack.pop()
        names.update(current.co_names)
        stack.extend(c for c in current.co_consts if hasattr(c, "co_names"))
    return tuple(sorted(names))


def _defines_globals(func: Any) -> bool:
    import dis

    code = getattr(func, "__code__", None)
    if code is None:
        return True
    stack = [code]
    while stack:
        current = stack.pop()
        for instruction in dis.get_instructions(current):
            if instruction.opname in ("STORE_GLOBAL", "DELETE_GLOBAL"):
                return True
        stack.extend(c for c in current.co_consts if hasattr(c, "co_names"))
    return False


def prepare_source(source: str) -> Tuple[str, int]:
    """IPython-transformed source and the line offset of the analysed body."""
    offset = 0
    stripped = source.lstrip("\n")
    if stripped.startswith("%%"):
        first, _, rest = source.partition("\n")
        magic = first.strip()[2:].split()[0] if first.strip()[2:] else ""
        if magic not in ("time", "capture", "crane", "crane_llm"):
            return "", 0
        source, offset = rest, 1
    ipython = sys.modules.get("IPython")
    shell = ipython.get_ipython() if ipython is not None else None
    if shell is not None:
        try:
            if gate.prefilter_allowed(shell.user_ns, source):
                source = shell.transform_cell(source)
            else:  # the static transforms only: no namespace lookup of the cell's first name
                lines = shell.input_transformer_manager.transform_cell(source)
                parts = lines.splitlines(keepends=True)
                for transform in shell.input_transformers_post:
                    parts = transform(parts)
                source = "".join(parts)
        except Exception:
            pass
    return source, offset


def check_source(source: str, namespace: Optional[Dict[str, Any]] = None) -> List[Dict[str, Any]]:
    """Findings (Finding JSON dicts) for one cell against a namespace (default: the user's)."""
    return run_checker(source, namespace)[0]


def run_checker(
    source: str, namespace: Optional[Dict[str, Any]] = None
) -> Tuple[List[Dict[str, Any]], List[str]]:
    """Findings for one cell, and the errors of rules that failed (skipped)."""
    findings, errors, _ = walk_cell(source, namespace)
    return findings, errors


def walk_cell(
    source: str, namespace: Optional[Dict[str, Any]] = None
) -> Tuple[List[Dict[str, Any]], List[str], bool]:
    """Findings, rule errors, and whether the walk stopped because its budget was spent."""
    _, findings, errors, spent = _walk(source, namespace)
    return findings, errors, spent


def _walk(
    source: str, namespace: Optional[Dict[str, Any]] = None
) -> Tuple[Optional[Checker], List[Dict[str, Any]], List[str], bool]:
    if namespace is None:
        namespace = _user_namespace()
    code, offset = prepare_source(source)
    return _walk_code(code, offset, namespace, None)


def walk_prepared(
    code: str, offset: int, namespace: Dict[str, Any], tracked: Dict[int, Any]
) -> Tuple[List[Dict[str, Any]], List[str], bool]:
    """Walk already transformed code over a namespace whose tracked forms are given (helper)."""
    _, findings, errors, spent = _walk_code(code, offset, namespace, tracked)
    return findings, errors, spent


def _walk_code(
    code: str, offset: int, namespace: Dict[str, Any], tracked: Optional[Dict[int, Any]]
) -> Tuple[Optional[Checker], List[Dict[str, Any]], List[str], bool]:
    if not code.strip():
        return None, [], [], False
    try:
        tree = ast.parse(code)
    except SyntaxError as exc:
        return None, [rules_python.syntax_error(exc, offset)], [], False
    checker = Checker(tree, code.splitlines(), namespace, offset, tracked)
    checker.code = code
    with quiet():
        try:
            checker.run()
        except Exception as exc:  # a defect of the walker itself: judge nothing
            checker.rule_errors.append("checker: %s: %s" % (type(exc).__name__, exc))
            return None, [], checker.rule_errors, False
    return checker, checker.findings, checker.rule_errors, checker.budget_spent[0]


def check_request(payload: Dict[str, Any]) -> Dict[str, Any]:
    """payload: {"source": cell text, "handoff": bool} -> {"findings": [...], "handoff"?}.

    With `handoff` set (the daemon can start a helper interpreter) and a cell that imports a
    library the kernel has not loaded before its first finding, or library code that tried to
    import a module lazily (refused in the kernel, see imports.py) before any finding, the
    reply carries what a helper needs to walk the cell again with those modules imported
    (see handoff.py).
    """
    source = payload.get("source", "")
    started = time.perf_counter()
    checker, findings, errors, budget_spent = _walk(source)
    reply: Dict[str, Any] = {
        "findings": findings,
        "rule_errors": errors[:20],
        "budget_spent": budget_spent,
    }
    refused: List[str] = []
    if checker is not None and imports.refused_count() != checker.refused_at_start:
        refused = [] if findings else imports.refused_names()
    if payload.get("handoff") and checker is not None and (checker.unloaded or refused):
        first_line = min([line for _, line in checker.unloaded] or [0])
        if not findings or findings[0].get("line", 0) >= first_line:
            from . import handoff

            try:
                request = handoff.build(
                    checker,
                    checker.code,
                    checker.line_offset,
                    [m for m, _ in checker.unloaded] + refused,
                    lazy=bool(refused),
                )
            except Exception as exc:
                errors.append("handoff: %s: %s" % (type(exc).__name__, exc))
                request = None
            if request is not None:
                reply["handoff"] = request
    reply["check_ms"] = (time.perf_counter() - started) * 1000.0
    return reply
