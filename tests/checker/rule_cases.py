"""Table of rule cases: setup code, a target cell, and what the checker must say.

Each case is run twice by the tests: through the checker (no execution) and for real, so
every prediction is confirmed on the installed libraries. `expect=None` is a near miss that
works: the checker must stay silent and the real run must succeed.
"""

from __future__ import annotations

import importlib.util
from dataclasses import dataclass


@dataclass(frozen=True)
class RuleCase:
    id: str
    setup: str
    cell: str
    code: str | None  # expected Finding.code (None: must stay silent)
    exception: str | None = None
    line: int = 1


FRAME = """
import numpy as np
import pandas as pd
df = pd.DataFrame({"Amount": [10.0, 20.5, 3.2, 8.0], "Class": [0, 1, 0, 1],
                   "City": ["Oslo", "Rome", "Oslo", "Lima"], "Price": ["$1,200", "$950", "$3,000", "$10"]})
"""
ML = (
    FRAME
    + """
from sklearn.linear_model import LinearRegression, LogisticRegression
from sklearn.ensemble import RandomForestClassifier, HistGradientBoostingRegressor
from sklearn.model_selection import train_test_split
from sklearn.metrics import accuracy_score
from sklearn.preprocessing import StandardScaler
X = df[["Amount", "Class"]]
y = df["Amount"] * 2
model = LinearRegression()
fitted = LinearRegression().fit(X, y)
"""
)
TORCH = """
import torch
from torch import nn
layer = nn.Linear(10, 3)
batch = torch.ones(4, 10)
wide = torch.ones(4, 12)
probs = torch.full((4, 1), 0.5)
target = torch.ones(4)
weights = torch.ones(3, requires_grad=True)
"""
PLOT = (
    FRAME
    + """
import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt
import seaborn as sns
chw = np.zeros((3, 8, 8))
hwc = np.zeros((8, 8, 3))
"""
)

CASES = [
    # Python
    RuleCase("undefined-name", FRAME, "print(total)", "python-undefined-name", "NameError"),
    RuleCase("undefined-name-near-miss", FRAME, "total = 3\nprint(total)", None),
    RuleCase(
        "name-used-before-assignment",
        FRAME,
        "y2 = x2 + 1\nx2 = 2",
        "python-undefined-name",
        "NameError",
    ),
    RuleCase(
        "name-in-comprehension-scope",
        FRAME,
        "squares = [v * v for v in range(3)]\nprint(squares)",
        None,
    ),
    RuleCase(
        "name-deleted-in-cell",
        FRAME,
        "tmp = 1\ndel tmp\nprint(tmp)",
        "python-undefined-name",
        "NameError",
        3,
    ),
    RuleCase(
        "module-not-installed",
        "",
        "import surely_not_a_module_xyz",
        "python-module-not-found",
        "ModuleNotFoundError",
    ),
    RuleCase("module-installed", "", "import json", None),
    RuleCase(
        "import-missing-name",
        "import json",
        "from json import loadz",
        "python-import-name",
        "ImportError",
    ),
    RuleCase(
        "removed-numpy-alias",
        FRAME,
        "x = np.float(3)",
        "python-missing-attribute",
        "AttributeError",
    ),
    RuleCase("numpy-alias-kept", FRAME, "x = np.float64(3)", None),
    RuleCase(
        "removed-dataframe-append",
        FRAME,
        "df2 = df.append(df)",
        "pandas-removed-api",
        "AttributeError",
    ),
    RuleCase("concat-instead", FRAME, "df2 = pd.concat([df, df])", None),
    RuleCase(
        "ndarray-has-no-join",
        FRAME,
        "arr = df.values\narr.join(df)",
        "python-missing-attribute",
        "AttributeError",
        2,
    ),
    RuleCase("unpack-too-many", FRAME, "a, b = (1, 2, 3)", "python-unpack", "ValueError"),
    RuleCase("unpack-ok", FRAME, "a, b, c = (1, 2, 3)", None),
    RuleCase(
        "list-index",
        FRAME,
        "items = [1, 2]\nitems[2]",
        "python-index-out-of-range",
        "IndexError",
        2,
    ),
    RuleCase(
        "dict-key", FRAME, "cfg = {'lr': 0.1}\ncfg['epochs']", "python-missing-key", "KeyError", 2
    ),
    RuleCase("dict-get-ok", FRAME, "cfg = {'lr': 0.1}\ncfg.get('epochs')", None),
    RuleCase(
        "inplace-returns-none",
        FRAME,
        "d2 = df.drop(columns='Class', inplace=True)\nd2.head()",
        "python-none-attribute",
        "AttributeError",
        2,
    ),
    RuleCase(
        "call-signature", PLOT, "sns.barplot('Amount', df)", "python-call-signature", "TypeError"
    ),
    RuleCase(
        "call-signature-ok",
        PLOT,
        "sns.barplot(data=df, x='City', y='Amount')\nplt.close('all')",
        None,
    ),
    RuleCase(
        "open-missing-file",
        "",
        "handle = open('no_such_file_123.txt')",
        "python-file-not-found",
        "FileNotFoundError",
    ),
    RuleCase("syntax-error", "", "def broken(:\n    pass", "python-syntax-error", "SyntaxError"),
    # pandas
    RuleCase("missing-column", FRAME, "df['amount'].sum()", "pandas-missing-column", "KeyError"),
    RuleCase("existing-column", FRAME, "df['Amount'].sum()", None),
    RuleCase(
        "missing-column-list", FRAME, "df[['Amount', 'Clas']]", "pandas-missing-column", "KeyError"
    ),
    RuleCase(
        "drop-missing", FRAME, "df.drop(columns=['Citty'])", "pandas-missing-column", "KeyError"
    ),
    RuleCase(
        "drop-twice-in-cell",
        FRAME,
        "df.drop('City', axis=1, inplace=True)\ndf.drop('City', axis=1, inplace=True)",
        "pandas-missing-column",
        "KeyError",
        2,
    ),
    RuleCase("drop-errors-ignore", FRAME, "df.drop(columns=['Citty'], errors='ignore')", None),
    RuleCase(
        "groupby-missing",
        FRAME,
        "df.groupby('city').Amount.mean()",
        "pandas-missing-column",
        "KeyError",
    ),
    RuleCase(
        "sort-values-missing",
        FRAME,
        "df.sort_values(by='amount')",
        "pandas-missing-column",
        "KeyError",
    ),
    RuleCase("loc-missing-column", FRAME, "df.loc[:, 'Amt']", "pandas-missing-column", "KeyError"),
    RuleCase("loc-row-filter", FRAME, "df.loc[df['Class'] == 1, 'Amount']", None),
    RuleCase(
        "iloc-out-of-bounds", FRAME, "df.iloc[10]", "pandas-index-out-of-bounds", "IndexError"
    ),
    RuleCase(
        "attribute-not-column",
        FRAME,
        "df.Amout.mean()",
        "pandas-missing-attribute",
        "AttributeError",
    ),
    RuleCase(
        "column-after-assignment", FRAME, "df['Total'] = df['Amount'] * 2\ndf['Total'].sum()", None
    ),
    RuleCase(
        "del-then-use", FRAME, "del df['City']\ndf['City']", "pandas-missing-column", "KeyError", 2
    ),
    RuleCase(
        "loop-missing-column",
        FRAME,
        "for col in ['Amount', 'Tax']:\n    print(df[col].mean())",
        "pandas-missing-column",
        "KeyError",
        2,
    ),
    RuleCase(
        "loop-guarded",
        FRAME,
        "for col in ['Amount', 'Tax']:\n    if col in df.columns:\n        print(df[col].mean())",
        None,
    ),
    RuleCase(
        "to-numeric-currency",
        FRAME,
        "df['Price'] = pd.to_numeric(df['Price'])",
        "pandas-invalid-cast",
        "ValueError",
    ),
    RuleCase(
        "to-numeric-cleaned",
        FRAME,
        "df['Price'] = pd.to_numeric(df['Price'].str.replace('[$,]', '', regex=True))",
        None,
    ),
    RuleCase(
        "astype-nan-to-int",
        FRAME + "df.loc[1, 'Amount'] = np.nan",
        "df['Amount'].astype(int)",
        "pandas-invalid-cast",
        "IntCastingNaNError",
    ),
    RuleCase(
        "astype-after-fillna",
        FRAME + "df.loc[1, 'Amount'] = np.nan",
        "df['Amount'].fillna(0).astype(int)",
        None,
    ),
    RuleCase(
        "str-accessor-numeric",
        FRAME,
        "df['Amount'].str.upper()",
        "python-missing-attribute",
        "AttributeError",
    ),
    RuleCase("str-accessor-text", FRAME, "df['City'].str.upper()", None),
    RuleCase(
        "read-csv-missing",
        FRAME,
        "pd.read_csv('no_such_data_123.csv')",
        "python-file-not-found",
        "FileNotFoundError",
    ),
    # NumPy
    RuleCase(
        "broadcast", FRAME, "np.ones((3, 4)) + np.ones((5,))", "numpy-value-error", "ValueError"
    ),
    RuleCase("broadcast-ok", FRAME, "np.ones((3, 4)) + np.ones((4,))", None),
    RuleCase(
        "matmul", FRAME, "np.ones((3, 4)) @ np.ones((3, 4))", "numpy-value-error", "ValueError"
    ),
    RuleCase("reshape", FRAME, "np.arange(10).reshape(3, 4)", "numpy-value-error", "ValueError"),
    RuleCase(
        "concatenate",
        FRAME,
        "np.concatenate([np.ones((2, 3)), np.ones((2, 4))])",
        "numpy-value-error",
        "ValueError",
    ),
    RuleCase(
        "axis-error",
        FRAME,
        "labels = np.array([0, 1, 2])\nnp.argmax(labels, axis=1)",
        "numpy-axis-error",
        "AxisError",
        2,
    ),
    RuleCase("axis-ok", FRAME, "probs = np.ones((3, 2))\nnp.argmax(probs, axis=1)", None),
    RuleCase(
        "array-index",
        FRAME,
        "arr = np.zeros(5)\narr[7]",
        "numpy-index-out-of-bounds",
        "IndexError",
        2,
    ),
    RuleCase(
        "savetxt-3d",
        FRAME,
        "np.savetxt('out_123.txt', np.zeros((2, 2, 2)))",
        "numpy-savetxt-dimensions",
        "ValueError",
    ),
    # scikit-learn
    RuleCase("not-fitted", ML, "model.predict(X)", "sklearn-not-fitted", "NotFittedError"),
    RuleCase("fitted", ML, "fitted.predict(X)", None),
    RuleCase("fit-then-predict", ML, "model.fit(X, y)\nmodel.predict(X)", None),
    RuleCase(
        "nan-input",
        ML + "X.loc[1, 'Amount'] = np.nan",
        "LinearRegression().fit(X, y)",
        "sklearn-nan-input",
        "ValueError",
    ),
    RuleCase(
        "nan-accepted",
        ML + "X.loc[1, 'Amount'] = np.nan",
        "HistGradientBoostingRegressor(max_iter=5).fit(X, y)",
        None,
    ),
    RuleCase(
        "string-input",
        ML,
        "LinearRegression().fit(df[['Amount', 'City']], y)",
        "sklearn-non-numeric-input",
        "ValueError",
    ),
    RuleCase(
        "length-mismatch",
        ML,
        "LinearRegression().fit(X, y[:3])",
        "sklearn-inconsistent-length",
        "ValueError",
    ),
    RuleCase(
        "feature-count",
        ML,
        "fitted.predict(X[['Amount']].values)",
        "sklearn-feature-count",
        "ValueError",
    ),
    RuleCase(
        "feature-names",
        ML,
        "fitted.predict(X.rename(columns={'Class': 'Label'}))",
        "sklearn-feature-names",
        "ValueError",
    ),
    RuleCase(
        "continuous-target",
        ML,
        "LogisticRegression().fit(X, y)",
        "sklearn-continuous-target",
        "ValueError",
    ),
    RuleCase("discrete-target", ML, "LogisticRegression().fit(X, df['Class'])", None),
    RuleCase(
        "invalid-parameter",
        ML,
        "RandomForestClassifier(n_estimators=0).fit(X, df['Class'])",
        "sklearn-invalid-parameter",
        "InvalidParameterError",
    ),
    RuleCase(
        "empty-split",
        ML,
        "empty = df[df['City'] == 'Paris']\ntrain_test_split(empty, test_size=0.2)",
        "sklearn-empty-split",
        "ValueError",
        2,
    ),
    RuleCase("split-ok", ML, "train_test_split(df, test_size=0.25, random_state=0)", None),
    RuleCase(
        "metric-continuous",
        ML,
        "accuracy_score(X, df['Class'])",
        "sklearn-metric-input",
        "ValueError",
    ),
    # PyTorch
    RuleCase("linear-in-features", TORCH, "layer(wide)", "torch-shape-mismatch", "RuntimeError"),
    RuleCase("linear-ok", TORCH, "layer(batch)", None),
    RuleCase(
        "linear-dtype", TORCH, "layer(batch.double())", "torch-dtype-mismatch", "RuntimeError"
    ),
    RuleCase("bce-shape", TORCH, "nn.BCELoss()(probs, target)", "torch-loss-input", "ValueError"),
    RuleCase("bce-squeezed", TORCH, "nn.BCELoss()(probs.squeeze(1), target)", None),
    RuleCase("view-size", TORCH, "batch.view(3, -1)", "torch-runtime-error", "RuntimeError"),
    RuleCase(
        "numpy-requires-grad", TORCH, "weights.numpy()", "torch-runtime-error", "RuntimeError"
    ),
    RuleCase("numpy-detached", TORCH, "weights.detach().numpy()", None),
    # Layers built in the cell itself (random initial weights, the torch RNG restored)
    RuleCase(
        "built-linear-in-features",
        TORCH,
        "head = nn.Linear(12, 3)\nhead(batch)",
        "torch-shape-mismatch",
        "RuntimeError",
        line=2,
    ),
    RuleCase("built-linear-ok", TORCH, "head = nn.Linear(10, 3)\nhead(batch)", None),
    RuleCase(
        "built-sequential-dtype",
        TORCH,
        "net = nn.Sequential(nn.Linear(10, 8), nn.ReLU(), nn.Linear(8, 1))\nnet(batch.double())",
        "torch-dtype-mismatch",
        "RuntimeError",
        line=2,
    ),
    RuleCase(
        "built-sequential-inner-width",
        TORCH,
        "net = nn.Sequential(nn.Linear(10, 8), nn.ReLU(), nn.Linear(6, 1))\nnet(batch)",
        "torch-shape-mismatch",
        "RuntimeError",
        line=2,
    ),
    RuleCase(
        "built-sequential-ok",
        TORCH,
        "net = nn.Sequential(nn.Linear(10, 8), nn.ReLU(), nn.Linear(8, 1))\nout = net(batch)\nout.shape",
        None,
    ),
    RuleCase(
        "built-conv-channels",
        TORCH,
        "conv = nn.Conv2d(3, 4, 3)\nconv(torch.ones(2, 1, 8, 8))",
        "torch-shape-mismatch",
        "RuntimeError",
        line=2,
    ),
    RuleCase(
        "built-conv-ok", TORCH, "conv = nn.Conv2d(1, 4, 3)\nconv(torch.ones(2, 1, 8, 8))", None
    ),
    RuleCase(
        "built-lstm-features",
        TORCH,
        "rnn = nn.LSTM(12, 4, batch_first=True)\nrnn(batch.unsqueeze(0))",
        "torch-shape-mismatch",
        "RuntimeError",
        line=2,
    ),
    RuleCase(
        "built-lstm-ok",
        TORCH,
        "rnn = nn.LSTM(10, 4, batch_first=True)\nrnn(batch.unsqueeze(0))",
        None,
    ),
    RuleCase(
        "built-after-default-dtype-changed",
        TORCH,
        "torch.set_default_dtype(torch.float64)\nnet = nn.Linear(10, 1)\n"
        "out = net(batch.double())\ntorch.set_default_dtype(torch.float32)",
        None,
    ),
    RuleCase(
        "built-then-next-layer",
        TORCH,
        "emb = nn.Embedding(20, 6)\nh = emb(torch.zeros(4, dtype=torch.long))\nlayer(h)",
        "torch-shape-mismatch",
        "RuntimeError",
        line=3,
    ),
    # matplotlib / seaborn
    RuleCase(
        "imshow-channels-first", PLOT, "plt.imshow(chw)", "matplotlib-image-shape", "TypeError"
    ),
    RuleCase("imshow-channels-last", PLOT, "plt.imshow(hwc)\nplt.close('all')", None),
    RuleCase(
        "axes-index",
        PLOT,
        "fig, ax = plt.subplots(2, 1)\nfor i, col in enumerate(df.columns):\n    ax[i].set_title(col)\nplt.close('all')",
        "numpy-index-out-of-bounds",
        "IndexError",
        3,
    ),
    RuleCase(
        "axes-enough",
        PLOT,
        "fig, ax = plt.subplots(4, 1)\nfor i, col in enumerate(df.columns):\n    ax[i].set_title(col)\nplt.close('all')",
        None,
    ),
    RuleCase(
        "subplot-position",
        PLOT,
        "for i, col in enumerate(df.columns):\n    plt.subplot(1, 2, i + 1)\nplt.close('all')",
        "matplotlib-subplot-index",
        "ValueError",
        2,
    ),
]

