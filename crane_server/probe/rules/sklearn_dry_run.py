"""scikit-learn dry runs: fit a clone, or predict/transform with a copy, on the cell's data.

XGBoost's and LightGBM's scikit-learn estimators are run the same way, on one thread.

Checks that scikit-learn makes only inside `fit` (a penalty the solver does not support, more
components than features, 1-D X) or inside `predict`/`transform` (categories or labels never
seen, fewer samples than neighbours) are asked of scikit-learn itself, on small data only:
a clone of the estimator (parameters copied, never the user's object), `n_jobs` unset so no
worker process starts, long fits shortened (a few trees, a few iterations: the input checks
run first and are the same), warnings and output silenced. Only scikit-learn's own
estimators whose parameters are plain data or library objects are run, so no user code runs.
"""

from __future__ import annotations

from typing import Any, Dict, Optional, Tuple

from ..outcomes import CallSite, Raise
from ..values import Val, holds_user_objects, is_library_object, is_plain_data, loaded, shape_of

# A fit runs on at most this much data (milliseconds for scikit-learn's estimators).
FIT_MAX_ROWS = 1000
FIT_MAX_CELLS = 50_000
USE_MAX_ROWS = 2000
USE_MAX_CELLS = 100_000
# Parameters that only make a fit longer: capped for the dry run.
_SHORTENED = {"n_estimators": 10, "max_iter": 50, "n_init": 1}
# Estimators whose fit is slow even on small data, or that wrap other estimators.
_SLOW_PACKAGES = ("sklearn.neural_network", "sklearn.gaussian_process", "sklearn.manifold")
DRY_USE_METHODS = frozenset(
    {"predict", "predict_proba", "predict_log_proba", "decision_function", "transform"}
)


# Boosting libraries' scikit-learn estimators are run too, on one thread and silenced.
_BOOSTING_MODULES = ("xgboost.sklearn", "lightgbm.sklearn")  # as in rules.sklearn


# Composites run like one estimator when every part is scikit-learn's own (no searches:
# their cross-validation loops multiply the cost).
_COMPOSITES = {
    "sklearn.pipeline": ("Pipeline", "FeatureUnion"),
    "sklearn.compose._column_transformer": ("ColumnTransformer",),
}


def _own_estimator(estimator: Any) -> bool:
    module = type(estimator).__module__ or ""
    if module in _BOOSTING_MODULES:
        return True
    return module.startswith("sklearn.") and not module.startswith(_SLOW_PACKAGES)


def composite(estimator: Any) -> bool:
    """A Pipeline, FeatureUnion or ColumnTransformer whose parts are all scikit-learn's own."""
    module = type(estimator).__module__ or ""
    if type(estimator).__name__ not in _COMPOSITES.get(module, ()):
        return False
    try:
        parts = [v for v in estimator.get_params(deep=True).values() if hasattr(v, "get_params")]
    except Exception:
        return False
    return all(
        v in ("drop", "passthrough")
        or (
            _own_estimator(v)
            and (type(v).__module__ or "") not in _BOOSTING_MODULES
            and (type(v).__name__ not in _SEARCHES)
        )
        for v in parts
    )


_SEARCHES = frozenset(
    {"GridSearchCV", "RandomizedSearchCV", "HalvingGridSearchCV", "HalvingRandomSearchCV"}
)


def _safe_param(value: Any, depth: int = 0) -> bool:
    """Plain data or library objects (nested estimators included), never user callables."""
    if depth > 4:
        return False
    if is_plain_data(value) or value is None:
        return True
    if type(value) in (list, tuple):
        return all(_safe_param(v, depth + 1) for v in value)
    if type(value) is dict:
        return all(is_plain_data(k) and _safe_param(v, depth + 1) for k, v in value.items())
    return is_library_object(value) or (
        isinstance(value, type) and (value.__module__ or "").startswith(("numpy", "builtins"))
    )


def _exact_compatible(params: Dict[str, Any]) -> bool:
    """XGBoost parameters under which the exact tree method validates the same way."""
    return (
        params.get("tree_method") in (None, "auto", "exact", "hist", "approx")
        and not params.get("enable_categorical")
        and params.get("grow_policy") in (None, "depthwise")
        and params.get("device") in (None, "cpu")
        and params.get("max_bin") is None
        and params.get("multi_strategy") is None
        and params.get("max_cat_to_onehot") is None
    )


