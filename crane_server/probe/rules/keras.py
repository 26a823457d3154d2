"""Keras/TensorFlow rules: input shapes, data cardinality, loss targets, removed APIs, History.

Nothing here imports Keras or TensorFlow: rules act only when the user has imported them.
Models are never run; their declared shapes, input specs and compiled loss are read and
the checks that Keras itself performs on those shapes are replayed. Only the exact library
`Sequential` and functional `Model` classes are judged on shapes (a user subclass may do
anything in `call`), and a Sequential is followed layer by layer only through library
layers whose output shape Keras computes without running them.
"""

from __future__ import annotations

import ast
import inspect
import sys
import types
from typing import Any, Dict, List, Optional, Tuple

from ..outcomes import CallSite, Raise, Result
from ..shadows import from_namespace
from ..values import (
    UNKNOWN,
    BoundMethod,
    UserFunction,
    Val,
    as_dict,
    closest_name,
    is_dataframe,
    is_ndarray,
    is_series,
    loaded,
    true_shape,
)

ROOTS = frozenset({"keras", "tensorflow", "tf_keras"})
HISTORY_ORIGIN = "keras.History.history"
Shape = Tuple[Optional[int], ...]

REMOVED_METHODS: Dict[str, str] = {
    "predict_classes": "removed in TensorFlow 2.6: use np.argmax(model.predict(x), axis=-1), "
    "or (model.predict(x) > 0.5).astype('int32') for a sigmoid output",
    "predict_proba": "removed in TensorFlow 2.6: model.predict(x) returns the probabilities",
    "fit_generator": "removed in Keras 3: model.fit accepts generators, Sequences and datasets",
    "evaluate_generator": "removed in Keras 3: use model.evaluate(...)",
    "predict_generator": "removed in Keras 3: use model.predict(...)",
}
REMOVED_TF1 = frozenset(
    [
        "Session",
        "InteractiveSession",
        "placeholder",
        "contrib",
        "global_variables_initializer",
        "local_variables_initializer",
        "ConfigProto",
        "get_default_graph",
        "reset_default_graph",
        "set_random_seed",
        "logging",
        "layers",
        "variable_scope",
        "get_variable",
        "Summary",
        "FileWriter",
    ]
)
# Methods of a model that do not change its structure, compilation or history.
READ_ONLY_METHODS = frozenset(
    [
        "predict",
        "evaluate",
        "predict_on_batch",
        "test_on_batch",
        "summary",
        "count_params",
        "get_config",
        "get_layer",
        "get_weights",
        "to_json",
        "save",
        "save_weights",
        "compute_output_shape",
    ]
)
CHECKED_METHODS = frozenset(
    {"fit", "evaluate", "predict", "train_on_batch", "test_on_batch", "predict_on_batch"}
)
LOSSES = {
    "categorical_crossentropy": "categorical",
    "CategoricalCrossentropy": "categorical",
    "binary_crossentropy": "binary",
    "BinaryCrossentropy": "binary",
    "sparse_categorical_crossentropy": "sparse",
    "SparseCategoricalCrossentropy": "sparse",
}
HISTORY_ALIASES = {
    "acc": "accuracy",
    "val_acc": "val_accuracy",
    "accuracy": "acc",
    "val_accuracy": "val_acc",
}


ACCURACY_KEYS = frozenset({"acc", "accuracy"})


class PredictedHistory:
    """What `model.fit(...)` in the target cell returns: the History keys it will log."""

    def __init__(self, metrics: List[str], validation: Optional[bool]) -> None:
        self.metrics = metrics
        self.validation = validation  # None: unknown


class PredictedLog:
    """`PredictedHistory.history`: judged only on keys whose absence is certain."""

    def __init__(self, fitted: PredictedHistory) -> None:
        self.fitted = fitted

    def absent(self, key: str) -> bool:
        base = key[4:] if key.startswith("val_") else key
        if key.startswith("val_") and self.fitted.validation is False:
            return True
        if key.startswith("val_") and self.fitted.validation is None:
            return False
        return base in ACCURACY_KEYS and base not in self.fitted.metrics

    def keys(self) -> List[str]:
        names = ["loss", *self.fitted.metrics]
        return names + (["val_" + n for n in names] if self.fitted.validation else [])


