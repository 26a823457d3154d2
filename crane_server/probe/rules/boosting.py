"""LightGBM / XGBoost rules: fitted-only attributes and boosters of estimators never fitted.

`predict` on an unfitted estimator and feature-count mismatches are already judged by the
scikit-learn rules (both libraries' estimators are scikit-learn estimators and raise the
same exception types); this module adds what those rules leave to the generic attribute
rule, which would name the wrong exception (`NotFittedError`, not `AttributeError`).
"""

from __future__ import annotations

import ast
from typing import Any, Optional

from ..outcomes import CallSite, Raise
from ..values import BoundMethod, Val, is_dataframe, is_ndarray, loaded, shape_of

ROOTS = ("lightgbm", "xgboost")
# Methods of an XGBoost estimator that need the booster that fit creates.
XGB_BOOSTER_METHODS = frozenset({"get_booster", "save_model", "get_num_boosting_rounds"})


def _boosting_estimator(obj: Any) -> Optional[str]:
    """'lightgbm' or 'xgboost' for an estimator of their scikit-learn API, else None."""
    module = getattr(type(obj), "__module__", "") or ""
    root = module.split(".", 1)[0]
    if root not in ROOTS or loaded(root) is None:
        return None
    checker = getattr(type(obj), "__sklearn_is_fitted__", None)
    return root if callable(checker) else None


def _unfitted(obj: Any) -> bool:
    try:
        return obj.__sklearn_is_fitted__() is False
    except Exception:
        return False


def on_attribute(chk: Any, node: ast.Attribute, base: Val) -> Any:
    obj = base.obj
    name = node.attr
    if not name.endswith("_") or name.startswith("_") or _boosting_estimator(obj) is None:
        return None
    if not _unfitted(obj):
        return None
    try:
        from ..quiet import quiet

        with quiet():
            getattr(obj, name)
    except Exception as exc:
        if type(exc).__name__ in ("NotFittedError", "LGBMNotFittedError"):
            return _not_fitted(obj, exc, node)
    return None


def on_subscript(chk: Any, node: ast.Subscript, base: Val, key: Any) -> Any:
    return None


def on_binop(chk: Any, node: ast.BinOp, left: Val, right: Val) -> Any:
    return None


def on_call(chk: Any, site: CallSite) -> Any:
    func = site.func
    if isinstance(func, BoundMethod) and func.name == "predict":
        return _lightgbm_booster_width(site, func)
    if not isinstance(func, BoundMethod) or func.name not in XGB_BOOSTER_METHODS:
        return None
    obj = func.receiver.obj
    if _boosting_estimator(obj) != "xgboost" or not _unfitted(obj):
        return None
    try:
        from ..quiet import quiet

        with quiet():
            obj.get_booster()  # raises before touching anything when there is no booster
    except Exception as exc:
        if type(exc).__name__ == "NotFittedError":
            return _not_fitted(obj, exc, site.node)
    return None


def _not_fitted(obj: Any, exc: BaseException, node: ast.AST) -> Raise:
    kind = type(obj).__name__
    return Raise(
        "boosting-not-fitted",
        type(exc).__name__,
        str(exc).split("\n")[0] or "the estimator is not fitted",
        facts=[f"{kind} has not been fitted (it has no booster yet)"],
        fix="call .fit(X, y) on this estimator first",
        node=node,
    )


def _lightgbm_booster_width(site: CallSite, func: BoundMethod) -> Any:
    """`booster.predict(X)` of a native LightGBM Booster with another number of columns than it
    was trained on: LightGBM refuses before predicting (unless its shape check is disabled)."""
    booster = func.receiver.obj
    basic = loaded("lightgbm.basic")
    if basic is None or type(booster) is not getattr(basic, "Booster", None):
        return None
    if site.has_star or set(site.kwargs) - {"num_iteration", "raw_score", "start_iteration"}:
        return None
    data = site.arg(0, "data")
    if not isinstance(data, Val) or data.fake or len(site.args) != 1:
        return None
    if not (is_ndarray(data.obj) or is_dataframe(data.obj)):
        return None
    shape = shape_of(data.obj)
    if is_dataframe(data.obj) and not data.sampled and shape is not None and shape[0] == 0:
        # pandas data is converted first, and an empty frame is refused before anything else
        return Raise(
            "lightgbm-empty-data",
            "ValueError",
            "Input data must be 2 dimensional and non empty.",
            facts=["the frame handed to predict has no rows (columns: %d)" % shape[1]],
            fix="check the selection that built it; it matched no rows",
            node=site.node,
        )
    params = getattr(booster, "params", None)
    if shape is None or len(shape) != 2 or type(params) is not dict:
        return None
    if params.get("predict_disable_shape_check") not in (None, False):
        return None
    try:
        trained = int(booster.num_feature())  # LightGBM's C API: a read, nothing runs
    except Exception:
        return None
    if shape[1] == trained:
        return None
    return Raise(
        "lightgbm-feature-count",
        "LightGBMError",
        "The number of features in data (%d) is not the same as it was in training data (%d)."
        % (shape[1], trained),
        facts=[
            "the booster was trained on %d features; the data has %d columns" % (trained, shape[1])
        ],
        fix="pass the same columns the booster was trained on (a transposed matrix has rows and "
        "columns swapped)",
        node=site.node,
    )
