"""dask.dataframe rules: graph-build errors decided from metadata alone, never by computing.

A dask DataFrame or Series carries `_meta`, an empty pandas object with its columns and
dtypes, and its `divisions`. Each operation of the cell is replayed on that meta (zero rows,
so schema facts only) and the result is carried as a `Lazy` stand-in: its meta, whether its
divisions are known, its partition count. Nothing dask would compute is ever touched: no
`compute`, `persist`, `head` or `len`, and reading divisions runs under a scheduler that
refuses any graph (`_no_compute`). A schema error that pandas raises on the meta is
reported only for the operations where dask raises the same at the call (`REPLAYED`); the
rest are dask's own certain refusals (rows of `iloc`, `drop` of rows, `str.split(expand=True)`
without `n`, `isin` of a multi-partition collection, a column assigned a list or frame,
rolling or resample without known divisions, slicing `.values` whose chunks are unknown).
User functions (`apply`, `map_partitions`) are never called: their result is UNKNOWN.
"""

from __future__ import annotations

import ast
import inspect
from typing import Any, Dict, FrozenSet, Optional, Tuple

from ..outcomes import CallSite, Raise, Result
from ..quiet import quiet
from ..values import UNKNOWN, Val, is_plain_data, loaded
from .dask_meta import (
    DaskMethod,
    Lazy,
    array_operand,
    as_lazy,
    built_without_compute,
    columns_of,
    copied,
    dask_class,
    dask_collection,
    derived,
    lazy_facts,
    plain_argument,
    real_class,
)
from .dask_refusals import (
    bad_arguments,
    dask_refusal,
    from_array_frame,
    histogram_range,
    iloc_rows,
    is_from_array,
    is_histogram,
    unknown_chunks,
)
from .frames import has_static, missing_column_raise
from .python import _binops as binary_operators

# Methods replayed on the meta, and the pandas errors dask raises the same at the call.
REPLAYED: Dict[str, FrozenSet[str]] = {
    "groupby": frozenset({"KeyError"}),
    "drop": frozenset({"KeyError"}),
    "set_index": frozenset({"KeyError"}),
    "astype": frozenset({"KeyError"}),
    "dropna": frozenset({"KeyError"}),
    "merge": frozenset({"KeyError"}),
    "agg": frozenset({"KeyError"}),
    "aggregate": frozenset({"KeyError"}),
}
# Methods whose result keeps the receiver's partitions (and so its divisions).
PARTITION_KEEPING = frozenset(
    """astype drop rename fillna assign isin abs round where mask clip isna notna""".split()
)
# Methods whose result is built from the meta but nothing judged of it (a fresh stand-in).
META_METHODS = frozenset(
    """sum mean min max count std var nunique value_counts unique reset_index sort_values
    first last median""".split()
)
# Operators replayed on the meta (those pandas and dask share for Series).
ARITHMETIC = (ast.Add, ast.Sub, ast.Mult, ast.Div, ast.FloorDiv, ast.Mod, ast.Pow)
# Accessors that pandas validates against the dtype, as dask does on its meta.
ACCESSORS = frozenset({"str", "dt", "cat"})
# pandas spellings a dask DataFrame lacks.
PANDAS_SPELLINGS = {
    "T": "there is no transpose of a dask frame",
    "transpose": "there is no transpose of a dask frame",
    "applymap": "use map_partitions(lambda part: part.map(f))",
    "ix": "use loc",
    "iterrows": "compute a (small) pandas frame first",
    "itertuples": "compute a (small) pandas frame first",
}


