"""`crane-server eval DATASET`: measure engines on case folders."""

from __future__ import annotations

import argparse
import asyncio
import sys
from pathlib import Path

from crane_server.errors import SettingsError
from crane_server.eval.plan import ENGINES, SETTINGS, TASKS, Plan


def configure(parser: argparse.ArgumentParser) -> None:
    """Declare this subcommand's arguments."""
    parser.add_argument(
        "dataset",
        type=Path,
        help="folder of case folders (<case>/reproduced.ipynb, fixed.ipynb, case.json), "
        "or a JunoBench checkout (see --junobench)",
    )
    parser.add_argument("--engine", choices=ENGINES, default="rules")
    parser.add_argument(
        "--model", action="append", default=[], help="model to evaluate (repeatable)"
    )
    parser.add_argument(
        "--setting",
        action="append",
        choices=SETTINGS,
        default=[],
        help="what the model sees (repeatable; default: runtime)",
    )
    parser.add_argument("--task", choices=TASKS, default="joint")
    parser.add_argument("--runs", type=int, default=1, help="repeated runs per LLM setting")
    parser.add_argument("--jobs", type=int, default=2, help="notebooks prepared in parallel")
    parser.add_argument("--out", type=Path, default=None, help="output folder (default: eval-out)")
    parser.add_argument(
        "--timeout", type=float, default=120.0, help="seconds per preceding cell and per check"
    )
    parser.add_argument("--judge-model", default=None, help="LLM judge for text-only reasons")
    parser.add_argument(
        "--price-in", type=float, default=None, help="price per 1M prompt tokens (all models)"
    )
    parser.add_argument(
        "--price-out", type=float, default=None, help="price per 1M completion tokens"
    )
    parser.add_argument(
        "--price",
        action="append",
        default=[],
        metavar="MODEL=IN,OUT",
        help="price per 1M prompt/completion tokens of one model (repeatable)",
    )
    parser.add_argument(
        "--junobench",
        action="store_true",
        help="DATASET is a JunoBench checkout: convert it into case folders under OUT/cases",
    )
    parser.add_argument(
        "--split",
        default=None,
        help="only the cases DATASET/SPLIT.json lists under this name (e.g. validation)",
    )
    parser.add_argument("--retry-errors", action="store_true", help="re-run rows that failed")
    parser.add_argument("--no-plots", action="store_true", help="skip the PNG plots")
    parser.add_argument(
        "--no-helper",
        action="store_true",
        help="judge a cell that first imports a library without a helper interpreter",
    )
    parser.add_argument(
        "--no-dry-run",
        action="store_true",
        help="the rules tier without the dry run in a sealed twin (the checker alone)",
    )
    parser.add_argument(
        "--report-only", action="store_true", help="rebuild the report from results.jsonl"
    )


def parse_prices(
    entries: list[str], price_in: float | None, price_out: float | None
) -> dict[str, tuple[float, float]]:
    """{model or "*": (input, output) per 1M tokens} from the command line."""
    prices: dict[str, tuple[float, float]] = {}
    if price_in is not None or price_out is not None:
        prices["*"] = (price_in or 0.0, price_out or 0.0)
    for entry in entries:
        model, sep, pair = entry.partition("=")
        parts = pair.split(",")
        try:
            if not sep or not model or len(parts) != 2:
                raise ValueError(entry)
            prices[model] = (float(parts[0]), float(parts[1]))
        except ValueError as exc:
            raise SettingsError(f"--price wants MODEL=IN,OUT, not {entry!r}") from exc
    return prices


def plan_from_args(args: argparse.Namespace) -> Plan:
    return Plan(
        engine=args.engine,
        models=tuple(args.model),
        settings=tuple(args.setting) or ("runtime",),
        task=args.task,
        runs=args.runs,
        jobs=args.jobs,
        timeout=args.timeout,
        judge_model=args.judge_model,
        retry_errors=args.retry_errors,
        helper=not args.no_helper,
        dry_run=not args.no_dry_run,
        prices=parse_prices(args.price, args.price_in, args.price_out),
    )


def run(args: argparse.Namespace) -> int:
    from crane_server.eval.session import evaluate

    plan = plan_from_args(args)
    out: Path = args.out or Path("eval-out")
    summary = asyncio.run(
        evaluate(
            args.dataset,
            out,
            plan,
            junobench=args.junobench,
            plots=not args.no_plots,
            report_only=args.report_only,
            split=args.split,
        )
    )
    print(summary)
    print(f"\nresults: {out / 'results.jsonl'}\nreport:  {out / 'report.md'}", file=sys.stderr)
    return 0
