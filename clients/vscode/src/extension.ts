// Entry point: starts crane-server over stdio and wires its commands, status and kernel hand-off.

import * as fs from "fs";
import * as vscode from "vscode";
import {
  CloseAction,
  DidChangeConfigurationNotification,
  ErrorAction,
  LanguageClient,
  LanguageClientOptions,
  ServerOptions,
  TransportKind,
} from "vscode-languageclient/node";

import { EXTENSION_COMMANDS, SERVER_COMMANDS } from "./commands";
import { attachArgs, decideHandOff, handOffArgs, kernelPickItems } from "./handoff";
import { onJupyterKernelStart, probeJupyterKernel } from "./jupyter";
import { DOCUMENT_SELECTOR, isCraneNotebook } from "./selectors";
import { CrashPolicy, resolveServer } from "./server";
import { CraneSettings, readSettings, toServerSettings } from "./settings";
import { KernelGoneNotifier, KernelStatus, parseKernelStatus, statusText } from "./status";

/** A LanguageClient whose own error pop-ups go to the log only: crane shows one message itself. */
class CraneLanguageClient extends LanguageClient {
  override error(message: string, data?: unknown, _showNotification?: boolean | "force"): void {
    super.error(message, data, false);
  }
}

let client: LanguageClient | undefined;
let output: vscode.OutputChannel;
let statusItem: vscode.StatusBarItem;
const crashPolicy = new CrashPolicy();
const statuses = new Map<string, KernelStatus>();
const goneNotifier = new KernelGoneNotifier();
const handedOff = new Map<string, string>(); // notebook URI -> connection file sent

function currentSettings(): CraneSettings {
  const config = vscode.workspace.getConfiguration("crane");
  const { settings, problems } = readSettings((key) => config.get(key));
  for (const problem of problems) output.appendLine(problem);
  return settings;
}

function isExecutable(file: string): boolean {
  try {
    fs.accessSync(file, fs.constants.X_OK);
    return fs.statSync(file).isFile();
  } catch {
    return false;
  }
}

function activeUris(): string[] {
  const uris: string[] = [];
  const notebook = vscode.window.activeNotebookEditor?.notebook;
  if (notebook) uris.push(notebook.uri.toString());
  const document = vscode.window.activeTextEditor?.document;
  if (document) uris.push(document.uri.toString());
  return uris;
}

function refreshStatusBar(): void {
  const status = activeUris().map((uri) => statuses.get(uri)).find((s) => s !== undefined);
  const { text, tooltip } = statusText(status);
  statusItem.text = client ? text : "$(error) crane: off";
  statusItem.tooltip = client ? tooltip : "crane: the language server is not running";
  statusItem.show();
}

function onKernelStatus(params: unknown): void {
  const status = parseKernelStatus(params);
  if (status === undefined) return;
  statuses.set(status.uri, status);
  const name = vscode.Uri.parse(status.uri).path.split("/").pop() ?? status.uri;
  const message = goneNotifier.update(status, name);
  if (message) void vscode.window.showWarningMessage(message, "Attach kernel").then((pick) => {
    if (pick) void vscode.commands.executeCommand(EXTENSION_COMMANDS.pickKernelFor, status.uri);
  });
  refreshStatusBar();
}

async function handOff(notebook: vscode.NotebookDocument, force = false): Promise<void> {
  if (!client || !isCraneNotebook(notebook.notebookType)) return;
  const settings = currentSettings();
  const uri = notebook.uri.toString();
  if (settings.kernelHandOff === "discovery") return;
  if (!force && handedOff.has(uri)) return;
  const decision = decideHandOff(settings.kernelHandOff, await probeJupyterKernel(notebook.uri));
  if (decision.kind === "discovery") {
    output.appendLine(`kernel hand-off for ${uri}: server discovery (${decision.reason})`);
    return;
  }
  if (handedOff.get(uri) === decision.connectionFile) return;
  handedOff.set(uri, decision.connectionFile);
  output.appendLine(`kernel hand-off for ${uri}: ${decision.connectionFile}`);
  const attached = await runServerCommand(SERVER_COMMANDS.attachKernel, handOffArgs(uri, decision), true);
  if (attached === undefined) handedOff.delete(uri); // server discovery stays in charge; retry on the next kernel start
}

