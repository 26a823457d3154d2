"""Shadows: what the checker evaluates in place of a user's object, sharing no memory with it.

A shadow is built by library code only (never a user dunder, `__deepcopy__`, `__array__` or
`__getattr__`): numpy and pandas objects become independent copies of a bounded head sample
(pandas without `attrs`), torch tensors and library modules live on the `meta` device (exact
shapes and dtypes at any size, no data), scikit-learn estimators are clones with copied fitted
attributes. Anything else that holds data is not shadowed and never evaluated.
"""

from __future__ import annotations

import re
import types
from typing import Any, Dict, List, Optional, Tuple

from .values import (
    SAMPLE_ROWS,
    UNKNOWN,
    Opaque,
    Val,
    holds_user_extension,
    is_library_type,
    is_plain_data,
    loaded,
    type_root,
)

# A copied sample holds at most this many elements (a few MB, well under a millisecond).
MAX_SAMPLE_ELEMENTS = 1_000_000
# Tensors up to this many elements (and modules up to this many parameter elements) are
# shadowed by real CPU copies, so value- and dtype-dependent checks stay exact; larger ones
# live on the meta device, where only shapes and dtypes exist.
SMALL_TENSOR_ELEMENTS = 1 << 16
SMALL_MODULE_ELEMENTS = 1 << 20
# An estimator's shadow copies at most this many bytes of arrays and library objects
# (a forest of 100 trees takes ~400 ms to deep-copy: such models stay live, never evaluated).
MAX_ESTIMATOR_BYTES = 8 << 20
MAX_ESTIMATOR_OBJECTS = 40
# Plain scalar types an object-dtype sample may hold (immutable, no user dunders).
PLAIN_SCALARS = (int, float, complex, bool, str, bytes, type(None))

NOT_SHADOWED = object()


class Shadow:
    """A shadow object with the facts of the original a sample does not keep."""

    __slots__ = ("obj", "rows", "sampled")

    def __init__(self, obj: Any, rows: Optional[int] = None, sampled: bool = False) -> None:
        self.obj = obj
        self.rows = rows
        self.sampled = sampled


def is_lazy_module(obj: Any) -> bool:
    """A module object of a ModuleType subclass (lazy loaders): never touch its attributes."""
    return isinstance(obj, types.ModuleType) and type(obj) is not types.ModuleType


def lazy_module_loaded(module: Any) -> bool:
    """A lazy module whose attributes are already in its dict (loading copies them there)."""
    return len(_instance(module)) > 12


def shadow(obj: Any) -> Any:
    """The shadow of a namespace object, None when it cannot be judged, NOT_SHADOWED otherwise."""
    np = loaded("numpy")
    if np is not None and type(obj) is np.ndarray:
        return _ndarray(np, obj)
    pd = loaded("pandas")
    if pd is not None and type(obj) in (pd.DataFrame, pd.Series):
        return _pandas(pd, obj)
    torch = loaded("torch")
    if torch is not None:
        if type(obj) in (torch.Tensor, getattr(torch.nn, "Parameter", None)):
            return _tensor(torch, obj, _numel(obj) <= SMALL_TENSOR_ELEMENTS)
        nn = loaded("torch.nn")
        if nn is not None and isinstance(obj, nn.Module):
            if not _library_module_tree(nn, obj, 0):
                return NOT_SHADOWED
            small = sum(_numel(t) for m in [obj, *_submodules(obj, 0)] for t in _tensors_of(m))
            module = _copy_module(torch, obj, small <= SMALL_MODULE_ELEMENTS)
            return Shadow(module) if module is not None else None
    base = loaded("sklearn.base")
    if base is not None and isinstance(obj, base.BaseEstimator):
        return _estimator(base, obj)
    rnd = loaded("numpy.random")
    if rnd is not None and (type(obj) is rnd.Generator or type(obj) is rnd.RandomState):
        return _generator(obj)
    return NOT_SHADOWED


def _generator(obj: Any) -> Any:
    """A numpy Generator or RandomState with the same state (its draws are the run's own)."""
    import copy

    if not is_library_type(type(obj)) or not is_library_type(type(_bit_generator(obj))):
        return None
    try:
        return Shadow(copy.deepcopy(obj))
    except Exception:
        return None


def _bit_generator(obj: Any) -> Any:
    return (
        obj.bit_generator
        if hasattr(type(obj), "bit_generator")
        else getattr(obj, "_bit_generator", None)
    )