def _root(tp: type) -> str:
    return (getattr(tp, "__module__", None) or "").split(".", 1)[0]


def _keras_object(obj: Any) -> bool:
    """A Keras object (model, layer, callback, History) whose whole class is library code."""
    if not any(loaded(r) is not None for r in ROOTS):
        return False
    tp = type(obj)
    if not (getattr(tp, "__module__", "") or "").startswith(("keras.", "tf_keras.")):
        return False
    return all(_root(klass) in ROOTS or klass is object for klass in tp.__mro__)


def _keras_model(obj: Any) -> bool:
    """Any keras Model, including user subclasses (whose fit may still be the library's)."""
    models = loaded("keras.src.models.model")
    return models is not None and isinstance(obj, models.Model)


def _model_kind(obj: Any) -> Optional[str]:
    """'sequential' or 'functional' for the exact library classes, else None."""
    tp = type(obj)
    module = getattr(tp, "__module__", "")
    if module == "keras.src.models.sequential" and tp.__name__ == "Sequential":
        return "sequential"
    if module == "keras.src.models.functional" and tp.__name__ == "Functional":
        return "functional"
    return None


def _is_history(obj: Any) -> bool:
    history = loaded("keras.src.callbacks.history")
    return history is not None and type(obj) is getattr(history, "History", None)


def _tensorflow_backend() -> bool:
    config = loaded("keras.src.backend.config")
    backend = getattr(config, "backend", None) if config is not None else None
    try:
        return callable(backend) and backend() == "tensorflow"
    except Exception:
        return False


# ---------------------------------------------------------------------- attributes


def on_attribute(chk: Any, node: ast.Attribute, base: Val) -> Any:
    obj = base.obj
    name = node.attr
    if isinstance(obj, types.ModuleType):
        return _module_attribute(obj, name, node)
    if isinstance(obj, PredictedHistory):
        return Result(Val(PredictedLog(obj)) if name == "history" else UNKNOWN)
    if isinstance(obj, PredictedLog):
        return Result(UNKNOWN)
    if _is_history(obj) and name == "history":
        found = as_dict(obj).get("history")
        if type(found) is dict:
            return Result(Val(found, origin=HISTORY_ORIGIN))
        return None
    if _keras_object(obj):
        return _missing_attribute(obj, name, node)
    return None


def _module_attribute(module: Any, name: str, node: ast.AST) -> Any:
    module_name = getattr(module, "__name__", "") or ""
    if module_name != "tensorflow" or name not in REMOVED_TF1:
        return None
    namespace = as_dict(module)
    if name in namespace or "__getattr__" in namespace or "tensorflow." + name in sys.modules:
        return None
    version = namespace.get("__version__", "?")
    return Raise(
        "keras-removed-api",
        "AttributeError",
        f"module 'tensorflow' has no attribute '{name}'",
        facts=[
            f"installed tensorflow version: {version} "
            "(the TF1 graph API is not at the top level in TF 2)"
        ],
        fix=f"TensorFlow 2 runs eagerly: call functions directly, or use tf.compat.v1.{name}",
        node=node,
    )


def _missing_attribute(obj: Any, name: str, node: ast.AST) -> Any:
    if name.startswith("__") or name in as_dict(obj):
        return None
    if any("__getattr__" in vars(klass) for klass in type(obj).__mro__ if klass is not object):
        return None
    try:
        inspect.getattr_static(obj, name)
        return None
    except AttributeError:
        pass
    kind = type(obj).__name__
    fix = REMOVED_METHODS.get(name)
    keras = loaded("keras")
    version = getattr(keras, "__version__", "?") if keras is not None else "?"
    return Raise(
        "keras-removed-api" if fix else "python-missing-attribute",
        "AttributeError",
        f"'{kind}' object has no attribute '{name}'",
        facts=[f"the value is a keras {kind} (keras {version})"],
        fix=fix,
        node=node,
    )


