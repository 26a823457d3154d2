"""Latency of lookahead through the real server: a 50-cell notebook, an edit in cell 5, the
Error that cell 50 will raise when Run All gets there republished.

Run: python benchmarks/ahead_latency.py [--rounds 30] [--markdown FILE] [--quick]
Cell 1 builds a 1,000-row frame and runs in the kernel; cells 2-50 are pending (never run).
Cells 2-49 add, transform and aggregate columns; cell 50 reads column 'gone'. Each round edits
cell 5 to drop 'gone' (cell 50 then becomes a lookahead Error: Run All would raise KeyError
there) or to drop another column (the Error leaves). Measured (ms, p50/p95): from the edit
sent to cell 50's diagnostics showing the new verdict, with debounce 0 (excluded). Budget
(issue 15): p95 <= 300 ms on an idle machine; exit status 1 over budget. With --markdown
FILE the table replaces the one between the ahead-latency markers of FILE. `--quick` (CI): 3
rounds, the table written into a temporary copy of docs/measured.md (never the page itself);
fails on errors, never on times (over budget is reported, exit status 0).

Cell 1 ran, so the dry run is on (afterFirstRun): after the walk's verdict, one sealed twin
runs cells 2-50 in order and its verdict is republished. Also measured, on the rounds that
make cell 50 crash: edit -> cell 50's Error carrying the twin's verdict (no budget: it may
come later than the walk's, and the first verdict must not flicker: counted).
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from lsp_latency import edit_params, open_params, percentile
from lsprotocol import types
from measured_page import check_written, quick_page, write_between_markers
from pygls.lsp.client import LanguageClient

from crane_server.kernels.launch import fresh_kernel

CELLS = 50
EDITED = 4  # cell 5
BUDGET_MS = 300.0
SETUP = (
    "import numpy as np\nimport pandas as pd\n"
    "df = pd.DataFrame({'a': np.arange(1000), 'b': np.linspace(0, 1, 1000), 'gone': 1.0, "
    "'spare': 2.0})"
)
DROPS_GONE = "df = df.drop(columns=['gone'])"
DROPS_SPARE = "df = df.drop(columns=['spare'])"
LAST = "total = df['gone'].sum()"


def middle_cell(i: int) -> str:
    """A pending cell that the walk follows and that leaves column 'gone' alone."""
    return [
        f"df['c{i}'] = df['a'] * {i} + df['b']",
        f"m{i} = df.groupby(df['a'] % 7)['b'].mean()",
        f"v{i} = df[['a', 'b']].to_numpy().reshape(-1, 2).sum(axis=0)",
        f"df = df.rename(columns={{'c{i - 3}': 'r{i}'}})",
        f"s{i} = df['b'].clip(0.1, 0.9).describe()",
    ][i % 5]


def sources(edited: str) -> list[str]:
    cells = [SETUP] + [middle_cell(i) for i in range(1, CELLS - 1)] + [LAST]
    cells[EDITED] = edited
    return cells


def has_ahead_error(diagnostics: list[types.Diagnostic]) -> bool:
    return any(
        d.severity == types.DiagnosticSeverity.Error and "'gone'" in d.message for d in diagnostics
    )


class LastCell:
    """Follows the diagnostics published for cell 50."""

    def __init__(self, uri: str) -> None:
        self.uri = uri
        self.error: bool | None = None
        self.at = 0.0
        self.twin_at = 0.0  # when an Error carrying the twin's verdict was last published
        self.flips = 0  # publishes that changed the verdict back and forth
        self.changed = asyncio.Event()

    def on_publish(self, params: types.PublishDiagnosticsParams) -> None:
        if params.uri == self.uri:
            error = has_ahead_error(params.diagnostics)
            self.flips += self.error is not None and error != self.error
            self.error = error
            self.at = time.perf_counter()
            if error and any("dry run" in str(d.data) for d in params.diagnostics):
                self.twin_at = self.at
            self.changed.set()

    async def wait_for_twin(self, since: float, timeout: float = 30.0) -> float:
        deadline = time.perf_counter() + timeout
        while self.twin_at < since:
            self.changed.clear()
            await asyncio.wait_for(self.changed.wait(), max(0.01, deadline - time.perf_counter()))
        return self.twin_at

    async def wait_for(self, error: bool, timeout: float = 30.0) -> float:
        deadline = time.perf_counter() + timeout
        while self.error is not error:
            self.changed.clear()
            await asyncio.wait_for(self.changed.wait(), max(0.01, deadline - time.perf_counter()))
        return self.at


async def run(rounds: int) -> dict[str, Any]:
    uri = "file:///bench/ahead.ipynb"
    cell_uris = [f"vscode-notebook-cell:/bench/ahead.ipynb#cell{i}" for i in range(CELLS)]
    last = LastCell(cell_uris[-1])
    with tempfile.TemporaryDirectory() as folder:
        async with fresh_kernel(Path(folder)) as session:
            client = LanguageClient("crane-bench", "1")

            @client.feature(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
            def on_publish(params: types.PublishDiagnosticsParams) -> None:
                last.on_publish(params)

            @client.feature("crane/kernelStatus")
            def on_status(params: Any) -> None:
                pass

            await client.start_io(sys.executable, "-m", "crane_server", "--stdio")
            options = {"connection_file": str(session.connection_file), "debounce_ms": 0}
            await client.initialize_async(
                types.InitializeParams(
                    capabilities=types.ClientCapabilities(), initialization_options=options
                )
            )
            client.initialized(types.InitializedParams())
            client.notebook_document_did_open(open_params(uri, cell_uris, sources(DROPS_SPARE)))
            await asyncio.sleep(1.0)
            # cell 1 runs (the server sees it on IOPub); cells 2-50 stay pending
            outcome = await session.execute(SETUP, timeout=120)
            assert outcome.status == "ok", outcome
            await last.wait_for(False, timeout=60)
            samples: list[float] = []
            twin: list[float] = []
            flips = 0
            for k in range(rounds + 2):
                error = k % 2 == 0
                sent = time.perf_counter()
                text = DROPS_GONE if error else DROPS_SPARE
                before = last.flips
                client.notebook_document_did_change(
                    edit_params(uri, cell_uris[EDITED], k + 2, text)
                )
                elapsed = (await last.wait_for(error) - sent) * 1000.0
                twin_ms = (await last.wait_for_twin(sent) - sent) * 1000.0 if error else None
                await asyncio.sleep(0.3)  # a late publish of the other verdict would show here
                if k >= 2:  # the first two rounds warm the kernel's libraries up
                    samples.append(elapsed)
                    if twin_ms is not None:
                        twin.append(twin_ms)
                    flips += last.flips - before - 1
            await client.shutdown_async(None)
            client.exit(None)
            await client.stop()
    return {"edit": samples, "twin": twin, "flicker": flips}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=30)
    parser.add_argument("--markdown", type=Path, default=None, help="also write the table here")
    parser.add_argument(
        "--quick", action="store_true", help="3 rounds, a copy of the page, no budget (CI)"
    )
    args = parser.parse_args()
    if args.quick:
        args.rounds, args.markdown = 3, quick_page()
    measured = asyncio.run(run(args.rounds))
    samples, twin = measured["edit"], measured["twin"]
    p50, p95 = statistics.median(samples), percentile(samples, 0.95)
    twin_p50, twin_p95 = statistics.median(twin), percentile(twin, 0.95)
    verdict = "ok" if p95 <= BUDGET_MS else "OVER BUDGET"
    if args.markdown is not None:
        table = (
            "| 50-cell notebook, edit in cell 5 -> cell 50's lookahead verdict | p50 ms "
            "| p95 ms | max ms | n |\n|---|---:|---:|---:|---:|\n"
            f"| through the real server, debounce 0 | {p50:.1f} | {p95:.1f} "
            f"| {max(samples):.1f} | {len(samples)} |\n"
            f"| the same, until the Error carries the twin's verdict (cells 2-50 run in order) "
            f"| {twin_p50:.1f} | {twin_p95:.1f} | {max(twin):.1f} | {len(twin)} |\n"
        )
        write_between_markers(args.markdown, "ahead-latency", table)
        if args.quick:
            check_written(args.markdown, "ahead-latency", table)
            print(f"table written into a copy of the page, {args.markdown}")
    print(
        f"50-cell notebook, edit in cell 5 -> cell 50's lookahead verdict republished: "
        f"p50 {p50:.1f} ms, p95 {p95:.1f} ms, max {max(samples):.1f} ms "
        f"(n={len(samples)}, budget p95 <= {BUDGET_MS:.0f} ms: {verdict}); the twin's verdict: "
        f"p50 {twin_p50:.1f} ms, p95 {twin_p95:.1f} ms (n={len(twin)}); "
        f"verdicts that flipped back: {measured['flicker']}"
    )
    return 0 if p95 <= BUDGET_MS or args.quick else 1


if __name__ == "__main__":
    sys.exit(main())
