"""Hand a cell to a helper interpreter when it imports a library the kernel has not loaded.

The checker never imports a module into the user's kernel, so a cell that is the first to
import one (`from sklearn.ensemble import RandomForestClassifier` written where it is used)
cannot be judged there. The kernel side packs what the cell reads: pickles of the shadows the
walk would use (library types only: a user object, a user subclass or a user callable is
never pickled and stays unknown), the names of library modules, and the library settings
that change results (scikit-learn's config, changed pandas options, numpy's error state,
torch's default dtype). A separate Python process that the daemon starts with the kernel's
own interpreter and `sys.path` imports the new modules, rebuilds the namespace and walks the
cell with the same checker. The kernel only reads and copies; nothing of it changes.
"""

from __future__ import annotations

import ast
import base64
import functools
import importlib
import io
import os
import pickle
import re
import sys
import types
from typing import Any, Dict, List, Optional, Set, Tuple

from .. import gate
from ..values import (
    LIBRARY_ROOTS,
    OPAQUE,
    Val,
    is_library_callable,
    is_library_object,
    is_library_type,
    loaded,
    type_root,
)

# What one hand-off may carry: a value over its cap (or over what is left) stays unknown.
MAX_VALUE_BYTES = 2_000_000
MAX_TOTAL_BYTES = 6_000_000
_QUERY_NAME = re.compile(r"@([A-Za-z_][A-Za-z0-9_]*)")
# Values the pickler writes without asking (reducer_override is not called for them).
_PLAIN = (type(None), bool, int, float, complex, str, bytes, list, tuple, dict, set, frozenset)


_CALLABLES = (
    types.FunctionType,
    types.BuiltinFunctionType,
    types.MethodType,
    functools.partial,
)
# Globals a shadow's pickle never needs; refused even from a library module.
_NEVER_LOADED = frozenset({"eval", "exec", "compile", "__import__", "open", "system", "popen"})


class _Full(Exception):
    """The value's pickle grew past its cap."""


class _CappedBuffer(io.BytesIO):
    def __init__(self, cap: int) -> None:
        super().__init__()
        self.cap = cap

    def write(self, data: Any) -> int:
        if self.tell() + len(data) > self.cap:
            raise _Full()
        return super().write(data)


def _library_root(name: Any) -> bool:
    return isinstance(name, str) and name.split(".", 1)[0] in LIBRARY_ROOTS and name != "__main__"


# Where pandas keeps a column's data without being a library the checker reasons about:
# pandas 3 stores strings in pyarrow arrays whenever pyarrow is installed. Their types and
# functions may be packed and loaded (a frame's pickle needs them); the checker never calls them.
_STORAGE_MODULES = frozenset({"pyarrow", "pyarrow.lib"})


def _storage_type(tp: type) -> bool:
    """A pyarrow type whose whole MRO is pyarrow's or builtins' (an Array, a DataType...)."""
    try:
        mro = tp.__mro__
    except Exception:
        return False
    roots = {type_root(klass) for klass in mro}
    return "pyarrow" in roots and roots <= {"pyarrow", "builtins"}


def _packable_module(name: Any) -> bool:
    return _library_root(name) or name in _STORAGE_MODULES


class LibraryPickler(pickle.Pickler):
    """Pickles library objects only: anything of a user's type, or a user callable, is refused.

    A refused object is never reduced, so no `__reduce__`, `__getstate__` or other code of the
    user's runs while the shadow is packed.
    """

    def reducer_override(self, obj: Any) -> Any:
        if gate.lookup_runs_user_code(obj):
            raise pickle.PicklingError("not a library object")
        if isinstance(obj, type):
            ok = is_library_type(obj) or _storage_type(obj)
        elif isinstance(obj, _CALLABLES):
            ok = is_library_object(obj) or is_library_callable(obj)
        elif _cython_function(obj):
            ok = _packable_module(getattr(obj, "__module__", None))
        else:
            ok = is_library_type(type(obj)) or _storage_type(type(obj))
        if not ok:
            raise pickle.PicklingError("not a library object")
        return NotImplemented


def _cython_function(obj: Any) -> bool:
    """A function compiled by Cython (pandas' and scikit-learn's internals are)."""
    tp = type(obj)
    return tp.__name__ in ("cython_function_or_method", "fused_cython_function") and (
        tp.__module__.startswith("_cython_")
    )


