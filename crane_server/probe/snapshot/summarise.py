"""Summaries of named objects in the three CRANE categories (S, V, R): a RuntimeSnapshot.

The user namespace is read (never written) from IPython's `user_ns`, or `__main__` without
IPython. Every object is first classified by the classes in its MRO; only allow-listed
library kinds are inspected further (see the summary_* modules); anything else gets its type.

`kind` values: none bool int float complex str bytes list tuple set frozenset dict range |
function method builtin_function class module | dataframe series index categorical groupby |
polars_dataframe polars_lazyframe polars_series |
ndarray numpy_scalar | tensor torch_module optimizer dataloader dataset | estimator |
tf_tensor tf_dataset keras_model | object. Value statistics (`stats`, `column_stats`) use
the keys nan, inf, min, max, unique, true, types, examples, value, sample_rows/sample_size
and sampled: they describe a bounded sample, never the whole object, unless sampled is false.
"""

from __future__ import annotations

import os
import sys
import types
from typing import Any, Dict, List, Optional

from ..quiet import no_warnings
from .base import (
    MISSING,
    SummaryOptions,
    instance_dict,
    is_a,
    module_root,
    type_name,
)
from .dask import dask_kind, summarise_dask
from .numpy import numpy_kind, summarise_numpy
from .pandas import pandas_kind, summarise_pandas
from .polars import polars_kind, summarise_polars
from .python import (
    builtin_base,
    module_version,
    summarise_builtin,
    summarise_callable,
    summarise_module,
    summarise_unknown,
)
from .sklearn import is_estimator, summarise_estimator
from .tensorflow import summarise_tf, tf_kind
from .torch import summarise_torch, torch_kind

# Libraries whose versions the kernel summary reports when the user has imported them.
KNOWN_LIBRARIES = (
    "numpy",
    "pandas",
    "sklearn",
    "scipy",
    "torch",
    "torchvision",
    "tensorflow",
    "keras",
    "matplotlib",
    "seaborn",
    "statsmodels",
    "xgboost",
    "lightgbm",
    "catboost",
    "transformers",
    "polars",
    "pyarrow",
    "jax",
    "PIL",
    "cv2",
    "nltk",
    "plotly",
)


TOTAL_SAMPLE_ROWS = 150_000
MIN_SAMPLE_ROWS = 1_000


def user_namespace() -> Dict[str, Any]:
    """IPython's user namespace, or __main__'s globals outside IPython."""
    ipython_module = sys.modules.get("IPython")
    shell = ipython_module.get_ipython() if ipython_module is not None else None
    namespace = getattr(shell, "user_ns", None)
    if isinstance(namespace, dict):
        return namespace
    main = sys.modules.get("__main__")
    return (instance_dict(main) if main is not None else None) or {}


def summarise_request(
    payload: Dict[str, Any], namespace: Optional[Dict[str, Any]] = None
) -> Dict[str, Any]:
    """payload: {"names": [...], "categories": [...], optional caps} -> RuntimeSnapshot JSON."""
    names = [str(name) for name in payload.get("names") or []]
    # Bounded per request too: many names share a total sample of TOTAL_SAMPLE_ROWS rows.
    per_name = max(MIN_SAMPLE_ROWS, TOTAL_SAMPLE_ROWS // max(1, len(names)))
    options = SummaryOptions(
        categories=payload.get("categories") or ("S", "V", "R"),
        max_columns=payload.get("max_columns") or 50,
        max_sample_rows=min(int(payload.get("max_sample_rows") or 10000), per_name),
        detail_columns=payload.get("detail_columns") or {},
    )
    return summarise(names, options, user_namespace() if namespace is None else namespace)


def summarise(
    names: List[str], options: SummaryOptions, namespace: Dict[str, Any]
) -> Dict[str, Any]:
    """Summaries of `names` in `namespace` (the namespace is only read)."""
    variables: Dict[str, Any] = {}
    missing: List[str] = []
    builtin_names = instance_dict(sys.modules["builtins"]) or {}
    with no_warnings():
        for name in names:
            value = resolve(name, namespace, builtin_names)
            if value is MISSING:
                missing.append(name)
                continue
            variables[name] = summarise_object(name, value, options)
    return {
        "variables": variables,
        "missing": missing,
        "kernel": kernel_summary(namespace),
        "categories": sorted(options.categories),
    }


def resolve(name: str, namespace: Dict[str, Any], builtin_names: Dict[str, Any]) -> Any:
    """The value of `name`; dotted names only through module objects."""
    head, _dot, rest = name.partition(".")
    value = dict.get(namespace, head, MISSING)
    if value is MISSING:
        value = dict.get(builtin_names, head, MISSING)
    for part in rest.split(".") if rest else ():
        if value is MISSING or not is_a(value, types.ModuleType):
            return MISSING
        value = dict.get(instance_dict(value) or {}, part, MISSING)
    return value


def summarise_object(name: str, value: Any, options: SummaryOptions) -> Dict[str, Any]:
    """One VariableSummary as a dict; a failing summariser leaves the type and an error."""
    out: Dict[str, Any] = {"name": name, "type": type_name(type(value))}
    if options.out_of_time():
        out["kind"] = "object"
        out["truncated"] = True
        out["error"] = "skipped: the probe's time budget was used up"
        return out
    try:
        _dispatch(value, out, options)
    except Exception as exc:
        out["error"] = type(exc).__name__ + ": " + str(exc)[:200]
    return out


def _dispatch(value: Any, out: Dict[str, Any], options: SummaryOptions) -> None:
    if is_a(value, types.ModuleType):
        summarise_module(value, out, options)
        return
    base = builtin_base(type(value))
    if base is not None:
        summarise_builtin(value, base, out, options)
        return
    if summarise_callable(value, out, options):
        return
    root = module_root(type(value))
    kind = pandas_kind(value)
    if kind is not None:
        np = sys.modules.get("numpy")
        with np.errstate(all="ignore"):  # type: ignore[union-attr]
            summarise_pandas(value, kind, out, options)
        return
    kind = polars_kind(value)
    if kind is not None:
        summarise_polars(value, kind, out, options)
        return
    kind = dask_kind(value)
    if kind is not None:
        summarise_dask(value, kind, out, options)
        return
    kind = numpy_kind(value)
    if kind is not None:
        summarise_numpy(value, kind, out, options)
        return
    kind = torch_kind(value)
    if kind is not None:
        summarise_torch(value, kind, out, options)
        return
    if is_estimator(value):
        summarise_estimator(value, out, options)
        return
    kind = tf_kind(value)
    if kind is not None:
        summarise_tf(value, kind, out, options)
        return
    summarise_unknown(value, out, options)
    if root == "__main__":
        out.setdefault("details", {})["user_defined"] = True


def kernel_summary(namespace: Dict[str, Any]) -> Dict[str, Any]:
    """Python version, pid, and versions of the libraries the user imported."""
    roots = [name for name in KNOWN_LIBRARIES if name in sys.modules]
    for value in list(dict.values(namespace))[:5000]:
        if type(value) is types.ModuleType:
            module_name = dict.get(instance_dict(value) or {}, "__name__")
            if type(module_name) is str:
                root = module_name.partition(".")[0]
                if root not in roots and not root.startswith("_"):
                    roots.append(root)
    libraries: Dict[str, str] = {}
    for root in roots[:40]:
        version = module_version(root)
        if version:
            libraries[root] = version
    return {
        "python": sys.version.split()[0],
        "implementation": sys.implementation.name,
        "pid": os.getpid(),
        "libraries": libraries,
    }
