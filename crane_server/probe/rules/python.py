"""Rules of Python itself: names, imports, attributes, call signatures, unpacking, indexing."""

from __future__ import annotations

import ast
import inspect
import re
import sys
import types
from typing import Any, Dict, FrozenSet, List, Optional, Tuple

from ..files import missing_folder
from ..outcomes import CallSite, Raise, Result
from ..shadows import from_namespace, passive
from ..values import (
    UNKNOWN,
    AxesPlaceholder,
    BoundMethod,
    FigurePlaceholder,
    LibraryRef,
    RecordValue,
    UserFunction,
    Val,
    as_dict,
    closest_name,
    is_library_callable,
    is_library_object,
    is_plain_data,
    loaded,
    type_root,
)

# Library functions that read their arguments and never mutate them (plots, printing).
READ_ONLY_ROOTS = frozenset({"matplotlib", "seaborn"})
READ_ONLY_BUILTINS = frozenset(
    {
        "print",
        "display",
        "repr",
        "str",
        "format",
        "isinstance",
        "len",
        "type",
        "id",
        "hash",
        "callable",
        "hasattr",
    }
)

# Well-known APIs removed from libraries, with what replaces them.
REMOVED_API_FIXES: Dict[Tuple[str, str], str] = {
    (
        "DataFrame",
        "append",
    ): "DataFrame.append was removed in pandas 2.0: use pd.concat([df, other])",
    ("Series", "append"): "Series.append was removed in pandas 2.0: use pd.concat([s, other])",
    ("DataFrame", "iteritems"): "use DataFrame.items()",
    ("Series", "iteritems"): "use Series.items()",
    ("DataFrame", "as_matrix"): "use DataFrame.to_numpy()",
    ("DataFrame", "ix"): "use .loc (labels) or .iloc (positions)",
    ("Series", "ix"): "use .loc (labels) or .iloc (positions)",
    ("DataFrame", "get_value"): "use .at[row, column]",
    ("numpy", "float"): "use the builtin float or np.float64",
    ("numpy", "int"): "use the builtin int or np.int64",
    ("numpy", "object"): "use the builtin object",
    ("numpy", "bool"): "use the builtin bool or np.bool_",
    ("numpy", "str"): "use the builtin str",
    ("numpy", "complex"): "use the builtin complex or np.complex128",
    ("numpy", "NaN"): "use np.nan",
    ("numpy", "Inf"): "use np.inf",
    ("numpy", "product"): "use np.prod",
    ("numpy", "alltrue"): "use np.all",
    ("numpy", "sometrue"): "use np.any",
}


def name_error(name: str, node: ast.AST, deleted: bool = False, later: bool = False) -> Raise:
    if deleted:
        facts = ["'%s' was deleted earlier in this cell" % name]
    elif later:
        facts = ["'%s' is assigned only further down in this cell" % name]
    else:
        facts = ["'%s' is not defined in the kernel and this cell does not define it" % name]
    return Raise(
        "python-undefined-name",
        "NameError",
        "name '%s' is not defined" % name,
        facts=facts,
        fix="run the cell that defines '%s' first, or define it here" % name,
        node=node,
    )


def syntax_error(exc: SyntaxError, offset: int) -> Dict[str, Any]:
    line = (exc.lineno or 1) + offset
    return {
        "code": "python-syntax-error",
        "exception": type(exc).__name__,
        "message": exc.msg or "invalid syntax",
        "line": line,
        "column": max((exc.offset or 1) - 1, 0),
        "end_line": line,
        "end_column": None,
        "severity": "error",
        "source": "crane",
        "evidence": {"facts": [], "closest": None},
        "fix": None,
        "replacements": [],
    }


def _spec_exists(name: str) -> Optional[bool]:
    """Whether module `name` is installed, without importing anything new (None: unsure)."""
    import importlib.util

    parent = name.rpartition(".")[0]
    if parent and parent not in sys.modules:
        top = name.split(".")[0]
        if top in sys.modules:
            return None
        try:
            # no top-level package: the submodule cannot exist either
            return None if importlib.util.find_spec(top) is not None else False
        except (ImportError, ValueError):
            return None
    try:
        return importlib.util.find_spec(name) is not None
    except (ImportError, ValueError):
        return None


def not_installed(name: str) -> bool:
    """Is module `name` certainly not installed (checked without importing)?"""
    return name not in sys.modules and _spec_exists(name) is False


def installed(name: str) -> bool:
    """Is the top-level package of `name` installed (checked without importing)?"""
    return _spec_exists(name.split(".")[0]) is True