def _plain_objects(np: Any, array: Any) -> bool:
    """Every element of an object array is a plain immutable scalar (checked without dunders)."""
    library_values = _immutable_library_values(np)
    for item in array.reshape(-1).tolist():
        if type(item) in PLAIN_SCALARS:
            continue
        # issubclass on the exact type: isinstance would read a user `__class__`
        if not (issubclass(type(item), library_values) and is_library_type(type(item))):
            return False
    return True


def _immutable_library_values(np: Any) -> Tuple[type, ...]:
    """Immutable values of numpy, pandas and the standard library (dtypes, timestamps, ...)."""
    import datetime
    import decimal

    found: List[type] = [np.generic, np.dtype, datetime.date, datetime.time, datetime.timedelta]
    found.append(decimal.Decimal)
    pd = loaded("pandas")
    if pd is not None:
        for name in ("Timestamp", "Timedelta", "Period", "Interval"):
            cls = getattr(pd, name, None)
            if isinstance(cls, type):
                found.append(cls)
        extensions = getattr(getattr(pd, "api", None), "extensions", None)
        dtype_base = getattr(extensions, "ExtensionDtype", None)
        if isinstance(dtype_base, type):
            found.append(dtype_base)
        for singleton in (getattr(pd, "NaT", None), getattr(pd, "NA", None)):
            if singleton is not None:
                found.append(type(singleton))
    return tuple(cls for cls in found if is_library_type(cls))


