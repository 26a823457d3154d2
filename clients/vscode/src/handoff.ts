// Pure: how the client tells crane-server which kernel serves a notebook. No `vscode` import.

import type { KernelHandOff } from "./settings";

/**
 * Python run through the Jupyter extension's kernel API (which runs it without touching the
 * execution count or history). It binds no name in the user's namespace: `__import__` only.
 * It prints the kernel's connection file and, under Enterprise Gateway, the `KERNEL_ID` the
 * gateway gives its kernels: for a remote kernel the file is on the server's machine, and its
 * name (`kernel-ID.json`) or that variable is the kernel id crane looks up on its servers.
 */
export const CONNECTION_FILE_CODE =
  'print("CRANE_CONNECTION_FILE=" + __import__("ipykernel").get_connection_file() + ' +
  '"\\nCRANE_KERNEL_ID=" + __import__("os").environ.get("KERNEL_ID", ""))';

const MARKER = "CRANE_CONNECTION_FILE=";
const ID_MARKER = "CRANE_KERNEL_ID=";
const KERNEL_ID = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,127}$/;

function stdoutLines(outputs: readonly KernelOutput[]): string[] {
  return outputs
    .filter((output) => output.mime.includes("stdout") || output.mime === "text/plain")
    .flatMap((output) => output.text.split(/\r?\n/));
}

/**
 * The kernel's id as a Jupyter server knows it: the `KERNEL_ID` Enterprise Gateway sets, else
 * the id in the connection file's name (`kernel-ID.json`, how jupyter_client names the files of
 * the kernels a server starts), else undefined.
 */
export function parseKernelId(outputs: readonly KernelOutput[]): string | undefined {
  for (const line of stdoutLines(outputs)) {
    const at = line.indexOf(ID_MARKER);
    if (at < 0) continue;
    const id = line.slice(at + ID_MARKER.length).trim();
    if (KERNEL_ID.test(id)) return id;
  }
  const file = parseConnectionFile(outputs);
  const name = file?.split(/[\\/]/).pop() ?? "";
  const match = /^kernel-(.+)\.json$/.exec(name);
  return match && KERNEL_ID.test(match[1]) ? match[1] : undefined;
}

/** One output item of the kernel API, decoded to text. */
export interface KernelOutput {
  mime: string;
  text: string;
}

/** Return the connection file printed by CONNECTION_FILE_CODE, or undefined. */
export function parseConnectionFile(outputs: readonly KernelOutput[]): string | undefined {
  for (const line of stdoutLines(outputs)) {
    const at = line.indexOf(MARKER);
    if (at < 0) continue;
    const path = line.slice(at + MARKER.length).trim();
    if (path.endsWith(".json")) return path;
  }
  return undefined;
}

/** What the Jupyter extension said about one notebook's kernel. */
export interface JupyterKernelProbe {
  jupyterInstalled: boolean;
  /** undefined: no kernel, or the user did not allow access. */
  kernelFound: boolean;
  language?: string;
  connectionFile?: string;
  /** The kernel's id on its Jupyter server (see parseKernelId). */
  kernelId?: string;
  error?: string;
}

export type HandOffDecision =
  | { kind: "attach"; connectionFile: string; kernelId?: string }
  | { kind: "discovery"; reason: string };

/** Decide whether to attach the notebook explicitly or leave it to the server's discovery. */
export function decideHandOff(setting: KernelHandOff, probe: JupyterKernelProbe | undefined): HandOffDecision {
  if (setting === "discovery") return { kind: "discovery", reason: "crane.kernelHandOff is 'discovery'" };
  if (probe === undefined || !probe.jupyterInstalled) {
    return { kind: "discovery", reason: "the Jupyter extension is not installed" };
  }
  if (probe.error) return { kind: "discovery", reason: `the Jupyter kernel API failed: ${probe.error}` };
  if (!probe.kernelFound) {
    return { kind: "discovery", reason: "no kernel yet, or access to it was not allowed" };
  }
  if (probe.language !== undefined && probe.language !== "python") {
    return { kind: "discovery", reason: `the kernel's language is ${probe.language}` };
  }
  if (!probe.connectionFile) {
    return { kind: "discovery", reason: "the kernel did not report its connection file" };
  }
  return probe.kernelId
    ? { kind: "attach", connectionFile: probe.connectionFile, kernelId: probe.kernelId }
    : { kind: "attach", connectionFile: probe.connectionFile };
}

/**
 * `crane.attachKernel` arguments for a decision: the connection file, and the kernel id with it.
 * crane-server attaches the file when it exists on its machine; otherwise (a kernel behind a
 * remote Jupyter server) it finds the kernel id on the servers of its `servers` setting.
 */
export function handOffArgs(uri: string, decision: { connectionFile: string; kernelId?: string }): AttachKernelArgs {
  return decision.kernelId
    ? { uri, connection_file: decision.connectionFile, kernel_id: decision.kernelId }
    : { uri, connection_file: decision.connectionFile };
}

/** `crane.attachKernel` arguments (protocol/README.md). */
export interface AttachKernelArgs {
  uri: string;
  connection_file?: string;
  kernel_id?: string;
  /** With kernel_id: the kernel's Jupyter server (its token comes from the server's environment). */
  server_url?: string;
  token_env?: string;
}

/** Read what a user typed: a path to a connection file, or a kernel id. */
export function attachArgs(uri: string, typed: string): AttachKernelArgs | undefined {
  const value = typed.trim();
  if (value === "") return undefined;
  if (value.includes("/") || value.includes("\\") || value.endsWith(".json")) {
    return { uri, connection_file: value };
  }
  return { uri, kernel_id: value.replace(/^kernel-/, "") };
}

/** One item of `crane.listKernels`'s result. */
export interface KernelListEntry {
  kernel_id: string | null;
  connection_file: string;
  notebook_path?: string | null;
  state?: string;
  bound_documents?: string[];
}

export interface KernelPickItem {
  label: string;
  description: string;
  detail: string;
  args: AttachKernelArgs;
}

/** Quick pick items for the kernels the server found, live ones first. */
export function kernelPickItems(uri: string, result: unknown): KernelPickItem[] {
  if (!Array.isArray(result)) return [];
  const entries = result.filter(
    (e): e is KernelListEntry =>
      typeof e === "object" && e !== null && typeof (e as KernelListEntry).connection_file === "string",
  );
  const rank = (e: KernelListEntry) => (e.state === "dead" || e.state === "stale" ? 1 : 0);
  return [...entries]
    .sort((a, b) => rank(a) - rank(b))
    .map((entry) => ({
      label: entry.kernel_id ? `kernel ${entry.kernel_id.slice(0, 8)}` : entry.connection_file.split(/[\\/]/).pop()!,
      description: [entry.state ?? "unknown", entry.notebook_path ?? ""].filter(Boolean).join(" · "),
      detail: entry.connection_file,
      args: { uri, connection_file: entry.connection_file },
    }));
}