def import_module(name: str, node: ast.AST, files_known: bool = True) -> Optional[Raise]:
    """ModuleNotFoundError for a module that is not installed.

    Not when something earlier in the cell may have installed it or changed where imports
    look (`!pip install`, `sys.path.append`, `os.chdir`, a file written): `files_known` False.
    """
    if name in sys.modules or not files_known:
        return None
    exists = _spec_exists(name)
    if exists is False:
        top = name.split(".")[0]
        missing = top if _spec_exists(top) is False else name
        return Raise(
            "python-module-not-found",
            "ModuleNotFoundError",
            "No module named '%s'" % missing,
            facts=[
                "'%s' is not installed in the kernel's environment (%s)" % (missing, sys.executable)
            ],
            fix="%pip install " + missing.replace("_", "-"),
            node=node,
        )
    return None


def import_name(
    module: Any, module_name: str, name: str, node: ast.AST, files_known: bool = True
) -> Any:
    namespace = as_dict(module)
    if name in namespace:
        return Result(from_namespace(namespace[name]))
    submodule = module_name + "." + name
    if submodule in sys.modules:
        return Result(Val(sys.modules[submodule]))
    if not files_known or _spec_exists(submodule) is not False or "__getattr__" in namespace:
        return Result(UNKNOWN)
    where = getattr(module, "__file__", None) or "unknown location"
    return Raise(
        "python-import-name",
        "ImportError",
        "cannot import name '%s' from '%s' (%s)" % (name, module_name, where),
        facts=["installed %s version: %s" % (module_name.split(".")[0], _version(module_name))],
        closest=closest_name(name, [n for n in namespace if not n.startswith("_")]),
        node=node,
    )


def _version(module_name: str) -> str:
    top = sys.modules.get(module_name.split(".")[0])
    return str(getattr(top, "__version__", "unknown"))


def unpack(value: Any, count: int, starred: bool, node: ast.AST) -> Any:
    if not isinstance(value, Val) or value.sampled:
        return None
    obj = value.obj
    if type(obj) not in (tuple, list, str, dict, range, set):
        np = loaded("numpy")
        pd = loaded("pandas")
        if np is not None and type(obj) is np.ndarray and obj.ndim > 0:
            items = list(obj[: count + 1])
            length = int(obj.shape[0])
        elif pd is not None and isinstance(obj, (pd.Series, pd.Index)) and not value.fake:
            items = (
                list(obj[: count + 1]) if isinstance(obj, pd.Index) else list(obj.iloc[: count + 1])
            )
            length = len(obj)
        elif _not_iterable(obj):
            return Raise(
                "python-unpack",
                "TypeError",
                "cannot unpack non-iterable %s object" % type(obj).__name__,
                facts=["the value is a %s" % type(obj).__name__],
                node=node,
            )
        else:
            return None
    else:
        items = list(obj)[: count + 1]
        length = len(obj)
    if starred:
        if length < count - 1:
            return Raise(
                "python-unpack",
                "ValueError",
                "not enough values to unpack (expected at least %d, got %d)" % (count - 1, length),
                node=node,
            )
        return None
    if length > count:
        return Raise(
            "python-unpack",
            "ValueError",
            "too many values to unpack (expected %d)" % count,
            facts=["the value has %d items" % length],
            node=node,
        )
    if length < count:
        return Raise(
            "python-unpack",
            "ValueError",
            "not enough values to unpack (expected %d, got %d)" % (count, length),
            node=node,
        )
    origin = "standin" if value.origin == "standin" else ""
    return Result([Val(i, fake=value.fake, origin=origin) for i in items])


def _not_iterable(obj: Any) -> bool:
    """Library or builtin values whose type cannot be iterated (int, None, an estimator, ...)."""
    if not (is_plain_data(obj) or is_library_object(obj)):
        return False
    kind = type(obj)
    return not any(hasattr(kind, hook) for hook in ("__iter__", "__getitem__"))


def compare(left: Val, op: ast.cmpop, right: Val) -> Any:
    import operator

    ops = {
        ast.Eq: operator.eq,
        ast.NotEq: operator.ne,
        ast.Lt: operator.lt,
        ast.LtE: operator.le,
        ast.Gt: operator.gt,
        ast.GtE: operator.ge,
        ast.In: lambda a, b: operator.contains(b, a),
        ast.NotIn: lambda a, b: not operator.contains(b, a),
        ast.Is: operator.is_,
        ast.IsNot: operator.is_not,
    }
    func = ops.get(type(op))
    if func is None:
        return UNKNOWN
    for side in (left.obj, right.obj):
        if not (is_plain_data(side) or is_library_object(side)):
            return UNKNOWN
    try:
        result = func(left.obj, right.obj)
    except Exception:
        return UNKNOWN
    sampled = left.sampled or right.sampled
    if sampled and not isinstance(result, bool):
        return Val(result, sampled=True, rows=left.rows or right.rows, fake=left.fake or right.fake)
    if sampled and type(op) not in (ast.Is, ast.IsNot):
        return UNKNOWN
    return Val(result, fake=left.fake or right.fake)


_KEYS: type = type({}.keys())
_VALUES: type = type({}.values())
_ITEMS: type = type({}.items())


