"""Summaries of scikit-learn estimators, pipelines, column transformers and encoders.

The fitted state follows sklearn's own rule (`check_is_fitted`): an estimator is fitted when
its instance dict holds a name ending in "_" that does not start with "__", unless its class
defines `__sklearn_is_fitted__`; for sklearn's own meta-estimators that delegate (Pipeline,
FeatureUnion, FrozenEstimator, FunctionTransformer) the delegation is re-done here on the
instance dicts; a user-defined `__sklearn_is_fitted__` leaves the state unknown (None).
Parameters are read from the instance dict by the names of `__init__`, never `get_params()`.
"""

from __future__ import annotations

import sys
import types
from typing import Any, Dict, List, Optional

from .base import (
    MISSING,
    SummaryOptions,
    class_module,
    class_qualname,
    instance_dict,
    is_a,
    library_class,
    one_of,
    safe_label,
    safe_repr,
    static_lookup,
    type_name,
)
from .numpy import numpy_kind

_DELEGATING = ("Pipeline", "FeatureUnion", "FrozenEstimator", "FunctionTransformer")


def is_estimator(obj: Any) -> bool:
    if sys.modules.get("sklearn") is None:
        return False
    return is_a(obj, library_class("sklearn.base", "BaseEstimator"))


def fitted_state(estimator: Any, depth: int = 0) -> Optional[bool]:
    """sklearn's fitted rule, evaluated without calling the estimator; None when unknown."""
    if depth > 20:
        return None
    if type(estimator) is str or estimator is None:
        return True  # "passthrough" / "drop" steps
    namespace = instance_dict(estimator)
    if namespace is None:
        return None
    _hook, owner = static_lookup(type(estimator), "__sklearn_is_fitted__")
    if owner is not None:
        if not class_module(owner).startswith("sklearn."):
            return None
        return _delegated_state(class_qualname(owner), namespace, depth)
    return any(
        type(key) is str and key.endswith("_") and not key.startswith("__")
        for key in dict.keys(namespace)
    )


def _delegated_state(owner: str, namespace: Dict[str, Any], depth: int) -> Optional[bool]:
    if owner == "FunctionTransformer":
        return True
    if owner == "FrozenEstimator":
        return fitted_state(dict.get(namespace, "estimator"), depth + 1)
    if owner == "Pipeline":
        steps = _pairs(dict.get(namespace, "steps"))
        for _name, step in reversed(steps):
            if not (type(step) is str and step == "passthrough") and step is not None:
                return fitted_state(step, depth + 1)
        return True
    if owner == "FeatureUnion":
        states = [
            fitted_state(step, depth + 1)
            for _name, step in _pairs(dict.get(namespace, "transformer_list"))
            if not (type(step) is str and step in ("drop", "passthrough"))
        ]
        if any(state is None for state in states):
            return None
        return all(states)
    return None


def _pairs(value: Any) -> List[Any]:
    """(name, estimator, ...) entries of a steps/transformers list, read as exact lists."""
    if type(value) is not list:
        return []
    return [(item[0], item[1]) for item in value[:100] if type(item) is tuple and len(item) >= 2]


def init_parameter_names(cls: type) -> List[str]:
    init, _owner = static_lookup(cls, "__init__")
    if not is_a(init, types.FunctionType):
        return []
    code = init.__code__
    count = code.co_argcount + code.co_kwonlyargcount
    return [name for name in code.co_varnames[1:count]]


