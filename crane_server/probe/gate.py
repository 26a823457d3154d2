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
- the size of what a call or an operator would build is bounded before it runs;
- an object whose attribute lookups run user code (a user `__getattr__`/`__getattribute__`,
  a `__class__` property, a metaclass `__getattr__`) is never inspected at all: reading its
  `__name__`, or `isinstance` reading its `__class__`, would run the user's code;
- objects of user classes are never data: a builtin handed one calls its dunders
  (`sorted` its `__lt__`, `list.index` its `__eq__`), and a bound method's receiver is an
  input like any other.
Answers are conservative: `False` means "do not evaluate; judge nothing".
"""

from __future__ import annotations

import builtins
import math
import re
import types
from typing import Any, Dict, Iterable, List, Optional, Tuple

from .cost import regex_too_costly
from .values import LIBRARY_ROOTS, holds_user_extension, is_library_type, loaded

# A call or operator may build at most this many elements (about 8 MB of float64).
MAX_RESULT_ELEMENTS = 1_000_000
# A matrix product may take at most this many multiply-adds (well under 100 ms on one core).
MAX_MATMUL_WORK = 50_000_000
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
# Functions computing a matrix product of their first two arguments.
MATRIX_PRODUCTS = frozenset("matmul mm bmm dot mv vdot".split())
# Builtins that walk their whole input.
ITERATING_BUILTINS = frozenset(
    "min max sum sorted reversed list tuple dict set frozenset enumerate zip any all".split()
)


# Attribute names whose lookup on a user class must not reach user code.
_LOOKUP_HOOKS = ("__getattr__", "__getattribute__")
# Descriptor types that return a stored value without running code.
_INERT_DESCRIPTORS = (
    types.FunctionType,
    staticmethod,
    classmethod,
    types.GetSetDescriptorType,
    types.MemberDescriptorType,
    types.WrapperDescriptorType,
    types.MethodDescriptorType,
    types.BuiltinFunctionType,
)
_PLAIN_IDS = frozenset(
    id(tp)
    for tp in (
        *DATA_TYPES,
        type(None),
        type,
        types.FunctionType,
        types.BuiltinFunctionType,
        types.MethodType,
        types.ModuleType,
        types.MethodDescriptorType,
        types.WrapperDescriptorType,
        types.MethodWrapperType,
    )
)


# `type`'s own descriptors: read a class's flags and module without its metaclass's hooks.
_TYPE_FLAGS = vars(type)["__flags__"]
_TYPE_MODULE = vars(type)["__module__"]
_HEAP_TYPE = 1 << 9  # Py_TPFLAGS_HEAPTYPE: a class defined by a class statement


def lookup_runs_user_code(obj: Any) -> bool:
    """Could reading an attribute of `obj` (`__name__`, `__class__` for isinstance) run user code?

    True when a user-defined class of its type's MRO (for a class: its metaclass's MRO)
    defines `__getattr__` or `__getattribute__`, or a dunder-named descriptor that computes
    (a `__class__` or `__name__` property). Read through `type`'s own slots only.
    """
    tp = type(obj)
    if id(tp) in _PLAIN_IDS:
        return False
    try:
        mro = type.__getattribute__(tp, "__mro__")
    except Exception:
        return True
    for klass in mro:
        try:
            namespace = type.__getattribute__(klass, "__dict__")
        except Exception:
            return True
        if not _TYPE_FLAGS.__get__(klass) & _HEAP_TYPE:
            continue  # a C type: its slots and descriptors are compiled code, not the user's
        module = _TYPE_MODULE.__get__(klass)
        if isinstance(module, str) and module.split(".", 1)[0] in LIBRARY_ROOTS:
            continue
        for name in _LOOKUP_HOOKS:
            if name in namespace:
                return True
        for name, member in namespace.items():
            if not (name.startswith("__") and name.endswith("__")):
                continue
            if isinstance(member, _INERT_DESCRIPTORS):
                continue
            if any("__get__" in vars(base) for base in type(member).__mro__):
                return True
    return False


# Libraries that call back into methods a subclass may override (pandas' `_constructor*` and
# `__finalize__` on every result, numpy's `__array_finalize__`, `__array_wrap__`,
# `__array_ufunc__`, `__array_function__` and `__array_priority__` on every operation): an
# instance of a user subclass of one of their types runs the user's code inside any call.
_CALLBACK_LIBRARIES = frozenset({"pandas", "numpy"})
_CLASS_BOOKKEEPING = frozenset(
    {"__module__", "__qualname__", "__doc__", "__dict__", "__weakref__", "__slots__",
     "__annotations__", "__firstlineno__", "__static_attributes__", "__orig_bases__"}
)  # fmt: skip


def subclass_hooks_run_user_code(obj: Any) -> bool:
    """Is `obj` an instance of a user subclass of a pandas or numpy type whose user classes
    define anything (a hook those libraries call back: `_constructor`, `__array_wrap__`...)?

    Read through `type`'s own slots only. A plain user subclass that defines nothing behaves
    as its library base; one that defines anything is never evaluated.
    """
    tp = type(obj)
    if id(tp) in _PLAIN_IDS:
        return False
    try:
        mro = type.__getattribute__(tp, "__mro__")
    except Exception:
        return True
    user: List[type] = []
    library = False
    for klass in mro:
        module = _TYPE_MODULE.__get__(klass)
        root = module.split(".", 1)[0] if isinstance(module, str) else ""
        if root in _CALLBACK_LIBRARIES:
            library = True
        elif _TYPE_FLAGS.__get__(klass) & _HEAP_TYPE and root not in LIBRARY_ROOTS:
            user.append(klass)
    if not library or not user:
        return False
    for klass in user:
        namespace = type.__getattribute__(klass, "__dict__")
        if any(name not in _CLASS_BOOKKEEPING for name in namespace):
            return True
    return False


def runs_user_code_inside(obj: Any) -> bool:
    """Would library code handed `obj` run the user's: lookup hooks, subclass hooks, arrays?"""
    return (
        lookup_runs_user_code(obj) or subclass_hooks_run_user_code(obj) or holds_user_extension(obj)
    )