def _exact_groupby(value: Val) -> bool:
    """A pandas GroupBy over a whole (not sampled) frame: its groups may be iterated."""
    groupby = loaded("pandas.core.groupby")
    return (
        groupby is not None
        and isinstance(value.obj, groupby.GroupBy)
        and not value.sampled
        and not value.fake
    )


def iteration_items(value: Val, cap: int, chk: Any = None) -> Optional[Tuple[List[Any], bool]]:
    """The first `cap` items a for-loop over this value would see, and whether that is all.

    `chk`: the walk, for a DataLoader over a user Dataset (its `__getitem__` is walked)."""
    obj = value.obj
    tp = type(obj)
    items: Optional[List[Any]] = None
    total = 0
    if tp in (list, tuple, str, range, dict, set, frozenset, bytes, _KEYS, _VALUES, _ITEMS):
        total = len(obj)
        items = []
        for item in obj:
            if len(items) >= cap:
                break
            items.append(item)
    else:
        np = loaded("numpy")
        pd = loaded("pandas")
        if np is not None and tp is np.ndarray and obj.ndim > 0:
            total = int(obj.shape[0])
            items = list(obj[:cap])
        elif pd is not None and isinstance(obj, (pd.DataFrame, pd.Series, pd.Index)):
            if isinstance(obj, pd.DataFrame):
                total = len(obj.columns)
                items = list(obj.columns[:cap])
            else:
                total = len(obj)
                items = list(obj.iloc[:cap]) if isinstance(obj, pd.Series) else list(obj[:cap])
            if value.sampled and not isinstance(obj, pd.DataFrame):
                return items, False
        elif pd is not None and _library_extension_array(obj, pd):
            # pandas 3: `.values` and `.unique()` of text columns are StringArrays, not ndarrays
            total = len(obj)
            items = list(obj[:cap])
            if not all(is_plain_data(item) or is_library_object(item) for item in items):
                return None
            if value.sampled:
                return items, False
        else:
            torch = loaded("torch")
            if torch is not None and isinstance(obj, torch.Tensor) and obj.dim() > 0:
                total = int(obj.shape[0])
                items = list(obj[:cap])
            elif _exact_groupby(value):
                import itertools

                total = int(obj.ngroups)
                items = list(itertools.islice(iter(obj), cap))
            else:
                from ..shadows import shadow_batch
                from .torch import loader_batch

                batch = loader_batch(obj, chk)
                if batch is not None:
                    batch = shadow_batch(batch)  # copies: the batch is never a view of user data
                if batch is not None:
                    # One representative batch; the loop's later iterations are not judged.
                    return [Val(batch, origin="standin")], False
    if items is None:
        return None
    if value.sampled and value.rows is not None and tp is not dict:
        total = max(total, value.rows)
    return items, total <= len(items)


def _library_extension_array(obj: Any, pd: Any) -> bool:
    """A pandas ExtensionArray of pandas' own (StringArray, Categorical, IntegerArray...)."""
    return isinstance(obj, pd.api.extensions.ExtensionArray) and type_root(type(obj)) == "pandas"


def non_suppressing_context(manager: Any) -> bool:
    """A context manager known not to swallow exceptions (so its body runs for certain)."""
    if not isinstance(manager, Val):
        return False
    root = type_root(type(manager.obj))
    name = type(manager.obj).__name__
    if root == "torch" and name in (
        "no_grad",
        "enable_grad",
        "inference_mode",
        "set_grad_enabled",
        "autocast",
    ):
        return True
    if root in ("matplotlib", "numpy", "pandas", "warnings") and name in (
        "_GeneratorContextManager",
        "errstate",
        "option_context",
        "catch_warnings",
    ):
        return True
    return root == "_io"


def non_suppressing_factory(factory: Any) -> bool:
    """`with torch.no_grad():`, `with np.errstate(...)`: library managers that never swallow."""
    if not isinstance(factory, Val):
        return False
    obj = factory.obj
    name = getattr(obj, "__name__", "")
    module = getattr(obj, "__module__", None) or ""
    known = {
        "torch": ("no_grad", "enable_grad", "inference_mode", "set_grad_enabled", "autocast"),
        "numpy": ("errstate", "printoptions"),
        "pandas": ("option_context",),
        "warnings": ("catch_warnings",),
        "matplotlib": ("context", "rc_context"),
        "seaborn": ("axes_style", "plotting_context"),
        "contextlib": ("redirect_stdout", "redirect_stderr", "nullcontext"),
    }
    return name in known.get(module.split(".", 1)[0], ())


def is_user_callable(func: Any) -> bool:
    if isinstance(func, (types.FunctionType, types.MethodType)):
        module = getattr(func, "__module__", None) or "__main__"
        return type_root_name(module) not in _library_roots()
    if isinstance(func, type):
        return not is_library_callable(func)
    return not is_library_object(func)


def type_root_name(module: str) -> str:
    return module.split(".", 1)[0]


