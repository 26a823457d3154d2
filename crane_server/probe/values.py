"""Abstract values the checker follows through a cell.

A value is either UNKNOWN (the checker lost track and judges nothing about it) or a `Val`
wrapping an object: for data from the user namespace, a shadow that shares no memory with it
(see shadows.py), or one computed by a library operation on shadows. Large numpy and pandas
objects are shadowed by a bounded head sample: `Val.rows` then holds the true number of rows
and `Val.sampled` is set, and only facts that a sample preserves (columns, dtypes, trailing
dimensions) are trusted. Data that has no shadow stays `live`: it may be looked at, never
handed to an evaluated call.
"""

from __future__ import annotations

import sys
import weakref
from typing import Any, Dict, List, Optional, Tuple

from .imports import is_standard_library

# Libraries whose objects may be inspected and whose pure operations may be evaluated.
LIBRARY_ROOTS = frozenset(
    {
        "builtins",
        "numpy",
        "pandas",
        "polars",
        "dask",
        "sklearn",
        "torch",
        "matplotlib",
        "seaborn",
        "scipy",
        "statsmodels",
        "collections",
        "math",
        "os",
        "re",
        "datetime",
        "json",
        "random",
        "itertools",
        "functools",
        "operator",
        "string",
        "pathlib",
        "posixpath",
        "ntpath",
        "typing",
        "keras",
        "tensorflow",
        "tf_keras",
        "xgboost",
        "lightgbm",
        "PIL",
        "cv2",
    }
)

# Objects with more rows than this are represented by a head sample.
SAMPLE_ROWS = 2000


class Unknown:
    """The checker does not know this value; nothing is judged about it."""

    _instance: Optional["Unknown"] = None

    def __new__(cls) -> "Unknown":
        if cls._instance is None:
            cls._instance = super().__new__(cls)
        return cls._instance

    def __repr__(self) -> str:
        return "UNKNOWN"


UNKNOWN = Unknown()


class Opaque:
    """A name that exists in the kernel but whose value was not handed to the helper."""

    def __repr__(self) -> str:
        return "OPAQUE"


OPAQUE = Opaque()


class Val:
    """A tracked value: the object itself, or a head sample of it (`sampled`, true `rows`)."""

    __slots__ = ("fake", "live", "obj", "origin", "rows", "sampled")

    def __init__(
        self,
        obj: Any,
        sampled: bool = False,
        rows: Optional[int] = None,
        origin: str = "",
        fake: bool = False,
        live: bool = False,
    ) -> None:
        self.obj = obj
        # `live`: the user's own object (no shadow exists): never passed to an evaluated call.
        self.live = live
        self.sampled = sampled
        self.rows = rows
        self.origin = origin
        # `fake`: some values are placeholders (e.g. a column assigned from an unknown value):
        # the structure is right, the values and dtypes are not to be judged.
        self.fake = fake

    def __repr__(self) -> str:
        return "Val(%s%s)" % (type(self.obj).__name__, ", sampled" if self.sampled else "")


class ProgressBar:
    """`tqdm(x)`: a progress bar over a tracked value; iterating it is iterating `x`."""

    __slots__ = ("inner",)

    def __init__(self, inner: "Val") -> None:
        self.inner = inner


class UserFunction:
    """A function defined by the user: never called, but its body may be walked.

    `node` is its AST when the target cell defines it; `func` the function object when it
    comes from the namespace; `bound_self` the receiver of a method call.
    """

    def __init__(
        self,
        name: str,
        global_names: Tuple[str, ...] = (),
        defines_globals: bool = False,
        node: Any = None,
        func: Any = None,
        bound_self: Any = None,
    ):
        self.name = name
        self.global_names = global_names
        self.defines_globals = defines_globals
        self.node = node
        self.func = func
        self.bound_self = bound_self


class BoundMethod:
    """`receiver.name` where receiver is a tracked value and name one of its methods."""

    __slots__ = ("func", "name", "receiver")

    def __init__(self, receiver: Val, name: str, func: Any) -> None:
        self.receiver = receiver
        self.name = name
        self.func = func