FUNCS = (
    FRAME
    + """
def total_of(frame, column):
    return frame[column].sum()

def clean(frame):
    frame = frame.drop(columns=["City"])
    return frame
"""
)

CASES += [
    # user functions: walked, never run
    RuleCase(
        "crash-inside-earlier-function",
        FUNCS,
        "x = 1\nt = total_of(df, 'amount')",
        "pandas-missing-column",
        "KeyError",
        2,
    ),
    RuleCase("function-ok", FUNCS, "t = total_of(df, 'Amount')", None),
    RuleCase(
        "function-result-followed",
        FUNCS,
        "c = clean(df)\nc['City']",
        "pandas-missing-column",
        "KeyError",
        2,
    ),
    RuleCase("function-result-ok", FUNCS, "c = clean(df)\nc['Amount']", None),
    RuleCase(
        "crash-inside-cell-function",
        FRAME,
        "def f(d):\n    return d['nope']\n\nf(df)",
        "pandas-missing-column",
        "KeyError",
        2,
    ),
    RuleCase(
        "guarded-inside-function",
        FRAME,
        "def f(d, col):\n    if col in d:\n        return d[col]\n    return None\n\nf(df, 'nope')",
        None,
    ),
    RuleCase(
        "undefined-global-in-function",
        FUNCS + "def uses_missing():\n    return missing_global_xyz + 1\n",
        "uses_missing()",
        "python-undefined-name",
        "NameError",
    ),
]

LOADER = (
    TORCH
    + """
from torch.utils.data import DataLoader, TensorDataset, random_split
images = torch.rand(40, 3, 8, 8)
labels = torch.randint(0, 2, (40,))
train, test = random_split(TensorDataset(images, labels), [32, 8])
loader = DataLoader(train, batch_size=8, shuffle=True)

class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 4, kernel_size=3, padding=1)
        self.fc = nn.Linear(4 * 8 * 8, 1)
        self.act = nn.Sigmoid()

    def forward(self, x):
        x = self.conv(x)
        x = x.view(-1, 4 * 8 * 8)
        return self.act(self.fc(x))

net = Net()
loss_fn = nn.BCELoss()
"""
)

CASES += [
    RuleCase(
        "loader-loss-shape",
        LOADER,
        "for step, (x, y) in enumerate(loader):\n    out = net(x)\n    loss = loss_fn(out, y)\n    loss.backward()",
        "torch-loss-input",
        "ValueError",
        3,
    ),
    RuleCase(
        "loader-loss-ok",
        LOADER,
        "for step, (x, y) in enumerate(loader):\n    out = net(x)\n    loss = loss_fn(out.squeeze(1), y.float())\n    loss.backward()",
        None,
    ),
    RuleCase(
        "loader-linear-mismatch",
        LOADER + "head = nn.Linear(10, 2)\n",
        "for x, y in loader:\n    head(x.flatten(1))",
        "torch-shape-mismatch",
        "RuntimeError",
        2,
    ),
]

