"""check_cell_llm and run_llm_check against the fake server (and a real kernel's probe)."""

from __future__ import annotations

import argparse
import asyncio
import io
from importlib.metadata import version
from pathlib import Path
from typing import Any

import pytest

from crane_server.kernels.probe_transport import build_probe_content, decode_probe_reply
from crane_server.llm.cache import LlmCache
from crane_server.llm.command_support import add_llm_arguments, run_llm_check
from crane_server.llm.engine import check_cell_llm
from crane_server.protocol.findings import CheckResult, Finding
from crane_server.settings import LlmSettings
from tests.conftest import RunningKernel
from tests.llm.fake_openai import FakeOpenAI, status, verdict
from tests.llm.snapshots import TARGET, rule_finding, titanic_snapshot

RUNTIME_HEADER = "[Current relevant runtime information]"


class BlockingProbe:
    """The probe over a test kernel's blocking client, run in a thread."""

    def __init__(self, kernel: RunningKernel) -> None:
        self.kernel = kernel

    async def run_probe(self, op: str, payload: dict[str, Any], *, timeout: float = 5.0) -> Any:
        return await asyncio.to_thread(self._run, op, payload, timeout)

    def _run(self, op: str, payload: dict[str, Any], timeout: float) -> Any:
        client = self.kernel.client
        msg_id = client.execute(**build_probe_content(op, payload))
        while True:
            reply = client.get_shell_msg(timeout=timeout)
            if reply["parent_header"].get("msg_id") == msg_id:
                return decode_probe_reply(reply["content"])


async def run(settings: LlmSettings, cache: LlmCache | None = None, **kwargs: Any) -> Any:
    arguments: dict[str, Any] = {
        "executed_cells": ["import pandas as pd"],
        "snapshot": titanic_snapshot(),
        "rule_findings": [],
        "settings": settings,
        "cache": cache,
    }
    arguments.update(kwargs)
    source = arguments.pop("source", TARGET)
    return await check_cell_llm(None, source, **arguments)


async def test_verdict_becomes_warning_findings(
    fake: FakeOpenAI, chat_settings: LlmSettings
) -> None:
    outcome = await run(chat_settings)
    [finding] = outcome.findings
    assert (finding.severity, finding.source, finding.code) == ("warning", "crane-llm", "llm-crash")
    assert (finding.line, finding.exception) == (2, "KeyError")
    assert finding.fix == "df['Age'].mean()"
    assert "df has no column 'Agee'" in finding.message
    assert outcome.usage.input_tokens == 123 and outcome.usage.latency_ms > 0
    assert RUNTIME_HEADER in fake.requests[0].body["messages"][1]["content"]


async def test_code_setting_sends_no_runtime(fake: FakeOpenAI, chat_settings: LlmSettings) -> None:
    await run(chat_settings, setting="code")
    user = fake.requests[0].body["messages"][1]["content"]
    assert RUNTIME_HEADER not in user and "891" not in user


async def test_privacy_setting_redacts_what_is_sent(fake: FakeOpenAI) -> None:
    settings = LlmSettings(base_url=fake.base_url, api_style="chat", privacy="schema")
    await run(settings)
    user = fake.requests[0].body["messages"][1]["content"]
    assert "column 'Age': float64" in user
    assert "0.42" not in user and "nan=177" not in user


async def test_rule_finding_wins_over_the_same_llm_diagnosis(
    fake: FakeOpenAI, chat_settings: LlmSettings
) -> None:
    rule = Finding(code="pandas-missing-column", exception="KeyError", message="no 'Agee'", line=2)
    outcome = await run(chat_settings, rule_findings=[rule])
    assert outcome.findings == []
    assert (
        "certain crashes found by the rule checker"
        in fake.requests[0].body["messages"][1]["content"]
    )


async def test_no_crash_verdict_gives_no_findings(
    fake: FakeOpenAI, chat_settings: LlmSettings
) -> None:
    fake.enqueue(verdict('{"crash": false, "reasoning": "fine", "diagnoses": []}'))
    outcome = await run(chat_settings)
    assert outcome.findings == [] and outcome.verdict.crash is False


async def test_cache_in_memory_and_on_disk(
    fake: FakeOpenAI, chat_settings: LlmSettings, tmp_path: Path
) -> None:
    cache = LlmCache(tmp_path / "cache")
    first = await run(chat_settings, cache=cache)
    second = await run(chat_settings, cache=cache)
    assert len(fake.requests) == 1 and second.cached and not first.cached
    assert second.findings == first.findings
    restarted = await run(chat_settings, cache=LlmCache(tmp_path / "cache"))
    assert restarted.cached and len(fake.requests) == 1
    await run(chat_settings, cache=cache, source=TARGET + "print(1)\n")
    await run(chat_settings, cache=cache, setting="runtime-V")
    assert len(fake.requests) == 3  # a changed cell or setting is asked again


