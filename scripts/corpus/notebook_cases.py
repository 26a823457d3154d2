"""Notebook-specific: cells that were not run, cells run twice, names deleted since."""

# Cell sources are data: their lines are as long as a notebook author wrote them.

from __future__ import annotations

from .build import Case, without
from .data import CUSTOMERS_CSV, HOUSES, IMPORTS, SALES, SENSORS, SK_SPLIT, TITANIC

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

CASES: list[Case] = [
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