RECORD = (
    TORCH
    + """
import importlib.util
from dataclasses import dataclass
from typing import Optional

@dataclass
class Output:
    logits: torch.Tensor
    loss: Optional[torch.Tensor] = None

class Head(nn.Module):
    def __init__(self):
        super().__init__()
        self.proj = nn.Linear(10, 2)

    def forward(self, x, labels=None):
        out = Output(logits=self.proj(x))
        loss = None
        if labels is not None:
            loss = nn.CrossEntropyLoss()(out.logits.view(-1, 4), labels.view(-1))
        return Output(logits=out.logits, loss=loss)

head = Head()
labels4 = torch.zeros(4, dtype=torch.long)
labels2 = torch.zeros(2, dtype=torch.long)
"""
)

CASES += [
    RuleCase(
        "dataclass-output-loss",
        RECORD,
        "result = head(batch, labels=labels4)",
        "torch-loss-input",
        "ValueError",
    ),
    RuleCase("dataclass-output-ok", RECORD, "result = head(batch, labels=labels2)", None),
]

CASES += [
    RuleCase(
        "assigned-after-loop",
        FRAME,
        "for c in ['Amount']:\n    out[c] = df[c] * 2\nout = pd.DataFrame()",
        "python-undefined-name",
        "NameError",
        2,
    ),
    RuleCase(
        "assigned-in-loop-later",
        FRAME,
        "for i in range(2):\n    if i:\n        print(prev)\n    prev = i",
        None,
    ),
    RuleCase(
        "groupby-loop-append",
        FRAME,
        "out = pd.DataFrame(columns=['c', 's'])\nfor city, part in df.groupby('City'):\n    out = out.append({'c': city, 's': part['Amount'].sum()}, ignore_index=True)",
        "pandas-removed-api",
        "AttributeError",
        3,
    ),
    RuleCase(
        "groupby-loop-concat",
        FRAME,
        "rows = []\nfor city, part in df.groupby('City'):\n    rows.append({'c': city, 's': part['Amount'].sum()})\nout = pd.DataFrame(rows)",
        None,
    ),
    RuleCase("shape-called", FRAME, "rows, cols = df.shape()", "python-not-callable", "TypeError"),
    RuleCase("shape-read", FRAME, "rows, cols = df.shape", None),
    RuleCase(
        "merge-missing-key",
        FRAME,
        "targets = pd.DataFrame({'city': ['Oslo'], 'goal': [1]})\ndf.groupby('City', as_index=False)['Amount'].sum().merge(targets, on='City')",
        "pandas-key-error",
        "KeyError",
        2,
    ),
    RuleCase(
        "merge-left-right-on",
        FRAME,
        "targets = pd.DataFrame({'city': ['Oslo'], 'goal': [1]})\ndf.groupby('City', as_index=False)['Amount'].sum().merge(targets, left_on='City', right_on='city')",
        None,
    ),
    RuleCase(
        "single-axes-indexed",
        PLOT,
        "fig, ax = plt.subplots(figsize=(4, 3))\nax[0].plot([1, 2])\nplt.close('all')",
        "matplotlib-axes-not-subscriptable",
        "TypeError",
        2,
    ),
    RuleCase(
        "seaborn-missing-column",
        PLOT,
        "sns.histplot(data=df, x='amount')",
        "seaborn-missing-column",
        "ValueError",
    ),
    RuleCase(
        "seaborn-missing-hue",
        PLOT,
        "sns.scatterplot(data=df, x='Amount', y='Class', hue='city')\nplt.close('all')",
        "seaborn-missing-column",
        "ValueError",
    ),
    RuleCase(
        "seaborn-columns-ok",
        PLOT,
        "sns.scatterplot(data=df, x='Amount', y='Class', hue='City')\nplt.close('all')",
        None,
    ),
    RuleCase(
        "no-grad-body-judged",
        TORCH,
        "with torch.no_grad():\n    out = layer(wide)",
        "torch-shape-mismatch",
        "RuntimeError",
        2,
    ),
]

CASES += [
    RuleCase(
        "unpack-non-iterable",
        ML,
        "for i, (name, est) in {'lr': model}.items():\n    print(name)",
        "python-unpack",
        "TypeError",
    ),
    RuleCase(
        "unpack-items-enumerated",
        ML,
        "for i, (name, est) in enumerate({'lr': model}.items()):\n    print(name)",
        None,
    ),
    RuleCase(
        "unpack-series",
        FRAME,
        "low, high = df['Amount'].agg(['min', 'max', 'mean'])",
        "python-unpack",
        "ValueError",
    ),
    RuleCase("unpack-series-ok", FRAME, "low, high = df['Amount'].agg(['min', 'max'])", None),
    RuleCase(
        "plot-x-y-length",
        PLOT,
        "plt.plot(np.arange(5), df['Amount'])\nplt.close('all')",
        "matplotlib-xy-length",
        "ValueError",
    ),
    RuleCase("plot-x-y-ok", PLOT, "plt.plot(np.arange(4), df['Amount'])\nplt.close('all')", None),
    RuleCase(
        "scatter-size",
        PLOT,
        "plt.scatter(df['Amount'], [1, 2, 3])\nplt.close('all')",
        "matplotlib-xy-length",
        "ValueError",
    ),
    RuleCase(
        "bar-length",
        PLOT,
        "plt.bar(df['City'].unique(), df['Amount'])\nplt.close('all')",
        "matplotlib-xy-length",
        "ValueError",
    ),
    RuleCase(
        "bar-grouped-ok",
        PLOT,
        "totals = df.groupby('City')['Amount'].sum()\nplt.bar(totals.index, totals)\nplt.close('all')",
        None,
    ),
    RuleCase(
        "axes-plot-length",
        PLOT,
        "fig, ax = plt.subplots()\nax.plot([1, 2, 3], [1, 2])\nplt.close('all')",
        "matplotlib-xy-length",
        "ValueError",
        2,
    ),
    RuleCase(
        "read-csv-bad-keyword",
        FRAME,
        "pd.read_csv('data.csv', delimeter=',')",
        "python-call-signature",
        "TypeError",
    ),
    RuleCase(
        "groupby-agg-missing",
        FRAME,
        "df.groupby('City').agg({'Amount': 'sum', 'Tax': 'mean'})",
        "pandas-key-error",
        "KeyError",
    ),
    RuleCase(
        "groupby-agg-ok", FRAME, "df.groupby('City').agg({'Amount': 'sum', 'Class': 'mean'})", None
    ),
    RuleCase(
        "nll-batch",
        TORCH,
        "logp = torch.log_softmax(layer(batch), dim=1)\nnn.functional.nll_loss(logp, target.long()[:3])",
        "torch-value-error",
        "ValueError",
        2,
    ),
    RuleCase(
        "nll-ok",
        TORCH,
        "logp = torch.log_softmax(layer(batch), dim=1)\nnn.functional.nll_loss(logp, target.long())",
        None,
    ),
]

CASES += [
    # functions given to library methods are never called unless a library defines them
    RuleCase(
        "apply-user-function-not-called",
        FRAME + "calls = []\ndef tag(v):\n    calls.append(v)\n    return v\n",
        "out = df['Amount'].apply(tag)\nout.sum()",
        None,
    ),
    RuleCase(
        "apply-library-function",
        FRAME,
        "out = df['Amount'].apply(np.log)\nout.iloc[10]",
        "pandas-index-out-of-bounds",
        "IndexError",
        2,
    ),
]

COMPOSED = (
    ML
    + """
from sklearn.compose import ColumnTransformer
from sklearn.pipeline import Pipeline, make_pipeline
from sklearn.preprocessing import OneHotEncoder
from sklearn.ensemble import RandomForestClassifier
grid = np.column_stack([np.arange(12) % 3, np.linspace(0, 1, 12), np.arange(12.0)])
target = grid[:, 1] * 2 + grid[:, 2]
prep = ColumnTransformer([("code", OneHotEncoder(handle_unknown="ignore"), [0])], remainder=StandardScaler())
priced = make_pipeline(prep, LinearRegression()).fit(grid, target)
"""
)


# Patterns from the field replay that once raised false alarms: what `fit` returns is the
# fitted estimator itself, and a file the cell writes exists when the cell reads it back.
FIELD_PATTERNS = [
    RuleCase(
        "fit-then-predict-chained",
        ML,
        "pred = LinearRegression().fit(X, y).predict(X)",
        None,
    ),
    RuleCase(
        "fit-then-score-chained",
        ML,
        "score = model.fit(X, y).score(X, y)",
        None,
    ),
    RuleCase(
        "fit-then-predict-chained-wrong-width",
        ML,
        "pred = model.fit(X, y).predict(df[['Amount']])",
        "sklearn-feature-count",
        "ValueError",
    ),
    RuleCase(
        "feature-names-after-fit-in-cell",
        ML,
        "scaler = StandardScaler()\nscaler.fit(X)\nnames = scaler.get_feature_names_out()",
        None,
    ),
    RuleCase(
        "feature-names-after-fit-transform",
        ML,
        "scaler = StandardScaler()\nscaler.fit_transform(X)\nnames = scaler.get_feature_names_out()",
        None,
    ),
    RuleCase(
        "csv-written-then-read",
        FRAME,
        "df.to_csv('roundtrip.csv', index=False)\nback = pd.read_csv('roundtrip.csv')",
        None,
    ),
    RuleCase(
        "text-written-then-read",
        FRAME,
        "with open('notes.txt', 'w') as f:\n    f.write('x')\ntext = open('notes.txt').read()",
        None,
    ),
    RuleCase(
        "npy-written-then-read",
        FRAME,
        "np.save('arr.npy', np.zeros(3))\nback = np.load('arr.npy')",
        None,
    ),
    RuleCase(
        "folder-made-then-read",
        FRAME,
        "import os\nos.makedirs('out', exist_ok=True)\ndf.to_csv('out/x.csv')\nback = pd.read_csv('out/x.csv')",
        None,
    ),
    RuleCase(
        "read-missing-after-pure-work",
        FRAME,
        "top = df.head()\nn = len(df)\nback = pd.read_csv('never-written.csv')",
        "python-file-not-found",
        "FileNotFoundError",
        3,
    ),
]

CLOSURE = (
    FRAME
    + """
def make_scaler(k):
    def scale(frame):
        return frame['Amount'] * k
    return scale

scale2 = make_scaler(2)
"""
)