def _library_roots() -> FrozenSet[str]:
    from ..values import LIBRARY_ROOTS

    return LIBRARY_ROOTS


def reads_only(func: Any) -> bool:
    module = getattr(func, "__module__", None) or ""
    if type_root_name(module) in READ_ONLY_ROOTS:
        return True
    return getattr(func, "__name__", "") in READ_ONLY_BUILTINS and module == "builtins"


def exception_code(root: str, exc: BaseException) -> str:
    snake = re.sub(r"(?<!^)(?=[A-Z])", "-", type(exc).__name__).lower()
    return "%s-%s" % (root or "python", snake)


def raised(exc: BaseException, site: CallSite) -> Raise:
    """A finding for a pure library call that raised when evaluated on the real values."""
    func = site.func
    target = func.func if isinstance(func, BoundMethod) else getattr(func, "obj", None)
    module = getattr(target, "__module__", None) or type(getattr(func, "receiver", func)).__module__
    root = type_root_name(module or "")
    if isinstance(func, BoundMethod):
        root = type_root(type(func.receiver.obj)) or root
    message = str(exc)
    if isinstance(exc, KeyError) and exc.args:
        message = (
            repr(exc.args[0])
            if not isinstance(exc.args[0], str) or not message.startswith(("'", '"'))
            else message
        )
    return Raise(
        exception_code(root, exc),
        type(exc).__name__,
        message.strip() or type(exc).__name__,
        facts=["evaluated %s on the live values: it raises" % site.name],
        node=site.node,
    )


# ------------------------------------------------------------------ rule hooks


def on_attribute(chk: Any, node: ast.Attribute, base: Val) -> Any:
    obj = base.obj
    name = node.attr
    if isinstance(obj, types.ModuleType):
        return _module_attribute(obj, name, node)
    if obj is None:
        return Raise(
            "python-none-attribute",
            "AttributeError",
            "'NoneType' object has no attribute '%s'" % name,
            facts=["the value is None"],
            fix=_none_fix(node),
            node=node,
        )
    if isinstance(obj, LibraryRef):
        return Result(Val(obj.child(name)))
    if isinstance(obj, RecordValue):
        return Result(obj.fields.get(name, UNKNOWN))
    if isinstance(obj, (AxesPlaceholder, FigurePlaceholder, UserFunction)):
        return Result(UNKNOWN)
    if is_library_object(obj) or is_plain_data(obj):
        return _library_attribute(base, name, node)
    found = as_dict(obj)
    if name in found:
        return Result(from_namespace(found[name]))
    return Result(UNKNOWN)


def _none_fix(node: ast.Attribute) -> str:
    return (
        "the value is None: a method called with inplace=True returns None; "
        "do not assign its result"
    )


def _module_attribute(module: Any, name: str, node: ast.AST) -> Any:
    namespace = as_dict(module)
    if name in namespace:
        return Result(from_namespace(namespace[name]))
    module_name = getattr(module, "__name__", "")
    submodule = "%s.%s" % (module_name, name)
    if submodule in sys.modules:
        return Result(Val(sys.modules[submodule]))
    if type_root_name(module_name) not in _library_roots() and module_name.split(".")[0] not in (
        "sklearn",
        "torch",
        "seaborn",
        "statsmodels",
        "scipy",
    ):
        return Result(UNKNOWN)
    if _spec_exists(submodule) is not False:
        return Result(UNKNOWN)
    message = "module '%s' has no attribute '%s'" % (module_name, name)
    if "__getattr__" in namespace:
        try:
            from ..quiet import quiet

            with quiet():
                value = getattr(module, name)
            return Result(from_namespace(value))
        except AttributeError as exc:
            message = str(exc).split("\n")[0]
        except Exception:
            return Result(UNKNOWN)
    return Raise(
        "python-missing-attribute",
        "AttributeError",
        message,
        facts=["installed %s version: %s" % (module_name.split(".")[0], _version(module_name))],
        fix=REMOVED_API_FIXES.get((module_name.split(".")[0], name)),
        closest=closest_name(name, [n for n in namespace if not n.startswith("_")]),
        node=node,
    )


def _library_attribute(base: Val, name: str, node: ast.AST) -> Any:
    obj = base.obj
    try:
        inspect.getattr_static(obj, name)
        statically_found = True
    except AttributeError:
        statically_found = False
    try:
        from ..quiet import quiet

        with quiet():
            value = getattr(obj, name)
    except AttributeError as exc:
        if statically_found and (base.sampled or base.fake):
            return Result(UNKNOWN)
        kind = type(obj).__name__
        fix = REMOVED_API_FIXES.get((kind, name))
        root = type_root(type(obj))
        return Raise(
            "python-missing-attribute",
            "AttributeError",
            str(exc).split("\n")[0],
            facts=["%s is a %s (%s %s)" % (_describe_node(node), kind, root, _version(root))],
            fix=fix,
            node=node,
        )
    except Exception:
        return Result(UNKNOWN)
    if base.sampled or base.fake:
        if isinstance(value, METHOD_TYPES):
            return Result(Val(value))  # a call on it is judged with its receiver's flags
        if base.sampled and _labels_from_rows(obj, value):
            return Result(UNKNOWN)  # `.T` of a sample: its columns are the sample's rows
        # An indexer (`.loc`, `.iloc`), `.values` or `.index` of a sample is a sample too.
        rows = base.rows if name in ROW_ATTRIBUTES else None
        return Result(Val(value, sampled=base.sampled, rows=rows, fake=base.fake))
    if callable(value) or (not base.live and not passive(obj)):
        # An attribute of crane's own copy (a shadow or a computed result) is crane's own.
        return Result(Val(value))
    return Result(from_namespace(value))


