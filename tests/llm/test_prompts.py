"""Prompt modes: settings, ablations, privacy, the compact and paper runtime sections."""

from __future__ import annotations

import pytest

from crane_server.errors import SettingsError
from crane_server.llm.cell_uses import cell_uses
from crane_server.llm.prompts import build_prompt, categories_for, render_prompt
from crane_server.llm.runtime_section import compact_runtime_section, paper_runtime_section
from crane_server.protocol.snapshot import RuntimeSnapshot, VariableSummary
from tests.llm.snapshots import TARGET, rule_finding, titanic_snapshot

RUNTIME_HEADER = "[Current relevant runtime information]"
EXECUTED = ["import pandas as pd", "df = pd.read_csv('train.csv')"]


def user_text(setting: str = "runtime", privacy: str = "full", **kwargs: object) -> str:
    return build_prompt(
        TARGET,
        executed_cells=EXECUTED,
        snapshot=titanic_snapshot(),
        setting=setting,
        privacy=privacy,
        **kwargs,  # type: ignore[arg-type]
    ).user


def test_code_setting_has_no_runtime_section() -> None:
    prompt = build_prompt(
        TARGET, executed_cells=EXECUTED, snapshot=titanic_snapshot(), setting="code"
    )
    assert RUNTIME_HEADER not in prompt.user
    assert "runtime information" not in prompt.system
    assert "[Executed Cells]" in prompt.user and "# In[2]\ndf = pd.read_csv" in prompt.user
    assert '[Target Cell]\n1| mean_age = df["Age"].mean()\n2| model.predict(X)' in prompt.user


def test_runtime_setting_compact_section() -> None:
    text = user_text()
    section = text.split(RUNTIME_HEADER, 1)[1]
    assert "df: pandas.DataFrame, shape (891, 6)" in section
    assert "column 'Age': float64, min=0.42 max=80.0 nan=177" in section
    # untouched columns by name only, grouped by dtype, without their statistics
    assert (
        "other columns: int64: PassengerId, Survived; object: Name, Cabin; float64: Fare" in section
    )
    assert "Braund" not in section and "512.3292" in section  # X's stats, not Fare's
    assert "model: sklearn.RandomForestClassifier, NOT fitted" in section


@pytest.mark.parametrize(
    ("setting", "absent", "present"),
    [
        pytest.param(
            "runtime-S", ["shape (891, 6)", "other columns"], ["float64", "nan=177"], id="S"
        ),
        pytest.param(
            "runtime-V", ["nan=177", "e.g.", "max=512"], ["shape (891, 6)", "NOT fitted"], id="V"
        ),
        pytest.param(
            "runtime-R",
            ["pandas.DataFrame", "NOT fitted", "dtype float64"],
            ["shape (891, 3)", "nan=177"],
            id="R",
        ),
    ],
)
def test_ablations_drop_one_category(setting: str, absent: list[str], present: list[str]) -> None:
    section = user_text(setting).split(RUNTIME_HEADER, 1)[1]
    for text in absent:
        assert text not in section
    for text in present:
        assert text in section


def test_privacy_schema_removes_values() -> None:
    section = user_text(privacy="schema").split(RUNTIME_HEADER, 1)[1]
    assert "column 'Age': float64" in section and "shape (891, 6)" in section
    for value in ("0.42", "177", "e.g.", "22.0", "512"):
        assert value not in section


def test_privacy_types_keeps_only_type_names() -> None:
    section = user_text(privacy="types", rule_findings=[rule_finding()]).split(RUNTIME_HEADER, 1)[1]
    assert "df: pandas.DataFrame" in section and "X: numpy.ndarray, dtype float64" in section
    for text in ("Age", "891", "PassengerId", "not fitted yet", "estimators_"):
        assert text not in section
    assert "line 2: NotFittedError (sklearn-not-fitted)" in section


def test_rule_findings_are_facts() -> None:
    section = user_text(rule_findings=[rule_finding()]).split(RUNTIME_HEADER, 1)[1]
    assert "certain crashes found by the rule checker:" in section
    assert "- line 2: NotFittedError: model is not fitted yet" in section
    assert "RandomForestClassifier has no attribute estimators_" in section


def test_missing_columns_and_undefined_names() -> None:
    snapshot = titanic_snapshot()
    snapshot.missing.append("scaler")
    section = compact_runtime_section(snapshot, 'df[["Agee", "Fare"]]\nscaler.transform(X)')
    assert "no column named 'Agee'" in section
    assert "column 'Fare': float64" in section
    assert "not defined in the kernel: scaler" in section


