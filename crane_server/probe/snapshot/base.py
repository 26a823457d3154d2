"""Shared pieces of the summarisers: options, and ways to look at objects without running them.

Everything here reads objects through C-level descriptors of `type` and `object` (never
`getattr` on a user object), so a class that overrides `__getattribute__`, `__getattr__`,
`__class__`, `__dict__`, `__repr__` or a metaclass attribute is never called.
"""

from __future__ import annotations

import math
import sys
import time
import types
from typing import Any, Dict, FrozenSet, Iterable, List, Optional, Tuple

MISSING: Any = object()

_TYPE_DICT = type.__dict__["__dict__"]
_TYPE_MRO = type.__dict__["__mro__"]
_TYPE_MODULE = type.__dict__["__module__"]
_TYPE_QUALNAME = type.__dict__["__qualname__"]
_GETSET = types.GetSetDescriptorType
_MEMBER = types.MemberDescriptorType

# Top-level packages whose classes count as library code (allow-listed for inspection).
LIBRARY_ROOTS = frozenset(
    (
        "builtins",
        "collections",
        "datetime",
        "decimal",
        "fractions",
        "pathlib",
        "numpy",
        "pandas",
        "torch",
        "sklearn",
        "scipy",
        "tensorflow",
        "keras",
        "tf_keras",
    )
)

# Exact scalar types whose repr/hash/ordering are C code: safe to show and compare.
PRIMITIVES: Tuple[type, ...] = (bool, int, float, complex, str, bytes, type(None))


class SummaryOptions:
    """Caps and switches for one summarise request."""

    def __init__(
        self,
        categories: Iterable[str] = ("S", "V", "R"),
        max_columns: int = 50,
        max_column_names: int = 200,
        max_sample_rows: int = 10000,
        max_items: int = 20,
        max_text: int = 80,
        detail_columns: Optional[Dict[str, List[str]]] = None,
        budget_seconds: float = 0.5,
    ) -> None:
        self.categories: FrozenSet[str] = frozenset(categories)
        self.max_columns = max(1, int(max_columns))
        self.max_column_names = max(self.max_columns, int(max_column_names))
        self.max_sample_rows = max(10, int(max_sample_rows))
        self.max_items = max(1, int(max_items))
        self.max_text = max(8, int(max_text))
        self.detail_columns = detail_columns or {}
        self.deadline = time.perf_counter() + budget_seconds

    @property
    def structure(self) -> bool:
        return "S" in self.categories

    @property
    def values(self) -> bool:
        return "V" in self.categories

    @property
    def representation(self) -> bool:
        return "R" in self.categories

    def out_of_time(self) -> bool:
        return time.perf_counter() > self.deadline


def class_dict(cls: type) -> Any:
    """The class's own namespace (a mappingproxy), bypassing any metaclass."""
    return _TYPE_DICT.__get__(cls, type)


def type_mro(cls: type) -> Tuple[type, ...]:
    return _TYPE_MRO.__get__(cls, type)  # type: ignore[no-any-return]


def class_module(cls: type) -> str:
    try:
        value = _TYPE_MODULE.__get__(cls, type)
    except Exception:
        return ""
    return value if type(value) is str else ""


def class_qualname(cls: type) -> str:
    try:
        value = _TYPE_QUALNAME.__get__(cls, type)
    except Exception:
        return "?"
    return value if type(value) is str else "?"


def type_name(cls: type) -> str:
    """`module.QualName` of a class (just `QualName` for builtins)."""
    module = class_module(cls)
    qualname = class_qualname(cls)
    return qualname if module in ("builtins", "") else module + "." + qualname


def module_root(cls: type) -> str:
    return class_module(cls).partition(".")[0]


def is_library_class(cls: type, roots: FrozenSet[str] = LIBRARY_ROOTS) -> bool:
    return module_root(cls) in roots


def has_base(cls: type, base: Any) -> bool:
    """True when `base` is in the MRO of `cls` (no __instancecheck__, no ABC registry)."""
    return base is not None and any(klass is base for klass in type_mro(cls))


def one_of(value: Any, *classes: type) -> bool:
    """type(value) is one of `classes` (identity only: no metaclass __eq__/__hash__)."""
    kind = type(value)
    return any(kind is cls for cls in classes)


def distinct_types(values: Iterable[Any], limit: int) -> List[type]:
    """Distinct types of `values` in first-seen order, compared by identity."""
    seen: Dict[int, type] = {}
    for kind in map(type, values):
        if id(kind) not in seen:
            seen[id(kind)] = kind
            if len(seen) >= limit:
                break
    return list(seen.values())


def is_a(obj: Any, base: Any) -> bool:
    """isinstance without __instancecheck__ or a lookup of `obj.__class__`."""
    return has_base(type(obj), base)


def static_lookup(cls: type, name: str) -> Tuple[Any, Optional[type]]:
    """The raw class attribute `name` and the class that defines it, walking the MRO."""
    for klass in type_mro(cls):
        namespace = class_dict(klass)
        if name in namespace:
            return namespace[name], klass
    return MISSING, None


