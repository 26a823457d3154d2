"""The one gate every real call of the checker passes: what may be called, with what, at what cost.

The checker evaluates library operations for real on tracked values. Whatever the cell hands
to such a call is checked here first, so that nothing from the cell is ever called and no
evaluation can stall or flood the user's kernel:
- a callable argument (a sort key, a mapper, a ufunc factory's function) is allowed only when
  it is itself on the allowlist below: builtin data types, pure builtins, methods of builtin
  immutable types, numpy ufuncs and pure library functions. Everything else (user functions,
  lambdas, bound methods of live objects, `exec`, `os.*`, partials, method callers) makes the
  call unknown, whatever name it travels under;
- calls that write into an argument (`out=`, a ufunc's positional output, `inplace=True`)
  are never made;
- the size of what a call or an operator would build is bounded before it runs.
Answers are conservative: `False` means "do not evaluate; judge nothing".
"""

from __future__ import annotations

import builtins
import math
import types
from typing import Any, Dict, Iterable, List, Optional

from .values import is_library_type, loaded

# A call or operator may build at most this many elements (about 8 MB of float64).
MAX_RESULT_ELEMENTS = 1_000_000
# Integers grow by at most this many bits in one operation.
MAX_INT_BITS = 100_000
# Containers are inspected this deep and this wide for callables.
MAX_DEPTH = 3
MAX_ITEMS = 10_000

DATA_TYPES = (
    int,
    float,
    complex,
    bool,
    str,
    bytes,
    list,
    tuple,
    dict,
    set,
    frozenset,
    range,
    slice,
)
# Builtins that only compute on the data they get (no I/O, no import, no attribute hooks).
PURE_BUILTINS = frozenset(
    """len abs min max sum sorted reversed round any all divmod pow ord chr hex bin oct
    isinstance""".split()
)
# Methods of builtin immutable types usable as mappers (`str.lower`, `str.strip`, ...).
IMMUTABLE_TYPES = (str, bytes, int, float, complex)
UNSAFE_METHODS = frozenset({"format", "format_map", "translate", "maketrans"})
# numpy functions that take a callable and call it.
NUMPY_CALLERS = frozenset(
    """vectorize frompyfunc apply_along_axis apply_over_axes piecewise fromfunction
    nditer""".split()
)
# Functions whose result size is the product of their integer arguments.
ALLOCATORS = frozenset(
    """ones zeros empty full arange linspace logspace geomspace eye identity tri tile repeat
    indices ones_like zeros_like empty_like full_like rand randn randint randperm normal
    broadcast_to resize""".split()
)
# Functions whose result size is the product of their inputs' sizes.
PRODUCT_BUILDERS = frozenset({"outer", "kron", "meshgrid", "cartesian_prod", "ix_"})
# Builtins that walk their whole input.
ITERATING_BUILTINS = frozenset(
    "min max sum sorted reversed list tuple dict set frozenset enumerate zip any all".split()
)


def is_safe_callable(obj: Any) -> bool:
    """May library code be handed `obj` to call (a key, a mapper, a dtype)?"""
    if isinstance(obj, type):
        return _safe_type(obj)
    if isinstance(obj, types.BuiltinFunctionType):
        owner = getattr(obj, "__self__", None)
        name = getattr(obj, "__name__", "")
        if owner is builtins or owner is None:
            return name in PURE_BUILTINS and getattr(builtins, name, None) is obj
        if owner is math:
            return True
        if type(owner) in IMMUTABLE_TYPES:  # a bound method of an immutable value
            return name not in UNSAFE_METHODS and not name.startswith("_")
        return False
    if isinstance(obj, (types.MethodDescriptorType, types.ClassMethodDescriptorType)):
        owner = getattr(obj, "__objclass__", None)
        name = getattr(obj, "__name__", "")
        return owner in IMMUTABLE_TYPES and name not in UNSAFE_METHODS and not name.startswith("_")
    np = loaded("numpy")
    if np is not None and isinstance(obj, np.ufunc):
        return True
    return _pure_library_function(obj)


def _safe_type(cls: type) -> bool:
    """Builtin data types and library scalar/dtype classes (constructing them runs no user code)."""
    if cls in DATA_TYPES:
        return True
    np = loaded("numpy")
    if np is not None and issubclass(cls, np.generic):
        return True
    pd = loaded("pandas")
    if pd is not None:
        extension_dtype = getattr(getattr(pd, "api", None), "extensions", None)
        base = getattr(extension_dtype, "ExtensionDtype", None)
        if isinstance(base, type) and issubclass(cls, base) and is_library_type(cls):
            return True
    return False


def _pure_library_function(obj: Any) -> bool:
    from . import purity

    if not callable(obj) or isinstance(obj, type):
        return False
    name = getattr(obj, "__name__", "") or ""
    if name in NUMPY_CALLERS:
        return False
    try:
        return bool(purity.pure_function(obj))
    except Exception:
        return False


def arguments_allowed(objects: Iterable[Any]) -> bool:
    """No argument, nor anything inside one, is a callable that is not on the allowlist."""
    budget = [MAX_ITEMS]
    return all(_data_only(obj, 0, budget) for obj in objects)


