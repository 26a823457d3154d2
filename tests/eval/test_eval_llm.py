"""`eval --engine llm` against the fake OpenAI-compatible server on 127.0.0.1."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from crane_server.eval.plan import Plan
from crane_server.eval.session import evaluate
from crane_server.eval.store import ResultStore
from tests.eval.dataset import text_only_case, undefined_name_case
from tests.llm.fake_openai import Behaviour, FakeOpenAI, RecordedRequest

pytestmark = [pytest.mark.kernel, pytest.mark.timeout(300)]

SETTINGS = ("code", "runtime")
RUNS = 3
CALLS = 3 * 2 * len(SETTINGS) * RUNS  # cases x variants x settings x runs
JUDGE_MARK = "You judge a crash diagnosis"


def answer(body: dict) -> str:
    """Right with runtime information, always "crash" from code alone."""
    messages = body.get("messages") or []
    system = " ".join(str(m.get("content", "")) for m in messages if m.get("role") == "system")
    user = " ".join(str(m.get("content", "")) for m in messages if m.get("role") == "user")
    if JUDGE_MARK in user:
        label = "partially correct" if "the helper was never defined" in user else "correct"
        return json.dumps({"crash": True, "reasoning": label, "diagnoses": []})
    with_runtime = "runtime information" in system
    crash = not (with_runtime and "undefined_thing = 2" in user)
    diagnoses = (
        [
            {
                "exception": "NameError",
                "line": 1,
                "cause": "undefined_thing is not defined",
                "fix": "define it",
            }
        ]
        if crash
        else []
    )
    return json.dumps({"crash": crash, "reasoning": "checked", "diagnoses": diagnoses})


class DecidingFake(FakeOpenAI):
    """Answers from the request's content; `delay` slows every answer."""

    delay = 0.0

    def _next(self, request: RecordedRequest) -> Behaviour:
        super()._next(request)
        return Behaviour(text=answer(request.body), delay=self.delay)


@pytest.fixture
def fake() -> Iterator[DecidingFake]:
    server = DecidingFake().start()
    try:
        yield server
    finally:
        server.close()


@pytest.fixture
def llm_env(
    fake: DecidingFake, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, runtime_dir: Path
) -> dict[str, str]:
    values = {
        "CRANE_LLM_BASE_URL": fake.base_url,
        "CRANE_LLM_API_KEY": "sk-test-not-real-0000",
        "CRANE_LLM_CONFIG": str(tmp_path / "no-config.json"),
        "CRANE_LLM_TIMEOUT": "20",
    }
    for name, value in values.items():
        monkeypatch.setenv(name, value)
    monkeypatch.chdir(tmp_path)
    return {**os.environ, **values}


@pytest.fixture
def dataset(tmp_path: Path) -> Path:
    root = tmp_path / "dataset"
    undefined_name_case(root, "py_a")
    undefined_name_case(root, "py_b")
    text_only_case(root, "py_text")
    return root


def plan(judge: str | None = None) -> Plan:
    return Plan(
        engine="llm",
        models=("fake-m",),
        settings=SETTINGS,
        runs=RUNS,
        jobs=2,
        timeout=30.0,
        prices={"fake-m": (1.0, 2.0)},
        judge_model=judge,
    )


async def test_two_settings_three_runs_with_judge(
    fake: DecidingFake, llm_env: dict[str, str], dataset: Path, tmp_path: Path
) -> None:
    out = tmp_path / "out"
    summary = await evaluate(dataset, out, plan(judge="fake-judge"))
    judge_calls = [r for r in fake.requests if JUDGE_MARK in json.dumps(r.body)]
    # The judge is asked about every predicted crash on a reproduced notebook.
    assert len(judge_calls) == 3 * RUNS * len(SETTINGS)
    assert len(fake.requests) == CALLS + len(judge_calls)
    rows = ResultStore(out / "results.jsonl").all_rows()
    assert len(rows) == CALLS and all(r.status == "ok" for r in rows), rows
    assert {r.prompt_tokens for r in rows} == {123}
    report = (out / "report.md").read_text()
    assert "| fake-m runtime | 3 | 6 | 1.000 | 1.000 | 1.000 | 1.000 | 0.833 | 0.800 |" in report
    assert "| fake-m code | 3 | 6 | 0.500 | 0.500 | 1.000 | 0.667 | 0.333 |" in report
    assert "| fake-m code | fake-m runtime | 6 | 0 / 3 | 0.2500 | 0 / 3 | 0.2500 |" in report
    assert "12 diagnoses labelled both ways: agreement 1.000" in report
    assert "## Spread across runs" in report
    assert "$0.00" in report  # cost from the configured price
    for plot in ("scores_per_setting.png", "f1_per_library.png", "latency.png"):
        assert (out / plot).read_bytes()[:4] == b"\x89PNG"
    assert "McNemar fake-m code vs fake-m runtime: detection p 0.2500" in summary


def _count_rows(path: Path) -> int:
    return len(ResultStore(path).all_rows()) if path.exists() else 0


def test_killed_run_resumes_without_repeating_calls(
    fake: DecidingFake, llm_env: dict[str, str], dataset: Path, tmp_path: Path
) -> None:
    out = tmp_path / "out"
    results = out / "results.jsonl"
    fake.delay = 0.3
    command = [
        sys.executable,
        "-m",
        "crane_server",
        "eval",
        str(dataset),
        "--engine",
        "llm",
        "--model",
        "fake-m",
        "--setting",
        "code",
        "--setting",
        "runtime",
        "--runs",
        str(RUNS),
        "--jobs",
        "1",
        "--out",
        str(out),
        "--no-plots",
    ]
    first = subprocess.Popen(
        command, env=llm_env, cwd=tmp_path, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE
    )
    try:
        deadline = time.monotonic() + 120
        while _count_rows(results) < 5:
            assert first.poll() is None, first.stderr.read() if first.stderr else ""
            assert time.monotonic() < deadline, "no rows were written"
            fake.request_seen.wait(0.5)
            fake.request_seen.clear()
    finally:
        first.send_signal(signal.SIGKILL)
        first.wait(timeout=30)
        if first.stderr:
            first.stderr.close()
    finished = _count_rows(results)
    assert 5 <= finished < CALLS
    paid_first = len(fake.requests)
    fake.delay = 0.0
    second = subprocess.run(
        command, env=llm_env, cwd=tmp_path, capture_output=True, text=True, timeout=200
    )
    assert second.returncode == 0, second.stderr
    assert len(fake.requests) - paid_first == CALLS - finished
    assert _count_rows(results) == CALLS
    assert "fake-m runtime" in second.stdout
