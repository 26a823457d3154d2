"""LightGBM/XGBoost rules, twice: the checker's prediction, and the real run that confirms it."""

from __future__ import annotations

import pytest

from tests.checker.rule_cases import RuleCase
from tests.checker.rule_harness import assert_prediction, real_exception

BOOSTING = """
import numpy as np
from lightgbm import LGBMClassifier
from xgboost import XGBClassifier
X = np.random.rand(40, 4)
X5 = np.random.rand(40, 5)
y = np.arange(40) % 2
lgbm = LGBMClassifier(n_estimators=5, verbose=-1)
xgbc = XGBClassifier(n_estimators=5)
lgbm_fitted = LGBMClassifier(n_estimators=5, verbose=-1).fit(X, y)
import pandas as pd
frame = pd.DataFrame(X, columns=["a", "b", "c", "d"])
lgbm_named = LGBMClassifier(n_estimators=5, verbose=-1).fit(frame, y)
xgbc_fitted = XGBClassifier(n_estimators=5).fit(X, y)
import lightgbm as lgb
booster = lgb.train({"verbose": -1, "num_threads": 1}, lgb.Dataset(X, y.astype(float)), 5)
unchecked = lgb.train({"verbose": -1, "num_threads": 1, "predict_disable_shape_check": True},
                      lgb.Dataset(X, y.astype(float)), 5)
"""

CASES = [
    # judged by this module
    RuleCase(
        "lgb-booster-transposed-data",
        BOOSTING,
        "scores = booster.predict(X.T)",
        "lightgbm-feature-count",
        "LightGBMError",
    ),
    RuleCase(
        "lgb-booster-frame-one-column-more",
        BOOSTING,
        "scores = booster.predict(pd.DataFrame(X5))",
        "lightgbm-feature-count",
        "LightGBMError",
    ),
    RuleCase("lgb-booster-right-width", BOOSTING, "scores = booster.predict(X[:3])", None),
    RuleCase(
        "lgb-booster-shape-check-off",
        BOOSTING,
        "scores = booster.predict(X5[:, :3], predict_disable_shape_check=True)",
        None,
    ),
    RuleCase(  # a training parameter does not turn the check off: not judged, raises anyway
        "lgb-booster-trained-with-shape-check-off",
        BOOSTING,
        "scores = unchecked.predict(X5)",
        None,
        "LightGBMError",
    ),
    RuleCase(
        "lgbm-importances-unfitted",
        BOOSTING,
        "lgbm.feature_importances_",
        "boosting-not-fitted",
        "NotFittedError",
    ),
    RuleCase(
        "xgb-importances-unfitted",
        BOOSTING,
        "imp = xgbc.feature_importances_",
        "boosting-not-fitted",
        "NotFittedError",
    ),
    RuleCase("lgbm-importances-fitted", BOOSTING, "lgbm_fitted.feature_importances_", None),
    RuleCase(
        "xgb-booster-unfitted",
        BOOSTING,
        "booster = xgbc.get_booster()",
        "boosting-not-fitted",
        "NotFittedError",
    ),
    RuleCase("xgb-booster-fitted", BOOSTING, "booster = xgbc_fitted.get_booster()", None),
    # already judged by the scikit-learn rules (both APIs are scikit-learn estimators)
    RuleCase(
        "lgbm-predict-unfitted", BOOSTING, "lgbm.predict(X)", "sklearn-not-fitted", "NotFittedError"
    ),
    RuleCase(
        "xgb-predict-unfitted",
        BOOSTING,
        "xgbc.predict_proba(X)",
        "sklearn-not-fitted",
        "NotFittedError",
    ),
    RuleCase(
        "lgbm-feature-count",
        BOOSTING,
        "lgbm_fitted.predict(X5)",
        "sklearn-feature-count",
        "ValueError",
    ),
    RuleCase(
        "xgb-feature-count",
        BOOSTING,
        "xgbc_fitted.predict(X5)",
        "sklearn-feature-count",
        "ValueError",
    ),
    RuleCase("xgb-predict-fitted", BOOSTING, "xgbc_fitted.predict(X)", None),
    # LightGBM does not check feature names: renamed columns must not be reported
    RuleCase(
        "lgbm-renamed-columns",
        BOOSTING,
        "lgbm_named.predict(frame.rename(columns={'a': 'z'}))",
        None,
    ),
]


@pytest.mark.parametrize("case", [pytest.param(c, id=c.id) for c in CASES])
@pytest.mark.filterwarnings("ignore")
def test_checker_prediction(case: RuleCase) -> None:
    assert_prediction(case)


@pytest.mark.parametrize("case", [pytest.param(c, id=c.id) for c in CASES])
@pytest.mark.filterwarnings("ignore")
def test_real_run_confirms(case: RuleCase) -> None:
    assert real_exception(case) == case.exception
