"""polars rules: plan-level errors decided from schemas alone, and pandas spellings.

A method call on a polars DataFrame or LazyFrame is rebuilt on a lazy plan (`frame.lazy()`,
or the LazyFrame itself) with the same evaluated arguments, and polars' own analyser is asked
for the result's schema (`collect_schema()`): nothing is ever collected, no data is touched.
A schema-level polars error there (a missing column, a dtype that an operation refuses, a
join key mismatch, a duplicate name) is certain: the eager call raises it at the call, a
LazyFrame raises it where the plan is resolved (`collect`, `collect_schema`, `.schema`...).
The result of an eager call is carried as a `Planned` stand-in (its plan, never its data),
so only schema facts are ever judged from it. Arguments holding anything but polars
expressions, dtypes and plain data (a user function, a lambda) leave the plan unbuilt.
"""

from __future__ import annotations

import ast
import datetime
import re
from typing import Any, Dict, List, Optional, Tuple

from ..outcomes import CallSite, Raise, Result
from ..quiet import quiet
from ..values import UNKNOWN, BoundMethod, Val, is_plain_data, loaded
from .frames import has_static, missing_column_raise
from .python import _binops as binary_operators

# Methods of DataFrame / LazyFrame that build a plan (same name on both).
PLAN_METHODS = frozenset(
    """select select_seq with_columns with_columns_seq filter sort drop rename unique unpivot
    explode cast join join_where group_by head tail limit slice drop_nulls fill_null fill_nan
    with_row_index unnest reverse top_k bottom_k sum mean min max median std var
    null_count count first last drop_nans shift""".split()
)
# Methods of a (Lazy)GroupBy that finish a plan.
GROUP_METHODS = frozenset(
    "agg len sum mean min max median first last n_unique count all head tail".split()
)
# Functions of the polars namespace that only build an expression.
EXPRESSION_FUNCTIONS = frozenset(
    """col lit when all exclude len first last sum mean min max count concat_str concat_list
    struct coalesce any_horizontal all_horizontal sum_horizontal max_horizontal min_horizontal
    mean_horizontal format element n_unique median std var quantile implode nth int_range
    date datetime duration""".split()
)
# Expression methods that take user code.
UDF_METHODS = frozenset({"map_elements", "map_batches", "pipe", "apply", "map", "inspect"})
# Where a LazyFrame's plan is resolved: methods and attributes.
RESOLVE_METHODS = frozenset({"collect", "collect_schema", "collect_async", "explain"})
RESOLVE_ATTRIBUTES = frozenset({"schema", "columns", "dtypes", "width"})
# Schema-level errors of polars' analyser (by class name, in polars.exceptions).
PLAN_ERRORS = frozenset(
    """ColumnNotFoundError SchemaError SchemaFieldNotFoundError InvalidOperationError
    DuplicateError ShapeError StructFieldNotFoundError""".split()
)
# pandas spellings and their polars equivalents (suggested only where polars has them).
PANDAS_SPELLINGS = {
    "groupby": "group_by",
    "sort_values": "sort",
    "drop_duplicates": "unique",
    "fillna": "fill_null",
    "isna": "is_null",
    "isnull": "is_null",
    "notna": "is_not_null",
    "astype": "cast",
    "merge": "join",
    "melt": "unpivot",
    "apply": "map_rows",
    "assign": "with_columns",
    "query": "filter",
    "nunique": "n_unique",
    "dropna": "drop_nulls",
    "iloc": "row / slice",
    "loc": "filter",
    "shape": "collect_schema().len() (width; the height needs collect)",
}


class Planned:
    """An eager DataFrame (or GroupBy) the cell would compute: only its lazy plan is kept."""

    __slots__ = ("plan",)

    def __init__(self, plan: Any) -> None:
        self.plan = plan


class PolarsMethod:
    """`receiver.name` of a polars frame or a Planned stand-in, called later."""

    __slots__ = ("name", "receiver")

    def __init__(self, receiver: Val, name: str) -> None:
        self.receiver = receiver
        self.name = name


