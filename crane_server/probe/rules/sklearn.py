"""scikit-learn rules: unfitted estimators, invalid parameters, bad X/y, mismatched features."""

from __future__ import annotations

import ast
from typing import Any, List, Optional, Tuple

from ..outcomes import CallSite, Raise, Result
from ..values import (
    UNKNOWN,
    BoundMethod,
    FittedModel,
    Val,
    is_dataframe,
    is_estimator,
    is_library_object,
    is_plain_data,
    length_of,
    loaded,
    shape_of,
    true_shape,
)
from . import sklearn_dry_run as dry_run

FIT_METHODS = frozenset({"fit", "fit_transform", "fit_predict", "partial_fit"})
# XGBoost's and LightGBM's scikit-learn estimators: built for real (their __init__ only
# stores parameters) and dry-run like scikit-learn's own.
BOOSTING_MODULES = ("xgboost.sklearn", "lightgbm.sklearn")
USE_METHODS = frozenset(
    {
        "predict",
        "predict_proba",
        "predict_log_proba",
        "decision_function",
        "transform",
        "score",
        "inverse_transform",
        "score_samples",
    }
)
META_ESTIMATORS = frozenset(
    {
        "Pipeline",
        "ColumnTransformer",
        "FeatureUnion",
        "GridSearchCV",
        "RandomizedSearchCV",
        "HalvingGridSearchCV",
        "HalvingRandomSearchCV",
        "TransformedTargetRegressor",
        "VotingClassifier",
        "VotingRegressor",
        "StackingClassifier",
        "StackingRegressor",
        "MultiOutputClassifier",
        "MultiOutputRegressor",
        "OneVsRestClassifier",
        "OneVsOneClassifier",
        "BaggingClassifier",
        "BaggingRegressor",
        "CalibratedClassifierCV",
        "SelectFromModel",
        "RFE",
        "RFECV",
        "SequentialFeatureSelector",
    }
)


def on_attribute(chk: Any, node: ast.Attribute, base: Val) -> Any:
    if isinstance(base.obj, FittedModel):
        # Only what fit would record is known: a method is called through on_call (bound to
        # the model, never the class's plain function), any other attribute is unknown.
        return Result(UNKNOWN)
    return None


def on_subscript(chk: Any, node: ast.Subscript, base: Val, key: Any) -> Any:
    return None


def on_binop(chk: Any, node: ast.BinOp, left: Val, right: Val) -> Any:
    return None


class ConfusionDisplaySpec:
    """What ConfusionMatrixDisplay(...) would hold: checked when .plot() is called."""

    def __init__(self, matrix: Any, labels: Any) -> None:
        self.matrix = matrix
        self.labels = labels


def _confusion_display(site: CallSite) -> Any:
    matrix = site.arg(0, "confusion_matrix")
    labels = site.arg(1, "display_labels")
    if not isinstance(matrix, Val) or shape_of(matrix.obj) is None or matrix.sampled or matrix.fake:
        return Result(UNKNOWN)
    if labels is not None and not isinstance(labels, Val):
        return Result(UNKNOWN)
    return Result(Val(ConfusionDisplaySpec(matrix.obj, labels.obj if labels is not None else None)))


def _display_plot(site: CallSite, spec: ConfusionDisplaySpec) -> Any:
    shape = shape_of(spec.matrix) or ()
    labels = spec.labels
    if labels is None or not shape:
        return Result(UNKNOWN)
    try:
        count = len(labels)
    except Exception:
        return Result(UNKNOWN)
    if count != shape[0]:
        return Raise(
            "sklearn-display-labels",
            "ValueError",
            "The number of FixedLocator locations (%d), usually from a call to set_ticks, does not match the number of labels (%d)."
            % (shape[0], count),
            facts=[
                "the confusion matrix is %dx%d but display_labels has %d entries"
                % (shape[0], shape[-1], count)
            ],
            fix="pass one label per class (e.g. display_labels=model.classes_)",
            node=site.node,
        )
    return Result(UNKNOWN)