METHOD_TYPES = (
    types.MethodType,
    types.BuiltinMethodType,
    types.FunctionType,
    types.MethodWrapperType,
)
# Attributes of a frame or series with one entry per row (the true row count carries over).
ROW_ATTRIBUTES = frozenset({"values", "array", "index"})


def _labels_from_rows(frame: Any, value: Any) -> bool:
    """A frame computed from a frame whose columns are not the frame's own (`.T`)."""
    pd = loaded("pandas")
    if pd is None or type(value) is not pd.DataFrame or type(frame) is not pd.DataFrame:
        return False
    return not value.columns.equals(frame.columns)


def _describe_node(node: ast.AST) -> str:
    if isinstance(node, ast.Attribute):
        try:
            return ast.unparse(node.value)
        except Exception:
            return "the value"
    return "the value"


def on_subscript(chk: Any, node: ast.Subscript, base: Val, key: Any) -> Any:
    obj = base.obj
    if obj is None:
        return Raise(
            "python-none-subscript",
            "TypeError",
            "'NoneType' object is not subscriptable",
            facts=["the value is None"],
            node=node,
        )
    if not isinstance(key, Val) or base.sampled:
        return None
    if type(obj) in (list, tuple, str, dict, range) and (
        is_plain_data(key.obj) or is_library_object(key.obj)
    ):
        try:
            item = obj[key.obj]
        except (KeyError, IndexError, TypeError) as exc:
            if base.fake:
                return Result(UNKNOWN)
            code = {
                "KeyError": "python-missing-key",
                "IndexError": "python-index-out-of-range",
            }.get(type(exc).__name__, "python-type-error")
            facts = []
            if type(obj) is dict:
                keys = list(obj)
                facts.append("available keys: %s" % keys[:20])
                closest = closest_name(key.obj, keys)
            else:
                facts.append("length: %d" % len(obj))
                closest = None
            message = repr(key.obj) if isinstance(exc, KeyError) else str(exc)
            return Raise(
                code,
                type(exc).__name__,
                message,
                facts=facts,
                closest=closest,
                node=node,
                replace_node=node.slice if closest else None,
                replace_text=repr(closest) if closest else None,
            )
        # an item of the user's own container is the user's object: shadowed like a name
        return Result(chk.wrap(item) if base.live else Val(item, fake=base.fake))
    if (
        is_library_object(obj)
        and (is_plain_data(key.obj) or is_library_object(key.obj))
        and not key.sampled
    ):
        return _library_subscript(base, key, node)
    return None


def _library_subscript(base: Val, key: Val, node: ast.Subscript) -> Any:
    """Indexing a library object (Index, Series, tensor, ...) is pure: evaluate it."""
    from ..quiet import quiet
    from ..values import shape_of

    try:
        with quiet():
            result = base.obj[key.obj]
    except (KeyError, IndexError) as exc:
        if base.fake or key.fake:
            return Result(UNKNOWN)
        root = type_root(type(base.obj))
        shape = shape_of(base.obj)
        facts = [
            "%s%s"
            % (type(base.obj).__name__, " of shape %s" % (shape,) if shape is not None else "")
        ]
        message = _key_message(exc) if isinstance(exc, KeyError) else str(exc).split("\n")[0]
        code = "%s-%s" % (
            root,
            "missing-key" if isinstance(exc, KeyError) else "index-out-of-range",
        )
        return Raise(code, type(exc).__name__, message, facts=facts, node=node)
    except Exception:
        return Result(UNKNOWN)
    return Result(Val(result, fake=base.fake or key.fake))


def _key_message(exc: KeyError) -> str:
    if exc.args:
        return repr(exc.args[0])
    return "KeyError"