CASES += [
    RuleCase("closure-not-walked", CLOSURE, "out = scale2(df)\nout.sum()", None),
    RuleCase(
        "nested-cell-function",
        FRAME,
        "def outer(k):\n    def inner(v):\n        return v * k\n    return inner(3)\n\nouter(2)",
        None,
    ),
    # the field replay's second round: five patterns that raised false alarms
    RuleCase(
        "frame-eval-with-local-name-inplace",
        FRAME + "limit = 9",
        "df.eval('Big = Amount > @limit', inplace=True)\nbig = df['Big']",
        None,
    ),
    RuleCase(
        "frame-query-with-local-name",
        FRAME + "limit = 9",
        "small = df.query('Amount < @limit')\nsmall['Amount']",
        None,
    ),
    RuleCase(
        "row-added-by-loc-then-dropped",
        FRAME,
        "df.loc[9] = [1.0, 0, 'Oslo', '$1']\ndf = df.drop(9)",
        None,
    ),
    RuleCase(
        "cell-set-by-loc-adds-row-then-dropped",
        FRAME,
        "df.loc[9, 'Amount'] = 1.0\nrest = df.drop(9)",
        None,
    ),
    RuleCase(
        "row-never-added-then-dropped",
        FRAME,
        "df.loc[2, 'Amount'] = 1.0\nrest = df.drop(9)",
        None,  # the frame changed through .loc: not judged, though it raises
        "KeyError",
        2,
    ),
    RuleCase(
        "drop-missing-row",
        FRAME,
        "rest = df.drop(9)",
        "pandas-missing-label",
        "KeyError",
    ),
    RuleCase(
        "fitted-pipeline-predicts",
        ML
        + "from sklearn.pipeline import make_pipeline\n"
        + "pipe = make_pipeline(StandardScaler(), LinearRegression()).fit(X, y)",
        "pred = pipe.predict(X)",
        None,
    ),
    RuleCase(
        "fitted-search-over-pipeline-predicts",
        ML
        + "from sklearn.pipeline import make_pipeline\nfrom sklearn.model_selection import GridSearchCV\n"
        + "search = GridSearchCV(make_pipeline(StandardScaler(), LinearRegression()),"
        + " {'linearregression__fit_intercept': [True, False]}, cv=2).fit(X, y)",
        "pred = search.predict(X)\nbest = search.best_estimator_.predict(X)",
        None,
    ),
    RuleCase(
        "unfitted-pipeline-predicts",
        ML
        + "from sklearn.pipeline import make_pipeline\n"
        + "pipe = make_pipeline(StandardScaler(), LinearRegression())",
        "pred = pipe.predict(X)",
        "sklearn-not-fitted",
        "NotFittedError",
    ),
    RuleCase(
        "grad-after-backward-in-cell",
        TORCH,
        "(weights * 2).sum().backward()\nweights.grad.zero_()",
        None,
    ),
    RuleCase(
        "grad-step-after-backward-in-cell",
        TORCH,
        "loss = (weights * 2).sum()\nloss.backward()\nwith torch.no_grad():\n    weights -= 0.1 * weights.grad",
        None,
    ),
    RuleCase(
        "grad-after-backward-in-setup",
        TORCH + "(weights * 3).sum().backward()",
        "step = weights.grad * 2",
        None,
    ),
    RuleCase(
        "layer-weight-times-live-tensor",
        TORCH + "norm = nn.LayerNorm([10])",
        "out = norm.weight * (batch - batch.mean()) + norm.bias",
        None,
    ),
    # composites (Pipeline, ColumnTransformer, FeatureUnion of scikit-learn's own parts) are
    # dry-run like one estimator
    RuleCase(
        "pipeline-predicts-one-column-short",
        COMPOSED,
        "row = np.array([[1, 0.5]])\nprice = priced.predict(row)",
        "sklearn-value-error",
        "ValueError",
        2,
    ),
    RuleCase(
        "pipeline-predicts-full-row",
        COMPOSED,
        "row = np.array([[1, 0.5, 3.0]])\nprice = priced.predict(row)",
        None,
    ),
    RuleCase(
        "pipeline-classifier-on-continuous-target",
        COMPOSED,
        "clf = Pipeline([('scale', StandardScaler()), ('rf', RandomForestClassifier(n_estimators=5))])\nclf.fit(grid, target)",
        "sklearn-value-error",
        "ValueError",
        2,
    ),
    RuleCase(
        "pipeline-classifier-on-labels",
        COMPOSED,
        "clf = Pipeline([('scale', StandardScaler()), ('rf', RandomForestClassifier(n_estimators=5))], verbose=False)\nclf.fit(grid, (target > 5).astype(int))",
        None,
    ),
]

CASES += FIELD_PATTERNS

# Small local files are read for real during the walk (crane_server.probe.rules.pandas).
SALES_FILE = FRAME + "df.to_csv('sales.csv', index=False)\ndf.to_csv('sales_semi.csv', sep=';')\n"
CASES += [
    RuleCase(
        "small-csv-missing-column",
        SALES_FILE,
        "sales = pd.read_csv('sales.csv')\ntotal = sales['Amnt'].sum()",
        "pandas-missing-column",
        "KeyError",
        2,
    ),
    RuleCase(
        "small-csv-column-ok",
        SALES_FILE,
        "sales = pd.read_csv('sales.csv')\ntotal = sales['Amount'].sum()",
        None,
    ),
    RuleCase(
        "small-csv-wrong-separator",
        SALES_FILE,
        "sales = pd.read_csv('sales_semi.csv')\nsales['Amount'].mean()",
        "pandas-missing-column",
        "KeyError",
        2,
    ),
    RuleCase(
        "small-csv-right-separator",
        SALES_FILE,
        "sales = pd.read_csv('sales_semi.csv', sep=';')\nsales['Amount'].mean()",
        None,
    ),
    RuleCase(
        "small-csv-usecols-left-out",
        SALES_FILE,
        "part = pd.read_csv('sales.csv', usecols=['City', 'Amount'])\npart.groupby('Class').size()",
        "pandas-missing-column",
        "KeyError",
        2,
    ),
    RuleCase(
        "small-csv-dtype-given",
        SALES_FILE,
        "sales = pd.read_csv('sales.csv', dtype={'Class': str})\nsales['Class'].str.upper()",
        None,
    ),
    RuleCase(
        "small-csv-index-col",
        SALES_FILE,
        "sales = pd.read_csv('sales.csv', index_col='City')\nsales.loc['Oslo', 'Amount']",
        None,
    ),
    RuleCase(
        "small-csv-written-in-cell-then-read",
        SALES_FILE,
        "df[['City']].to_csv('sales.csv', index=False)\nback = pd.read_csv('sales.csv')\nback['City']",
        None,
    ),
]

# pandas 3: `.values` and `.unique()` of text columns and labels are StringArrays, not ndarrays.
PLOTS = FRAME + "import matplotlib.pyplot as plt\n"
CASES += [
    RuleCase(
        "string-array-loop-past-axes",
        PLOTS,
        "fig, ax = plt.subplots(2, 1)\nfor i, col in enumerate(df.columns.values):\n    ax[i].set_title(col)",
        "numpy-index-out-of-bounds",
        "IndexError",
        3,
    ),
    RuleCase(
        "string-array-loop-within-axes",
        PLOTS,
        "fig, ax = plt.subplots(4, 1)\nfor i, col in enumerate(list(df.columns.values)):\n    ax[i].set_title(col)",
        None,
    ),
    RuleCase(
        "string-array-loop-missing-column",
        FRAME,
        "sub = df[['Amount', 'Class']]\nfor col in df.columns.values:\n    sub[col].describe()",
        "pandas-missing-column",
        "KeyError",
        3,
    ),
    RuleCase(
        "string-array-loop-columns-present",
        FRAME,
        "sub = df[['Amount', 'City']]\nfor col in df[['City']].columns.values:\n    sub[col].describe()",
        None,
    ),
]

# Dropout and batch norm inside a model: run on shadows (dropout as in evaluation mode).
NORM_NET = """
import torch
from torch import nn
torch.manual_seed(0)
x = torch.rand(8, 10)
one = torch.rand(1, 10)
images = torch.rand(4, 3, 8, 8)

class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(10, 16), nn.BatchNorm1d(16), nn.ReLU(), nn.Dropout(0.3))
        self.head = nn.Linear(16, 2)

    def forward(self, x):
        return self.head(self.body(x))

class ConvNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 6, 3, padding=1)
        self.bn = nn.BatchNorm2d(6)
        self.drop = nn.Dropout2d(0.2)
        self.fc = nn.Linear(6 * 8 * 8, 3)

    def forward(self, x):
        x = self.drop(torch.relu(self.bn(self.conv(x))))
        return self.fc(x.flatten(1))

net = Net()
conv = ConvNet()
wrong = nn.Linear(32, 2)
"""
CASES += [
    RuleCase(
        "dropout-batchnorm-then-wrong-width",
        NORM_NET,
        "hidden = net.body(x)\nout = wrong(hidden)",
        "torch-shape-mismatch",
        "RuntimeError",
        2,
    ),
    RuleCase("dropout-batchnorm-forward-ok", NORM_NET, "out = net(x)\nout.sum()", None),
    RuleCase(
        "batchnorm-one-sample-in-training",
        NORM_NET,
        "pred = net(one)",
        "torch-shape-mismatch",
        "ValueError",
    ),
    RuleCase("batchnorm-one-sample-in-eval", NORM_NET, "net.eval()\npred = net(one)", None),
    RuleCase(
        "batchnorm-channels",
        NORM_NET,
        "nn.BatchNorm2d(4)(images)",
        "torch-shape-mismatch",
        "RuntimeError",
    ),
    RuleCase(
        "conv-batchnorm-dropout-then-loss",
        NORM_NET,
        "logits = conv(images)\nloss = nn.CrossEntropyLoss()(logits, torch.zeros(5, dtype=torch.long))",
        "torch-loss-input",
        "ValueError",
        2,
    ),
    RuleCase(
        "conv-batchnorm-dropout-loss-ok",
        NORM_NET,
        "logits = conv(images)\nloss = nn.CrossEntropyLoss()(logits, torch.zeros(4, dtype=torch.long))",
        None,
    ),
]