def test_identical_summaries_are_merged() -> None:
    twin = VariableSummary(name="a", type="builtins.int", kind="scalar", stats={"value": 3})
    snapshot = RuntimeSnapshot(
        variables={
            "a": twin,
            "b": VariableSummary(name="b", type="builtins.int", kind="scalar", stats={"value": 3}),
        }
    )
    assert compact_runtime_section(snapshot, "a + b").splitlines() == ["a, b: int, value=3"]


def test_doc_setting_adds_signatures() -> None:
    snapshot = titanic_snapshot()
    snapshot.variables["pd.read_csv"] = VariableSummary(
        name="pd.read_csv",
        type="builtins.function",
        kind="function",
        signature="(filepath_or_buffer, *, sep=',')",
        details={"doc": "Read a comma-separated values (csv) file into DataFrame.\n\nMore."},
    )
    prompt = build_prompt(
        "df = pd.read_csv('x.csv')", executed_cells=[], snapshot=snapshot, setting="runtime+doc"
    )
    assert (
        "[Library documentation]\npd.read_csv(filepath_or_buffer, *, sep=','): Read a comma"
        in prompt.user
    )
    assert "More." not in prompt.user


def test_paper_section_dumps_everything_and_is_larger() -> None:
    snapshot = titanic_snapshot()
    paper = paper_runtime_section(snapshot)
    compact = compact_runtime_section(snapshot, TARGET)
    assert "Variable `df`:" in paper and "Braund, Mr. Owen Harris" in paper
    assert "'Cabin': {'unique': 147" in paper
    assert len(compact) < len(paper)


def test_task_changes_the_output_contract() -> None:
    joint = build_prompt(TARGET, executed_cells=[], snapshot=None, task="joint")
    detection = build_prompt(TARGET, executed_cells=[], snapshot=None, task="detection")
    assert '"diagnoses"' in joint.system and '"diagnoses"' not in detection.system
    assert "(not available: the kernel could not be read)" in joint.user


def test_render_prompt_is_the_exact_text() -> None:
    text = render_prompt(TARGET, executed_cells=EXECUTED, snapshot=titanic_snapshot())
    prompt = build_prompt(TARGET, executed_cells=EXECUTED, snapshot=titanic_snapshot())
    assert text == f"=== system ===\n{prompt.system}\n=== user ===\n{prompt.user}\n"


def test_unknown_setting() -> None:
    with pytest.raises(SettingsError):
        build_prompt(TARGET, executed_cells=[], snapshot=None, setting="runtime-X")
    assert categories_for("runtime-V") == ("S", "R") and categories_for("code") == ()


def test_cell_uses() -> None:
    uses = cell_uses('%matplotlib inline\nx = df.loc[:, "a"] + df.b\nplt.plot(df[["c", "d"]])\n')
    assert uses.names == ["df", "plt"]
    assert uses.keys["df"] == ["a", "c", "d"]
    assert set(uses.attributes["df"]) == {"loc", "b"}
    assert "plt.plot" in uses.calls
    assert cell_uses("def broken(:\n  foo").names == ["def", "broken", "foo"]


def test_names_the_cell_binds_first_are_not_reported_undefined() -> None:
    snapshot = RuntimeSnapshot(missing=["total", "later", "x"])
    source = "total = 0\nfor x in range(3):\n    total += x\nprint(later)\nlater = 1\n"
    assert compact_runtime_section(snapshot, source) == "not defined in the kernel: later"
    assert compact_runtime_section(snapshot, "total += 1") == "not defined in the kernel: total"


def test_names_rebound_before_reading_are_not_summarised() -> None:
    snapshot = titanic_snapshot()
    section = compact_runtime_section(snapshot, "X = df.values\nprint(X.shape)\n")
    assert section.startswith("df: pandas.DataFrame") and "X:" not in section
    assert cell_uses("X = df.values\nprint(X.shape)").probe_names() == ["df"]


def test_schema_privacy_hides_index_values() -> None:
    snapshot = titanic_snapshot()
    snapshot.variables["df"].index = {
        "type": "Index",
        "dtype": "object",
        "first": "Braund",
        "last": "Zed",
    }
    full = compact_runtime_section(snapshot, "df['Age']")
    schema = compact_runtime_section(snapshot, "df['Age']", privacy="schema")
    assert "index Index object Braund..Zed" in full
    assert "index Index object" in schema and "Braund" not in schema