def _data(value: Any, max_rows: int, max_cells: int) -> Optional[Any]:
    """The object of a complete, small, data-only value, else None."""
    if not isinstance(value, Val) or value.fake or value.sampled or value.live:
        return None
    obj = value.obj
    shape = shape_of(obj)
    if shape is None:
        if type(obj) is list and len(obj) <= max_rows and is_plain_data(obj):
            return obj
        return None
    cells = 1
    for dim in shape:
        cells *= dim
    if not shape or shape[0] > max_rows or cells > max_cells or holds_user_objects(obj):
        return None
    return obj


def fit(estimator: Any, method: str, x: Any, y: Any) -> Tuple[Optional[BaseException], Any]:
    """(the exception fit raises, or None; the fitted clone, or None when not run)."""
    base = loaded("sklearn.base")
    if base is None or method == "partial_fit" or not _own_estimator(estimator):
        return None, None
    x_obj = _data(x, FIT_MAX_ROWS, FIT_MAX_CELLS)
    y_obj = _data(y, FIT_MAX_ROWS, FIT_MAX_CELLS) if y is not None else None
    if x_obj is None or (y is not None and y_obj is None):
        return None, None
    try:
        params = estimator.get_params(deep=True)
    except Exception:
        return None, None
    if not all(_safe_param(v) for v in params.values()):
        return None, None
    from ..quiet import quiet

    try:
        with quiet():
            clone = base.clone(estimator)
            own = clone.get_params(deep=False)
            changes: Dict[str, Any] = {
                k: min(v, _SHORTENED[k])
                for k, v in own.items()
                if k in _SHORTENED and type(v) is int
            }
            if composite(clone):
                changes.update(_shortened_parts(clone))
            boosting = (type(estimator).__module__ or "") in _BOOSTING_MODULES
            if "n_jobs" in own:
                changes["n_jobs"] = 1 if boosting else None  # no worker processes or threads
            if "verbose" in own and (boosting or own["verbose"]):
                # of the parameter's own type (a Pipeline's `verbose` must be a bool)
                changes["verbose"] = -1 if boosting else type(own["verbose"])(0)
            if "verbosity" in own:
                changes["verbosity"] = 0
            if (type(estimator).__module__ or "") == "xgboost.sklearn":
                if not _exact_compatible(own):
                    return None, None
                # XGBoost's hist method starts a native thread that stays: exact does not
                changes["tree_method"] = "exact"
            clone.set_params(**changes)
    except Exception:
        return None, None
    try:
        with quiet():
            if y is None:
                clone.fit(x_obj)
            else:
                clone.fit(x_obj, y_obj)
    except (MemoryError, RecursionError):
        return None, None
    except Exception as exc:
        return exc, None
    return None, clone


def _shortened_parts(clone: Any) -> Dict[str, Any]:
    """The nested parameters of a composite's parts, shortened and on one process."""
    changes: Dict[str, Any] = {}
    for key, value in clone.get_params(deep=True).items():
        leaf = key.rsplit("__", 1)[-1]
        if "__" not in key and leaf != "n_jobs":
            continue
        if leaf in _SHORTENED and type(value) is int:
            changes[key] = min(value, _SHORTENED[leaf])
        elif leaf == "n_jobs" and value is not None:
            changes[key] = None
    return changes


def use(trained: Any, method: str, x: Any) -> Tuple[Optional[BaseException], Any]:
    """(the exception the method raises, or None; its result, or None when not run)."""
    if method not in DRY_USE_METHODS or not _own_estimator(trained):
        return None, None
    x_obj = _data(x, USE_MAX_ROWS, USE_MAX_CELLS)
    if x_obj is None:
        return None, None
    from ..quiet import quiet

    try:
        with quiet():
            return None, getattr(trained, method)(x_obj)
    except (MemoryError, RecursionError):
        return None, None
    except Exception as exc:
        return exc, None


def raised(exc: BaseException, estimator: Any, method: str, site: CallSite) -> Raise:
    name = type(exc).__name__
    words = "".join("-" + c.lower() if c.isupper() else c for c in name).lstrip("-")
    library = (type(estimator).__module__ or "sklearn").split(".", 1)[0]
    return Raise(
        "%s-%s" % (library, words),
        name,
        str(exc).split("\n")[0],
        facts=[
            "%s.%s on the cell's data raises this (scikit-learn's own check)"
            % (type(estimator).__name__, method)
        ],
        node=site.node,
    )