def on_call(chk: Any, site: CallSite) -> Any:
    func = site.func
    if isinstance(func, BoundMethod) and isinstance(func.receiver.obj, ConfusionDisplaySpec):
        return _display_plot(site, func.receiver.obj) if func.name == "plot" else Result(UNKNOWN)
    if isinstance(site.node.func, ast.Attribute):
        owner_value = _peek(chk, site.node.func.value)
        if isinstance(func, BoundMethod) and isinstance(func.receiver.obj, FittedModel):
            owner_value = func.receiver  # `model.fit(X, y).predict(X2)`: fit's own result
        if isinstance(owner_value, Val) and isinstance(owner_value.obj, FittedModel):
            fitted = owner_value.obj
            answer = _estimator_call(chk, site, fitted.estimator, fitted, site.node.func.attr)
            return answer if answer is not None else Result(UNKNOWN)
        func = site.func
        if isinstance(func, BoundMethod) and is_estimator(func.receiver.obj):
            receiver = func.receiver
            return _estimator_call(chk, site, receiver.obj, None, func.name, receiver.live)
    if isinstance(site.func, Val):
        target = site.func.obj
        module = getattr(target, "__module__", "") or ""
        if module in BOOSTING_MODULES and isinstance(target, type) and is_estimator_class(target):
            return _construct(site, target)
        if not module.startswith("sklearn"):
            return None
        name = getattr(target, "__name__", "")
        if name == "train_test_split":
            return _train_test_split(site)
        if name == "ConfusionMatrixDisplay" and isinstance(target, type):
            return _confusion_display(site)
        if isinstance(target, type) and is_estimator_class(target):
            return _construct(site, target)
        if (
            module.startswith("sklearn.metrics")
            and not name.endswith("Display")
            and "plot" not in name
        ):
            return _metric(chk, site, target)
    return None


def _peek(chk: Any, node: ast.expr) -> Any:
    """The tracked value of a plain name, without reporting anything."""
    if isinstance(node, ast.Name):
        return chk.env.get(node.id)
    return None


def is_estimator_class(cls: type) -> bool:
    base = loaded("sklearn.base")
    try:
        return base is not None and issubclass(cls, base.BaseEstimator)
    except TypeError:
        return False


def _construct(site: CallSite, cls: type) -> Any:
    """Estimator constructors only store their parameters: build the estimator for real."""
    values = list(site.args) + list(site.kwargs.values())
    if site.has_star or not all(isinstance(v, Val) for v in values):
        return None
    if any(not (is_plain_data(v.obj) or is_library_object(v.obj)) for v in values):
        return None
    init = next((vars(k)["__init__"] for k in cls.__mro__ if "__init__" in vars(k)), None)
    init_module = getattr(init, "__module__", None) or ""
    if not (init_module.startswith("sklearn") or init_module in BOOSTING_MODULES):
        return None
    try:
        from ..quiet import quiet

        with quiet():
            estimator = cls(
                *[v.obj for v in site.args], **{k: v.obj for k, v in site.kwargs.items()}
            )
    except TypeError:
        return None  # the signature rule reports it with Python's own message
    except Exception:
        return Result(UNKNOWN)
    return Result(Val(estimator, origin="cell"))


def _x_facts(value: Val) -> Tuple[Optional[int], Optional[int], Optional[List[str]]]:
    """(n_samples, n_features, feature names) of an X as sklearn would see it."""
    shape = true_shape(value)
    if shape is None:
        obj = value.obj
        if type(obj) is list and obj and all(type(r) in (list, tuple) for r in obj[:50]):
            lengths = {len(r) for r in obj}
            return len(obj), (lengths.pop() if len(lengths) == 1 else None), None
        return length_of(value), None, None
    n_samples = shape[0] if shape else None
    if value.sampled and value.rows is None:
        n_samples = None
    n_features = shape[1] if len(shape) == 2 else None
    names = None
    if is_dataframe(value.obj):
        columns = list(value.obj.columns)
        if all(isinstance(c, str) for c in columns):
            names = columns
    return n_samples, n_features, names