def summarise_estimator(estimator: Any, out: Dict[str, Any], opts: SummaryOptions) -> None:
    out["kind"] = "estimator"
    namespace = instance_dict(estimator) or {}
    details = out.setdefault("details", {})
    if opts.representation:
        out["fitted"] = fitted_state(estimator)
        out["module"] = class_module(type(estimator))
        details["user_defined"] = not class_module(type(estimator)).startswith("sklearn")
        fitted_names = [
            key
            for key in dict.keys(namespace)
            if type(key) is str and key.endswith("_") and not key.startswith("__")
        ]
        details["fitted_attributes"] = fitted_names[: opts.max_items]
        details["params"] = _params(estimator, namespace, opts)
    if opts.structure:
        n_features = dict.get(namespace, "n_features_in_")
        if n_features is not None:
            details["n_features_in"] = _int(n_features)
        names = dict.get(namespace, "feature_names_in_")
        if names is not None and numpy_kind(names) == "ndarray":
            details["feature_names_in"] = [
                safe_label(name, 60) for name in names[: opts.max_column_names].tolist()
            ]
            details["n_feature_names_in"] = int(names.shape[0])
        details["fitted_shapes"] = _fitted_shapes(namespace, opts)
        _composite(estimator, namespace, details, opts)
    if opts.values:
        classes = dict.get(namespace, "classes_")
        if classes is not None and numpy_kind(classes) == "ndarray" and classes.ndim == 1:
            details["classes"] = [safe_repr(value, 40) for value in classes[:20].tolist()]
            details["n_classes"] = int(classes.shape[0])
        categories = dict.get(namespace, "categories_")
        if type(categories) is list:
            details["categories"] = [
                {"n": int(item.shape[0]), "first": [safe_repr(v, 30) for v in item[:5].tolist()]}
                for item in categories[: opts.max_items]
                if numpy_kind(item) == "ndarray" and item.ndim == 1
            ]


def _int(value: Any) -> Any:
    if type(value) is int:
        return value
    return int(value) if numpy_kind(value) == "numpy_scalar" else None


def _params(estimator: Any, namespace: Dict[str, Any], opts: SummaryOptions) -> Dict[str, Any]:
    params: Dict[str, Any] = {}
    for name in init_parameter_names(type(estimator))[: opts.max_items]:
        value = dict.get(namespace, name, MISSING)
        if value is MISSING:
            continue
        if one_of(value, bool, int, str, type(None)):
            params[name] = value
        elif type(value) is float:
            params[name] = value if value == value and abs(value) != float("inf") else str(value)
        elif is_estimator(value):
            params[name] = class_qualname(type(value))
        else:
            params[name] = safe_repr(value, 40)
    return params


def _fitted_shapes(namespace: Dict[str, Any], opts: SummaryOptions) -> Dict[str, Any]:
    shapes: Dict[str, Any] = {}
    for key, value in dict.items(namespace):
        if len(shapes) >= 10:
            break
        if type(key) is str and key.endswith("_") and numpy_kind(value) == "ndarray":
            shapes[key] = [int(dim) for dim in value.shape]
    return shapes


def _composite(
    estimator: Any, namespace: Dict[str, Any], details: Dict[str, Any], opts: SummaryOptions
) -> None:
    """Steps of pipelines and column transformers: names, types, fitted states, columns."""
    qualname = class_qualname(type(estimator))
    if "steps" in namespace:
        details["steps"] = [
            {"name": safe_label(name, 40), "type": _step_type(step), "fitted": fitted_state(step)}
            for name, step in _pairs(dict.get(namespace, "steps"))[: opts.max_items]
        ]
    key = "transformers_" if "transformers_" in namespace else "transformers"
    if "transformers" in namespace and qualname == "ColumnTransformer":
        entries = []
        raw = dict.get(namespace, key)
        for item in raw[: opts.max_items] if type(raw) is list else []:
            if type(item) is not tuple or len(item) < 3:
                continue
            name, step, columns = item[0], item[1], item[2]
            entries.append(
                {
                    "name": safe_label(name, 40),
                    "type": _step_type(step),
                    "fitted": fitted_state(step),
                    "columns": _columns(columns, opts),
                }
            )
        details["transformers"] = entries
        remainder = dict.get(namespace, "remainder")
        details["remainder"] = _step_type(remainder)


def _step_type(step: Any) -> str:
    if type(step) is str:
        return step
    return type_name(type(step))


def _columns(columns: Any, opts: SummaryOptions) -> Any:
    if one_of(columns, list, tuple):
        return [safe_label(column, 60) for column in columns[: opts.max_column_names]]
    if numpy_kind(columns) == "ndarray" and columns.ndim == 1:
        return [safe_label(column, 60) for column in columns[: opts.max_column_names].tolist()]
    if one_of(columns, str, int):
        return [safe_label(columns, 60)]
    return "<" + type_name(type(columns)) + ">"