def on_attribute(chk: Any, node: ast.Attribute, base: Val) -> Any:
    obj = base.obj
    if type(obj) is DaskMethod:
        return Result(UNKNOWN)
    lazy = as_lazy(obj)
    if lazy is None:
        return None
    name = node.attr
    if lazy.kind == "groupby":
        return _groupby_attribute(lazy, name, node, chk)
    if lazy.kind not in ("frame", "series"):
        return _method_of(lazy, name)
    missing = _missing_attribute(obj, lazy, name, node)
    if missing is not None:
        return missing
    if name in ACCESSORS:
        try:
            with quiet():
                accessor = getattr(lazy.meta, name)
        except AttributeError as exc:
            return _accessor_raise(name, str(exc), lazy, node)
        except Exception:
            return Result(UNKNOWN)
        return Result(Val(Lazy(accessor, name, lazy.divisions, lazy.npartitions)))
    if name == "iloc" and lazy.kind == "frame":
        return Result(Val(Lazy(lazy.meta, "iloc", None, None)))
    if name == "values":
        return Result(Val(Lazy(None, "array", None, None)))
    if name in ("columns", "dtypes", "ndim", "name"):
        try:
            with quiet():
                return Result(Val(copied(getattr(lazy.meta, name))))
        except Exception:
            return Result(UNKNOWN)
    if lazy.kind == "frame" and name in columns_of(lazy.meta) and not has_static(type(obj), name):
        return Result(Val(Lazy(lazy.meta[name], "series", lazy.divisions, lazy.npartitions)))
    return _method_of(lazy, name)


def _method_of(lazy: Lazy, name: str, cls: Any = None) -> Result:
    """`receiver.name` as a method to call later; properties and the unknown are UNKNOWN."""
    cls = cls if cls is not None else dask_class(lazy)
    if cls is None or name.startswith("_"):
        return Result(UNKNOWN)
    try:
        found = inspect.getattr_static(cls, name)
    except AttributeError:
        return Result(UNKNOWN)
    return Result(Val(DaskMethod(lazy, name)) if inspect.isfunction(found) else UNKNOWN)


def _missing_attribute(obj: Any, lazy: Lazy, name: str, node: ast.AST) -> Optional[Raise]:
    """A name the dask class, its columns and its expression all lack: AttributeError."""
    cls = real_class(lazy)
    if cls is None or name.startswith("_") or has_static(cls, name):
        return None
    if name in columns_of(lazy.meta):
        return None
    expr_base = getattr(loaded("dask._expr"), "Expr", None)
    expr = getattr(obj, "expr", None) if type(obj) is not Lazy else None
    if expr is not None:
        if (
            has_static(expr, name)
            or has_static(obj, name)
            or name in getattr(type(expr), "_parameters", ())
        ):
            return None
    elif type(obj) is Lazy and name not in PANDAS_SPELLINGS:
        return None  # the stand-in's expression type (and its operands) is not known
    if expr_base is not None and has_static(expr_base, name):
        return None
    kind = cls.__name__
    return Raise(
        "dask-missing-attribute",
        "AttributeError",
        "'%s' object has no attribute '%s'" % (kind, name),
        facts=["a dask %s has no attribute or column %r" % (kind, name)],
        fix=PANDAS_SPELLINGS.get(name),
        node=node,
    )


def _groupby_attribute(lazy: Lazy, name: str, node: ast.AST, chk: Any) -> Any:
    group = getattr(loaded("dask.dataframe.dask_expr._groupby"), "GroupBy", None)
    columns = columns_of(getattr(lazy.meta, "obj", None))
    if group is None or name.startswith("_") or has_static(group, name):
        return _method_of(lazy, name, group)
    if name in columns:
        return on_subscript_key(lazy, name, node, chk)
    return Raise(
        "dask-missing-attribute",
        "AttributeError",
        "'Column not found: %s'" % name,
        facts=["a dask GroupBy has no method %r, and the frame no such column" % name],
        fix="compute the frame first, or use map_partitions" if name == "get_partition" else None,
        node=node,
    )


def _accessor_raise(name: str, message: str, lazy: Lazy, node: ast.AST) -> Raise:
    dtype = getattr(lazy.meta, "dtype", None)
    return Raise(
        "dask-accessor-dtype",
        "AttributeError",
        message.split("\n")[0],
        facts=["the Series' dtype (from its meta) is %s" % dtype],
        node=node,
    )


