"""A hand-built runtime snapshot shaped like the probe's answer, for prompt tests."""

from __future__ import annotations

from typing import Any

from crane_server.protocol.findings import Evidence, Finding
from crane_server.protocol.snapshot import RuntimeSnapshot, VariableSummary

TARGET = 'mean_age = df["Age"].mean()\nmodel.predict(X)\n'
COLUMNS = ["PassengerId", "Survived", "Name", "Age", "Fare", "Cabin"]


def titanic_snapshot() -> RuntimeSnapshot:
    dtypes = {
        "PassengerId": "int64",
        "Survived": "int64",
        "Name": "object",
        "Age": "float64",
        "Fare": "float64",
        "Cabin": "object",
    }
    column_stats: dict[str, dict[str, Any]] = {
        "PassengerId": {"min": 1, "max": 891, "nan": 0},
        "Survived": {"min": 0, "max": 1, "nan": 0},
        "Name": {"unique": 891, "examples": ["Braund, Mr. Owen Harris"]},
        "Age": {"min": 0.42, "max": 80.0, "nan": 177},
        "Fare": {"min": 0.0, "max": 512.3292, "nan": 0},
        "Cabin": {"unique": 147, "nan": 687, "examples": ["C85"]},
    }
    return RuntimeSnapshot(
        variables={
            "df": VariableSummary(
                name="df",
                type="pandas.core.frame.DataFrame",
                kind="dataframe",
                shape=[891, 6],
                columns=COLUMNS,
                columns_total=6,
                dtypes=dtypes,
                column_stats=column_stats,
            ),
            "model": VariableSummary(
                name="model",
                type="sklearn.ensemble._forest.RandomForestClassifier",
                kind="estimator",
                fitted=False,
                details={"params": {"n_estimators": 100}},
            ),
            "X": VariableSummary(
                name="X",
                type="numpy.ndarray",
                kind="ndarray",
                shape=[891, 3],
                dtype="float64",
                stats={"min": 0.0, "max": 512.3292, "nan": True},
                examples=["[3.0, 22.0, 7.25]"],
            ),
        },
        missing=[],
    )


def rule_finding() -> Finding:
    return Finding(
        code="sklearn-not-fitted",
        exception="NotFittedError",
        message="model is not fitted yet",
        line=2,
        evidence=Evidence(facts=["RandomForestClassifier has no attribute estimators_"]),
    )
