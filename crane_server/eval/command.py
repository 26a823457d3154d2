"""`crane-server eval DATASET`: measure engines on case folders."""

from __future__ import annotations

import argparse


def configure(parser: argparse.ArgumentParser) -> None:
    """Declare this subcommand's arguments."""


def run(args: argparse.Namespace) -> int:
    raise NotImplementedError
