"""Keras/TensorFlow rules, twice: the checker's prediction, and the real run that confirms it."""

from __future__ import annotations

import pytest

from crane_server.probe.interpreter.checker import check_source
from tests.checker.rule_cases import RuleCase
from tests.checker.rule_harness import assert_prediction, namespace_for, real_exception

KERAS = """
import numpy as np
import keras
import tensorflow as tf
from keras import layers
_ = tf.keras.layers  # the user has used tf.keras (a lazy module) before
X = np.random.rand(12, 4).astype("float32")
X5 = np.random.rand(12, 5).astype("float32")
T5 = tf.zeros((4, 5))
y = np.arange(12) % 3
onehot = np.eye(3)[y]
clf = keras.Sequential([keras.Input((4,)), layers.Dense(8, activation="relu"),
                       layers.Dense(3, activation="softmax")])
clf.compile(optimizer="adam", loss="sparse_categorical_crossentropy", metrics=["accuracy"])
"""
CCE = (
    KERAS
    + """
cce = keras.Sequential([keras.Input((4,)), layers.Dense(3, activation="softmax")])
cce.compile(optimizer="adam", loss=keras.losses.CategoricalCrossentropy())
"""
)
CNN = (
    KERAS
    + """
cnn = keras.Sequential([keras.Input((28, 28, 1)), layers.Conv2D(4, 3), layers.Flatten(),
                       layers.Dense(10)])
cnn.compile(optimizer="adam", loss="categorical_crossentropy")
flat = np.zeros((8, 784), "float32")
labels = np.eye(10)[np.arange(8)]
"""
)
FUNCTIONAL = (
    KERAS
    + """
inp = keras.Input((4,))
fm = keras.Model(inp, layers.Dense(2)(inp))
"""
)
HISTORY = (
    KERAS
    + """
hist = clf.fit(X, y, epochs=1, verbose=0)
"""
)

