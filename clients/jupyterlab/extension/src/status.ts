// The toolbar's status item: the notebook's kernel as crane sees it, and the dry-run mode.
import { Signal, type ISignal } from '@lumino/signaling';
import { Widget } from '@lumino/widgets';
import type { IKernelStatus } from './link';

const DRY_RUN: Record<IKernelStatus['dry_run'], string> = {
  on: 'dry run on',
  off: 'dry run off',
  waiting: 'dry run after the first run'
};

/** One line: "crane: kernel idle · dry run on"; the server's detail sentence as the tooltip. */
export class CraneStatus extends Widget {
  private _changed = new Signal<this, void>(this);

  /** Emitted after every render (the status bar mirrors the current notebook's item). */
  get changed(): ISignal<this, void> {
    return this._changed;
  }

  constructor() {
    super();
    this.addClass('crane-status');
    this.render(null, false);
  }

  /** Show `status`; `connected` false: jupyterlab-lsp has not connected crane to this notebook. */
  render(status: IKernelStatus | null, connected: boolean): void {
    if (!connected || status === null) {
      this.node.textContent = 'crane: not connected';
      this.node.dataset.state = 'none';
      this.node.title =
        'crane-server is not connected to this notebook (is jupyterlab-lsp installed and crane-server its Python server?)';
      this._changed.emit();
      return;
    }
    const kernel = status.state === 'none' ? 'no kernel' : `kernel ${status.state}`;
    const parts = [kernel, DRY_RUN[status.dry_run] ?? status.dry_run];
    if (status.live_state_only) {
      parts.push('live state only');
    }
    this.node.textContent = `crane: ${parts.join(' · ')}`;
    this.node.dataset.state = status.state;
    this.node.dataset.dryRun = status.dry_run;
    const notes = [status.detail];
    if (status.live_state_only) {
      notes.push(
        "The kernel's state was not built by this notebook's cells: every cell is judged against the live state, none ahead."
      );
    }
    this.node.title = notes.filter(Boolean).join('\n');
    this._changed.emit();
  }
}

/** JupyterLab's status bar item: a copy of the current notebook's toolbar item. */
export class CraneStatusMirror extends Widget {
  constructor() {
    super();
    this.addClass('crane-status');
    this.addClass('crane-status-bar');
  }

  copy(source: CraneStatus | null): void {
    this.node.textContent = source ? source.node.textContent : '';
    this.node.title = source ? source.node.title : '';
    this.node.dataset.state = source?.node.dataset.state ?? 'none';
  }
}
