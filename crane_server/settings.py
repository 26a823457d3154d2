"""LLM settings and how they are resolved.

First found wins, value by value: explicit argument > ``CRANE_LLM_*`` variables >
``OPENAI_API_KEY`` / ``OPENAI_BASE_URL`` > ``~/.crane_llm/config.json`` > built-in default.
A ``.env`` file in the working directory or any parent fills in variables the environment
lacks (the nearest file first) and never overrides one. Each value records its source.
The API key is never logged or printed: use :func:`mask_key`.
"""

from __future__ import annotations

import contextlib
import json
import os
import tempfile
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Literal, NamedTuple, get_args

import msgspec
from dotenv import dotenv_values

from crane_server.errors import SettingsError

ApiStyle = Literal["responses", "chat"]
Privacy = Literal["full", "schema", "types"]
Trigger = Literal["command", "auto"]

DEFAULT_MODEL = "gpt-5-mini"
DEFAULT_TIMEOUT = 60.0
DEFAULT_MAX_RETRIES = 2
CONFIG_ENV = "CRANE_LLM_CONFIG"
#: Keys the config file may hold; `write_config` writes the first three.
CONFIG_KEYS = ("api_key", "base_url", "model", "api_style", "privacy", "timeout", "max_retries")
#: The config file's list of Jupyter servers: `[{"url": ..., "token": ...}]` (the token optional).
JUPYTER_SERVERS_KEY = "jupyter_servers"

# field -> environment variables in precedence order
_ENV_VARS: dict[str, tuple[str, ...]] = {
    "api_key": ("CRANE_LLM_API_KEY", "OPENAI_API_KEY"),
    "base_url": ("CRANE_LLM_BASE_URL", "OPENAI_BASE_URL"),
    "model": ("CRANE_LLM_MODEL",),
    "api_style": ("CRANE_LLM_API_STYLE",),
    "privacy": ("CRANE_LLM_PRIVACY",),
    "timeout": ("CRANE_LLM_TIMEOUT",),
    "max_retries": ("CRANE_LLM_MAX_RETRIES",),
    "trigger": ("CRANE_LLM_TRIGGER",),
}


class LlmSettings(msgspec.Struct, kw_only=True, frozen=True):
    """Resolved settings of the LLM tier; `sources` says where each value came from."""

    api_key: str | None = None
    base_url: str | None = None
    model: str = DEFAULT_MODEL
    api_style: ApiStyle = "responses"
    privacy: Privacy = "full"
    timeout: float = DEFAULT_TIMEOUT
    max_retries: int = DEFAULT_MAX_RETRIES
    trigger: Trigger = "command"
    config_path: str | None = None
    sources: dict[str, str] = msgspec.field(default_factory=dict)

    @property
    def configured(self) -> bool:
        """True when a model can be asked: a key, or a (local) endpoint that needs none."""
        return bool(self.api_key or self.base_url)

    def __repr__(self) -> str:
        return (
            f"LlmSettings(model={self.model!r}, base_url={self.base_url!r}, "
            f"api_style={self.api_style!r}, api_key={mask_key(self.api_key)!r}, "
            f"privacy={self.privacy!r})"
        )

    __str__ = __repr__


def mask_key(key: str | None) -> str:
    """The key as it may be shown: first 3 and last 4 characters."""
    if not key:
        return "(not set)"
    if len(key) < 12:
        return "*" * 8
    return f"{key[:3]}...{key[-4:]}"


def default_config_path(environ: Mapping[str, str] | None = None) -> Path:
    """`$CRANE_LLM_CONFIG`, else ~/.crane_llm/config.json."""
    env = os.environ if environ is None else environ
    override = env.get(CONFIG_ENV)
    if override:
        return Path(override).expanduser()
    return Path.home() / ".crane_llm" / "config.json"


def dotenv_layers(cwd: Path | None = None) -> list[tuple[Path, dict[str, str]]]:
    """The `.env` files from `cwd` upwards (nearest first) and their values."""
    start = (cwd or Path.cwd()).resolve()
    layers: list[tuple[Path, dict[str, str]]] = []
    for folder in (start, *start.parents):
        candidate = folder / ".env"
        if candidate.is_file():
            try:
                values = dotenv_values(candidate)
            except (OSError, UnicodeDecodeError) as exc:
                raise SettingsError(f"cannot read {candidate}: {exc}") from exc
            layers.append((candidate, {k: v for k, v in values.items() if v is not None}))
    return layers