class LibraryRef:
    """A name from a library module the user's cell imports but the kernel has not loaded yet.

    The checker never imports it; rules may still recognise well-known APIs by `qualname`.
    """

    def __init__(self, qualname: str) -> None:
        self.qualname = qualname

    @property
    def root(self) -> str:
        return self.qualname.split(".", 1)[0]

    def child(self, name: str) -> "LibraryRef":
        return LibraryRef(self.qualname + "." + name)


class RecordValue:
    """An instance of a user dataclass the cell would build: just its fields (never built)."""

    def __init__(self, cls: type, fields: Dict[str, Any]) -> None:
        self.cls = cls
        self.fields = fields


def plain_dataclass(cls: Any) -> bool:
    """A dataclass whose __init__ is the generated one and that has no __post_init__."""
    if not isinstance(cls, type) or "__dataclass_fields__" not in vars(cls):
        return False
    init = vars(cls).get("__init__")
    code = getattr(init, "__code__", None)
    return (
        code is not None and code.co_filename.startswith("<") and not hasattr(cls, "__post_init__")
    )


class AxesPlaceholder:
    """Stands for a matplotlib Axes that `plt.subplots` would create (never created)."""

    def __repr__(self) -> str:
        return "<Axes>"


class FigurePlaceholder:
    def __repr__(self) -> str:
        return "<Figure>"


class FittedModel:
    """An estimator that the cell fits before using it: what fit would have recorded."""

    def __init__(
        self, estimator: Any, n_features: Optional[int], feature_names: Optional[List[str]]
    ):
        self.estimator = estimator
        self.n_features = n_features
        self.feature_names = feature_names
        # A clone really fitted on the cell's (small) data, when the dry run could do it.
        self.trained: Any = None


def type_root(tp: type) -> str:
    return (getattr(tp, "__module__", None) or "").split(".", 1)[0]


def is_library_type(tp: type) -> bool:
    """True when `tp` and every class in its MRO come from a library, not from user code."""
    try:
        mro = tp.__mro__
    except Exception:
        return False
    return all(type_root(klass) in LIBRARY_ROOTS for klass in mro)


def is_library_object(obj: Any) -> bool:
    """Defined by a library; functions, methods and partials are judged by their code's module."""
    import functools
    import types

    if isinstance(obj, functools.partial):
        return is_library_object(obj.func) and all(
            is_library_object(a) or is_plain_data(a) for a in obj.args
        )
    if isinstance(obj, (types.FunctionType, types.MethodType)):
        module = getattr(obj, "__module__", None) or "__main__"
        return module.split(".", 1)[0] in LIBRARY_ROOTS
    return is_library_type(type(obj))


def is_library_callable(func: Any) -> bool:
    """A function, builtin or class that a library defines."""
    if isinstance(func, type):
        return is_library_type(func)
    module = getattr(func, "__module__", None)
    if not isinstance(module, str):
        module = getattr(type(func), "__module__", "") or ""
    return module.split(".", 1)[0] in LIBRARY_ROOTS and is_library_type(type(func))


def loaded(name: str) -> Any:
    """A module the user has already imported, else None (never imports anything)."""
    return sys.modules.get(name)


def is_dataframe(obj: Any) -> bool:
    pd = loaded("pandas")
    return pd is not None and isinstance(obj, pd.DataFrame)


def is_series(obj: Any) -> bool:
    pd = loaded("pandas")
    return pd is not None and isinstance(obj, pd.Series)


def is_ndarray(obj: Any) -> bool:
    np = loaded("numpy")
    return np is not None and type(obj) is np.ndarray


def is_tensor(obj: Any) -> bool:
    torch = loaded("torch")
    return torch is not None and isinstance(obj, torch.Tensor)


def is_estimator(obj: Any) -> bool:
    base = loaded("sklearn.base")
    return base is not None and isinstance(obj, base.BaseEstimator)


def length_of(value: Any) -> Optional[int]:
    """True length (rows) of a tracked value, if known."""
    if not isinstance(value, Val):
        return None
    if value.rows is not None:
        return value.rows
    obj = value.obj
    if type(obj) in (list, tuple, dict, str, set, range, frozenset, bytes):
        return len(obj)
    if safe_to_iterate(obj):
        try:
            return len(obj)
        except Exception:
            return None
    return None