# Device moves keep shapes: the walk follows `.to(device)`/`.cpu()` without moving anything.
DEVICE = TORCH + "device = torch.device('cuda' if torch.cuda.is_available() else 'cpu')\n"
CASES += [
    RuleCase(
        "module-to-device-then-wrong-width",
        DEVICE,
        "model = layer.to(device)\nout = model(wide.to(device))",
        "torch-shape-mismatch",
        "RuntimeError",
        2,
    ),
    RuleCase(
        "module-to-device-right-width",
        DEVICE,
        "model = layer.to(device)\nout = model(batch.to(device))",
        None,
    ),
    RuleCase(
        "tensor-to-double-then-linear",
        DEVICE,
        "xb = batch.to(device, torch.float64)\nout = layer(xb)",
        "torch-dtype-mismatch",
        "RuntimeError",
        2,
    ),
    RuleCase(
        "tensor-cpu-then-index",
        DEVICE,
        "rows = batch.cpu()\nrows[4]",
        "torch-index-out-of-range",
        "IndexError",
        2,
    ),
]

# Relabelling: `frame.columns = names` and `frame.index = labels` must match the length.
CASES += [
    RuleCase(
        "columns-wrong-count",
        FRAME,
        "df.columns = ['amount', 'cls', 'city']",
        "pandas-value-error",
        "ValueError",
    ),
    RuleCase("columns-right-count", FRAME, "df.columns = ['amount', 'cls', 'city', 'price']", None),
    RuleCase(
        "columns-of-empty-frame",
        FRAME,
        "book = pd.DataFrame()\nbook.columns = ['a', 'b']",
        "pandas-value-error",
        "ValueError",
        2,
    ),
    RuleCase(
        "columns-renamed-then-old-name",
        FRAME,
        "df.columns = ['amount', 'cls', 'city', 'price']\ndf['Amount'].sum()",
        "pandas-missing-column",
        "KeyError",
        2,
    ),
    RuleCase(
        "columns-renamed-then-new-name",
        FRAME,
        "df.columns = ['amount', 'cls', 'city', 'price']\ndf['amount'].sum()",
        None,
    ),
    RuleCase(
        "index-wrong-length",
        FRAME,
        "df.index = ['a', 'b', 'c']",
        "pandas-value-error",
        "ValueError",
    ),
    RuleCase("index-right-length", FRAME, "df.index = ['a', 'b', 'c', 'd']\ndf.loc['d']", None),
]

# Plot data lengths: a scalar x is one point; scatter colours; hist of all-NaN data.
CASES += [
    RuleCase(
        "plot-scalar-against-array",
        PLOT,
        "steps = 20\nplt.plot(steps, np.arange(10.0))",
        "matplotlib-xy-length",
        "ValueError",
        2,
    ),
    RuleCase("plot-scalar-against-scalar", PLOT, "plt.plot(3, 4, 'o')", None),
    RuleCase(
        "scatter-colours-one-too-many",
        PLOT,
        "fig, ax = plt.subplots()\nax.scatter(np.arange(10), np.arange(10), c=np.arange(11))",
        "matplotlib-xy-length",
        "ValueError",
        2,
    ),
    RuleCase(
        "scatter-colours-one-each",
        PLOT,
        "fig, ax = plt.subplots()\nax.scatter(np.arange(10), np.arange(10), c=np.arange(10))",
        None,
    ),
    RuleCase(
        "scatter-colour-names-short",
        PLOT,
        "plt.scatter([1, 2, 3, 4, 5], [5, 4, 3, 2, 1], c=['red', 'blue'])",
        "matplotlib-xy-length",
        "ValueError",
    ),
    RuleCase(
        "hist-all-nan",
        PLOT,
        "temps = pd.to_numeric(df['City'], errors='coerce')\nplt.hist(temps, bins=10)",
        "matplotlib-value-error",
        "ValueError",
        2,
    ),
    RuleCase(
        "hist-some-nan", PLOT, "plt.hist(df['Amount'].where(df['Class'] == 1), bins=10)", None
    ),
    RuleCase(
        "hist-all-nan-with-range",
        PLOT,
        "temps = pd.to_numeric(df['City'], errors='coerce')\nplt.hist(temps, bins=10, range=(0, 1))",
        None,
    ),
]

# A method chain over several lines: Python 3.11+ reports the line of the failing method.
CASES += [
    RuleCase(
        "chain-over-lines-reports-method-line",
        FRAME,
        "means = (\n    df.assign(Total=df['Amount'] * 2)\n    .groupby('Class')\n    .mean()\n)",
        "pandas-type-error",
        "TypeError",
        4,
    ),
]

# Several columns at once; labels nested one list too deep; `.str` methods on a shadow.
NAMES = FRAME + "people = pd.DataFrame({'name': ['Ada King Byron', 'Alan Turing']})\n"
CASES += [
    RuleCase(
        "split-expand-more-parts-than-names",
        NAMES,
        "people[['first', 'last']] = people['name'].str.split(' ', expand=True)",
        "pandas-value-error",
        "ValueError",
    ),
    RuleCase(
        "split-expand-as-many-names",
        NAMES,
        "people[['first', 'middle', 'last']] = people['name'].str.split(' ', expand=True)",
        None,
    ),
    RuleCase(
        "split-expand-n-limited",
        NAMES,
        "people[['first', 'rest']] = people['name'].str.split(' ', n=1, expand=True)\npeople['rest']",
        None,
    ),
    RuleCase(
        "str-method-result-missing-column",
        NAMES,
        "parts = people['name'].str.split(' ', expand=True)\nparts['first']",
        "pandas-missing-column",
        "KeyError",
        2,
    ),
    RuleCase(
        "drop-columns-list-in-list",
        FRAME,
        "unused = ['Price', 'City']\ndf.drop(columns=[unused], inplace=True)",
        "pandas-missing-column",
        "KeyError",
        2,
    ),
    RuleCase(
        "drop-columns-list",
        FRAME,
        "unused = ['Price', 'City']\ndf.drop(columns=unused, inplace=True)\ndf['Amount']",
        None,
    ),
]

# `a or b` / `a and b`: an operand after ones with known, undeciding truth values runs for sure.
ARRAYS = (
    FRAME + "boxes = np.ones((5, 3))\nfeatures = np.ones((4, 512))\nnone_yet = np.ones((0, 3))\n"
)
CASES += [
    RuleCase(
        "or-guard-then-matmul",
        ARRAYS,
        "cost = None if (boxes.shape[0] == 0 or features.shape[0] == 0) else boxes @ features.T",
        "numpy-value-error",
        "ValueError",
    ),
    RuleCase(
        "or-guard-skips-empty",
        ARRAYS,
        "cost = None if (none_yet.shape[0] == 0 or features.shape[0] == 0) else none_yet @ features.T",
        None,
    ),
    RuleCase(
        "and-second-operand-runs",
        ARRAYS,
        "ok = boxes.shape[0] > 0 and features.shape[2] > 0",
        "python-index-out-of-range",
        "IndexError",
    ),
    RuleCase(
        "and-second-operand-skipped",
        ARRAYS,
        "ok = none_yet.shape[0] > 0 and features.shape[2] > 0",
        None,
    ),
]

# scikit-learn's own checks inside fit/predict/transform, asked of a clone on the cell's data.
SK = """
import numpy as np
import pandas as pd
from sklearn.linear_model import LogisticRegression, LinearRegression
from sklearn.neighbors import KNeighborsClassifier
from sklearn.preprocessing import LabelEncoder, StandardScaler
from sklearn.decomposition import PCA
from sklearn.ensemble import RandomForestClassifier
from sklearn.svm import SVC
rng = np.random.RandomState(0)
X = rng.rand(30, 4)
y = np.array([0, 1, 2] * 10)
few = X[:6]
labels = LabelEncoder().fit(['cat', 'dog'])
forest = RandomForestClassifier(n_estimators=5, random_state=0).fit(X, y)
scaler = StandardScaler().fit(X)
"""
CASES += [
    RuleCase(
        "fit-penalty-solver",
        SK,
        "clf = LogisticRegression(penalty='l1')\nclf.fit(X, y)",
        "sklearn-value-error",
        "ValueError",
        2,
    ),
    RuleCase(
        "fit-penalty-solver-ok",
        SK,
        "clf = LogisticRegression(penalty='l1', solver='saga')\nclf.fit(X, y)",
        None,
    ),
    RuleCase(
        "fit-pca-too-many-components",
        SK,
        "pca = PCA(n_components=6).fit(X)",
        "sklearn-value-error",
        "ValueError",
    ),
    RuleCase("fit-pca-components-ok", SK, "pca = PCA(n_components=3).fit(X)", None),
    RuleCase(
        "fit-1d-x",
        SK,
        "SVC().fit(X[:, 0], y)",
        "sklearn-value-error",
        "ValueError",
    ),
    RuleCase(
        "predict-fewer-samples-than-neighbours",
        SK,
        "knn = KNeighborsClassifier(n_neighbors=10).fit(few, y[:6])\nknn.predict(few)",
        "sklearn-value-error",
        "ValueError",
        2,
    ),
    RuleCase(
        "predict-neighbours-ok",
        SK,
        "knn = KNeighborsClassifier(n_neighbors=5).fit(few, y[:6])\nknn.predict(few)",
        None,
    ),
    RuleCase(
        "predict-one-row-as-1d",
        SK,
        "reg = LinearRegression().fit(X, y)\nreg.predict(X[0])",
        "sklearn-value-error",
        "ValueError",
        2,
    ),
    RuleCase(
        "predict-one-row-as-2d",
        SK,
        "reg = LinearRegression().fit(X, y)\nreg.predict(X[0].reshape(1, -1))",
        None,
    ),
    RuleCase(
        "label-encoder-unseen",
        SK,
        "labels.transform(['cat', 'bird'])",
        "sklearn-value-error",
        "ValueError",
    ),
    RuleCase("label-encoder-seen", SK, "labels.transform(['cat', 'dog'])", None),
    RuleCase(
        "fitted-forest-probabilities-columns",
        SK,
        "proba = forest.predict_proba(X)\nproba[:, 3]",
        "numpy-index-out-of-range",
        "IndexError",
        2,
    ),
    RuleCase(
        "fitted-forest-probabilities-ok",
        SK,
        "proba = forest.predict_proba(X)\nproba[:, 2]",
        None,
    ),
    RuleCase(
        "many-trees-and-jobs-fit-ok",
        SK,
        "big = RandomForestClassifier(n_estimators=300, n_jobs=-1).fit(X, y)\nbig.predict(X)",
        None,
    ),
]

