"""Walking the body of a user-defined function at a call site, without running it.

The callee's body is walked by a child checker whose locals are the bound arguments and
whose globals fall back to the calling checker. A crash certain inside the body is reported
at the line of the call in the target cell when the function was defined in an earlier cell.
"""

from __future__ import annotations

import ast
import inspect
import textwrap
import types
from typing import Any, Dict, List, Optional, Tuple

from ..shadows import from_namespace
from ..values import UNKNOWN, UserFunction, Val, is_library_object

MAX_DEPTH = 3


def function_ast(user: UserFunction) -> Optional[Tuple[Any, bool]]:
    """The FunctionDef to walk and whether it belongs to the target cell."""
    if user.node is not None and isinstance(user.node, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return user.node, True
    func = user.func
    if not isinstance(func, types.FunctionType):
        return None
    try:
        source = textwrap.dedent(inspect.getsource(func))
        tree = ast.parse(source)
    except (OSError, TypeError, SyntaxError, IndentationError):
        return None
    for node in tree.body:
        if isinstance(node, ast.FunctionDef) and node.name == func.__name__:
            return node, False
    return None


def _default_values(user: UserFunction, node: Any) -> Tuple[List[Any], Dict[str, Any]]:
    """Defaults of positional and keyword-only parameters (UNKNOWN when not knowable)."""
    func = user.func
    if isinstance(func, types.FunctionType):
        positional = [from_namespace(v) for v in (func.__defaults__ or ())]
        keyword = {k: from_namespace(v) for k, v in (func.__kwdefaults__ or {}).items()}
        return positional, keyword
    positional = [
        Val(d.value) if isinstance(d, ast.Constant) else UNKNOWN for d in node.args.defaults
    ]
    keyword = {
        a.arg: (Val(d.value) if isinstance(d, ast.Constant) else UNKNOWN)
        for a, d in zip(node.args.kwonlyargs, node.args.kw_defaults)
        if d is not None
    }
    return positional, keyword


def bind_arguments(
    user: UserFunction, node: Any, args: List[Any], kwargs: Dict[str, Any]
) -> Optional[Dict[str, Any]]:
    """Parameter name -> value, or None when the binding is not certain."""
    spec = node.args
    params = [a.arg for a in spec.posonlyargs + spec.args]
    if user.bound_self is not None:
        args = [user.bound_self, *list(args)]
    defaults, kw_defaults = _default_values(user, node)
    bound: Dict[str, Any] = {}
    if len(args) > len(params):
        if spec.vararg is None:
            return None
        rest = list(args)[len(params) :]
        plain = all(isinstance(v, Val) and not (v.live or v.sampled or v.fake) for v in rest)
        bound[spec.vararg.arg] = Val(tuple(v.obj for v in rest)) if plain else UNKNOWN
    elif spec.vararg is not None:
        bound[spec.vararg.arg] = Val(())
    for name, value in zip(params, args):
        bound[name] = value
    extra: Dict[str, Any] = {}
    kw_names = {a.arg for a in spec.kwonlyargs}
    for key, value in kwargs.items():
        if key in bound:
            return None
        if key in params or key in kw_names:
            bound[key] = value
        elif spec.kwarg is not None:
            extra[key] = value
        else:
            return None
    first_default = len(params) - len(defaults)
    for index, name in enumerate(params):
        if name not in bound:
            if index < first_default:
                return None
            bound[name] = defaults[index - first_default]
    for name in kw_names:
        if name not in bound:
            if name not in kw_defaults:
                return None
            bound[name] = kw_defaults[name]
    if spec.kwarg is not None:
        known = all(isinstance(v, Val) for v in extra.values())
        bound[spec.kwarg.arg] = Val({k: v.obj for k, v in extra.items()}) if known else UNKNOWN
    return bound


def walk_call(
    parent: Any,
    user: UserFunction,
    args: List[Any],
    kwargs: Dict[str, Any],
    call_node: ast.AST,
    has_star: bool,
) -> Any:
    """The value a call to a user function returns, walking its body; UNKNOWN when unsure."""
    if has_star or parent.depth >= MAX_DEPTH or not parent.certain:
        return UNKNOWN
    func = user.func
    if func is not None and getattr(func, "__globals__", None) is not parent_namespace(parent):
        return UNKNOWN  # defined in a module, not in the notebook: its globals are not ours
    code = getattr(func, "__code__", None)
    if code is not None and code.co_freevars:
        return UNKNOWN  # a closure: its free variables live in a frame we do not have
    found = function_ast(user)
    if found is None:
        return UNKNOWN
    node, in_cell = found
    if isinstance(node, ast.AsyncFunctionDef) or any(
        isinstance(n, (ast.Yield, ast.YieldFrom)) for n in ast.walk(node)
    ):
        return UNKNOWN
    if id(node) in parent.active_functions:
        return UNKNOWN  # recursion
    bound = bind_arguments(user, node, args, kwargs)
    if bound is None:
        return UNKNOWN
    child = parent.child(node, bound, call_node, in_cell)
    return child.run_function()


def parent_namespace(checker: Any) -> Any:
    return checker.root().namespace


def module_forward(obj: Any) -> Optional[UserFunction]:
    """`model(x)` on a user nn.Module: its forward, when no hooks can run user code around it."""
    torch_nn = __import__("sys").modules.get("torch.nn")
    if torch_nn is None or not isinstance(obj, torch_nn.Module) or is_library_object(obj):
        return None
    try:
        hooks = (obj._forward_hooks, obj._forward_pre_hooks)
    except AttributeError:
        return None
    if any(hooks) or "__call__" in vars(type(obj)):
        return None
    forward = inspect.getattr_static(obj, "forward", None)
    if not isinstance(forward, types.FunctionType):
        return None
    return UserFunction("forward", func=forward, bound_self=Val(obj, origin="namespace"))


def build_record(cls: type, args: List[Any], kwargs: Dict[str, Any]) -> Any:
    """The fields a plain dataclass's generated __init__ would store, or UNKNOWN."""
    import dataclasses

    from ..values import RecordValue

    fields = [f for f in dataclasses.fields(cls) if f.init]
    if len(args) > len(fields):
        return UNKNOWN
    values: Dict[str, Any] = {}
    for field, value in zip(fields, args):
        values[field.name] = value
    for key, value in kwargs.items():
        if key in values or key not in {f.name for f in fields}:
            return UNKNOWN
        values[key] = value
    for field in fields:
        if field.name in values:
            continue
        if field.default is not dataclasses.MISSING:
            values[field.name] = from_namespace(field.default)
        else:
            return UNKNOWN
    return Val(RecordValue(cls, values))
