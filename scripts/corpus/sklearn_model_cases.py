"""scikit-learn, part 2: feature count and names, target type, parameters, empty input, metrics,
unknown categories, NaN reaching a helper function.

Part 1 (fitted state, NaN, strings, lengths) is sklearn_data_cases.
"""

# Cell sources are data: their lines are as long as a notebook author wrote them.

from __future__ import annotations

from .build import Case
from .data import HOUSES, HOUSES_SPLIT, IMPORTS, IRIS, PLOT_IMPORTS, SALES, SK_SPLIT, TITANIC

CASES: list[Case] = [
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
            HOUSES_SPLIT,
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
            HOUSES_SPLIT,
            """from sklearn.linear_model import LinearRegression

lr = LinearRegression().fit(X_train, y_train)
scoring = X_test.rename(columns={"distance_km": "dist"})""",
        ],
        """lr.predict(scoring)  #<""",
        fixed_cells=[
            IMPORTS,
            HOUSES,
            HOUSES_SPLIT,
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
        [IMPORTS, HOUSES, HOUSES_SPLIT],
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