def _estimator_call(
    chk: Any,
    site: CallSite,
    estimator: Any,
    fitted: Optional[FittedModel],
    method: str,
    live: bool = True,
) -> Any:
    name = type(estimator).__name__
    is_meta = name in META_ESTIMATORS
    if method in FIT_METHODS:
        validate = getattr(estimator, "_validate_params", None)
        if callable(validate) and fitted is None:
            try:
                from ..quiet import quiet

                with quiet():
                    validate()
            except Exception as exc:
                if type(exc).__name__ == "InvalidParameterError":
                    return Raise(
                        "sklearn-invalid-parameter",
                        type(exc).__name__,
                        str(exc),
                        facts=["parameters: %s" % _params(estimator)],
                        node=site.node,
                    )
        x = site.arg(0, "X")
        y = site.arg(1, "y")
        trained = None
        if isinstance(x, Val):
            problem = _check_x(estimator, x, y, site, is_meta, fitting=True)
            if problem is not None:
                return problem
            only_x_y = set(site.kwargs) <= {"X", "y"} and len(site.args) + len(site.kwargs) == (
                1 if y is None else 2
            )
            if fitted is None and (not is_meta or dry_run.composite(estimator)) and only_x_y:
                failure, trained = dry_run.fit(estimator, method, x, y)
                if failure is not None:
                    return dry_run.raised(failure, estimator, method, site)
        _n_samples, n_features, names = _x_facts(x) if isinstance(x, Val) else (None, None, None)
        model = FittedModel(estimator, n_features, names)
        model.trained = trained
        target = site.node.func.value if isinstance(site.node.func, ast.Attribute) else None
        if isinstance(target, ast.Name) and x is not None:
            chk.bind(target.id, Val(model))
        if method == "fit":
            return Result(Val(model))
        return Result(UNKNOWN)
    if method in USE_METHODS:
        if fitted is None:
            try:
                from ..quiet import quiet

                validation = loaded("sklearn.utils.validation")
                if validation is None:
                    return Result(UNKNOWN)
                with quiet():
                    validation.check_is_fitted(estimator)
            except Exception as exc:
                if type(exc).__name__ == "NotFittedError":
                    return Raise(
                        "sklearn-not-fitted",
                        "NotFittedError",
                        str(exc),
                        facts=["%s has no fitted attributes (no attribute ending in '_')" % name],
                        fix="call .fit(X, y) on this estimator first, or use the fitted one "
                        "(e.g. grid_search.best_estimator_)",
                        node=site.node,
                    )
                return Result(UNKNOWN)
        x = site.arg(0, "X")
        if isinstance(x, Val) and method != "inverse_transform":
            problem = _check_x(estimator, x, None, site, is_meta, fitting=False, fitted=fitted)
            if problem is not None:
                return problem
            # a clone fitted on the cell's data, or a copy of a fitted estimator (never live)
            trained = fitted.trained if fitted is not None else (None if live else estimator)
            runnable = trained is not None and (not is_meta or dry_run.composite(trained))
            if runnable and len(site.args) + len(site.kwargs) == 1:
                failure, output = dry_run.use(trained, method, x)
                if failure is not None:
                    return dry_run.raised(failure, estimator, method, site)
                if output is not None:
                    # exact for a copy of the user's fitted estimator; shaped right otherwise
                    return Result(Val(output, fake=fitted is not None))
        return Result(UNKNOWN)
    return None


def _params(estimator: Any) -> str:
    try:
        params = estimator.get_params(deep=False)
    except Exception:
        return "?"
    return ", ".join("%s=%r" % (k, v) for k, v in list(params.items())[:8])