# Item assignment into arrays, followed on the walk's own copy.
ITEMS = FRAME + "grid = np.zeros((3, 4))\ncounts = np.arange(5)\npatches = np.zeros((2, 3, 3))\n"
CASES += [
    RuleCase(
        "array-set-row-too-long",
        ITEMS,
        "grid[0] = np.ones(5)",
        "numpy-value-error",
        "ValueError",
    ),
    RuleCase("array-set-row", ITEMS, "grid[0] = np.ones(4)", None),
    RuleCase(
        "array-set-nan-into-integers",
        ITEMS,
        "counts[0] = np.nan",
        "numpy-value-error",
        "ValueError",
    ),
    RuleCase("array-set-nan-into-floats", ITEMS, "grid[0, 0] = np.nan", None),
    RuleCase(
        "array-set-past-buffer",
        ITEMS,
        "for k in range(3):\n    patches[k] = np.ones((3, 3))",
        "numpy-index-out-of-bounds",
        "IndexError",
        2,
    ),
    RuleCase(
        "array-set-within-buffer",
        ITEMS,
        "for k in range(2):\n    patches[k] = np.ones((3, 3))",
        None,
    ),
]

# Loaders: enumerate(loader, 1) and next(iter(loader)) give the first batch; arrays into layers.
CASES += [
    RuleCase(
        "loader-enumerate-from-one",
        LOADER,
        "for step, (x, y) in enumerate(loader, 1):\n    out = net(x)\n    loss = loss_fn(out, y)",
        "torch-loss-input",
        "ValueError",
        3,
    ),
    RuleCase(
        "loader-next-iter",
        LOADER,
        "x, y = next(iter(loader))\nout = net(x)\nloss = loss_fn(out, y)",
        "torch-loss-input",
        "ValueError",
        3,
    ),
    RuleCase(
        "loader-next-iter-ok",
        LOADER,
        "x, y = next(iter(loader))\nout = net(x)\nloss = loss_fn(out.squeeze(1), y.float())",
        None,
    ),
    RuleCase(
        "array-into-layer",
        LOADER,
        "import numpy as np\nfeatures = np.ones((2, 256), dtype=np.float32)\nout = net.fc(features)",
        "torch-type-error",
        "TypeError",
        3,
    ),
    RuleCase(
        "array-converted-into-layer",
        LOADER,
        "import numpy as np\nfeatures = np.ones((2, 256), dtype=np.float32)\nout = net.fc(torch.from_numpy(features))",
        None,
    ),
]

# scikit-learn's validate_params wrapper binds the wrapped function's own signature.
CASES += [
    RuleCase(
        "sklearn-removed-keyword",
        SK,
        "from sklearn.metrics import mean_squared_error\nrmse = mean_squared_error(y, y, squared=False)",
        "python-call-signature",
        "TypeError",
        2,
    ),
    RuleCase(
        "sklearn-keyword-ok",
        SK,
        "from sklearn.metrics import mean_squared_error\nmse = mean_squared_error(y, y)",
        None,
    ),
    RuleCase(
        "split-misspelled-keyword",
        SK,
        "from sklearn.model_selection import train_test_split\nparts = train_test_split(X, y, test_sz=0.2)",
        "python-call-signature",
        "TypeError",
        2,
    ),
    RuleCase(
        "split-keyword-ok",
        SK,
        "from sklearn.model_selection import train_test_split\nparts = train_test_split(X, y, test_size=0.2)",
        None,
    ),
]

# Keywords matplotlib hands to its artists, asked of a scratch Axes.
CASES += [
    RuleCase(
        "plot-misspelled-property",
        PLOT,
        "plt.plot(df['Amount'], df['Class'], colour='red')",
        "matplotlib-unknown-property",
        "AttributeError",
    ),
    RuleCase(
        "plot-properties-and-aliases",
        PLOT,
        "plt.plot(df['Amount'], df['Class'], color='red', lw=2, ls='--', label='amount')",
        None,
    ),
    RuleCase(
        "axes-label-misspelled-property",
        PLOT,
        "fig, ax = plt.subplots()\nax.set_xlabel('amount', colour='grey')",
        "matplotlib-unknown-property",
        "AttributeError",
        2,
    ),
    RuleCase(
        "hist-bin-for-bins",
        PLOT,
        "plt.hist(df['Amount'], bin=3)",
        "matplotlib-unknown-property",
        "AttributeError",
    ),
    RuleCase("hist-bins", PLOT, "plt.hist(df['Amount'], bins=3, alpha=0.5)", None),
]

# Lists, dicts and sets the cell fills: followed in place on the walk's own containers.
CASES += [
    RuleCase(
        "list-appended-in-loop-then-past-end",
        FRAME,
        "scores = []\nfor city in ['Oslo', 'Rome']:\n    scores.append(len(city))\nbest = scores[2]",
        "python-index-out-of-range",
        "IndexError",
        4,
    ),
    RuleCase(
        "list-appended-in-loop",
        FRAME,
        "scores = []\nfor city in ['Oslo', 'Rome']:\n    scores.append(len(city))\nbest = scores[1]",
        None,
    ),
    RuleCase(
        "dict-filled-in-loop-then-other-key",
        FRAME,
        "totals = {}\nfor col in ['Amount', 'Class']:\n    totals[col] = df[col].sum()\ntotals['City']",
        "python-missing-key",
        "KeyError",
        4,
    ),
    RuleCase(
        "dict-filled-in-loop",
        FRAME,
        "totals = {}\nfor col in ['Amount', 'Class']:\n    totals[col] = df[col].sum()\ntotals['Class']",
        None,
    ),
    RuleCase(
        "frames-collected-then-missing-column",
        FRAME,
        "parts = []\nfor k in range(2):\n    parts.append(df[['Amount', 'City']])\nboth = pd.concat(parts)\nboth['Class']",
        "pandas-missing-column",
        "KeyError",
        5,
    ),
    RuleCase(
        "pop-from-empty-list",
        FRAME,
        "queue = []\nqueue.pop()",
        "python-index-out-of-range",
        "IndexError",
        2,
    ),
    RuleCase(
        "list-filled-only-maybe",
        FRAME,
        "picked = []\nif df['Amount'].sum() > 0:\n    picked.append(1)\npicked[0]",
        None,
    ),
]

# Column names given as an array or Index; df.items() and df.iterrows() walked.
CASES += [
    RuleCase(
        "array-of-names-one-missing",
        FRAME,
        "wanted = np.array(['Amount', 'Tax'])\ndf[wanted]",
        "pandas-missing-column",
        "KeyError",
        2,
    ),
    RuleCase("array-of-names", FRAME, "wanted = np.array(['Amount', 'City'])\ndf[wanted]", None),
    RuleCase(
        "items-into-narrower-frame",
        FRAME,
        "numbers = df[['Amount', 'Class']]\nfor name, col in df.items():\n    numbers[name].max()",
        "pandas-missing-column",
        "KeyError",
        3,
    ),
    RuleCase(
        "items-mean-of-text",
        FRAME,
        "for name, col in df.items():\n    print(name, col.mean())",
        "pandas-type-error",
        "TypeError",
        2,
    ),
    RuleCase(
        "items-numeric-only",
        FRAME,
        "for name, col in df.select_dtypes('number').items():\n    print(name, col.mean())",
        None,
    ),
    RuleCase(
        "iterrows-misspelled-field",
        FRAME,
        "for i, row in df.iterrows():\n    total = row['amount'] * 2",
        "pandas-missing-key",
        "KeyError",
        2,
    ),
    RuleCase(
        "iterrows-field",
        FRAME,
        "for i, row in df.iterrows():\n    total = row['Amount'] * 2",
        None,
    ),
]

CASES += [
    RuleCase(
        "multiindex-columns-on-empty-frame",
        FRAME + "pairs = pd.MultiIndex.from_tuples([('price', 'open'), ('price', 'close')])\n",
        "book = pd.DataFrame()\nbook.columns = pairs",
        "pandas-value-error",
        "ValueError",
        2,
    ),
    RuleCase(
        "multiindex-columns-same-width",
        FRAME + "pairs = pd.MultiIndex.from_tuples([('price', 'open'), ('price', 'close')])\n",
        "book = df[['Amount', 'Class']].copy()\nbook.columns = pairs\nbook[('price', 'open')]",
        None,
    ),
]

# XGBoost's and LightGBM's scikit-learn estimators, dry-run on one thread.
BOOST = FRAME + "import xgboost as xgb\nimport lightgbm as lgb\nlabels = np.array([0, 1, 0, 1])\n"
CASES += [
    RuleCase(
        "xgb-text-column",
        BOOST,
        "model = xgb.XGBClassifier(n_estimators=20)\nmodel.fit(df[['Amount', 'City']], labels)",
        "xgboost-value-error",
        "ValueError",
        2,
    ),
    RuleCase(
        "xgb-numeric-columns",
        BOOST,
        "model = xgb.XGBClassifier(n_estimators=20)\nmodel.fit(df[['Amount', 'Class']], labels)",
        None,
    ),
    RuleCase(
        "xgb-labels-not-from-zero",
        BOOST,
        "model = xgb.XGBClassifier(n_estimators=20)\nmodel.fit(df[['Amount']], labels + 1)",
        "xgboost-value-error",
        "ValueError",
        2,
    ),
    RuleCase(
        "xgb-columns-reordered-at-predict",
        BOOST,
        "model = xgb.XGBClassifier(n_estimators=20).fit(df[['Amount', 'Class']], labels)\nmodel.predict(df[['Class', 'Amount']])",
        "xgboost-value-error",
        "ValueError",
        2,
    ),
    RuleCase(
        "lgbm-text-column",
        BOOST,
        "model = lgb.LGBMClassifier(n_estimators=20, verbose=-1)\nmodel.fit(df[['Amount', 'City']], labels)",
        "lightgbm-value-error",
        "ValueError",
        2,
    ),
    RuleCase(
        "lgbm-category-column",
        BOOST,
        "model = lgb.LGBMClassifier(n_estimators=20, verbose=-1, min_child_samples=1)\nmodel.fit(df[['Amount', 'City']].astype({'City': 'category'}), labels)",
        None,
    ),
]