class LibraryUnpickler(pickle.Unpickler):
    """Loads only classes and functions of the libraries the checker knows."""

    def find_class(self, module: str, name: str) -> Any:
        allowed = _packable_module(module) or module in ("copyreg", "_codecs")
        if not allowed or name in _NEVER_LOADED:
            raise pickle.UnpicklingError("global %s.%s is not a library's" % (module, name))
        return super().find_class(module, name)


def pack(obj: Any, cap: int) -> Optional[bytes]:
    """The library-only pickle of `obj`, or None (refused, too big, or not picklable)."""
    buffer = _CappedBuffer(cap)
    try:
        LibraryPickler(buffer, protocol=4).dump(obj)
    except (_Full, Exception):
        return None
    return buffer.getvalue()


def unpack(data: bytes) -> Any:
    return LibraryUnpickler(io.BytesIO(data)).load()


def read_names(tree: ast.AST) -> Set[str]:
    """Every name the cell could read from the namespace (over-approximated)."""
    names: Set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Name):
            names.add(node.id)
        elif isinstance(node, (ast.Global, ast.Nonlocal)):
            names.update(node.names)
        elif isinstance(node, ast.Constant) and isinstance(node.value, str) and "@" in node.value:
            names.update(_QUERY_NAME.findall(node.value))  # DataFrame.query/eval's @name
    return names


def library_settings() -> Dict[str, Any]:
    """The kernel's library settings that change what an operation returns or raises."""
    settings: Dict[str, Any] = {}
    sklearn = loaded("sklearn")
    if sklearn is not None and hasattr(sklearn, "get_config"):
        config = sklearn.get_config()
        settings["sklearn"] = {k: v for k, v in config.items() if isinstance(v, _PLAIN)}
    pd = loaded("pandas")
    if pd is not None:
        settings["pandas"] = _changed_pandas_options(pd)
    np = loaded("numpy")
    if np is not None:
        settings["numpy"] = dict(np.geterr())
    torch = loaded("torch")
    if torch is not None:
        settings["torch"] = {
            "default_dtype": str(torch.get_default_dtype()).replace("torch.", ""),
            "grad_enabled": bool(torch.is_grad_enabled()),
        }
    return settings


def _changed_pandas_options(pd: Any) -> Dict[str, Any]:
    """The pandas options whose value differs from their default, deprecated ones left out.

    Values are read from pandas' option tree, not with `pd.get_option`: that one warns (a
    FutureWarning) for every deprecated option, and pandas' registry says which those are.
    """
    config = getattr(getattr(pd, "_config", None), "config", None)
    registry = getattr(config, "_registered_options", None)
    deprecated = getattr(config, "_deprecated_options", None)
    get_root = getattr(config, "_get_root", None)
    changed: Dict[str, Any] = {}
    if not isinstance(registry, dict):
        return changed
    if not isinstance(deprecated, dict):
        deprecated = {}
    for key, option in list(registry.items())[:500]:
        if key in deprecated:
            continue
        try:
            if callable(get_root):
                root, leaf = get_root(key)
                value = root[leaf]
            else:
                value = pd.get_option(key)  # warns only for deprecated options
        except Exception:
            continue
        if isinstance(value, (type(None), bool, int, float, str)) and value != option.defval:
            changed[key] = value
    return changed


def build(
    checker: Any, code: str, offset: int, modules: List[str], lazy: bool = False
) -> Optional[Dict[str, Any]]:
    """The hand-off request for a walk that met `modules` unloaded, or None.

    `lazy`: library code in the walk tried to import a module lazily, which the kernel
    refuses (imports.py); the helper walks anyway, and that library code imports it there.
    """
    modules = [m for m in dict.fromkeys(modules) if _library_root(m)]
    if not modules and not lazy:
        return None
    values: Dict[str, Any] = {}
    module_names: Dict[str, str] = {}
    opaque: List[str] = []
    left = MAX_TOTAL_BYTES
    for name in sorted(read_names(checker.tree) & set(checker.namespace)):
        obj = checker.namespace[name]
        if gate.lookup_runs_user_code(obj):  # before any isinstance, which reads __class__
            opaque.append(name)
            continue
        if issubclass(type(obj), types.ModuleType):
            module_name = str(getattr(obj, "__name__", ""))
            if _library_root(module_name) and sys.modules.get(module_name) is obj:
                module_names[name] = module_name
            else:
                opaque.append(name)
            continue
        tracked = checker.wrap(obj)
        data = None
        if isinstance(tracked, Val) and not tracked.live:
            data = pack(tracked.obj, min(MAX_VALUE_BYTES, left))
        if data is None:
            opaque.append(name)
            continue
        left -= len(data)
        values[name] = {
            "pickle": base64.b64encode(data).decode("ascii"),
            "sampled": tracked.sampled,
            "rows": tracked.rows,
            "fake": tracked.fake,
        }
    return {
        "code": code,
        "offset": offset,
        "modules": modules,
        "module_names": module_names,
        "values": values,
        "opaque": opaque,
        "settings": library_settings(),
        "context": {"executable": sys.executable, "sys_path": list(sys.path), "cwd": _cwd()},
    }


