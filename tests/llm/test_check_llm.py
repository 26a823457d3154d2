"""`crane-server check --llm` end to end: a real kernel, the rules, and a local model endpoint."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.checker.test_check_command import notebook
from tests.llm.fake_openai import FakeOpenAI, status

pytestmark = pytest.mark.kernel

SETUP = "import pandas as pd\ndf = pd.DataFrame({'Age': [30, 40], 'Fare': [1.5, 2.5]})"


def crane_check(path: Path, fake: FakeOpenAI, *extra: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OPENAI_", "CRANE_LLM_"))}
    env.update(
        {
            "CRANE_LLM_BASE_URL": fake.base_url,
            "CRANE_LLM_MODEL": "local-m",
            "CRANE_LLM_CONFIG": str(path.parent / "config.json"),
            "CRANE_LLM_TIMEOUT": "5",
            "CRANE_LLM_MAX_RETRIES": "0",
        }
    )
    return subprocess.run(
        [sys.executable, "-m", "crane_server", "check", str(path), *extra],
        capture_output=True,
        text=True,
        timeout=120,
        env=env,
        cwd=path.parent,
    )


def test_model_verdict_is_merged_with_the_rules(tmp_path: Path, fake: FakeOpenAI) -> None:
    path = notebook(tmp_path / "nb.ipynb", SETUP, "x = 1\nmean = df['Agee'].mean()")
    done = crane_check(path, fake, "--llm", "--json")
    assert done.returncode == 1, done.stderr
    result = json.loads(done.stdout)
    assert [f["source"] for f in result["findings"]] == [
        "crane"
    ]  # same line and exception: the rule's
    assert result["engine"] == "rules+llm" and result["llm"]["verdict"]["crash"] is True
    sent = fake.requests[0].body["messages"][-1]["content"]
    assert "df['Agee'].mean()" in sent and "certain crashes found by the rule checker" in sent


def test_model_only_crash_is_a_warning(tmp_path: Path, fake: FakeOpenAI) -> None:
    path = notebook(tmp_path / "nb.ipynb", SETUP, "x = 1\nmean = df['Age'].mean()")
    done = crane_check(path, fake, "--llm", "--json")
    assert done.returncode == 1, done.stderr
    findings = json.loads(done.stdout)["findings"]
    assert [(f["source"], f["severity"], f["line"]) for f in findings] == [
        ("crane-llm", "warning", 2)
    ]


def test_unreachable_model_keeps_the_rule_result(tmp_path: Path, fake: FakeOpenAI) -> None:
    fake.enqueue(status(401, "invalid api key"))
    path = notebook(tmp_path / "nb.ipynb", SETUP, "df['Agee']")
    done = crane_check(path, fake, "--llm", "--json")
    result = json.loads(done.stdout)
    assert done.returncode == 2
    assert "LLM tier" in result["error"]
    assert [f["code"] for f in result["findings"]] == ["pandas-missing-column"]
    assert "Traceback" not in done.stderr