# Round 20: mechanisms from the field corpus's tuning split, each with a near miss.
TRAINING = (
    TORCH
    + """
class Net(nn.Module):
    def __init__(self, width=10):
        super().__init__()
        self.fc = nn.Linear(width, 3)

    def forward(self, *parts):
        return self.fc(torch.cat(parts, dim=0))

net = Net()
wide_net = Net(20)
labels = torch.tensor([0, 1, 2, 0])
loss_fn = nn.CrossEntropyLoss()
rnn = nn.GRU(10, 6, batch_first=True)
lstm = nn.LSTM(10, 6, batch_first=True)
steps = torch.ones(4, 7, 10)
state = torch.zeros(1, 4, 6)
"""
)
CASES += [
    RuleCase(
        "optimizer-over-parameters-keeps-the-model",
        TRAINING,
        "opt = torch.optim.SGD(wide_net.parameters(), lr=0.1)\nwide_net.train()\nout = wide_net(batch)",
        "torch-shape-mismatch",
        "RuntimeError",
        3,
    ),
    RuleCase(
        "optimizer-over-parameters-fits",
        TRAINING,
        "opt = torch.optim.SGD(net.parameters(), lr=0.1)\nnet.train()\nout = net(batch)\nout.shape",
        None,
    ),
    RuleCase(
        "varargs-forward-concatenates-on-batch",
        TRAINING,
        "out = net(batch, batch)\nloss = loss_fn(out, labels)",
        "torch-loss-input",
        "ValueError",
        2,
    ),
    RuleCase(
        "varargs-forward-one-part",
        TRAINING,
        "out = net(batch)\nloss = loss_fn(out, labels)",
        None,
    ),
    RuleCase(
        "gru-output-into-a-narrow-layer",
        TRAINING,
        "out, h = rnn(steps)\nlayer(out)",
        "torch-shape-mismatch",
        "RuntimeError",
        2,
    ),
    RuleCase(
        "gru-output-into-a-matching-layer",
        TRAINING,
        "out, h = rnn(steps)\nnn.Linear(6, 2)(out).shape",
        None,
    ),
    RuleCase(
        "lstm-state-of-the-wrong-size",
        TRAINING,
        "out, (h, c) = lstm(steps, (torch.zeros(1, 4, 5), torch.zeros(1, 4, 5)))",
        "torch-shape-mismatch",
        "RuntimeError",
    ),
    RuleCase(
        "lstm-state-of-the-right-size",
        TRAINING,
        "out, (h, c) = lstm(steps, (state, state))\nout.shape",
        None,
    ),
    RuleCase(
        "tensor-item-assignment-then-mm",
        TRAINING,
        "a = torch.zeros(1, 2)\na[0, 1] = 3\ntorch.mm(a, batch)",
        "torch-runtime-error",
        "RuntimeError",
        3,
    ),
    RuleCase(
        "tensor-item-assignment-out-of-range",
        TRAINING,
        "a = torch.zeros(3)\na[5] = 1",
        "torch-index-error",
        "IndexError",
        2,
    ),
    RuleCase(
        "tensor-item-assignment-fits",
        TRAINING,
        "a = torch.zeros(4, 10)\na[0, 1] = 3\ntorch.mm(a, batch.T).shape",
        None,
    ),
]
GRAD_PLOT = (
    TORCH
    + """
import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt
history = [(weights * i).sum() for i in range(5)]
numbers = [float(h.item()) for h in history]
"""
)
CASES += [
    RuleCase(
        "plot-loss-tensors-that-require-grad",
        GRAD_PLOT,
        "plt.figure()\nplt.plot(range(len(history)), history)",
        "matplotlib-tensor-requires-grad",
        "RuntimeError",
        2,
    ),
    RuleCase(
        "axes-plot-of-a-grad-tensor",
        GRAD_PLOT,
        "fig, ax = plt.subplots()\nax.plot(weights * 2)",
        "matplotlib-tensor-requires-grad",
        "RuntimeError",
        2,
    ),
    RuleCase("plot-loss-numbers", GRAD_PLOT, "plt.figure()\nplt.plot(numbers)", None),
    RuleCase("plot-detached-tensor", GRAD_PLOT, "plt.figure()\nplt.plot(weights.detach())", None),
]
SEEDED = (
    FRAME
    + """
rng = np.random.default_rng(3)
signal = np.linspace(0, 1, 100)
"""
)
CASES += [
    RuleCase(
        "seeded-choice-without-replacement-too-large",
        SEEDED,
        "picks = rng.choice(5, 10, replace=False)",
        "numpy-random-error",
        "ValueError",
    ),
    RuleCase("seeded-choice-with-replacement", SEEDED, "picks = rng.choice(5, 10)", None),
    RuleCase(
        "fresh-seeded-draws-of-the-wrong-shape",
        SEEDED,
        "g = np.random.default_rng(0)\nw = g.normal(size=(3, 4))\nx = g.normal(size=(3, 4))\nw @ x",
        "numpy-value-error",
        "ValueError",
        4,
    ),
    RuleCase(
        "fresh-seeded-draws-of-the-right-shape",
        SEEDED,
        "g = np.random.default_rng(0)\nw = g.normal(size=(3, 4))\nx = g.normal(size=(4, 2))\n(w @ x).shape",
        None,
    ),
    RuleCase(
        "seeded-windows-stacked-and-indexed",
        SEEDED,
        "starts = np.random.RandomState(1).randint(0, 80, 4)\n"
        "w = np.stack([signal[s:s + 20] for s in starts])\nw[:, 20]",
        "numpy-index-out-of-range",
        "IndexError",
        3,
    ),
    RuleCase(
        "seeded-windows-indexed-in-range",
        SEEDED,
        "starts = np.random.RandomState(1).randint(0, 80, 4)\n"
        "w = np.stack([signal[s:s + 20] for s in starts])\nw[:, 19]",
        None,
    ),
]
STATS = (
    FRAME
    + """
import statsmodels.api as sm
from statsmodels.tsa.stattools import adfuller
resid = np.linspace(-1, 1, 30)
walk = pd.Series(np.cumsum(np.sin(np.arange(60.0))), index=pd.date_range("2024-01-01", periods=60))
gappy = walk.copy()
gappy.iloc[[3, 20]] = np.nan
"""
)
CASES += [
    RuleCase(
        "ols-endog-and-exog-of-different-lengths",
        STATS,
        "fit = sm.OLS(resid[1:], resid[:1]).fit()",
        "statsmodels-value-error",
        "ValueError",
    ),
    RuleCase("ols-lagged-residuals", STATS, "fit = sm.OLS(resid[1:], resid[:-1]).fit()", None),
    RuleCase(
        "adfuller-on-a-series-with-gaps",
        STATS,
        "result = adfuller(gappy, autolag='AIC')",
        "statsmodels-missing-data-error",
        "MissingDataError",
    ),
    RuleCase(
        "adfuller-after-dropna", STATS, "result = adfuller(gappy.dropna(), autolag='AIC')", None
    ),
]
CASES += [
    RuleCase(
        "lightgbm-booster-predict-on-an-empty-frame",
        BOOST + "booster = lgb.train({'objective': 'regression', 'verbose': -1, 'num_threads': 1}, "
        "lgb.Dataset(df[['Amount', 'Class']], labels.astype(float)), 3)\n",
        "rows = df[df['Class'] == 7]\nbooster.predict(rows[['Amount', 'Class']])",
        "lightgbm-empty-data",
        "ValueError",
        2,
    ),
    RuleCase(
        "lightgbm-booster-predict-on-rows",
        BOOST + "booster = lgb.train({'objective': 'regression', 'verbose': -1, 'num_threads': 1}, "
        "lgb.Dataset(df[['Amount', 'Class']], labels.astype(float)), 3)\n",
        "rows = df[df['Class'] == 1]\nbooster.predict(rows[['Amount', 'Class']])",
        None,
    ),
]

# DataLoaders over a user Dataset: __len__ and __getitem__(0) are walked, the batch is that
# item stacked; a crash inside __getitem__ counts only when index 0 is read first.
USER_DATA = (
    TORCH
    + """
from torch.utils.data import DataLoader, Dataset

class Pairs(Dataset):
    def __init__(self, features, labels):
        self.features = features
        self.labels = labels

    def __len__(self):
        return len(self.features)

    def __getitem__(self, index):
        return self.features[index].float(), self.labels[index]

class Broken(Pairs):
    def __getitem__(self, index):
        return self.features[index][20], self.labels[index]

features = torch.ones(20, 10)
onehot = torch.eye(3)[torch.arange(20) % 3]
classes = torch.arange(20) % 3
onehot_loader = DataLoader(Pairs(features, onehot.long()), batch_size=4, shuffle=True)
class_loader = DataLoader(Pairs(features, classes), batch_size=4, shuffle=True)
wide_loader = DataLoader(Pairs(torch.ones(20, 12), classes), batch_size=4)
broken_in_order = DataLoader(Broken(features, classes), batch_size=4)
broken_shuffled = DataLoader(Broken(features, classes), batch_size=4, shuffle=True)
loss_fn = nn.CrossEntropyLoss()
"""
)
CASES += [
    RuleCase(
        "user-dataset-one-hot-long-labels-into-cross-entropy",
        USER_DATA,
        "for x, y in onehot_loader:\n    loss = loss_fn(layer(x), y)",
        "torch-loss-input",
        "RuntimeError",
        2,
    ),
    RuleCase(
        "user-dataset-class-labels-into-cross-entropy",
        USER_DATA,
        "for x, y in class_loader:\n    loss = loss_fn(layer(x), y)\n    loss.backward()",
        None,
    ),
    RuleCase(
        "user-dataset-items-wider-than-the-layer",
        USER_DATA,
        "x, y = next(iter(wide_loader))\nlayer(x)",
        "torch-shape-mismatch",
        "RuntimeError",
        2,
    ),
    RuleCase(
        "user-dataset-getitem-crash-read-first",
        USER_DATA,
        "for x, y in broken_in_order:\n    layer(x)",
        "torch-index-out-of-range",
        "IndexError",
        1,
    ),
    RuleCase(
        "user-dataset-getitem-crash-shuffled-not-claimed-but-run-crashes-the-same",
        USER_DATA,
        "batches = 0\nfor x, y in broken_shuffled:\n    batches += 1",
        None,
        "IndexError",
    ),
]

