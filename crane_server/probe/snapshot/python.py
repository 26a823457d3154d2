"""Summaries of Python builtins, containers, callables, modules and unknown objects.

Containers are read through the builtin base type's own C methods (`list.__len__(obj)`),
so a user subclass overriding `__len__`, `__iter__` or `__getitem__` is never called.
"""

from __future__ import annotations

import sys
import types
from typing import Any, Dict, List, Optional

from .base import (
    MISSING,
    SummaryOptions,
    class_dict,
    class_module,
    class_qualname,
    instance_dict,
    is_a,
    is_library_class,
    one_of,
    safe_label,
    safe_repr,
    scalar_value,
    short_type_names,
    static_lookup,
    truncate,
    type_mro,
    type_name,
)

_SCALAR_KINDS = {
    type(None): "none",
    bool: "bool",
    int: "int",
    float: "float",
    complex: "complex",
    str: "str",
    bytes: "bytes",
}
# The builtin base's own C conversion: exact copies, no user __str__/__int__/__float__.
_PLAIN: Dict[type, Any] = {str: str.__str__, int: int.__int__, float: float.__float__}
_SEQUENCES = (list, tuple)
_SETS = (set, frozenset)
_BUILTIN_IDS = frozenset(map(id, (*_SCALAR_KINDS, *_SEQUENCES, *_SETS, dict, range)))
_CO_VARARGS = 0x04
_CO_VARKEYWORDS = 0x08


def builtin_base(cls: type) -> Optional[type]:
    """The builtin scalar or container type that `cls` is or derives from, if any."""
    for klass in type_mro(cls):
        if id(klass) in _BUILTIN_IDS:
            return klass
    return None


def summarise_builtin(obj: Any, base: type, out: Dict[str, Any], opts: SummaryOptions) -> None:
    """Scalars and containers; `base` is the builtin type found in the MRO."""
    subclass = type(obj) is not base
    out["kind"] = _SCALAR_KINDS.get(base) or base.__name__
    if subclass and opts.representation:
        out.setdefault("details", {})["builtin_base"] = base.__name__
    if base in _SCALAR_KINDS:
        _scalar(obj, base, out, opts)
    elif base is dict:
        _mapping(obj, out, opts)
    elif base is range:
        if opts.structure:
            out["length"] = range.__len__(obj)
        if opts.values:
            out["stats"] = {"start": obj.start, "stop": obj.stop, "step": obj.step}
    else:
        _collection(obj, base, out, opts)


def _scalar(obj: Any, base: type, out: Dict[str, Any], opts: SummaryOptions) -> None:
    if base in (str, bytes) and opts.structure:
        out["length"] = base.__len__(obj)
    if not opts.values:
        return
    plain = _PLAIN[base](obj) if base in _PLAIN else obj
    value = scalar_value(plain, opts.max_text) if one_of(plain, *_SCALAR_KINDS) else MISSING
    if value is MISSING and base in (bytes, complex):
        value = truncate(base.__repr__(obj), opts.max_text)
    if value is not MISSING:
        out["stats"] = {"value": value}
        if base is str and str.__len__(obj) > opts.max_text:
            out["truncated"] = True


def _collection(obj: Any, base: Any, out: Dict[str, Any], opts: SummaryOptions) -> None:
    length = base.__len__(obj)
    if opts.structure:
        out["length"] = length
    prefix: List[Any] = []
    iterator = base.__iter__(obj)
    for _ in range(min(length, opts.max_items)):
        prefix.append(next(iterator))
    if opts.representation:
        out.setdefault("details", {})["element_types"] = short_type_names(prefix, 8)
    if opts.values and prefix:
        out["examples"] = [safe_repr(item, 40) for item in prefix[:5]]
        if base in _SEQUENCES and all(one_of(item, int, float, bool) for item in prefix):
            numbers = [item for item in prefix if item == item]  # exact builtins: NaN check
            if numbers:
                out["stats"] = {"min_prefix": min(numbers), "max_prefix": max(numbers)}
    if opts.structure and base in _SEQUENCES and prefix:
        nested = [item for item in prefix if one_of(item, *_SEQUENCES)]
        if len(nested) == len(prefix):
            lengths = {type(item).__len__(item) for item in nested}
            out.setdefault("details", {})["row_lengths"] = sorted(lengths)[:8]
    if length > opts.max_items:
        out["truncated"] = True


