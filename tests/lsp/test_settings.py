"""Settings decoding: bad values fall back to defaults with a warning, never a failure."""

from __future__ import annotations

from typing import Any

import pytest

from crane_server.lsp.settings import decode_settings


@pytest.mark.parametrize(
    ("raw", "debounce", "mode", "warnings"),
    [
        pytest.param(None, 300, "push", 0, id="none"),
        pytest.param({}, 300, "push", 0, id="empty"),
        pytest.param({"debounce_ms": 50, "diagnostics": "pull"}, 50, "pull", 0, id="flat"),
        pytest.param({"crane": {"debounce_ms": 10}}, 10, "push", 0, id="section"),
        pytest.param({"settings": {"crane": {"debounce_ms": 7}}}, 7, "push", 0, id="nested"),
        pytest.param(
            {"debounce_ms": "fast", "diagnostics": "pull"}, 300, "pull", 1, id="bad-value"
        ),
        pytest.param({"diagnostics": "telepathy", "unknown": 1}, 300, "push", 1, id="bad-enum"),
        pytest.param({"llm": {"trigger": "sometimes"}}, 300, "push", 1, id="bad-group"),
        pytest.param(["not", "an", "object"], 300, "push", 1, id="not-an-object"),
    ],
)
def test_decode_settings(raw: Any, debounce: int, mode: str, warnings: int) -> None:
    settings, messages = decode_settings(raw)
    assert settings.debounce_ms == debounce
    assert settings.diagnostics == mode
    assert len(messages) == warnings