def safe_to_iterate(obj: Any) -> bool:
    """Containers whose len() and iteration run only library code over plain data."""
    if type(obj) in (list, tuple, dict, str, set, range, frozenset, bytes):
        return True
    if is_ndarray(obj) or is_tensor(obj) or is_dataframe(obj) or is_series(obj):
        return True
    pd = loaded("pandas")
    if pd is None:
        return False
    # pandas 3: `.values` of a text column is a StringArray; its own arrays iterate in pandas
    extension = (
        isinstance(obj, pd.api.extensions.ExtensionArray) and type_root(type(obj)) == "pandas"
    )
    return extension or isinstance(obj, pd.Index)


def holds_user_objects(obj: Any) -> bool:
    """Does an object-dtype array or frame hold instances of user classes (sampled check)?"""
    np = loaded("numpy")
    try:
        if is_ndarray(obj):
            if obj.dtype != object:
                return False
            items = obj.reshape(-1)[:50]
        elif is_series(obj):
            if obj.dtype != object:
                return False
            items = obj.iloc[:50].tolist()
        elif is_dataframe(obj):
            columns = [c for c, t in zip(obj.columns[:50], obj.dtypes[:50]) if t.kind == "O"]
            items = [v for c in columns for v in obj[c].iloc[:20].tolist()]
        else:
            return False
    except Exception:
        return True
    plain = (int, float, str, bool, bytes, type(None))
    for item in items:
        if type(item) in plain or (np is not None and issubclass(type(item), np.generic)):
            continue
        if not is_library_object(item):
            return True
    return False


# How deep the search for a user ExtensionArray goes (a frame > its index > a categorical's
# categories > their array); deeper than this counts as user code.
MAX_EXTENSION_DEPTH = 8
MAX_EXTENSION_ITEMS = 64
_MODULE_OF = vars(type)["__module__"]  # a class's module, read without its metaclass
# id(type) -> (a weak reference to it, its kind): no type is kept alive, and no metaclass
# `__hash__` or `__eq__` is called
_PANDAS_KINDS: Dict[int, Tuple[Any, str]] = {}


def holds_user_extension(obj: Any) -> bool:
    """Is a pandas object backed by an ExtensionArray that no library defines?

    Every pandas operation or summary of it calls that array's `copy`, `__getitem__`, `isna`,
    `take`, `dtype`...: user code. Read through pandas' own slots and instance dicts only.
    """
    pd = loaded("pandas")
    return pd is not None and _user_extension(pd, obj, 0)


def _user_extension(pd: Any, obj: Any, depth: int) -> bool:
    if depth > MAX_EXTENSION_DEPTH:
        return True
    tp = type(obj)
    if tp is list or tp is tuple:
        return any(_user_extension(pd, item, depth + 1) for item in obj[:MAX_EXTENSION_ITEMS])
    kind = _pandas_kind_of(tp)
    if kind != "pandas":
        return kind == "user"
    state = as_dict(obj)
    if tp is pd.DataFrame or tp is pd.Series:
        manager = state.get("_mgr")
        if manager is None or _pandas_kind_of(type(manager)) == "user":
            return manager is not None
        parts = [block.values for block in manager.blocks] + list(manager.axes)
    elif tp is pd.MultiIndex:
        parts = list(state.get("_levels") or ())
    elif issubclass(tp, pd.Index):
        parts = [state.get("_data")]
    elif tp is pd.Categorical:
        parts = [as_dict(obj._dtype).get("_categories")]
    elif issubclass(tp, pd.api.extensions.ExtensionArray):
        parts = [state.get("_left"), state.get("_right")]  # an IntervalArray's bounds
    else:  # a groupby, a window, an accessor...: the frames, keys and groupings it holds
        parts = list(state.values())[:MAX_EXTENSION_ITEMS]
    return any(_user_extension(pd, part, depth + 1) for part in parts)