def subscript_runs_user_code(obj: Any) -> bool:
    """Would `obj[key]` on a class run user code (`__class_getitem__`, a metaclass's
    `__getitem__`)? Builtin and library classes (`list[int]`, `np.ndarray[...]`) do not."""
    if not isinstance(obj, type):
        return False
    for klass in (obj, type(obj)):
        try:
            mro = type.__getattribute__(klass, "__mro__")
        except Exception:
            return True
        for base in mro:
            if not _TYPE_FLAGS.__get__(base) & _HEAP_TYPE:
                continue
            module = _TYPE_MODULE.__get__(base)
            if isinstance(module, str) and module.split(".", 1)[0] in LIBRARY_ROOTS:
                continue
            namespace = type.__getattribute__(base, "__dict__")
            if "__class_getitem__" in namespace or "__getitem__" in namespace:
                return True
    return False


def index_runs_user_code(value: Any) -> bool:
    """Would taking `value` as an integer (a slice bound, an index) run user code?"""
    if type(value) in (int, bool, type(None)):
        return False
    return bool(lookup_runs_user_code(value) or is_user_instance(value))


def is_user_instance(obj: Any) -> bool:
    """An instance of a class defined outside the libraries (its dunders are user code)."""
    if id(type(obj)) in _PLAIN_IDS or isinstance(obj, (type, types.ModuleType)):
        return False
    if isinstance(obj, (types.FunctionType, types.BuiltinFunctionType, types.MethodType)):
        return False
    return not is_library_type(type(obj))


def prefilter_allowed(namespace: Dict[str, Any], source: str) -> bool:
    """May IPython's prefilter see this cell? For a one-line cell it looks up the first name
    in the namespace (isinstance on it, getattr along `a.b`): user code for hooked objects."""
    match = _LEADING_NAME.match(source)
    if match is None or match.group(1) not in namespace:
        return True
    obj = namespace[match.group(1)]
    if lookup_runs_user_code(obj):
        return False
    return not (match.group(2) and is_user_instance(obj))


_LEADING_NAME = re.compile(r"\s*([A-Za-z_]\w*)\s*(\.)?")


def is_safe_callable(obj: Any) -> bool:
    """May library code be handed `obj` to call (a key, a mapper, a dtype)?"""
    if lookup_runs_user_code(obj):
        return False
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


# Libraries whose functions and callable objects the rules may pass on to library code.
DATA_ROOTS = frozenset(
    """numpy pandas torch sklearn scipy statsmodels tensorflow keras tf_keras xgboost lightgbm
    matplotlib seaborn PIL cv2 math""".split()
)
# Name parts of library functions that act on files, the screen or the outside world.
ACTING_WORDS = (
    "save",
    "load",
    "read",
    "write",
    "dump",
    "open",
    "show",
    "print",
    "export",
    "download",
    "system",
    "remove",
    "to_",
    "imsave",
    "imwrite",
)