# ---------------------------------------------------------------------- History keys


def on_subscript(chk: Any, node: ast.Subscript, base: Val, key: Any) -> Any:
    if isinstance(base.obj, PredictedLog):
        return _predicted_key(base.obj, key, node)
    if base.origin != HISTORY_ORIGIN or type(base.obj) is not dict or not isinstance(key, Val):
        return None
    if not isinstance(key.obj, str):
        return None
    logged = base.obj
    if key.obj in logged:
        return Result(from_namespace(logged[key.obj]))
    keys = list(logged)
    closest = HISTORY_ALIASES.get(key.obj)
    if closest not in logged:
        closest = closest_name(key.obj, keys)
    facts = [f"History.history holds the keys {keys[:20]}"]
    fix = None
    if closest in HISTORY_ALIASES:
        fix = f"metrics are logged under the name given to compile(): here '{closest}'"
    if key.obj.startswith("val_") and not any(k.startswith("val_") for k in keys):
        facts.append(
            "no validation metrics were logged: fit ran without validation_data/validation_split"
        )
        fix = f"pass validation_split=0.2 (or validation_data=...) to fit to log {key.obj!r}"
        closest = None
    return Raise(
        "keras-history-key",
        "KeyError",
        repr(key.obj),
        facts=facts,
        closest=closest,
        fix=fix,
        node=node,
        replace_node=node.slice if closest else None,
        replace_text=repr(closest) if closest else None,
    )


def _predicted_key(log: PredictedLog, key: Any, node: ast.Subscript) -> Any:
    if not isinstance(key, Val) or not isinstance(key.obj, str) or not log.absent(key.obj):
        return Result(UNKNOWN)
    keys = log.keys()
    closest = HISTORY_ALIASES.get(key.obj)
    if closest not in keys:
        closest = None
    facts = [
        f"model.fit in this cell will log the keys {keys} (compiled metrics: {log.fitted.metrics})"
    ]
    fix = (
        f"metrics are logged under the name given to compile(): here {closest!r}"
        if closest
        else None
    )
    if key.obj.startswith("val_") and log.fitted.validation is False:
        facts.append("fit is called without validation_data/validation_split")
        fix = f"pass validation_split=0.2 (or validation_data=...) to fit to log {key.obj!r}"
    return Raise(
        "keras-history-key",
        "KeyError",
        repr(key.obj),
        facts=facts,
        closest=closest,
        fix=fix,
        node=node,
        replace_node=node.slice if closest else None,
        replace_text=repr(closest) if closest else None,
    )


def on_binop(chk: Any, node: ast.BinOp, left: Val, right: Val) -> Any:
    return None


# ---------------------------------------------------------------------- calls


def on_call(chk: Any, site: CallSite) -> Any:
    if not any(loaded(r) is not None for r in ROOTS):
        return None
    func = site.func
    if isinstance(func, Val) and isinstance(func.obj, type):
        return _optimizer_arguments(site, func.obj)
    if isinstance(func, Val) and _keras_model(func.obj):
        if _model_kind(func.obj) is None:
            return None  # a user subclass: its call() is user code
        return _model_call(chk, site, func.obj, "__call__")
    receiver, method = _receiver(chk, site)
    if receiver is None or not _keras_model(receiver.obj):
        return None
    if isinstance(func, BoundMethod) and func.func is None and _keras_object(receiver.obj):
        problem = _missing_attribute(receiver.obj, method, site.node.func)
        if problem is not None:
            return problem
    if method in CHECKED_METHODS:
        problem = _model_call(chk, site, receiver.obj, method)
        if problem is not None:
            return problem
        if method == "fit" and _library_method(receiver.obj, method):
            predicted = _predicted_history(site, receiver.obj)
            chk.havoc_value(receiver)
            if predicted is not None:
                return Result(Val(predicted, origin="cell"))
    if method not in READ_ONLY_METHODS or not _library_method(receiver.obj, method):
        chk.havoc_value(receiver)  # fit, compile, add, pop, build, ... change what the rules read
    if (
        isinstance(func, Val)
        and isinstance(func.obj, UserFunction)
        and _library_method(receiver.obj, method)
    ):
        return Result(UNKNOWN)  # Keras' own method on a user subclass: never walk library source
    return None  # the generic rules still check the call's signature