def effective_environment(
    environ: Mapping[str, str] | None = None, cwd: Path | None = None
) -> dict[str, tuple[str, str]]:
    """{variable: (value, source)}: the environment, filled in (never overridden) by `.env`."""
    env = os.environ if environ is None else environ
    merged = {name: (value, "environment") for name, value in env.items()}
    for path, values in dotenv_layers(cwd):
        for name, value in values.items():
            merged.setdefault(name, (value, f".env ({path})"))
    return merged


def read_config(path: Path) -> dict[str, Any]:
    """The config file's values ({} when it does not exist); SettingsError when unreadable."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return {}
    except OSError as exc:
        raise SettingsError(f"cannot read {path}: {exc}") from exc
    try:
        data = json.loads(text) if text.strip() else {}
    except ValueError as exc:
        raise SettingsError(f"{path} is not valid JSON: {exc}") from exc
    if not isinstance(data, dict):
        raise SettingsError(f"{path} must hold a JSON object")
    return data


def resolve_settings(
    *,
    api_key: str | None = None,
    base_url: str | None = None,
    model: str | None = None,
    api_style: str | None = None,
    privacy: str | None = None,
    timeout: float | None = None,
    max_retries: int | None = None,
    trigger: str | None = None,
    environ: Mapping[str, str] | None = None,
    cwd: Path | None = None,
    config_path: Path | None = None,
) -> LlmSettings:
    """Resolve every setting from its first source; raise SettingsError on invalid values."""
    env = effective_environment(environ, cwd)
    path = config_path or default_config_path({k: v for k, (v, _) in env.items()})
    config = read_config(path)
    explicit: dict[str, Any] = {
        "api_key": api_key,
        "base_url": base_url,
        "model": model,
        "api_style": api_style,
        "privacy": privacy,
        "timeout": timeout,
        "max_retries": max_retries,
        "trigger": trigger,
    }
    values: dict[str, Any] = {}
    sources: dict[str, str] = {}
    for field, given in explicit.items():
        found = _first_source(field, given, env, config, path)
        if found is not None:
            values[field], sources[field] = found
    if "model" not in values:
        values["model"], sources["model"] = DEFAULT_MODEL, "built-in default"
    if "api_style" not in values:
        values["api_style"] = "chat" if values.get("base_url") else "responses"
        sources["api_style"] = "derived from base_url"
    for field, default in (
        ("privacy", "full"),
        ("timeout", DEFAULT_TIMEOUT),
        ("max_retries", DEFAULT_MAX_RETRIES),
        ("trigger", "command"),
    ):
        if field not in values:
            values[field], sources[field] = default, "built-in default"
    if "api_key" not in values:
        sources["api_key"] = "not set"
    if "base_url" not in values:
        sources["base_url"] = "not set (OpenAI)"
    return LlmSettings(**_validated(values), config_path=str(path), sources=sources)


def _first_source(
    field: str,
    given: Any,
    env: Mapping[str, tuple[str, str]],
    config: Mapping[str, Any],
    path: Path,
) -> tuple[Any, str] | None:
    if given is not None and given != "":
        return given, "argument"
    for name in _ENV_VARS[field]:
        value, origin = env.get(name, ("", ""))
        if value.strip():
            return value.strip(), f"{name} ({origin})"
    stored = config.get(field)
    if stored is not None and stored != "":
        return stored, f"config file ({path})"
    return None


def _validated(values: dict[str, Any]) -> dict[str, Any]:
    out = dict(values)
    for field, allowed in (
        ("api_style", get_args(ApiStyle)),
        ("privacy", get_args(Privacy)),
        ("trigger", get_args(Trigger)),
    ):
        if out[field] not in allowed:
            shown = _shown(out[field])
            raise SettingsError(f"{field} must be one of {', '.join(allowed)}, not {shown}")
    base_url = out.get("base_url")
    if base_url is not None:
        if not isinstance(base_url, str) or not base_url.startswith(("http://", "https://")):
            shown = _shown(base_url)
            raise SettingsError(f"base_url must start with http:// or https://, not {shown}")
        out["base_url"] = base_url.rstrip("/")
    for field in ("api_key", "model"):
        if field in out and not isinstance(out[field], str):
            raise SettingsError(f"{field} must be a string")
    for field in ("timeout", "max_retries"):
        if isinstance(out[field], bool):
            raise SettingsError(f"{field} must be a number, not {_shown(out[field])}")
    try:
        out["timeout"] = float(out["timeout"])
        out["max_retries"] = int(out["max_retries"])
    except (TypeError, ValueError, OverflowError) as exc:
        # the message quotes the value: no more of it than a line holds
        raise SettingsError(f"timeout and max_retries must be numbers: {_shown(exc)}") from exc
    if not 0 < out["timeout"] <= 3600:
        raise SettingsError(f"timeout must be in (0, 3600] seconds, not {_shown(out['timeout'])}")
    if not 0 <= out["max_retries"] <= 10:
        raise SettingsError(f"max_retries must be in 0..10, not {_shown(out['max_retries'])}")
    return out


def _shown(value: Any) -> str:
    """`value` (or an error) as an error message quotes it: one line of at most 80 characters."""
    text = str(value) if isinstance(value, Exception) else repr(value)
    text = "".join(ch if ch.isprintable() else ascii(ch)[1:-1] for ch in text[:81])
    return text if len(text) <= 80 else text[:77] + "..."


def write_config(
    api_key: str | None = None,
    *,
    base_url: str | None = None,
    model: str | None = None,
    config_path: Path | None = None,
) -> Path:
    """Merge the given values into the config file, written with mode 0600; return its path."""
    path = config_path or default_config_path()
    data = read_config(path)
    for field, value in (("api_key", api_key), ("base_url", base_url), ("model", model)):
        if value is not None:
            data[field] = value
    checked = {k: v for k, v in data.items() if k in CONFIG_KEYS}
    _validated(
        {
            "api_style": "responses",
            "privacy": "full",
            "trigger": "command",
            "timeout": DEFAULT_TIMEOUT,
            "max_retries": DEFAULT_MAX_RETRIES,
            **checked,
        }
    )
    text = json.dumps(data, indent=2, sort_keys=True) + "\n"
    try:
        path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        handle, temp_name = tempfile.mkstemp(prefix=".config-", dir=path.parent)  # mode 0600
        try:
            with os.fdopen(handle, "w", encoding="utf-8") as stream:
                stream.write(text)
            os.chmod(temp_name, 0o600)
            os.replace(temp_name, path)
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(temp_name)
            raise
        os.chmod(path, 0o600)
    except OSError as exc:
        raise SettingsError(f"cannot write {path}: {exc}") from exc
    return path


class JupyterServerEntry(NamedTuple):
    """One `jupyter_servers` entry of the config file."""

    url: str
    token: str | None
    headers: tuple[tuple[str, str], ...]


def jupyter_servers(config_path: Path | None = None) -> list[JupyterServerEntry]:
    """The config file's `jupyter_servers` entries; SettingsError when malformed.

    The error never contains a token or a header value: only the entry's position and what is
    wrong with it.
    """
    from crane_server.kernels.remote_headers import headers_from_mapping

    path = config_path or default_config_path()
    entries = read_config(path).get(JUPYTER_SERVERS_KEY)
    if entries is None:
        return []
    if not isinstance(entries, list):
        raise SettingsError(f"{path}: {JUPYTER_SERVERS_KEY} must be a list of objects")
    found: list[JupyterServerEntry] = []
    for index, entry in enumerate(entries):
        where = f"{path}: {JUPYTER_SERVERS_KEY}[{index}]"
        if not isinstance(entry, dict) or not isinstance(entry.get("url"), str):
            raise SettingsError(f"{where} must be an object with a string 'url'")
        token = entry.get("token")
        if token is not None and not isinstance(token, str):
            raise SettingsError(f"{where}: 'token' must be a string")
        headers = headers_from_mapping(entry["headers"], where) if "headers" in entry else ()
        found.append(JupyterServerEntry(entry["url"], token or None, headers))
    return found


#: The config file's dry-run key, the same spelling as the editor setting `crane.dryRun`.
DRY_RUN_KEY = "dryRun"
DRY_RUN_MODES = ("afterFirstRun", "always", "off")


def configured_dry_run(
    environ: Mapping[str, str] | None = None, config_path: Path | None = None
) -> str | None:
    """The config file's `dryRun` ("afterFirstRun", "always", "off"), or None when unset."""
    env = os.environ if environ is None else environ
    value = read_config(config_path or default_config_path(dict(env))).get(DRY_RUN_KEY)
    if value is None:
        return None
    if value not in DRY_RUN_MODES:
        raise SettingsError(
            f"{DRY_RUN_KEY} in the config file must be one of {', '.join(DRY_RUN_MODES)}, "
            f"not {_shown(value)}"
        )
    return str(value)