def on_binop(chk: Any, node: ast.BinOp, left: Val, right: Val) -> Any:
    for side in (left.obj, right.obj):
        if not (is_plain_data(side) or is_library_object(side)):
            return Result(UNKNOWN)
    sampled = left.sampled or right.sampled
    if sampled and not (_scalar(left.obj) or _scalar(right.obj)):
        return Result(UNKNOWN)
    if (
        type(left.obj) in (list, str, tuple)
        and isinstance(right.obj, int)
        and isinstance(node.op, ast.Mult)
    ) and abs(right.obj) * len(left.obj) > 1_000_000:
        return Result(UNKNOWN)
    op = _BINOPS.get(type(node.op))
    if op is None:
        return Result(UNKNOWN)
    try:
        from ..quiet import quiet

        with quiet():
            result = op(left.obj, right.obj)
    except ZeroDivisionError:
        return Result(UNKNOWN)
    except Exception as exc:
        if sampled or left.fake or right.fake:
            return Result(UNKNOWN)
        root = (
            type_root(type(left.obj))
            if is_library_object(left.obj) and type(left.obj).__module__ != "builtins"
            else type_root(type(right.obj))
        )
        return Raise(
            exception_code(root if root != "builtins" else "python", exc),
            type(exc).__name__,
            str(exc).split("\n")[0],
            facts=_binop_facts(left, right),
            node=node,
        )
    rows = left.rows if left.sampled else right.rows
    return Result(Val(result, sampled=sampled, rows=rows, fake=left.fake or right.fake))


def _binop_facts(left: Val, right: Val) -> List[str]:
    from ..values import shape_of

    facts = []
    for label, side in (("left", left.obj), ("right", right.obj)):
        shape = shape_of(side)
        facts.append(
            "%s operand: %s%s"
            % (label, type(side).__name__, " of shape %s" % (shape,) if shape is not None else "")
        )
    return facts


def _scalar(obj: Any) -> bool:
    if type(obj) in (int, float, bool, complex, str):
        return True
    np = loaded("numpy")
    return np is not None and isinstance(obj, np.generic)


def _binops() -> Dict[type, Any]:
    import operator

    return {
        ast.Add: operator.add,
        ast.Sub: operator.sub,
        ast.Mult: operator.mul,
        ast.Div: operator.truediv,
        ast.FloorDiv: operator.floordiv,
        ast.Mod: operator.mod,
        ast.Pow: operator.pow,
        ast.MatMult: operator.matmul,
        ast.BitAnd: operator.and_,
        ast.BitOr: operator.or_,
        ast.BitXor: operator.xor,
        ast.LShift: operator.lshift,
        ast.RShift: operator.rshift,
    }


_BINOPS = _binops()


def on_call(chk: Any, site: CallSite) -> Any:
    func = site.func
    if isinstance(func, Val):
        target = func.obj
        if target is None:
            return Raise(
                "python-none-call",
                "TypeError",
                "'NoneType' object is not callable",
                facts=["the value is None"],
                node=site.node,
            )
        if (
            not callable(target)
            and (is_plain_data(target) or is_library_object(target))
            and not func.fake
            and not isinstance(target, (AxesPlaceholder, FigurePlaceholder))
        ):
            kind = type(target).__name__
            return Raise(
                "python-not-callable",
                "TypeError",
                "'%s' object is not callable" % kind,
                facts=["%s is a %s, not a function" % (site.name, kind)],
                fix="drop the parentheses" if isinstance(site.node.func, ast.Attribute) else None,
                node=site.node,
            )
        name = getattr(target, "__name__", None)
        if getattr(target, "__module__", None) == "builtins" and name in (
            "print",
            "display",
            "input",
            "help",
        ):
            return Result(UNKNOWN)
        if name == "open" and target is __import__("builtins").open:
            return _open_rule(site) if not chk.files_unreliable else Result(UNKNOWN)
        module = getattr(target, "__module__", None) or ""
        if name == "dump" and module.startswith("joblib") and not chk.files_unreliable:
            found = missing_folder(site.arg(1, "filename"), site, "FileNotFoundError")
            if found is not None:
                return found
    if site.has_star:
        return None
    return signature_rule(site)


def _open_rule(site: CallSite) -> Any:
    import os

    path = site.arg(0, "file")
    mode = site.arg(1, "mode")
    if not isinstance(path, Val) or not isinstance(path.obj, str):
        return Result(UNKNOWN)
    mode_text = mode.obj if isinstance(mode, Val) and isinstance(mode.obj, str) else "r"
    if "r" in mode_text and "+" not in mode_text and not os.path.exists(path.obj):
        return missing_file(path.obj, site)
    if any(flag in mode_text for flag in "wax"):
        return missing_folder(path, site, "FileNotFoundError") or Result(UNKNOWN)
    return Result(UNKNOWN)


def missing_file(path: str, site: CallSite) -> Raise:
    import os

    folder = os.path.dirname(os.path.abspath(path)) or "."
    try:
        nearby = sorted(os.listdir(folder))[:20] if os.path.isdir(folder) else []
    except OSError:
        nearby = []
    closest = closest_name(os.path.basename(path), nearby)
    return Raise(
        "python-file-not-found",
        "FileNotFoundError",
        "[Errno 2] No such file or directory: %r" % path,
        facts=["working directory: %s" % os.getcwd()]
        + (["files there: %s" % nearby] if nearby else []),
        closest=closest,
        node=site.node,
    )


