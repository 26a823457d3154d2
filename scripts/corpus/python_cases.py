"""Python itself: names, modules, attributes (incl. removed APIs), signatures, unpacking,
literal indexes and keys, None.
"""

# Cell sources are data: their lines are as long as a notebook author wrote them.

from __future__ import annotations

from .build import Case
from .data import (
    CUSTOMERS_CSV,
    HOUSES,
    IMPORTS,
    IRIS,
    PLOT_IMPORTS,
    SALES,
    SENSORS,
    SK_SPLIT,
    TITANIC,
)

CASES: list[Case] = [
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