CASES = [
    # model input shape versus data shape
    RuleCase(
        "predict-last-dim", KERAS, "clf.predict(X5, verbose=0)", "keras-input-shape", "ValueError"
    ),
    RuleCase("predict-ok", KERAS, "clf.predict(X, verbose=0)", None),
    RuleCase("call-last-dim", KERAS, "out = clf(X5)", "keras-input-shape", "ValueError"),
    RuleCase(
        "tf-tensor-last-dim", KERAS, "clf.predict(T5, verbose=0)", "keras-input-shape", "ValueError"
    ),
    RuleCase(
        "evaluate-last-dim",
        KERAS,
        "clf.evaluate(X5, y, verbose=0)",
        "keras-input-shape",
        "ValueError",
    ),
    RuleCase("trailing-one-squeezed", KERAS, "clf.predict(X[:, :, None], verbose=0)", None),
    RuleCase(
        "rank-flat-images",
        CNN,
        "cnn.fit(flat, labels, epochs=1, verbose=0)",
        "keras-input-shape",
        "ValueError",
    ),
    RuleCase("rank-channel-added", CNN, "cnn.predict(flat.reshape(-1, 28, 28), verbose=0)", None),
    RuleCase(
        "conv-channels",
        CNN,
        "cnn.predict(np.zeros((2, 28, 28, 3), 'float32'), verbose=0)",
        "keras-input-shape",
        "ValueError",
    ),
    RuleCase(
        "flatten-then-dense",
        CNN,
        "cnn.predict(np.zeros((2, 27, 27, 1), 'float32'), verbose=0)",
        "keras-input-shape",
        "ValueError",
    ),
    RuleCase(
        "functional-input",
        FUNCTIONAL,
        "fm.predict(X5, verbose=0)",
        "keras-input-shape",
        "ValueError",
    ),
    RuleCase("functional-ok", FUNCTIONAL, "fm.predict(X, verbose=0)", None),
    RuleCase(
        "unbuilt-builds-on-call",
        KERAS,
        "lazy = keras.Sequential([layers.Dense(3)])\nlazy.predict(X5, verbose=0)",
        None,
    ),
    RuleCase("data-prepared-in-cell", KERAS, "X2 = X5[:, :4]\nclf.predict(X2, verbose=0)", None),
    # fit: cardinality, compile, loss versus target
    RuleCase(
        "cardinality",
        KERAS,
        "clf.fit(X, y[:7], epochs=1, verbose=0)",
        "keras-data-cardinality",
        "ValueError",
    ),
    RuleCase("fit-ok", KERAS, "clf.fit(X, y, epochs=1, verbose=0)", None),
    RuleCase(
        "cce-integer-labels",
        CCE,
        "cce.fit(X, y, epochs=1, verbose=0)",
        "keras-loss-target",
        "ValueError",
    ),
    RuleCase("cce-one-hot", CCE, "cce.fit(X, onehot, epochs=1, verbose=0)", None),
    RuleCase(
        "sparse-one-hot",
        KERAS,
        "clf.fit(X, onehot, epochs=1, verbose=0)",
        "keras-loss-target",
        "ValueError",
    ),
    RuleCase(
        "sparse-column-labels", KERAS, "clf.fit(X, y.reshape(-1, 1), epochs=1, verbose=0)", None
    ),
    RuleCase(
        "recompiled-in-cell",
        KERAS,
        "clf.compile(optimizer='adam', loss='categorical_crossentropy')\n"
        "clf.fit(X, onehot, epochs=1, verbose=0)",
        None,
    ),
    RuleCase(
        "fit-misspelled-keyword",
        KERAS,
        "clf.fit(X, y, epoch=3, verbose=0)",
        "python-call-signature",
        "TypeError",
    ),
    RuleCase(
        "predict-then-fit", KERAS, "p = clf.predict(X, verbose=0)\nclf.fit(X, y, verbose=0)", None
    ),
    # removed APIs
    RuleCase(
        "predict-classes", KERAS, "clf.predict_classes(X)", "keras-removed-api", "AttributeError"
    ),
    RuleCase("fit-generator", KERAS, "clf.fit_generator(X)", "keras-removed-api", "AttributeError"),
    RuleCase("tf-session", KERAS, "sess = tf.Session()", "keras-removed-api", "AttributeError"),
    RuleCase("tf-compat-session", KERAS, "Session = tf.compat.v1.Session", None),
    RuleCase(
        "optimizer-lr",
        KERAS,
        "opt = keras.optimizers.Adam(lr=0.01)",
        "keras-removed-argument",
        "ValueError",
    ),
    RuleCase(
        "optimizer-learning-rate", KERAS, "opt = keras.optimizers.Adam(learning_rate=0.01)", None
    ),
    # History keys
    RuleCase("history-acc", HISTORY, "print(hist.history['acc'])", "keras-history-key", "KeyError"),
    RuleCase("history-accuracy", HISTORY, "print(hist.history['accuracy'])", None),
    RuleCase(
        "history-val-missing",
        HISTORY,
        "curve = hist.history['val_loss']",
        "keras-history-key",
        "KeyError",
    ),
]
CASES += [
    RuleCase(
        "history-acc-same-cell",
        KERAS,
        "h = clf.fit(X, y, epochs=1, verbose=0)\nprint(h.history['acc'])",
        "keras-history-key",
        "KeyError",
        2,
    ),
    RuleCase(
        "history-val-same-cell",
        KERAS,
        "h = clf.fit(X, y, epochs=1, verbose=0)\nh.history['val_accuracy']",
        "keras-history-key",
        "KeyError",
        2,
    ),
    RuleCase(
        "history-val-logged",
        KERAS,
        "h = clf.fit(X, y, epochs=1, verbose=0, validation_split=0.25)\nh.history['val_accuracy']",
        None,
    ),
    RuleCase(
        "tf-keras-optimizer-lr",
        KERAS,
        "opt = tf.keras.optimizers.Adam(lr=0.01)",
        "keras-removed-argument",
        "ValueError",
    ),
]
FRAMES = (
    KERAS
    + """
import pandas as pd
frame5 = pd.DataFrame(X5)
Xbig = np.zeros((300000, 4), "float32")
ybig = np.zeros(250000)
"""
)
CASES += [
    RuleCase(
        "dataframe-last-dim",
        FRAMES,
        "clf.predict(frame5, verbose=0)",
        "keras-input-shape",
        "ValueError",
    ),
    RuleCase("dataframe-ok", FRAMES, "clf.predict(frame5.iloc[:, :4], verbose=0)", None),
    RuleCase(
        "cardinality-large",
        FRAMES,
        "clf.fit(Xbig, ybig, epochs=1)",
        "keras-data-cardinality",
        "ValueError",
    ),
]
UNCOMPILED = KERAS + "raw = keras.Sequential([keras.Input((4,)), layers.Dense(3)])\n"
CASES += [
    RuleCase(
        "fit-uncompiled",
        UNCOMPILED,
        "raw.fit(X, y, epochs=1, verbose=0)",
        "keras-not-compiled",
        "ValueError",
    ),
    RuleCase(
        "fit-compiled-in-cell",
        UNCOMPILED,
        "raw.compile(optimizer='adam', loss='mse')\nraw.fit(X, X[:, :3], epochs=1, verbose=0)",
        None,
    ),
]


