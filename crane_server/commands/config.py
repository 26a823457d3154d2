"""`crane-server config show|set`: the LLM settings."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from crane_server.errors import SettingsError
from crane_server.settings import mask_key, resolve_settings, write_config

SHOWN_FIELDS = ("model", "base_url", "api_style", "api_key", "privacy", "timeout", "max_retries")


def configure(parser: argparse.ArgumentParser) -> None:
    """Declare this subcommand's arguments."""
    parser.add_argument("--config", type=Path, default=None, help="config file to use")
    actions = parser.add_subparsers(dest="config_action")
    actions.add_parser("show", help="print each setting, where it came from, the key masked")
    setter = actions.add_parser("set", help="write settings to the config file (mode 0600)")
    setter.add_argument("--api-key", default=None, help="the API key ('-' reads it from stdin)")
    setter.add_argument("--base-url", default=None, help="an OpenAI-compatible endpoint")
    setter.add_argument("--model", default=None, help="the model name")


def run(args: argparse.Namespace) -> int:
    """Show or set the settings; SettingsError becomes a one-line error."""
    action = getattr(args, "config_action", None) or "show"
    config_path: Path | None = getattr(args, "config", None)
    if action == "set":
        return _set(args, config_path)
    return _show(config_path)


def _show(config_path: Path | None) -> int:
    settings = resolve_settings(config_path=config_path)
    print(f"config file: {settings.config_path}")
    for field in SHOWN_FIELDS:
        value = getattr(settings, field)
        shown = mask_key(value) if field == "api_key" else ("-" if value is None else value)
        print(f"{field:12} {shown!s:40} {settings.sources.get(field, '')}")
    return 0


def _set(args: argparse.Namespace, config_path: Path | None) -> int:
    api_key = args.api_key
    if api_key == "-":
        api_key = sys.stdin.readline().strip()
    if api_key is None and args.base_url is None and args.model is None:
        raise SettingsError("config set: give at least one of --api-key, --base-url, --model")
    path = write_config(api_key, base_url=args.base_url, model=args.model, config_path=config_path)
    written = [
        name
        for name, value in (
            ("api_key", api_key),
            ("base_url", args.base_url),
            ("model", args.model),
        )
        if value is not None
    ]
    print(f"wrote {', '.join(written)} to {path} (mode 0600)")
    return 0
