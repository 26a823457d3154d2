"""Dask's own certain refusals at the call, decided from arguments and partition facts.

Each mirrors a check dask makes before building a graph (rows of `iloc`, `drop` of rows,
`str.split(expand=True)` without `n`, `isin` of a multi-partition collection, a column
assigned a list or frame, rolling or resample without known divisions, slicing `.values`
whose chunks are unknown, a histogram without a range, arguments its signature refuses).
"""

from __future__ import annotations

import ast
import inspect
from typing import Any, Optional, Tuple

from ..outcomes import CallSite, Raise, Result
from ..values import UNKNOWN, Val, closest_name, loaded
from .dask_meta import Lazy, as_lazy, columns_of, constant, dask_class, lazy_facts


def is_from_array(func: Any) -> bool:
    core = loaded("dask.array.core")
    return core is not None and func is getattr(core, "from_array", None)


def is_histogram(func: Any) -> bool:
    routines = loaded("dask.array.routines")
    return routines is not None and func is getattr(routines, "histogram", None)


def histogram_range(site: CallSite) -> Optional[Raise]:
    """`da.histogram(x, bins=40)`: a bin count needs range= (dask never scans for min/max)."""
    bins = constant(site.arg(1, "bins"), None)
    range_ = constant(site.arg(2, "range"), None)
    if type(bins) not in (int, type(None)) or range_ is not None:
        return None
    return Raise(
        "dask-histogram-range",
        "ValueError",
        "dask.array.histogram requires either specifying bins as an iterable or specifying "
        "both a range and the number of bins",
        facts=["bins=%r and no range: dask does not compute the data's min and max" % bins],
        fix="pass range=(low, high), or the bin edges as bins",
        node=site.node,
    )


def from_array_frame(site: CallSite) -> Any:
    first = site.args[0]
    lazy = as_lazy(first.obj) if isinstance(first, Val) else None
    if lazy is None or lazy.kind != "frame" or "dtype" in columns_of(lazy.meta):
        return Result(UNKNOWN)
    return Raise(
        "dask-from-array-frame",
        "AttributeError",
        "'DataFrame' object has no attribute 'dtype'",
        facts=["da.from_array needs an array (shape, dtype); it was given a dask DataFrame"],
        fix="use frame.to_dask_array(lengths=True)",
        node=site.node,
    )


def iloc_rows(key: Any, node: ast.AST) -> Any:
    """dask's iloc selects columns only: any row indexer is refused at the call."""
    if type(key) is tuple and len(key) == 2 and key[0] == slice(None):
        return Result(UNKNOWN)
    if type(key) is tuple and len(key) > 2:
        return Result(UNKNOWN)
    return Raise(
        "dask-iloc-rows",
        "NotImplementedError",
        "'DataFrame.iloc' only supports selecting columns. "
        "It must be used like 'df.iloc[:, column_indexer]'.",
        facts=["a dask DataFrame does not know which partition holds a row position"],
        fix="select rows with loc on the index, or with a boolean mask",
        node=node,
    )


def unknown_chunks(key: Any, node: ast.AST) -> Any:
    """`.values` of a dask frame has unknown row chunks: a row slice or index is refused."""
    np = loaded("numpy")
    first = key[0] if type(key) is tuple and key else key
    if type(key) is tuple and any(k is None or k is Ellipsis for k in key):
        return Result(UNKNOWN)
    row_slice = type(first) is slice and first != slice(None) and first.stop is not None
    if type(first) is int or row_slice:
        message = "Arrays chunk sizes are unknown"
    elif np is not None and type(first) is np.ndarray and first.dtype == bool:
        message = "Array chunk size or shape is unknown."
    else:
        return Result(UNKNOWN)
    return Raise(
        "dask-unknown-chunks",
        "ValueError",
        message,
        facts=["`.values` of a dask DataFrame or Series has unknown (nan) chunk lengths"],
        fix="use to_dask_array(lengths=True) (it computes the partition lengths)",
        node=node,
    )