def on_subscript(chk: Any, node: ast.Subscript, base: Val, key: Any) -> Any:
    lazy = as_lazy(base.obj)
    if lazy is None:
        if type(base.obj) is DaskMethod:
            return Result(UNKNOWN)
        if not dask_collection(base.obj):
            return None
        if isinstance(key, Val) and array_operand(base.obj) and _index_key(key.obj):
            import operator

            value, _ = built_without_compute(operator.getitem, base.obj, key.obj)
            return Result(Val(value) if value is not UNKNOWN else UNKNOWN)
        return Result(UNKNOWN)
    if not isinstance(key, Val):
        return Result(UNKNOWN)
    if lazy.kind == "iloc":
        return iloc_rows(key.obj, node)
    if lazy.kind == "array":
        return unknown_chunks(key.obj, node)
    if lazy.kind in ("frame", "groupby"):
        mask = as_lazy(key.obj)
        if mask is not None:
            if lazy.kind == "frame" and mask.kind == "series":
                return Result(Val(Lazy(lazy.meta, "frame", None, lazy.npartitions)))
            return Result(UNKNOWN)
        if type(key.obj) is str or (type(key.obj) is list and all(type(k) is str for k in key.obj)):
            return on_subscript_key(lazy, key.obj, node, chk)
    return Result(UNKNOWN)


def _index_key(key: Any) -> bool:
    """Plain indexers: ints, slices, numpy and dask arrays (and tuples of them)."""
    parts = key if type(key) is tuple else (key,)
    return all(
        part is None
        or part is Ellipsis
        or (
            type(part) is slice
            and all(type(b) in (int, type(None)) for b in (part.start, part.stop, part.step))
        )
        or (type(part) is int)
        or (array_operand(part) and not is_plain_data(part))
        for part in parts
    )


def on_subscript_key(lazy: Lazy, key: Any, node: ast.AST, chk: Any) -> Any:
    """`frame[col]`, `frame[[cols]]`, `grouped[col]`: a missing column is a KeyError."""
    frame = lazy.meta if lazy.kind == "frame" else getattr(lazy.meta, "obj", None)
    columns = columns_of(frame)
    wanted = [key] if type(key) is str else list(key)
    absent = [k for k in wanted if k not in columns]
    if absent:
        message = repr(absent[0]) if type(key) is str else "%r not in index" % absent
        if lazy.kind == "groupby":
            message = "'Column not found: %s'" % absent[0]
        return _column_raise(message, absent[0], frame, node, chk)
    try:
        with quiet():
            meta = lazy.meta[key]
    except Exception:
        return Result(UNKNOWN)
    return derived(lazy, meta, lazy.kind == "frame")


def on_binop(chk: Any, node: ast.BinOp, left: Val, right: Val) -> Any:
    lazies = (as_lazy(left.obj), as_lazy(right.obj))
    if lazies == (None, None):
        if not (dask_collection(left.obj) or dask_collection(right.obj)):
            return None
        return _array_binop(node, left, right)

    func = binary_operators().get(type(node.op)) if isinstance(node.op, ARITHMETIC) else None
    a, b = plain_argument(left), plain_argument(right)
    if func is None or a is UNKNOWN or b is UNKNOWN:
        return Result(UNKNOWN)
    if any(lazy is not None and lazy.kind != "series" for lazy in lazies):
        return Result(UNKNOWN)
    try:
        with quiet():
            meta = func(a, b)
    except TypeError as exc:
        return _dtype_raise(str(exc), node, lazies)
    except Exception:
        return Result(UNKNOWN)
    source = next(lazy for lazy in lazies if lazy is not None)
    return derived(source, meta, None in lazies)


def _array_binop(node: ast.BinOp, left: Val, right: Val) -> Any:
    """dask arrays with arrays or numbers: the graph is built (shapes checked), never run."""
    array_ops = (ast.Add, ast.Sub, ast.Mult, ast.Div, ast.Pow)
    func = binary_operators().get(type(node.op)) if isinstance(node.op, array_ops) else None
    if func is None or not (array_operand(left.obj) and array_operand(right.obj)):
        return Result(UNKNOWN)
    if left.fake or right.fake or left.sampled or right.sampled:
        return Result(UNKNOWN)
    value, exc = built_without_compute(func, left.obj, right.obj)
    if type(exc) is ValueError and "shape" in str(exc):
        return Raise(
            "dask-array-shape",
            "ValueError",
            str(exc).split("\n")[0],
            facts=[
                "shapes: %s and %s (nan: a length dask does not know)"
                % (getattr(left.obj, "shape", "()"), getattr(right.obj, "shape", "()"))
            ],
            node=node,
        )
    return Result(Val(value)) if value is not UNKNOWN and exc is None else Result(UNKNOWN)