def _data_only(obj: Any, depth: int, budget: List[int]) -> bool:
    budget[0] -= 1
    if budget[0] < 0:
        return False
    tp = type(obj)
    if tp in (int, float, complex, bool, str, bytes, type(None), range, slice):
        return True
    if callable(obj) and not _is_data_object(obj):
        return is_safe_callable(obj)
    if tp in (list, tuple, set, frozenset):
        if depth >= MAX_DEPTH or len(obj) > budget[0]:
            return False
        return all(_data_only(item, depth + 1, budget) for item in obj)
    if tp is dict:
        if depth >= MAX_DEPTH or len(obj) > budget[0]:
            return False
        return all(
            _data_only(k, depth + 1, budget) and _data_only(v, depth + 1, budget)
            for k, v in obj.items()
        )
    return _object_array_is_data(obj)


def _is_data_object(obj: Any) -> bool:
    """Library data that happens to be callable (a torch module is judged elsewhere)."""
    pd = loaded("pandas")
    if pd is not None and isinstance(obj, (pd.DataFrame, pd.Series, pd.Index)):
        return True
    torch_nn = loaded("torch.nn")
    return torch_nn is not None and isinstance(obj, torch_nn.Module) and is_library_type(type(obj))


def _object_array_is_data(obj: Any) -> bool:
    """An object-dtype array passes only when its elements are plain scalars (all of them)."""
    np = loaded("numpy")
    if np is None or not isinstance(obj, np.ndarray) or obj.dtype != object:
        return True
    if obj.size > MAX_ITEMS:
        return False
    plain = (int, float, str, bool, bytes, type(None))
    return all(type(item) in plain for item in obj.reshape(-1).tolist())


def writes_into_arguments(func: Any, args: List[Any], kwargs: Dict[str, Any]) -> bool:
    """Would the call write into one of its inputs (`out=`, a ufunc's output, in place)?"""
    if "out" in kwargs or kwargs.get("inplace") is True:
        return True
    np = loaded("numpy")
    if np is not None and isinstance(func, np.ufunc) and len(args) > func.nin:
        return True
    name = getattr(func, "__name__", "") or ""
    return not isinstance(func, type) and name.endswith("_") and not name.endswith("__")


def result_too_large(func: Any, args: List[Any], kwargs: Dict[str, Any]) -> bool:
    """Would the call build more than MAX_RESULT_ELEMENTS elements (or a huge integer)?"""
    name = getattr(func, "__name__", "") or ""
    if name in ALLOCATORS:
        return _int_product(list(args) + list(kwargs.values())) > MAX_RESULT_ELEMENTS
    if name in PRODUCT_BUILDERS:
        total = 1
        for value in args:
            total *= max(1, _size(value))
        return total > MAX_RESULT_ELEMENTS
    if name in ITERATING_BUILTINS and getattr(builtins, name, None) is func:
        return any(_size(value) > MAX_RESULT_ELEMENTS for value in args)
    if name == "pow" and len(args) >= 2:
        return _power_too_large(args[0], args[1])
    if name in ("factorial", "comb", "perm") and getattr(math, name, None) is func:
        return any(isinstance(a, int) and abs(a) > 10_000 for a in args)
    return False


def binop_too_large(op: str, left: Any, right: Any) -> bool:
    """Would `left <op> right` build a huge integer, string or sequence?"""
    if op == "Pow":
        return _power_too_large(left, right)
    if op == "LShift":
        return isinstance(right, int) and right > MAX_INT_BITS
    if op == "Mult":
        for seq, count in ((left, right), (right, left)):
            if isinstance(count, int) and isinstance(seq, (str, bytes, list, tuple)):
                return abs(count) * max(1, len(seq)) > MAX_RESULT_ELEMENTS
        if isinstance(left, int) and isinstance(right, int):
            return left.bit_length() + right.bit_length() > MAX_INT_BITS
    return False


def _power_too_large(base: Any, exponent: Any) -> bool:
    if isinstance(base, bool) or isinstance(exponent, bool):
        return False
    if isinstance(base, int) and isinstance(exponent, int) and exponent > 0:
        return max(1, base.bit_length()) * exponent > MAX_INT_BITS
    return False


def _int_product(values: List[Any]) -> int:
    """Product of the integers among `values` (tuples and lists of integers multiplied out)."""
    total = 1
    for value in values:
        if isinstance(value, bool):
            continue
        if isinstance(value, int):
            total *= max(1, abs(value))
        elif isinstance(value, float) and value == value and abs(value) != float("inf"):
            total *= max(1, int(abs(value)))
        elif isinstance(value, (tuple, list)) and len(value) <= 64:
            for item in value:
                if isinstance(item, int) and not isinstance(item, bool):
                    total *= max(1, abs(item))
    return total


def _size(value: Any) -> int:
    """Number of elements a value holds, without iterating it (0 when unknown)."""
    if isinstance(value, range):
        return len(value)
    if isinstance(value, (list, tuple, dict, set, frozenset, str, bytes)):
        return len(value)
    size = getattr(value, "size", None) if is_library_type(type(value)) else None
    if isinstance(size, int):
        return size
    numel = getattr(value, "numel", None) if is_library_type(type(value)) else None
    if callable(numel):
        try:
            return int(numel())
        except Exception:
            return 0
    return 0


def call_allowed(func: Any, args: List[Any], kwargs: Dict[str, Any]) -> Optional[str]:
    """None when the checker may make this call; else why not (for the log)."""
    if not arguments_allowed(list(args) + list(kwargs.values())):
        return "a callable argument that is not on the allowlist"
    if writes_into_arguments(func, args, kwargs):
        return "the call writes into an argument"
    if result_too_large(func, args, kwargs):
        return "the result would exceed the size bound"
    return None
