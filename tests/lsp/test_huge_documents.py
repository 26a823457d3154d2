"""Huge documents: a cell or a document over the caps gets a note, not a check, and the server's
memory comes back when it is closed."""

from __future__ import annotations

import time
from typing import Any

import pytest

from tests.conftest import RunningKernel
from tests.lsp.test_wire_fuzz import Wire

pytestmark = [pytest.mark.kernel]


def rss_mb(pid: int) -> float:
    with open(f"/proc/{pid}/status", encoding="utf-8") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    raise AssertionError("no VmRSS")


def open_notebook(wire: Wire, uri: str, cells: list[str]) -> list[str]:
    cell_uris = [f"{uri}#cell{i}" for i in range(len(cells))]
    wire.send(
        {
            "jsonrpc": "2.0",
            "method": "notebookDocument/didOpen",
            "params": {
                "notebookDocument": {
                    "uri": uri,
                    "notebookType": "jupyter-notebook",
                    "version": 0,
                    "cells": [{"kind": 2, "document": u} for u in cell_uris],
                },
                "cellTextDocuments": [
                    {"uri": u, "languageId": "python", "version": 0, "text": text}
                    for u, text in zip(cell_uris, cells)
                ],
            },
        }
    )
    return cell_uris


def codes(wire: Wire, uri: str) -> list[str]:
    published = [
        m["params"]["diagnostics"]
        for m in wire.messages
        if m.get("method") == "textDocument/publishDiagnostics" and m["params"]["uri"] == uri
    ]
    return [d.get("code") for d in published[-1]] if published else []


def wait_codes(wire: Wire, uri: str, code: str, timeout: float = 60) -> None:
    deadline = time.monotonic() + timeout
    while code not in codes(wire, uri):
        assert time.monotonic() < deadline, f"{code} never published for {uri}: {codes(wire, uri)}"
        time.sleep(0.1)


@pytest.fixture
def attached(kernel: RunningKernel) -> Any:
    assert kernel.execute("import pandas as pd\nbig = pd.DataFrame({'a': [1]})")["status"] == "ok"
    wire = Wire()
    wire.request(1, "initialize", {"processId": None, "rootUri": None, "capabilities": {}})
    wire.send({"jsonrpc": "2.0", "method": "initialized", "params": {}})
    yield wire, kernel
    wire.close()


def test_a_five_megabyte_cell_is_noted_and_its_neighbours_still_checked(attached: Any) -> None:
    wire, kernel = attached
    huge = "\n".join(f"v{i} = [{i}, {i + 1}, {i + 2}]" for i in range(220_000))
    assert len(huge) > 5_000_000
    uri = "file:///work/huge-cell.ipynb"
    cells = open_notebook(wire, uri, ["big['missing']", huge])
    reply = wire.request(
        2,
        "workspace/executeCommand",
        {
            "command": "crane.attachKernel",
            "arguments": [{"uri": uri, "connection_file": str(kernel.connection_file)}],
        },
    )
    assert "result" in reply, reply
    before = rss_mb(wire.proc.pid)
    wait_codes(wire, cells[1], "crane-cell-too-long")
    wait_codes(wire, cells[0], "pandas-missing-column")
    hover = wire.request(
        3,
        "textDocument/hover",
        {"textDocument": {"uri": cells[1]}, "position": {"line": 5, "character": 1}},
    )
    assert "result" in hover or "error" in hover
    peak = rss_mb(wire.proc.pid)
    wire.send(
        {
            "jsonrpc": "2.0",
            "method": "notebookDocument/didClose",
            "params": {
                "notebookDocument": {"uri": uri},
                "cellTextDocuments": [{"uri": u} for u in cells],
            },
        }
    )
    probe = wire.request(4, "workspace/symbol", {"query": ""})
    assert "id" in probe
    # The document's own copies (~5 MB each) are all the server keeps while it is open.
    print(f"server RSS {before:.0f} MB before the checks, {peak:.0f} MB after")
    assert peak - before < 200, (before, peak)
    assert wire.proc.poll() is None


def test_a_document_over_the_cap_gets_one_note_and_no_check(attached: Any) -> None:
    wire, _kernel = attached
    block = "\n".join(f"w{i} = {i}" for i in range(40_000))
    uri = "file:///work/huge-doc.ipynb"
    cells = open_notebook(wire, uri, ["big['missing']"] + [block] * 20)
    wait_codes(wire, cells[0], "crane-document-too-large")
    assert "pandas-missing-column" not in codes(wire, cells[0])