def _dtype_raise(message: str, node: ast.AST, lazies: Tuple[Optional[Lazy], ...]) -> Raise:
    dtypes = [str(getattr(lazy.meta, "dtype", "?")) for lazy in lazies if lazy is not None]
    return Raise(
        "dask-dtype-error",
        "TypeError",
        message.split("\n")[0],
        facts=["dtypes from the meta: %s" % ", ".join(dtypes)],
        node=node,
    )


def on_call(chk: Any, site: CallSite) -> Any:
    func = site.func
    if isinstance(func, Val) and type(func.obj) is DaskMethod:
        return _method(chk, site, func.obj)
    if isinstance(func, Val) and is_from_array(func.obj) and site.args:
        return from_array_frame(site)
    if isinstance(func, Val) and is_histogram(func.obj) and not site.has_star:
        found = histogram_range(site)
        if found is not None:
            return found
    inputs = [v.obj for v in [*site.args, *site.kwargs.values()] if isinstance(v, Val)]
    if isinstance(func, Val):
        inputs.append(func.obj)
    receiver = getattr(func, "receiver", None)
    if isinstance(receiver, Val):
        inputs.append(receiver.obj)
    if any(type(obj) is Lazy or dask_collection(obj) for obj in inputs):
        return Result(UNKNOWN)  # never handed on: `np.asarray(x)` would compute it
    return None


def _method(chk: Any, site: CallSite, method: DaskMethod) -> Any:
    lazy = method.receiver
    name = method.name
    if site.has_star:
        return Result(UNKNOWN)
    bad = bad_arguments(lazy, name, site)
    if bad is not None:
        return bad
    refused = dask_refusal(lazy, name, site)
    if refused is not None:
        return refused
    if lazy.kind not in ("frame", "series", "groupby", "str", "dt", "cat"):
        return Result(UNKNOWN)
    if name not in REPLAYED and name not in PARTITION_KEEPING and name not in META_METHODS:
        return Result(UNKNOWN)
    args = [plain_argument(v) for v in site.args]
    kwargs = {k: plain_argument(v) for k, v in site.kwargs.items()}
    if any(a is UNKNOWN for a in args) or any(v is UNKNOWN for v in kwargs.values()):
        return Result(UNKNOWN)
    chk.check_budget()
    try:
        with quiet():
            meta = getattr(lazy.meta, name)(*args, **kwargs)
    except Exception as exc:
        allowed = REPLAYED.get(name, frozenset())
        if type(exc).__name__ in allowed and lazy.kind in ("frame", "series", "groupby"):
            return _meta_raise(exc, lazy, site.node, chk)
        return Result(UNKNOWN)
    return derived(lazy, meta, name in PARTITION_KEEPING)


def _meta_raise(exc: BaseException, lazy: Lazy, node: ast.AST, chk: Any) -> Raise:
    name = type(exc).__name__
    message = str(exc).split("\n")[0]
    frame = lazy.meta if lazy.kind == "frame" else getattr(lazy.meta, "obj", None)
    columns = columns_of(frame)
    literals = [
        s.value for s in ast.walk(node) if isinstance(s, ast.Constant) and type(s.value) is str
    ]
    absent = [value for value in literals if value not in columns and value in message]
    if name == "KeyError" and absent and columns:
        return _column_raise(message, absent[0], frame, node, chk)
    return Raise(
        "dask-meta-error",
        name,
        message,
        facts=[*lazy_facts(lazy), "raised by the operation on the empty meta frame"],
        node=node,
    )


def _column_raise(message: str, column: str, frame: Any, node: ast.AST, chk: Any) -> Raise:
    names = [c for c in columns_of(frame) if type(c) is str]
    return missing_column_raise(
        "dask-missing-column", "KeyError", message, column, names, node, chk
    )
