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
from ..values import BoundMethod, Val, loaded

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