/** Run a crane.* command on the server; failures are shown (or only logged when quiet). */
async function runServerCommand(command: string, args: object, quiet = false): Promise<unknown> {
  if (!client) {
    if (!quiet) void vscode.window.showErrorMessage("crane: the language server is not running.");
    return undefined;
  }
  try {
    return await client.sendRequest("workspace/executeCommand", { command, arguments: [args] });
  } catch (err) {
    const message = `crane: ${command} failed: ${err instanceof Error ? err.message : String(err)}`;
    output.appendLine(message);
    if (!quiet) void vscode.window.showErrorMessage(message);
    return undefined;
  }
}

function activeDocumentUri(): string | undefined {
  const notebook = vscode.window.activeNotebookEditor?.notebook;
  if (notebook) return notebook.uri.toString();
  return vscode.window.activeTextEditor?.document.uri.toString();
}

/** The cell to check: the selected notebook cell's URI, or the document URI and cursor line. */
function activeCellArgs(): { uri: string; line: number } | undefined {
  const notebookEditor = vscode.window.activeNotebookEditor;
  const textEditor = vscode.window.activeTextEditor;
  if (textEditor && textEditor.document.uri.scheme === "vscode-notebook-cell") {
    return { uri: textEditor.document.uri.toString(), line: textEditor.selection.active.line };
  }
  if (notebookEditor) {
    const index = notebookEditor.selections[0]?.start ?? 0;
    const cell = notebookEditor.notebook.cellAt(index);
    return { uri: cell.document.uri.toString(), line: 0 };
  }
  if (textEditor) return { uri: textEditor.document.uri.toString(), line: textEditor.selection.active.line };
  return undefined;
}

async function pickAndAttach(targetUri?: string): Promise<void> {
  const uri = targetUri ?? activeDocumentUri();
  if (!uri) {
    void vscode.window.showInformationMessage("crane: open a notebook or Python file first.");
    return;
  }
  const listed = await runServerCommand(SERVER_COMMANDS.listKernels, {});
  const items: (vscode.QuickPickItem & { args?: object })[] = kernelPickItems(uri, listed);
  items.push({ label: "$(edit) Enter a connection file or kernel id…", description: "", detail: "" });
  const pick = await vscode.window.showQuickPick(items, { title: "crane: attach a kernel", matchOnDetail: true });
  if (!pick) return;
  let args = pick.args;
  if (!args) {
    const typed = await vscode.window.showInputBox({
      title: "crane: attach a kernel",
      prompt: "Path to kernel-*.json, or a kernel id",
    });
    args = typed === undefined ? undefined : attachArgs(uri, typed);
  }
  if (args) await runServerCommand(SERVER_COMMANDS.attachKernel, args);
}

async function checkCell(): Promise<void> {
  const args = activeCellArgs();
  if (!args) return;
  const result = (await vscode.window.withProgress(
    { location: vscode.ProgressLocation.Window, title: "crane: asking the LLM…" },
    () => runServerCommand(SERVER_COMMANDS.check, args),
  )) as { crash?: boolean | null; diagnoses?: number; error?: string | null } | undefined;
  if (!result) return;
  if (result.error) void vscode.window.showWarningMessage(`crane: ${result.error}`);
  else if (result.crash) {
    void vscode.window.showWarningMessage(`crane-llm predicts a crash (${result.diagnoses ?? 0} diagnosis, see Problems).`);
  } else if (result.crash === false) void vscode.window.showInformationMessage("crane-llm predicts no crash.");
}

async function showPrompt(): Promise<void> {
  const args = activeCellArgs();
  if (!args) return;
  const result = await runServerCommand(SERVER_COMMANDS.showPrompt, args);
  if (result === undefined || result === null) return;
  const text =
    typeof result === "string"
      ? result
      : typeof (result as { prompt?: unknown }).prompt === "string"
        ? (result as { prompt: string }).prompt
        : JSON.stringify(result, null, 2);
  const document = await vscode.workspace.openTextDocument({ content: text, language: "markdown" });
  await vscode.window.showTextDocument(document, { preview: true, viewColumn: vscode.ViewColumn.Beside });
}