def _ndarray(np: Any, obj: Any) -> Any:
    if obj.dtype.hasobject and obj.dtype != object:
        return None  # structured dtypes with object fields
    rows = int(obj.shape[0]) if obj.ndim else 1
    per_row = (int(obj.size) // rows) if rows else 0
    keep = rows
    if obj.ndim and rows > SAMPLE_ROWS:
        keep = SAMPLE_ROWS
    if per_row * keep > MAX_SAMPLE_ELEMENTS:
        keep = MAX_SAMPLE_ELEMENTS // per_row if per_row else keep
        if keep < 1:
            return None
    sample = obj[:keep] if obj.ndim else obj
    copied = np.array(sample, copy=True, subok=False)
    if obj.dtype == object and not _plain_objects(np, copied):
        return None
    sampled = bool(obj.ndim) and keep < rows
    return Shadow(copied, rows=rows if sampled else None, sampled=sampled)


def _pandas(pd: Any, obj: Any) -> Any:
    """An attrs-free deep copy of the head rows, built from the block manager."""
    if holds_user_extension(obj):
        return None  # copying or slicing it calls the user's array methods
    try:
        manager = obj._mgr
        rows = int(manager.shape[-1]) if type(obj) is pd.DataFrame else len(manager)
        width = 1 if type(obj) is pd.Series else max(int(manager.shape[0]), 1)
        keep = min(rows, SAMPLE_ROWS, max(MAX_SAMPLE_ELEMENTS // width, 1))
        axis = 1 if type(obj) is pd.DataFrame else 0
        part = manager.get_slice(slice(0, keep), axis=axis) if keep < rows else manager
        copied = part.copy(deep=True)
        if hasattr(type(obj), "_from_mgr"):
            result = type(obj)._from_mgr(copied, axes=copied.axes)
            if type(obj) is pd.Series:
                result.name = obj.name
        elif not object.__getattribute__(obj, "_attrs"):
            result = obj.iloc[:keep].copy(deep=True)  # pandas < 2.1; no attrs to deep-copy
        else:
            return None
    except Exception:
        return None
    if not _plain_frame(pd, result):
        return None
    sampled = keep < rows
    return Shadow(result, rows=rows if sampled else None, sampled=sampled)


def _plain_frame(pd: Any, obj: Any) -> bool:
    """Object columns (and labels) of the copied sample hold plain scalars only."""
    np = loaded("numpy")
    if np is None:
        return False
    if type(obj) is pd.Series:
        columns = [obj] if obj.dtype == object else []
    else:
        object_dtype = type(np.dtype(object))  # numpy's ObjectDType (a dtype's str() is slow)
        columns = [obj.iloc[:, i] for i, d in enumerate(obj.dtypes) if type(d) is object_dtype]
    for column in columns:
        if not _plain_objects(np, column.to_numpy()):
            return False
    labels = [obj.index] + ([obj.columns] if type(obj) is pd.DataFrame else [])
    for index in labels:
        # A MultiIndex's labels are tuples: its levels hold the values.
        for part in list(index.levels) if type(index) is pd.MultiIndex else [index]:
            if part.dtype == object and not _plain_objects(np, np.asarray(part[:SAMPLE_ROWS])):
                return False
    return True


def _numel(tensor: Any) -> int:
    try:
        return int(tensor.numel())
    except Exception:
        return 1 << 62


def _tensor(torch: Any, obj: Any, real: bool) -> Any:
    """A detached CPU copy (small tensors) or a meta tensor, same shape, dtype, requires_grad."""
    if not real or obj.is_meta or obj.device.type != "cpu":
        return _meta_tensor(torch, obj)
    try:
        if obj.layout != torch.strided or obj.is_quantized or obj.is_nested:
            return None
        copy = obj.detach().clone()
        if obj.requires_grad:
            copy.requires_grad_(True)
        if type(obj) is not torch.Tensor:
            copy = torch.nn.Parameter(copy, requires_grad=obj.requires_grad)
    except Exception:
        return None
    return Shadow(copy)


def _meta_tensor(torch: Any, obj: Any) -> Any:
    """A tensor on the meta device: same shape, strides, dtype and requires_grad, no data."""
    try:
        if obj.layout != torch.strided or obj.is_quantized or obj.is_nested:
            return None
        meta = torch.empty_strided(
            tuple(obj.shape), tuple(obj.stride()), dtype=obj.dtype, device="meta"
        )
        if obj.requires_grad:
            meta.requires_grad_(True)
        if type(obj) is not torch.Tensor:
            meta = torch.nn.Parameter(meta, requires_grad=obj.requires_grad)
    except Exception:
        return None
    return Shadow(meta)


def _library_module_tree(nn: Any, module: Any, depth: int) -> bool:
    """A module whose every submodule is a torch.nn class (no user forward anywhere)."""
    if depth > 50 or not type(module).__module__.startswith("torch.nn"):
        return False
    children = _instance(module).get("_modules")
    if type(children) is not dict:
        return False
    return all(
        child is None
        or (isinstance(child, nn.Module) and _library_module_tree(nn, child, depth + 1))
        for child in children.values()
    )


def _instance(obj: Any) -> Dict[str, Any]:
    try:
        found = object.__getattribute__(obj, "__dict__")
    except Exception:
        return {}
    return found if type(found) is dict else {}


def as_meta(module: Any) -> Any:
    """The meta-device form of a (shadow) module, for a call where some input is meta."""
    torch = loaded("torch")
    return _copy_module(torch, module, False) if torch is not None else None


def _copy_module(torch: Any, module: Any, real: bool) -> Any:
    """A copy of a library module, parameters and buffers copied (real) or meta, hooks dropped."""
    state = dict(_instance(module))
    copied: Dict[str, Any] = {}
    for registry in ("_parameters", "_buffers"):
        entries = state.get(registry)
        if type(entries) is not dict:
            return None
        new: Dict[str, Any] = {}
        for name, tensor in entries.items():
            if tensor is None:
                new[name] = None
                continue
            shadowed = _tensor(torch, tensor, real)
            if shadowed is None:
                return None
            new[name] = shadowed.obj
        copied[registry] = new
    children = {}
    for name, child in state["_modules"].items():
        children[name] = None if child is None else _copy_module(torch, child, real)
        if child is not None and children[name] is None:
            return None
    copied["_modules"] = children
    for key, value in state.items():
        if key.endswith("hooks") and isinstance(value, dict):
            copied[key] = type(value)()
    state.update(copied)
    shadow_module = object.__new__(type(module))
    _instance(shadow_module).update(state)
    return shadow_module


class _Budget:
    """What an estimator's shadow may copy: a few library objects and a few MB of arrays."""

    def __init__(self) -> None:
        self.objects = MAX_ESTIMATOR_OBJECTS
        self.bytes = MAX_ESTIMATOR_BYTES

    def spend(self, objects: int, size: int) -> bool:
        self.objects -= objects
        self.bytes -= size
        return self.objects >= 0 and self.bytes >= 0


def _library_value(np: Any, value: Any, depth: int, budget: _Budget) -> bool:
    """Plain data, numpy data or library objects all the way down (no user classes), small
    enough to copy within the budget."""
    if depth > 10:  # a Pipeline > ColumnTransformer > (name, part, columns) > part state
        return False
    # issubclass on the exact type: isinstance would read a user `__class__`
    if type(value) in PLAIN_SCALARS or issubclass(type(value), (types.FunctionType, type)):
        return type(value) in PLAIN_SCALARS or _library_callable(value)
    if type(value) in (list, tuple, set, frozenset):
        return budget.spend(len(value) // 10, 0) and all(
            _library_value(np, v, depth + 1, budget) for v in value
        )
    if type(value) is slice:  # a fitted ColumnTransformer's output_indices_ (scikit-learn 1.9)
        return all(type(v) in PLAIN_SCALARS for v in (value.start, value.stop, value.step))
    if type(value) is dict:
        return budget.spend(len(value) // 10, 0) and all(
            type(k) in PLAIN_SCALARS and _library_value(np, v, depth + 1, budget)
            for k, v in value.items()
        )
    if np is not None and type(value) is np.ndarray:
        if not budget.spend(0, int(value.nbytes)):
            return False
        return not value.dtype.hasobject or _plain_objects(np, value)
    if not is_library_type(type(value)) or not budget.spend(1, 0) or holds_user_extension(value):
        return False
    held = _held_items(value)
    if held is None or not budget.spend(len(held) // 10, 0):
        return False
    parts = held + list(_instance(value).values())
    return all(_library_value(np, v, depth + 1, budget) for v in parts)


# Roots of generic holders: what such an object holds is not in its `__dict__`, and a deep
# copy copies it (a user object's `__deepcopy__`, `__reduce_ex__`...).
_HOLDER_ROOTS = frozenset({"builtins", "collections", "functools", "itertools", "operator"})


def _held_items(value: Any) -> Optional[List[Any]]:
    """What a library object holds outside its `__dict__` (a dict or list subclass's items,
    a defaultdict's factory); None for a generic holder that cannot be seen into (a slice,
    a partial, an itemgetter, an iterator)."""
    import collections

    tp = type(value)
    if issubclass(tp, dict):
        if not all(type(key) in PLAIN_SCALARS for key in dict.keys(value)):
            return None
        factory = [value.default_factory] if issubclass(tp, collections.defaultdict) else []
        return list(dict.values(value)) + factory
    if issubclass(tp, (list, tuple, set, frozenset, collections.deque)):
        return list(value)
    if tp in (range, bytearray) or type_root(tp) not in _HOLDER_ROOTS:
        return []  # a library class: its state is in its __dict__ or in compiled code
    return None


def _library_callable(value: Any) -> bool:
    """A function or class that numpy, scipy or scikit-learn defines."""
    if isinstance(value, type):
        np = loaded("numpy")
        if value in (int, float, complex, bool, str, bytes, object) or (
            np is not None and issubclass(value, np.generic)
        ):
            return True  # a dtype parameter (`OneHotEncoder(dtype=np.float64)`)
        module = vars(value).get("__module__")
    else:
        module = value.__module__
    return isinstance(module, str) and module.split(".")[0] in ("sklearn", "numpy", "scipy")


def _estimator(base: Any, obj: Any) -> Any:
    """sklearn.base.clone plus copies of the fitted state (scikit-learn's own classes only)."""
    import copy

    np = loaded("numpy")
    if not type(obj).__module__.startswith("sklearn"):
        return NOT_SHADOWED
    if not _library_value(np, obj, 0, _Budget()):
        return NOT_SHADOWED  # user parts or too large to copy per check: inspected, not run
    state = _instance(obj)
    try:
        from .quiet import quiet

        with quiet():
            clone = base.clone(obj)
            # all instance state, parameters included: a Pipeline's or a search's fitted
            # steps live in its parameters, which `clone` would hand back unfitted
            fitted = {k: copy.deepcopy(v) for k, v in state.items() if not k.startswith("__")}
            _instance(clone).update(fitted)
    except Exception:
        return None
    return Shadow(clone)


def shadow_batch(batch: Any) -> Any:
    """Meta shadows of the tensors of a loader's first batch (None if one has none)."""
    torch = loaded("torch")
    if torch is None:
        return None
    shadowed = [
        _tensor(torch, t, _numel(t) <= SMALL_TENSOR_ELEMENTS)
        if isinstance(t, torch.Tensor)
        else None
        for t in batch
    ]
    if any(s is None for s in shadowed):
        return None
    return [s.obj for s in shadowed if s is not None]


def on_meta(module: Any, tensors: Any) -> bool:
    """Whether a module call must run on the meta device (its shadow or an input is meta)."""
    everything = list(tensors)
    for part in [module, *_submodules(module, 0)]:
        everything.extend(_tensors_of(part))
    return any(getattr(t, "is_meta", False) for t in everything)


def _submodules(module: Any, depth: int) -> Any:
    children = _instance(module).get("_modules")
    if depth > 50 or type(children) is not dict:
        return []
    found: List[Any] = []
    for child in children.values():
        if child is not None:
            found.append(child)
            found.extend(_submodules(child, depth + 1))
    return found


def _tensors_of(module: Any) -> Any:
    found: List[Any] = []
    for registry in ("_parameters", "_buffers"):
        entries = _instance(module).get(registry)
        if type(entries) is dict:
            found.extend(t for t in entries.values() if t is not None)
    return found


# Messages of errors that come from a shadow's limits, not from the user's program.
_SHADOW_LIMIT_WORDS = ("meta", "no data", "Cannot copy out", "data-dependent")


def without_rows(value: Val) -> Any:
    """The rows-free form of a sampled value (pandas `iloc[:0]`, numpy `[:0]`); `value.obj`
    for a value that holds no rows; NOT_SHADOWED for rows the sample does not stand for (an
    exact array, frame or tensor beside sampled ones)."""
    obj = value.obj
    pd = loaded("pandas")
    np = loaded("numpy")
    rows_of_pandas = pd is not None and type(obj) in (pd.DataFrame, pd.Series)
    rows_of_numpy = np is not None and type(obj) is np.ndarray and obj.ndim > 0
    if value.sampled:
        if rows_of_pandas:
            return obj.iloc[:0].copy()
        if rows_of_numpy:
            return obj[:0].copy()
        return NOT_SHADOWED
    if rows_of_pandas or rows_of_numpy or (pd is not None and isinstance(obj, pd.Index)):
        return NOT_SHADOWED
    torch = loaded("torch")
    if torch is not None and isinstance(obj, torch.Tensor):
        return NOT_SHADOWED
    return obj


def shadow_limit(exc: BaseException) -> bool:
    """An error a meta shadow raises where the real object would not (data needed, no kernel)."""
    if isinstance(exc, NotImplementedError):
        return True
    text = str(exc)
    return any(word in text for word in _SHADOW_LIMIT_WORDS)


def shadow_limit_message(message: str) -> bool:
    """A finding's message that names the meta device: a shadow met a real tensor (a layer's
    weight beside a live input), which the user's program never does."""
    return re.search(r"\bmeta\b", message) is not None


def from_namespace(obj: Any) -> Any:
    """The tracked form of a namespace object: its shadow, or the object itself, marked live."""
    if type(obj) is Opaque:  # type(), never isinstance (it reads a user `__class__`)
        return UNKNOWN
    if is_lazy_module(obj):
        # Lazy loaders import on first attribute access: judged only once the user loaded it.
        return Val(obj, origin="namespace") if lazy_module_loaded(obj) else UNKNOWN
    if passive(obj):
        return Val(obj, origin="namespace")
    found = shadow(obj)
    if found is None:
        return UNKNOWN
    if found is NOT_SHADOWED:
        copied = _copy_plain(obj) if is_plain_data(obj) else NOT_COPIED
        if copied is not NOT_COPIED:
            return Val(copied, origin="namespace")
        return Val(obj, origin="namespace", live=True)
    return Val(found.obj, sampled=found.sampled, rows=found.rows, origin="namespace")


def passive(obj: Any) -> bool:
    """Modules, classes, functions and immutable scalars: nothing of the user's to change."""
    if type(obj) in (int, float, complex, bool, str, bytes, type(None), range, slice):
        return True
    if isinstance(obj, (types.ModuleType, type, types.FunctionType, types.BuiltinFunctionType)):
        owner = getattr(obj, "__self__", None) if type(obj) is types.BuiltinFunctionType else None
        return owner is None or isinstance(owner, types.ModuleType)
    torch = loaded("torch")
    if torch is not None and type(obj) in (torch.dtype, torch.device):
        return True  # immutable descriptions (torch.long, torch.device("cpu"))
    np = loaded("numpy")
    if np is None:
        return False
    # numpy's ufuncs (np.log) are library callables with read-only state.
    return isinstance(obj, np.ufunc) or (
        isinstance(obj, np.generic) and not isinstance(obj, np.object_)
    )


NOT_COPIED = object()


def _copy_plain(obj: Any) -> Any:
    """An independent copy of builtin containers, items shadowed; NOT_COPIED if one cannot be."""
    tp = type(obj)
    if tp in (list, tuple, set, frozenset):
        items = [_copy_plain(item) for item in obj]
        return NOT_COPIED if any(i is NOT_COPIED for i in items) else tp(items)
    if tp is dict:
        values = {key: _copy_plain(value) for key, value in obj.items()}
        return NOT_COPIED if any(v is NOT_COPIED for v in values.values()) else values
    if passive(obj):
        return obj
    found = shadow(obj)
    if found is None or found is NOT_SHADOWED or found.sampled:
        return NOT_COPIED
    return found.obj
