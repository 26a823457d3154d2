"""The plan: validation, job lists per engine, prices from the command line."""

from __future__ import annotations

import pytest

from crane_server.cli import build_parser
from crane_server.commands.eval import parse_prices, plan_from_args
from crane_server.errors import SettingsError
from crane_server.eval.plan import Job, Plan


def test_job_list_per_engine() -> None:
    assert Plan(engine="rules").job_list() == [Job("rules", setting="dry-run")]
    assert Plan(engine="rules", dry_run=False).job_list() == [Job("rules")]
    both = Plan(engine="both", models=("a", "b"), settings=("code", "runtime"), runs=2)
    jobs = both.job_list()
    assert jobs[0] == Job("rules", setting="dry-run")
    assert len(jobs) == 1 + 2 * 2 * 2
    assert Job("llm", "b", "runtime", "joint", 1) in jobs
    assert Plan(engine="llm").job_list("default-m") == [Job("llm", "default-m", "runtime", "joint")]


@pytest.mark.parametrize(
    "kwargs",
    [
        pytest.param({"engine": "magic"}, id="engine"),
        pytest.param({"settings": ("runtime-X",)}, id="setting"),
        pytest.param({"task": "repair"}, id="task"),
        pytest.param({"runs": 0}, id="runs"),
        pytest.param({"jobs": 0}, id="jobs"),
        pytest.param({"timeout": 0.0}, id="timeout"),
    ],
)
def test_invalid_plans(kwargs: dict) -> None:  # type: ignore[type-arg]
    with pytest.raises(SettingsError):
        Plan(**kwargs)


def test_prices() -> None:
    assert parse_prices(["gpt-x=1.25,10"], 0.5, None) == {"*": (0.5, 0.0), "gpt-x": (1.25, 10.0)}
    for bad in ("gpt-x", "gpt-x=1", "=1,2", "m=a,b"):
        with pytest.raises(SettingsError):
            parse_prices([bad], None, None)


def test_command_line_to_plan() -> None:
    args = build_parser().parse_args(
        [
            "eval",
            "data",
            "--engine",
            "llm",
            "--model",
            "m1",
            "--setting",
            "code",
            "--setting",
            "runtime-S",
            "--runs",
            "5",
            "--jobs",
            "3",
            "--task",
            "detection",
            "--timeout",
            "9",
            "--price",
            "m1=1,2",
        ]
    )
    plan = plan_from_args(args)
    assert plan == Plan(
        engine="llm",
        models=("m1",),
        settings=("code", "runtime-S"),
        runs=5,
        jobs=3,
        task="detection",
        timeout=9.0,
        prices={"m1": (1.0, 2.0)},
    )
