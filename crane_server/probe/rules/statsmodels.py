"""statsmodels rules: autocorrelation lags beyond what the series length allows; model
constructors, linear fits and a few pure statistics evaluated for real on exact copies
(their data checks: lengths of endog and exog, missing values, sizes of exogenous data)."""

from __future__ import annotations

import ast
from typing import Any

from ..outcomes import CallSite, Raise, Result
from ..values import (
    BoundMethod,
    LibraryRef,
    Val,
    is_dataframe,
    is_library_type,
    is_ndarray,
    is_plain_data,
    is_series,
    length_of,
    true_shape,
)

# Model classes whose construction only checks and arranges the data (no draw, no solve).
MODELS = frozenset(
    """OLS WLS GLS GLSAR Logit Probit MNLogit Poisson NegativeBinomial GLM QuantReg RLM ARIMA
    SARIMAX AutoReg ExponentialSmoothing SimpleExpSmoothing Holt VAR UnobservedComponents
    STL""".split()
)
# Linear models whose fit is one least-squares solve.
LINEAR = frozenset({"OLS", "WLS", "GLS"})
# Functions that only compute from their inputs.
FUNCTIONS = frozenset(
    """add_constant add_trend adfuller kpss acf pacf ccf coint lagmat seasonal_decompose
    variance_inflation_factor durbin_watson""".split()
)
# Inputs of at most this many values are handed to statsmodels (a few milliseconds; a
# lag search such as adfuller(autolag="AIC") fits one regression per lag).
MAX_CELLS = 20_000


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


def _exact_inputs(site: CallSite, extra: Any = ()) -> bool:
    """Every input is an exact copy (no sample, no stand-in) of data statsmodels reads."""
    values = [*extra, *site.args, *site.kwargs.values()]
    total = 0
    for value in values:
        if not isinstance(value, Val) or value.sampled or value.fake or value.live:
            return False
        obj = value.obj
        if is_ndarray(obj) or is_dataframe(obj) or is_series(obj):
            total += int(getattr(obj, "size", 0))
        elif not (is_plain_data(obj) or _statsmodels_object(obj)):
            return False
    return not site.has_star and total <= MAX_CELLS


def _statsmodels_object(obj: Any) -> bool:
    module = getattr(type(obj), "__module__", "") or ""
    return module.startswith("statsmodels.") and is_library_type(type(obj))


def _dry_run(chk: Any, site: CallSite) -> Any:
    """A statsmodels constructor, linear fit or statistic run on exact copies."""
    func = site.func
    if isinstance(func, BoundMethod):
        model = func.receiver
        if (
            func.name == "fit"
            and type(model.obj).__name__ in LINEAR
            and _statsmodels_object(model.obj)
            and not (model.live or model.fake or model.sampled)
            and set(site.kwargs) <= {"method"}
            and not site.args
            and _exact_inputs(site, [model])
        ):
            return Result(chk.evaluate(site, func.func, [model]))
        return None
    if not isinstance(func, Val):
        return None
    target = func.obj
    module = getattr(target, "__module__", "") or ""
    name = getattr(target, "__name__", "")
    if not module.startswith("statsmodels."):
        return None
    if isinstance(target, type):
        if name not in MODELS or not is_library_type(target):
            return None
    elif name not in FUNCTIONS:
        return None
    if "formula" in site.kwargs or not _exact_inputs(site):
        return None
    return Result(chk.evaluate(site, target, []))


def on_call(chk: Any, site: CallSite) -> Any:
    ran = _dry_run(chk, site)
    if ran is not None:
        return ran
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