def _python_function(target: Any) -> Optional[Tuple[Any, bool]]:
    """The plain Python function behind a library callable, and whether self is bound."""
    if isinstance(target, types.FunctionType):
        return target, False
    if isinstance(target, types.MethodType) and isinstance(target.__func__, types.FunctionType):
        return target.__func__, True
    return None


def signature_rule(site: CallSite) -> Any:
    func = site.func
    target: Any = None
    bound_self = False
    owner = ""
    if isinstance(func, BoundMethod):
        if func.func is None or not is_library_object(func.receiver.obj):
            return None
        found = _python_function(func.func)
        if found is None:
            return None
        target, bound_self = found
    elif isinstance(func, Val):
        obj = func.obj
        if isinstance(obj, type):
            if not is_library_callable(obj) or type(obj).__name__ not in ("type", "ABCMeta"):
                return None
            if "__new__" in vars(obj) and vars(obj)["__new__"] is not object.__new__:
                return None
            init = getattr(obj, "__init__", None)
            if not isinstance(init, types.FunctionType):
                return None
            target, bound_self, owner = init, True, obj.__name__ + "."
        else:
            if not is_library_callable(obj):
                return None
            found = _python_function(obj)
            if found is None:
                return None
            target, bound_self = found
    else:
        return None
    if getattr(target, "__wrapped__", None) is not None:
        return _validated_signature(site, target, bound_self)
    module = getattr(target, "__module__", "") or ""
    if type_root_name(module) not in _library_roots():
        return None
    try:
        signature = inspect.signature(target, follow_wrapped=False)
    except (TypeError, ValueError):
        return None
    params = list(signature.parameters.values())
    if any(p.kind == p.VAR_POSITIONAL for p in params):
        return None
    args = ([None] if bound_self else []) + list(site.args)
    try:
        signature.bind(*args, **site.kwargs)
    except TypeError:
        return Raise(
            "python-call-signature",
            "TypeError",
            _signature_message(
                owner + target.__qualname__.split(".<locals>.")[-1], params, len(args), site.kwargs
            ),
            facts=["signature: %s%s" % (target.__name__, signature)],
            node=site.node,
        )
    return None


def _validated_signature(site: CallSite, wrapper: Any, bound_self: bool) -> Any:
    """scikit-learn's `validate_params` wrapper binds the arguments to the wrapped function's
    own signature first: its TypeError is that bind's (other decorators may rename or add
    arguments, so they are not judged)."""
    code = getattr(wrapper, "__code__", None)
    filename = (getattr(code, "co_filename", "") or "").replace("\\", "/")
    if not filename.endswith("sklearn/utils/_param_validation.py") or bound_self:
        return None
    try:
        inner = inspect.unwrap(wrapper)
        signature = inspect.signature(inner)
    except (TypeError, ValueError):
        return None
    try:
        signature.bind(*site.args, **site.kwargs)
    except TypeError as exc:
        return Raise(
            "python-call-signature",
            "TypeError",
            str(exc),
            facts=["signature: %s%s" % (getattr(inner, "__name__", "?"), signature)],
            node=site.node,
        )
    return None


