"""The client against a real OpenAI-compatible server on 127.0.0.1."""

from __future__ import annotations

import asyncio
import json
import socket
import time

import pytest

from crane_server.errors import LlmError, LlmReplyInvalid, LlmTimeout
from crane_server.llm.client import LlmClient, LlmReply
from crane_server.settings import LlmSettings
from tests.llm.fake_openai import VERDICT_TEXT, FakeOpenAI, malformed, slow, status, verdict


async def ask(settings: LlmSettings) -> LlmReply:
    async with LlmClient(settings, backoff_base=0.01) as client:
        return await client.ask("SYSTEM TEXT", "USER TEXT")


async def test_responses_api_request(fake: FakeOpenAI, responses_settings: LlmSettings) -> None:
    async with LlmClient(responses_settings) as client:
        reply = await client.ask("SYSTEM TEXT", "USER TEXT")
    [request] = fake.requests
    assert request.path == "/v1/responses"
    assert request.headers["authorization"] == "Bearer sk-test-key-123456789"
    assert request.body["instructions"] == "SYSTEM TEXT"
    assert request.body["input"] == "USER TEXT"
    assert request.body["store"] is False
    text_format = request.body["text"]["format"]
    assert text_format["type"] == "json_schema" and text_format["strict"] is True
    assert set(text_format["schema"]["required"]) == {"crash", "reasoning", "diagnoses"}
    assert reply.verdict.crash and reply.verdict.diagnoses[0].exception == "KeyError"
    assert (reply.usage.input_tokens, reply.usage.output_tokens) == (321, 45)
    assert reply.usage.latency_ms > 0 and reply.usage.attempts == 1


async def test_chat_completions_request_without_key(
    fake: FakeOpenAI, chat_settings: LlmSettings
) -> None:
    async with LlmClient(chat_settings) as client:
        reply = await client.ask("SYSTEM TEXT", "USER TEXT", task="detection")
    [request] = fake.requests
    assert request.path == "/v1/chat/completions"
    assert request.body["model"] == "local-m"
    assert request.body["messages"] == [
        {"role": "system", "content": "SYSTEM TEXT"},
        {"role": "user", "content": "USER TEXT"},
    ]
    schema = request.body["response_format"]["json_schema"]["schema"]
    assert set(schema["properties"]) == {"crash", "reasoning"}  # detection-only task
    assert request.headers["authorization"] == "Bearer not-needed"
    assert reply.usage.input_tokens == 123 and reply.verdict.crash


WRAPPED = {
    "prose": f"Looking at the cell, I conclude:\n{VERDICT_TEXT}\nHope this helps.",
    "fenced": f"Here you go:\n```json\n{VERDICT_TEXT}\n```\nDone.",
    "trailing": VERDICT_TEXT + "\n\nNote: the column name is misspelled {sic}.",
    "paper-field": json.dumps({"reasoning": "fine", "detection": False}),
}


@pytest.mark.parametrize("kind", list(WRAPPED))
async def test_tolerant_parsing(fake: FakeOpenAI, chat_settings: LlmSettings, kind: str) -> None:
    fake.enqueue(verdict(WRAPPED[kind]))
    reply = await ask(chat_settings)
    assert reply.verdict.crash is (kind != "paper-field")


@pytest.mark.parametrize("code", [429, 500, 503])
async def test_retry_then_success(fake: FakeOpenAI, chat_settings: LlmSettings, code: int) -> None:
    fake.enqueue(status(code, retry_after_ms="10"))
    reply = await ask(chat_settings)
    assert len(fake.requests) == 2
    assert reply.usage.attempts == 2


async def test_retries_are_bounded(fake: FakeOpenAI, chat_settings: LlmSettings) -> None:
    fake.default = status(429, "slow down", retry_after_ms="1")
    with pytest.raises(LlmError, match="kept failing \\(429\\) after 3 attempts"):
        await ask(chat_settings)
    assert len(fake.requests) == chat_settings.max_retries + 1


async def test_slow_response_becomes_llm_timeout(fake: FakeOpenAI) -> None:
    settings = LlmSettings(base_url=fake.base_url, api_style="chat", timeout=0.5)
    fake.enqueue(slow(30))
    started = time.perf_counter()
    with pytest.raises(LlmTimeout, match=r"did not answer within 0\.5 s"):
        await ask(settings)
    assert time.perf_counter() - started < 5
    assert len(fake.requests) == 1  # a timeout is not retried


async def test_malformed_body(fake: FakeOpenAI, responses_settings: LlmSettings) -> None:
    fake.enqueue(malformed())
    with pytest.raises(LlmReplyInvalid, match="unreadable"):
        await ask(responses_settings)


async def test_unparseable_answer(fake: FakeOpenAI, chat_settings: LlmSettings) -> None:
    fake.enqueue(verdict("I think the cell is probably fine."))
    with pytest.raises(LlmReplyInvalid, match="not a verdict"):
        await ask(chat_settings)


async def test_wrong_key_is_a_clear_error_without_the_key(
    fake: FakeOpenAI, responses_settings: LlmSettings
) -> None:
    fake.enqueue(status(401, "Incorrect API key provided: sk-test-key-123456789"))
    with pytest.raises(LlmError, match="rejected the API key") as caught:
        await ask(responses_settings)
    assert "sk-test-key-123456789" not in str(caught.value)


async def test_unreachable_endpoint() -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    settings = LlmSettings(base_url=f"http://127.0.0.1:{port}/v1", api_style="chat", timeout=2)
    with pytest.raises(LlmError, match="cannot reach"):
        await ask(settings)


async def test_chat_format_falls_back(fake: FakeOpenAI, chat_settings: LlmSettings) -> None:
    fake.enqueue(
        status(400, "response_format json_schema is not supported"),
        status(400, "response_format json_object is not supported"),
    )
    reply = await ask(chat_settings)
    formats = [r.body.get("response_format", {}).get("type") for r in fake.requests]
    assert formats == ["json_schema", "json_object", None]
    assert reply.usage.response_format == "text"


async def test_other_bad_request_is_not_retried(
    fake: FakeOpenAI, chat_settings: LlmSettings
) -> None:
    fake.enqueue(status(400, "maximum context length exceeded"))
    with pytest.raises(LlmError, match="maximum context length"):
        await ask(chat_settings)
    assert len(fake.requests) == 1


async def test_cancellation_while_waiting(fake: FakeOpenAI, chat_settings: LlmSettings) -> None:
    fake.enqueue(slow(30))
    client = LlmClient(chat_settings)
    task = asyncio.create_task(client.ask("s", "u"))
    assert await asyncio.to_thread(fake.request_seen.wait, 5)
    started = time.perf_counter()
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert time.perf_counter() - started < 2
    await client.aclose()


def test_no_key_and_no_endpoint() -> None:
    with pytest.raises(LlmError, match="no API key"):
        LlmClient(LlmSettings())
