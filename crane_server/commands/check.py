"""`crane-server check`: predict whether a notebook cell will crash, without running it.

Exit status: 0 no crash predicted, 1 a crash predicted, 2 usage or runtime error (one line
on stderr). A busy kernel (`--connection-file` while a cell runs) gets the static check
only: the status keeps this meaning, and the text and JSON say so (`engine` "static",
`partial` true): 0 then means no crash found by syntax and name checks alone.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
from pathlib import Path

import msgspec

from crane_server.analysis.engine import CheckOptions, check_cell
from crane_server.commands.remote_options import (
    add_server_arguments,
    attach_remote,
    wants_server,
)
from crane_server.commands.render import render_result
from crane_server.errors import CraneError, DocumentError
from crane_server.kernels.helper import HelperPool
from crane_server.kernels.notebook_run import (
    cell_index,
    prepared_notebook,
    read_code_cells,
    resolve_cell,
)
from crane_server.kernels.session import KernelSession
from crane_server.llm.command_support import add_llm_arguments, run_llm_check
from crane_server.protocol import CheckResult
from crane_server.protocol.check import AheadReport
from crane_server.settings import configured_dry_run
from crane_server.twin import DryRunOptions


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "target", nargs="?", help="notebook (.ipynb), a file holding the cell, or - for stdin"
    )
    parser.add_argument(
        "--cell",
        type=int,
        default=None,
        help=(
            "the code cell to check, numbered from 1 as the output numbers them "
            "(-1: the last, the default)"
        ),
    )
    parser.add_argument(
        "--connection-file", help="check against this running kernel instead of a fresh one"
    )
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument(
        "--timeout",
        type=float,
        default=120.0,
        help="seconds per preceding cell (and, at most 5, to reach a --connection-file kernel)",
    )
    parser.add_argument(
        "--ahead",
        action="store_true",
        help=(
            "predict every code cell as Run All would run it: a fresh kernel runs only the "
            "leading import cells (or --run N), the rest are walked in order, never run"
        ),
    )
    parser.add_argument(
        "--run",
        type=int,
        default=None,
        metavar="N",
        help="with --ahead: run the first N code cells for real (default: the import cells)",
    )
    parser.add_argument(
        "--no-helper",
        action="store_true",
        help=(
            "do not start a helper interpreter for a cell that first imports a library "
            "(such a cell is then judged without that library)"
        ),
    )
    parser.add_argument(
        "--no-dry-run",
        action="store_true",
        help=(
            "do not run the cell in a sealed twin of the kernel (the dry run); "
            "judge it with the checker alone"
        ),
    )
    parser.add_argument(
        "--dry-run-budget",
        type=float,
        default=None,
        metavar="S",
        help=(
            "seconds of wall and CPU time the dry run may spend (default 3 for one cell; "
            "with --ahead, 10 for all the pending cells in one twin)"
        ),
    )
    add_server_arguments(parser)
    add_llm_arguments(parser)


def check_options(args: argparse.Namespace) -> CheckOptions:
    """The checker's options from the command line (the dry run on unless --no-dry-run)."""
    return CheckOptions(dry_run=dry_run_options(args, DryRunOptions().wall_s))


def dry_run_options(args: argparse.Namespace, default_budget: float) -> DryRunOptions | None:
    """The dry run's options from --no-dry-run, --dry-run-budget and the config file."""
    if args.no_dry_run or configured_dry_run() == "off":
        return None
    budget = default_budget if args.dry_run_budget is None else args.dry_run_budget
    if not 0.1 <= budget <= 30.0:
        raise DocumentError(f"--dry-run-budget must be between 0.1 and 30 seconds, not {budget}")
    return DryRunOptions(wall_s=budget)


def run(args: argparse.Namespace) -> int:
    """Errors go to stderr as one line (exit 2); stdout carries only the result."""
    args.remote = wants_server(args, args.connection_file)
    if args.connection_file is None and not args.remote and not args.target:
        raise DocumentError("give a notebook to check, or --connection-file with a cell file or -")
    if args.ahead:
        return _run_ahead(args)
    try:
        result, source = asyncio.run(_check(args))
    except CraneError as exc:
        if args.json:
            print(msgspec.json.encode(CheckResult(crash=False, error=str(exc))).decode())
        raise
    if args.json:
        print(msgspec.json.encode(result).decode())
    if result.error:
        # One line on stderr (cli.main's format); in --json mode the object above has it too.
        where = args.target or "<cell>"
        if result.cell is not None:
            where += f", code cell {result.cell}"
        raise CraneError(" ".join(f"{where}: {result.error}".split()))
    if not args.json:
        print(render_result(result, args.target or "<cell>", source))
    return 1 if result.crash else 0