def _mapping(obj: Any, out: Dict[str, Any], opts: SummaryOptions) -> None:
    length = dict.__len__(obj)
    if opts.structure:
        out["length"] = length
    keys: List[Any] = []
    values: List[Any] = []
    for key, value in dict.items(obj):  # the C storage of the dict, no user __iter__
        keys.append(key)
        values.append(value)
        if len(keys) >= opts.max_items:
            break
    if opts.structure:
        out.setdefault("details", {})["keys"] = [safe_label(key, 40) for key in keys]
    if opts.representation:
        details = out.setdefault("details", {})
        details["key_types"] = short_type_names(keys, 8)
        details["value_types"] = short_type_names(values, 8)
    if opts.values and values:
        out["examples"] = [safe_repr(value, 40) for value in values[:5]]
    if length > opts.max_items:
        out["truncated"] = True


def summarise_callable(obj: Any, out: Dict[str, Any], opts: SummaryOptions) -> bool:
    """Functions, methods, builtins and classes; False when `obj` is none of these."""
    if is_a(obj, types.FunctionType):
        out["kind"] = "function"
        _function(obj, out, opts, skip_first=False)
    elif is_a(obj, types.MethodType):
        out["kind"] = "method"
        function = obj.__func__
        if is_a(function, types.FunctionType):
            _function(function, out, opts, skip_first=True)
        if opts.representation:
            out.setdefault("details", {})["bound_to"] = type_name(type(obj.__self__))
    elif is_a(obj, types.BuiltinFunctionType) or is_a(obj, types.MethodDescriptorType):
        out["kind"] = "builtin_function"
        if opts.representation:
            out["signature"] = _text_signature(obj)
            owner = getattr(obj, "__module__", None)
            if type(owner) is str:
                out["module"] = owner
    elif is_a(obj, type):
        out["kind"] = "class"
        _class(obj, out, opts)
    else:
        return False
    if opts.representation:
        doc = _first_doc_line(_raw_doc(obj))
        if doc:
            out.setdefault("details", {})["doc"] = doc
    return True


def _raw_doc(obj: Any) -> Any:
    """The docstring, read from the function object or the class's own namespace."""
    if is_a(obj, type):
        return class_dict(obj).get("__doc__")
    if is_a(obj, types.MethodType):
        obj = obj.__func__
    if is_a(obj, types.FunctionType) or is_a(obj, types.BuiltinFunctionType):
        return obj.__doc__
    if is_a(obj, types.MethodDescriptorType):
        return obj.__doc__
    return None


def _first_doc_line(doc: Any) -> str:
    if type(doc) is not str:
        return ""
    for line in doc.strip().splitlines():
        if line.strip():
            return truncate(line.strip(), 200)
    return ""


def _function(function: Any, out: Dict[str, Any], opts: SummaryOptions, skip_first: bool) -> None:
    """The signature rebuilt from the code object; defaults shown only when primitive."""
    code = function.__code__
    names = code.co_varnames
    positional = names[: code.co_argcount]
    keyword_only = names[code.co_argcount : code.co_argcount + code.co_kwonlyargcount]
    index = code.co_argcount + code.co_kwonlyargcount
    varargs = names[index] if code.co_flags & _CO_VARARGS else None
    index += int(varargs is not None)
    varkw = names[index] if code.co_flags & _CO_VARKEYWORDS else None
    defaults = function.__defaults__ or ()
    kwdefaults = function.__kwdefaults__ or {}
    first_default = len(positional) - len(defaults)
    parts: List[str] = []
    parameters: List[str] = []
    for position, name in enumerate(positional):
        if not (skip_first and position == 0):
            text = name
            if position >= first_default:
                text += "=" + safe_repr(defaults[position - first_default], 30)
            parts.append(text)
            parameters.append(name)
        if position == code.co_posonlyargcount - 1 and parts:
            parts.append("/")
    if varargs is not None:
        parts.append("*" + varargs)
        parameters.append("*" + varargs)
    elif keyword_only:
        parts.append("*")
    for name in keyword_only:
        default = dict.get(kwdefaults, name, MISSING)
        parts.append(name if default is MISSING else name + "=" + safe_repr(default, 30))
        parameters.append(name)
    if varkw is not None:
        parts.append("**" + varkw)
        parameters.append("**" + varkw)
    module = function.__module__
    if opts.representation:
        out["signature"] = truncate("(" + ", ".join(parts) + ")", 300)
        if type(module) is str:
            out["module"] = module
    if opts.structure:
        details = out.setdefault("details", {})
        details["parameters"] = parameters[:40]
        details["qualname"] = truncate(str(function.__qualname__), 120)
        details["user_defined"] = module == "__main__" or not _library_module(module)


