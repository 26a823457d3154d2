"""Write the crash/fixed case corpus under tests/corpus/ (case folders as in DESIGN.md).

Each case is defined here as Python data: the code cells before the target, the reproduced
target cell, and what the fixed notebook changes (the target, or an earlier cell). In a target
cell, a line ending in ``#<`` is where the failing operation is written (crash_line), and
lines ending in ``#<call`` are outer frames of the traceback (calls into functions the cell
defines), outermost first. The markers are removed from the written notebooks.

Run: python scripts/make_corpus.py [--out tests/corpus]. The corpus test
(tests/checker/test_corpus_real.py) runs every notebook for real to prove each claim.
"""

# Cell sources are data: their lines are as long as a notebook author wrote them.

from __future__ import annotations

import argparse
import hashlib
import json
import re
import shutil
from dataclasses import dataclass, field
from pathlib import Path

_MARK = re.compile(r"[ \t]*#<(call)?[ \t]*$")


@dataclass(frozen=True)
class Case:
    """One crash/fixed pair."""

    case_id: str
    library: str
    rule: str
    exception: str
    reason: str
    cells: list[str]
    target: str
    fixed_target: str | None = None
    fixed_cells: list[str] | None = None
    repro_cells: list[str] | None = None
    files: dict[str, str] = field(default_factory=dict)


def without(cells: list[str], *indices: int) -> list[str]:
    """The cells without those at `indices` (cells that were not run)."""
    return [cell for i, cell in enumerate(cells) if i not in indices]


def patched(cells: list[str], index: int, new: str) -> list[str]:
    """The cells with cell `index` replaced by `new`."""
    return [new if i == index else cell for i, cell in enumerate(cells)]


def strip_markers(source: str) -> tuple[str, int | None, list[int]]:
    """Remove the crash markers; return (source, crash_line, crash_lines)."""
    crash: int | None = None
    outer: list[int] = []
    lines = []
    for number, line in enumerate(source.strip("\n").split("\n"), start=1):
        match = _MARK.search(line)
        if match:
            line = line[: match.start()]
            if match.group(1):
                outer.append(number)
            else:
                crash = number
        lines.append(line)
    crash_lines = [*outer, crash] if crash is not None else outer
    return "\n".join(lines), crash, crash_lines


def notebook(sources: list[str], case_id: str, variant: str) -> dict[str, object]:
    """An nbformat 4.5 notebook with one code cell per source."""
    cells: list[dict[str, object]] = []
    for index, source in enumerate(sources):
        digest = hashlib.sha1(f"{case_id}/{variant}/{index}".encode()).hexdigest()[:8]
        lines = source.split("\n")
        cells.append(
            {
                "cell_type": "code",
                "execution_count": None,
                "id": digest,
                "metadata": {},
                "outputs": [],
                "source": [line + "\n" for line in lines[:-1]] + [lines[-1]],
            }
        )
    return {
        "cells": cells,
        "metadata": {
            "kernelspec": {"display_name": "Python 3", "language": "python", "name": "python3"}
        },
        "nbformat": 4,
        "nbformat_minor": 5,
    }


def write_case(case: Case, out: Path) -> None:
    """Write one case folder: case.json, reproduced.ipynb, fixed.ipynb and data files."""
    target, crash_line, crash_lines = strip_markers(case.target)
    if crash_line is None:
        raise ValueError(f"{case.case_id}: the target has no #< crash marker")
    fixed_target, _, _ = strip_markers(case.fixed_target or case.target)
    repro = [
        c.strip("\n") for c in (case.repro_cells if case.repro_cells is not None else case.cells)
    ]
    fixed = [
        c.strip("\n") for c in (case.fixed_cells if case.fixed_cells is not None else case.cells)
    ]
    if repro == fixed and target == fixed_target:
        raise ValueError(f"{case.case_id}: reproduced and fixed notebooks are identical")
    folder = out / case.case_id
    folder.mkdir(parents=True)
    meta = {
        "case_id": case.case_id,
        "library": case.library,
        "expected_exception": case.exception,
        "crash_line": crash_line,
        "reason": case.reason,
        "target_identical": target == fixed_target,
        "crash_lines": crash_lines,
        "rule": case.rule,
    }
    (folder / "case.json").write_text(json.dumps(meta, indent=2) + "\n", encoding="utf-8")
    for name, sources in (("reproduced", [*repro, target]), ("fixed", [*fixed, fixed_target])):
        text = json.dumps(notebook(sources, case.case_id, name), indent=1, ensure_ascii=False)
        (folder / f"{name}.ipynb").write_text(text + "\n", encoding="utf-8")
    for name, content in case.files.items():
        (folder / name).write_text(content, encoding="utf-8")


# ---------------------------------------------------------------------------------------------
# Shared set-up cells (synthetic data created in the notebook; no network, no downloads).

IMPORTS = """import numpy as np
import pandas as pd"""

PLOT_IMPORTS = """import numpy as np
import pandas as pd
import matplotlib.pyplot as plt
import seaborn as sns"""

SALES = """rng = np.random.default_rng(7)
n = 240
sales = pd.DataFrame({
    "order_id": np.arange(1000, 1000 + n),
    "region": rng.choice(["north", "south", "east", "west"], n),
    "product": rng.choice(["laptop", "phone", "tablet"], n),
    "units": rng.integers(1, 20, n),
    "unit_price": rng.normal(300, 80, n).round(2),
    "order_date": pd.date_range("2023-01-01", periods=n, freq="D").strftime("%Y-%m-%d"),
})
sales["revenue"] = sales["units"] * sales["unit_price"]
sales.head()"""

HOUSES = """rng = np.random.default_rng(42)
n = 300
houses = pd.DataFrame({
    "sqft": rng.normal(1500, 400, n).round(),
    "bedrooms": rng.integers(1, 6, n),
    "age": rng.integers(0, 80, n),
    "distance_km": rng.uniform(0.5, 30, n).round(1),
    "neighborhood": rng.choice(["Downtown", "Suburb", "Rural"], n),
})
houses["price"] = (50_000 + 120 * houses["sqft"] + 8_000 * houses["bedrooms"]
                   - 500 * houses["age"] + rng.normal(0, 20_000, n))
houses.describe()"""

TITANIC = """rng = np.random.default_rng(1)
n = 400
titanic = pd.DataFrame({
    "PassengerId": np.arange(1, n + 1),
    "Pclass": rng.choice([1, 2, 3], n, p=[0.25, 0.25, 0.5]),
    "Sex": rng.choice(["male", "female"], n),
    "Age": rng.normal(30, 14, n).clip(1, 80).round(),
    "SibSp": rng.integers(0, 4, n),
    "Fare": rng.gamma(2.0, 15.0, n).round(2),
    "Embarked": rng.choice(["S", "C", "Q"], n),
})
titanic.loc[rng.choice(n, 60, replace=False), "Age"] = np.nan
survived = (titanic["Sex"] == "female") | (titanic["Pclass"] == 1)
titanic["Survived"] = (survived ^ (rng.random(n) < 0.15)).astype(int)
titanic.info()"""

SENSORS = """rng = np.random.default_rng(3)
t = np.linspace(0, 10, 500)
readings = np.column_stack([
    np.sin(t) + rng.normal(0, 0.1, t.size),
    np.cos(t) + rng.normal(0, 0.1, t.size),
    0.5 * t + rng.normal(0, 0.3, t.size),
])
print(readings.shape)"""

IRIS = """from sklearn.datasets import load_iris

iris = load_iris(as_frame=True)
df = iris.frame
X = df.drop(columns=["target"])
y = df["target"]
X.shape, y.shape"""

SK_SPLIT = """from sklearn.model_selection import train_test_split

X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=0.25, random_state=0)"""

TORCH_SETUP = """import numpy as np
import torch
import torch.nn as nn

torch.manual_seed(0)"""

CUSTOMERS_CSV = "customer_id,name,city,signup_date,total_spend,visits\n" + "".join(
    f"{100 + i},Customer {i},{['Lyon', 'Paris', 'Nice', 'Lille'][i % 4]},"
    f"2023-{1 + i % 12:02d}-{1 + (i * 7) % 28:02d},"
    f'"${(i * 137) % 5000 + 1000:,}.{(i * 7) % 100:02d}",{(i * 3) % 17}\n'
    for i in range(60)
)

# ---------------------------------------------------------------------------------------------
# Python itself: names, modules, attributes (incl. removed APIs), signatures, unpacking,
# literal indexes and keys, None.