class PolarsFunction:
    """`pl.<name>` for an expression function or `concat`, called later.

    `pl.col` answers any attribute read (`pl.col.__name__` is an expression), so the walk
    carries this plain stand-in that names the function instead."""

    __slots__ = ("name",)

    def __init__(self, name: str) -> None:
        self.name = name

    def target(self) -> Any:
        pl = _pl()
        return vars(pl).get(self.name) if pl is not None else None


def _pl() -> Any:
    return loaded("polars")


def type_module(obj: Any) -> str:
    tp = obj if isinstance(obj, type) else type(obj)
    module = getattr(tp, "__module__", "")
    return module if isinstance(module, str) else ""


def _kind(obj: Any) -> Optional[str]:
    """frame | lazy | groupby | lazygroupby | series | expr | planned | None."""
    pl = _pl()
    if pl is None:
        return None
    if type(obj) is Planned:
        return "planned"
    tp = type(obj)
    if tp is pl.DataFrame:
        return "frame"
    if tp is pl.LazyFrame:
        return "lazy"
    if tp is pl.Series:
        return "series"
    if tp is pl.Expr:
        return "expr"
    group = loaded("polars.dataframe.group_by")
    if group is not None and tp is getattr(group, "GroupBy", None):
        return "groupby"
    lazy_group = loaded("polars.lazyframe.group_by")
    if lazy_group is not None and tp is getattr(lazy_group, "LazyGroupBy", None):
        return "lazygroupby"
    return None


def _expression_part(obj: Any) -> bool:
    """An expression namespace (`.str`, `.list`, `.dt`) or when/then of polars."""
    module = type_module(obj)
    return module.startswith("polars.expr.") or module == "polars.functions.whenthen"


def _pure_argument(obj: Any, depth: int = 0) -> bool:
    """Polars expressions, dtypes, frames, and plain data: safe to build a plan from."""
    pl = _pl()
    if pl is None or depth > 3:
        return False
    if type(obj) in (list, tuple):
        return len(obj) <= 1000 and all(_pure_argument(item, depth + 1) for item in obj)
    if type(obj) is dict:
        return len(obj) <= 1000 and all(
            is_plain_data(k) and _pure_argument(v, depth + 1) for k, v in obj.items()
        )
    if is_plain_data(obj):
        return True
    if type(obj) in (datetime.date, datetime.datetime, datetime.time, datetime.timedelta):
        return True
    if type(obj) in (pl.Expr, pl.DataFrame, pl.LazyFrame, pl.Series):
        return True
    datatypes = pl.datatypes
    if isinstance(obj, datatypes.DataType) or (
        isinstance(obj, type) and issubclass(obj, datatypes.DataType)
    ):
        return type_module(obj).startswith("polars.")
    return type_module(obj).startswith("polars.selectors")


def _plain(value: Any) -> Any:
    """The object of a walk value usable as a plan argument, else UNKNOWN."""
    if not isinstance(value, Val) or value.fake or value.sampled:
        return UNKNOWN
    obj = value.obj
    if type(obj) is Planned:
        return obj
    return obj if _pure_argument(obj) else UNKNOWN


def _lazy_arg(obj: Any) -> Any:
    """A frame argument as the plan sees it (a DataFrame's lazy view)."""
    pl = _pl()
    if type(obj) is Planned:
        return obj.plan
    if type(obj) is pl.DataFrame:
        return obj.lazy()
    return obj


def _plan_error(exc: BaseException) -> bool:
    return type(exc).__name__ in PLAN_ERRORS and type_module(exc).startswith("polars")


def _group_plan(plan: Any) -> bool:
    return _kind(plan) == "lazygroupby"


# ------------------------------------------------------------------------ hooks


