"""matplotlib and seaborn rules: axes grids, subplot positions, image shapes.

Plotting calls are never evaluated (they would draw into the user's figures): the rules
model what they would create or check what they would reject.
"""

from __future__ import annotations

import ast
from typing import Any, List, Optional, Tuple

from ..outcomes import CallSite, Raise, Result
from ..values import (
    UNKNOWN,
    AxesPlaceholder,
    BoundMethod,
    FigurePlaceholder,
    Val,
    loaded,
    shape_of,
)


def on_attribute(chk: Any, node: ast.Attribute, base: Val) -> Any:
    return None


def on_subscript(chk: Any, node: ast.Subscript, base: Val, key: Any) -> Any:
    if isinstance(base.obj, AxesPlaceholder):
        return Raise(
            "matplotlib-axes-not-subscriptable",
            "TypeError",
            "'Axes' object is not subscriptable",
            facts=["plt.subplots() with one row and one column returns a single Axes"],
            fix="use ax directly, or create a grid (plt.subplots(nrows, ncols))",
            node=node,
        )
    return None


# Axes-level seaborn functions that look up string variables in `data` (seaborn 0.13).
SEABORN_DATA_FUNCTIONS = frozenset(
    """scatterplot lineplot histplot kdeplot ecdfplot boxplot violinplot boxenplot stripplot
    swarmplot barplot pointplot countplot""".split()
)
SEABORN_VARIABLES = ("x", "y", "hue", "size", "style", "units", "weights")


def _seaborn_data(site: CallSite, name: str) -> Any:
    """A string variable that is neither a column nor an index level of `data`."""
    from ..values import closest_name, is_dataframe, preview

    data = site.kwargs.get("data")
    if not isinstance(data, Val) or not is_dataframe(data.obj) or data.fake:
        return None
    frame = data.obj
    index_names = [n for n in frame.index.names if n is not None]
    for variable in SEABORN_VARIABLES:
        value = site.kwargs.get(variable)
        if not isinstance(value, Val) or not isinstance(value.obj, str):
            continue
        if value.obj in frame.columns or value.obj in index_names:
            continue
        columns = list(frame.columns)
        closest = closest_name(value.obj, columns)
        key_node = next((k.value for k in site.node.keywords if k.arg == variable), None)
        return Raise(
            "seaborn-missing-column",
            "ValueError",
            "Could not interpret value `%s` for `%s`. An entry with this name does not appear in `data`."
            % (value.obj, variable),
            facts=["columns of data: %s" % preview(columns)],
            fix=("use %r" % closest) if closest else None,
            closest=closest,
            node=site.node,
            replace_node=key_node if closest else None,
            replace_text=repr(closest) if closest else None,
        )
    return None


def on_binop(chk: Any, node: ast.BinOp, left: Val, right: Val) -> Any:
    return None


def _int_arg(site: CallSite, position: int, keyword: str, default: int) -> Optional[int]:
    value = site.arg(position, keyword)
    if value is None:
        return default
    if isinstance(value, Val) and type(value.obj) is int:
        return value.obj
    return None


# pyplot functions and the Axes methods they call on the current Axes.
PYPLOT_AXES = {
    "plot": "plot",
    "scatter": "scatter",
    "bar": "bar",
    "barh": "barh",
    "hist": "hist",
    "step": "step",
    "fill_between": "fill_between",
    "errorbar": "errorbar",
    "axhline": "axhline",
    "axvline": "axvline",
    "text": "text",
    "xlabel": "set_xlabel",
    "ylabel": "set_ylabel",
    "title": "set_title",
}
# Data handed to a scratch Axes is at most this many values.
DRY_PLOT_MAX_VALUES = 100_000


def _unknown_keywords(site: CallSite, method: str) -> Any:
    """Keywords an Axes method hands to its artists (Line2D, Text, Rectangle...): a name no
    artist has raises AttributeError. Asked of a scratch Axes on a figure pyplot never sees,
    and only when some keyword is not one of the method's own parameters."""
    import inspect

    axes_module = loaded("matplotlib.axes")
    figure_module = loaded("matplotlib.figure")
    if axes_module is None or figure_module is None or site.has_star or not site.kwargs:
        return None
    unbound = getattr(axes_module.Axes, method, None)
    if not callable(unbound):
        return None
    try:
        own = inspect.signature(unbound).parameters
    except (TypeError, ValueError):
        return None
    if all(key in own for key in site.kwargs):
        return None
    values = list(site.args) + list(site.kwargs.values())
    if not all(isinstance(v, Val) and not v.fake and not v.sampled and not v.live for v in values):
        return None
    if not all(_plot_data(v.obj) for v in values):
        return None
    from ..quiet import quiet

    try:
        with quiet():
            scratch = figure_module.Figure().add_subplot()
            getattr(scratch, method)(
                *[v.obj for v in site.args], **{k: v.obj for k, v in site.kwargs.items()}
            )
    except AttributeError as exc:
        text = str(exc)
        if "unexpected keyword argument" in text or "has no property" in text:
            return Raise(
                "matplotlib-unknown-property",
                "AttributeError",
                text.split("\n")[0],
                fix="check the keyword's spelling (e.g. color, linewidth, fontsize)",
                node=site.node,
            )
    except Exception:
        return None
    return None