def _check_x(
    estimator: Any,
    x: Val,
    y: Any,
    site: CallSite,
    is_meta: bool,
    fitting: bool,
    fitted: Optional[FittedModel] = None,
) -> Optional[Raise]:
    name = type(estimator).__name__
    native = (type(estimator).__module__ or "").startswith("sklearn.")
    n_samples, n_features, names = _x_facts(x)
    if not native:
        # Other libraries' scikit-learn estimators validate their input their own way: only the
        # feature count (checked by every one of them) is judged.
        expected = (
            fitted.n_features if fitted is not None else getattr(estimator, "n_features_in_", None)
        )
        if (
            not fitting
            and isinstance(expected, int)
            and n_features is not None
            and n_features != expected
        ):
            return Raise(
                "sklearn-feature-count",
                "ValueError",
                "X has %d features, but %s is expecting %d features as input."
                % (n_features, name, expected),
                facts=["fitted on %d features; X has %d" % (expected, n_features)],
                node=site.node,
            )
        return None
    if n_samples == 0 and not x.fake and shape_of(x.obj) is not None and not is_meta:
        shape = true_shape(x)
        return Raise(
            "sklearn-empty-input",
            "ValueError",
            "Found array with 0 sample(s) (shape=%s) while a minimum of 1 is required by %s."
            % (shape, name),
            facts=["X is empty: an earlier filter or split removed every row"],
            node=site.node,
        )
    if fitting and isinstance(y, Val) and not is_meta:
        y_len = length_of(y) if not (y.sampled and y.rows is None) else None
        if n_samples is not None and y_len is not None and n_samples != y_len:
            return Raise(
                "sklearn-inconsistent-length",
                "ValueError",
                "Found input variables with inconsistent numbers of samples: [%d, %d]"
                % (n_samples, y_len),
                facts=["X has %d rows, y has %d" % (n_samples, y_len)],
                node=site.node,
            )
    if not fitting:
        expected = (
            fitted.n_features if fitted is not None else getattr(estimator, "n_features_in_", None)
        )
        expected_names = fitted.feature_names if fitted is not None else _names_in(estimator)
        if (
            isinstance(expected, int)
            and n_features is not None
            and n_features != expected
            and not is_meta
        ):
            return Raise(
                "sklearn-feature-count",
                "ValueError",
                "X has %d features, but %s is expecting %d features as input."
                % (n_features, name, expected),
                facts=["fitted on %d features; X has %d" % (expected, n_features)],
                node=site.node,
            )
        if expected_names is not None and names is not None and list(expected_names) != list(names):
            unseen = [n for n in names if n not in expected_names]
            missing = [n for n in expected_names if n not in names]
            message = "The feature names should match those that were passed during fit."
            if unseen or missing:
                return Raise(
                    "sklearn-feature-names",
                    "ValueError",
                    message,
                    facts=(["unseen at fit time: %s" % unseen[:10]] if unseen else [])
                    + (["seen at fit time, now missing: %s" % missing[:10]] if missing else []),
                    fix="select the same columns as at fit time (e.g. X[model.feature_names_in_])",
                    node=site.node,
                )
    if x.fake or is_meta:
        return None
    problem = _check_values(estimator, x, site)
    if problem is not None:
        return problem
    if fitting and isinstance(y, Val) and not y.fake and _is_classifier(estimator):
        return _check_classification_target(estimator, y, site)
    return None


def _names_in(estimator: Any) -> Optional[List[str]]:
    names = getattr(estimator, "feature_names_in_", None)
    return list(names) if names is not None else None


def _is_classifier(estimator: Any) -> bool:
    base = loaded("sklearn.base")
    try:
        return bool(base is not None and base.is_classifier(estimator))
    except Exception:
        return False


def _tags(estimator: Any) -> Any:
    utils = loaded("sklearn.utils")
    get_tags = getattr(utils, "get_tags", None) if utils is not None else None
    if get_tags is None:
        return None
    try:
        return get_tags(estimator)
    except Exception:
        return None


def _check_values(estimator: Any, x: Val, site: CallSite) -> Optional[Raise]:
    """NaN or strings in X, for estimators that validate X as a finite numeric array."""
    tags = _tags(estimator)
    if tags is None:
        return None
    inputs = tags.input_tags
    if (
        not inputs.two_d_array
        or inputs.string
        or inputs.categorical
        or inputs.dict
        or inputs.sparse is None
    ):
        return None
    module = type(estimator).__module__
    if not module.startswith("sklearn."):
        return None
    validation = loaded("sklearn.utils.validation")
    if validation is None or shape_of(x.obj) is None or len(shape_of(x.obj) or ()) != 2:
        return None
    try:
        from ..quiet import quiet

        finite = "allow-nan" if inputs.allow_nan else True
        with quiet():
            try:
                validation.check_array(
                    x.obj, dtype="numeric", ensure_all_finite=finite, estimator=estimator
                )
            except TypeError:  # scikit-learn < 1.6
                validation.check_array(
                    x.obj, dtype="numeric", force_all_finite=finite, estimator=estimator
                )
    except ValueError as exc:
        text = str(exc)
        if (
            "could not convert string to float" in text
            or "Input X contains" in text
            or "Input contains" in text
        ):
            facts = _value_facts(x.obj)
            fix = (
                "encode the text columns first (e.g. pd.get_dummies or OneHotEncoder) or drop them"
                if "string" in text
                else "impute or drop the NaN values first (e.g. SimpleImputer, dropna)"
            )
            code = "sklearn-non-numeric-input" if "string" in text else "sklearn-nan-input"
            return Raise(
                code, "ValueError", text.split("\n")[0], facts=facts, fix=fix, node=site.node
            )
    except Exception:
        return None
    return None


