"""Which library operations the checker may evaluate for real on tracked values.

An operation qualifies when it is known to be pure (no mutation of its inputs, no I/O, no
global random state, no output) and its cost is bounded by the (sampled) sizes of its inputs.
"""

from __future__ import annotations

from typing import Any, Dict, Optional

from .values import is_dataframe, is_ndarray, is_series, is_tensor, loaded, type_root

# Methods of pandas objects that mutate, perform I/O, draw, print or call user code.
PANDAS_IMPURE_METHODS = frozenset(
    """insert pop update set_axis __setitem__ __delitem__ to_csv to_excel to_parquet to_pickle
    to_json to_sql to_hdf to_feather to_html to_latex to_markdown to_clipboard to_stata to_gbq
    to_orc to_xml to_string plot hist boxplot info sample style memory_usage __array__
    itertuples iterrows items iteritems to_records to_dict eval query from_dict""".split()
)
# What `resample`, `rolling`, `expanding` and `ewm` return: lazy views whose methods compute
# a new object (a user function handed to `apply`/`agg` is refused by the gate).
PANDAS_WINDOWS = frozenset(
    """Resampler DatetimeIndexResampler PeriodIndexResampler TimedeltaIndexResampler
    Rolling Window Expanding ExponentialMovingWindow RollingGroupby ExpandingGroupby
    ExponentialMovingWindowGroupby DatetimeIndexResamplerGroupby""".split()
)

# Methods of numpy arrays that mutate or perform I/O.
NUMPY_IMPURE_METHODS = frozenset(
    "fill sort resize put itemset setflags partition tofile dump dumps byteswap".split()
)

# Top-level numpy functions that mutate, perform I/O or use global random state.
NUMPY_IMPURE_FUNCTIONS = frozenset(
    """save savez savez_compressed savetxt load loadtxt genfromtxt fromfile tofile copyto put
    place putmask fill_diagonal random seterr setbufsize set_printoptions info""".split()
)

PANDAS_PURE_FUNCTIONS = frozenset(
    """concat merge merge_asof merge_ordered get_dummies to_numeric to_datetime to_timedelta
    cut qcut DataFrame Series Index Categorical crosstab pivot_table pivot melt isna isnull
    notna notnull unique factorize date_range""".split()
)

TORCH_IMPURE_METHODS = frozenset(
    """backward register_hook retain_grad share_memory_ pin_memory cuda to cpu copy_ fill_
    zero_ normal_ uniform_ random_ bernoulli_ exponential_ set_ resize_ requires_grad_
    detach_ tolist item""".split()
)

TORCH_RANDOM_FUNCTIONAL = frozenset(
    """dropout dropout1d dropout2d dropout3d alpha_dropout feature_alpha_dropout rrelu
    gumbel_softmax""".split()
)

TORCH_PURE_FUNCTIONS = frozenset(
    """cat concat stack hstack vstack matmul mm bmm mv dot tensordot einsum reshape flatten
    squeeze unsqueeze transpose permute cross_entropy argmax argmin max min sum mean where
    zeros_like ones_like full_like empty_like tensor as_tensor from_numpy log_softmax softmax
    sigmoid relu tanh exp log abs sqrt clamp topk sort gather index_select masked_fill
    squeeze unsqueeze chunk split flatten mean std var numel zeros ones full arange linspace
    eye""".split()
)


PANDAS_ACCESSORS = frozenset(
    "StringMethods DatetimeProperties TimedeltaProperties PeriodProperties CategoricalAccessor".split()
)


