"""scikit-learn, part 1: fitted state and the data passed in (NaN, strings, lengths).

Part 2 (features, target type, parameters, metrics, categories) is sklearn_model_cases.
"""

# Cell sources are data: their lines are as long as a notebook author wrote them.

from __future__ import annotations

from .build import Case
from .data import HOUSES, HOUSES_SPLIT, IMPORTS, IRIS, SK_SPLIT, TITANIC

_TITANIC_XY = """features = ["Pclass", "Age", "SibSp", "Fare"]
X = titanic[features]
y = titanic["Survived"]"""

CASES: list[Case] = [
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
            HOUSES_SPLIT,
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
            HOUSES_SPLIT,
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
]