def _value_facts(obj: Any) -> List[str]:
    if not is_dataframe(obj):
        return []
    facts = []
    text_columns = [
        c
        for c in obj.columns
        if obj[c].dtype == object or str(obj[c].dtype) in ("category", "string")
    ]
    if text_columns:
        facts.append("non-numeric columns: %s" % text_columns[:10])
    try:
        nan_columns = [c for c in obj.columns if obj[c].isna().any()]
    except Exception:
        nan_columns = []
    if nan_columns:
        facts.append("columns with NaN: %s" % nan_columns[:10])
    return facts


def _check_classification_target(estimator: Any, y: Val, site: CallSite) -> Optional[Raise]:
    multiclass = loaded("sklearn.utils.multiclass")
    if multiclass is None:
        return None
    try:
        from ..quiet import quiet

        with quiet():
            kind = multiclass.type_of_target(y.obj, input_name="y")
    except Exception:
        return None
    if kind in ("continuous", "continuous-multioutput"):
        return Raise(
            "sklearn-continuous-target",
            "ValueError",
            "Unknown label type: %s. Maybe you are trying to fit a classifier, which expects discrete classes on a regression target with continuous values."
            % kind,
            facts=["y holds continuous values; %s is a classifier" % type(estimator).__name__],
            fix="use a regressor, or discretise y",
            node=site.node,
        )
    return None


def _train_test_split(site: CallSite) -> Any:
    arrays = site.args
    if site.has_star or not arrays:
        return None
    lengths = []
    for value in arrays:
        if not isinstance(value, Val) or (value.sampled and value.rows is None):
            return None
        length = (
            length_of(value) if shape_of(value.obj) is None else (true_shape(value) or (None,))[0]
        )
        if length is None:
            return None
        lengths.append(length)
    if len(set(lengths)) > 1:
        return Raise(
            "sklearn-inconsistent-length",
            "ValueError",
            "Found input variables with inconsistent numbers of samples: %s" % lengths,
            node=site.node,
        )
    n_samples = lengths[0]
    split = loaded("sklearn.model_selection._split")
    validate = getattr(split, "_validate_shuffle_split", None) if split is not None else None
    test_size = site.kwargs.get("test_size")
    train_size = site.kwargs.get("train_size")
    if validate is None or any(
        v is not None and not isinstance(v, Val) for v in (test_size, train_size)
    ):
        return None
    try:
        validate(
            n_samples,
            test_size.obj if test_size else None,
            train_size.obj if train_size else None,
            default_test_size=0.25,
        )
    except ValueError as exc:
        facts = ["the arrays have %d samples" % n_samples]
        if n_samples == 0:
            facts.append(
                "an earlier filter removed every row (check the filter's condition and dtypes)"
            )
        return Raise(
            "sklearn-empty-split" if n_samples == 0 else "sklearn-invalid-split",
            "ValueError",
            str(exc),
            facts=facts,
            node=site.node,
        )
    except Exception:
        return None
    return None


def _metric(chk: Any, site: CallSite, func: Any) -> Any:
    """Metrics are pure functions of their inputs: evaluate them on exact values."""
    from .python import signature_rule

    bad_call = signature_rule(site)
    if bad_call is not None:
        return bad_call
    values = list(site.args) + list(site.kwargs.values())
    if site.has_star or not all(isinstance(v, Val) for v in values):
        return None
    if any(v.sampled or v.fake for v in values):
        return Result(UNKNOWN)
    if any(not (is_plain_data(v.obj) or is_library_object(v.obj)) for v in values):
        return None
    try:
        from ..quiet import quiet

        with quiet():
            result = func(*[v.obj for v in site.args], **{k: v.obj for k, v in site.kwargs.items()})
    except ValueError as exc:
        return Raise(
            "sklearn-metric-input",
            "ValueError",
            str(exc).split("\n")[0],
            facts=["evaluated %s on the live values" % site.name],
            node=site.node,
        )
    except Exception:
        return Result(UNKNOWN)
    return Result(Val(result))