def on_attribute(chk: Any, node: ast.Attribute, base: Val) -> Any:
    obj = base.obj
    kind = _kind(obj)
    pl = _pl()
    if kind is None:
        if type(obj) in (PolarsMethod, PolarsFunction):
            return Result(UNKNOWN)
        functions = EXPRESSION_FUNCTIONS | {"concat"}
        if pl is not None and obj is pl and node.attr in functions:
            return Result(Val(PolarsFunction(node.attr)))
        return None
    name = node.attr
    real_type: Any = {
        "planned": pl.DataFrame,
        "frame": pl.DataFrame,
        "lazy": pl.LazyFrame,
        "series": pl.Series,
    }.get(kind)
    if kind == "planned" and _group_plan(obj.plan):
        real_type = getattr(loaded("polars.dataframe.group_by"), "GroupBy", None)
    if kind in ("groupby", "lazygroupby"):
        real_type = type(obj)
    if real_type is not None and not name.startswith("_") and not has_static(real_type, name):
        return _missing_attribute(real_type, name, node)
    if kind == "expr":
        return None  # expressions: their (pure) methods are built in on_call
    if kind == "lazy" and name in RESOLVE_ATTRIBUTES:
        failure = _resolve(obj, node, chk)
        return failure if failure is not None else Result(UNKNOWN)
    if name in PLAN_METHODS or name in GROUP_METHODS or name in RESOLVE_METHODS or name == "lazy":
        return Result(Val(PolarsMethod(base, name)))
    if kind == "planned":
        return Result(UNKNOWN)
    return None


def _missing_attribute(real_type: Any, name: str, node: ast.AST) -> Raise:
    kind = real_type.__name__
    spelled = PANDAS_SPELLINGS.get(name)
    fix = None
    if spelled is not None:
        head = spelled.split(" ")[0].split("(")[0]
        if has_static(real_type, head):
            fix = "polars spells it %s" % spelled
    return Raise(
        "polars-missing-attribute",
        "AttributeError",
        "'%s' object has no attribute '%s'" % (kind, name),
        facts=["a polars %s has no attribute %r (a pandas spelling?)" % (kind, name)],
        fix=fix,
        node=node,
    )


def on_subscript(chk: Any, node: ast.Subscript, base: Val, key: Any) -> Any:
    kind = _kind(base.obj)
    if kind is None:
        return Result(UNKNOWN) if type(base.obj) in (PolarsMethod, PolarsFunction) else None
    if kind in ("frame", "planned") and isinstance(key, Val) and type(key.obj) is str:
        schema = _schema_of(base.obj)
        if schema is not None and key.obj not in schema:
            text = '"%s" not found' % key.obj
            return _column_raise("ColumnNotFoundError", text, key.obj, schema, node, chk)
    return Result(UNKNOWN)


def on_binop(chk: Any, node: ast.BinOp, left: Val, right: Val) -> Any:
    kinds = (_kind(left.obj), _kind(right.obj))
    if kinds == (None, None):
        return None
    if "expr" in kinds and all(k in ("expr", None) for k in kinds):
        return _expression_binop(node, left, right)
    return Result(UNKNOWN)  # frames and series: data, never computed


def _expression_binop(node: ast.BinOp, left: Val, right: Val) -> Any:
    func = binary_operators().get(type(node.op))
    a, b = _plain(left), _plain(right)
    if func is None or a is UNKNOWN or b is UNKNOWN or type(a) is Planned or type(b) is Planned:
        return Result(UNKNOWN)
    pl = _pl()
    if not (type(a) is pl.Expr or type(b) is pl.Expr):
        return Result(UNKNOWN)
    try:
        with quiet():
            built = func(a, b)
    except Exception:
        return Result(UNKNOWN)
    return Result(Val(built)) if type(built) is pl.Expr else Result(UNKNOWN)


def on_call(chk: Any, site: CallSite) -> Any:
    pl = _pl()
    if pl is None:
        return None
    func = site.func
    if isinstance(func, Val) and type(func.obj) is PolarsFunction:
        target = func.obj.target()
        if target is None:
            return Result(UNKNOWN)
        if func.obj.name == "concat":
            return _concat(chk, site)
        return _build_expression(site, target)
    if isinstance(func, Val) and type(func.obj) is PolarsMethod:
        return _method(chk, site, func.obj)
    if isinstance(func, BoundMethod) and func.func is not None:
        receiver = func.receiver.obj
        if type(receiver) is pl.Expr or _expression_part(receiver):
            if func.name.startswith("_") or func.name in UDF_METHODS:
                return Result(UNKNOWN)
            return _build_expression(site, func.func)
    return None