def _cwd() -> Optional[str]:
    try:
        return os.getcwd()
    except OSError:
        return None


# ----------------------------------------------------------------- the helper's side


def _import_library(name: str) -> Optional[types.ModuleType]:
    if not _library_root(name):
        return None
    try:
        return importlib.import_module(name)
    except BaseException:
        return None


class SettingsScope:
    """Apply a kernel's library settings in the helper for one walk, then put its own back."""

    def __init__(self, settings: Dict[str, Any]) -> None:
        self.settings = settings
        self.undo: List[Tuple[Any, ...]] = []

    def __enter__(self) -> "SettingsScope":
        sklearn = loaded("sklearn")
        wanted = self.settings.get("sklearn")
        if sklearn is not None and isinstance(wanted, dict):
            before = sklearn.get_config()
            known = {k: v for k, v in wanted.items() if k in before}
            self._try(lambda: sklearn.set_config(**known), lambda: sklearn.set_config(**before))
        pd = loaded("pandas")
        for key, value in (self.settings.get("pandas") or {}).items():
            if pd is None:
                break
            try:
                old = pd.get_option(key)
            except Exception:
                continue
            self._try(
                lambda k=key, v=value: pd.set_option(k, v),
                lambda k=key, o=old: pd.set_option(k, o),
            )
        np = loaded("numpy")
        if np is not None and isinstance(self.settings.get("numpy"), dict):
            old_err = np.geterr()
            self._try(lambda: np.seterr(**self.settings["numpy"]), lambda: np.seterr(**old_err))
        torch = loaded("torch")
        wanted_torch = self.settings.get("torch")
        if torch is not None and isinstance(wanted_torch, dict):
            dtype = getattr(torch, str(wanted_torch.get("default_dtype")), None)
            old_dtype, old_grad = torch.get_default_dtype(), torch.is_grad_enabled()
            if isinstance(dtype, torch.dtype):
                self._try(
                    lambda: torch.set_default_dtype(dtype),
                    lambda: torch.set_default_dtype(old_dtype),
                )
            grad = bool(wanted_torch.get("grad_enabled", True))
            self._try(
                lambda: torch.set_grad_enabled(grad), lambda: torch.set_grad_enabled(old_grad)
            )
        return self

    def _try(self, apply: Any, undo: Any) -> None:
        try:
            apply()
        except Exception:
            return
        self.undo.append((undo,))

    def __exit__(self, *exc: Any) -> None:
        for (undo,) in reversed(self.undo):
            try:
                undo()
            except Exception:
                pass


def namespace_of(request: Dict[str, Any]) -> Tuple[Dict[str, Any], Dict[int, Any]]:
    """The helper's namespace for a hand-off, and the tracked forms of its values by id."""
    namespace: Dict[str, Any] = {}
    tracked: Dict[int, Any] = {}
    for name in request.get("opaque") or []:
        namespace[name] = OPAQUE
    for name, module_name in (request.get("module_names") or {}).items():
        module = _import_library(module_name)
        namespace[name] = module if module is not None else OPAQUE
    for name, packed in (request.get("values") or {}).items():
        try:
            obj = unpack(base64.b64decode(packed["pickle"]))
        except Exception:
            namespace[name] = OPAQUE
            continue
        namespace[name] = obj
        tracked[id(obj)] = Val(
            obj,
            sampled=bool(packed.get("sampled")),
            rows=packed.get("rows"),
            origin="namespace",
            fake=bool(packed.get("fake")),
        )
    return namespace, tracked


def prepare_helper(request: Dict[str, Any]) -> List[str]:
    """In the helper: take the kernel's sys.path and folder, import the cell's new modules."""
    context = request.get("context") or {}
    sys_path = context.get("sys_path")
    if isinstance(sys_path, list) and all(isinstance(p, str) for p in sys_path):
        sys.path[:] = sys_path
    cwd = context.get("cwd")
    if isinstance(cwd, str) and os.path.isdir(cwd):
        os.chdir(cwd)
    return [m for m in request.get("modules") or [] if _import_library(m) is not None]