async def _check(args: argparse.Namespace) -> tuple[CheckResult, str]:
    async with HelperPool(enabled=not args.no_helper) as helpers:
        if args.connection_file or args.remote:
            return await _check_attached(args, helpers)
        return await _check_notebook(args, helpers)


async def _check_notebook(args: argparse.Namespace, helpers: HelperPool) -> tuple[CheckResult, str]:
    path = Path(args.target)
    async with prepared_notebook(path, cell_index(args.cell), timeout=args.timeout) as prepared:
        if prepared.failed is not None:
            failed = prepared.failed
            number = (prepared.failed_index or 0) + 1  # people count cells from 1
            if failed.status == "died":
                error = (
                    f"code cell {number} ended the kernel ({failed.evalue}) while building the "
                    "kernel state; the target cell is not judged"
                )
            else:
                detail = (
                    f"{failed.ename}: {failed.evalue}"
                    if failed.status == "error"
                    else f"no answer within {args.timeout:g} s"
                )
                error = (
                    f"code cell {number} failed while building the kernel state "
                    f"({detail}); the target cell is not judged on a broken state"
                )
            return CheckResult(
                crash=False,
                cell=prepared.target_index + 1,
                error=error,
                timings=prepared.timings,
            ), prepared.target_source
        result = await check_cell(
            prepared.session,
            prepared.target_source,
            executed_cells=prepared.executed_sources,
            notebook_cells=prepared.all_sources,
            target_index=prepared.target_index,
            helpers=helpers,
            options=check_options(args),
        )
        result.cell = prepared.target_index + 1
        result.timings.update(prepared.timings)
        result = await _maybe_llm(
            args, result, prepared.session, prepared.target_source, prepared.executed_sources
        )
        return result, prepared.target_source


async def _check_attached(args: argparse.Namespace, helpers: HelperPool) -> tuple[CheckResult, str]:
    source, index, cells = _read_target(args)
    # A kernel answers in milliseconds; --timeout only shortens the wait for a dead one.
    if args.remote:
        session = await attach_remote(args, timeout=min(5.0, args.timeout))
    else:
        session = await KernelSession.attach(args.connection_file, timeout=min(5.0, args.timeout))
    try:
        result = await check_cell(
            session,
            source,
            notebook_cells=cells,
            target_index=index,
            helpers=helpers,
            options=check_options(args),
        )
        result.cell = None if index is None else index + 1
        executed = cells[:index] if cells and index is not None else []
        return await _maybe_llm(args, result, session, source, executed), source
    finally:
        await session.close()


def _read_target(args: argparse.Namespace) -> tuple[str, int | None, list[str] | None]:
    if not args.target or args.target == "-":
        return sys.stdin.read(), None, None
    path = Path(args.target)
    if path.suffix == ".ipynb":
        cells = read_code_cells(path)
        index = resolve_cell(cells, cell_index(args.cell))
        return cells[index], index, cells
    try:
        return path.read_text(encoding="utf-8"), None, None
    except OSError as exc:
        raise DocumentError(f"{path}: cannot read: {exc}") from exc


async def _maybe_llm(
    args: argparse.Namespace,
    result: CheckResult,
    session: KernelSession,
    source: str,
    executed: list[str],
) -> CheckResult:
    """The LLM tier when --llm or --show-prompt asks for it; its failures land in `error`."""
    checked = await run_llm_check(
        session, source, executed_cells=executed, rule_result=result, args=args
    )
    merged = checked.result
    if checked.outcome is not None:
        merged.llm = checked.outcome
    return merged


def _run_ahead(args: argparse.Namespace) -> int:
    """`--ahead`: the notebook predicted as Run All would run it (exit 1: a crash ahead)."""
    from crane_server.commands.check_ahead import AHEAD_BUDGET_S, check_ahead, render_ahead

    if args.connection_file is not None or args.remote or not str(args.target).endswith(".ipynb"):
        raise DocumentError("--ahead takes a notebook (.ipynb) and starts its own kernel")
    path = Path(args.target)
    # Read before any cell runs: a cell may delete or rewrite the notebook, and the report
    # quotes the cells it judged.
    sources = read_code_cells(path)

    async def ahead() -> AheadReport:
        async with HelperPool(enabled=not args.no_helper) as helpers:
            return await check_ahead(
                path,
                run_first=args.run,
                timeout=args.timeout,
                helpers=helpers,
                dry_run=dry_run_options(args, AHEAD_BUDGET_S),
            )

    report = asyncio.run(ahead())
    if args.json:
        print(msgspec.json.encode(report).decode())
    if report.error:
        raise CraneError(f"{args.target}: {report.error}")
    if not args.json:
        print(render_ahead(report, sources))
    return 1 if report.stopped_at is not None else 0