# A user function or lambda handed to apply/map is walked on the first value pandas passes.
APPLY = (
    FRAME
    + """
df["When"] = pd.to_datetime(["2024-01-01", "2024-02-01", "2024-03-01", "2024-04-01"])
def amount_of(row):
    return row["Amount"] * 2
"""
)
CASES += [
    RuleCase(
        "apply-row-function-without-axis-1",
        APPLY,
        "doubled = df.apply(lambda row: row['Amount'] * 2)",
        "pandas-missing-key",
        "KeyError",
    ),
    RuleCase(
        "apply-row-function-with-axis-1",
        APPLY,
        "doubled = df.apply(lambda row: row['Amount'] * 2, axis=1)\ndoubled.sum()",
        None,
    ),
    RuleCase(
        "apply-named-row-function-without-axis",
        APPLY,
        "doubled = df.apply(amount_of)",
        "pandas-missing-key",
        "KeyError",
    ),
    RuleCase(
        "map-text-method-on-numbers",
        APPLY,
        "df['Amount'].map(lambda x: x.lower())",
        "python-missing-attribute",
        "AttributeError",
    ),
    RuleCase(
        "map-text-method-on-text",
        APPLY,
        "df['City'].map(lambda x: x.lower())",
        None,
    ),
    RuleCase(
        "apply-on-timestamps",
        APPLY,
        "months = df['When'].apply(lambda d: d.month)\nmonths.sum()",
        None,
    ),
    RuleCase(
        "apply-adds-a-number-to-text",
        APPLY,
        "df['City'].apply(lambda x: x + 1)",
        "python-type-error",
        "TypeError",
    ),
]

# A write into a folder that does not exist: each writer's own error.
WRITERS = (
    FRAME
    + """
import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt
import os
import torch
import joblib
"""
)
CASES += [
    RuleCase(
        "open-for-writing-in-a-missing-folder",
        WRITERS,
        "with open('results/summary.txt', 'w') as out:\n    out.write('done')",
        "python-missing-folder",
        "FileNotFoundError",
    ),
    RuleCase(
        "savefig-into-a-missing-folder",
        WRITERS,
        "plt.plot([1, 2])\nplt.savefig('figures/trend.png')",
        "python-missing-folder",
        "FileNotFoundError",
        2,
    ),
    RuleCase(
        "figure-savefig-into-a-missing-folder",
        WRITERS,
        "fig, ax = plt.subplots()\nax.plot([1, 2])\nfig.savefig('figures/trend.png')",
        "python-missing-folder",
        "FileNotFoundError",
        3,
    ),
    RuleCase(
        "to-csv-into-a-missing-folder",
        WRITERS,
        "df.to_csv('output/submission.csv', index=False)",
        "python-missing-folder",
        "OSError",
    ),
    RuleCase(
        "np-save-into-a-missing-folder",
        WRITERS,
        "np.save('arrays/amounts.npy', np.zeros(3))",
        "python-missing-folder",
        "FileNotFoundError",
    ),
    RuleCase(
        "torch-save-into-a-missing-folder",
        WRITERS,
        "torch.save({'w': torch.ones(2)}, 'checkpoints/model.pt')",
        "python-missing-folder",
        "RuntimeError",
    ),
    RuleCase(
        "joblib-dump-into-a-missing-folder",
        WRITERS,
        "joblib.dump({'w': 1}, 'models/model.joblib')",
        "python-missing-folder",
        "FileNotFoundError",
    ),
    RuleCase(
        "folder-made-first",
        WRITERS,
        "os.makedirs('output', exist_ok=True)\ndf.to_csv('output/submission.csv', index=False)",
        None,
    ),
    RuleCase("write-in-the-working-folder", WRITERS, "df.to_csv('submission.csv')", None),
]

# tqdm: a bar over a value iterates that value; the Jupyter bar (tqdm.notebook) cannot be built
# where ipywidgets is missing (tqdm.auto falls back to the text bar). Which of the two the real
# run shows depends on the environment, so the expectation is read from it.
WIDGETS = importlib.util.find_spec("ipywidgets") is not None
NO_WIDGETS = None if WIDGETS else "tqdm-notebook-without-ipywidgets"
NO_WIDGETS_RAISES = None if WIDGETS else "ImportError"
PROGRESS = (
    FRAME
    + """
from tqdm import tqdm, trange
from tqdm.auto import tqdm as auto_tqdm
from tqdm.notebook import tqdm as notebook_tqdm, trange as notebook_trange
columns = ["Amount", "Cty"]

def fit_all(frames):
    scores = []
    for frame in notebook_tqdm(frames):
        scores.append(len(frame))
    return scores
"""
)
CASES += [
    RuleCase(
        "notebook-bar-without-ipywidgets",
        PROGRESS,
        "for name in notebook_tqdm(['a', 'b']):\n    print(name)",
        NO_WIDGETS,
        NO_WIDGETS_RAISES,
    ),
    RuleCase(
        "notebook-range-without-ipywidgets",
        PROGRESS,
        "total = 0\nfor step in notebook_trange(3):\n    total += step",
        NO_WIDGETS,
        NO_WIDGETS_RAISES,
        2,
    ),
    RuleCase(
        "notebook-bar-in-a-function-from-an-earlier-cell",
        PROGRESS,
        "scores = fit_all([df, df])",
        NO_WIDGETS,
        NO_WIDGETS_RAISES,
    ),
    RuleCase(
        "deprecated-tqdm-notebook-function",
        PROGRESS,
        "from tqdm import tqdm_notebook\nfor name in tqdm_notebook(['a']):\n    print(name)",
        NO_WIDGETS,
        NO_WIDGETS_RAISES,
        2,
    ),
    RuleCase(
        "notebook-bar-disabled",
        PROGRESS,
        "for name in notebook_tqdm(['a', 'b'], disable=True):\n    print(name)",
        None,
    ),
    RuleCase(
        "auto-bar-falls-back",
        PROGRESS,
        "for name in auto_tqdm(['Amount', 'City']):\n    df[name]",
        None,
    ),
    RuleCase(
        "missing-column-in-a-loop-under-a-bar",
        PROGRESS,
        "for name in tqdm(columns, desc='columns'):\n    df[name].mean()",
        "pandas-missing-column",
        "KeyError",
        2,
    ),
    RuleCase(
        "missing-column-in-an-enumerated-bar",
        PROGRESS,
        "for i, name in enumerate(tqdm(columns)):\n    df[name]",
        "pandas-missing-column",
        "KeyError",
        2,
    ),
    RuleCase(
        "missing-column-under-a-range-bar",
        PROGRESS,
        "for i in trange(len(columns)):\n    df[columns[i]]",
        "pandas-missing-column",
        "KeyError",
        2,
    ),
    RuleCase(
        "columns-that-exist-under-a-bar",
        PROGRESS,
        "for name in tqdm(['Amount', 'City']):\n    df[name]",
        None,
    ),
    RuleCase(
        "bar-updated-by-hand",
        PROGRESS,
        "bar = tqdm(['Amount'])\nbar.set_description('x')\nfor name in bar:\n    df[name]\nbar.close()",
        None,
    ),
]

# pandas 3 and large data: a value a column's dtype cannot hold, set through an indexer, is a
# TypeError; a list of the wrong length for a column is a ValueError (judged on the true row
# count of a frame larger than the sample); removed offsets and keywords; a MultiIndex.
PANDAS3 = (
    FRAME
    + """
big = pd.DataFrame({"day": pd.date_range("2024-01-01", periods=6000, freq="h"),
                    "load": np.arange(6000) % 97})
hourly = big.set_index("day")["load"]
sales = pd.Series([3.0, 4.0, 5.0, 6.0],
                  index=pd.MultiIndex.from_product([["north", "south"], [2023, 2024]]))
"""
)
CASES += [
    RuleCase(
        "float-into-an-integer-column-through-loc",
        PANDAS3,
        "df.loc[0, 'Class'] = 0.5",
        "pandas-type-error",
        "TypeError",
    ),
    RuleCase(
        "text-into-a-float-column-through-at",
        PANDAS3,
        "df.at[1, 'Amount'] = 'n/a'",
        "pandas-type-error",
        "TypeError",
    ),
    RuleCase("float-into-a-float-column", PANDAS3, "df.loc[0, 'Amount'] = 0.5", None),
    RuleCase(
        "column-converted-before-the-float",
        PANDAS3,
        "df['Class'] = df['Class'].astype(float)\ndf.loc[0, 'Class'] = 0.5",
        None,
    ),
    RuleCase(
        "iloc-cannot-enlarge",
        PANDAS3,
        "df.iloc[10, 0] = 1.0",
        "pandas-index-error",
        "IndexError",
    ),
    RuleCase(
        "column-from-a-short-list",
        PANDAS3,
        "df['Rank'] = [1, 2, 3]",
        "pandas-length-mismatch",
        "ValueError",
    ),
    RuleCase(
        "column-from-a-short-list-on-large-data",
        PANDAS3,
        "big['weekday'] = list(range(7))",
        "pandas-length-mismatch",
        "ValueError",
    ),
    RuleCase("column-from-a-list-of-every-row", PANDAS3, "big['n'] = list(range(len(big)))", None),
    RuleCase(
        "column-from-a-shorter-series-aligns", PANDAS3, "df['Rank'] = df['Class'].head(2)", None
    ),
    RuleCase(
        "month-offset-removed",
        PANDAS3,
        "monthly = hourly.resample('M').mean()",
        "pandas-value-error",
        "ValueError",
    ),
    RuleCase("month-end-offset", PANDAS3, "monthly = hourly.resample('ME').mean()", None),
    RuleCase(
        "hour-alias-removed",
        PANDAS3,
        "hourly.asfreq('H').head()",
        "pandas-value-error",
        "ValueError",
    ),
    RuleCase(
        "sum-by-level-removed",
        PANDAS3,
        "totals = sales.sum(level=0)",
        "pandas-type-error",
        "TypeError",
    ),
    RuleCase("sum-grouped-by-level", PANDAS3, "totals = sales.groupby(level=0).sum()", None),
    RuleCase(
        "multiindex-is-lexsorted-removed",
        PANDAS3,
        "sales.index.is_lexsorted()",
        "python-missing-attribute",
        "AttributeError",
    ),
    RuleCase("multiindex-is-monotonic", PANDAS3, "sales.index.is_monotonic_increasing", None),
    RuleCase("row-past-the-sample-by-position", PANDAS3, "row = big.iloc[4500]", None),
    RuleCase("row-past-the-sample-by-label", PANDAS3, "row = big.loc[5999, 'load']", None),
    RuleCase("value-past-the-sample", PANDAS3, "value = big['load'].values[5000]", None),
]