def _predicted_history(site: CallSite, model: Any) -> Optional[PredictedHistory]:
    """The History keys of this fit, from the compiled metrics (plain strings only)."""
    if site.has_star or "callbacks" in site.kwargs or len(site.args) > 2:
        return None
    config = as_dict(as_dict(model).get("_compile_config")).get("config")
    if not isinstance(config, dict) or config.get("weighted_metrics") is not None:
        return None
    metrics = config.get("metrics")
    if metrics is None:
        metrics = []
    if type(metrics) is not list or not all(type(m) is str for m in metrics):
        return None
    try:
        if len(model.outputs) != 1:
            return None
    except Exception:
        return None
    validation: Optional[bool] = False
    for name in ("validation_split", "validation_data"):
        value = site.kwargs.get(name)
        if value is None:
            continue
        if not isinstance(value, Val):
            validation = None
        elif isinstance(value.obj, (int, float)) and value.obj == 0:
            continue
        elif validation is not None:
            validation = True
    return PredictedHistory(list(metrics), validation)


def _receiver(chk: Any, site: CallSite) -> Tuple[Optional[Val], str]:
    """The tracked object a method is called on, and the method's name."""
    func = site.func
    if isinstance(func, BoundMethod):
        return func.receiver, func.name
    node = site.node.func
    if (
        not isinstance(node, ast.Attribute)
        or not isinstance(func, Val)
        or not isinstance(func.obj, UserFunction)
    ):
        return None, ""
    value = _peek(chk, node.value)
    return (value if isinstance(value, Val) else None), node.attr


def _peek(chk: Any, node: ast.expr) -> Any:
    """The value of a plain name as the checker sees it, without reporting anything."""
    if not isinstance(node, ast.Name):
        return None
    if node.id in chk.env:
        return chk.env[node.id]
    if node.id in chk.deleted or node.id not in chk.namespace:
        return None
    obj = chk.namespace[node.id]
    if id(obj) in chk.tainted:
        return None
    return from_namespace(obj)


def _optimizer_arguments(site: CallSite, cls: type) -> Any:
    """Keras 3 optimizers reject the Keras 2 argument `lr` with a ValueError."""
    module = getattr(cls, "__module__", "") or ""
    base = loaded("keras.src.optimizers.base_optimizer")
    if not module.startswith("keras.src.optimizers") or base is None or site.has_star:
        return None
    try:
        if not issubclass(cls, base.BaseOptimizer):
            return None
        params = inspect.signature(vars(cls).get("__init__") or cls).parameters
    except (TypeError, ValueError):
        return None
    # Only the Keras 2 alias: other unknown keywords may be consumed by intermediate classes.
    unknown = [k for k in site.kwargs if k == "lr" and k not in params]
    if not unknown or not any(p.kind == p.VAR_KEYWORD for p in params.values()):
        return None
    shown = "{{{}}}".format(", ".join(f"{k!r}: {_short(site.kwargs[k])}" for k in unknown))
    fix = "use learning_rate=... (Keras 3 removed the `lr` alias)"
    return Raise(
        "keras-removed-argument",
        "ValueError",
        f"Argument(s) not recognized: {shown}",
        facts=[
            "{}(...) accepts: {}".format(
                cls.__name__, ", ".join(p for p in params if p not in ("self", "kwargs"))
            )
        ],
        fix=fix,
        node=site.node,
    )


def _short(value: Any) -> str:
    return repr(value.obj) if isinstance(value, Val) else "..."


# ---------------------------------------------------------------------- model calls


def _library_method(model: Any, method: str) -> bool:
    if method == "__call__":
        return True
    try:
        found = inspect.getattr_static(model, method)
    except AttributeError:
        return False
    return (getattr(found, "__module__", "") or "").startswith("keras.")


