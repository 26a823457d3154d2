"""tqdm progress bars: iterating `tqdm(x)` is iterating `x`; a Jupyter bar (tqdm.notebook)
needs ipywidgets, and without it building one raises ImportError (tqdm.auto falls back to the
text bar instead, so it is never reported).

Only tqdm's own callables are recognised, by identity with the objects of tqdm's loaded
modules; a user subclass of tqdm is user code.
"""

from __future__ import annotations

import ast
import inspect
import sys
from typing import Any, Dict, FrozenSet, Optional, Tuple

from ..outcomes import CallSite, Raise, Result
from ..values import (
    UNKNOWN,
    ProgressBar,
    Val,
    as_dict,
    is_library_object,
    is_plain_data,
    loaded,
)

# Where tqdm keeps its bars, and the names they go by there.
MODULES = ("tqdm", "tqdm.std", "tqdm.auto", "tqdm.autonotebook", "tqdm.notebook", "tqdm.asyncio")
BAR_NAMES = ("tqdm", "tqdm_notebook", "tqdm_asyncio")
RANGE_NAMES = ("trange", "tnrange")
# Keywords the Jupyter bar takes on top of tqdm's own.
NOTEBOOK_KEYWORDS = frozenset({"display", "colour"})


def on_attribute(chk: Any, node: ast.Attribute, base: Val) -> Any:
    return None


def on_subscript(chk: Any, node: ast.Subscript, base: Val, key: Any) -> Any:
    return None


def on_binop(chk: Any, node: ast.BinOp, left: Val, right: Val) -> Any:
    return None


def on_call(chk: Any, site: CallSite) -> Any:
    func = site.func
    if not isinstance(func, Val) or site.has_star or loaded("tqdm.std") is None:
        return None
    kind = _kind(func.obj)
    if kind is None:
        return None
    callable_kind, notebook = kind
    if not _keywords_accepted(site.kwargs, notebook):
        return None  # tqdm's own TqdmKeyError (or a TypeError) comes first
    if callable_kind == "range":
        return _range_bar(site, notebook)
    if len(site.args) > 1:
        return None
    iterable = site.arg(0, "iterable")
    if notebook and _widgets_missing() and _enabled(site.kwargs) and _len_is_libraries(iterable):
        return _no_widgets(site)
    if iterable is None:
        return None
    if isinstance(iterable, Val):
        return Result(Val(ProgressBar(iterable)))
    return Result(UNKNOWN)  # tqdm reads its iterable only by iterating it


def _range_bar(site: CallSite, notebook: bool) -> Any:
    """`trange(a, b, step)`: tqdm over `range(a, b, step)` (plain integers only)."""
    bounds = site.args
    if not 1 <= len(bounds) <= 3 or not all(
        isinstance(b, Val) and type(b.obj) is int for b in bounds
    ):
        return None
    if notebook and _widgets_missing() and _enabled(site.kwargs):
        return _no_widgets(site)
    return Result(Val(ProgressBar(Val(range(*[b.obj for b in bounds])))))


def _kind(target: Any) -> Optional[Tuple[str, bool]]:
    """("bar" | "range", is a Jupyter bar) for one of tqdm's own callables, else None."""
    for name in MODULES:
        found = as_dict(loaded(name))
        for attribute in BAR_NAMES + RANGE_NAMES:
            if attribute in found and found[attribute] is target:
                return ("range" if attribute in RANGE_NAMES else "bar"), _jupyter(target)
    return None


def _jupyter(target: Any) -> bool:
    """tqdm.notebook's bar or range, tqdm's deprecated wrappers of them, or a tqdm class
    built on the notebook bar (tqdm.auto's, when it chose the notebook)."""
    notebook = as_dict(loaded("tqdm.notebook"))
    package = as_dict(loaded("tqdm"))
    jupyter = [notebook.get("tqdm_notebook"), notebook.get("tnrange")]
    jupyter += [package.get("tqdm_notebook"), package.get("tnrange")]
    if any(candidate is target for candidate in jupyter if candidate is not None):
        return True
    bar = notebook.get("tqdm_notebook")
    return type(target) is type and type(bar) is type and issubclass(target, bar)


def _keywords_accepted(kwargs: Dict[str, Any], notebook: bool) -> bool:
    std = loaded("tqdm.std")
    try:
        names = set(inspect.signature(std.tqdm.__init__).parameters) - {"self", "kwargs"}
    except (TypeError, ValueError, AttributeError):
        return False
    allowed: FrozenSet[str] = frozenset(names) | (NOTEBOOK_KEYWORDS if notebook else frozenset())
    return set(kwargs) <= allowed


def _widgets_missing() -> bool:
    """tqdm.notebook found no ipywidgets when it was imported (it never looks again), or it
    is not imported yet (tqdm's deprecated `tqdm_notebook` imports it) and ipywidgets is not
    installed."""
    notebook = loaded("tqdm.notebook")
    if notebook is None:
        from .python import not_installed

        return not_installed("ipywidgets")
    found = as_dict(notebook)
    return "IProgress" in found and found["IProgress"] is None


def _enabled(kwargs: Dict[str, Any]) -> bool:
    """The bar is drawn: `disable` absent or a plain false value (tqdm.notebook: bool(...))."""
    if "disable" not in kwargs:
        return True
    given = kwargs["disable"]
    return isinstance(given, Val) and given.obj in (False, None, 0) and is_plain_data(given.obj)


def _len_is_libraries(iterable: Any) -> bool:
    """tqdm takes len() of what it is given: only of values whose len() is library code."""
    if iterable is None or not isinstance(iterable, Val):
        return iterable is None or iterable is UNKNOWN
    return is_plain_data(iterable.obj) or is_library_object(iterable.obj)


def _no_widgets(site: CallSite) -> Raise:
    notebook = loaded("tqdm.notebook")
    message = as_dict(notebook).get("WARN_NOIPYW")
    if notebook is None:
        fact = "ipywidgets is not installed in the kernel's environment (%s)" % sys.executable
    else:
        fact = "ipywidgets could not be imported when tqdm.notebook was (IProgress is None)"
    return Raise(
        "tqdm-notebook-without-ipywidgets",
        "ImportError",
        message if isinstance(message, str) else "IProgress not found",
        facts=[fact + ": tqdm's Jupyter progress bar cannot be built"],
        fix="%pip install ipywidgets and restart the kernel, or use tqdm.auto (it falls back "
        "to a text bar)",
        node=site.node,
    )
