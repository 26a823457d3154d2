"""Dask stand-ins: what the cell would build, as its pandas meta and partition facts.

Nothing here computes: divisions are read under a scheduler that refuses any graph
(`no_compute`), and the meta is an empty pandas object with the collection's columns and
dtypes.
"""

from __future__ import annotations

from typing import Any, List, Optional, Tuple

from ..outcomes import Result
from ..quiet import quiet
from ..shadows import Shadow, shadow
from ..values import UNKNOWN, Val, is_plain_data, loaded, preview


class Lazy:
    """A dask object the cell would build: its pandas meta (zero rows) and partition facts."""

    __slots__ = ("divisions", "kind", "meta", "npartitions")

    def __init__(
        self, meta: Any, kind: str, divisions: Optional[bool], npartitions: Optional[int]
    ) -> None:
        self.meta = meta  # DataFrame | Series | pandas GroupBy | accessor | None
        self.kind = kind  # frame | series | groupby | str | dt | cat | iloc | array | window
        self.divisions = divisions  # known? None when not sure
        self.npartitions = npartitions


class DaskMethod:
    """`receiver.name` of a dask stand-in, called later."""

    __slots__ = ("name", "receiver")

    def __init__(self, receiver: Lazy, name: str) -> None:
        self.receiver = receiver
        self.name = name


def collection_types() -> Any:
    return loaded("dask.dataframe.dask_expr._collection")


def no_compute(dsk: Any, keys: Any, **kwargs: Any) -> Any:
    raise RuntimeError("crane: compute refused")


def dask_collection(obj: Any, depth: int = 0) -> bool:
    """A real dask collection (array, delayed, bag, frame), also inside a list, tuple or dict:
    handed to anything but dask's own graph building, it could be computed."""
    tp = type(obj)
    if tp in (list, tuple) and depth == 0:
        return any(dask_collection(item, 1) for item in obj[:100])
    if tp is dict and depth == 0:
        return any(dask_collection(item, 1) for item in list(obj.values())[:100])
    module = getattr(tp, "__module__", "")
    return (
        isinstance(module, str)
        and module.split(".")[0] == "dask"
        and (hasattr(tp, "__dask_graph__"))
    )


def built_without_compute(func: Any, *args: Any) -> Tuple[Any, Optional[BaseException]]:
    """`func(*args)` on dask collections, under a scheduler that refuses any compute."""
    dask = loaded("dask")
    if dask is None:
        return UNKNOWN, None
    try:
        with quiet(), dask.config.set(scheduler=no_compute):
            return func(*args), None
    except Exception as exc:
        return UNKNOWN, exc


def array_operand(obj: Any) -> bool:
    np = loaded("numpy")
    array = getattr(loaded("dask.array"), "Array", None)
    if array is not None and type(obj) is array:
        return True
    return (is_plain_data(obj) and type(obj) in (int, float, bool, complex)) or (
        np is not None and (type(obj) is np.ndarray or isinstance(obj, np.generic))
    )


def partition_facts(obj: Any) -> Tuple[Optional[bool], Optional[int]]:
    """(divisions known, npartitions) of a real dask collection; never computed."""
    dask = loaded("dask")
    expr = getattr(obj, "expr", None)
    if dask is None or expr is None:
        return None, None
    try:
        with quiet(), dask.config.set(scheduler=no_compute):
            divisions = vars(expr).get("divisions")
            if divisions is None:
                divisions = expr.divisions
            return divisions[0] is not None, len(divisions) - 1
    except Exception:
        return None, None


def as_lazy(obj: Any) -> Optional[Lazy]:
    """The stand-in of a real dask DataFrame or Series (exact types), or of a stand-in.

    The meta is copied without its `attrs`: pandas deep-copies attrs into every result, and
    they may hold the user's objects (whose `__deepcopy__` is user code)."""
    if type(obj) is Lazy:
        return obj
    coll = collection_types()
    if coll is None or type(obj) not in (coll.DataFrame, coll.Series):
        return None
    try:
        with quiet():
            copied = shadow(obj._meta)
    except Exception:
        return None
    if type(copied) is not Shadow:
        return None  # its meta holds what a copy would call (attrs, a user's extension array)
    meta = copied.obj  # replayed on an attrs-free copy: the user's meta is never touched
    divisions, npartitions = partition_facts(obj)
    kind = "frame" if type(obj) is coll.DataFrame else "series"
    return Lazy(meta, kind, divisions, npartitions)


