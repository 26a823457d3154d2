// crane-server in JupyterLab 4 and Notebook 7, next to jupyterlab-lsp: the server's quick fixes
// (textDocument/codeAction), "Explain with the LLM" for the selected cell (crane.check), and a
// toolbar status item (crane.status, crane/kernelStatus). Every request goes over the
// connection jupyterlab-lsp already has to crane-server.
import type { JupyterFrontEnd, JupyterFrontEndPlugin } from '@jupyterlab/application';
import { ICommandPalette, InputDialog, Notification, ToolbarButton } from '@jupyterlab/apputils';
import type { DocumentRegistry } from '@jupyterlab/docregistry';
import { ILSPDocumentConnectionManager, type ILSPConnection } from '@jupyterlab/lsp';
import { IStatusBar } from '@jupyterlab/statusbar';
import { INotebookTracker, type INotebookModel, type NotebookPanel } from '@jupyterlab/notebook';
import type { ReadonlyJSONValue, ReadonlyPartialJSONObject } from '@lumino/coreutils';
import { DisposableDelegate, type IDisposable } from '@lumino/disposable';
import type * as lsp from 'vscode-languageserver-protocol';
import { applyWorkspaceEdit } from './edits';
import {
  cellRange,
  executeCommand,
  type ICheckResult,
  type ICraneLink,
  type IKernelStatus,
  LLM_TIMEOUT_MS,
  linkOf,
  onNotification,
  overlaps,
  request
} from './link';
import { CraneStatus, CraneStatusMirror } from './status';

const QUICK_FIX = 'crane:quick-fix';
const EXPLAIN = 'crane:explain';
const CELL_SELECTOR = '.jp-Notebook .jp-Cell';
const STATUS_POLL_MS = 5000;

interface ITargetCell {
  link: ICraneLink;
  range: lsp.Range;
  number: number;
}

/** The current notebook's selected code cell and its place in crane's document, or a reason. */
function targetCell(
  tracker: INotebookTracker,
  manager: ILSPDocumentConnectionManager,
  clicked: HTMLElement | undefined
): ITargetCell | string {
  const panel = tracker.currentWidget;
  if (!panel) {
    return 'open a notebook first';
  }
  const link = linkOf(manager, panel);
  if (!link) {
    return 'crane-server is not connected to this notebook yet (jupyterlab-lsp connects it when the notebook opens)';
  }
  // The right-clicked cell from the context menu, else the active one.
  const cells = panel.content.widgets;
  const index = clicked ? cells.findIndex(each => each.node === clicked) : -1;
  const at = index >= 0 ? index : panel.content.activeCellIndex;
  const cell = cells[at];
  if (!cell || cell.model.type !== 'code') {
    return 'select a code cell';
  }
  const range = cellRange(link, cell);
  if (!range) {
    return 'this cell is not in the document crane-server checks';
  }
  return { link, range, number: at + 1 };
}

/** The target cell, or null after telling the user why there is none. */
function targetOrWarn(
  tracker: INotebookTracker,
  manager: ILSPDocumentConnectionManager,
  clicked: HTMLElement | undefined
): ITargetCell | null {
  const target = targetCell(tracker, manager, clicked);
  if (typeof target === 'string') {
    Notification.warning(`crane: ${target}`, { autoClose: 5000 });
    return null;
  }
  return target;
}

function isCodeAction(item: lsp.Command | lsp.CodeAction): item is lsp.CodeAction {
  return typeof (item as lsp.Command).command !== 'string';
}

async function quickFix(
  tracker: INotebookTracker,
  manager: ILSPDocumentConnectionManager,
  clicked: HTMLElement | undefined
): Promise<void> {
  const target = targetOrWarn(tracker, manager, clicked);
  if (!target) {
    return;
  }
  const { link, range, number } = target;
  const report = await request<{ items?: lsp.Diagnostic[] }>(link, 'textDocument/diagnostic', {
    textDocument: { uri: link.uri }
  });
  const diagnostics = (report.items ?? []).filter(
    item => String(item.source ?? '').startsWith('crane') && overlaps(item.range, range)
  );
  if (diagnostics.length === 0) {
    Notification.info(`crane: no warning on cell ${number}`, { autoClose: 4000 });
    return;
  }
  const actions = await request<(lsp.Command | lsp.CodeAction)[] | null>(
    link,
    'textDocument/codeAction',
    { textDocument: { uri: link.uri }, range, context: { diagnostics, only: ['quickfix'] } }
  );
  const fixes = (actions ?? []).filter(isCodeAction).filter(action => action.edit);
  if (fixes.length === 0) {
    Notification.info(`crane: no quick fix for cell ${number}; try Explain with the LLM`, {
      autoClose: 5000
    });
    return;
  }
  let chosen = fixes.find(action => action.isPreferred) ?? fixes[0];
  if (fixes.length > 1) {
    const picked = await InputDialog.getItem({
      title: `crane: fix cell ${number}`,
      items: fixes.map(action => action.title),
      current: chosen.title
    });
    if (!picked.button.accept || picked.value === null) {
      return;
    }
    chosen = fixes.find(action => action.title === picked.value) ?? chosen;
  }
  const applied = applyWorkspaceEdit(link, chosen.edit!);
  if (typeof applied === 'string') {
    Notification.error(`crane: the fix was not applied: ${applied}`, { autoClose: 8000 });
    return;
  }
  Notification.success(`crane: ${chosen.title} (cell ${number})`, { autoClose: 3000 });
}