PYTHON: list[Case] = [
    Case(
        "python_01_undefined_name_typo",
        "python",
        "python-undefined-name",
        "NameError",
        "The frame is called train_df, but the summary cell refers to train, which was never "
        "defined.",
        [IMPORTS, SALES.replace("sales", "train_df")],
        """summary = {
    "rows": len(train_df),
    "regions": train_df["region"].nunique(),
    "mean_revenue": train["revenue"].mean(),  #<
}
summary""",
        fixed_target="""summary = {
    "rows": len(train_df),
    "regions": train_df["region"].nunique(),
    "mean_revenue": train_df["revenue"].mean(),
}
summary""",
    ),
    Case(
        "python_02_used_before_assignment",
        "python",
        "python-undefined-name",
        "NameError",
        "The loop writes into scaled before the line that creates scaled, further down the "
        "same cell.",
        [IMPORTS, HOUSES],
        """numeric_cols = ["sqft", "bedrooms", "age", "distance_km"]
for col in numeric_cols:
    scaled[col] = (houses[col] - houses[col].mean()) / houses[col].std()  #<
scaled = pd.DataFrame(index=houses.index)
scaled.head()""",
        fixed_target="""numeric_cols = ["sqft", "bedrooms", "age", "distance_km"]
scaled = pd.DataFrame(index=houses.index)
for col in numeric_cols:
    scaled[col] = (houses[col] - houses[col].mean()) / houses[col].std()
scaled.head()""",
    ),
    Case(
        "python_03_undefined_global_in_function",
        "python",
        "python-undefined-name",
        "NameError",
        "flag_outliers reads the global threshold, which no executed cell defines; the "
        "NameError surfaces inside the function when the cell calls it.",
        [IMPORTS, SENSORS],
        """def flag_outliers(values):
    z = (values - values.mean(axis=0)) / values.std(axis=0)
    return np.abs(z) > threshold  #<

mask = flag_outliers(readings)  #<call
print(mask.sum(axis=0))""",
        fixed_cells=[IMPORTS, SENSORS, "threshold = 2.5"],
    ),
    Case(
        "python_04_module_not_installed",
        "python",
        "python-module-not-found",
        "ModuleNotFoundError",
        "catboost is not installed in this environment.",
        [IMPORTS, TITANIC],
        """from catboost import CatBoostClassifier  #<

features = ["Pclass", "SibSp", "Fare"]
model = CatBoostClassifier(iterations=200, verbose=0)
model.fit(titanic[features], titanic["Survived"])""",
        fixed_target="""try:
    from catboost import CatBoostClassifier
except ImportError:
    from sklearn.ensemble import HistGradientBoostingClassifier as CatBoostClassifier

features = ["Pclass", "SibSp", "Fare"]
model = CatBoostClassifier()
model.fit(titanic[features], titanic["Survived"])""",
    ),
    Case(
        "python_05_module_removed_sklearn_cross_validation",
        "sklearn",
        "python-module-not-found",
        "ModuleNotFoundError",
        "sklearn.cross_validation was removed long ago; train_test_split lives in "
        "sklearn.model_selection.",
        [IMPORTS, HOUSES],
        """from sklearn.cross_validation import train_test_split  #<

X = houses[["sqft", "bedrooms", "age"]]
y = houses["price"]
X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=0.2, random_state=1)""",
        fixed_target="""from sklearn.model_selection import train_test_split

X = houses[["sqft", "bedrooms", "age"]]
y = houses["price"]
X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=0.2, random_state=1)""",
    ),
    Case(
        "python_06_import_removed_externals_joblib",
        "sklearn",
        "python-module-not-found",
        "ImportError",
        "sklearn.externals no longer ships joblib; import joblib directly.",
        [IMPORTS, IRIS],
        """from sklearn.linear_model import LogisticRegression
from sklearn.externals import joblib  #<

clf = LogisticRegression(max_iter=500).fit(X, y)
joblib.dump(clf, "iris_model.joblib")""",
        fixed_target="""from sklearn.linear_model import LogisticRegression
import joblib

clf = LogisticRegression(max_iter=500).fit(X, y)
joblib.dump(clf, "iris_model.joblib")""",
    ),
    Case(
        "python_07_module_not_installed_imblearn",
        "python",
        "python-module-not-found",
        "ModuleNotFoundError",
        "imbalanced-learn (imblearn) is not installed here.",
        [IMPORTS, TITANIC],
        """X = titanic[["Pclass", "SibSp", "Fare"]]
y = titanic["Survived"]
print(y.value_counts(normalize=True))

from imblearn.over_sampling import SMOTE  #<
X_res, y_res = SMOTE(random_state=0).fit_resample(X, y)""",
        fixed_target="""X = titanic[["Pclass", "SibSp", "Fare"]]
y = titanic["Survived"]
print(y.value_counts(normalize=True))

from sklearn.utils import resample
minority = titanic[y == 1]
X_res = pd.concat([X, resample(minority[X.columns], random_state=0)])""",
    ),
    Case(
        "python_08_removed_dataframe_append",
        "pandas",
        "python-missing-attribute",
        "AttributeError",
        "DataFrame.append was removed in pandas 2.0.",
        [IMPORTS, SALES],
        """monthly = pd.DataFrame(columns=["month", "revenue"])
sales["month"] = sales["order_date"].str[:7]
for month, group in sales.groupby("month"):
    row = {"month": month, "revenue": group["revenue"].sum()}
    monthly = monthly.append(row, ignore_index=True)  #<
monthly""",
        fixed_target="""rows = []
sales["month"] = sales["order_date"].str[:7]
for month, group in sales.groupby("month"):
    row = {"month": month, "revenue": group["revenue"].sum()}
    rows.append(row)
monthly = pd.DataFrame(rows, columns=["month", "revenue"])
monthly""",
    ),
    Case(
        "python_09_removed_series_iteritems",
        "pandas",
        "python-missing-attribute",
        "AttributeError",
        "Series.iteritems was removed in pandas 2.0; use items().",
        [IMPORTS, TITANIC],
        """missing = titanic.isna().sum()
for column, count in missing.iteritems():  #<
    if count:
        print(f"{column}: {count} missing")""",
        fixed_target="""missing = titanic.isna().sum()
for column, count in missing.items():
    if count:
        print(f"{column}: {count} missing")""",
    ),
    Case(
        "python_10_removed_np_float",
        "numpy",
        "python-missing-attribute",
        "AttributeError",
        "np.float was removed in NumPy 1.24; use float or np.float64.",
        [IMPORTS, HOUSES],
        """X = houses[["sqft", "bedrooms", "age"]].to_numpy().astype(np.float)  #<
X.mean(axis=0)""",
        fixed_target="""X = houses[["sqft", "bedrooms", "age"]].to_numpy().astype(np.float64)
X.mean(axis=0)""",
    ),
    Case(
        "python_11_removed_np_int_in_loop",
        "numpy",
        "python-missing-attribute",
        "AttributeError",
        "np.int was removed in NumPy 1.24; the histogram loop uses it as a dtype.",
        [IMPORTS, SENSORS],
        """counts = {}
for i in range(readings.shape[1]):
    col = readings[:, i]
    bins = np.linspace(col.min(), col.max(), 10)
    counts[i] = np.zeros(len(bins) - 1, dtype=np.int)  #<
    counts[i] += np.histogram(col, bins=bins)[0]
counts""",
        fixed_target="""counts = {}
for i in range(readings.shape[1]):
    col = readings[:, i]
    bins = np.linspace(col.min(), col.max(), 10)
    counts[i] = np.zeros(len(bins) - 1, dtype=np.int64)
    counts[i] += np.histogram(col, bins=bins)[0]
counts""",
    ),
    Case(
        "python_12_removed_np_object",
        "numpy",
        "python-missing-attribute",
        "AttributeError",
        "np.object was removed in NumPy 1.24.",
        [IMPORTS, TITANIC],
        """cat_cols = titanic.select_dtypes(include=[np.object]).columns  #<
cat_cols""",
        fixed_target="""cat_cols = titanic.select_dtypes(include=[object]).columns
cat_cols""",
    ),
    Case(
        "python_13_removed_get_feature_names",
        "sklearn",
        "python-missing-attribute",
        "AttributeError",
        "OneHotEncoder.get_feature_names was removed in scikit-learn 1.2; "
        "get_feature_names_out replaces it.",
        [
            IMPORTS,
            TITANIC,
            """from sklearn.preprocessing import OneHotEncoder

encoder = OneHotEncoder(handle_unknown="ignore")
encoded = encoder.fit_transform(titanic[["Sex", "Embarked"]])""",
        ],
        """names = encoder.get_feature_names(["Sex", "Embarked"])  #<
encoded_df = pd.DataFrame(encoded.toarray(), columns=names)
encoded_df.head()""",
        fixed_target="""names = encoder.get_feature_names_out(["Sex", "Embarked"])
encoded_df = pd.DataFrame(encoded.toarray(), columns=names)
encoded_df.head()""",
    ),
    Case(
        "python_14_removed_plot_confusion_matrix",
        "sklearn",
        "python-module-not-found",
        "ImportError",
        "sklearn.metrics.plot_confusion_matrix was removed in scikit-learn 1.2.",
        [
            PLOT_IMPORTS,
            IRIS,
            SK_SPLIT,
            """from sklearn.tree import DecisionTreeClassifier

tree = DecisionTreeClassifier(max_depth=3, random_state=0).fit(X_train, y_train)""",
        ],
        """from sklearn.metrics import plot_confusion_matrix  #<

plot_confusion_matrix(tree, X_test, y_test, display_labels=iris.target_names)
plt.title("Decision tree")""",
        fixed_target="""from sklearn.metrics import ConfusionMatrixDisplay

ConfusionMatrixDisplay.from_estimator(tree, X_test, y_test, display_labels=iris.target_names)
plt.title("Decision tree")""",
    ),
    Case(
        "python_15_shape_is_not_callable",
        "pandas",
        "python-not-callable",
        "TypeError",
        "DataFrame.shape is a tuple attribute, not a method.",
        [IMPORTS, SALES],
        """n_rows, n_cols = sales.shape()  #<
print(f"{n_rows} orders, {n_cols} columns")""",
        fixed_target="""n_rows, n_cols = sales.shape
print(f"{n_rows} orders, {n_cols} columns")""",
    ),
    Case(
        "python_16_forest_has_no_coef",
        "sklearn",
        "python-missing-attribute",
        "AttributeError",
        "A fitted RandomForestRegressor has feature_importances_ but no coef_.",
        [
            IMPORTS,
            HOUSES,
            """from sklearn.ensemble import RandomForestRegressor

features = ["sqft", "bedrooms", "age", "distance_km"]
model = RandomForestRegressor(n_estimators=50, random_state=0)
model.fit(houses[features], houses["price"])""",
        ],
        """importance = pd.Series(model.coef_, index=features)  #<
importance.sort_values(ascending=False)""",
        fixed_target="""importance = pd.Series(model.feature_importances_, index=features)
importance.sort_values(ascending=False)""",
    ),
    Case(
        "python_17_ndarray_has_no_values",
        "sklearn",
        "python-missing-attribute",
        "AttributeError",
        "train_test_split was given .values, so X_train is an ndarray, which has no .values.",
        [
            IMPORTS,
            HOUSES,
            """from sklearn.model_selection import train_test_split

X = houses[["sqft", "bedrooms", "age"]].values
y = houses["price"].values
X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=0.2, random_state=0)""",
        ],
        """X_train_scaled = (X_train.values - X_train.values.mean(axis=0)) / X_train.values.std(axis=0)  #<
X_train_scaled[:3]""",
        fixed_target="""X_train_scaled = (X_train - X_train.mean(axis=0)) / X_train.std(axis=0)
X_train_scaled[:3]""",
    ),
    Case(
        "python_18_unique_then_value_counts",
        "pandas",
        "python-missing-attribute",
        "AttributeError",
        "Series.unique() of a numeric column returns an ndarray, which has no value_counts method.",
        [IMPORTS, SALES],
        """for col in ["units", "order_id"]:
    print(col)
    print(sales[col].unique().value_counts())  #<""",
        fixed_target="""for col in ["units", "order_id"]:
    print(col)
    print(sales[col].value_counts())""",
    ),
    Case(
        "python_19_train_test_split_unknown_kwarg",
        "sklearn",
        "python-call-signature",
        "TypeError",
        "train_test_split has no random_seed parameter (it is random_state).",
        [IMPORTS, IRIS],
        """from sklearn.model_selection import train_test_split

X_train, X_test, y_train, y_test = train_test_split(  #<
    X, y, test_size=0.3, random_seed=42, stratify=y
)""",
        fixed_target="""from sklearn.model_selection import train_test_split

X_train, X_test, y_train, y_test = train_test_split(
    X, y, test_size=0.3, random_state=42, stratify=y
)""",
    ),
    Case(
        "python_20_read_csv_misspelled_kwarg",
        "pandas",
        "python-call-signature",
        "TypeError",
        "read_csv has no delimeter parameter (the spelling is delimiter).",
        [IMPORTS],
        """customers = pd.read_csv("customers.csv", delimeter=",", parse_dates=["signup_date"])  #<
customers.head()""",
        fixed_target="""customers = pd.read_csv("customers.csv", delimiter=",", parse_dates=["signup_date"])
customers.head()""",
        files={"customers.csv": CUSTOMERS_CSV},
    ),
    Case(
        "python_21_np_zeros_two_positionals",
        "numpy",
        "python-call-signature",
        "TypeError",
        "np.zeros takes the shape as one tuple; the second positional argument is the dtype, "
        "and 3 is not a dtype.",
        [IMPORTS, SENSORS],
        """window = 25
smoothed = np.zeros(readings.shape[0] - window + 1, 3)  #<
for j in range(3):
    smoothed[:, j] = np.convolve(readings[:, j], np.ones(window) / window, mode="valid")""",
        fixed_target="""window = 25
smoothed = np.zeros((readings.shape[0] - window + 1, 3))
for j in range(3):
    smoothed[:, j] = np.convolve(readings[:, j], np.ones(window) / window, mode="valid")""",
    ),
    Case(
        "python_22_estimator_unknown_kwarg",
        "sklearn",
        "python-call-signature",
        "TypeError",
        "LogisticRegression has no random_seed parameter.",
        [IMPORTS, IRIS, SK_SPLIT],
        """from sklearn.linear_model import LogisticRegression

clf = LogisticRegression(max_iter=1000, C=0.5, random_seed=0)  #<
clf.fit(X_train, y_train)
clf.score(X_test, y_test)""",
        fixed_target="""from sklearn.linear_model import LogisticRegression

clf = LogisticRegression(max_iter=1000, C=0.5, random_state=0)
clf.fit(X_train, y_train)
clf.score(X_test, y_test)""",
    ),
    Case(
        "python_23_unpack_split_of_one_array",
        "sklearn",
        "python-unpack-mismatch",
        "ValueError",
        "train_test_split was given only X, so it returns 2 arrays, not 4.",
        [IMPORTS, HOUSES],
        """from sklearn.model_selection import train_test_split

X = houses[["sqft", "bedrooms", "age"]]
y = houses["price"]
X_train, X_test, y_train, y_test = train_test_split(X, test_size=0.2)  #<""",
        fixed_target="""from sklearn.model_selection import train_test_split

X = houses[["sqft", "bedrooms", "age"]]
y = houses["price"]
X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=0.2)""",
    ),
    Case(
        "python_24_unpack_subplots_flat",
        "matplotlib",
        "python-unpack-mismatch",
        "ValueError",
        "plt.subplots(1, 2) returns (figure, array of 2 axes): 2 values, not 3.",
        [PLOT_IMPORTS, SALES],
        """fig, ax1, ax2 = plt.subplots(1, 2, figsize=(10, 4))  #<
sales.groupby("region")["revenue"].sum().plot.bar(ax=ax1)
sales["units"].plot.hist(ax=ax2, bins=20)""",
        fixed_target="""fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(10, 4))
sales.groupby("region")["revenue"].sum().plot.bar(ax=ax1)
sales["units"].plot.hist(ax=ax2, bins=20)""",
    ),
    Case(
        "python_25_unpack_dict_items_without_enumerate",
        "python",
        "python-unpack-mismatch",
        "TypeError",
        "models.items() yields (name, model) pairs; unpacking each as i, (name, model) tries to "
        "unpack the estimator object.",
        [
            IMPORTS,
            IRIS,
            SK_SPLIT,
            """from sklearn.linear_model import LogisticRegression
from sklearn.neighbors import KNeighborsClassifier
from sklearn.tree import DecisionTreeClassifier

models = {
    "logreg": LogisticRegression(max_iter=500),
    "knn": KNeighborsClassifier(n_neighbors=5),
    "tree": DecisionTreeClassifier(max_depth=4),
}""",
        ],
        """scores = {}
for i, (name, model) in models.items():  #<
    model.fit(X_train, y_train)
    scores[name] = model.score(X_test, y_test)
scores""",
        fixed_target="""scores = {}
for i, (name, model) in enumerate(models.items()):
    model.fit(X_train, y_train)
    scores[name] = model.score(X_test, y_test)
scores""",
    ),
    Case(
        "python_26_unpack_too_many_aggregates",
        "pandas",
        "python-unpack-mismatch",
        "ValueError",
        "agg with three functions returns three values, unpacked into two names.",
        [IMPORTS, HOUSES],
        """mean_price, std_price = houses["price"].agg(["mean", "std", "median"])  #<
print(f"{mean_price:.0f} +/- {std_price:.0f}")""",
        fixed_target="""mean_price, std_price = houses["price"].agg(["mean", "std"])
print(f"{mean_price:.0f} +/- {std_price:.0f}")""",
    ),
    Case(
        "python_27_list_index_out_of_range",
        "python",
        "python-index-out-of-range",
        "IndexError",
        "pd.cut makes three bins, so labels has three entries; index 3 does not exist.",
        [
            IMPORTS,
            HOUSES,
            """labels = ["budget", "mid", "premium"]
houses["segment"] = pd.cut(houses["price"], bins=3, labels=labels)""",
        ],
        """top = houses[houses["segment"] == labels[3]]  #<
print(len(top), "premium houses")""",
        fixed_target="""top = houses[houses["segment"] == labels[2]]
print(len(top), "premium houses")""",
    ),
    Case(
        "python_28_dict_missing_key",
        "python",
        "python-missing-key",
        "KeyError",
        "best_params holds n_estimators and max_depth, but the cell reads learning_rate.",
        [
            IMPORTS,
            """best_params = {"n_estimators": 200, "max_depth": 6}
history = [0.81, 0.84, 0.86]""",
        ],
        """print("best score:", max(history))
for name in ["n_estimators", "max_depth"]:
    print(name, "=", best_params[name])
lr = best_params["learning_rate"]  #<
print("learning rate", lr)""",
        fixed_target="""print("best score:", max(history))
for name in ["n_estimators", "max_depth"]:
    print(name, "=", best_params[name])
lr = best_params.get("learning_rate", 0.1)
print("learning rate", lr)""",
    ),
    Case(
        "python_29_inplace_result_is_none",
        "pandas",
        "python-none-value",
        "AttributeError",
        "drop(..., inplace=True) returns None, and the result was assigned back to sales.",
        [IMPORTS, SALES, """sales = sales.drop(columns=["order_id"], inplace=True)"""],
        """sales.groupby("region")["revenue"].sum()  #<""",
        fixed_cells=[IMPORTS, SALES, """sales.drop(columns=["order_id"], inplace=True)"""],
    ),
    Case(
        "python_30_list_sort_returns_none",
        "python",
        "python-none-value",
        "TypeError",
        "list.sort() sorts in place and returns None, so ranked is None.",
        [
            IMPORTS,
            """scores = [("logreg", 0.91), ("knn", 0.88), ("tree", 0.86), ("svm", 0.93)]
ranked = scores.sort(key=lambda item: item[1], reverse=True)""",
        ],
        """best_name, best_score = ranked[0]  #<
print(f"best model: {best_name} ({best_score:.2f})")""",
        fixed_cells=[
            IMPORTS,
            """scores = [("logreg", 0.91), ("knn", 0.88), ("tree", 0.86), ("svm", 0.93)]
ranked = sorted(scores, key=lambda item: item[1], reverse=True)""",
        ],
    ),
    Case(
        "python_31_reset_index_inplace_assigned",
        "pandas",
        "python-none-value",
        "TypeError",
        "reset_index(inplace=True) returns None; subscripting the None result fails.",
        [
            IMPORTS,
            TITANIC,
            """adults = titanic[titanic["Age"] >= 18]
adults = adults.reset_index(drop=True, inplace=True)""",
        ],
        """fare_by_class = adults["Fare"].groupby(adults["Pclass"]).median()  #<
fare_by_class""",
        fixed_cells=[
            IMPORTS,
            TITANIC,
            """adults = titanic[titanic["Age"] >= 18]
adults = adults.reset_index(drop=True)""",
        ],
    ),
]

