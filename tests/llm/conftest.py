"""Fixtures of the LLM tests: the fake OpenAI-compatible server and settings pointing at it."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from crane_server.settings import LlmSettings
from tests.llm.fake_openai import FakeOpenAI


@pytest.fixture(scope="module")
def fake_server() -> Iterator[FakeOpenAI]:
    server = FakeOpenAI().start()
    try:
        yield server
    finally:
        server.close()


@pytest.fixture
def fake(fake_server: FakeOpenAI) -> FakeOpenAI:
    """The module's server with an empty script and no recorded requests."""
    fake_server.reset()
    return fake_server


@pytest.fixture
def chat_settings(fake: FakeOpenAI) -> LlmSettings:
    return LlmSettings(base_url=fake.base_url, api_style="chat", model="local-m", timeout=2.0)


@pytest.fixture
def responses_settings(fake: FakeOpenAI) -> LlmSettings:
    return LlmSettings(
        api_key="sk-test-key-123456789", base_url=fake.base_url, api_style="responses", timeout=2.0
    )