function describeCheck(result: ICheckResult, number: number): string {
  if (result.error) {
    return `crane: the LLM could not be asked: ${result.error}`;
  }
  if (result.crash) {
    const count = result.diagnoses ?? 0;
    if (count === 0) {
      // the model's diagnoses are the ones crane's own warning on the cell already gives
      return `crane: the LLM predicts that cell ${number} crashes, as crane's warning on it says`;
    }
    return `crane: the LLM predicts that cell ${number} crashes (${count} ${count === 1 ? 'warning' : 'warnings'} on the cell)`;
  }
  return `crane: the LLM predicts no crash in cell ${number}`;
}

async function explain(
  tracker: INotebookTracker,
  manager: ILSPDocumentConnectionManager,
  clicked: HTMLElement | undefined
): Promise<void> {
  const target = targetOrWarn(tracker, manager, clicked);
  if (!target) {
    return;
  }
  const { link, range, number } = target;
  const asked = executeCommand<ICheckResult>(
    link,
    'crane.check',
    { uri: link.uri, line: range.start.line },
    LLM_TIMEOUT_MS
  );
  Notification.promise(asked as unknown as Promise<ReadonlyJSONValue>, {
    pending: { message: `crane: asking the LLM about cell ${number}…`, options: { autoClose: false } },
    success: {
      message: result => describeCheck(result as ICheckResult, number),
      options: { autoClose: 8000 }
    },
    error: {
      message: reason => `crane: ${(reason as Error)?.message ?? String(reason)}`,
      options: { autoClose: 8000 }
    }
  });
  await asked.catch(() => undefined);
}

/** Status items by document URI, fed by each connection's crane/kernelStatus notifications. */
class StatusBoard {
  private items = new Map<string, Set<CraneStatus>>();
  private hooked = new WeakSet<ILSPConnection>();

  watch(connection: ILSPConnection, uri: string, item: CraneStatus): IDisposable {
    if (!this.hooked.has(connection)) {
      this.hooked.add(connection);
      onNotification(connection, 'crane/kernelStatus', params => {
        const status = params as IKernelStatus;
        this.items.get(status.uri)?.forEach(each => each.render(status, true));
      });
    }
    const set = this.items.get(uri) ?? new Set<CraneStatus>();
    set.add(item);
    this.items.set(uri, set);
    return new DisposableDelegate(() => set.delete(item));
  }
}

class CraneToolbar implements DocumentRegistry.IWidgetExtension<NotebookPanel, INotebookModel> {
  private board = new StatusBoard();

  constructor(
    private app: JupyterFrontEnd,
    private manager: ILSPDocumentConnectionManager
  ) {}

  /** Each notebook's toolbar status item, for the status bar's copy. */
  readonly statuses = new WeakMap<NotebookPanel, CraneStatus>();