# A convolution or pooling window larger than its input (graph mode: fit, predict,
# evaluate), and integer labels outside [0, classes) for a sparse cross-entropy.
WINDOWS = (
    KERAS
    + """
conv = keras.Sequential([keras.Input((12, 12, 1)), layers.Conv2D(4, 3), layers.MaxPool2D(2),
                         layers.Flatten(), layers.Dense(3)])
image = np.zeros((1, 144, 1), dtype="float32")
square = np.zeros((1, 12, 12), dtype="float32")
from_one = y + 1
ignored = y.copy()
ignored[0] = -1
masked = keras.Sequential([keras.Input((4,)), layers.Dense(3)])
masked.compile(optimizer="adam", loss=keras.losses.SparseCategoricalCrossentropy(ignore_class=-1))
"""
)
CASES += [
    RuleCase(
        "pool-window-larger-than-input",
        WINDOWS,
        "conv.predict(image, verbose=0)",
        "keras-input-shape",
        "ValueError",
    ),
    RuleCase("pool-window-fits", WINDOWS, "conv.predict(square, verbose=0)", None),
    RuleCase(
        "sparse-labels-from-one",
        WINDOWS,
        "clf.fit(X, from_one, epochs=1, verbose=0)",
        "keras-label-range",
        "InvalidArgumentError",
    ),
    RuleCase("sparse-labels-from-zero", WINDOWS, "clf.fit(X, y, epochs=1, verbose=0)", None),
    RuleCase(
        "sparse-label-ignored-class",
        WINDOWS,
        "masked.fit(X, ignored, epochs=1, verbose=0)",
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


@pytest.mark.filterwarnings("ignore")
def test_history_key_evidence() -> None:
    finding = check_source("hist.history['acc']", namespace_for(RuleCase("h", HISTORY, "", None)))[
        0
    ]
    assert finding["evidence"]["closest"] == "accuracy"
    assert finding["replacements"][0]["new_text"] == "'accuracy'"
    assert "accuracy" in finding["evidence"]["facts"][0]


@pytest.mark.filterwarnings("ignore")
def test_checker_leaves_model_untouched() -> None:
    namespace = namespace_for(RuleCase("t", KERAS, "", None))
    model = namespace["clf"]
    weights = [w.copy() for w in model.get_weights()]
    cell = (
        "clf.compile(optimizer='sgd', loss='mse')\nclf.fit(X, y, epochs=3, verbose=0)\n"
        "clf.add(layers.Dense(2))\nclf.pop()"
    )
    check_source(cell, namespace)
    assert (
        namespace["clf"] is model
        and len(model.layers) == 2
        and model.loss == "sparse_categorical_crossentropy"
    )
    assert all((a == b).all() for a, b in zip(weights, model.get_weights()))