def _signature_message(
    name: str, params: List[inspect.Parameter], given: int, kwargs: Dict[str, Any]
) -> str:
    positional = [p for p in params if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    names = {p.name for p in params if p.kind != p.POSITIONAL_ONLY}
    open_keywords = any(p.kind == p.VAR_KEYWORD for p in params)
    for key in kwargs:
        if key not in names and not open_keywords:
            return "%s() got an unexpected keyword argument '%s'" % (name, key)
    if given > len(positional):
        required = len([p for p in positional if p.default is p.empty])
        if required == len(positional):
            takes = "%d positional argument%s" % (
                len(positional),
                "" if len(positional) == 1 else "s",
            )
        else:
            takes = "from %d to %d positional arguments" % (required, len(positional))
        return "%s() takes %s but %d %s given" % (
            name,
            takes,
            given,
            "was" if given == 1 else "were",
        )
    for _index, param in enumerate(positional[:given]):
        if param.name in kwargs:
            return "%s() got multiple values for argument '%s'" % (name, param.name)
    missing = [p.name for p in positional[given:] if p.default is p.empty and p.name not in kwargs]
    if missing:
        quoted = ["'%s'" % m for m in missing]
        listed = quoted[0] if len(quoted) == 1 else ", ".join(quoted[:-1]) + " and " + quoted[-1]
        return "%s() missing %d required positional argument%s: %s" % (
            name,
            len(missing),
            "" if len(missing) == 1 else "s",
            listed,
        )
    kw_missing = [
        p.name
        for p in params
        if p.kind == p.KEYWORD_ONLY and p.default is p.empty and p.name not in kwargs
    ]
    if kw_missing:
        return "%s() missing %d required keyword-only argument%s: '%s'" % (
            name,
            len(kw_missing),
            "" if len(kw_missing) == 1 else "s",
            "', '".join(kw_missing),
        )
    return "%s() got an invalid combination of arguments" % name


# Methods that change a list, dict or set in place, followed on the walk's own container.
CONTAINER_MUTATORS: Dict[type, FrozenSet[str]] = {
    list: frozenset({"append", "extend", "insert", "pop", "clear", "reverse"}),
    dict: frozenset({"update", "setdefault", "pop", "clear"}),
    set: frozenset({"add", "update", "discard", "clear"}),
}


def storable(value: Any) -> bool:
    """A value that can go into the walk's own container and come out with its flags true: an
    exact value (not sampled, not a stand-in, not a placeholder) that is not the user's."""
    return (
        isinstance(value, Val)
        and not (value.live or value.sampled or value.fake)
        and value.origin != "standin"
    )


def container_method(receiver: Val, name: str, site: CallSite) -> Any:
    """`rows.append(x)`, `d.update(...)`, `s.add(x)` on a container the walk owns: done in place
    (only plain-data keys are hashed). None when not followed."""
    obj = receiver.obj
    if name not in CONTAINER_MUTATORS.get(type(obj), frozenset()) or site.has_star:
        return None
    args = list(site.args)
    if not all(storable(v) for v in args + list(site.kwargs.values())):
        return None
    values = [v.obj for v in args]
    if type(obj) is list:
        if site.kwargs:
            return None
        if name == "append" and len(values) == 1:
            obj.append(values[0])
        elif name == "extend" and len(values) == 1 and type(values[0]) in (list, tuple, range):
            obj.extend(values[0])
        elif name == "insert" and len(values) == 2 and type(values[0]) is int:
            obj.insert(values[0], values[1])
        elif name == "pop" and len(values) <= 1 and all(type(v) is int for v in values):
            if not obj:
                return Raise(
                    "python-index-out-of-range", "IndexError", "pop from empty list", node=site.node
                )
            index = values[0] if values else -1
            if not -len(obj) <= index < len(obj):
                return Raise(
                    "python-index-out-of-range",
                    "IndexError",
                    "pop index out of range",
                    node=site.node,
                )
            return Result(Val(obj.pop(index)))
        elif name in ("clear", "reverse") and not values:
            getattr(obj, name)()
        else:
            return None
        return Result(Val(None))
    if type(obj) is dict:
        keys = [k for k in values[:1]] + list(site.kwargs)
        if not all(is_plain_data(k) and _hashable_plain(k) for k in keys if name != "update"):
            return None
        if name == "update" and len(values) <= 1:
            other = values[0] if values else {}
            if type(other) is not dict or not all(_hashable_plain(k) for k in other):
                return None
            obj.update(other)
            obj.update({k: v.obj for k, v in site.kwargs.items()})
            return Result(Val(None))
        if site.kwargs:
            return None
        if name == "setdefault" and 1 <= len(values) <= 2:
            return Result(Val(obj.setdefault(values[0], values[1] if len(values) == 2 else None)))
        if name == "pop" and 1 <= len(values) <= 2:
            if values[0] not in obj and len(values) == 1:
                return Raise("python-missing-key", "KeyError", repr(values[0]), node=site.node)
            return Result(Val(obj.pop(*values)))
        if name == "clear" and not values:
            obj.clear()
            return Result(Val(None))
        return None
    # set
    if site.kwargs or not all(_hashable_plain(v) for v in values):
        return None
    if name == "update":
        if len(values) != 1 or type(values[0]) not in (list, tuple, set, frozenset):
            return None
        if not all(_hashable_plain(v) for v in values[0]):
            return None
        obj.update(values[0])
    elif name in ("add", "discard") and len(values) == 1:
        getattr(obj, name)(values[0])
    elif name == "clear" and not values:
        obj.clear()
    else:
        return None
    return Result(Val(None))


def _hashable_plain(value: Any) -> bool:
    """Hashing it runs no user code: builtin scalars and tuples of them."""
    if type(value) in (int, float, bool, str, bytes, type(None)):
        return True
    return type(value) is tuple and all(_hashable_plain(v) for v in value)


def container_set_item(target: ast.AST, base: Any, key: Any, value: Any) -> Any:
    """`d[k] = v` / `rows[i] = v` on a container the walk owns, in place."""
    if not isinstance(base, Val) or base.live or type(base.obj) not in (list, dict):
        return None
    if not isinstance(key, Val) or not storable(value):
        return None
    obj, index = base.obj, key.obj
    if type(obj) is dict:
        if not _hashable_plain(index):
            return None
        obj[index] = value.obj
        return Result(base)
    if type(index) is not int:
        return None
    if not -len(obj) <= index < len(obj):
        return Raise(
            "python-index-out-of-range",
            "IndexError",
            "list assignment index out of range",
            facts=["the list has %d items" % len(obj)],
            node=target,
        )
    obj[index] = value.obj
    return Result(base)
