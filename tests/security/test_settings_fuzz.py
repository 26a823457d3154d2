"""Hostile settings, through the real language server and the CLI's settings.

Every key of `initializationOptions` / `workspace/didChangeConfiguration` gets, exhaustively,
values of every wrong JSON type, huge and non-finite numbers, negatives, zero, unicode and
control characters, lone surrogates, 1 MB strings and deep dicts, then seeded random
mixtures; unknown keys of the same kinds too. The promises (docs/language-server.md,
"Settings"): the server answers a liveness request after every bad message; every bad key or
value is reported in one short line (`window/showMessage`) and replaced by its default,
while the good values of the same message take effect (a client re-sends the whole section:
the good value set before is in it and stays in effect); a valid value sent after the bad
ones takes effect. The CLI's config file and `CRANE_LLM_*` variables get the same values:
a SettingsError (one line, exit 2), never a traceback.
"""

from __future__ import annotations

import asyncio
import json
import math
import os
import random
import re
import subprocess
import sys
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import pytest
import pytest_lsp
from lsprotocol import types
from pytest_lsp import LanguageClient, client_capabilities

from crane_server.errors import SettingsError
from crane_server.lsp.settings import decode_settings
from crane_server.protocol.lsp import LlmOptions, ServerSettings
from crane_server.settings import CONFIG_KEYS, configured_dry_run, resolve_settings
from tests.conftest import RunningKernel
from tests.lsp.helpers import KERNEL_STATUS, SERVER, Recorder, initialize_params, text_item

MB = 1024 * 1024
NEST = 60  # deep, yet within the JSON reader's recursion limit


def nested(depth: int) -> Any:
    value: Any = "bottom"
    for level in range(depth):
        value = {f"k{level}": value}
    return value