def instance_dict(obj: Any) -> Optional[Dict[str, Any]]:
    """The instance `__dict__`, read through the C descriptor only."""
    descriptor, _owner = static_lookup(type(obj), "__dict__")
    if type(descriptor) is not _GETSET and type(descriptor) is not _MEMBER:
        return None
    try:
        value = descriptor.__get__(obj, type(obj))
    except Exception:
        return None
    return value if has_base(type(value), dict) else None


def static_attr(obj: Any, name: str) -> Any:
    """Read an attribute without running code: instance dict, slots or plain class values."""
    cls = type(obj)
    raw, _owner = static_lookup(cls, name)
    kind = type(raw)
    if kind is _MEMBER:  # __slots__ entry: C code
        try:
            return raw.__get__(obj, cls)
        except Exception:
            return MISSING
    data_descriptor = raw is not MISSING and kind is not _GETSET and _defines(kind, "__set__")
    if not data_descriptor:
        namespace = instance_dict(obj)
        if namespace is not None:
            value = dict.get(namespace, name, MISSING)
            if value is not MISSING:
                return value
    if raw is MISSING or _defines(kind, "__get__"):
        return MISSING
    return raw


def _defines(cls: type, name: str) -> bool:
    return static_lookup(cls, name)[1] is not None


def library_attr(obj: Any, name: str, roots: FrozenSet[str] = LIBRARY_ROOTS) -> Any:
    """getattr(obj, name), allowed only when library code defines it and attribute access."""
    cls = type(obj)
    for hook in ("__getattribute__", "__getattr__"):
        _raw, owner = static_lookup(cls, hook)
        if owner is not None and not is_library_class(owner, roots):
            return MISSING
    _raw, owner = static_lookup(cls, name)
    if owner is not None and not is_library_class(owner, roots):
        return MISSING
    if owner is None and static_attr(obj, name) is MISSING:
        return MISSING
    try:
        return getattr(obj, name)
    except Exception:
        return MISSING


def library_class(module_name: str, attribute: str) -> Any:
    """A class from a module the user already imported, or None (never imports)."""
    module = sys.modules.get(module_name)
    if module is None:
        return None
    namespace = instance_dict(module)
    if namespace is None:
        return None
    value = dict.get(namespace, attribute)
    return value if is_a(value, type) else None


def truncate(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: max(0, limit - 3)] + "..."


def json_number(value: Any) -> Any:
    """A JSON-safe number: non-finite floats become strings."""
    if type(value) is bool or type(value) is int:
        return value
    if type(value) is float:
        return value if math.isfinite(value) else str(value)
    return value


def scalar_value(value: Any, limit: int) -> Any:
    """A JSON value for an exact primitive or a numpy/pandas scalar; MISSING otherwise."""
    kind = type(value)
    if value is None or kind is bool or kind is int:
        return value
    if kind is float:
        return json_number(value)
    if kind is str:
        return truncate(value, limit)
    if kind is bytes:
        return truncate(bytes.__repr__(value), limit)
    if kind is complex:
        return complex.__repr__(value)
    if module_root(kind) in ("numpy", "pandas", "datetime", "decimal"):
        return library_scalar(value, limit)
    return MISSING


def library_scalar(value: Any, limit: int) -> Any:
    """JSON value of a numpy scalar, Timestamp, datetime, Decimal, NaT, ..."""
    item = value
    method = library_attr(value, "item")
    if method is not MISSING and callable(method):
        try:
            item = method()
        except Exception:
            item = value
    if one_of(item, bool, int, float, str, type(None)):
        return json_number(item) if type(item) is not str else truncate(item, limit)
    if type(item) is bytes:
        return truncate(bytes.__repr__(item), limit)
    if is_library_class(type(item)) and not _container(type(item)):
        try:
            return truncate(str(item), limit)
        except Exception:
            return MISSING
    return MISSING


def _container(cls: type) -> bool:
    """A class with a length (a frame, an array): its text is a repr of its elements."""
    _raw, owner = static_lookup(cls, "__len__")
    return owner is not None


def safe_label(value: Any, limit: int) -> str:
    """A column label or dict key as text; non-primitive labels become `<TypeName>`."""
    if type(value) is str:
        return truncate(value, limit)
    if type(value) is tuple:
        parts = [safe_label(part, limit) for part in tuple.__iter__(value)]
        return truncate("(" + ", ".join(parts) + ")", limit)
    scalar = scalar_value(value, limit)
    if scalar is MISSING:
        return "<" + type_name(type(value)) + ">"
    return scalar if type(scalar) is str else str(scalar)


def safe_repr(value: Any, limit: int) -> str:
    """repr for primitives and library scalars; `<TypeName>` for anything else."""
    kind: Any = type(value)
    if one_of(value, *PRIMITIVES):
        return truncate(kind.__repr__(value), limit)
    if is_a(value, str):  # numpy.str_ and other str subclasses: the C repr of the text
        return truncate(str.__repr__(value), limit)
    scalar = scalar_value(value, limit)
    if type(scalar) is str:  # text of a library scalar (Timestamp, enum member, ...)
        return scalar
    if scalar is not MISSING:
        return truncate(repr(scalar), limit)
    return "<" + type_name(kind) + ">"


def short_type_names(values: Iterable[Any], limit: int) -> List[str]:
    """Distinct type names of some values, in first-seen order, capped."""
    return [type_name(kind) for kind in distinct_types(values, limit)]