  createNew(panel: NotebookPanel): IDisposable {
    const fix = new ToolbarButton({
      className: 'crane-fix-button',
      label: 'Fix',
      tooltip: "Apply crane's quick fix to the selected cell",
      onClick: () => void this.app.commands.execute(QUICK_FIX)
    });
    const ask = new ToolbarButton({
      className: 'crane-explain-button',
      label: 'Explain',
      tooltip: 'Explain with the LLM: will the selected cell crash, and why (crane)',
      onClick: () => void this.app.commands.execute(EXPLAIN)
    });
    const status = new CraneStatus();
    this.statuses.set(panel, status);
    panel.toolbar.addItem('crane-fix', fix);
    panel.toolbar.addItem('crane-explain', ask);
    panel.toolbar.addItem('crane-status', status);
    let watched: { uri: string; handle: IDisposable } | null = null;
    const refresh = async (): Promise<void> => {
      const link = linkOf(this.manager, panel);
      if (!link) {
        status.render(null, false);
        return;
      }
      if (watched?.uri !== link.uri) {
        watched?.handle.dispose();
        watched = { uri: link.uri, handle: this.board.watch(link.connection, link.uri, status) };
      }
      try {
        status.render(await executeCommand<IKernelStatus>(link, 'crane.status', { uri: link.uri }), true);
      } catch {
        status.render(null, false);
      }
    };
    // Once subscribed, crane/kernelStatus brings every change: ask again only until then
    // (not on each of a run's kernel status changes).
    const onKernelStatus = () => {
      if (!watched) {
        void refresh();
      }
    };
    const onConnected = () => void refresh();
    panel.sessionContext.statusChanged.connect(onKernelStatus);
    this.manager.connected.connect(onConnected);
    const timer = setInterval(() => {
      if (panel.isVisible) {
        void refresh();
      }
    }, STATUS_POLL_MS);
    void panel.context.ready.then(refresh);
    const disposable = new DisposableDelegate(() => {
      clearInterval(timer);
      watched?.handle.dispose();
      panel.sessionContext.statusChanged.disconnect(onKernelStatus);
      this.manager.connected.disconnect(onConnected);
      fix.dispose();
      ask.dispose();
      status.dispose();
    });
    panel.disposed.connect(() => disposable.dispose());
    return disposable;
  }
}

/** The cell the context menu was opened on, when the command came from that menu. */
function clickedCell(app: JupyterFrontEnd, args: ReadonlyPartialJSONObject): HTMLElement | undefined {
  if (!args.fromContextMenu) {
    return undefined;
  }
  return app.contextMenuHitTest(node => node.classList.contains('jp-Cell'));
}

const plugin: JupyterFrontEndPlugin<void> = {
  id: 'crane-jupyterlab:plugin',
  description: "crane-server's quick fixes, Explain with the LLM and status in notebooks.",
  autoStart: true,
  requires: [INotebookTracker, ILSPDocumentConnectionManager],
  optional: [ICommandPalette, IStatusBar],
  activate: (
    app: JupyterFrontEnd,
    tracker: INotebookTracker,
    manager: ILSPDocumentConnectionManager,
    palette: ICommandPalette | null,
    statusBar: IStatusBar | null
  ) => {
    const failed = (reason: unknown) =>
      Notification.error(`crane: ${(reason as Error)?.message ?? String(reason)}`, { autoClose: 8000 });
    app.commands.addCommand(QUICK_FIX, {
      label: 'Apply crane quick fix',
      caption: "Apply crane-server's fix for the warning on the selected cell",
      isEnabled: () => tracker.currentWidget !== null,
      execute: args => quickFix(tracker, manager, clickedCell(app, args)).catch(failed)
    });
    app.commands.addCommand(EXPLAIN, {
      label: 'Explain with the LLM (crane)',
      caption: 'Ask the LLM whether the selected cell will crash, and why',
      isEnabled: () => tracker.currentWidget !== null,
      execute: args => explain(tracker, manager, clickedCell(app, args)).catch(failed)
    });
    const fromMenu = { fromContextMenu: true };
    app.contextMenu.addItem({ command: QUICK_FIX, selector: CELL_SELECTOR, rank: 0, args: fromMenu });
    app.contextMenu.addItem({ command: EXPLAIN, selector: CELL_SELECTOR, rank: 0, args: fromMenu });
    for (const command of [QUICK_FIX, EXPLAIN]) {
      palette?.addItem({ command, category: 'crane' });
    }
    const toolbar = new CraneToolbar(app, manager);
    app.docRegistry.addWidgetExtension('Notebook', toolbar);
    if (statusBar) {
      // JupyterLab's status bar (Notebook 7 has none): the toolbar item may sit in the
      // toolbar's overflow menu on a narrow window.
      const mirror = new CraneStatusMirror();
      let source: CraneStatus | null = null;
      const follow = () => mirror.copy(source);
      tracker.currentChanged.connect((_, panel) => {
        source?.changed.disconnect(follow);
        source = panel ? (toolbar.statuses.get(panel) ?? null) : null;
        source?.changed.connect(follow);
        follow();
      });
      statusBar.registerStatusItem('crane-jupyterlab:status', {
        item: mirror,
        align: 'left',
        rank: 5,
        isActive: () => tracker.currentWidget !== null
      });
    }
  }
};

export default plugin;
