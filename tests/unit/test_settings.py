"""Settings precedence, .env handling, the 0600 config file and key masking."""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path
from typing import Any

import pytest

import crane_server
from crane_server.cli import main
from crane_server.errors import SettingsError
from crane_server.settings import (
    DEFAULT_MODEL,
    LlmSettings,
    mask_key,
    read_config,
    resolve_settings,
    write_config,
)

KEY_ARG = "sk-argument-000000000001"
KEY_CRANE = "sk-crane-env-0000000002"
KEY_OPENAI = "sk-openai-env-000000003"
KEY_FILE = "sk-config-file-00000004"
KEY_DOTENV = "sk-dotenv-value-0000005"


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    """A working directory with no .env, and a config file path inside it."""
    work = tmp_path / "project" / "sub"
    work.mkdir(parents=True)
    return work


@pytest.fixture
def config(tmp_path: Path) -> Path:
    path = tmp_path / "home" / ".crane_llm" / "config.json"
    path.parent.mkdir(parents=True)
    path.write_text(
        json.dumps({"api_key": KEY_FILE, "base_url": "http://file.example/v1", "model": "file-m"})
    )
    return path


def resolve(folder: Path, config: Path | None, env: dict[str, str], **kwargs: Any) -> LlmSettings:
    return resolve_settings(
        environ=env, cwd=folder, config_path=config or folder / "none.json", **kwargs
    )


FULL_ENV = {
    "CRANE_LLM_API_KEY": KEY_CRANE,
    "CRANE_LLM_MODEL": "crane-m",
    "CRANE_LLM_BASE_URL": "http://crane.example/v1",
    "OPENAI_API_KEY": KEY_OPENAI,
    "OPENAI_BASE_URL": "http://openai.example/v1",
}


def test_explicit_argument_beats_everything(folder: Path, config: Path) -> None:
    settings = resolve(
        folder, config, FULL_ENV, api_key=KEY_ARG, model="arg-m", base_url="http://arg.example/v1"
    )
    assert (settings.api_key, settings.model, settings.base_url) == (
        KEY_ARG,
        "arg-m",
        "http://arg.example/v1",
    )
    assert settings.sources["api_key"] == "argument"


def test_crane_variables_beat_openai_variables(folder: Path, config: Path) -> None:
    settings = resolve(folder, config, FULL_ENV)
    assert settings.api_key == KEY_CRANE
    assert settings.base_url == "http://crane.example/v1"
    assert settings.model == "crane-m"
    assert settings.sources["api_key"] == "CRANE_LLM_API_KEY (environment)"


def test_openai_variables_beat_the_config_file(folder: Path, config: Path) -> None:
    env = {"OPENAI_API_KEY": KEY_OPENAI, "OPENAI_BASE_URL": "http://openai.example/v1"}
    settings = resolve(folder, config, env)
    assert settings.api_key == KEY_OPENAI
    assert settings.base_url == "http://openai.example/v1"
    assert settings.model == "file-m"  # no OPENAI_* variable names a model
    assert settings.sources["model"].startswith("config file")


def test_config_file_beats_the_default(folder: Path, config: Path) -> None:
    settings = resolve(folder, config, {})
    assert (settings.api_key, settings.model) == (KEY_FILE, "file-m")
    assert settings.sources["api_key"] == f"config file ({config})"


def test_built_in_default_when_nothing_is_set(folder: Path) -> None:
    settings = resolve(folder, None, {})
    assert settings.model == DEFAULT_MODEL
    assert settings.api_key is None and settings.base_url is None
    assert settings.sources["model"] == "built-in default"
    assert not settings.configured


@pytest.mark.parametrize(
    ("env", "style"),
    [
        pytest.param({}, "responses", id="no-base-url-responses"),
        pytest.param({"CRANE_LLM_BASE_URL": "http://x.example/v1"}, "chat", id="base-url-chat"),
        pytest.param(
            {
                "CRANE_LLM_BASE_URL": "https://azure.example/openai",
                "CRANE_LLM_API_STYLE": "responses",
            },
            "responses",
            id="azure-responses",
        ),
    ],
)
def test_api_style(folder: Path, env: dict[str, str], style: str) -> None:
    assert resolve(folder, None, env).api_style == style


def test_local_endpoint_needs_no_key(folder: Path) -> None:
    settings = resolve(folder, None, {"CRANE_LLM_BASE_URL": "http://localhost:11434/v1"})
    assert settings.api_key is None and settings.configured


def test_dotenv_fills_only_missing_variables(folder: Path) -> None:
    (folder / ".env").write_text(
        f"CRANE_LLM_API_KEY={KEY_DOTENV}\nCRANE_LLM_MODEL=dotenv-m\n", encoding="utf-8"
    )
    settings = resolve(folder, None, {"CRANE_LLM_MODEL": "env-m"})
    assert settings.model == "env-m"  # the environment is never overridden
    assert settings.api_key == KEY_DOTENV
    assert settings.sources["api_key"] == f"CRANE_LLM_API_KEY (.env ({folder / '.env'}))"