def rule_inputs_allowed(objects: Iterable[Any]) -> bool:
    """May rules, which call library code on their inputs, see these values?

    Data of any kind passes; callables (also inside lists, tuples and dicts) pass only when
    library code calling them runs nothing that acts: the allowlist, data-library functions
    and callable objects whose names do no I/O, pure methods of library data, and the
    checker's own placeholders for lambdas and cell functions. Never `input`, `os.system`,
    `time.sleep`, `print`, a bound `list.append`, a user class, or anything unknown.
    """
    budget = [MAX_ITEMS]
    return all(_rule_input(obj, 0, budget) for obj in objects)


def _rule_input(obj: Any, depth: int, budget: List[int]) -> bool:
    budget[0] -= 1
    if budget[0] < 0:
        return False
    tp = type(obj)
    if tp in (int, float, complex, bool, str, bytes, type(None), range):
        return True
    if tp is slice:  # its bounds are taken with `__index__`: user code for a user object
        return not any(index_runs_user_code(part) for part in (obj.start, obj.stop, obj.step))
    if runs_user_code_inside(obj):
        return False
    if tp in (list, tuple, set, frozenset, dict):
        if depth >= MAX_DEPTH or len(obj) > budget[0]:
            return False
        items = list(obj.items()) if tp is dict else obj
        return all(
            _rule_input(part, depth + 1, budget)
            for item in items
            for part in (item if tp is dict else (item,))
        )
    if not callable(obj) or _is_data_object(obj):
        return True
    if is_safe_callable(obj):
        return True
    if isinstance(obj, types.FunctionType):
        # A user function: the rules never call it (the checker walks it abstractly).
        return _root(obj) not in LIBRARY_ROOTS or _inert_library_function(obj)
    if isinstance(obj, type):
        return _root(obj) in DATA_ROOTS and not _user_metaclass(obj)
    if isinstance(obj, (types.BuiltinFunctionType, types.MethodType, types.MethodWrapperType)):
        owner = getattr(obj, "__self__", None)
        if owner is None or isinstance(owner, types.ModuleType):
            return _inert_library_function(obj)
        from .purity import pure_method

        name = getattr(obj, "__name__", "") or ""
        return is_library_type(type(owner)) and pure_method(owner, name, {})
    if is_library_type(tp):
        # A callable library object (a layer, a scorer, a ufunc-like): judged by its class.
        name = getattr(obj, "__name__", "")
        return (
            tp.__module__.split(".", 1)[0] in DATA_ROOTS
            and not _acting_name(tp.__name__)
            and tp.__name__ not in NUMPY_CALLERS  # np.vectorize(f) calls f
            and not (isinstance(name, str) and _acting_name(name))
        )
    return type(obj).__module__.startswith("_crane_probe") or _is_placeholder(obj)


def _root(obj: Any) -> str:
    module = getattr(obj, "__module__", None)
    return module.split(".", 1)[0] if isinstance(module, str) else ""


def _inert_library_function(func: Any) -> bool:
    name = getattr(func, "__name__", "") or ""
    return _root(func) in DATA_ROOTS and not _acting_name(name)


def _acting_name(name: str) -> bool:
    lowered = name.lower()
    return any(word in lowered for word in ACTING_WORDS)


def _user_metaclass(cls: type) -> bool:
    return not is_library_type(type(cls))


def _is_placeholder(obj: Any) -> bool:
    """The checker's stand-ins for lambdas, cell functions and dataclass records."""
    from .values import LibraryRef, RecordValue, UserFunction

    return isinstance(obj, (UserFunction, LibraryRef, RecordValue))


def arguments_allowed(objects: Iterable[Any]) -> bool:
    """No argument, nor anything inside one, is a callable that is not on the allowlist."""
    budget = [MAX_ITEMS]
    return all(_data_only(obj, 0, budget) for obj in objects)


def _data_only(obj: Any, depth: int, budget: List[int]) -> bool:
    budget[0] -= 1
    if budget[0] < 0:
        return False
    tp = type(obj)
    if tp in (int, float, complex, bool, str, bytes, type(None), range):
        return True
    if tp is slice:  # its bounds are taken with `__index__`: user code for a user object
        return not any(index_runs_user_code(part) for part in (obj.start, obj.stop, obj.step))
    if runs_user_code_inside(obj):
        return False
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
    if is_user_instance(obj):
        return False  # its __eq__, __lt__, __hash__, __len__ ... are user code
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
    if name in MATRIX_PRODUCTS and len(args) >= 2:
        return _array_operator_too_costly("MatMult", args[0], args[1])
    np = loaded("numpy")
    if np is not None and isinstance(func, np.ufunc) and func.nin == 2 and len(args) >= 2:
        return _array_operator_too_costly("Add", args[0], args[1])  # elementwise: broadcast
    if name in ITERATING_BUILTINS and getattr(builtins, name, None) is func:
        return any(_size(value) > MAX_RESULT_ELEMENTS for value in args)
    if name == "pow" and len(args) >= 2:
        return _power_too_large(args[0], args[1])
    if name in ("factorial", "comb", "perm") and getattr(math, name, None) is func:
        return any(isinstance(a, int) and abs(a) > 10_000 for a in args)
    return False


