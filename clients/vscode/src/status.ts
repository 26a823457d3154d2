// Pure: the `crane/kernelStatus` notification and how the status bar shows it. No `vscode` import.

export type KernelState =
  | "idle"
  | "busy"
  | "starting"
  | "restarting"
  | "dead"
  | "unknown"
  | "none";

/** `crane/kernelStatus` params (see protocol/README.md). */
export interface KernelStatus {
  uri: string;
  kernel_id?: string | null;
  connection_file?: string | null;
  state: KernelState;
  reason?: string;
  execution_count?: number | null;
}

const ICONS: Record<KernelState, string> = {
  idle: "$(check)",
  busy: "$(sync~spin)",
  starting: "$(loading~spin)",
  restarting: "$(loading~spin)",
  dead: "$(error)",
  unknown: "$(question)",
  none: "$(circle-slash)",
};

/** Decode a notification's params; undefined when they are not a kernel status. */
export function parseKernelStatus(params: unknown): KernelStatus | undefined {
  if (typeof params !== "object" || params === null) return undefined;
  const raw = params as Record<string, unknown>;
  if (typeof raw.uri !== "string") return undefined;
  const state = typeof raw.state === "string" && raw.state in ICONS ? (raw.state as KernelState) : "unknown";
  return {
    uri: raw.uri,
    kernel_id: typeof raw.kernel_id === "string" ? raw.kernel_id : null,
    connection_file: typeof raw.connection_file === "string" ? raw.connection_file : null,
    state,
    reason: typeof raw.reason === "string" ? raw.reason : undefined,
    execution_count: typeof raw.execution_count === "number" ? raw.execution_count : null,
  };
}

/** A short name for a kernel: its id's first 8 characters, or the connection file's stem. */
export function kernelLabel(status: KernelStatus): string {
  if (status.kernel_id) return status.kernel_id.slice(0, 8);
  if (status.connection_file) {
    const base = status.connection_file.split(/[\\/]/).pop() ?? status.connection_file;
    return base.replace(/^kernel-/, "").replace(/\.json$/, "").slice(0, 8);
  }
  return "no kernel";
}

/** Status bar text and tooltip for the active document's binding. */
export function statusText(status: KernelStatus | undefined): { text: string; tooltip: string } {
  if (status === undefined || status.state === "none" || (!status.kernel_id && !status.connection_file)) {
    return {
      text: "$(circle-slash) crane: no kernel",
      tooltip: "crane: this document is not bound to a kernel. Click to attach one.",
    };
  }
  const label = kernelLabel(status);
  const lines = [`crane: kernel ${status.kernel_id ?? label} is ${status.state}`];
  if (status.connection_file) lines.push(status.connection_file);
  if (status.reason && status.reason !== "none") lines.push(`bound by: ${status.reason}`);
  if (typeof status.execution_count === "number") lines.push(`execution count: ${status.execution_count}`);
  lines.push("Click to attach another kernel.");
  return { text: `${ICONS[status.state]} crane: ${label} ${status.state}`, tooltip: lines.join("\n") };
}

/** Says "the kernel is gone" once per (document, kernel), not on every notification. */
export class KernelGoneNotifier {
  private readonly told = new Set<string>();

  /** Return the message to show for this status, or undefined when there is nothing new to say. */
  update(status: KernelStatus, documentName: string): string | undefined {
    const key = `${status.uri}\u0000${status.kernel_id ?? status.connection_file ?? ""}`;
    if (status.state !== "dead") {
      this.told.delete(key);
      return undefined;
    }
    if (this.told.has(key)) return undefined;
    this.told.add(key);
    return (
      `crane: the kernel of ${documentName} (${kernelLabel(status)}) is gone; ` +
      "crash warnings are paused. Start or pick a kernel, or run 'Crane: Attach kernel'."
    );
  }
}