# ---------------------------------------------------------------------------------------------
# Notebook-specific: cells that were not run, cells run twice, names deleted since.

_SPLIT_CELLS = [
    IMPORTS,
    TITANIC,
    """features = ["Pclass", "SibSp", "Fare"]
X = titanic[features]
y = titanic["Survived"]""",
    SK_SPLIT,
]

_FIT_CELLS = [
    IMPORTS,
    HOUSES,
    """from sklearn.linear_model import LinearRegression
from sklearn.model_selection import train_test_split

features = ["sqft", "bedrooms", "age"]
X_train, X_test, y_train, y_test = train_test_split(
    houses[features], houses["price"], test_size=0.2, random_state=0
)""",
    """model = LinearRegression()
model.fit(X_train, y_train)""",
]

NOTEBOOK: list[Case] = [
    Case(
        "NBspecific_01_split_cell_not_run",
        "NBspecific",
        "python-undefined-name",
        "NameError",
        "The train/test split cell was skipped, so X_train and y_train do not exist.",
        _SPLIT_CELLS,
        """from sklearn.linear_model import LogisticRegression

clf = LogisticRegression(max_iter=500)
clf.fit(X_train, y_train)  #<
print("test accuracy", clf.score(X_test, y_test))""",
        repro_cells=without(_SPLIT_CELLS, 3),
    ),
    Case(
        "NBspecific_02_fit_cell_not_run",
        "NBspecific",
        "python-undefined-name",
        "NameError",
        "The cell that creates and fits model was not run.",
        _FIT_CELLS,
        """from sklearn.metrics import mean_absolute_error

pred = model.predict(X_test)  #<
mean_absolute_error(y_test, pred)""",
        repro_cells=without(_FIT_CELLS, 3),
    ),
    Case(
        "NBspecific_03_helper_function_cell_not_run",
        "NBspecific",
        "python-undefined-name",
        "NameError",
        "clean_city is defined in a cell that was not run.",
        [
            IMPORTS,
            """customers = pd.read_csv("customers.csv")""",
            """def clean_city(name):
    return name.strip().lower()""",
        ],
        """customers["city_key"] = customers["city"].map(clean_city)  #<
customers["city_key"].value_counts()""",
        repro_cells=[IMPORTS, """customers = pd.read_csv("customers.csv")"""],
        files={"customers.csv": CUSTOMERS_CSV},
    ),
    Case(
        "NBspecific_04_import_cell_not_run",
        "NBspecific",
        "python-undefined-name",
        "NameError",
        "The cell importing matplotlib.pyplot as plt was skipped.",
        [IMPORTS, "import matplotlib.pyplot as plt", SALES],
        """daily = sales.groupby("order_date")["revenue"].sum()
ax = daily.rolling(7).mean().plot(figsize=(10, 3))
plt.title("7-day mean revenue")  #<
plt.tight_layout()""",
        repro_cells=[IMPORTS, SALES],
    ),
    Case(
        "NBspecific_05_scaler_cell_not_run_in_loop",
        "NBspecific",
        "python-undefined-name",
        "NameError",
        "scaler is created and fitted in a cell that was not run; the loop uses it on its "
        "first iteration.",
        [
            IMPORTS,
            SENSORS,
            """from sklearn.preprocessing import StandardScaler

scaler = StandardScaler().fit(readings[:400])""",
        ],
        """windows = [readings[i:i + 50] for i in range(400, 500, 50)]
scaled_windows = []
for w in windows:
    scaled_windows.append(scaler.transform(w))  #<
len(scaled_windows)""",
        repro_cells=[IMPORTS, SENSORS],
    ),
    Case(
        "NBspecific_06_deleted_frame",
        "NBspecific",
        "python-undefined-name",
        "NameError",
        "raw was deleted with del in an earlier cell to free memory.",
        [
            IMPORTS,
            SALES.replace("sales", "raw"),
            """sales = raw[raw["units"] > 0].copy()
del raw""",
        ],
        """print(len(raw), "orders before filtering")  #<
print(len(sales), "orders after filtering")""",
        fixed_target="""print(len(sales), "orders after filtering")""",
    ),
    Case(
        "NBspecific_07_deleted_model",
        "NBspecific",
        "python-undefined-name",
        "NameError",
        "The model was deleted (del model) after saving, then used again.",
        [
            *_FIT_CELLS,
            """import joblib

joblib.dump(model, "model.joblib")
del model""",
        ],
        """preds = model.predict(X_test)  #<
residuals = y_test - preds
residuals.describe()""",
        fixed_cells=[
            *_FIT_CELLS,
            """import joblib

joblib.dump(model, "model.joblib")""",
        ],
    ),
    Case(
        "NBspecific_08_drop_cell_run_twice",
        "NBspecific",
        "notebook-rerun",
        "KeyError",
        "The cell dropping PassengerId was executed a second time; the column is already gone.",
        [IMPORTS, TITANIC, """titanic.drop(columns=["PassengerId"], inplace=True)"""],
        """titanic.drop(columns=["PassengerId"], inplace=True)  #<""",
        fixed_cells=[IMPORTS, TITANIC],
    ),
    Case(
        "NBspecific_09_pop_cell_run_twice",
        "NBspecific",
        "notebook-rerun",
        "KeyError",
        "y = houses.pop('price') ran twice; the second pop finds no price column.",
        [
            IMPORTS,
            HOUSES,
            """y = houses.pop("price")
X = houses.select_dtypes("number")""",
        ],
        """y = houses.pop("price")  #<
X = houses.select_dtypes("number")""",
        fixed_cells=[IMPORTS, HOUSES],
    ),
    Case(
        "NBspecific_10_del_column_run_twice",
        "NBspecific",
        "notebook-rerun",
        "KeyError",
        "The cell deleting the helper column tmp ran twice.",
        [
            IMPORTS,
            SALES,
            """sales["tmp"] = sales["units"] * sales["unit_price"] / 100
sales["big_order"] = sales["tmp"] > 20""",
            """del sales["tmp"]
sales.columns.tolist()""",
        ],
        """del sales["tmp"]  #<
sales.columns.tolist()""",
        fixed_cells=[
            IMPORTS,
            SALES,
            """sales["tmp"] = sales["units"] * sales["unit_price"] / 100
sales["big_order"] = sales["tmp"] > 20""",
        ],
    ),
    Case(
        "NBspecific_11_rename_then_old_name",
        "NBspecific",
        "notebook-rerun",
        "KeyError",
        "The rename cell already ran, so the column is now unit_price_eur, not unit_price.",
        [
            IMPORTS,
            SALES,
            """sales.rename(columns={"unit_price": "unit_price_eur"}, inplace=True)""",
        ],
        """sales["unit_price_usd"] = sales["unit_price"] * 1.08  #<
sales[["unit_price_eur", "unit_price_usd"]].head()""",
        fixed_target="""sales["unit_price_usd"] = sales["unit_price_eur"] * 1.08
sales[["unit_price_eur", "unit_price_usd"]].head()""",
    ),
    Case(
        "NBspecific_12_reassigned_drop_run_twice",
        "NBspecific",
        "notebook-rerun",
        "KeyError",
        "houses = houses.drop('neighborhood', axis=1) was re-run; the column is gone.",
        [IMPORTS, HOUSES, """houses = houses.drop("neighborhood", axis=1)"""],
        """houses = houses.drop("neighborhood", axis=1)  #<
houses.corr()["price"].sort_values()""",
        fixed_cells=[IMPORTS, HOUSES],
    ),
    Case(
        "NBspecific_13_get_dummies_run_twice",
        "NBspecific",
        "notebook-rerun",
        "KeyError",
        "get_dummies(columns=['Sex', 'Embarked']) already replaced those columns; the re-run "
        "cannot find them.",
        [
            IMPORTS,
            TITANIC,
            """titanic = pd.get_dummies(titanic, columns=["Sex", "Embarked"], drop_first=True)""",
        ],
        """titanic = pd.get_dummies(titanic, columns=["Sex", "Embarked"], drop_first=True)  #<
titanic.columns.tolist()""",
        fixed_cells=[IMPORTS, TITANIC],
    ),
    Case(
        "NBspecific_14_set_index_run_twice",
        "NBspecific",
        "notebook-rerun",
        "KeyError",
        "set_index('order_date', inplace=True) ran already, so order_date is no longer a column.",
        [IMPORTS, SALES, """sales.set_index("order_date", inplace=True)"""],
        """sales.set_index("order_date", inplace=True)  #<
sales.index = pd.to_datetime(sales.index)""",
        fixed_cells=[IMPORTS, SALES],
    ),
]

# ---------------------------------------------------------------------------------------------
# pandas: missing columns and labels, accessors on the wrong dtype, casts, merge/join/concat.

