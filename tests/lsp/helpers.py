"""Shared pieces of the end-to-end tests: the server command, waits, document builders."""

from __future__ import annotations

import asyncio
import os
import sys
import time
from collections.abc import Callable
from typing import Any

from lsprotocol import types
from pytest_lsp import ClientServerConfig, LanguageClient

_LOG = os.environ.get("CRANE_TEST_SERVER_LOG")  # debugging aid: where the server logs
SERVER = ClientServerConfig(
    server_command=[
        sys.executable,
        "-m",
        "crane_server",
        "--stdio",
        *(["--log-file", _LOG, "--log-level", "DEBUG"] if _LOG else []),
    ]
)
PUBLISH = types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS
KERNEL_STATUS = "crane/kernelStatus"
WAIT = 30.0


class Recorder:
    """Every notification the client gets, in order (installed on the client's protocol)."""

    def __init__(self, client: LanguageClient) -> None:
        self.messages: list[tuple[str, Any]] = []
        protocol = client.protocol
        original = protocol._handle_notification
        self._changed = asyncio.Event()

        def record(method_name: str, params: Any) -> None:
            if method_name == KERNEL_STATUS and hasattr(params, "_asdict"):
                params = params._asdict()
            self.messages.append((method_name, params))
            self._changed.set()
            if method_name == KERNEL_STATUS:
                return  # a custom notification: nothing to dispatch
            original(method_name, params)

        protocol._handle_notification = record  # type: ignore[method-assign]

    def of(self, method: str) -> list[Any]:
        return [params for name, params in self.messages if name == method]

    async def wait_for(self, condition: Callable[[], Any], timeout: float = WAIT) -> Any:
        """Wait until `condition()` is truthy, re-checking after each notification."""
        deadline = time.monotonic() + timeout
        while True:
            value = condition()
            if value:
                return value
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise TimeoutError("condition not met in time")
            self._changed.clear()
            try:
                await asyncio.wait_for(self._changed.wait(), min(remaining, 0.1))
            except TimeoutError:
                continue


def crane_diagnostics(client: LanguageClient, uri: str) -> list[types.Diagnostic]:
    return [d for d in client.diagnostics.get(uri, []) if d.source in ("crane", "crane-llm")]


def has_code(client: LanguageClient, uri: str, code: str) -> list[types.Diagnostic]:
    return [d for d in crane_diagnostics(client, uri) if d.code == code]


def text_item(
    uri: str, text: str, version: int = 1, language: str = "python"
) -> types.TextDocumentItem:
    return types.TextDocumentItem(uri=uri, language_id=language, version=version, text=text)


def open_notebook(
    client: LanguageClient,
    uri: str,
    cells: list[tuple[str, str]],
    notebook_type: str = "jupyter-notebook",
) -> list[str]:
    """Open a notebook of (kind, text) cells; return the cell URIs."""
    cell_uris = [
        f"vscode-notebook-cell:{uri.removeprefix('file:')}#W{i}sZmlsZQ%3D%3D"
        for i in range(len(cells))
    ]
    client.notebook_document_did_open(
        types.DidOpenNotebookDocumentParams(
            notebook_document=types.NotebookDocument(
                uri=uri,
                notebook_type=notebook_type,
                version=1,
                cells=[
                    types.NotebookCell(
                        kind=types.NotebookCellKind.Code
                        if kind == "code"
                        else types.NotebookCellKind.Markup,
                        document=cell_uri,
                    )
                    for cell_uri, (kind, _) in zip(cell_uris, cells)
                ],
            ),
            cell_text_documents=[
                text_item(cell_uri, text, language="python" if kind == "code" else "markdown")
                for cell_uri, (kind, text) in zip(cell_uris, cells)
            ],
        )
    )
    return cell_uris


def replace_text(client: LanguageClient, uri: str, version: int, old: str, new: str) -> None:
    """Send a full-text change of a plain document."""
    del old
    client.text_document_did_change(
        types.DidChangeTextDocumentParams(
            text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=version),
            content_changes=[types.TextDocumentContentChangeWholeDocument(text=new)],
        )
    )


def initialize_params(
    capabilities: types.ClientCapabilities, options: dict[str, Any]
) -> types.InitializeParams:
    return types.InitializeParams(
        capabilities=capabilities, initialization_options=options, process_id=None
    )