def binop_too_large(op: str, left: Any, right: Any) -> bool:
    """Would `left <op> right` build a huge integer, string, sequence or array, or take long?"""
    if _array_operator_too_costly(op, left, right):
        return True
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


def _array_operator_too_costly(op: str, left: Any, right: Any) -> bool:
    """An operator on arrays or tensors whose result or work exceeds the bounds.

    Only when the shapes fit: a mismatch raises before any work, and is what gets reported.
    """
    a, b = _shape(left), _shape(right)
    if a is None and b is None:
        return False
    a, b = a or (), b or ()
    if op == "MatMult":
        if len(a) < 1 or len(b) < 1 or a[-1] != (b[-2] if len(b) >= 2 else b[0]):
            return False
        rows = a[-2] if len(a) >= 2 else 1
        columns = b[-1] if len(b) >= 2 else 1
        work = max(_product(a) * columns, _product(b) * rows)
        return work > MAX_MATMUL_WORK or _product(a[:-1]) * columns > MAX_RESULT_ELEMENTS
    broadcast = _broadcast(a, b)
    return broadcast is not None and _product(broadcast) > MAX_RESULT_ELEMENTS


def _shape(value: Any) -> Optional[Tuple[int, ...]]:
    """The shape of a library array, tensor or frame that holds real data (None otherwise)."""
    if not is_library_type(type(value)) or getattr(value, "is_meta", False) is True:
        return None  # a meta tensor computes shapes only, at no cost
    shape = getattr(value, "shape", None)
    if isinstance(shape, tuple) and all(type(d) is int for d in shape):
        return tuple(shape)
    return None


def _broadcast(a: Tuple[int, ...], b: Tuple[int, ...]) -> Optional[Tuple[int, ...]]:
    """numpy's broadcast of two shapes, or None when they do not broadcast."""
    out = []
    for index in range(1, max(len(a), len(b)) + 1):
        x = a[-index] if index <= len(a) else 1
        y = b[-index] if index <= len(b) else 1
        if x != y and 1 not in (x, y):
            return None
        out.append(max(x, y))
    return tuple(reversed(out))


def _product(shape: Tuple[int, ...]) -> int:
    total = 1
    for dim in shape:
        total *= max(1, dim)
    return total


def _power_too_large(base: Any, exponent: Any) -> bool:
    if isinstance(base, bool) or isinstance(exponent, bool):
        return False
    if isinstance(base, int) and isinstance(exponent, int) and exponent > 0:
        return max(1, base.bit_length()) * exponent > MAX_INT_BITS
    return False


def _int_product(values: List[Any]) -> int:
    """Product of the integers among `values` (tuples and lists of integers multiplied out)."""
    total = 1
    for value in values:  # exact types only: isinstance would read a user `__class__`
        if type(value) is int:
            total *= max(1, abs(value))
        elif type(value) is float and value == value and abs(value) != float("inf"):
            total *= max(1, int(abs(value)))
        elif type(value) in (tuple, list) and len(value) <= 64:
            for item in value:
                if type(item) is int:
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
    if lookup_runs_user_code(func):
        return "a callable whose attribute lookups run user code"
    receiver = _bound_receiver(func)
    inputs = list(args) + list(kwargs.values())
    if receiver is not None:
        inputs.append(receiver)
    if not arguments_allowed(inputs):
        return "a callable argument that is not on the allowlist"
    if writes_into_arguments(func, args, kwargs):
        return "the call writes into an argument"
    if result_too_large(func, args, kwargs):
        return "the result would exceed the size bound"
    if regex_too_costly(func, args, kwargs):
        return "a regular expression whose matching time cannot be bounded"
    return None


def _bound_receiver(func: Any) -> Any:
    """The object a builtin or Python bound method works on (None for plain functions)."""
    if isinstance(func, (types.BuiltinMethodType, types.MethodWrapperType, types.MethodType)):
        owner = func.__self__
        if owner is not None and not isinstance(owner, types.ModuleType):
            return owner
    return None