def _plot_data(obj: Any) -> bool:
    """Plain data or numpy/pandas data small enough to plot on a scratch Axes."""
    from ..values import is_dataframe, is_ndarray, is_plain_data, is_series

    if is_ndarray(obj) or is_series(obj):
        return int(obj.size) <= DRY_PLOT_MAX_VALUES and obj.dtype.kind in "biufcMm"
    if is_dataframe(obj):
        return int(obj.size) <= DRY_PLOT_MAX_VALUES and all(
            kind in "biufcMm" for kind in (dtype.kind for dtype in obj.dtypes)
        )
    if type(obj) in (list, tuple):
        return len(obj) <= DRY_PLOT_MAX_VALUES and is_plain_data(obj)
    return is_plain_data(obj)


# Plotting calls that turn their positional arguments into NumPy arrays.
DATA_METHODS = frozenset(
    """plot scatter bar barh hist fill_between fill_betweenx errorbar step stem imshow boxplot
    violinplot pie semilogx semilogy loglog hexbin stackplot matshow pcolormesh""".split()
)
GRAD_SCAN = 1000


def _graph_tensor(site: CallSite) -> Any:
    """A tensor that requires grad (or a list of them) handed to matplotlib: converting it
    to a NumPy array is torch's RuntimeError."""
    torch = loaded("torch")
    if torch is None:
        return None
    for value in site.args:
        if not isinstance(value, Val) or value.fake or value.live:
            continue
        obj = value.obj
        items = list(obj[:GRAD_SCAN]) if type(obj) is list or type(obj) is tuple else [obj]
        # issubclass on the exact type: isinstance would read a user object's __class__
        tensors = [item for item in items if issubclass(type(item), torch.Tensor)]
        if any(bool(item.requires_grad) for item in tensors):
            return Raise(
                "matplotlib-tensor-requires-grad",
                "RuntimeError",
                "Can't call numpy() on Tensor that requires grad. "
                "Use tensor.detach().numpy() instead.",
                facts=["a tensor that requires grad (still part of the autograd graph)"],
                fix="plot t.detach().numpy(), or collect loss.item() instead of the loss tensor",
                node=site.node,
            )
    return None


def _savefig(chk: Any, site: CallSite) -> Any:
    """`plt.savefig(path)` / `fig.savefig(path)` into a folder that does not exist."""
    func = site.func
    if chk.files_unreliable:
        return None
    if isinstance(func, BoundMethod):
        if func.name != "savefig" or not isinstance(func.receiver.obj, FigurePlaceholder):
            return None
    elif not (
        isinstance(func, Val)
        and getattr(func.obj, "__name__", "") == "savefig"
        and (getattr(func.obj, "__module__", "") or "").startswith("matplotlib")
    ):
        return None
    from ..files import missing_folder

    return missing_folder(site.arg(0, "fname"), site, "FileNotFoundError")


def on_call(chk: Any, site: CallSite) -> Any:
    func = site.func
    saved = _savefig(chk, site)
    if saved is not None:
        return saved
    if isinstance(func, BoundMethod) and isinstance(func.receiver.obj, AxesPlaceholder):
        unknown = _unknown_keywords(site, func.name) if func.name in PYPLOT_AXES.values() else None
        if unknown is not None:
            return unknown
        graph = _graph_tensor(site) if func.name in DATA_METHODS else None
        if graph is not None:
            return graph
        if func.name == "imshow":
            return _imshow(site)
        if func.name in XY_CHECKS:
            return XY_CHECKS[func.name](site) or Result(UNKNOWN)
        return Result(UNKNOWN)
    if not isinstance(func, Val):
        return None
    target = func.obj
    module = getattr(target, "__module__", "") or ""
    name = getattr(target, "__name__", "")
    if module.startswith("seaborn") and name in SEABORN_DATA_FUNCTIONS and not site.has_star:
        return _seaborn_data(site, name)
    if module.startswith("matplotlib"):
        if module.startswith("matplotlib.pyplot") and name in PYPLOT_AXES:
            unknown = _unknown_keywords(site, PYPLOT_AXES[name])
            if unknown is not None:
                return unknown
        if module.startswith("matplotlib.pyplot") and name in DATA_METHODS:
            graph = _graph_tensor(site)
            if graph is not None:
                return graph
        if name == "subplots":
            return _subplots(site)
        if name == "imshow":
            return _imshow(site)
        if name == "subplot":
            return _subplot(site)
        if name in XY_CHECKS and module.startswith("matplotlib.pyplot"):
            return XY_CHECKS[name](site)
    return None


