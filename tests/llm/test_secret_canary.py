"""A planted API key must never come back out of crane, even when the endpoint echoes it.

The fake OpenAI-compatible server on 127.0.0.1 answers every request with an error whose
body repeats the Authorization header and the bare key (as some proxies do). The canary key
is not `sk-` shaped, so only the configured-key redaction can catch it; every output path
is read back and searched: `check` text and JSON, eval's results.jsonl and report.md, the
language server's messages and its --log-file, and the `%%crane` magic's text.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from lsprotocol import types
from pytest_lsp import ClientServerConfig, LanguageClient, client_capabilities

from crane_server.jupyter import magic
from crane_server.llm.redact import RedactingFilter, redact
from tests.checker.test_check_command import notebook
from tests.eval.dataset import undefined_name_case
from tests.llm.fake_openai import Behaviour, FakeOpenAI, RecordedRequest, status
from tests.lsp.helpers import Recorder, initialize_params, open_notebook

CANARY = f"crane-canary-{uuid.uuid4().hex}"
SETUP = "import pandas as pd\ndf = pd.DataFrame({'Age': [30, 40]})"
TARGET = "mean = df['Age'].mean()"


class EchoingFake(FakeOpenAI):
    """Every answer is an error (status `code`) whose message echoes what the client sent."""

    code = 400

    def _next(self, request: RecordedRequest) -> Behaviour:
        super()._next(request)
        header = request.headers.get("authorization", "")
        key = header.removeprefix("Bearer ")
        return status(
            self.code, f"Incorrect API key provided: {key}. You sent Authorization: {header}"
        )


@pytest.fixture(scope="module")
def echo() -> Iterator[EchoingFake]:
    server = EchoingFake().start()
    try:
        yield server
    finally:
        server.close()


@pytest.fixture
def fresh_echo(echo: EchoingFake) -> EchoingFake:
    echo.reset()
    echo.code = 400
    return echo


def canary_env(fake: FakeOpenAI, folder: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OPENAI_", "CRANE_LLM_"))}
    env.update(
        {
            "CRANE_LLM_BASE_URL": fake.base_url,
            "CRANE_LLM_API_KEY": CANARY,
            "CRANE_LLM_MODEL": "local-m",
            "CRANE_LLM_CONFIG": str(folder / "no-config.json"),
            "CRANE_LLM_TIMEOUT": "5",
            "CRANE_LLM_MAX_RETRIES": "0",
        }
    )
    return env


def assert_echoed(fake: FakeOpenAI) -> None:
    """The endpoint really got the canary (so its error body really carried it)."""
    assert fake.requests, "the model was never asked"
    assert all(CANARY in r.headers.get("authorization", "") for r in fake.requests)


def assert_clean(where: str, text: str) -> None:
    assert CANARY not in text, f"the API key leaked into {where}"


def run_crane(env: dict[str, str], cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "crane_server", *args],
        capture_output=True,
        text=True,
        timeout=180,
        env=env,
        cwd=cwd,
    )


def test_the_echo_really_carries_the_key(fresh_echo: EchoingFake) -> None:
    import httpx

    answer = httpx.post(
        f"{fresh_echo.base_url}/chat/completions",
        json={"model": "m", "messages": []},
        headers={"Authorization": f"Bearer {CANARY}"},
    )
    assert answer.status_code == 400 and answer.text.count(CANARY) == 2


@pytest.mark.parametrize(
    "text",
    [
        pytest.param("Authorization: Bearer abc.DEF-123_xyz", id="bearer"),
        pytest.param("key sk-proj-AbCdEf0123456789xyzXYZ rejected", id="sk-key"),
        pytest.param("cannot reach https://user:hunter22@proxy:8080/v1", id="url-password"),
    ],
)
def test_secret_shapes_are_masked(text: str) -> None:
    masked = redact(text)
    assert "[redacted]" in masked
    assert not any(s in masked for s in ("abc.DEF-123_xyz", "AbCdEf0123456789", "hunter22"))


def test_prose_is_left_alone() -> None:
    text = "bearer tokens expire; sk-learn style estimators; see https://host/v1"
    assert redact(text) == text


def test_environment_secrets_are_masked(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SOME_SERVICE_TOKEN", "tok-0123456789-abcdef")
    assert redact("it said tok-0123456789-abcdef") == "it said [redacted]"


@pytest.mark.kernel
def test_check_cli_text_and_json(fresh_echo: EchoingFake, tmp_path: Path) -> None:
    path = notebook(tmp_path / "nb.ipynb", SETUP, TARGET)
    env = canary_env(fresh_echo, tmp_path)
    text = run_crane(env, tmp_path, "check", str(path), "--llm")
    fresh_echo.code = 500
    as_json = run_crane(env, tmp_path, "check", str(path), "--llm", "--json")
    assert_echoed(fresh_echo)
    assert text.returncode == 2 and "rejected the request (400)" in text.stderr, text.stderr
    assert_clean("check's text output", text.stdout + text.stderr)
    assert as_json.returncode == 2, as_json.stderr
    assert "kept failing (500)" in json.loads(as_json.stdout)["error"]
    assert_clean("check --json", as_json.stdout + as_json.stderr)


@pytest.mark.kernel
@pytest.mark.timeout(300)
def test_eval_results_and_report(fresh_echo: EchoingFake, tmp_path: Path) -> None:
    undefined_name_case(tmp_path / "dataset", "py_a")
    out = tmp_path / "out"
    done = run_crane(
        canary_env(fresh_echo, tmp_path),
        tmp_path,
        *("eval", str(tmp_path / "dataset"), "--engine", "llm", "--model", "local-m"),
        *("--setting", "code", "--jobs", "1", "--out", str(out), "--no-plots"),
    )
    assert done.returncode == 0, done.stderr
    assert_echoed(fresh_echo)
    results = (out / "results.jsonl").read_text(encoding="utf-8")
    rows = [json.loads(line) for line in results.splitlines() if line.strip()]
    assert rows and all(row["status"] == "error" for row in rows), rows
    assert all("rejected the request (400)" in row["error"] for row in rows)
    assert_clean("results.jsonl", results)
    report = (out / "report.md").read_text(encoding="utf-8")
    assert "rejected the request (400)" in report  # the errors are listed there
    assert_clean("report.md", report)
    assert_clean("eval's output", done.stdout + done.stderr)


async def test_language_server_messages_and_log_file(
    fresh_echo: EchoingFake, tmp_path: Path
) -> None:
    log_file = tmp_path / "server.log"
    env = canary_env(fresh_echo, tmp_path)
    env["JUPYTER_RUNTIME_DIR"] = str(tmp_path / "no-kernels")  # no kernel: the LLM alone
    command = [sys.executable, "-m", "crane_server", "--stdio"]
    command += ["--log-file", str(log_file), "--log-level", "DEBUG"]
    client: LanguageClient = await ClientServerConfig(command, server_env=env).start()  # type: ignore[assignment]
    recorder = Recorder(client)
    sent: list[Any] = []
    try:
        await client.initialize_session(
            initialize_params(client_capabilities("visual-studio-code"), {"debounceMs": 20})
        )
        [cell] = open_notebook(client, "file:///canary/nb.ipynb", [("code", TARGET)])
        for command_name in ("crane.check", "crane.showPrompt"):
            sent.append(
                await client.workspace_execute_command_async(
                    types.ExecuteCommandParams(command=command_name, arguments=[{"uri": cell}])
                )
            )
        await client.shutdown_session()
    finally:
        await client.stop()
    assert_echoed(fresh_echo)
    assert "rejected the request (400)" in sent[0]["error"]
    progress = [str(p) for p in client.progress_reports.values()]
    assert any("failed" in p for p in progress), progress  # the progress end message
    wire = repr(sent) + repr(recorder.messages) + repr(progress) + repr(client.diagnostics)
    assert_clean("the LSP messages", wire)
    logged = log_file.read_text(encoding="utf-8")
    assert "rejected the request (400)" in logged  # the wire is logged at DEBUG
    assert_clean("the --log-file", logged)


def test_magic_output(
    fresh_echo: EchoingFake, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    for name, value in canary_env(fresh_echo, tmp_path).items():
        monkeypatch.setenv(name, value)
    output = magic.check_body(None, "--setting code", TARGET)
    assert_echoed(fresh_echo)
    assert "CRANE-LLM: failed: " in output and "(400)" in output, output
    assert_clean("the %%crane output", output)


def test_a_key_from_the_config_file(
    fresh_echo: EchoingFake, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Not in the environment, not `sk-` shaped: only the configured-key redaction can help."""
    key = f"cfg-canary-{uuid.uuid4().hex}"
    config = tmp_path / "config.json"
    config.write_text(json.dumps({"api_key": key, "base_url": fresh_echo.base_url}))
    for name in [n for n in os.environ if n.startswith(("OPENAI_", "CRANE_LLM_"))]:
        monkeypatch.delenv(name)
    monkeypatch.setenv("CRANE_LLM_CONFIG", str(config))
    monkeypatch.setenv("CRANE_LLM_MAX_RETRIES", "0")
    output = magic.check_body(None, "--setting code", TARGET)
    assert fresh_echo.requests[-1].headers["authorization"] == f"Bearer {key}"
    assert "(400)" in output and key not in output, output


def test_a_traceback_in_the_log_is_masked(fresh_echo: EchoingFake, tmp_path: Path) -> None:
    import asyncio
    import logging

    from crane_server.errors import LlmError
    from crane_server.llm.client import LlmClient
    from crane_server.settings import LlmSettings

    settings = LlmSettings(
        api_key=CANARY, base_url=fresh_echo.base_url, api_style="chat", timeout=5, max_retries=0
    )

    async def ask() -> None:
        async with LlmClient(settings) as client:
            await client.ask("system", "user")

    record = None
    try:
        asyncio.run(ask())
    except LlmError:
        record = logging.LogRecord("t", logging.ERROR, __file__, 1, "failed", None, sys.exc_info())
    assert record is not None
    RedactingFilter().filter(record)
    formatted = logging.Formatter().format(record)
    assert "rejected the request (400)" in formatted and "RedactedCause" in formatted
    assert_clean("a logged traceback", formatted)
