"""`crane-server inspect --connection-file F [NAME ...] [--json]`."""

from __future__ import annotations

import argparse


def configure(parser: argparse.ArgumentParser) -> None:
    """Declare this subcommand's arguments."""


def run(args: argparse.Namespace) -> int:
    raise NotImplementedError