def pure_method(receiver: Any, name: str, kwargs: Dict[str, Any]) -> bool:
    """May `receiver.name(...)` be evaluated on tracked values?"""
    if name.startswith("_") and name not in ("__getitem__",):
        return False
    if kwargs.get("inplace") is True:
        return False
    if "out" in kwargs:
        return False
    if is_dataframe(receiver) or is_series(receiver):
        return name not in PANDAS_IMPURE_METHODS and not name.startswith("to_")
    pd = loaded("pandas")
    groupby = loaded("pandas.core.groupby")
    if groupby is not None and isinstance(receiver, groupby.GroupBy):
        return name not in PANDAS_IMPURE_METHODS
    if pd is not None and isinstance(receiver, (pd.Index, pd.Categorical)):
        return not name.startswith("to_") and name not in PANDAS_IMPURE_METHODS
    if type(receiver).__name__ in PANDAS_WINDOWS and type_root(type(receiver)) == "pandas":
        return name not in PANDAS_IMPURE_METHODS and not name.startswith("to_")
    if type(receiver).__name__ in PANDAS_ACCESSORS and type_root(type(receiver)) == "pandas":
        # `.str`, `.dt`, `.cat` of a shadow: each method returns a new Series or Index
        return name not in PANDAS_IMPURE_METHODS and not name.startswith("to_")
    if is_ndarray(receiver):
        return name not in NUMPY_IMPURE_METHODS and not name.startswith("to")
    if is_tensor(receiver):
        return not name.endswith("_") and name not in TORCH_IMPURE_METHODS
    if type(receiver) in (str, bytes, tuple, range, frozenset):
        return True
    if type(receiver) is list:
        return name in ("index", "count", "copy")
    if type(receiver) is dict:
        return name in ("get", "keys", "values", "items", "copy")
    if type(receiver) is set:
        return name in ("union", "intersection", "difference", "issubset", "issuperset", "copy")
    return False


def pure_function(func: Any) -> bool:
    """May the library function `func` be evaluated on tracked values?"""
    module = getattr(func, "__module__", None) or ""
    name = getattr(func, "__name__", "") or ""
    root = module.split(".", 1)[0]
    np = loaded("numpy")
    if root == "numpy" or (np is not None and isinstance(func, np.ufunc)):
        if module.startswith("numpy.random") or name in NUMPY_IMPURE_FUNCTIONS:
            return False
        return not name.startswith(("save", "load"))
    if root == "pandas":
        pd = loaded("pandas")
        return pd is not None and name in PANDAS_PURE_FUNCTIONS and getattr(pd, name, None) is func
    if module == "torch.nn.functional":
        return name not in TORCH_RANDOM_FUNCTIONAL
    if root == "torch":
        torch = loaded("torch")
        return (
            torch is not None
            and name in TORCH_PURE_FUNCTIONS
            and getattr(torch, name, None) is func
        )
    return root == "math"


BUILTIN_PURE = frozenset(
    """len abs min max sum sorted reversed list tuple dict set frozenset range enumerate zip int
    float str bool round isinstance type repr hash any all divmod pow ord chr hex bin oct
    format slice""".split()
)


# Builtins that iterate their arguments.
ITERATING_BUILTINS = frozenset(
    "min max sum sorted reversed list tuple dict set frozenset enumerate zip any all".split()
)


def pure_builtin(func: Any) -> Optional[str]:
    """The name of a pure builtin function, else None."""
    import builtins

    name = getattr(func, "__name__", None)
    if isinstance(name, str) and name in BUILTIN_PURE and getattr(builtins, name, None) is func:
        return name
    return None


# Calls that read files, print, draw or describe, and never create, move or delete files.
FILE_READING_CALLS = frozenset(
    """load loadtxt genfromtxt fromfile imread print display len exists isfile isdir listdir
    glob head tail describe info show figure subplots subplot plot scatter bar hist imshow
    title xlabel ylabel legend""".split()
)


def may_write_files(site: Any) -> bool:
    """Could this call create, move or delete a file, or change the working directory?

    After such a call a file the cell reads may exist, so a missing file is no longer certain.
    """
    from .values import BoundMethod, Val

    func = site.func
    name = (site.name or "").rsplit(".", 1)[-1]
    if name.startswith("read_") or name in FILE_READING_CALLS:
        return False
    if isinstance(func, Val):
        target = func.obj
        if name == "open" or getattr(target, "__name__", "") == "open":
            mode = site.arg(1, "mode")
            text = mode.obj if isinstance(mode, Val) and isinstance(mode.obj, str) else "r"
            return any(flag in text for flag in "wax+")
        if pure_builtin(target) is not None or pure_function(target):
            return False
        root = (getattr(target, "__module__", None) or "").split(".", 1)[0]
        return not (root in ("matplotlib", "seaborn") and "save" not in name)
    if isinstance(func, BoundMethod) and func.func is not None:
        kwargs = {k: v.obj for k, v in site.kwargs.items() if isinstance(v, Val)}
        return not pure_method(func.receiver.obj, func.name, kwargs)
    return True