def bad_arguments(lazy: Lazy, name: str, site: CallSite) -> Optional[Raise]:
    """Arguments the dask method's own signature cannot take: TypeError at the call."""
    cls = dask_class(lazy)
    if cls is None or name.startswith("_"):
        return None
    try:
        func = inspect.getattr_static(cls, name)
        if not inspect.isfunction(func):
            return None
        signature = inspect.signature(func, follow_wrapped=False)
        signature.bind(None, *site.args, **site.kwargs)
    except TypeError as exc:
        return Raise(
            "dask-bad-arguments",
            "TypeError",
            "%s.%s() %s" % (cls.__name__, name, str(exc)),
            facts=["dask's %s.%s%s" % (cls.__name__, name, signature)],
            closest=_closest_keyword(signature, site),
            node=site.node,
        )
    except Exception:
        return None
    return None


def _closest_keyword(signature: Any, site: CallSite) -> Optional[str]:
    names = list(signature.parameters)
    for keyword in site.kwargs:
        if keyword not in names:
            return closest_name(keyword, names)
    return None


def dask_refusal(lazy: Lazy, name: str, site: CallSite) -> Optional[Raise]:
    """dask's own certain refusals at the call, decided from arguments and partition facts."""
    found: Optional[Tuple[str, str, str, str]] = None
    if lazy.kind == "frame" and name == "drop":
        found = _drop(site)
    elif lazy.kind == "str" and name in ("split", "rsplit"):
        expand = constant(site.arg(2, "expand"), False)
        n = constant(site.arg(1, "n"), -1)
        if expand is True and n == -1:
            found = (
                "dask-split-without-n",
                "NotImplementedError",
                "To use the expand parameter you must specify the number of expected splits "
                "with the n= parameter.",
                "pass n= (n splits give n+1 columns)",
            )
    elif lazy.kind in ("frame", "series") and name == "isin":
        found = _isin(lazy, site)
    elif lazy.kind == "frame" and name == "assign":
        found = _assign(site)
    elif lazy.kind in ("frame", "series") and name in ("rolling", "resample"):
        unknown = lazy.divisions is False
        if name == "rolling":
            unknown = unknown and (lazy.npartitions or 0) > 1
        if unknown:
            found = (
                "dask-unknown-divisions",
                "ValueError",
                "Can only %s dataframes with known divisions" % name,
                "set_index(..., sorted=True) or from_delayed(..., divisions=...)",
            )
    if found is None:
        return None
    code, exception, message, fix = found
    return Raise(code, exception, message, facts=lazy_facts(lazy), fix=fix, node=site.node)


def _drop(site: CallSite) -> Optional[Tuple[str, str, str, str]]:
    labels = constant(site.arg(0, "labels"), None)
    axis = constant(site.arg(1, "axis"), 0)
    columns = constant(site.arg(2, "columns"), None)
    if UNKNOWN in (labels, axis, columns) or "index" in site.kwargs:
        return None
    if labels is not None and columns is None and axis in (0, "index", "rows"):
        return (
            "dask-drop-rows",
            "NotImplementedError",
            "Drop currently only works for axis=1 or when columns is not None",
            "to drop columns, pass columns=%r" % (labels,),
        )
    return None


def _isin(lazy: Lazy, site: CallSite) -> Optional[Tuple[str, str, str, str]]:
    value = site.arg(0, "values")
    other = as_lazy(value.obj) if isinstance(value, Val) else None
    if other is None or other.kind not in ("frame", "series"):
        return None
    if other.kind == "series" and other.npartitions in (1, None):
        return None  # a one-partition Series is broadcast; an unknown count is not judged
    return (
        "dask-isin-collection",
        "NotImplementedError",
        "Passing a dask %s to `isin`" % ("DataFrame" if other.kind == "frame" else "Series"),
        "compute the (small) values first, e.g. isin(values.compute())",
    )


def _assign(site: CallSite) -> Optional[Tuple[str, str, str, str]]:
    for name, value in site.kwargs.items():
        if not isinstance(value, Val):
            continue
        lazy = as_lazy(value.obj)
        if type(value.obj) is list or (lazy is not None and lazy.kind == "frame"):
            kind = "list" if type(value.obj) is list else "dask DataFrame"
            return (
                "dask-assign-type",
                "TypeError",
                "Column assignment doesn't support type %s (column %r)" % (kind, name),
                "assign a Series (one column of the frame, or one aligned on its index)",
            )
    return None