def _subplots(site: CallSite) -> Any:
    np = loaded("numpy")
    nrows = _int_arg(site, 0, "nrows", 1)
    ncols = _int_arg(site, 1, "ncols", 1)
    squeeze = site.kwargs.get("squeeze")
    if np is None or nrows is None or ncols is None or nrows < 1 or ncols < 1:
        return Result(UNKNOWN)
    if squeeze is not None and not (isinstance(squeeze, Val) and squeeze.obj is True):
        return Result(UNKNOWN)
    if nrows == 1 and ncols == 1:
        axes: Any = AxesPlaceholder()
    else:
        grid = np.empty((nrows, ncols), dtype=object)
        for index in np.ndindex(grid.shape):
            grid[index] = AxesPlaceholder()
        axes = grid.reshape(-1) if nrows == 1 or ncols == 1 else grid
    return Result(Val((FigurePlaceholder(), axes), origin="model"))


def _subplot(site: CallSite) -> Any:
    if len(site.args) != 3 or site.kwargs.get("projection") is not None:
        return Result(UNKNOWN)
    values: List[int] = [v.obj for v in site.args if isinstance(v, Val) and type(v.obj) is int]
    if len(values) != 3:
        return Result(UNKNOWN)
    nrows, ncols, index = values
    if nrows > 0 and ncols > 0 and not 1 <= index <= nrows * ncols:
        return Raise(
            "matplotlib-subplot-index",
            "ValueError",
            "num must be an integer with 1 <= num <= %d, not %d" % (nrows * ncols, index),
            facts=["a %dx%d grid has %d positions" % (nrows, ncols, nrows * ncols)],
            fix="make the grid larger or loop over fewer items",
            node=site.node,
        )
    return Result(UNKNOWN)


def _image_shape(value: Val) -> Optional[Tuple[int, ...]]:
    if value.sampled or value.fake:
        return None
    obj = value.obj
    shape = shape_of(obj)
    if shape is not None:
        return shape
    if isinstance(obj, (int, float)) and not isinstance(obj, bool):
        return ()
    return None


def _imshow(site: CallSite) -> Any:
    data = site.arg(0, "X")
    if not isinstance(data, Val):
        return Result(UNKNOWN)
    shape = _image_shape(data)
    if shape is None:
        return Result(UNKNOWN)
    valid = len(shape) == 2 or (len(shape) == 3 and shape[-1] in (1, 3, 4))
    if not valid:
        fix = None
        if len(shape) == 3 and shape[0] in (1, 3, 4):
            fix = "move the channel axis last: imshow(x.transpose(1, 2, 0)) (or .permute(1, 2, 0) for a tensor)"
        elif len(shape) == 4 and shape[0] == 1:
            fix = "drop the batch axis first: imshow(x[0])"
        return Raise(
            "matplotlib-image-shape",
            "TypeError",
            "Invalid shape %s for image data" % (shape,),
            facts=[
                "imshow needs (M, N), (M, N, 3) or (M, N, 4); the value has shape %s" % (shape,)
            ],
            fix=fix,
            node=site.node,
        )
    if len(shape) == 3 and shape[-1] == 1:
        return Result(UNKNOWN)
    return Result(UNKNOWN)


def _data_shape(value: Any) -> Optional[Tuple[int, ...]]:
    """The shape matplotlib sees for array-like data (lists, arrays, Series), if certain."""
    if not isinstance(value, Val) or value.fake or (value.sampled and value.rows is None):
        return None
    obj = value.obj
    if type(obj) in (list, tuple, range):
        if any(type(item) in (list, tuple) for item in obj):
            return None
        return (len(obj),)
    if isinstance(obj, (int, float)) and not isinstance(obj, bool):
        return ()
    from ..values import is_dataframe, is_ndarray, is_series, true_shape

    if is_ndarray(obj) or is_series(obj) or is_dataframe(obj):
        return true_shape(value)
    pd = loaded("pandas")
    if pd is not None and isinstance(obj, pd.Index):
        return (len(obj),)
    # pandas' own 1-D extension arrays (what Series.unique() returns for `str` on pandas 3)
    array_base: Any = getattr(
        getattr(getattr(pd, "api", None), "extensions", None), "ExtensionArray", None
    )
    if isinstance(array_base, type) and isinstance(obj, array_base):
        from ..values import is_library_type

        if is_library_type(type(obj)):
            extension_array: Any = obj
            return (len(extension_array),)
    return None


