"""Settings decoding: camelCase or snake_case; bad keys and values fall back to defaults with a
warning, never a failure."""

from __future__ import annotations

from typing import Any

import pytest

from crane_server.lsp.settings import decode_settings
from crane_server.protocol.lsp import ServerSettings


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
        pytest.param({"diagnostics": "telepathy", "unknown": 1}, 300, "push", 2, id="bad-enum"),
        pytest.param({"llm": {"trigger": "sometimes"}}, 300, "push", 1, id="bad-group"),
        pytest.param(["not", "an", "object"], 300, "push", 1, id="not-an-object"),
    ],
)
def test_decode_settings(raw: Any, debounce: int, mode: str, warnings: int) -> None:
    settings, messages = decode_settings(raw)
    assert settings.debounce_ms == debounce
    assert settings.diagnostics == mode
    assert len(messages) == warnings


@pytest.mark.parametrize(
    ("raw", "field", "expected"),
    [
        pytest.param({"connectionFile": "/k.json"}, "connection_file", "/k.json", id="camel"),
        pytest.param({"connection_file": "/k.json"}, "connection_file", "/k.json", id="snake"),
        pytest.param({"checkTimeoutS": 2.5}, "check_timeout_s", 2.5, id="camel-timeout"),
        pytest.param({"kernel_heartbeat_s": 1}, "kernel_heartbeat_s", 1.0, id="snake-heartbeat"),
        pytest.param({"informationForExecuted": False}, "information_for_executed", False, id="b"),
        pytest.param({"crane": {"debounceMs": 40}}, "debounce_ms", 40, id="camel-in-section"),
    ],
)
def test_both_spellings_are_accepted(raw: Any, field: str, expected: Any) -> None:
    settings, messages = decode_settings(raw)
    assert messages == []
    assert getattr(settings, field) == expected


@pytest.mark.parametrize(
    ("key", "value"),
    [
        ("check_timeout_s", 0),
        ("check_timeout_s", -1),
        ("check_timeout_s", 1e-9),
        ("checkTimeoutS", 1e9),
        ("debounce_ms", 10**12),
        ("debounceMs", -5),
        ("kernel_heartbeat_s", -2.0),
        ("kernelHeartbeatS", 0),
        ("diagnostics", "telepathy"),
        ("hover", "yes"),
    ],
)
def test_out_of_range_values_warn_and_keep_the_default(key: str, value: Any) -> None:
    settings, messages = decode_settings({key: value, "connectionFile": "/k.json"})
    field = "".join("_" + c.lower() if c.isupper() else c for c in key)
    assert getattr(settings, field) == getattr(ServerSettings(), field)
    assert settings.connection_file == "/k.json"  # the good keys still apply
    assert len(messages) == 1
    assert "default used" in messages[0]


def test_unknown_keys_are_reported_by_name() -> None:
    settings, messages = decode_settings({"conection_file": "/k.json", "llm": {"modle": "x"}})
    assert settings.connection_file is None
    assert sorted(messages) == [
        "crane: unknown setting 'conection_file' ignored",
        "crane: unknown setting 'llm.modle' ignored",
    ]