#: Values of every kind; each key keeps those its spec below does not accept.
ALL_VALUES: list[Any] = [
    None,
    True,
    False,
    0,
    -1,
    -(10**30),
    10**30,
    1,
    0.0,
    -0.0,
    -1.5,
    1e-300,
    1e308,
    -1e308,
    math.inf,
    -math.inf,
    math.nan,
    "",
    "0",
    "5",
    "true",
    "push\n",
    "é€😀",
    "\x00\x01\x1b[31mred\x1b[0m",
    "line one\nline two\r\nline three",
    "\u202eevil\u200b",
    "\ud800",
    "x" * MB,
    "é\n" * (MB // 4),
    [],
    [1, "a", None],
    ["x" * 1000] * 100,
    {},
    {"a": 1},
    nested(NEST),
    [nested(10)],
]

#: key -> what is valid (an independent spec of docs/language-server.md's table).
SPECS: dict[str, tuple[Any, ...]] = {
    "debounceMs": ("int", 0, 60_000),
    "diagnostics": ("enum", "push", "pull", "auto"),
    "connectionFile": ("optstr",),
    "kernelId": ("optstr",),
    "hover": ("bool",),
    "informationForExecuted": ("bool",),
    "checkTimeoutS": ("float", 0.1, 600.0),
    "kernelHeartbeatS": ("float", 0.5, 3600.0),
    "llm": ("llm",),
    "servers": ("servers",),
    "serverTimeoutS": ("float", 0.1, 600.0),
    "helperInterpreter": ("bool",),
    "dryRun": ("enum", "afterFirstRun", "always", "off"),
    "dryRunBudgetS": ("float", 0.1, 30.0),
    "lookaheadBudgetS": ("float", 0.1, 30.0),
}
LLM_SPECS: dict[str, tuple[Any, ...]] = {
    "trigger": ("enum", "command", "auto"),
    "model": ("optstr",),
    "setting": ("str",),
    "privacy": ("enum", None, "full", "schema", "types"),
}


def valid(spec: tuple[Any, ...], value: Any) -> bool:
    """Whether the spec accepts `value` (JSON types: a bool is not a number)."""
    kind = spec[0]
    number = isinstance(value, (int, float)) and not isinstance(value, bool)
    if kind == "int":
        return isinstance(value, int) and number and spec[1] <= value <= spec[2]
    if kind == "float":
        return number and spec[1] <= value <= spec[2]  # nan compares false
    if kind == "bool":
        return isinstance(value, bool)
    if kind == "enum":
        return any(value is option or value == option for option in spec[1:]) and (
            value is None or isinstance(value, str)
        )
    if kind == "optstr":
        return value is None or isinstance(value, str)
    if kind == "str":
        return isinstance(value, str)
    if kind == "llm":
        return isinstance(value, dict) and all(
            name in LLM_SPECS and valid(LLM_SPECS[name], inner) for name, inner in value.items()
        )
    if kind == "servers":
        return isinstance(value, list) and len(value) <= 16 and all(map(valid_server, value))
    raise AssertionError(kind)


def valid_server(entry: Any) -> bool:
    names = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
    return (
        isinstance(entry, dict)
        and set(entry) <= {"url", "tokenEnv", "headersEnv"}
        and isinstance(entry.get("url"), str)
        and re.fullmatch(r"https?://[^?#]+", entry["url"]) is not None
        and len(entry["url"]) <= 2048
        and all(
            entry.get(name) is None
            or (isinstance(entry[name], str) and names.fullmatch(entry[name]) is not None)
            for name in ("tokenEnv", "headersEnv")
        )
    )


def bad_values(spec: tuple[Any, ...]) -> list[Any]:
    values = [value for value in ALL_VALUES if not valid(spec, value)]
    if spec[0] == "llm":
        values += [{name: bad} for name, inner in LLM_SPECS.items() for bad in bad_values(inner)]
        values += [{"modle": "x"}, {"trigger": "auto", "x\ny": 1}]
    if spec[0] == "servers":
        values += [
            [{"url": "ftp://x"}],
            [{"url": "http://h/?token=secret-value"}],
            [{"url": "http://h/" + "a" * 3000}],
            [{"url": "http://h/", "tokenEnv": "1BAD"}],
            [{"url": "http://h/", "token": "secret-value"}],
            [{"url": "http://h/", "headersEnv": "A\nB"}],
            [{"url": f"http://h{n}/"} for n in range(17)],
            [None],
        ]
    return values


#: Unknown keys: wrong names, and names that must not be echoed raw (newlines, 1 MB).
UNKNOWN_KEYS = [
    "conection_file",
    "CheckTimeoutS",
    "",
    "é€😀",
    "two\nlines",
    "\x1b[2J\x00",
    "\ud800",
    "k" * MB,
]


def is_one_short_line(message: str) -> bool:
    return (
        len(message) <= 400
        and message.isprintable()
        and message.encode("utf-8", "replace").decode() == message
    )


def test_every_key_has_a_spec_and_bad_values() -> None:
    wire = set(ServerSettings.__struct_encode_fields__)
    assert set(SPECS) == wire, "a new setting needs its spec here"
    assert set(LLM_SPECS) == set(LlmOptions.__struct_encode_fields__)
    for key, spec in SPECS.items():
        assert len(bad_values(spec)) >= 15, key
        defaults, _ = decode_settings({})
        field = ServerSettings.__struct_fields__[ServerSettings.__struct_encode_fields__.index(key)]
        default = msgspec_builtins(getattr(defaults, field))
        assert valid(spec, default), (key, default)  # control: the spec accepts the default


def msgspec_builtins(value: Any) -> Any:
    import msgspec

    return msgspec.to_builtins(value)


@pytest.mark.parametrize("key", list(SPECS))
def test_decoding_each_bad_value_keeps_the_rest(key: str) -> None:
    """In process, exhaustively: one short line per bad value, the default kept, the others
    applied."""
    spec = SPECS[key]
    for value in bad_values(spec):
        good = {"debounceMs": 123} if key != "debounceMs" else {"hover": False}
        settings, warnings = decode_settings({key: value, **good})
        assert len(warnings) >= 1, (key, repr(value)[:80])
        assert all(is_one_short_line(w) for w in warnings), (key, [w[:200] for w in warnings])
        assert any(key in w or "'llm'" in w for w in warnings), warnings
        if key == "debounceMs":
            assert settings.debounce_ms == 300 and settings.hover is False
        else:
            assert settings.debounce_ms == 123
        if spec[0] != "llm":  # a bad entry in the llm group keeps the group's good entries
            field = ServerSettings.__struct_fields__[
                ServerSettings.__struct_encode_fields__.index(key)
            ]
            assert getattr(settings, field) == getattr(ServerSettings(), field)


def test_unknown_keys_are_named_in_one_short_line() -> None:
    for key in UNKNOWN_KEYS:
        for where in ("top", "llm"):
            raw = {key: 1} if where == "top" else {"llm": {key: 1}}
            settings, warnings = decode_settings({**raw, "debounceMs": 77})
            assert settings.debounce_ms == 77
            assert len(warnings) == 1 and is_one_short_line(warnings[0]), [
                w[:120] for w in warnings
            ]
            assert "unknown setting" in warnings[0]


# ---------------------------------------------------------------------------- the real server

HOVER_NAME = "fuzz_probe_value"
DOC = "file:///tmp/crane-settings-fuzz.py"
TEXT = f"# %%\n{HOVER_NAME}\n"


@pytest.fixture(scope="module")
def probe_kernel(shared_kernel: RunningKernel) -> RunningKernel:
    assert shared_kernel.execute(f"{HOVER_NAME} = [1, 2, 3]")["status"] == "ok"
    return shared_kernel


@pytest_lsp.fixture(config=SERVER, scope="module")
async def client(lsp_client: LanguageClient, probe_kernel: RunningKernel) -> AsyncIterator[None]:
    lsp_client.recorder = Recorder(lsp_client)  # type: ignore[attr-defined]
    options = {
        "connectionFile": str(probe_kernel.connection_file),
        "hover": False,
        "debounceMs": 20,
        "checkTimeoutS": 5.0,
        "dryRun": "off",
    }
    await lsp_client.initialize_session(
        initialize_params(client_capabilities("neovim@v0.7.0"), options)
    )
    lsp_client.text_document_did_open(
        types.DidOpenTextDocumentParams(text_document=text_item(DOC, TEXT))
    )
    yield
    await lsp_client.shutdown_session()


async def hover(client: LanguageClient) -> types.Hover | None:
    """The hover on the kernel's name (also the liveness request: it must be answered)."""
    return await asyncio.wait_for(
        client.text_document_hover_async(
            types.HoverParams(
                text_document=types.TextDocumentIdentifier(uri=DOC),
                position=types.Position(line=1, character=2),
            )
        ),
        20,
    )


async def send(client: LanguageClient, settings: Any) -> list[str]:
    """Send the settings; return the messages shown for them, once the server answered."""
    before = len(client.messages)
    client.workspace_did_change_configuration(
        types.DidChangeConfigurationParams(settings={"crane": settings})
    )
    await hover(client)  # answered after the notification was handled (in order)
    return [m.message for m in client.messages[before:]]


async def bound_by_setting(client: LanguageClient, kernel: RunningKernel, since: int) -> None:
    """A kernel status after `since` says the connectionFile setting bound the document."""
    recorder: Recorder = client.recorder  # type: ignore[attr-defined]

    def found() -> bool:
        statuses = recorder.of(KERNEL_STATUS)[since:]
        return any(
            s.get("uri") == DOC
            and s.get("reason") == "hint"
            and s.get("connection_file") == str(kernel.connection_file)
            for s in statuses
        )

    await recorder.wait_for(found, timeout=20)


def good(kernel: RunningKernel, **more: Any) -> dict[str, Any]:
    """The valid section the client re-sends with every change (hover off: not the default)."""
    return {
        "connectionFile": str(kernel.connection_file),
        "hover": False,
        "debounceMs": 20,
        "dryRun": "off",
        **more,
    }


def fuzz_messages(kernel: RunningKernel) -> Iterator[tuple[dict[str, Any], list[str]]]:
    """(settings, the keys that are bad in it): every bad value of every key but the two
    observed ones in some message, then seeded random mixtures."""
    others = [key for key in SPECS if key not in ("hover", "connectionFile")]
    columns = {key: bad_values(SPECS[key]) for key in others}
    rounds = max(len(values) for values in columns.values())
    for index in range(rounds):
        settings = good(kernel)
        bad = []
        for key in others:
            values = columns[key]
            settings[key] = values[index % len(values)]
            bad.append(key)
        settings[f"unknown_{index}"] = UNKNOWN_KEYS[index % len(UNKNOWN_KEYS)]
        settings[UNKNOWN_KEYS[index % len(UNKNOWN_KEYS)] + f"#{index}"] = index
        yield settings, bad
    rng = random.Random(29)
    for index in range(40):
        settings = good(kernel)
        bad = []
        for key in rng.sample(others, rng.randint(1, len(others))):
            settings[key] = rng.choice(columns[key])
            bad.append(key)
        settings[f"random_{index}"] = rng.choice(ALL_VALUES)
        yield settings, bad


@pytest.mark.kernel
@pytest.mark.asyncio(loop_scope="module")
async def test_the_valid_value_changes_what_the_server_does(
    client: LanguageClient, probe_kernel: RunningKernel
) -> None:
    """Control: the observed settings really change behaviour, so the fuzz can fail."""
    recorder: Recorder = client.recorder  # type: ignore[attr-defined]
    await bound_by_setting(client, probe_kernel, 0)
    assert await hover(client) is None  # hover off, as initialized
    since = len(recorder.of(KERNEL_STATUS))
    assert await send(client, good(probe_kernel, hover=True)) == []
    await bound_by_setting(client, probe_kernel, since)
    shown = await hover(client)
    assert shown is not None and isinstance(shown.contents, types.MarkupContent)
    assert shown.contents.value.strip()
    assert await send(client, good(probe_kernel)) == []
    assert await hover(client) is None


@pytest.mark.kernel
@pytest.mark.asyncio(loop_scope="module")
async def test_bad_settings_never_stop_the_server_and_keep_the_good_ones(
    client: LanguageClient, probe_kernel: RunningKernel
) -> None:
    recorder: Recorder = client.recorder  # type: ignore[attr-defined]
    seen: list[str] = []
    for settings, bad in fuzz_messages(probe_kernel):
        since = len(recorder.of(KERNEL_STATUS))
        shown = await send(client, settings)
        seen += shown
        assert shown, "every message here holds a new unknown key"
        for message in shown:
            assert is_one_short_line(message), message[:300]
        for key in bad:
            assert any(f" {key} = " in m or "'llm'" in m or "llm." in m for m in seen), key
        # the good values of the same message are in effect: hover stays off (not the
        # default), the connectionFile setting still binds the document
        assert await hover(client) is None
        await bound_by_setting(client, probe_kernel, since)

    # a bad hover value: replaced by its default (on), as documented
    since = len(recorder.of(KERNEL_STATUS))
    shown = await send(client, good(probe_kernel, hover="yes\nno"))
    assert any(" hover = " in m and "default used" in m for m in shown), shown
    await bound_by_setting(client, probe_kernel, since)
    assert await hover(client) is not None
    # a bad connectionFile: reported, the server still answers; then a valid one binds again
    for value in (42, ["x"], {"a": 1}, "\ud800", "\x00", "a\x00b"):
        shown = await send(client, good(probe_kernel, connectionFile=value))
        assert all(is_one_short_line(m) for m in shown), [m[:300] for m in shown]
        assert any(" connectionFile = " in m and "default used" in m for m in shown), shown
    since = len(recorder.of(KERNEL_STATUS))
    assert await send(client, good(probe_kernel, hover=True)) == []
    await bound_by_setting(client, probe_kernel, since)
    assert await hover(client) is not None  # the valid values after the bad ones apply
    # the server took every message and is still the same process
    process = client._server  # type: ignore[attr-defined]
    assert process is not None and process.returncode is None


# ---------------------------------------------------------------------------- the CLI's settings

CLI_VALUES: list[Any] = [v for v in ALL_VALUES if not (isinstance(v, str) and len(v) > 1000)] + [
    "y" * MB
]


def test_config_file_values_raise_one_line_settings_errors(tmp_path: Path) -> None:
    """Every config file key x every kind of value: a valid setting or a SettingsError with a
    short one-line message; nothing else escapes."""
    path = tmp_path / "config.json"
    env = {"HOME": str(tmp_path)}
    for key in (*CONFIG_KEYS, "trigger", "dryRun"):
        for value in CLI_VALUES:
            path.write_text(json.dumps({key: value}), encoding="utf-8")
            try:
                if key == "dryRun":
                    configured_dry_run(env, config_path=path)
                else:
                    resolve_settings(environ=env, cwd=tmp_path, config_path=path)
            except SettingsError as exc:
                assert is_one_short_line(str(exc)), (key, str(exc)[:300])


def test_environment_values_raise_one_line_settings_errors(tmp_path: Path) -> None:
    names = {
        "CRANE_LLM_TIMEOUT": None,
        "CRANE_LLM_MAX_RETRIES": None,
        "CRANE_LLM_API_STYLE": None,
        "CRANE_LLM_PRIVACY": None,
        "CRANE_LLM_TRIGGER": None,
        "CRANE_LLM_BASE_URL": None,
    }
    texts = ["inf", "-inf", "nan", "1e400", "10" * 200, "-1", "0", "é\x1b", "two\nlines"]
    texts.append("z" * MB)
    for name in names:
        for text in texts:
            env = {"HOME": str(tmp_path), name: text}
            try:
                resolve_settings(environ=env, cwd=tmp_path, config_path=tmp_path / "none.json")
            except SettingsError as exc:
                assert is_one_short_line(str(exc)), (name, str(exc)[:300])


@pytest.mark.parametrize(
    "config",
    [
        {"max_retries": math.inf},
        {"timeout": "x" * MB},
        {"privacy": "one\ntwo"},
        {"base_url": "gopher://" + "h" * MB},
    ],
    ids=["max-retries-inf", "timeout-1mb", "privacy-newline", "base-url-1mb"],
)
def test_config_show_exits_2_with_one_line(tmp_path: Path, config: dict[str, Any]) -> None:
    path = tmp_path / "config.json"
    path.write_text(json.dumps(config), encoding="utf-8")
    root = str(Path(__file__).resolve().parents[2])
    env = {**os.environ, "CRANE_LLM_CONFIG": str(path), "HOME": str(tmp_path), "PYTHONPATH": root}
    for name in list(env):
        if name.startswith(("CRANE_LLM_", "OPENAI_")) and name != "CRANE_LLM_CONFIG":
            del env[name]
    done = subprocess.run(
        [sys.executable, "-m", "crane_server", "config", "show"],
        capture_output=True,
        text=True,
        timeout=60,
        env=env,
        cwd=tmp_path,
    )
    assert done.returncode == 2, (done.stdout, done.stderr[-2000:])
    assert "Traceback" not in done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("crane-server: error: ")
    assert len(lines[0]) <= 420