def push_only_capabilities() -> types.ClientCapabilities:
    """What jupyterlab-lsp declares that matters here: push diagnostics, hover, code actions."""
    return types.ClientCapabilities(
        text_document=types.TextDocumentClientCapabilities(
            synchronization=types.TextDocumentSyncClientCapabilities(did_save=True),
            publish_diagnostics=types.PublishDiagnosticsClientCapabilities(
                related_information=True
            ),
            hover=types.HoverClientCapabilities(
                content_format=[types.MarkupKind.Markdown, types.MarkupKind.PlainText]
            ),
            code_action=types.CodeActionClientCapabilities(
                code_action_literal_support=types.ClientCodeActionLiteralOptions(
                    code_action_kind=types.ClientCodeActionKindOptions(value_set=["quickfix"])
                )
            ),
        ),
        workspace=types.WorkspaceClientCapabilities(configuration=False),
    )


async def text_document_scenario(
    client: LanguageClient,
    kernel: Any,
    uri: str,
    render: Callable[[list[str]], tuple[str, list[int]]],
    frame: str,
) -> None:
    """The shared end-to-end story for one-document shapes (virtual doc, percent script).

    `render(cells)` returns the document text and the document line of each cell's first line.
    """
    recorder: Recorder = client.recorder  # type: ignore[attr-defined]
    cells = [
        "import pandas as pd",
        f"summary = {frame}.describe()",
        f"x = 1\ntotal = {frame}['revenue'].sum()",
    ]
    text, starts = render(cells)
    client.text_document_did_open(
        types.DidOpenTextDocumentParams(text_document=text_item(uri, text))
    )
    missing = "pandas-missing-column"
    found = await recorder.wait_for(lambda: has_code(client, uri, missing))
    assert found[0].severity == types.DiagnosticSeverity.Error
    assert found[0].range.start.line == starts[2] + 1
    target_line = text.split("\n")[starts[2] + 1]
    span = target_line[found[0].range.start.character : found[0].range.end.character]
    assert "revenue" in span

    hover = await client.text_document_hover_async(
        types.HoverParams(
            text_document=types.TextDocumentIdentifier(uri=uri),
            position=types.Position(line=starts[1], character=len("summary = ") + 1),
        )
    )
    assert hover is not None and isinstance(hover.contents, types.MarkupContent)
    assert "shape: `(2, 2)`" in hover.contents.value

    actions = await client.text_document_code_action_async(
        types.CodeActionParams(
            text_document=types.TextDocumentIdentifier(uri=uri),
            range=found[0].range,
            context=types.CodeActionContext(diagnostics=found),
        )
    )
    fixes = [
        a for a in actions or [] if isinstance(a, types.CodeAction) and a.edit and a.edit.changes
    ]
    assert fixes
    edit = fixes[0].edit.changes[uri][0]  # type: ignore[index,union-attr]
    assert edit.range.start.line == starts[2] + 1
    fixed_line = (
        target_line[: edit.range.start.character]
        + edit.new_text
        + target_line[edit.range.end.character :]
    )
    assert fixed_line == f"total = {frame}['revenue_usd'].sum()"

    await asyncio.to_thread(kernel.execute, f"{frame}['revenue'] = {frame}.price * 2")
    await recorder.wait_for(lambda: not has_code(client, uri, missing))

    # a new cell with a crash, then the cell deleted: its diagnostic goes away
    cells.append(f"{frame}['margin']")
    text, starts = render(cells)
    replace_text(client, uri, 2, "", text)
    found = await recorder.wait_for(lambda: has_code(client, uri, missing))
    assert found[0].range.start.line == starts[3]
    text, starts = render(cells[:3])
    replace_text(client, uri, 3, "", text)
    await recorder.wait_for(
        lambda: uri in client.diagnostics and not has_code(client, uri, missing)
    )


async def attach(client: LanguageClient, uri: str, kernel: Any) -> Any:
    """`crane.attachKernel` of a document to a test kernel (a RunningKernel) by its file."""
    return await client.workspace_execute_command_async(
        types.ExecuteCommandParams(
            command="crane.attachKernel",
            arguments=[{"uri": uri, "connection_file": str(kernel.connection_file)}],
        )
    )