PANDAS: list[Case] = [
    Case(
        "pandas_01_getitem_wrong_case",
        "pandas",
        "pandas-missing-column",
        "KeyError",
        "The column is revenue (lower case); Revenue does not exist.",
        [IMPORTS, SALES],
        """top_regions = (
    sales.groupby("region")["revenue"].sum().sort_values(ascending=False).head(3).index
)
share = sales["Revenue"] / sales["Revenue"].sum()  #<
share.head()""",
        fixed_target="""top_regions = (
    sales.groupby("region")["revenue"].sum().sort_values(ascending=False).head(3).index
)
share = sales["revenue"] / sales["revenue"].sum()
share.head()""",
    ),
    Case(
        "pandas_02_column_list_with_missing",
        "pandas",
        "pandas-missing-column",
        "KeyError",
        "The feature list names bathrooms, which the frame does not have.",
        [IMPORTS, HOUSES],
        """features = ["sqft", "bedrooms", "bathrooms", "age"]
X = houses[features]  #<
y = houses["price"]""",
        fixed_target="""features = ["sqft", "bedrooms", "distance_km", "age"]
X = houses[features]
y = houses["price"]""",
    ),
    Case(
        "pandas_03_attribute_access_missing_column",
        "pandas",
        "pandas-missing-column",
        "AttributeError",
        "The frame has no column fare (it is Fare), so titanic.fare is not an attribute.",
        [IMPORTS, TITANIC],
        """print("median fare:", titanic.Fare.median())
titanic["fare_per_person"] = titanic.fare / (titanic.SibSp + 1)  #<""",
        fixed_target="""print("median fare:", titanic.Fare.median())
titanic["fare_per_person"] = titanic.Fare / (titanic.SibSp + 1)""",
    ),
    Case(
        "pandas_04_drop_columns_missing",
        "pandas",
        "pandas-missing-column",
        "KeyError",
        "drop(columns=...) lists Cabin, which this frame never had.",
        [IMPORTS, TITANIC],
        """titanic = titanic.drop(columns=["PassengerId", "Cabin"])  #<
titanic.shape""",
        fixed_target="""titanic = titanic.drop(columns=["PassengerId", "Cabin"], errors="ignore")
titanic.shape""",
    ),
    Case(
        "pandas_05_drop_axis1_in_loop",
        "pandas",
        "pandas-missing-column",
        "KeyError",
        "The loop drops each column named in to_drop; 'Ticket' is not in the frame.",
        [IMPORTS, TITANIC],
        """to_drop = ["PassengerId", "Ticket"]
for col in to_drop:
    print("dropping", col)
    titanic = titanic.drop([col], axis=1)  #<
titanic.columns""",
        fixed_target="""to_drop = ["PassengerId", "Ticket"]
for col in to_drop:
    print("dropping", col)
    if col in titanic.columns:
        titanic = titanic.drop([col], axis=1)
titanic.columns""",
    ),
    Case(
        "pandas_06_loc_missing_column",
        "pandas",
        "pandas-missing-column",
        "KeyError",
        "loc[:, 'price_per_sqft'] reads a column that was never created.",
        [IMPORTS, HOUSES],
        """expensive = houses.loc[houses["price"] > houses["price"].quantile(0.9)]
expensive.loc[:, "price_per_sqft"].describe()  #<""",
        fixed_target="""expensive = houses.loc[houses["price"] > houses["price"].quantile(0.9)]
(expensive.loc[:, "price"] / expensive.loc[:, "sqft"]).describe()""",
    ),
    Case(
        "pandas_07_groupby_missing_column",
        "pandas",
        "pandas-missing-column",
        "KeyError",
        "There is no category column to group by (the column is product).",
        [IMPORTS, SALES],
        """summary = (
    sales.groupby(["region", "category"])  #<
    .agg(orders=("order_id", "count"), revenue=("revenue", "sum"))
    .reset_index()
)""",
        fixed_target="""summary = (
    sales.groupby(["region", "product"])
    .agg(orders=("order_id", "count"), revenue=("revenue", "sum"))
    .reset_index()
)""",
    ),
    Case(
        "pandas_08_sort_values_missing",
        "pandas",
        "pandas-missing-column",
        "KeyError",
        "sort_values by total_revenue: the column is called revenue.",
        [IMPORTS, SALES],
        """sales.sort_values("total_revenue", ascending=False).head(10)  #<""",
        fixed_target="""sales.sort_values("revenue", ascending=False).head(10)""",
    ),
    Case(
        "pandas_09_merge_missing_key",
        "pandas",
        "pandas-merge-key",
        "KeyError",
        "The targets table keys on region_name, not region, so merge on='region' fails.",
        [
            IMPORTS,
            SALES,
            """targets = pd.DataFrame({
    "region_name": ["north", "south", "east", "west"],
    "target": [50_000, 42_000, 61_000, 38_000],
})""",
        ],
        """by_region = sales.groupby("region", as_index=False)["revenue"].sum()
report = by_region.merge(targets, on="region", how="left")  #<
report["attainment"] = report["revenue"] / report["target"]""",
        fixed_target="""by_region = sales.groupby("region", as_index=False)["revenue"].sum()
report = by_region.merge(targets, left_on="region", right_on="region_name", how="left")
report["attainment"] = report["revenue"] / report["target"]""",
    ),
    Case(
        "pandas_10_set_index_missing",
        "pandas",
        "pandas-missing-column",
        "KeyError",
        "The id column of the CSV is customer_id; set_index('id') cannot find it.",
        [IMPORTS, """customers = pd.read_csv("customers.csv")"""],
        """customers = customers.set_index("id")  #<
customers.loc[105]""",
        fixed_target="""customers = customers.set_index("customer_id")
customers.loc[105]""",
        files={"customers.csv": CUSTOMERS_CSV},
    ),
    Case(
        "pandas_11_rename_not_assigned",
        "pandas",
        "pandas-missing-column",
        "KeyError",
        "rename without inplace or assignment returned a new frame; houses still has no "
        "column size.",
        [IMPORTS, HOUSES, """houses.rename(columns={"sqft": "size"})"""],
        """houses["price_per_size"] = houses["price"] / houses["size"]  #<""",
        fixed_cells=[IMPORTS, HOUSES, """houses = houses.rename(columns={"sqft": "size"})"""],
    ),
    Case(
        "pandas_12_pivot_table_missing_value_column",
        "pandas",
        "pandas-missing-column",
        "KeyError",
        "pivot_table values='sales' names a column the frame does not have.",
        [IMPORTS, SALES],
        """table = sales.pivot_table(index="region", columns="product", values="sales", aggfunc="sum")  #<
table.round(0)""",
        fixed_target="""table = sales.pivot_table(index="region", columns="product", values="revenue", aggfunc="sum")
table.round(0)""",
    ),
    Case(
        "pandas_13_loc_missing_index_label",
        "pandas",
        "pandas-missing-label",
        "KeyError",
        "customer_id runs from 100 to 159; label 7 is not in the index.",
        [
            IMPORTS,
            """customers = pd.read_csv("customers.csv", index_col="customer_id")""",
        ],
        """customer = customers.loc[7]  #<
print(customer["name"], customer["city"])""",
        fixed_target="""customer = customers.iloc[7]
print(customer["name"], customer["city"])""",
        files={"customers.csv": CUSTOMERS_CSV},
    ),
    Case(
        "pandas_14_iloc_out_of_bounds",
        "pandas",
        "pandas-iloc-out-of-bounds",
        "IndexError",
        "sales has 240 rows; position 240 is out of bounds.",
        [IMPORTS, SALES],
        """first = sales.iloc[0]
last = sales.iloc[len(sales)]  #<
print(first["order_date"], "->", last["order_date"])""",
        fixed_target="""first = sales.iloc[0]
last = sales.iloc[len(sales) - 1]
print(first["order_date"], "->", last["order_date"])""",
    ),
    Case(
        "pandas_15_str_accessor_on_numbers",
        "pandas",
        "pandas-accessor-dtype",
        "AttributeError",
        "units is an integer column; .str only works on strings.",
        [IMPORTS, SALES],
        """sales["units_label"] = sales["units"].str.zfill(3)  #<
sales["units_label"].head()""",
        fixed_target="""sales["units_label"] = sales["units"].astype(str).str.zfill(3)
sales["units_label"].head()""",
    ),
    Case(
        "pandas_16_dt_accessor_on_strings",
        "pandas",
        "pandas-accessor-dtype",
        "AttributeError",
        "order_date holds strings (YYYY-MM-DD), so the .dt accessor is not available.",
        [IMPORTS, SALES],
        """sales["weekday"] = sales["order_date"].dt.day_name()  #<
sales.groupby("weekday")["revenue"].mean()""",
        fixed_target="""sales["weekday"] = pd.to_datetime(sales["order_date"]).dt.day_name()
sales.groupby("weekday")["revenue"].mean()""",
    ),
    Case(
        "pandas_17_cat_accessor_on_object",
        "pandas",
        "pandas-accessor-dtype",
        "AttributeError",
        "Embarked is an object column; .cat needs a category dtype.",
        [IMPORTS, TITANIC],
        """titanic["embarked_code"] = titanic["Embarked"].cat.codes  #<""",
        fixed_target="""titanic["embarked_code"] = titanic["Embarked"].astype("category").cat.codes""",
    ),
    Case(
        "pandas_18_astype_int_with_nan",
        "pandas",
        "pandas-invalid-cast",
        "IntCastingNaNError",
        "Age has 60 missing values, which cannot be cast to int.",
        [IMPORTS, TITANIC],
        """titanic["Age"] = titanic["Age"].astype(int)  #<
titanic["Age"].describe()""",
        fixed_target="""titanic["Age"] = titanic["Age"].fillna(titanic["Age"].median()).astype(int)
titanic["Age"].describe()""",
    ),
    Case(
        "pandas_19_astype_int_thousands_separator",
        "pandas",
        "pandas-invalid-cast",
        "ValueError",
        "The population column holds strings with thousands separators such as '12,400'.",
        [
            IMPORTS,
            """cities = pd.DataFrame({
    "city": ["Lyon", "Paris", "Nice", "Lille", "Nantes"],
    "population": ["522,250", "2,102,650", "342,669", "236,710", "320,732"],
    "area_km2": [47.87, 105.4, 71.92, 34.51, 65.19],
})""",
        ],
        """cities["population"] = cities["population"].astype(int)  #<
cities["density"] = cities["population"] / cities["area_km2"]""",
        fixed_target="""cities["population"] = cities["population"].str.replace(",", "").astype(int)
cities["density"] = cities["population"] / cities["area_km2"]""",
    ),
    Case(
        "pandas_20_to_numeric_currency",
        "pandas",
        "pandas-invalid-cast",
        "ValueError",
        "total_spend holds strings such as '$1,137.07' that to_numeric cannot parse.",
        [IMPORTS, """customers = pd.read_csv("customers.csv")"""],
        """customers["total_spend"] = pd.to_numeric(customers["total_spend"])  #<
customers.groupby("city")["total_spend"].mean()""",
        fixed_target="""customers["total_spend"] = pd.to_numeric(
    customers["total_spend"].str.replace(r"[$,]", "", regex=True)
)
customers.groupby("city")["total_spend"].mean()""",
        files={"customers.csv": CUSTOMERS_CSV},
    ),
    Case(
        "pandas_21_concat_not_a_list",
        "pandas",
        "python-call-signature",
        "TypeError",
        "pd.concat takes one iterable of frames; the two frames were passed as two arguments.",
        [
            IMPORTS,
            SALES,
            """q1 = sales[sales["order_date"] < "2023-04-01"]
q2 = sales[(sales["order_date"] >= "2023-04-01") & (sales["order_date"] < "2023-07-01")]""",
        ],
        """h1 = pd.concat(q1, q2)  #<
h1.shape""",
        fixed_target="""h1 = pd.concat([q1, q2])
h1.shape""",
    ),
    Case(
        "pandas_22_join_overlapping_columns",
        "pandas",
        "pandas-join-overlap",
        "ValueError",
        "Both frames have a revenue column and join got no suffix.",
        [
            IMPORTS,
            SALES,
            """by_region = sales.groupby("region")[["units", "revenue"]].sum()
last_year = pd.DataFrame(
    {"revenue": [41_000.0, 39_500.0, 52_300.0, 30_100.0]},
    index=["east", "north", "south", "west"],
)""",
        ],
        """comparison = by_region.join(last_year)  #<
comparison""",
        fixed_target="""comparison = by_region.join(last_year, rsuffix="_last_year")
comparison""",
    ),
    Case(
        "pandas_23_groupby_agg_missing_column",
        "pandas",
        "pandas-missing-column",
        "KeyError",
        "agg asks for a discount column that does not exist.",
        [IMPORTS, SALES],
        """stats = sales.groupby("product").agg({"units": "sum", "discount": "mean"})  #<
stats""",
        fixed_target="""stats = sales.groupby("product").agg({"units": "sum", "unit_price": "mean"})
stats""",
    ),
    Case(
        "pandas_24_groupby_select_missing_column",
        "pandas",
        "pandas-missing-column",
        "KeyError",
        "The grouped column is misspelled (revnue).",
        [IMPORTS, SALES],
        """for region in ["north", "south"]:
    subset = sales[sales["region"] == region]
    monthly = subset.groupby(subset["order_date"].str[:7])["revnue"].sum()  #<
    print(region, monthly.max())""",
        fixed_target="""for region in ["north", "south"]:
    subset = sales[sales["region"] == region]
    monthly = subset.groupby(subset["order_date"].str[:7])["revenue"].sum()
    print(region, monthly.max())""",
    ),
    Case(
        "pandas_25_drop_index_label_missing",
        "pandas",
        "pandas-missing-label",
        "KeyError",
        "The outlier label 500 is not in the 300-row index.",
        [IMPORTS, HOUSES],
        """outliers = [12, 87, 500]
houses = houses.drop(index=outliers)  #<
len(houses)""",
        fixed_target="""outliers = [12, 87, 250]
houses = houses.drop(index=outliers)
len(houses)""",
    ),
    Case(
        "pandas_26_to_datetime_wrong_format",
        "pandas",
        "pandas-invalid-cast",
        "ValueError",
        "The dates are ISO (2023-01-05) but the format says day/month/year.",
        [IMPORTS, SALES],
        """sales["order_date"] = pd.to_datetime(sales["order_date"], format="%d/%m/%Y")  #<
sales["order_date"].dt.month.value_counts().sort_index()""",
        fixed_target="""sales["order_date"] = pd.to_datetime(sales["order_date"], format="%Y-%m-%d")
sales["order_date"].dt.month.value_counts().sort_index()""",
    ),
    Case(
        "pandas_27_loc_column_list_missing",
        "pandas",
        "pandas-missing-column",
        "KeyError",
        "One of the listed columns (embarked) differs in case from the real Embarked.",
        [IMPORTS, TITANIC],
        """women = titanic.loc[titanic["Sex"] == "female", ["Pclass", "Fare", "embarked"]]  #<
women.groupby("Pclass").mean(numeric_only=True)""",
        fixed_target="""women = titanic.loc[titanic["Sex"] == "female", ["Pclass", "Fare", "Embarked"]]
women.groupby("Pclass").mean(numeric_only=True)""",
    ),
    Case(
        "pandas_28_feature_function_missing_column",
        "pandas",
        "pandas-missing-column",
        "KeyError",
        "add_features reads year_built, which the houses frame does not have (it has age); "
        "the KeyError is raised inside the function the cell defines.",
        [IMPORTS, HOUSES],
        """def add_features(frame):
    frame = frame.copy()
    frame["price_per_sqft"] = frame["price"] / frame["sqft"]
    frame["is_new"] = frame["year_built"] > 2015  #<
    return frame

enriched = add_features(houses)  #<call
enriched[["price_per_sqft", "is_new"]].describe()""",
        fixed_target="""def add_features(frame):
    frame = frame.copy()
    frame["price_per_sqft"] = frame["price"] / frame["sqft"]
    frame["is_new"] = frame["age"] < 10
    return frame

enriched = add_features(houses)
enriched[["price_per_sqft", "is_new"]].describe()""",
    ),
]

# ---------------------------------------------------------------------------------------------
# NumPy: broadcasting, matmul/dot, reshape, concatenate/stack, axis and index bounds.

_IMAGES = """rng = np.random.default_rng(5)
images = rng.integers(0, 256, size=(64, 28, 28)).astype(np.float32)
labels = rng.integers(0, 10, size=64)
flat = images.reshape(len(images), -1)
flat.shape"""

