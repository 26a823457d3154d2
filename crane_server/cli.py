"""Command line: serve | kernels | inspect | check | eval | config.

Every subcommand is a module of `crane_server.commands` with `configure(parser)` to declare
its arguments and `run(args) -> int` to execute.
Exit status: 0 success (no crash predicted), 1 a crash predicted, 2 usage or runtime error.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence

from crane_server import __version__
from crane_server.errors import CraneError

SUBCOMMANDS: dict[str, tuple[str, str]] = {
    "serve": ("crane_server.commands.serve", "run the language server (the default)"),
    "kernels": ("crane_server.commands.kernels", "list running kernels"),
    "inspect": ("crane_server.commands.inspect", "print the runtime snapshot of names"),
    "check": ("crane_server.commands.check", "predict whether a notebook cell will crash"),
    "eval": ("crane_server.commands.eval", "measure the checker and models on case folders"),
    "config": ("crane_server.commands.config", "show or set the LLM settings"),
}


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="crane-server",
        description="Warns before a notebook cell runs that it will crash.",
    )
    parser.add_argument("--version", action="version", version=f"crane-server {__version__}")
    sub = parser.add_subparsers(dest="command")
    for name, (module_name, help_text) in SUBCOMMANDS.items():
        module = importlib.import_module(module_name)
        sub_parser = sub.add_parser(name, help=help_text, description=help_text)
        module.configure(sub_parser)
        sub_parser.set_defaults(_module=module)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args_list = list(sys.argv[1:] if argv is None else argv)
    # `crane-server`, `crane-server --stdio`, `--tcp`, `--ws` all mean: serve.
    if not args_list or (
        args_list[0].startswith("--") and args_list[0] not in ("--version", "-h", "--help")
    ):
        args_list = ["serve", *args_list]
    parser = build_parser()
    args = parser.parse_args(args_list)
    if getattr(args, "_module", None) is None:
        parser.print_help()
        return 2
    try:
        result: int = args._module.run(args)
    except CraneError as exc:
        print(f"crane-server: error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130
    return result


if __name__ == "__main__":
    sys.exit(main())
