"""`crane-server check`: predict whether a cell will crash."""

from __future__ import annotations

import argparse


def configure(parser: argparse.ArgumentParser) -> None:
    """Declare this subcommand's arguments."""


def run(args: argparse.Namespace) -> int:
    raise NotImplementedError