NUMPY: list[Case] = [
    Case(
        "numpy_01_broadcast_row_means",
        "numpy",
        "numpy-broadcast",
        "ValueError",
        "readings.mean(axis=1) has shape (500,), which cannot broadcast against (500, 3) "
        "from the right.",
        [IMPORTS, SENSORS],
        """centered = readings - readings.mean(axis=1)  #<
centered.std(axis=0)""",
        fixed_target="""centered = readings - readings.mean(axis=1, keepdims=True)
centered.std(axis=0)""",
    ),
    Case(
        "numpy_02_matmul_wrong_weights",
        "numpy",
        "numpy-matmul",
        "ValueError",
        "X has 3 columns but the weight vector has 4 entries.",
        [
            IMPORTS,
            SENSORS,
            """weights = np.array([0.5, -0.2, 1.0, 0.1])
bias = 0.3""",
        ],
        """scores = readings @ weights + bias  #<
probs = 1 / (1 + np.exp(-scores))
probs[:5]""",
        fixed_target="""scores = readings @ weights[:3] + bias
probs = 1 / (1 + np.exp(-scores))
probs[:5]""",
    ),
    Case(
        "numpy_03_dot_not_aligned",
        "numpy",
        "numpy-matmul",
        "ValueError",
        "np.dot(W, x) needs W's 10 columns to match x's 784 entries; W should be transposed.",
        [IMPORTS, _IMAGES, """W = np.random.default_rng(0).normal(0, 0.01, size=(784, 10))"""],
        """logits = np.dot(W, flat[0])  #<
np.argmax(logits)""",
        fixed_target="""logits = np.dot(W.T, flat[0])
np.argmax(logits)""",
    ),
    Case(
        "numpy_04_reshape_incompatible",
        "numpy",
        "numpy-reshape",
        "ValueError",
        "A 28x28 image has 784 pixels; it cannot be reshaped to 32x32.",
        [IMPORTS, _IMAGES],
        """sample = flat[10].reshape(32, 32)  #<
sample.mean()""",
        fixed_target="""sample = flat[10].reshape(28, 28)
sample.mean()""",
    ),
    Case(
        "numpy_05_reshape_in_loop",
        "numpy",
        "numpy-reshape",
        "ValueError",
        "Batches of 10 leave a last batch of 4 images, which cannot be reshaped to (10, 784).",
        [IMPORTS, _IMAGES],
        """batch_size = 10
means = []
for start in range(0, len(images), batch_size):
    batch = images[start:start + batch_size]
    batch = batch.reshape(batch_size, 784)  #<
    means.append(batch.mean(axis=1))
np.concatenate(means).shape""",
        fixed_target="""batch_size = 10
means = []
for start in range(0, len(images), batch_size):
    batch = images[start:start + batch_size]
    batch = batch.reshape(len(batch), 784)
    means.append(batch.mean(axis=1))
np.concatenate(means).shape""",
    ),
    Case(
        "numpy_06_concatenate_columns_mismatch",
        "numpy",
        "numpy-concatenate",
        "ValueError",
        "Stacking rows needs equal column counts: readings has 3 columns, extra has 2.",
        [IMPORTS, SENSORS, """extra = np.random.default_rng(9).normal(size=(100, 2))"""],
        """augmented = np.concatenate([readings, extra], axis=0)  #<
augmented.shape""",
        fixed_target="""augmented = np.concatenate([readings[:, :2], extra], axis=0)
augmented.shape""",
    ),
    Case(
        "numpy_07_hstack_row_mismatch",
        "numpy",
        "numpy-concatenate",
        "ValueError",
        "hstack joins columns, so the row counts (500 and 499) must match; np.diff drops a row.",
        [IMPORTS, SENSORS],
        """velocity = np.diff(readings, axis=0)
features = np.hstack([readings, velocity])  #<
features.shape""",
        fixed_target="""velocity = np.diff(readings, axis=0, prepend=readings[:1])
features = np.hstack([readings, velocity])
features.shape""",
    ),
    Case(
        "numpy_08_vstack_width_mismatch",
        "numpy",
        "numpy-concatenate",
        "ValueError",
        "The header row has 4 entries but the data rows have 3 columns.",
        [IMPORTS, SENSORS],
        """header = np.array([[0.0, 1.0, 2.0, 3.0]])
table = np.vstack([header, readings[:10]])  #<
table.shape""",
        fixed_target="""header = np.array([[0.0, 1.0, 2.0]])
table = np.vstack([header, readings[:10]])
table.shape""",
    ),
    Case(
        "numpy_09_argmax_axis_on_1d",
        "numpy",
        "numpy-axis",
        "AxisError",
        "labels is already 1-D class indices; argmax(axis=1) is out of bounds.",
        [IMPORTS, _IMAGES],
        """true_classes = np.argmax(labels, axis=1)  #<
np.bincount(true_classes)""",
        fixed_target="""true_classes = labels
np.bincount(true_classes)""",
    ),
    Case(
        "numpy_10_sum_axis_2_on_2d",
        "numpy",
        "numpy-axis",
        "AxisError",
        "flat is 2-D; summing over axis 2 is out of bounds.",
        [IMPORTS, _IMAGES],
        """brightness = flat.sum(axis=2) / 255  #<
brightness.shape""",
        fixed_target="""brightness = images.sum(axis=2) / 255
brightness.shape""",
    ),
    Case(
        "numpy_11_index_out_of_bounds_column",
        "numpy",
        "numpy-index",
        "IndexError",
        "readings has 3 columns (0..2); column 3 does not exist.",
        [IMPORTS, SENSORS],
        """names = ["sin", "cos", "trend"]
for j, name in enumerate(names):
    col = readings[:, j]
    print(name, round(col.min(), 2), round(col.max(), 2))
ratio = readings[:, 0] / readings[:, 3]  #<""",
        fixed_target="""names = ["sin", "cos", "trend"]
for j, name in enumerate(names):
    col = readings[:, j]
    print(name, round(col.min(), 2), round(col.max(), 2))
ratio = readings[:, 0] / readings[:, 2]""",
    ),
    Case(
        "numpy_12_index_out_of_bounds_row",
        "numpy",
        "numpy-index",
        "IndexError",
        "There are 64 images; index 64 is one past the end.",
        [IMPORTS, _IMAGES],
        """last = images[64]  #<
last.shape""",
        fixed_target="""last = images[63]
last.shape""",
    ),
    Case(
        "numpy_13_savetxt_3d",
        "numpy",
        "numpy-ndim",
        "ValueError",
        "np.savetxt writes 1-D or 2-D arrays; images is 3-D.",
        [IMPORTS, _IMAGES],
        """np.savetxt("images.csv", images[:5], delimiter=",", fmt="%d")  #<""",
        fixed_target="""np.savetxt("images.csv", flat[:5], delimiter=",", fmt="%d")""",
    ),
    Case(
        "numpy_14_inv_non_square",
        "numpy",
        "numpy-linalg",
        "LinAlgError",
        "The normal equations need X.T @ X; X itself (500x4) is not square.",
        [IMPORTS, SENSORS],
        """X = np.column_stack([np.ones(len(readings)), readings[:, :2], readings[:, 2] ** 2])
y = readings[:, 2]
beta = np.linalg.inv(X) @ X.T @ y  #<
beta""",
        fixed_target="""X = np.column_stack([np.ones(len(readings)), readings[:, :2], readings[:, 2] ** 2])
y = readings[:, 2]
beta = np.linalg.inv(X.T @ X) @ X.T @ y
beta""",
    ),
    Case(
        "numpy_15_inplace_broadcast",
        "numpy",
        "numpy-broadcast",
        "ValueError",
        "The per-image means have shape (64,), which cannot be subtracted in place from (64, 784).",
        [IMPORTS, _IMAGES],
        """flat -= flat.mean(axis=1)  #<
flat.mean()""",
        fixed_target="""flat -= flat.mean(axis=1)[:, None]
flat.mean()""",
    ),
    Case(
        "numpy_16_stack_different_shapes",
        "numpy",
        "numpy-concatenate",
        "ValueError",
        "np.stack needs arrays of one shape; the last crop is 20x28 instead of 28x28.",
        [IMPORTS, _IMAGES],
        """crops = [images[i] for i in range(3)] + [images[3][:20]]
batch = np.stack(crops)  #<
batch.shape""",
        fixed_target="""crops = [images[i] for i in range(3)] + [images[3]]
batch = np.stack(crops)
batch.shape""",
    ),
    Case(
        "numpy_17_ragged_array",
        "numpy",
        "numpy-ragged",
        "ValueError",
        "The sequences have different lengths, so np.array cannot build a 2-D float array.",
        [
            IMPORTS,
            """sequences = [[1.0, 2.0, 3.0], [4.0, 5.0], [6.0, 7.0, 8.0, 9.0]]""",
        ],
        """matrix = np.array(sequences, dtype=float)  #<
matrix.mean(axis=1)""",
        fixed_target="""width = max(len(s) for s in sequences)
matrix = np.array([s + [np.nan] * (width - len(s)) for s in sequences], dtype=float)
np.nanmean(matrix, axis=1)""",
    ),
    Case(
        "numpy_18_broadcast_feature_scaling",
        "numpy",
        "numpy-broadcast",
        "ValueError",
        "The scale vector has 4 entries for 3 feature columns.",
        [IMPORTS, SENSORS, """scale = np.array([1.0, 1.0, 5.0, 10.0])"""],
        """def normalise(block):
    return (block - block.min(axis=0)) / scale  #<

normalised = normalise(readings)  #<call
normalised.max(axis=0)""",
        fixed_cells=[IMPORTS, SENSORS, """scale = np.array([1.0, 1.0, 5.0])"""],
    ),
]

# ---------------------------------------------------------------------------------------------
# scikit-learn: fitted state, input validation, target type, parameters, metrics.

_TITANIC_XY = """features = ["Pclass", "Age", "SibSp", "Fare"]
X = titanic[features]
y = titanic["Survived"]"""

_HOUSES_SPLIT = """from sklearn.model_selection import train_test_split

features = ["sqft", "bedrooms", "age", "distance_km"]
X_train, X_test, y_train, y_test = train_test_split(
    houses[features], houses["price"], test_size=0.2, random_state=0
)"""