def _model_call(chk: Any, site: CallSite, model: Any, method: str) -> Optional[Raise]:
    if site.has_star or not _library_method(model, method):
        return None
    if method != "__call__":
        wrong = _signature_problem(site, model, method)
        if wrong is not None:
            return wrong
    if (
        method in ("fit", "evaluate", "train_on_batch", "test_on_batch")
        and as_dict(model).get("compiled") is False
    ):
        return Raise(
            "keras-not-compiled",
            "ValueError",
            "You must call `compile()` before using the model.",
            facts=[f"{type(model).__name__} has not been compiled"],
            fix=f"call model.compile(optimizer=..., loss=...) before {method}",
            node=site.node,
        )
    x = site.arg(0, "inputs" if method == "__call__" else "x")
    y = (
        site.arg(1, "y")
        if method in ("fit", "evaluate", "train_on_batch", "test_on_batch")
        else None
    )
    x_shape = _data_shape(x)
    y_shape = _data_shape(y)
    if method == "__call__" and isinstance(x, Val) and (is_dataframe(x.obj) or is_series(x.obj)):
        x_shape = None  # only fit/predict/evaluate convert pandas objects the way it is modelled
    if (
        method in ("fit", "evaluate")
        and x_shape
        and y_shape
        and x_shape[0] is not None
        and y_shape[0] is not None
        and x_shape[0] != y_shape[0]
        and "validation_split" not in site.kwargs
    ):
        return Raise(
            "keras-data-cardinality",
            "ValueError",
            "Data cardinality is ambiguous. Make sure all arrays contain the same number of "
            f"samples.'x' sizes: {x_shape[0]} 'y' sizes: {y_shape[0]}",
            facts=[f"x has {x_shape[0]} samples, y has {y_shape[0]}"],
            node=site.node,
        )
    kind = _model_kind(model)
    if kind is None or x_shape is None:
        return None
    batch = x_shape[0] if method == "__call__" else None
    problem, output = _input_problem(
        model, kind, (batch, *tuple(x_shape[1:])), graph=method != "__call__"
    )
    if problem is not None:
        message, facts = problem
        return Raise(
            "keras-input-shape",
            "ValueError",
            message,
            facts=facts,
            fix=_input_fix(model, tuple(x_shape[1:])),
            node=site.node,
        )
    if (
        y_shape is not None
        and output is not None
        and method in ("fit", "evaluate", "train_on_batch", "test_on_batch")
    ):
        loss_problem = _loss_problem(model, (None, *tuple(y_shape[1:])), output)
        if loss_problem is not None:
            message, facts, fix = loss_problem
            return Raise(
                "keras-loss-target", "ValueError", message, facts=facts, fix=fix, node=site.node
            )
        return _label_range(site, model, y, output)
    return None


def _label_range(site: CallSite, model: Any, y: Any, output: Shape) -> Optional[Raise]:
    """Integer labels outside [0, classes) for a sparse cross-entropy: TensorFlow's
    InvalidArgumentError on the first batch that holds one (every sample is visited in an
    epoch; a head sample of larger data is part of what is visited)."""
    np = loaded("numpy")
    if np is None or not _tensorflow_backend() or _loss_kind(model) != "sparse":
        return None
    if not isinstance(y, Val) or y.fake or not output or not isinstance(output[-1], int):
        return None
    if any(key in site.kwargs for key in ("steps_per_epoch", "steps", "initial_epoch")):
        return None
    loss = as_dict(model).get("loss")
    if (
        getattr(loss, "ignore_class", None) is not None
        or (getattr(loss, "_fn_kwargs", None) or {}).get("ignore_class") is not None
    ):
        return None  # labels equal to ignore_class are masked out
    classes = output[-1]
    labels = y.obj
    if is_series(labels):
        labels = labels.to_numpy()
    if not is_ndarray(labels) or labels.dtype.kind not in "iu" or labels.size == 0:
        return None
    high, low = int(labels.max()), int(labels.min())
    if low >= 0 and high < classes:
        return None
    bad = high if high >= classes else low
    return Raise(
        "keras-label-range",
        "InvalidArgumentError",
        f"Received a label value of {bad} which is outside the valid range of [0, {classes}).",
        facts=[
            f"labels run from {low} to {high}; the model has {classes} outputs "
            "(sparse categorical cross-entropy wants 0 .. outputs - 1)"
        ],
        fix=(
            f"shift the labels to start at 0 (y - {low})"
            if low > 0
            else f"give the last layer {high + 1} units"
        ),
        node=site.node,
    )


