"""Shared set-up cells: synthetic data created in the notebook (no network, no downloads).

Each string is one code cell that a case puts before its target cell.
"""

# Cell sources are data: their lines are as long as a notebook author wrote them.

from __future__ import annotations

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

HOUSES_SPLIT = """from sklearn.model_selection import train_test_split

features = ["sqft", "bedrooms", "age", "distance_km"]
X_train, X_test, y_train, y_test = train_test_split(
    houses[features], houses["price"], test_size=0.2, random_state=0
)"""