SKLEARN: list[Case] = [
    Case(
        "sklearn_01_predict_unfitted",
        "sklearn",
        "sklearn-not-fitted",
        "NotFittedError",
        "The grid search was fitted, but predict is called on the unfitted template estimator.",
        [
            IMPORTS,
            IRIS,
            SK_SPLIT,
            """from sklearn.model_selection import GridSearchCV
from sklearn.svm import SVC

svc = SVC()
search = GridSearchCV(svc, {"C": [0.1, 1, 10]}, cv=3)
search.fit(X_train, y_train)""",
        ],
        """y_pred = svc.predict(X_test)  #<
(y_pred == y_test).mean()""",
        fixed_target="""y_pred = search.best_estimator_.predict(X_test)
(y_pred == y_test).mean()""",
    ),
    Case(
        "sklearn_02_transform_unfitted_scaler",
        "sklearn",
        "sklearn-not-fitted",
        "NotFittedError",
        "A new StandardScaler was created for the test set and never fitted.",
        [
            IMPORTS,
            HOUSES,
            _HOUSES_SPLIT,
            """from sklearn.preprocessing import StandardScaler

train_scaler = StandardScaler()
X_train_s = train_scaler.fit_transform(X_train)""",
        ],
        """test_scaler = StandardScaler()
X_test_s = test_scaler.transform(X_test)  #<
X_test_s.mean(axis=0)""",
        fixed_target="""test_scaler = train_scaler
X_test_s = test_scaler.transform(X_test)
X_test_s.mean(axis=0)""",
    ),
    Case(
        "sklearn_03_predict_proba_unfitted_in_loop",
        "sklearn",
        "sklearn-not-fitted",
        "NotFittedError",
        "The loop fits a clone of each model but predicts with the original, unfitted one.",
        [
            IMPORTS,
            IRIS,
            SK_SPLIT,
            """from sklearn.base import clone
from sklearn.linear_model import LogisticRegression
from sklearn.naive_bayes import GaussianNB

candidates = [LogisticRegression(max_iter=500), GaussianNB()]""",
        ],
        """for est in candidates:
    fitted = clone(est).fit(X_train, y_train)
    proba = est.predict_proba(X_test)  #<
    print(type(est).__name__, proba.max(axis=1).mean())""",
        fixed_target="""for est in candidates:
    fitted = clone(est).fit(X_train, y_train)
    proba = fitted.predict_proba(X_test)
    print(type(est).__name__, proba.max(axis=1).mean())""",
    ),
    Case(
        "sklearn_04_nan_linear_regression",
        "sklearn",
        "sklearn-nan-input",
        "ValueError",
        "Age has missing values and LinearRegression rejects NaN.",
        [IMPORTS, TITANIC],
        """from sklearn.linear_model import LinearRegression

reg = LinearRegression()
reg.fit(titanic[["Age", "Pclass"]], titanic["Fare"])  #<
reg.coef_""",
        fixed_target="""from sklearn.linear_model import LinearRegression

reg = LinearRegression()
reg.fit(titanic[["Age", "Pclass"]].fillna(titanic["Age"].median()), titanic["Fare"])
reg.coef_""",
    ),
    Case(
        "sklearn_05_nan_logistic_regression",
        "sklearn",
        "sklearn-nan-input",
        "ValueError",
        "X includes Age with NaN; LogisticRegression does not accept missing values.",
        [IMPORTS, TITANIC, _TITANIC_XY],
        """from sklearn.linear_model import LogisticRegression

clf = LogisticRegression(max_iter=1000)
clf.fit(X, y)  #<""",
        fixed_cells=[
            IMPORTS,
            TITANIC,
            _TITANIC_XY.replace(
                "X = titanic[features]", "X = titanic[features].fillna(titanic[features].median())"
            ),
        ],
    ),
    Case(
        "sklearn_06_nan_svc_after_merge",
        "sklearn",
        "sklearn-nan-input",
        "ValueError",
        "The left merge leaves NaN scores for customers without a survey row; SVC rejects NaN.",
        [
            IMPORTS,
            """rng = np.random.default_rng(11)
clients = pd.DataFrame({"client": range(120), "tenure": rng.integers(1, 60, 120),
                        "churned": rng.integers(0, 2, 120)})
survey = pd.DataFrame({"client": range(0, 120, 2), "satisfaction": rng.uniform(1, 5, 60)})
data = clients.merge(survey, on="client", how="left")""",
        ],
        """from sklearn.svm import SVC

model = SVC(kernel="rbf", C=1.0)
model.fit(data[["tenure", "satisfaction"]], data["churned"])  #<""",
        fixed_target="""from sklearn.svm import SVC

model = SVC(kernel="rbf", C=1.0)
model.fit(data[["tenure", "satisfaction"]].fillna(3.0), data["churned"])""",
    ),
    Case(
        "sklearn_07_nan_knn_predict",
        "sklearn",
        "sklearn-nan-input",
        "ValueError",
        "The model was fitted on complete rows, but the rows to score still contain NaN Age.",
        [
            IMPORTS,
            TITANIC,
            _TITANIC_XY,
            """from sklearn.neighbors import KNeighborsClassifier

complete = X.notna().all(axis=1)
knn = KNeighborsClassifier(n_neighbors=7).fit(X[complete], y[complete])""",
        ],
        """to_score = X[~complete]
knn.predict(to_score)  #<""",
        fixed_target="""to_score = X[~complete].fillna(X["Age"].median())
knn.predict(to_score)""",
    ),
    Case(
        "sklearn_08_nan_gradient_boosting_vs_hist",
        "sklearn",
        "sklearn-nan-input",
        "ValueError",
        "GradientBoostingClassifier rejects NaN (HistGradientBoostingClassifier would accept it).",
        [
            IMPORTS,
            TITANIC,
            _TITANIC_XY,
            """from sklearn.ensemble import GradientBoostingClassifier

model = GradientBoostingClassifier(random_state=0)""",
        ],
        """model.fit(X, y)  #<
model.score(X, y)""",
        fixed_cells=[
            IMPORTS,
            TITANIC,
            _TITANIC_XY,
            """from sklearn.ensemble import HistGradientBoostingClassifier

model = HistGradientBoostingClassifier(random_state=0)""",
        ],
    ),
    Case(
        "sklearn_09_nan_ok_for_random_forest",
        "sklearn",
        "sklearn-nan-input",
        "ValueError",
        "LogisticRegression rejects the NaN in Age; the fixed notebook uses a random forest, "
        "which supports missing values in this scikit-learn version.",
        [
            IMPORTS,
            TITANIC,
            _TITANIC_XY,
            SK_SPLIT,
            """from sklearn.linear_model import LogisticRegression

model = LogisticRegression(max_iter=1000)""",
        ],
        """model.fit(X_train, y_train)  #<
print("accuracy", model.score(X_test, y_test))""",
        fixed_cells=[
            IMPORTS,
            TITANIC,
            _TITANIC_XY,
            SK_SPLIT,
            """from sklearn.ensemble import RandomForestClassifier

model = RandomForestClassifier(n_estimators=50, random_state=0)""",
        ],
    ),
    Case(
        "sklearn_10_string_column_in_X",
        "sklearn",
        "sklearn-non-numeric-input",
        "ValueError",
        "neighborhood is a string column; the regressor cannot convert 'Downtown' to float.",
        [IMPORTS, HOUSES],
        """from sklearn.linear_model import Ridge

X = houses.drop(columns=["price"])
ridge = Ridge(alpha=1.0).fit(X, houses["price"])  #<
ridge.score(X, houses["price"])""",
        fixed_target="""from sklearn.linear_model import Ridge

X = pd.get_dummies(houses.drop(columns=["price"]), columns=["neighborhood"])
ridge = Ridge(alpha=1.0).fit(X, houses["price"])
ridge.score(X, houses["price"])""",
    ),
    Case(
        "sklearn_11_string_column_scaler",
        "sklearn",
        "sklearn-non-numeric-input",
        "ValueError",
        "Sex and Embarked are strings; StandardScaler needs numbers.",
        [IMPORTS, TITANIC],
        """from sklearn.preprocessing import StandardScaler

cols = ["Pclass", "Sex", "Fare", "Embarked"]
scaled = StandardScaler().fit_transform(titanic[cols])  #<""",
        fixed_target="""from sklearn.preprocessing import StandardScaler

cols = ["Pclass", "SibSp", "Fare"]
scaled = StandardScaler().fit_transform(titanic[cols])""",
    ),
    Case(
        "sklearn_12_length_mismatch",
        "sklearn",
        "sklearn-length-mismatch",
        "ValueError",
        "X was filtered to complete rows (340) but y was not (400).",
        [IMPORTS, TITANIC],
        """from sklearn.tree import DecisionTreeClassifier

X = titanic[["Pclass", "Age", "Fare"]].dropna()
y = titanic["Survived"]
tree = DecisionTreeClassifier(max_depth=4).fit(X, y)  #<""",
        fixed_target="""from sklearn.tree import DecisionTreeClassifier

complete = titanic.dropna(subset=["Age"])
X = complete[["Pclass", "Age", "Fare"]]
y = complete["Survived"]
tree = DecisionTreeClassifier(max_depth=4).fit(X, y)""",
    ),
    Case(
        "sklearn_13_metric_length_mismatch",
        "sklearn",
        "sklearn-length-mismatch",
        "ValueError",
        "The predictions are for the test split but are compared with y_train.",
        [
            IMPORTS,
            HOUSES,
            _HOUSES_SPLIT,
            """from sklearn.linear_model import LinearRegression

lr = LinearRegression().fit(X_train, y_train)""",
        ],
        """from sklearn.metrics import r2_score

pred = lr.predict(X_test)
r2_score(y_train, pred)  #<""",
        fixed_target="""from sklearn.metrics import r2_score

pred = lr.predict(X_test)
r2_score(y_test, pred)""",
    ),
    Case(
        "sklearn_14_feature_count_mismatch",
        "sklearn",
        "sklearn-feature-count",
        "ValueError",
        "The model was fitted on 4 features; the new houses array has 3 columns.",
        [
            IMPORTS,
            HOUSES,
            """from sklearn.linear_model import LinearRegression

features = ["sqft", "bedrooms", "age", "distance_km"]
model = LinearRegression().fit(houses[features].to_numpy(), houses["price"].to_numpy())""",
        ],
        """new_houses = np.array([
    [1200, 2, 15],
    [2100, 4, 3],
])
model.predict(new_houses)  #<""",
        fixed_target="""new_houses = np.array([
    [1200, 2, 15, 4.5],
    [2100, 4, 3, 12.0],
])
model.predict(new_houses)""",
    ),
    Case(
        "sklearn_15_feature_names_order",
        "sklearn",
        "sklearn-feature-names",
        "ValueError",
        "The frame passed to predict has the training columns in another order.",
        [
            IMPORTS,
            HOUSES,
            _HOUSES_SPLIT,
            """from sklearn.ensemble import RandomForestRegressor

forest = RandomForestRegressor(n_estimators=30, random_state=0).fit(X_train, y_train)""",
        ],
        """reordered = X_test[["age", "sqft", "bedrooms", "distance_km"]]
forest.predict(reordered)[:5]  #<""",
        fixed_target="""reordered = X_test[["sqft", "bedrooms", "age", "distance_km"]]
forest.predict(reordered)[:5]""",
    ),
    Case(
        "sklearn_16_feature_names_unseen",
        "sklearn",
        "sklearn-feature-names",
        "ValueError",
        "The scoring frame renamed distance_km to dist; feature names must match fit.",
        [
            IMPORTS,
            HOUSES,
            _HOUSES_SPLIT,
            """from sklearn.linear_model import LinearRegression

lr = LinearRegression().fit(X_train, y_train)
scoring = X_test.rename(columns={"distance_km": "dist"})""",
        ],
        """lr.predict(scoring)  #<""",
        fixed_cells=[
            IMPORTS,
            HOUSES,
            _HOUSES_SPLIT,
            """from sklearn.linear_model import LinearRegression

lr = LinearRegression().fit(X_train, y_train)
scoring = X_test.rename(columns={"distance": "dist"})""",
        ],
    ),
    Case(
        "sklearn_17_continuous_target_classifier",
        "sklearn",
        "sklearn-target-type",
        "ValueError",
        "price is continuous; a classifier needs discrete labels.",
        [IMPORTS, HOUSES, _HOUSES_SPLIT],
        """from sklearn.linear_model import LogisticRegression

clf = LogisticRegression(max_iter=1000)
clf.fit(X_train, y_train)  #<""",
        fixed_target="""from sklearn.linear_model import LinearRegression

clf = LinearRegression()
clf.fit(X_train, y_train)""",
    ),
    Case(
        "sklearn_18_continuous_target_forest_in_loop",
        "sklearn",
        "sklearn-target-type",
        "ValueError",
        "The regression target Fare is given to a RandomForestClassifier.",
        [IMPORTS, TITANIC],
        """from sklearn.ensemble import RandomForestClassifier

results = {}
for depth in [3, 5]:
    rf = RandomForestClassifier(max_depth=depth, n_estimators=20, random_state=0)
    rf.fit(titanic[["Pclass", "SibSp"]], titanic["Fare"])  #<
    results[depth] = rf.score(titanic[["Pclass", "SibSp"]], titanic["Fare"])""",
        fixed_target="""from sklearn.ensemble import RandomForestRegressor

results = {}
for depth in [3, 5]:
    rf = RandomForestRegressor(max_depth=depth, n_estimators=20, random_state=0)
    rf.fit(titanic[["Pclass", "SibSp"]], titanic["Fare"])
    results[depth] = rf.score(titanic[["Pclass", "SibSp"]], titanic["Fare"])""",
    ),
    Case(
        "sklearn_19_invalid_n_estimators",
        "sklearn",
        "sklearn-invalid-param",
        "InvalidParameterError",
        "n_estimators must be at least 1.",
        [IMPORTS, IRIS, SK_SPLIT, """n_trees = 0"""],
        """from sklearn.ensemble import RandomForestClassifier

rf = RandomForestClassifier(n_estimators=n_trees, random_state=0)
rf.fit(X_train, y_train)  #<""",
        fixed_cells=[IMPORTS, IRIS, SK_SPLIT, """n_trees = 100"""],
    ),
    Case(
        "sklearn_20_invalid_max_depth",
        "sklearn",
        "sklearn-invalid-param",
        "InvalidParameterError",
        "max_depth=-1 (LightGBM's 'no limit') is invalid for scikit-learn trees; use None.",
        [IMPORTS, IRIS, SK_SPLIT],
        """from sklearn.tree import DecisionTreeClassifier

tree = DecisionTreeClassifier(max_depth=-1, criterion="entropy")
tree.fit(X_train, y_train)  #<""",
        fixed_target="""from sklearn.tree import DecisionTreeClassifier

tree = DecisionTreeClassifier(max_depth=None, criterion="entropy")
tree.fit(X_train, y_train)""",
    ),
    Case(
        "sklearn_21_invalid_C",
        "sklearn",
        "sklearn-invalid-param",
        "InvalidParameterError",
        "The regularisation strength C must be positive.",
        [IMPORTS, IRIS, SK_SPLIT],
        """from sklearn.linear_model import LogisticRegression

scores = []
for C in [-1, 0.1, 1.0]:
    model = LogisticRegression(C=C, max_iter=500)
    model.fit(X_train, y_train)  #<
    scores.append(model.score(X_test, y_test))""",
        fixed_target="""from sklearn.linear_model import LogisticRegression

scores = []
for C in [0.01, 0.1, 1.0]:
    model = LogisticRegression(C=C, max_iter=500)
    model.fit(X_train, y_train)
    scores.append(model.score(X_test, y_test))""",
    ),
    Case(
        "sklearn_22_invalid_kmeans_clusters",
        "sklearn",
        "sklearn-invalid-param",
        "InvalidParameterError",
        "n_clusters=0 is not a valid KMeans parameter.",
        [IMPORTS, IRIS],
        """from sklearn.cluster import KMeans

inertia = {}
for k in range(0, 5):
    km = KMeans(n_clusters=k, n_init=10, random_state=0).fit(X)  #<
    inertia[k] = km.inertia_""",
        fixed_target="""from sklearn.cluster import KMeans

inertia = {}
for k in range(1, 5):
    km = KMeans(n_clusters=k, n_init=10, random_state=0).fit(X)
    inertia[k] = km.inertia_""",
    ),
    Case(
        "sklearn_23_split_empty_selection",
        "sklearn",
        "sklearn-empty-input",
        "ValueError",
        "region values are lower case, so the filter on 'North' selects no rows.",
        [IMPORTS, SALES],
        """from sklearn.model_selection import train_test_split

north = sales[sales["region"] == "North"]
X_tr, X_te, y_tr, y_te = train_test_split(  #<
    north[["units", "unit_price"]], north["revenue"], test_size=0.2
)""",
        fixed_target="""from sklearn.model_selection import train_test_split

north = sales[sales["region"] == "north"]
X_tr, X_te, y_tr, y_te = train_test_split(
    north[["units", "unit_price"]], north["revenue"], test_size=0.2
)""",
    ),
    Case(
        "sklearn_24_accuracy_on_probabilities",
        "sklearn",
        "sklearn-metric-input",
        "ValueError",
        "predict_proba's column of probabilities is continuous; accuracy_score needs labels.",
        [
            IMPORTS,
            TITANIC,
            """from sklearn.linear_model import LogisticRegression

X = titanic[["Pclass", "SibSp", "Fare"]]
y = titanic["Survived"]
clf = LogisticRegression(max_iter=500).fit(X, y)""",
        ],
        """from sklearn.metrics import accuracy_score

proba = clf.predict_proba(X)[:, 1]
accuracy_score(y, proba)  #<""",
        fixed_target="""from sklearn.metrics import accuracy_score

proba = clf.predict_proba(X)[:, 1]
accuracy_score(y, proba > 0.5)""",
    ),
    Case(
        "sklearn_25_confusion_display_labels",
        "sklearn",
        "sklearn-metric-input",
        "ValueError",
        "The confusion matrix is 3x3 but display_labels has two names.",
        [
            PLOT_IMPORTS,
            IRIS,
            SK_SPLIT,
            """from sklearn.metrics import confusion_matrix
from sklearn.neighbors import KNeighborsClassifier

knn = KNeighborsClassifier().fit(X_train, y_train)
cm = confusion_matrix(y_test, knn.predict(X_test))""",
        ],
        """from sklearn.metrics import ConfusionMatrixDisplay

disp = ConfusionMatrixDisplay(cm, display_labels=["setosa", "other"])
disp.plot(cmap="Blues")  #<""",
        fixed_target="""from sklearn.metrics import ConfusionMatrixDisplay

disp = ConfusionMatrixDisplay(cm, display_labels=iris.target_names)
disp.plot(cmap="Blues")""",
    ),
    Case(
        "sklearn_26_pca_too_many_components",
        "sklearn",
        "sklearn-invalid-param",
        "ValueError",
        "iris has 4 features, so PCA cannot keep 10 components.",
        [IMPORTS, IRIS],
        """from sklearn.decomposition import PCA

pca = PCA(n_components=10)
components = pca.fit_transform(X)  #<
pca.explained_variance_ratio_.cumsum()""",
        fixed_target="""from sklearn.decomposition import PCA

pca = PCA(n_components=4)
components = pca.fit_transform(X)
pca.explained_variance_ratio_.cumsum()""",
    ),
    Case(
        "sklearn_27_onehot_unknown_category",
        "sklearn",
        "sklearn-unknown-category",
        "ValueError",
        "The encoder saw only S, C and Q; the new passengers embarked at 'B'.",
        [
            IMPORTS,
            TITANIC,
            """from sklearn.preprocessing import OneHotEncoder

enc = OneHotEncoder(sparse_output=False).fit(titanic[["Embarked"]])
new_passengers = pd.DataFrame({"Embarked": ["S", "B", "C"]})""",
        ],
        """enc.transform(new_passengers[["Embarked"]])  #<""",
        fixed_cells=[
            IMPORTS,
            TITANIC,
            """from sklearn.preprocessing import OneHotEncoder

enc = OneHotEncoder(sparse_output=False, handle_unknown="ignore").fit(titanic[["Embarked"]])
new_passengers = pd.DataFrame({"Embarked": ["S", "B", "C"]})""",
        ],
    ),
    Case(
        "sklearn_28_label_encoder_unseen",
        "sklearn",
        "sklearn-unknown-category",
        "ValueError",
        "The label encoder was fitted on the training regions only; 'central' is unseen.",
        [
            IMPORTS,
            SALES,
            """from sklearn.preprocessing import LabelEncoder

le = LabelEncoder().fit(sales["region"])""",
        ],
        """new_orders = pd.DataFrame({"region": ["north", "central"], "units": [3, 5]})
new_orders["region_code"] = le.transform(new_orders["region"])  #<
new_orders""",
        fixed_target="""new_orders = pd.DataFrame({"region": ["north", "east"], "units": [3, 5]})
new_orders["region_code"] = le.transform(new_orders["region"])
new_orders""",
    ),
    Case(
        "sklearn_29_kmeans_more_clusters_than_samples",
        "sklearn",
        "sklearn-invalid-param",
        "ValueError",
        "Only 6 stores are clustered, fewer than the 8 clusters requested.",
        [
            IMPORTS,
            """stores = pd.DataFrame({
    "store": list("ABCDEF"),
    "sqm": [120, 340, 95, 410, 220, 180],
    "weekly_sales": [8.1, 22.4, 6.3, 30.2, 14.8, 11.0],
})""",
        ],
        """from sklearn.cluster import KMeans

km = KMeans(n_clusters=8, n_init=10, random_state=0)
stores["cluster"] = km.fit_predict(stores[["sqm", "weekly_sales"]])  #<""",
        fixed_target="""from sklearn.cluster import KMeans

km = KMeans(n_clusters=3, n_init=10, random_state=0)
stores["cluster"] = km.fit_predict(stores[["sqm", "weekly_sales"]])""",
    ),
    Case(
        "sklearn_30_evaluate_function_nan",
        "sklearn",
        "sklearn-nan-input",
        "ValueError",
        "evaluate fits each model on X, whose Age column has NaN; SVR rejects missing values "
        "(the error is raised inside the helper, on the first loop iteration).",
        [IMPORTS, TITANIC],
        """from sklearn.linear_model import Ridge
from sklearn.svm import SVR

def evaluate(model, X, y):
    model.fit(X, y)  #<
    return model.score(X, y)

X = titanic[["Age", "Pclass", "SibSp"]]
results = {}
for name, model in [("svr", SVR()), ("ridge", Ridge())]:
    results[name] = evaluate(model, X, titanic["Fare"])  #<call
results""",
        fixed_target="""from sklearn.linear_model import Ridge
from sklearn.svm import SVR

def evaluate(model, X, y):
    model.fit(X, y)
    return model.score(X, y)

X = titanic[["Age", "Pclass", "SibSp"]].fillna(titanic["Age"].median())
results = {}
for name, model in [("svr", SVR()), ("ridge", Ridge())]:
    results[name] = evaluate(model, X, titanic["Fare"])
results""",
    ),
]