def _input_fix(model: Any, sample: Shape) -> str:
    try:
        expected = tuple(model.inputs[0].shape[1:])
    except Exception:
        expected = ()
    if (
        expected
        and all(isinstance(d, int) for d in expected + sample)
        and _size(expected) == _size(sample)
    ):
        return f"reshape the data to the model's input shape: x.reshape((-1,) + {expected})"
    return (
        f"each sample has shape {sample} but the model was built for {expected}: select the "
        f"features used when building it, or rebuild it with keras.Input(shape={sample})"
    )


def _size(shape: Tuple[Any, ...]) -> int:
    total = 1
    for dim in shape:
        total *= int(dim)
    return total


def _signature_problem(site: CallSite, model: Any, method: str) -> Optional[Raise]:
    """Bind the arguments to the signature behind Keras' traceback-filtering wrapper."""
    try:
        found = inspect.unwrap(inspect.getattr_static(model, method))
        if not isinstance(found, types.FunctionType) or not found.__module__.startswith("keras."):
            return None
        signature = inspect.signature(found)
    except (AttributeError, TypeError, ValueError):
        return None
    try:
        signature.bind(None, *site.args, **site.kwargs)
    except TypeError as exc:
        params = [p for p in signature.parameters if p != "self"]
        unknown = [k for k in site.kwargs if k not in signature.parameters]
        closest = closest_name(unknown[0], params) if unknown else None
        owner = found.__qualname__.split(".<locals>.")[-1]
        return Raise(
            "python-call-signature",
            "TypeError",
            f"{owner}() {exc}",
            facts=[f"signature: {method}{signature}"],
            closest=closest,
            fix=f"did you mean {closest}=...?" if closest else None,
            node=site.node,
        )
    return None


def _data_shape(value: Any) -> Optional[Shape]:
    """The full shape of an array, tensor or numeric DataFrame/Series argument, else None."""
    if not isinstance(value, Val) or value.fake:
        return None
    obj = value.obj
    if is_ndarray(obj) or is_series(obj) or (is_dataframe(obj) and _numeric_frame(obj)):
        if value.sampled and value.rows is None:
            return None
        shape = true_shape(value)
        return tuple(shape) if shape is not None and len(shape) >= 1 else None
    tf = loaded("tensorflow")
    if tf is not None and isinstance(obj, tf.Tensor) and _root(type(obj)) == "tensorflow":
        try:
            dims = obj.shape.as_list()
        except Exception:
            return None
        return tuple(dims) if dims else None
    return None


def _numeric_frame(frame: Any) -> bool:
    try:
        return all(dtype.kind in "biuf" for dtype in frame.dtypes)
    except Exception:
        return False


def _shape_text(shape: Shape) -> str:
    return str(tuple(shape))


def _input_problem(
    model: Any, kind: str, data: Shape, graph: bool = False
) -> Tuple[Optional[Tuple[str, List[str]]], Optional[Shape]]:
    """(message, facts) of the ValueError Keras raises for this data shape, and the output shape.

    `graph`: the call traces a graph (fit, predict, evaluate), where a window larger than its
    input is a ValueError (eagerly it is another error)."""
    try:
        inputs = (
            model.inputs
            if kind == "functional" or as_dict(model).get("_functional") is not None
            else None
        )
    except Exception:
        return None, None
    if not inputs or len(inputs) != 1:
        return None, None
    ref = tuple(inputs[0].shape)
    facts = [f"model input shape: {_shape_text(ref)}; data shape: {_shape_text(data)}"]
    if kind == "functional":
        problem = _spec_problem(model.input_spec, data, model.name)
        if problem is not None:
            return (problem, facts), None
    adjusted = _adjust_rank(data, ref)
    if adjusted is None:
        return (
            f"Invalid input shape for input with name '{inputs[0].name}'. Expected shape "
            f"{_shape_text(ref)}, but input has incompatible shape {_shape_text(data)}",
            facts,
        ), None
    if kind == "functional":
        return None, _output_shape(model) if adjusted == ref or _all_library_layers(model) else None
    shape: Optional[Shape] = adjusted
    for layer in model.layers:
        if shape is None or not _library_layer(layer):
            return None, None
        problem = _spec_problem(layer.input_spec, shape, layer.name)
        if problem is not None:
            facts.append(
                f"{layer.name} ({type(layer).__name__}) receives shape {_shape_text(shape)}"
            )
            return (problem, facts), None
        empty = _empty_window(layer, shape) if graph else None
        if empty is not None:
            facts.append(
                f"{layer.name} ({type(layer).__name__}) receives shape {_shape_text(shape)}"
            )
            return (empty, facts), None
        shape = _layer_output(layer, shape)
    return None, shape