def _library_module(module: Any) -> bool:
    return type(module) is str and module.partition(".")[0] in _LIBRARY_MODULE_ROOTS


_LIBRARY_MODULE_ROOTS = frozenset(sys.builtin_module_names) | {
    "builtins",
    "numpy",
    "pandas",
    "torch",
    "sklearn",
    "scipy",
    "tensorflow",
    "keras",
    "matplotlib",
    "seaborn",
    "statsmodels",
}


def _text_signature(obj: Any) -> Optional[str]:
    text = getattr(obj, "__text_signature__", None)
    if type(text) is not str:
        return None
    if text.startswith("($"):  # the bound first parameter ($self, $module, $type)
        comma = text.find(",")
        text = "(" + text[comma + 1 :].lstrip() if comma > 0 else "()"
        if text.startswith("(/"):  # nothing positional-only is left
            text = "(" + text[2:].lstrip(", ")
    return truncate(text, 300)


def _class(cls: type, out: Dict[str, Any], opts: SummaryOptions) -> None:
    if opts.representation:
        out["module"] = class_module(cls)
        init, _owner = static_lookup(cls, "__init__")
        if is_a(init, types.FunctionType):
            holder: Dict[str, Any] = {}
            _function(init, holder, opts, skip_first=True)
            out["signature"] = holder.get("signature")
        elif is_library_class(type(cls)) and type(cls) is type:
            out["signature"] = _text_signature(init) or _text_signature(cls)
    if opts.structure:
        bases = [type_name(base) for base in type_mro(cls)[1:6]]
        out.setdefault("details", {})["bases"] = bases
        out["details"]["qualname"] = class_qualname(cls)


def summarise_module(obj: Any, out: Dict[str, Any], opts: SummaryOptions) -> None:
    out["kind"] = "module"
    namespace = instance_dict(obj) or {}
    name = dict.get(namespace, "__name__")
    if type(name) is str:
        out["module"] = name
        if opts.representation:
            version = module_version(name)
            if version:
                out.setdefault("details", {})["version"] = version


def module_version(name: str) -> Optional[str]:
    """__version__ of a module or of its top-level package, read from sys.modules only."""
    for candidate in (name, name.partition(".")[0]):
        module = sys.modules.get(candidate)
        namespace = instance_dict(module) if module is not None else None
        if namespace is not None:
            version = dict.get(namespace, "__version__")
            if is_a(version, str):
                return truncate(str.__str__(version), 40)
    return None


def summarise_unknown(obj: Any, out: Dict[str, Any], opts: SummaryOptions) -> None:
    """Anything else: its type, its bases, and the names (not values) of its attributes."""
    cls = type(obj)
    out["kind"] = "object"
    if opts.representation:
        details = out.setdefault("details", {})
        details["bases"] = [type_name(base) for base in type_mro(cls)[1:6]]
        _raw, call_owner = static_lookup(cls, "__call__")
        details["callable"] = call_owner is not None
    if opts.structure:
        namespace = instance_dict(obj)
        if namespace is not None:
            names = []
            for key in dict.keys(namespace):
                if type(key) is str and not key.startswith("__"):
                    names.append(key)
                    if len(names) >= opts.max_items:
                        break
            out.setdefault("details", {})["attributes"] = names