# ---------------------------------------------------------------------------------------------
# PyTorch: layer input sizes and channels, dtypes, loss shapes, view sizes, grad and numpy.

_MLP = """X = torch.randn(64, 20)
y = (X[:, 0] > 0).long()
model = nn.Sequential(nn.Linear(20, 32), nn.ReLU(), nn.Linear(32, 2))"""

_CNN = """images = torch.rand(8, 1, 28, 28)
conv = nn.Sequential(
    nn.Conv2d(3, 16, kernel_size=3, padding=1),
    nn.ReLU(),
    nn.MaxPool2d(2),
)"""

TORCH: list[Case] = [
    Case(
        "torch_01_linear_in_features",
        "torch",
        "torch-linear-shape",
        "RuntimeError",
        "The first Linear layer expects 20 features but the batch has 24 (four columns added).",
        [TORCH_SETUP, _MLP, """X_ext = torch.cat([X, X[:, :4] ** 2], dim=1)"""],
        """logits = model(X_ext)  #<
logits.argmax(dim=1)[:10]""",
        fixed_target="""logits = model(X_ext[:, :20])
logits.argmax(dim=1)[:10]""",
    ),
    Case(
        "torch_02_linear_after_flatten",
        "torch",
        "torch-linear-shape",
        "RuntimeError",
        "After two 2x2 poolings a 28x28 image is 7x7x16=784 values, not 16*5*5 as the head "
        "assumes.",
        [
            TORCH_SETUP,
            """class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2d(1, 8, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
            nn.Conv2d(8, 16, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
        )
        self.head = nn.Linear(16 * 5 * 5, 10)

    def forward(self, x):
        return self.head(torch.flatten(self.features(x), 1))

net = Net()
batch = torch.rand(4, 1, 28, 28)""",
        ],
        """out = net(batch)  #<
out.shape""",
        fixed_cells=[
            TORCH_SETUP,
            """class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2d(1, 8, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
            nn.Conv2d(8, 16, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
        )
        self.head = nn.Linear(16 * 7 * 7, 10)

    def forward(self, x):
        return self.head(torch.flatten(self.features(x), 1))

net = Net()
batch = torch.rand(4, 1, 28, 28)""",
        ],
    ),
    Case(
        "torch_03_conv_in_channels",
        "torch",
        "torch-conv-channels",
        "RuntimeError",
        "The first Conv2d expects 3 input channels but the grayscale batch has 1.",
        [TORCH_SETUP, _CNN],
        """features = conv(images)  #<
features.shape""",
        fixed_target="""features = conv(images.repeat(1, 3, 1, 1))
features.shape""",
    ),
    Case(
        "torch_04_conv_channels_last",
        "torch",
        "torch-conv-channels",
        "RuntimeError",
        "The images were converted from NumPy in (N, H, W, C) layout; Conv2d reads dimension 1 "
        "(32) as channels.",
        [
            TORCH_SETUP,
            """rng = np.random.default_rng(0)
batch_np = rng.random((4, 32, 32, 3), dtype=np.float32)
layer = nn.Conv2d(3, 8, kernel_size=5)""",
        ],
        """x = torch.from_numpy(batch_np)
out = layer(x)  #<
out.shape""",
        fixed_target="""x = torch.from_numpy(batch_np).permute(0, 3, 1, 2)
out = layer(x)
out.shape""",
    ),
    Case(
        "torch_05_float64_input",
        "torch",
        "torch-dtype",
        "RuntimeError",
        "torch.from_numpy keeps float64, but the Linear weights are float32.",
        [
            TORCH_SETUP,
            """features = np.random.default_rng(1).normal(size=(100, 20))
model = nn.Sequential(nn.Linear(20, 32), nn.ReLU(), nn.Linear(32, 1))""",
        ],
        """inputs = torch.from_numpy(features)
with torch.no_grad():
    preds = model(inputs)  #<
preds.mean()""",
        fixed_target="""inputs = torch.from_numpy(features).float()
with torch.no_grad():
    preds = model(inputs)
preds.mean()""",
    ),
    Case(
        "torch_06_long_input_to_linear",
        "torch",
        "torch-dtype",
        "RuntimeError",
        "The one-hot tensor is int64 (Long); Linear needs floating point input.",
        [
            TORCH_SETUP,
            """tokens = torch.randint(0, 10, (16,))
onehot = nn.functional.one_hot(tokens, num_classes=10)
encoder = nn.Linear(10, 4)""",
        ],
        """emb = encoder(onehot)  #<
emb.shape""",
        fixed_target="""emb = encoder(onehot.float())
emb.shape""",
    ),
    Case(
        "torch_07_bce_long_target",
        "torch",
        "torch-dtype",
        "RuntimeError",
        "BCELoss needs float targets; the labels are int64.",
        [
            TORCH_SETUP,
            """X = torch.randn(32, 5)
labels = (X.sum(dim=1) > 0).long()
clf = nn.Sequential(nn.Linear(5, 1), nn.Sigmoid())
criterion = nn.BCELoss()""",
        ],
        """probs = clf(X).squeeze(1)
loss = criterion(probs, labels)  #<
loss.backward()""",
        fixed_target="""probs = clf(X).squeeze(1)
loss = criterion(probs, labels.float())
loss.backward()""",
    ),
    Case(
        "torch_08_bce_shape_mismatch",
        "torch",
        "torch-loss-shape",
        "ValueError",
        "The sigmoid head outputs (32, 1) while the targets have shape (32,).",
        [
            TORCH_SETUP,
            """X = torch.randn(32, 5)
labels = (X.sum(dim=1) > 0).float()
clf = nn.Sequential(nn.Linear(5, 1), nn.Sigmoid())
criterion = nn.BCELoss()
optimizer = torch.optim.SGD(clf.parameters(), lr=0.1)""",
        ],
        """for epoch in range(3):
    optimizer.zero_grad()
    probs = clf(X)
    loss = criterion(probs, labels)  #<
    loss.backward()
    optimizer.step()""",
        fixed_target="""for epoch in range(3):
    optimizer.zero_grad()
    probs = clf(X).squeeze(1)
    loss = criterion(probs, labels)
    loss.backward()
    optimizer.step()""",
    ),
    Case(
        "torch_09_cross_entropy_column_target",
        "torch",
        "torch-loss-shape",
        "RuntimeError",
        "CrossEntropyLoss expects class indices of shape (N,); the labels are a (N, 1) column.",
        [
            TORCH_SETUP,
            _MLP,
            """targets = y.unsqueeze(1)
criterion = nn.CrossEntropyLoss()""",
        ],
        """logits = model(X)
loss = criterion(logits, targets)  #<
loss.item()""",
        fixed_target="""logits = model(X)
loss = criterion(logits, targets.squeeze(1))
loss.item()""",
    ),
    Case(
        "torch_10_nll_batch_mismatch",
        "torch",
        "torch-loss-shape",
        "ValueError",
        "The log-probabilities are for 64 samples but only the first 32 labels are passed.",
        [TORCH_SETUP, _MLP],
        """log_probs = torch.log_softmax(model(X), dim=1)
loss = nn.functional.nll_loss(log_probs, y[:32])  #<""",
        fixed_target="""log_probs = torch.log_softmax(model(X), dim=1)
loss = nn.functional.nll_loss(log_probs[:32], y[:32])""",
    ),
    Case(
        "torch_11_view_invalid_size",
        "torch",
        "torch-view-size",
        "RuntimeError",
        "The images are 1x28x28 = 784 values each, so view(-1, 28 * 28 * 3) cannot split the "
        "batch.",
        [TORCH_SETUP, """images = torch.rand(10, 1, 28, 28)"""],
        """flat = images.view(-1, 28 * 28 * 3)  #<
flat.shape""",
        fixed_target="""flat = images.view(-1, 28 * 28)
flat.shape""",
    ),
    Case(
        "torch_12_reshape_sequence_in_function",
        "torch",
        "torch-view-size",
        "RuntimeError",
        "A 100-step series cannot be cut into windows of 30 steps with reshape.",
        [TORCH_SETUP, """series = torch.sin(torch.linspace(0, 20, 100))"""],
        """def to_windows(x, width):
    return x.reshape(-1, width)  #<

windows = to_windows(series, 30)  #<call
windows.mean(dim=1)""",
        fixed_target="""def to_windows(x, width):
    return x.reshape(-1, width)

windows = to_windows(series, 25)
windows.mean(dim=1)""",
    ),
    Case(
        "torch_13_numpy_requires_grad",
        "torch",
        "torch-numpy-grad",
        "RuntimeError",
        "The model output requires grad, so .numpy() refuses to convert it.",
        [TORCH_SETUP, _MLP],
        """scores = model(X)[:, 1]
scores_np = scores.numpy()  #<
np.percentile(scores_np, [5, 50, 95])""",
        fixed_target="""scores = model(X)[:, 1]
scores_np = scores.detach().numpy()
np.percentile(scores_np, [5, 50, 95])""",
    ),
    Case(
        "torch_14_numpy_parameter",
        "torch",
        "torch-numpy-grad",
        "RuntimeError",
        "A layer's weight is a Parameter that requires grad.",
        [PLOT_IMPORTS.replace("import pandas as pd\n", ""), TORCH_SETUP, _MLP],
        """w = model[0].weight.numpy()  #<
plt.imshow(w, cmap="coolwarm")
plt.colorbar()""",
        fixed_target="""w = model[0].weight.detach().numpy()
plt.imshow(w, cmap="coolwarm")
plt.colorbar()""",
    ),
    Case(
        "torch_15_matmul_mismatch",
        "torch",
        "torch-matmul",
        "RuntimeError",
        "Q (8x16) @ K (8x16) needs K transposed for attention scores.",
        [
            TORCH_SETUP,
            """Q = torch.randn(8, 16)
K = torch.randn(8, 16)
V = torch.randn(8, 16)""",
        ],
        """scores = Q @ K / 16 ** 0.5  #<
attn = torch.softmax(scores, dim=-1) @ V
attn.shape""",
        fixed_target="""scores = Q @ K.T / 16 ** 0.5
attn = torch.softmax(scores, dim=-1) @ V
attn.shape""",
    ),
    Case(
        "torch_16_cat_size_mismatch",
        "torch",
        "torch-cat",
        "RuntimeError",
        "Concatenating along features needs equal batch sizes (64 vs 32).",
        [TORCH_SETUP, _MLP, """extra = torch.randn(32, 3)"""],
        """combined = torch.cat([X, extra], dim=1)  #<
combined.shape""",
        fixed_target="""combined = torch.cat([X[:32], extra], dim=1)
combined.shape""",
    ),
    Case(
        "torch_17_embedding_index_out_of_range",
        "torch",
        "torch-index",
        "IndexError",
        "The vocabulary has 1000 ids but the embedding table has 999 rows (off by one).",
        [
            TORCH_SETUP,
            """vocab_size = 1000
token_ids = torch.arange(vocab_size).reshape(10, 100)
embedding = nn.Embedding(vocab_size - 1, 16)""",
        ],
        """vectors = embedding(token_ids)  #<
vectors.mean(dim=1).shape""",
        fixed_cells=[
            TORCH_SETUP,
            """vocab_size = 1000
token_ids = torch.arange(vocab_size).reshape(10, 100)
embedding = nn.Embedding(vocab_size, 16)""",
        ],
    ),
    Case(
        "torch_18_conv_2d_input",
        "torch",
        "torch-conv-channels",
        "RuntimeError",
        "A single 28x28 image without batch and channel dimensions is 2-D; Conv2d needs 3-D "
        "or 4-D input.",
        [
            TORCH_SETUP,
            """layer = nn.Conv2d(1, 4, kernel_size=3)
image = torch.rand(28, 28)""",
        ],
        """fmap = layer(image)  #<
fmap.shape""",
        fixed_target="""fmap = layer(image.unsqueeze(0))
fmap.shape""",
    ),
    Case(
        "torch_19_train_step_float64_batch",
        "torch",
        "torch-dtype",
        "RuntimeError",
        "The batches come from a float64 NumPy array, while the model's weights are float32; "
        "the error is raised inside train_step, called from the loop.",
        [
            TORCH_SETUP,
            """rng = np.random.default_rng(4)
features = rng.normal(size=(96, 8))
targets = (features[:, 0] > 0).astype(np.int64)
model = nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 2))
optimizer = torch.optim.Adam(model.parameters(), lr=1e-2)
loss_fn = nn.CrossEntropyLoss()""",
        ],
        """def train_step(batch_x, batch_y):
    optimizer.zero_grad()
    loss = loss_fn(model(batch_x), batch_y)  #<
    loss.backward()
    optimizer.step()
    return loss.item()

losses = []
for start in range(0, len(features), 32):
    xb = torch.tensor(features[start:start + 32])
    yb = torch.tensor(targets[start:start + 32])
    losses.append(train_step(xb, yb))  #<call
losses""",
        fixed_target="""def train_step(batch_x, batch_y):
    optimizer.zero_grad()
    loss = loss_fn(model(batch_x), batch_y)
    loss.backward()
    optimizer.step()
    return loss.item()

losses = []
for start in range(0, len(features), 32):
    xb = torch.tensor(features[start:start + 32], dtype=torch.float32)
    yb = torch.tensor(targets[start:start + 32])
    losses.append(train_step(xb, yb))
losses""",
    ),
]