def _plot_xy(site: CallSite) -> Any:
    args = site.args
    if site.has_star or not (
        len(args) == 2
        or (len(args) == 3 and isinstance(args[2], Val) and isinstance(args[2].obj, str))
    ):
        return None
    x, y = _data_shape(args[0]), _data_shape(args[1])
    if x is None or y is None or x == y == ():
        return None
    x, y = x or (1,), y or (1,)  # a scalar is plotted as one point
    if x[0] == y[0]:
        return None
    return Raise(
        "matplotlib-xy-length",
        "ValueError",
        "x and y must have same first dimension, but have shapes %s and %s" % (x, y),
        facts=["x has shape %s, y has shape %s" % (x, y)],
        fix="plot values of the same length (e.g. trim or align both to the same index)",
        node=site.node,
    )


def _size(shape: Tuple[int, ...]) -> int:
    total = 1
    for dim in shape:
        total *= dim
    return total


def _scatter_xy(site: CallSite) -> Any:
    x = _data_shape(site.arg(0, "x"))
    y = _data_shape(site.arg(1, "y"))
    if x is None or y is None:
        return None
    if _size(x) == _size(y):
        return _scatter_colours(site, _size(x))
    return Raise(
        "matplotlib-xy-length",
        "ValueError",
        "x and y must be the same size",
        facts=["x has %d values, y has %d" % (_size(x), _size(y))],
        fix="scatter values of the same length",
        node=site.node,
    )


def _scatter_colours(site: CallSite, points: int) -> Any:
    """`c=` with one value per point, or else ValueError (a 3- or 4-long `c` may be a colour)."""
    colours = site.arg(3, "c")
    shape = _data_shape(colours)
    if shape is None or len(shape) != 1 or shape[0] in (points, 1, 3, 4):
        return None
    if not _numbers_or_names(colours.obj):
        return None
    return Raise(
        "matplotlib-xy-length",
        "ValueError",
        "'c' argument has %d elements, which is inconsistent with 'x' and 'y' with size %d."
        % (shape[0], points),
        facts=["%d points but %d colour values" % (points, shape[0])],
        fix="give one colour value per point",
        node=site.node,
    )


def _numbers_or_names(obj: Any) -> bool:
    """A 1-D sequence of numbers (or of colour names), as `c=` takes it."""
    if type(obj) in (list, tuple):
        kinds = {type(item) for item in obj}
        return kinds <= {int, float} or kinds == {str}
    kind = getattr(getattr(obj, "dtype", None), "kind", None)
    return kind in ("i", "u", "f")


def _hist(site: CallSite) -> Any:
    """All-NaN data with no `range`: numpy cannot find bin edges (ValueError)."""
    data = site.arg(0, "x")
    bins = site.arg(1, "bins")
    if site.has_star or not isinstance(data, Val) or data.fake or data.sampled:
        return None
    if site.kwargs.get("range") is not None or (
        bins is not None and not (isinstance(bins, Val) and type(bins.obj) in (int, type(None)))
    ):
        return None
    np = loaded("numpy")
    shape = _data_shape(data)
    if np is None or shape is None or len(shape) != 1 or shape[0] == 0:
        return None
    if getattr(getattr(data.obj, "dtype", None), "kind", None) != "f":
        return None
    try:
        values = np.asarray(data.obj, dtype=float)
    except Exception:
        return None
    if not bool(np.isnan(values).all()):
        return None
    return Raise(
        "matplotlib-value-error",
        "ValueError",
        "autodetected range of [nan, nan] is not finite",
        facts=["all %d values are NaN" % shape[0]],
        fix="drop or fill the missing values first (e.g. .dropna()), or check the conversion "
        "that produced them",
        node=site.node,
    )


def _bar(site: CallSite, horizontal: bool) -> Any:
    first = _data_shape(site.arg(0, "y" if horizontal else "x"))
    second = _data_shape(site.arg(1, "width" if horizontal else "height"))
    if first is None or second is None or len(first) != 1 or len(second) != 1:
        return None
    if first[0] == second[0] or 1 in (first[0], second[0]):
        return None
    if horizontal:
        pair = "'width' with shape %s and 'y' with shape %s" % (second, first)
    else:
        pair = "'x' with shape %s and 'height' with shape %s" % (first, second)
    return Raise(
        "matplotlib-xy-length",
        "ValueError",
        "shape mismatch: objects cannot be broadcast to a single shape.  Mismatch is between %s."
        % pair,
        facts=["%d positions but %d bar lengths" % (first[0], second[0])],
        fix="give one bar length per position",
        node=site.node,
    )


XY_CHECKS = {
    "plot": _plot_xy,
    "hist": _hist,
    "scatter": _scatter_xy,
    "bar": lambda site: _bar(site, horizontal=False),
    "barh": lambda site: _bar(site, horizontal=True),
}