def _pandas_kind_of(tp: type) -> str:
    """ "other" (no pandas class in its MRO), "pandas" (pandas' own), or "user" (a pandas
    class extended by a class neither a library nor the standard library defines)."""
    known = _PANDAS_KINDS.get(id(tp))
    if known is not None and known[0]() is tp:
        return str(known[1])
    mro = type.__getattribute__(tp, "__mro__")
    roots = [_module_root(klass) for klass in mro]
    if "pandas" not in roots:
        kind = "other"
    elif any(root not in LIBRARY_ROOTS and not is_standard_library(root) for root in roots):
        kind = "user"
    else:
        kind = "pandas"
    if len(_PANDAS_KINDS) > 4096:
        _PANDAS_KINDS.clear()
    _PANDAS_KINDS[id(tp)] = (weakref.ref(tp), kind)
    return kind


def _module_root(klass: type) -> str:
    module = _MODULE_OF.__get__(klass)
    return module.split(".", 1)[0] if isinstance(module, str) else "?"


def shape_of(obj: Any) -> Optional[Tuple[int, ...]]:
    """Shape of a numpy array, tensor or pandas object, else None."""
    if is_ndarray(obj) or is_dataframe(obj) or is_series(obj):
        return tuple(int(d) for d in obj.shape)
    if is_tensor(obj):
        return tuple(int(d) for d in obj.shape)
    np = loaded("numpy")
    if np is not None and isinstance(obj, np.generic):
        return ()
    return None


def true_shape(value: Val) -> Optional[Tuple[int, ...]]:
    """The shape of all rows: a sample's with its true row count (None when that is unknown)."""
    shape = shape_of(value.obj)
    if shape is None:
        return None
    if value.sampled and shape:
        return (value.rows, *shape[1:]) if value.rows is not None else None
    return shape


def closest_name(name: Any, candidates: List[Any]) -> Optional[str]:
    """The candidate most similar to `name`, if any is reasonably close (imports nothing)."""
    if not isinstance(name, str):
        return None
    texts = [c for c in candidates if isinstance(c, str)]
    lowered = {c.lower(): c for c in texts}
    if name.lower() in lowered and lowered[name.lower()] != name:
        return lowered[name.lower()]
    stripped = {c.strip(): c for c in texts}
    if name.strip() in stripped and stripped[name.strip()] != name:
        return stripped[name.strip()]
    best: Optional[str] = None
    best_score = 0.6
    for text in texts[:5000]:
        if text == name or abs(len(text) - len(name)) > max(len(name), 3):
            continue
        score = similarity(name, text)
        if score > best_score or (score == best_score and best is None and score > 0.6):
            best, best_score = text, score
    return best


def similarity(a: str, b: str) -> float:
    """2 * (length of a longest common subsequence) / (total length): 1.0 for equal strings."""
    if not a and not b:
        return 1.0
    if len(a) > 200 or len(b) > 200:
        return 0.0
    previous = [0] * (len(b) + 1)
    for ch in a:
        current = [0]
        for j, other in enumerate(b):
            current.append(previous[j] + 1 if ch == other else max(previous[j + 1], current[j]))
        previous = current
    return 2.0 * previous[-1] / (len(a) + len(b))


def preview(items: List[Any], limit: int = 12) -> str:
    shown = ", ".join(repr(i) for i in items[:limit])
    if len(items) > limit:
        shown += ", ... (%d in all)" % len(items)
    return "[" + shown + "]"


SAFE_BUILTIN_TYPES = (
    int,
    float,
    complex,
    bool,
    str,
    bytes,
    type(None),
    list,
    tuple,
    dict,
    set,
    frozenset,
    range,
    slice,
)


def is_plain_data(obj: Any, depth: int = 0) -> bool:
    """Builtin containers of builtin scalars (exact types): safe to copy and operate on."""
    tp = type(obj)
    if tp in (int, float, complex, bool, str, bytes, type(None), range, slice):
        return True
    if depth > 2:
        return False
    if tp in (list, tuple, set, frozenset):
        if len(obj) > 10000:
            return False
        return all(is_plain_data(item, depth + 1) or is_library_object(item) for item in obj)
    if tp is dict:
        if len(obj) > 10000:
            return False
        return all(
            is_plain_data(k, depth + 1) and (is_plain_data(v, depth + 1) or is_library_object(v))
            for k, v in obj.items()
        )
    return False


def as_dict(obj: Any) -> Dict[str, Any]:
    """The instance dict of an object without calling user code (empty if none)."""
    try:
        found = object.__getattribute__(obj, "__dict__")
    except Exception:
        return {}
    return found if type(found) is dict else {}
