"""Latency of one check over Jupyter Server's websocket next to ZeroMQ, on the same kernel.

Run: python benchmarks/kernel_remote_bench.py [--repeat 100] [--quick]
Starts a `jupyter server` on 127.0.0.1 (token, extensions off), one kernel through its REST
API holding a DataFrame, then times `check_cell` of a cell reading a missing column (a
predicted KeyError) through: the kernel's connection file (ZeroMQ), the websocket with the
v1 subprotocol, and the websocket with the JSON framing. Prints p50/p95 in ms as markdown.
`--quick` (CI): 3 timed checks per transport; fails on errors, never on times.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx

from crane_server.analysis.engine import check_cell
from crane_server.kernels.session import KernelSession

TOKEN = "crane-bench-token"
SETUP = "import pandas as pd\ndf = pd.DataFrame({'price': range(100_000), 'qty': 1})\n"
CELL = "total = df['prices'].sum()\n"
EXTENSIONS_OFF = (
    "{'jupyterlab': False, 'jupyter_lsp': False, 'notebook_shim': False, "
    "'jupyter_server_terminals': False, 'panel.io.jupyter_server_extension': False, "
    "'crane_server.jupyter': False, 'notebook': False}"
)


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


async def _time_checks(session: KernelSession, repeat: int) -> tuple[float, float]:
    for _ in range(5):  # warm up: the first probe call installs the probe
        result = await check_cell(session, CELL)
        assert result.crash, result
    samples = []
    for _ in range(repeat):
        started = time.perf_counter()
        result = await check_cell(session, CELL)
        if not result.crash:
            raise RuntimeError(f"the missing column was not predicted: {result}")
        samples.append((time.perf_counter() - started) * 1000.0)
    samples.sort()
    return statistics.median(samples), samples[min(len(samples) - 1, int(0.95 * len(samples)))]


async def bench(url: str, kernel_id: str, connection_file: Path, repeat: int) -> list[str]:
    rows = []
    remote = await KernelSession.attach_remote(url, kernel_id, token=TOKEN, timeout=30)
    try:
        assert (await remote.execute(SETUP, timeout=60)).status == "ok"
    finally:
        await remote.close()
    transports = [
        ("ZeroMQ (connection file)", lambda: KernelSession.attach(connection_file, timeout=10)),
        (
            "websocket, v1 subprotocol",
            lambda: KernelSession.attach_remote(url, kernel_id, token=TOKEN, timeout=10),
        ),
        (
            "websocket, JSON framing",
            lambda: KernelSession.attach_remote(
                url, kernel_id, token=TOKEN, timeout=10, protocol="json"
            ),
        ),
    ]
    for name, attach in transports:
        session = await attach()
        try:
            p50, p95 = await _time_checks(session, repeat)
        finally:
            await session.close()
        rows.append(f"| {name} | {p50:.1f} | {p95:.1f} |")
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--repeat", type=int, default=100)
    parser.add_argument("--quick", action="store_true", help="3 checks per transport (CI)")
    args = parser.parse_args()
    if args.quick:
        args.repeat = 3
    with tempfile.TemporaryDirectory() as folder:
        runtime = Path(folder)
        port = _free_port()
        command = [
            sys.executable, "-m", "jupyter_server", "--no-browser", "--allow-root",
            f"--port={port}", "--ServerApp.port_retries=0", "--ServerApp.ip=127.0.0.1",
            f"--IdentityProvider.token={TOKEN}", f"--ServerApp.root_dir={folder}",
            f"--ServerApp.jpserver_extensions={EXTENSIONS_OFF}",
        ]  # fmt: skip
        env = {**os.environ, "JUPYTER_RUNTIME_DIR": folder}
        server = subprocess.Popen(
            command, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
        )
        url = f"http://127.0.0.1:{port}/"
        headers = {"Authorization": f"token {TOKEN}"}
        try:
            deadline = time.monotonic() + 30
            while True:
                try:
                    if httpx.get(url + "api/status", headers=headers).status_code == 200:
                        break
                except httpx.HTTPError:
                    pass
                if time.monotonic() > deadline:
                    raise SystemExit("the Jupyter server did not start")
                time.sleep(0.1)
            response = httpx.post(url + "api/kernels", json={"name": "python3"}, headers=headers)
            kernel_id = response.json()["id"]
            connection_file = runtime / f"kernel-{kernel_id}.json"
            rows = asyncio.run(bench(url, kernel_id, connection_file, args.repeat))
        finally:
            try:
                httpx.post(url + "api/shutdown", headers=headers, timeout=10)
                server.wait(timeout=15)
            except Exception:
                server.kill()
    print(f"check of one cell (a predicted KeyError), {args.repeat} runs, 127.0.0.1\n")
    print("| transport | p50 ms | p95 ms |\n|---|---:|---:|")
    print("\n".join(rows))


if __name__ == "__main__":
    main()