# Sliding-window layers: a window larger than the input is TensorFlow's "Negative dimension
# size" error (Keras' declared output shape has a dimension below 1 exactly then).
WINDOW_LAYERS = (
    "Conv1D",
    "Conv2D",
    "Conv3D",
    "MaxPooling1D",
    "MaxPooling2D",
    "MaxPooling3D",
    "AveragePooling1D",
    "AveragePooling2D",
    "AveragePooling3D",
)


def _empty_window(layer: Any, shape: Shape) -> Optional[str]:
    """TensorFlow's "Negative dimension size" error of a window larger than its input."""
    if type(layer).__name__ not in WINDOW_LAYERS or not _tensorflow_backend():
        return None
    if getattr(layer, "padding", "valid") != "valid":
        return None
    try:
        from ..quiet import quiet

        with quiet():
            after = layer.compute_output_shape(shape)
    except ValueError as exc:
        if "zero or negative" not in str(exc):
            return None
        after = None
    except Exception:
        return None
    if after is not None and not any(isinstance(d, int) and d < 1 for d in tuple(after)[1:]):
        return None
    return (
        f"Exception encountered when calling {type(layer).__name__}.call(). Negative dimension "
        f"size: the {type(layer).__name__} window of {layer.name} does not fit its input of "
        f"shape {_shape_text(shape)}"
    )


def _adjust_rank(data: Shape, ref: Shape) -> Optional[Shape]:
    """Functional._adjust_input_rank on shapes: the shape Keras passes on, or None if it raises."""
    if len(data) == len(ref):
        return data
    if len(data) == len(ref) + 1 and data[-1] == 1:
        return data[:-1]
    if len(data) == len(ref) - 1 and ref[-1] == 1:
        return (*data, 1)
    return None


class _ShapeOnly:
    """What input-spec checks read from a tensor: its shape."""

    def __init__(self, shape: Shape) -> None:
        self.shape = shape


def _spec_problem(spec: Any, shape: Shape, name: str) -> Optional[str]:
    """Keras' own input-spec check run on a shape; the ValueError message if it fails."""
    module = loaded("keras.src.layers.input_spec")
    if module is None or not spec:
        return None
    specs = spec if isinstance(spec, (list, tuple)) else [spec]
    if len(specs) != 1 or specs[0] is None or getattr(specs[0], "dtype", None) is not None:
        return None
    spec_shape = getattr(specs[0], "shape", None)
    if spec_shape and spec_shape[0] is not None:
        return None
    try:
        from ..quiet import quiet

        with quiet():
            module.assert_input_compatibility(specs, _ShapeOnly(shape), layer_name=name)
    except ValueError as exc:
        return str(exc).split("\n")[0]
    except Exception:
        return None
    return None


def _library_layer(layer: Any) -> bool:
    module = getattr(type(layer), "__module__", "") or ""
    if not module.startswith("keras.src.layers.") or type(layer).__name__ in (
        "Lambda",
        "TFSMLayer",
    ):
        return False
    return _keras_object(layer)


def _all_library_layers(model: Any) -> bool:
    try:
        return all(
            _library_layer(layer) or type(layer).__name__ == "InputLayer" for layer in model.layers
        )
    except Exception:
        return False