def _arguments(
    site: CallSite, skip_first: bool = False
) -> Optional[Tuple[List[Any], Dict[str, Any]]]:
    if site.has_star:
        return None
    args = [_plain(v) for v in site.args]
    if skip_first and args:
        args[0] = None
    kwargs = {k: _plain(v) for k, v in site.kwargs.items()}
    if any(a is UNKNOWN for a in args) or any(v is UNKNOWN for v in kwargs.values()):
        return None
    return [_lazy_arg(a) for a in args], {k: _lazy_arg(v) for k, v in kwargs.items()}


def _build_expression(site: CallSite, func: Any) -> Any:
    """Expression construction is pure: build it for real from pure arguments."""
    arguments = _arguments(site)
    if arguments is None:
        return Result(UNKNOWN)
    args, kwargs = arguments
    pl = _pl()
    if any(type(a) in (Planned, pl.LazyFrame) for a in [*args, *kwargs.values()]):
        return Result(UNKNOWN)
    try:
        with quiet():
            built = func(*args, **kwargs)
    except Exception:
        return Result(UNKNOWN)
    if type(built) is pl.Expr or _expression_part(built):
        return Result(Val(built))
    return Result(UNKNOWN)


def _method(chk: Any, site: CallSite, method: PolarsMethod) -> Any:
    receiver = method.receiver.obj
    kind = _kind(receiver)
    name = method.name
    if kind == "lazy" and name in RESOLVE_METHODS:
        failure = _resolve(receiver, site.node, chk)
        if failure is not None:
            return failure
        return Result(Val(Planned(receiver)) if name == "collect" else UNKNOWN)
    if kind == "frame" and name == "lazy" and not site.args and not site.kwargs:
        return Result(Val(receiver.lazy()))
    if kind == "planned" and name == "lazy" and not _group_plan(receiver.plan):
        return Result(Val(receiver.plan))
    eager = kind in ("frame", "planned")
    plan = _plan_of(receiver)
    if plan is None:
        return Result(UNKNOWN)
    grouped = _group_plan(plan)
    if (grouped and name not in GROUP_METHODS) or (not grouped and name not in PLAN_METHODS):
        return Result(UNKNOWN)
    arguments = _arguments(site)
    if arguments is None:
        return Result(UNKNOWN)
    args, kwargs = arguments
    chk.check_budget()
    try:
        with quiet():
            built = getattr(plan, name)(*args, **kwargs)
    except Exception as exc:
        if _plan_error(exc):
            return _raise_from(exc, plan, site.node, chk)
        return Result(UNKNOWN)
    if _kind(built) not in ("lazy", "lazygroupby"):
        return Result(UNKNOWN)
    if not eager:
        return Result(Val(built))
    if _kind(built) == "lazy":
        failure = _resolve(built, site.node, chk, plan)
        if failure is not None:
            return failure
    return Result(Val(Planned(built)))


def _plan_of(receiver: Any) -> Any:
    kind = _kind(receiver)
    if kind == "frame":
        return receiver.lazy()
    if kind == "planned":
        return receiver.plan
    if kind in ("lazy", "lazygroupby"):
        return receiver
    return None  # an eager GroupBy from the namespace: not re-planned


def _resolve(plan: Any, node: ast.AST, chk: Any, source: Any = None) -> Optional[Raise]:
    """Ask polars for the plan's schema; a schema-level error is the crash it resolves to."""
    chk.check_budget()
    try:
        with quiet():
            plan.collect_schema()
    except Exception as exc:
        if _plan_error(exc):
            return _raise_from(exc, source, node, chk)
    return None


def _frame_list(chk: Any, site: CallSite) -> Optional[List[Any]]:
    """The frames of `pl.concat([a, b])`: a literal list of names (the user's own frames are
    live, so the walk builds no list of them; looking the names up again is side-effect free)."""
    first = site.args[0]
    if isinstance(first, Val) and type(first.obj) in (list, tuple):
        return list(first.obj)
    written = site.node.args[0] if site.node.args else None
    if not isinstance(written, (ast.List, ast.Tuple)) or not written.elts:
        return None
    frames = []
    for element in written.elts:
        if not isinstance(element, ast.Name):
            return None
        value = chk.eval(element)
        if not isinstance(value, Val) or _kind(value.obj) not in ("frame", "lazy", "planned"):
            return None
        frames.append(value.obj)
    return frames


