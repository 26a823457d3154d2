"""`%load_ext crane_server` and `%%crane` in a real kernel, with the model on 127.0.0.1."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.conftest import RunningKernel
from tests.llm.fake_openai import FakeOpenAI, verdict

REPO = Path(__file__).resolve().parents[2]
pytestmark = pytest.mark.kernel


def run_cell(kernel: RunningKernel, code: str) -> tuple[str, dict[str, Any]]:
    """Execute like a user; return the printed text and the reply content."""
    printed: list[str] = []

    def hook(message: dict[str, Any]) -> None:
        if message["header"]["msg_type"] == "stream":
            printed.append(message["content"]["text"])
        elif message["header"]["msg_type"] == "error":
            printed.append("\n".join(message["content"]["traceback"]))

    reply = kernel.client.execute_interactive(code, timeout=60, output_hook=hook)
    return "".join(printed), reply["content"]


@pytest.fixture(scope="module")
def magic_kernel(shared_kernel: RunningKernel, fake_server: FakeOpenAI) -> RunningKernel:
    setup = (
        "import os, sys\n"
        f"sys.path.insert(0, {str(REPO)!r})\n"
        "for name in ('CRANE_LLM_API_KEY', 'OPENAI_API_KEY', 'OPENAI_BASE_URL'):\n"
        "    os.environ.pop(name, None)\n"
        "os.environ['CRANE_LLM_CONFIG'] = '/nonexistent/crane/config.json'\n"
        "os.environ['CRANE_LLM_MODEL'] = 'kernel-model'\n"
    )
    output, reply = run_cell(shared_kernel, setup)
    assert reply["status"] == "ok", output
    output, reply = run_cell(shared_kernel, "%load_ext crane_server")
    assert reply["status"] == "ok", output
    run_cell(shared_kernel, "import pandas as pd\ndf = pd.DataFrame({'Age': [22.0, None]})")
    return shared_kernel


def test_magic_without_a_model_runs_only_the_checks(magic_kernel: RunningKernel) -> None:
    run_cell(magic_kernel, "os.environ.pop('CRANE_LLM_BASE_URL', None)")
    output, reply = run_cell(magic_kernel, "%%crane\nunused_marker = df['Age'].mean()\n")
    assert reply["status"] == "ok"
    assert output.startswith("CRANE: ")
    assert "no model configured" in output
    output, _ = run_cell(magic_kernel, "print('unused_marker' in dir())")
    assert output.strip() == "False"  # the body was checked, not run


def test_magic_asks_the_model_with_the_live_state(
    magic_kernel: RunningKernel, fake: FakeOpenAI
) -> None:
    run_cell(magic_kernel, f"os.environ['CRANE_LLM_BASE_URL'] = {fake.base_url!r}")
    fake.enqueue(
        verdict(
            '{"crash": true, "reasoning": "r", "diagnoses": [{"exception": "TypeError", '
            '"line": 1, "cause": "Age holds NaN", "fix": "df[\'Age\'].fillna(0)"}]}'
        )
    )
    output, reply = run_cell(magic_kernel, "%%crane_llm\nresult = int(df['Age'].sum())\n")
    assert reply["status"] == "ok"
    assert "CRANE-LLM (kernel-model): crash predicted" in output
    assert "line 1: TypeError predicted: Age holds NaN" in output
    assert "fix: df['Age'].fillna(0)" in output
    [request] = fake.requests
    user = request.body["messages"][1]["content"]
    assert "1| result = int(df['Age'].sum())" in user
    assert "df: pandas.DataFrame, shape (2, 1)" in user
    assert "column 'Age': float64, nan=1" in user
    assert "%%crane" not in user  # the magic cells are not executed cells


def test_magic_options(magic_kernel: RunningKernel, fake: FakeOpenAI) -> None:
    run_cell(magic_kernel, f"os.environ['CRANE_LLM_BASE_URL'] = {fake.base_url!r}")
    output, _ = run_cell(magic_kernel, "%%crane --no-llm\ndf['Age'].mean()\n")
    assert "CRANE-LLM" not in output and fake.requests == []
    output, _ = run_cell(
        magic_kernel, "%%crane other-model --setting code --show-prompt\ndf['Age'].mean()\n"
    )
    assert "=== system ===" in output and "[Current relevant runtime information]" not in output
    assert fake.requests[0].body["model"] == "other-model"
    output, _ = run_cell(magic_kernel, "%%crane --setting nonsense\nx\n")
    assert "CRANE-LLM: failed: setting must be one of" in output