def check_args(*argv: str) -> argparse.Namespace:
    parser = argparse.ArgumentParser()
    add_llm_arguments(parser)
    return parser.parse_args(list(argv))


async def test_show_prompt_alone_sends_nothing(
    fake: FakeOpenAI, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CRANE_LLM_BASE_URL", fake.base_url)
    stream = io.StringIO()
    rules = CheckResult(crash=True, findings=[rule_finding()])
    done = await run_llm_check(
        None,
        TARGET,
        executed_cells=[],
        rule_result=rules,
        args=check_args("--show-prompt", "--privacy", "types"),
        snapshot=titanic_snapshot(),
        prompt_stream=stream,
    )
    assert fake.requests == [] and done.result is rules
    assert stream.getvalue() == done.prompt and "=== system ===" in stream.getvalue()
    assert "df: pandas.DataFrame" in stream.getvalue() and "891" not in stream.getvalue()


async def test_run_llm_check_merges(
    fake: FakeOpenAI, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("CRANE_LLM_BASE_URL", fake.base_url)
    monkeypatch.setenv("CRANE_LLM_CONFIG", "/nonexistent/config.json")
    rules = CheckResult(crash=True, findings=[rule_finding()], timings={"rules_ms": 3.0})
    done = await run_llm_check(
        None,
        TARGET,
        executed_cells=[],
        rule_result=rules,
        args=check_args(
            "--llm", "--model", "m-1", "--setting", "runtime-S", "--llm-cache", str(tmp_path)
        ),
        snapshot=titanic_snapshot(),
    )
    assert fake.requests[0].body["model"] == "m-1"
    result = done.result
    assert result.engine == "rules+llm" and result.crash
    assert [(f.source, f.exception) for f in result.findings] == [
        ("crane", "NotFittedError"),
        ("crane-llm", "KeyError"),
    ]
    assert result.timings["rules_ms"] == 3.0 and result.timings["llm_ms"] > 0
    assert len(list(tmp_path.glob("*.json"))) == 1  # the answer was cached on disk


async def test_run_llm_check_reports_llm_failure(
    fake: FakeOpenAI, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("CRANE_LLM_BASE_URL", fake.base_url)
    monkeypatch.setenv("CRANE_LLM_MAX_RETRIES", "0")
    fake.default = status(500, "boom")
    rules = CheckResult(crash=False)
    done = await run_llm_check(
        None,
        "x = 1",
        executed_cells=[],
        rule_result=rules,
        args=check_args("--llm", "--setting", "code", "--llm-cache", str(tmp_path / "cache")),
    )
    assert done.error is not None and "500" in done.error
    assert done.result.error is not None and not done.result.crash
    assert not (tmp_path / "cache").exists()  # failures are not cached


@pytest.mark.kernel
async def test_snapshot_from_a_real_kernel(
    shared_kernel: RunningKernel, fake: FakeOpenAI, chat_settings: LlmSettings
) -> None:
    shared_kernel.execute(
        "import pandas as pd\n"
        "frame = pd.DataFrame({'Age': [22.0, None, 38.0], 'Name': ['a', 'b', 'c']})"
    )
    await check_cell_llm(
        BlockingProbe(shared_kernel),
        "frame['Age'].mean()",
        executed_cells=["import pandas as pd"],
        snapshot=None,
        rule_findings=[],
        settings=chat_settings,
        cache=None,
    )
    user = fake.requests[0].body["messages"][1]["content"]
    section = user.split(RUNTIME_HEADER, 1)[1]
    assert "frame: pandas.DataFrame, shape (3, 2)" in section
    assert "column 'Age': float64, nan=1" in section
    # The string column's dtype is `str` on pandas 3 and `object` before.
    string_dtype = "str" if int(version("pandas").split(".")[0]) >= 3 else "object"
    assert f"other columns: {string_dtype}: Name" in section


@pytest.mark.kernel
async def test_doc_setting_reads_signatures_from_a_real_kernel(
    shared_kernel: RunningKernel, fake: FakeOpenAI, chat_settings: LlmSettings
) -> None:
    shared_kernel.execute("import pandas as pd")
    await check_cell_llm(
        BlockingProbe(shared_kernel),
        "table = pd.read_csv('missing.csv')",
        executed_cells=["import pandas as pd"],
        snapshot=None,
        rule_findings=[],
        settings=chat_settings,
        setting="runtime+doc",
        cache=None,
    )
    user = fake.requests[0].body["messages"][1]["content"]
    assert "[Library documentation]\npd.read_csv(filepath_or_buffer, *, sep=" in user