def derived(source: Lazy, meta: Any, keep: bool) -> Result:
    """The stand-in of a result computed on the meta (UNKNOWN for anything but frames)."""
    pd = loaded("pandas")
    if pd is None:
        return Result(UNKNOWN)
    divisions = source.divisions if keep else None
    npartitions = source.npartitions if keep else None
    if type(meta) is pd.DataFrame:
        return Result(Val(Lazy(meta, "frame", divisions, npartitions)))
    if type(meta) is pd.Series:
        return Result(Val(Lazy(meta, "series", divisions, npartitions)))
    groupby = loaded("pandas.core.groupby")
    if groupby is not None and isinstance(meta, groupby.DataFrameGroupBy):
        return Result(Val(Lazy(meta, "groupby", None, None)))
    return Result(UNKNOWN)


def columns_of(meta: Any) -> List[Any]:
    columns = getattr(meta, "columns", None)
    return list(columns) if columns is not None else []


def plain_argument(value: Any, depth: int = 0) -> Any:
    """An argument usable on the meta: plain data, or the meta of a dask stand-in."""
    if not isinstance(value, Val) or value.fake or value.sampled or depth > 3:
        return UNKNOWN
    obj = value.obj
    lazy = as_lazy(obj)
    if lazy is not None:
        return lazy.meta if lazy.kind in ("frame", "series") else UNKNOWN
    if type(obj) in (list, tuple):
        items = [plain_argument(Val(item), depth + 1) for item in obj]
        return UNKNOWN if any(i is UNKNOWN for i in items) else type(obj)(items)
    if type(obj) is dict:
        if not all(is_plain_data(k) for k in obj):
            return UNKNOWN
        values = {k: plain_argument(Val(v), depth + 1) for k, v in obj.items()}
        return UNKNOWN if any(v is UNKNOWN for v in values.values()) else values
    return obj if is_plain_data(obj) or dtype_like(obj) else UNKNOWN


def dtype_like(obj: Any) -> bool:
    """A dtype argument (`float`, `np.int64`, `np.dtype("f8")`): data, not code to call."""
    np = loaded("numpy")
    if obj in (int, float, str, bool, object, complex):
        return True
    if np is None:
        return False
    return type(obj) is np.dtype or (isinstance(obj, type) and issubclass(obj, np.generic))


def lazy_facts(lazy: Lazy) -> List[str]:
    facts = []
    if lazy.kind == "frame":
        facts.append("columns: %s" % preview(columns_of(lazy.meta)))
    if lazy.divisions is not None:
        facts.append("divisions %s" % ("known" if lazy.divisions else "unknown"))
    if lazy.npartitions is not None:
        facts.append("npartitions: %d" % lazy.npartitions)
    facts.append("decided from dask's metadata (no partition computed)")
    return facts


def dask_class(lazy: Lazy) -> Any:
    if lazy.kind in ("frame", "series"):
        return real_class(lazy)
    if lazy.kind == "str":
        return getattr(loaded("dask.dataframe.dask_expr._str_accessor"), "StringAccessor", None)
    if lazy.kind == "dt":
        return getattr(loaded("dask.dataframe.dask_expr._datetime"), "DatetimeAccessor", None)
    return None


def real_class(lazy: Lazy) -> Any:
    coll = collection_types()
    if coll is None:
        return None
    return {"frame": coll.DataFrame, "series": coll.Series}.get(lazy.kind)


def copied(value: Any) -> Any:
    copy = getattr(value, "copy", None)
    return copy() if callable(copy) and not is_plain_data(value) else value


def constant(value: Any, default: Any) -> Any:
    if value is None:
        return default
    return value.obj if isinstance(value, Val) and is_plain_data(value.obj) else UNKNOWN