def _concat(chk: Any, site: CallSite) -> Any:
    pl = _pl()
    if not site.args:
        return Result(UNKNOWN)
    arguments = _arguments(site, skip_first=True)
    frames = _frame_list(chk, site)
    if arguments is None or not frames:
        return Result(UNKNOWN)
    args, kwargs = arguments
    kinds = {_kind(f) for f in frames}
    how = kwargs.get("how", args[1] if len(args) > 1 else "vertical")
    if kinds <= {"frame", "planned"}:
        if any(type(f) is Planned and _group_plan(f.plan) for f in frames):
            return Result(UNKNOWN)
        if how == "vertical":
            # eager vertical concat is polars' own vstack, not the plan: asked on empty frames
            schemas = [_schema_of(f) for f in frames]
            if any(s is None for s in schemas):
                return Result(UNKNOWN)
            try:
                with quiet():
                    pl.concat([pl.DataFrame(schema=s) for s in schemas], *args[1:], **kwargs)
            except Exception as exc:
                if _plan_error(exc):
                    return _raise_from(exc, None, site.node, chk)
                return Result(UNKNOWN)
        inputs = [_lazy_arg(f) for f in frames]
        eager = True
    elif kinds == {"lazy"}:
        inputs = list(frames)
        eager = False
    else:
        return Result(UNKNOWN)
    try:
        with quiet():
            built = pl.concat(inputs, *args[1:], **kwargs)
    except Exception as exc:
        if _plan_error(exc):
            return _raise_from(exc, None, site.node, chk)
        return Result(UNKNOWN)
    if _kind(built) != "lazy":
        return Result(UNKNOWN)
    if eager:
        failure = _resolve(built, site.node, chk)
        return failure if failure is not None else Result(Val(Planned(built)))
    return Result(Val(built))


def _schema_of(obj: Any) -> Optional[Dict[str, Any]]:
    """Column name -> dtype of a frame or stand-in (a plan's schema; never its data)."""
    kind = _kind(obj)
    try:
        with quiet():
            if kind == "frame":
                return dict(obj.schema)
            if kind == "planned" and not _group_plan(obj.plan):
                return dict(obj.plan.collect_schema())
            if kind == "lazy":
                return dict(obj.collect_schema())
    except Exception:
        return None
    return None


# ------------------------------------------------------------------------ findings

_MISSING_PATTERNS = (
    re.compile(r'unable to find column "([^"]*)"'),
    re.compile(r'^"([^"]*)" not found'),
)
_VALID = re.compile(r"valid columns: (\[.*?\])")


def _raise_from(exc: BaseException, source: Any, node: ast.AST, chk: Any) -> Raise:
    name = type(exc).__name__
    message = str(exc).split("\n")[0].strip()
    schema = _schema_of(source) if source is not None else None
    for pattern in _MISSING_PATTERNS:
        found = pattern.search(message)
        if found is not None:
            return _column_raise(name, message, found.group(1), schema, node, chk)
    facts = ["schema: %s" % _schema_text(schema)] if schema is not None else []
    return Raise(
        "polars-plan-error",
        name,
        message,
        facts=[*facts, "decided by polars' plan analyser from the schema (no data read)"],
        node=node,
    )


def _column_raise(
    name: str,
    message: str,
    column: str,
    schema: Optional[Dict[str, Any]],
    node: ast.AST,
    chk: Any,
) -> Raise:
    names: List[str] = list(schema) if schema is not None else _valid_columns(message)
    dtypes = ["dtypes: %s" % _schema_text(schema)] if schema is not None else []
    return missing_column_raise(
        "polars-missing-column", name, message, column, names, node, chk, dtypes
    )


def _valid_columns(message: str) -> List[str]:
    found = _VALID.search(message)
    return re.findall(r'"([^"]*)"', found.group(1)) if found is not None else []


def _schema_text(schema: Dict[str, Any]) -> str:
    items = ["%s: %s" % (k, v) for k, v in list(schema.items())[:20]]
    more = ", ... (%d in all)" % len(schema) if len(schema) > 20 else ""
    return "{" + ", ".join(items) + more + "}"
