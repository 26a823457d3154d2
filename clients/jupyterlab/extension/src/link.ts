// The notebook's connection to crane-server: the one jupyterlab-lsp opened through JupyterLab's
// LSP connection manager (@jupyterlab/lsp). Nothing here opens a second connection.
import type {
  Document,
  IEditorPosition,
  ILSPConnection,
  ILSPDocumentConnectionManager,
  IVirtualPosition,
  VirtualDocument,
  WidgetLSPAdapter
} from '@jupyterlab/lsp';
import type { Cell } from '@jupyterlab/cells';
import type { NotebookPanel } from '@jupyterlab/notebook';
import type * as lsp from 'vscode-languageserver-protocol';

/** Every request to the server gives up after this long (the server answers in milliseconds). */
export const REQUEST_TIMEOUT_MS = 10000;
/** The LLM may take a while; the server has its own timeout for the model. */
export const LLM_TIMEOUT_MS = 180000;

/** What a request needs: the notebook's root virtual document and its live connection. */
export interface ICraneLink {
  adapter: WidgetLSPAdapter<NotebookPanel>;
  root: VirtualDocument;
  connection: ILSPConnection;
  /** The document's URI as the server knows it. */
  uri: string;
}

/** The status the server reports for a document (`crane.status`, `crane/kernelStatus`). */
export interface IKernelStatus {
  uri: string;
  kernel_id?: string | null;
  state: string;
  reason: string;
  detail: string;
  dry_run: 'on' | 'off' | 'waiting';
  live_state_only: boolean;
}

/** The server's answer to `crane.check`. */
export interface ICheckResult {
  uri: string;
  crash?: boolean | null;
  diagnoses?: number;
  error?: string | null;
}

interface IRawConnection {
  sendRequest(method: string, params: unknown): Promise<unknown>;
  onNotification(method: string, handler: (params: unknown) => void): { dispose(): void };
}

/** The link of `panel`, or null while jupyterlab-lsp has not connected it to crane. */
export function linkOf(
  manager: ILSPDocumentConnectionManager,
  panel: NotebookPanel
): ICraneLink | null {
  const adapter = manager.adapters.get(panel.context.path) as
    | WidgetLSPAdapter<NotebookPanel>
    | undefined;
  const root = adapter?.virtualDocument;
  if (!adapter || !root) {
    return null;
  }
  const connection = manager.connections.get(root.uri);
  if (!connection || !connection.isReady || !isCrane(connection)) {
    return null;
  }
  return { adapter, root, connection, uri: root.documentInfo.uri };
}

/** Whether the connection's server is crane (it offers the crane.* commands). */
function isCrane(connection: ILSPConnection): boolean {
  const commands = connection.serverCapabilities?.executeCommandProvider?.commands ?? [];
  return commands.includes('crane.check');
}

function raw(connection: ILSPConnection): IRawConnection {
  // LSPConnection keeps its vscode-jsonrpc MessageConnection in a protected field; the
  // typed request maps of @jupyterlab/lsp do not include workspace/executeCommand.
  return (connection as unknown as { connection: IRawConnection }).connection;
}

/** Send `method` with a timeout; reject with a one-line reason. */
export async function request<T>(
  link: ICraneLink,
  method: string,
  params: unknown,
  timeoutMs = REQUEST_TIMEOUT_MS
): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new Error(`crane-server did not answer ${method} in ${timeoutMs / 1000} s`)),
      timeoutMs
    );
  });
  try {
    return (await Promise.race([raw(link.connection).sendRequest(method, params), timeout])) as T;
  } finally {
    clearTimeout(timer);
  }
}

/** Run one of crane's commands (`workspace/executeCommand`). */
export function executeCommand<T>(
  link: ICraneLink,
  command: string,
  argument: unknown,
  timeoutMs = REQUEST_TIMEOUT_MS
): Promise<T> {
  return request<T>(link, 'workspace/executeCommand', { command, arguments: [argument] }, timeoutMs);
}

/** Listen to a server notification on this connection; returns what to call to stop. */
export function onNotification(
  connection: ILSPConnection,
  method: string,
  handler: (params: unknown) => void
): () => void {
  const disposable = raw(connection).onNotification(method, handler);
  return () => disposable.dispose();
}

/** Editor position -> the position in the document the server has (jupyterlab-lsp pads
 * cells with blank lines: "root" positions count only the cells' own lines). */
function toVirtual(
  link: ICraneLink,
  editor: Document.IEditor,
  line: number,
  ch: number
): IVirtualPosition | null {
  try {
    const source = link.root.transformFromEditorToRoot(editor, { line, ch } as IEditorPosition);
    return source ? link.root.virtualPositionAtDocument(source) : null;
  } catch {
    return null; // a line jupyterlab-lsp has not mapped yet
  }
}

/** The range of `cell` in the server's document, or null when the cell is not in it. */
export function cellRange(link: ICraneLink, cell: Cell): lsp.Range | null {
  const block = link.adapter.editors.find(item => item.ceEditor.getEditor() === cell.editor);
  const editor = cell.editor;
  if (!block || !editor) {
    return null;
  }
  const lines = editor.model.sharedModel.getSource().split('\n');
  const last = lines.length - 1;
  const start = toVirtual(link, block.ceEditor, 0, 0);
  const end = toVirtual(link, block.ceEditor, last, lines[last].length);
  if (!start || !end) {
    return null;
  }
  return {
    start: { line: start.line, character: start.ch },
    end: { line: end.line, character: end.ch }
  };
}

/** Whether two ranges of one document overlap (touching counts). */
export function overlaps(a: lsp.Range, b: lsp.Range): boolean {
  const before = (p: lsp.Position, q: lsp.Position) =>
    p.line < q.line || (p.line === q.line && p.character < q.character);
  return !before(a.end, b.start) && !before(b.end, a.start);
}