async function startClient(context: vscode.ExtensionContext): Promise<void> {
  const settings = currentSettings();
  const folder = vscode.workspace.workspaceFolders?.[0]?.uri.fsPath;
  const server = resolveServer(settings, { env: process.env, platform: process.platform, isExecutable, workspaceFolder: folder });
  if (!server.ok) {
    output.appendLine(server.message);
    void vscode.window.showErrorMessage(server.message, "Open Settings").then((pick) => {
      if (pick) void vscode.commands.executeCommand("workbench.action.openSettings", "crane.serverPath");
    });
    refreshStatusBar();
    return;
  }
  const serverOptions: ServerOptions = { command: server.command, args: server.args, transport: TransportKind.stdio };
  const clientOptions: LanguageClientOptions = {
    documentSelector: DOCUMENT_SELECTOR,
    outputChannel: output,
    initializationOptions: toServerSettings(settings),
    errorHandler: {
      error: () => ({ action: crashPolicy.onError() === "shutdown" ? ErrorAction.Shutdown : ErrorAction.Continue }),
      closed: () => {
        const { message } = crashPolicy.onClosed();
        client = undefined;
        refreshStatusBar();
        if (message) void vscode.window.showErrorMessage(message, "Show log").then((pick) => pick && output.show());
        return { action: CloseAction.DoNotRestart, handled: true };
      },
    },
    middleware: {
      workspace: {
        configuration: (params, token, next) =>
          params.items.map((item) => (item.section === "crane" ? toServerSettings(currentSettings()) : null)),
      },
    },
  };
  const created = new CraneLanguageClient("crane", "crane", serverOptions, clientOptions);
  client = created;
  context.subscriptions.push(created.onNotification("crane/kernelStatus", onKernelStatus));
  try {
    await created.start();
  } catch (err) {
    client = undefined;
    const detail = `${server.command}: ${err instanceof Error ? err.message : String(err)}`;
    output.appendLine(`crane: start failed: ${detail}`);
    const message = crashPolicy.onStartFailed(detail);
    if (message) void vscode.window.showErrorMessage(message, "Show log").then((pick) => pick && output.show());
    refreshStatusBar();
    return;
  }
  refreshStatusBar();
  for (const notebook of vscode.workspace.notebookDocuments) void handOff(notebook);
}

export async function activate(context: vscode.ExtensionContext): Promise<void> {
  output = vscode.window.createOutputChannel("crane");
  statusItem = vscode.window.createStatusBarItem(vscode.StatusBarAlignment.Left, 50);
  statusItem.command = EXTENSION_COMMANDS.pickKernel;
  context.subscriptions.push(output, statusItem);
  context.subscriptions.push(
    vscode.commands.registerCommand(EXTENSION_COMMANDS.pickKernel, () => pickAndAttach()),
    vscode.commands.registerCommand(EXTENSION_COMMANDS.pickKernelFor, (uri: string) => pickAndAttach(uri)),
    vscode.commands.registerCommand(EXTENSION_COMMANDS.checkCell, checkCell),
    vscode.commands.registerCommand(EXTENSION_COMMANDS.showCellPrompt, showPrompt),
    vscode.commands.registerCommand(EXTENSION_COMMANDS.restartServer, async () => {
      if (client) await client.stop().catch(() => undefined);
      client = undefined;
      crashPolicy.reset();
      handedOff.clear();
      await startClient(context);
    }),
    vscode.window.onDidChangeActiveTextEditor(refreshStatusBar),
    vscode.window.onDidChangeActiveNotebookEditor(refreshStatusBar),
    vscode.workspace.onDidOpenNotebookDocument((notebook) => void handOff(notebook)),
    vscode.workspace.onDidCloseNotebookDocument((notebook) => handedOff.delete(notebook.uri.toString())),
    vscode.workspace.onDidChangeConfiguration((event) => {
      if (!event.affectsConfiguration("crane") || !client) return;
      void client.sendNotification(DidChangeConfigurationNotification.type, {
        settings: { crane: toServerSettings(currentSettings()) },
      });
      if (event.affectsConfiguration("crane.serverPath") || event.affectsConfiguration("crane.serverArgs")) {
        void vscode.window.showInformationMessage("crane: run 'Crane: Restart language server' to use the new server path.");
      }
    }),
  );
  const kernelStarts = await onJupyterKernelStart((uri) => {
    const notebook = vscode.workspace.notebookDocuments.find((n) => n.uri.toString() === uri.toString());
    if (notebook) void handOff(notebook, true);
  });
  if (kernelStarts) context.subscriptions.push(kernelStarts);
  await startClient(context);
}

export async function deactivate(): Promise<void> {
  if (client) await client.stop().catch(() => undefined);
  client = undefined;
}