def test_dotenv_in_a_parent_folder_and_nearest_first(folder: Path) -> None:
    (folder.parent / ".env").write_text(
        "CRANE_LLM_MODEL=parent-m\nCRANE_LLM_API_KEY=sk-parent-00000000\n"
    )
    (folder / ".env").write_text("CRANE_LLM_MODEL=child-m\n")
    settings = resolve(folder, None, {})
    assert settings.model == "child-m"
    assert settings.api_key == "sk-parent-00000000"


def test_dotenv_does_not_touch_os_environ(folder: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("CRANE_LLM_MODEL", raising=False)
    (folder / ".env").write_text("CRANE_LLM_MODEL=dotenv-m\n")
    assert resolve_settings(cwd=folder, config_path=folder / "none.json").model == "dotenv-m"
    assert "CRANE_LLM_MODEL" not in os.environ


def test_dotenv_openai_key_loses_to_crane_variable(folder: Path) -> None:
    (folder / ".env").write_text(f"OPENAI_API_KEY={KEY_DOTENV}\n")
    assert resolve(folder, None, {"CRANE_LLM_API_KEY": KEY_CRANE}).api_key == KEY_CRANE


def test_config_path_from_variable(folder: Path, config: Path) -> None:
    settings = resolve_settings(environ={"CRANE_LLM_CONFIG": str(config)}, cwd=folder)
    assert settings.api_key == KEY_FILE and settings.config_path == str(config)


@pytest.mark.parametrize(
    "env",
    [
        pytest.param({"CRANE_LLM_API_STYLE": "soap"}, id="api-style"),
        pytest.param({"CRANE_LLM_PRIVACY": "some"}, id="privacy"),
        pytest.param({"CRANE_LLM_TIMEOUT": "-1"}, id="timeout-negative"),
        pytest.param({"CRANE_LLM_TIMEOUT": "soon"}, id="timeout-text"),
        pytest.param({"CRANE_LLM_MAX_RETRIES": "99"}, id="retries"),
        pytest.param({"CRANE_LLM_BASE_URL": "localhost:11434"}, id="base-url-scheme"),
    ],
)
def test_invalid_values_raise_settings_error(folder: Path, env: dict[str, str]) -> None:
    with pytest.raises(SettingsError):
        resolve(folder, None, env)


def test_unreadable_config_file(folder: Path) -> None:
    broken = folder / "config.json"
    broken.write_text("{not json")
    with pytest.raises(SettingsError, match="not valid JSON"):
        resolve(folder, broken, {})


def test_write_config_creates_0600_and_merges(tmp_path: Path) -> None:
    path = tmp_path / "new" / ".crane_llm" / "config.json"
    write_config(KEY_FILE, config_path=path)
    write_config(base_url="http://localhost:11434/v1", model="qwen", config_path=path)
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert read_config(path) == {
        "api_key": KEY_FILE,
        "base_url": "http://localhost:11434/v1",
        "model": "qwen",
    }


def test_write_config_fixes_the_mode_of_an_existing_file(tmp_path: Path) -> None:
    path = tmp_path / "config.json"
    path.write_text(json.dumps({"model": "old", "privacy": "schema"}))
    path.chmod(0o644)
    write_config(KEY_FILE, config_path=path)
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert read_config(path) == {"model": "old", "privacy": "schema", "api_key": KEY_FILE}


def test_write_config_rejects_a_bad_base_url(tmp_path: Path) -> None:
    with pytest.raises(SettingsError):
        write_config(base_url="ftp://nope", config_path=tmp_path / "c.json")
    assert not (tmp_path / "c.json").exists()


def test_set_api_key_writes_the_config_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "cfg" / "config.json"
    monkeypatch.setenv("CRANE_LLM_CONFIG", str(path))
    crane_server.set_api_key(KEY_FILE, model="gpt-5")
    assert read_config(path) == {"api_key": KEY_FILE, "model": "gpt-5"}
    assert stat.S_IMODE(path.stat().st_mode) == 0o600


def test_key_is_masked_everywhere(folder: Path, config: Path) -> None:
    settings = resolve(folder, config, {})
    assert KEY_FILE not in repr(settings) and KEY_FILE not in str(settings)
    assert mask_key(KEY_FILE) == KEY_FILE[:3] + "..." + KEY_FILE[-4:]
    assert mask_key("short") == "********"


def test_config_command_set_then_show(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "cli" / "config.json"
    monkeypatch.chdir(tmp_path)
    for name in ("CRANE_LLM_API_KEY", "OPENAI_API_KEY", "CRANE_LLM_MODEL", "CRANE_LLM_BASE_URL"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("CRANE_LLM_CONFIG", str(path))
    assert main(["config", "set", "--api-key", KEY_FILE, "--model", "gpt-5"]) == 0
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert main(["config", "show"]) == 0
    out = capsys.readouterr().out
    assert KEY_FILE not in out
    assert mask_key(KEY_FILE) in out
    model_line = next(line for line in out.splitlines() if line.startswith("model"))
    assert "gpt-5" in model_line and "config file" in model_line


def test_config_command_set_without_values_is_an_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("CRANE_LLM_CONFIG", str(tmp_path / "c.json"))
    assert main(["config", "set"]) == 2
    assert "at least one" in capsys.readouterr().err