def _layer_output(layer: Any, shape: Shape) -> Optional[Shape]:
    """The output shape a library layer declares for this input shape (no symbolic run)."""
    for klass in type(layer).__mro__:
        if "compute_output_shape" in vars(klass):
            module = getattr(klass, "__module__", "") or ""
            if module == "keras.src.layers.layer" or not module.startswith("keras.src.layers."):
                return None
            break
    else:
        return None
    try:
        from ..quiet import quiet

        with quiet():
            result = layer.compute_output_shape(shape)
    except Exception:
        return None
    if not isinstance(result, (tuple, list)) or not all(
        d is None or isinstance(d, int) for d in result
    ):
        return None
    return tuple(result)


def _output_shape(model: Any) -> Optional[Shape]:
    try:
        outputs = model.outputs
    except Exception:
        return None
    if not outputs or len(outputs) != 1:
        return None
    return tuple(outputs[0].shape)


def _loss_kind(model: Any) -> Optional[str]:
    loss = as_dict(model).get("loss", getattr(type(model), "loss", None))
    if isinstance(loss, str):
        return LOSSES.get(loss)
    if loss is None:
        return None
    if not (getattr(type(loss), "__module__", "") or "").startswith("keras.") and not (
        getattr(loss, "__module__", "") or ""
    ).startswith("keras."):
        return None
    if isinstance(loss, types.FunctionType):
        return LOSSES.get(loss.__name__)
    kind = LOSSES.get(type(loss).__name__)
    fn = getattr(loss, "fn", None)
    if (
        kind is None
        and isinstance(fn, types.FunctionType)
        and type(loss).__name__ == "LossFunctionWrapper"
    ):
        kind = LOSSES.get(fn.__name__)
    return kind


def _loss_problem(
    model: Any, target: Shape, output: Shape
) -> Optional[Tuple[str, List[str], Optional[str]]]:
    """The ValueError the compiled cross-entropy raises for these y/output shapes (TF backend)."""
    if not _tensorflow_backend() or not _all_library_layers(model):
        return None
    kind = _loss_kind(model)
    if kind is None or not output:
        return None
    y, out = _squeeze_or_expand(target, output)
    received = f"Received: target.shape={_shape_text(y)}, output.shape={_shape_text(out)}"
    facts = [
        f"loss: {kind} cross-entropy; y shape {_shape_text(target)}; "
        f"model output shape {_shape_text(output)}"
    ]
    if kind in ("categorical", "binary"):
        fix = (
            "one-hot encode y (keras.utils.to_categorical(y)), "
            "or use loss='sparse_categorical_crossentropy'"
            if kind == "categorical"
            else "give y the model's output shape"
        )
        if len(y) != len(out):
            return (
                "Arguments `target` and `output` must have the same rank (ndim). " + received,
                facts,
                fix,
            )
        if any(a is not None and b is not None and a != b for a, b in zip(y, out)):
            return (
                "Arguments `target` and `output` must have the same shape. " + received,
                facts,
                fix,
            )
        return None
    if len(y) == len(out) and y and y[-1] == 1:
        y = y[:-1]
    if len(y) != len(out[:-1]):
        return (
            "Argument `output` must have rank (ndim) `target.ndim - 1`. " + received,
            facts,
            "y looks one-hot encoded: use loss='categorical_crossentropy', "
            "or pass integer labels (np.argmax(y, axis=1))",
        )
    return None


def _squeeze_or_expand(y: Shape, out: Shape) -> Tuple[Shape, Shape]:
    """keras.src.losses.loss.squeeze_or_expand_to_same_rank on shapes."""
    y_rank, out_rank = len(y), len(out)
    if y_rank == out_rank:
        return y, out
    if y_rank == out_rank + 1 and y[-1] == 1:
        if out_rank == 1:
            out = (*out, 1)
        else:
            y = y[:-1]
    if out_rank == y_rank + 1 and out[-1] == 1:
        if y_rank == 1:
            y = (*y, 1)
        else:
            out = out[:-1]
    return y, out