# ---------------------------------------------------------------------------------------------
# matplotlib and seaborn: image shapes, axes indexing, call signatures, data lengths.

_PLOT_IMAGES = """rng = np.random.default_rng(2)
batch = rng.random((16, 3, 32, 32))
classes = ["cat", "dog", "ship", "car"]
targets = rng.integers(0, 4, 16)"""

PLOTTING: list[Case] = [
    Case(
        "matplotlib_01_imshow_channels_first",
        "matplotlib",
        "plot-image-shape",
        "TypeError",
        "The images are channel-first (3, 32, 32); imshow needs (32, 32, 3).",
        [PLOT_IMPORTS, _PLOT_IMAGES],
        """fig, axes = plt.subplots(1, 4, figsize=(8, 2))
for i, ax in enumerate(axes):
    ax.imshow(batch[i])  #<
    ax.set_title(classes[targets[i]])
    ax.axis("off")""",
        fixed_target="""fig, axes = plt.subplots(1, 4, figsize=(8, 2))
for i, ax in enumerate(axes):
    ax.imshow(batch[i].transpose(1, 2, 0))
    ax.set_title(classes[targets[i]])
    ax.axis("off")""",
    ),
    Case(
        "matplotlib_02_imshow_scalar",
        "matplotlib",
        "plot-image-shape",
        "TypeError",
        "targets[0] is a single label, not an image.",
        [PLOT_IMPORTS, _PLOT_IMAGES],
        """plt.imshow(targets[0])  #<
plt.title("first sample")""",
        fixed_target="""plt.imshow(batch[0].transpose(1, 2, 0))
plt.title("first sample")""",
    ),
    Case(
        "matplotlib_03_imshow_flat_vector",
        "matplotlib",
        "plot-image-shape",
        "TypeError",
        "A flattened 3072-value vector is 1-D; imshow needs a 2-D or 3-D array.",
        [PLOT_IMPORTS, _PLOT_IMAGES, """flat = batch.reshape(len(batch), -1)"""],
        """plt.figure(figsize=(3, 3))
plt.imshow(flat[5], cmap="gray")  #<""",
        fixed_target="""plt.figure(figsize=(3, 3))
plt.imshow(flat[5].reshape(3, 32, 32)[0], cmap="gray")""",
    ),
    Case(
        "matplotlib_04_axes_index_out_of_bounds",
        "matplotlib",
        "plot-axes-index",
        "IndexError",
        "Five numeric columns are plotted into a 2x2 grid of four axes.",
        [PLOT_IMPORTS, HOUSES],
        """cols = ["sqft", "bedrooms", "age", "distance_km", "price"]
fig, axes = plt.subplots(2, 2, figsize=(8, 6))
axes = axes.flatten()
for i, col in enumerate(cols):
    axes[i].hist(houses[col], bins=20)  #<
    axes[i].set_title(col)
fig.tight_layout()""",
        fixed_target="""cols = ["sqft", "bedrooms", "age", "distance_km", "price"]
fig, axes = plt.subplots(2, 3, figsize=(8, 6))
axes = axes.flatten()
for i, col in enumerate(cols):
    axes[i].hist(houses[col], bins=20)
    axes[i].set_title(col)
fig.tight_layout()""",
    ),
    Case(
        "matplotlib_05_single_axes_not_subscriptable",
        "matplotlib",
        "plot-axes-index",
        "TypeError",
        "plt.subplots() with no grid returns a single Axes, which cannot be indexed.",
        [PLOT_IMPORTS, SALES],
        """fig, ax = plt.subplots(figsize=(6, 4))
ax[0].bar(sales["region"].unique(), sales.groupby("region")["units"].sum())  #<""",
        fixed_target="""fig, ax = plt.subplots(1, 2, figsize=(6, 4))
ax[0].bar(sales["region"].unique(), sales.groupby("region")["units"].sum())""",
    ),
    Case(
        "matplotlib_06_row_of_axes_has_no_plot",
        "matplotlib",
        "python-missing-attribute",
        "AttributeError",
        "With a 2x2 grid, axes[0] is a row (an ndarray) of two Axes, not an Axes.",
        [PLOT_IMPORTS, SENSORS],
        """fig, axes = plt.subplots(2, 2, figsize=(8, 6))
axes[0].plot(readings[:, 0])  #<
axes[1].plot(readings[:, 1])""",
        fixed_target="""fig, axes = plt.subplots(2, 2, figsize=(8, 6))
axes[0, 0].plot(readings[:, 0])
axes[1, 0].plot(readings[:, 1])""",
    ),
    Case(
        "matplotlib_07_bar_length_mismatch",
        "matplotlib",
        "plot-data-length",
        "ValueError",
        "There are 4 region names but 3 heights (the product totals were used).",
        [PLOT_IMPORTS, SALES],
        """regions = sorted(sales["region"].unique())
totals = sales.groupby("product")["revenue"].sum()
plt.bar(regions, totals)  #<
plt.ylabel("revenue")""",
        fixed_target="""regions = sorted(sales["region"].unique())
totals = sales.groupby("region")["revenue"].sum()
plt.bar(regions, totals)
plt.ylabel("revenue")""",
    ),
    Case(
        "matplotlib_08_plot_x_y_mismatch",
        "matplotlib",
        "plot-data-length",
        "ValueError",
        "x has 500 points and the smoothed series has 491 (mode='valid').",
        [PLOT_IMPORTS, SENSORS],
        """smooth = np.convolve(readings[:, 0], np.ones(10) / 10, mode="valid")
plt.plot(t, readings[:, 0], alpha=0.3)
plt.plot(t, smooth)  #<""",
        fixed_target="""smooth = np.convolve(readings[:, 0], np.ones(10) / 10, mode="same")
plt.plot(t, readings[:, 0], alpha=0.3)
plt.plot(t, smooth)""",
    ),
    Case(
        "matplotlib_09_scatter_size_mismatch",
        "matplotlib",
        "plot-data-length",
        "ValueError",
        "x comes from the whole frame (300 rows) and y from the test split (60 rows).",
        [PLOT_IMPORTS, HOUSES, _HOUSES_SPLIT],
        """plt.scatter(houses["sqft"], y_test, s=8)  #<
plt.xlabel("sqft")""",
        fixed_target="""plt.scatter(X_test["sqft"], y_test, s=8)
plt.xlabel("sqft")""",
    ),
    Case(
        "matplotlib_10_subplot_index_too_large",
        "matplotlib",
        "plot-axes-index",
        "ValueError",
        "A 2x2 grid has subplot numbers 1 to 4; the loop asks for 5.",
        [PLOT_IMPORTS, HOUSES],
        """plt.figure(figsize=(8, 6))
for i, col in enumerate(["sqft", "bedrooms", "age", "distance_km", "price"], start=1):
    plt.subplot(2, 2, i)  #<
    plt.hist(houses[col], bins=15)
    plt.title(col)""",
        fixed_target="""plt.figure(figsize=(8, 6))
for i, col in enumerate(["sqft", "bedrooms", "age", "distance_km", "price"], start=1):
    plt.subplot(2, 3, i)
    plt.hist(houses[col], bins=15)
    plt.title(col)""",
    ),
    Case(
        "seaborn_01_barplot_positional",
        "seaborn",
        "plot-call-signature",
        "TypeError",
        "sns.barplot accepts data as its only positional argument; x and y must be keywords.",
        [PLOT_IMPORTS, SALES],
        """sns.barplot("region", "revenue", data=sales)  #<
plt.title("Revenue by region")""",
        fixed_target="""sns.barplot(x="region", y="revenue", data=sales)
plt.title("Revenue by region")""",
    ),
    Case(
        "seaborn_02_scatterplot_positional",
        "seaborn",
        "plot-call-signature",
        "TypeError",
        "scatterplot takes at most one positional argument (data).",
        [PLOT_IMPORTS, HOUSES],
        """fig, ax = plt.subplots(figsize=(6, 4))
sns.scatterplot(houses["sqft"], houses["price"], hue=houses["neighborhood"], ax=ax)  #<
ax.set_title("Price vs size")""",
        fixed_target="""fig, ax = plt.subplots(figsize=(6, 4))
sns.scatterplot(x=houses["sqft"], y=houses["price"], hue=houses["neighborhood"], ax=ax)
ax.set_title("Price vs size")""",
    ),
    Case(
        "seaborn_03_countplot_column_then_frame",
        "seaborn",
        "plot-call-signature",
        "TypeError",
        "countplot(data=None, *, x=...): the column name and the frame are both positional.",
        [PLOT_IMPORTS, TITANIC],
        """for col in ["Pclass", "Embarked"]:
    plt.figure(figsize=(4, 3))
    sns.countplot(col, titanic, hue="Survived")  #<
    plt.title(col)""",
        fixed_target="""for col in ["Pclass", "Embarked"]:
    plt.figure(figsize=(4, 3))
    sns.countplot(x=col, data=titanic, hue="Survived")
    plt.title(col)""",
    ),
    Case(
        "seaborn_04_lineplot_positional",
        "seaborn",
        "plot-call-signature",
        "TypeError",
        "lineplot's x and y are keyword-only.",
        [PLOT_IMPORTS, SALES],
        """daily = sales.groupby("order_date", as_index=False)["revenue"].sum()
sns.lineplot(daily, "order_date", "revenue")  #<""",
        fixed_target="""daily = sales.groupby("order_date", as_index=False)["revenue"].sum()
sns.lineplot(daily, x="order_date", y="revenue")""",
    ),
    Case(
        "seaborn_05_heatmap_unknown_kwarg",
        "seaborn",
        "plot-call-signature",
        "AttributeError",
        "heatmap forwards unknown keywords to matplotlib's pcolormesh, which has no "
        "property 'colour_map'.",
        [PLOT_IMPORTS, HOUSES],
        """corr = houses.select_dtypes("number").corr()
sns.heatmap(corr, annot=True, fmt=".2f", colour_map="coolwarm")  #<""",
        fixed_target="""corr = houses.select_dtypes("number").corr()
sns.heatmap(corr, annot=True, fmt=".2f", cmap="coolwarm")""",
    ),
    Case(
        "seaborn_06_histplot_missing_column",
        "seaborn",
        "pandas-missing-column",
        "ValueError",
        "x='fare' is not a column of titanic (it is Fare); seaborn raises a ValueError.",
        [PLOT_IMPORTS, TITANIC],
        """sns.histplot(data=titanic, x="fare", hue="Pclass", bins=30)  #<""",
        fixed_target="""sns.histplot(data=titanic, x="Fare", hue="Pclass", bins=30)""",
    ),
]


def all_cases() -> list[Case]:
    """Every case of the corpus, in a stable order."""
    return [*PYTHON, *NOTEBOOK, *PANDAS, *NUMPY, *SKLEARN, *TORCH, *PLOTTING]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    root = Path(__file__).resolve().parent.parent
    parser.add_argument("--out", type=Path, default=root / "tests" / "corpus")
    args = parser.parse_args()
    cases = all_cases()
    ids = [case.case_id for case in cases]
    duplicates = {i for i in ids if ids.count(i) > 1}
    if duplicates:
        raise SystemExit(f"duplicate case ids: {sorted(duplicates)}")
    out: Path = args.out
    if out.exists():
        for child in out.iterdir():
            if child.is_dir() and (child / "case.json").exists():
                shutil.rmtree(child)
    out.mkdir(parents=True, exist_ok=True)
    for case in cases:
        write_case(case, out)
    print(f"wrote {len(cases)} cases to {out}")


if __name__ == "__main__":
    main()
