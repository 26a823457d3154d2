"""statsmodels rules: autocorrelation lags beyond what the series length allows."""

from __future__ import annotations

import ast
from typing import Any

from ..outcomes import CallSite, Raise
from ..values import LibraryRef, Val, length_of, true_shape


def on_attribute(chk: Any, node: ast.Attribute, base: Val) -> Any:
    return None


def on_subscript(chk: Any, node: ast.Subscript, base: Val, key: Any) -> Any:
    return None


def on_binop(chk: Any, node: ast.BinOp, left: Val, right: Val) -> Any:
    return None


def _nobs(value: Any) -> Any:
    if not isinstance(value, Val) or (value.sampled and value.rows is None):
        return None
    shape = true_shape(value)
    if shape is not None:
        return shape[0] if len(shape) == 1 else None
    return length_of(value)


def on_call(chk: Any, site: CallSite) -> Any:
    func = site.func
    if not isinstance(func, Val):
        return None
    target = func.obj
    if isinstance(target, LibraryRef):
        module, _, name = target.qualname.rpartition(".")
    else:
        module = getattr(target, "__module__", "") or ""
        name = getattr(target, "__name__", "")
    if not module.startswith("statsmodels") or name not in ("plot_acf", "plot_pacf", "acf", "pacf"):
        return None
    nobs = _nobs(site.arg(0, "x"))
    lags = site.kwargs.get("lags" if name.startswith("plot") else "nlags")
    if lags is None and len(site.args) > (2 if name.startswith("plot") else 1):
        lags = (
            site.args[2 if name.startswith("plot") else 1]
            if name.startswith("plot")
            else site.args[1]
        )
    if nobs is None or not isinstance(lags, Val) or type(lags.obj) is not int:
        return None
    limit_facts = ["the series has %d observations; lags=%d" % (nobs, lags.obj)]
    if name.endswith("pacf"):
        if lags.obj > nobs // 2:
            return Raise(
                "statsmodels-too-many-lags",
                "ValueError",
                "Can only compute partial correlations for lags up to 50%% of the sample size. "
                "The requested nlags %d must be < %d." % (lags.obj, nobs // 2),
                facts=limit_facts,
                fix="use lags < %d" % (nobs // 2),
                node=site.node,
            )
        return None
    if lags.obj >= nobs:
        return Raise(
            "statsmodels-too-many-lags",
            "ValueError",
            "could not broadcast input array from shape (%d,) into shape (%d,)"
            % (nobs, lags.obj + 1),
            facts=limit_facts,
            fix="use lags < %d" % nobs,
            node=site.node,
        )
    return None
