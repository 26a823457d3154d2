// The Jupyter extension's kernel API (ms-toolsai.jupyter): ask a notebook's kernel for its
// connection file. Only the parts crane uses are declared here. The stable API's Kernel has
// status, language and executeCode only: no server URL and no kernel id, so a remote kernel is
// found by the id it reports itself (see handoff.ts) on crane-server's configured servers.

import * as vscode from "vscode";

import { CONNECTION_FILE_CODE, JupyterKernelProbe, KernelOutput, parseConnectionFile, parseKernelId } from "./handoff";

interface JupyterOutputItem {
  mime: string;
  data: Uint8Array;
}

interface JupyterOutput {
  items: JupyterOutputItem[];
}

interface JupyterKernel {
  readonly status: string;
  readonly language: string;
  executeCode(code: string, token: vscode.CancellationToken): AsyncIterable<JupyterOutput>;
}

interface JupyterKernelStart {
  uri: vscode.Uri;
  kernel: JupyterKernel;
}

interface JupyterApi {
  kernels: {
    getKernel(uri: vscode.Uri): Thenable<JupyterKernel | undefined>;
    onDidStart?: vscode.Event<JupyterKernelStart>;
  };
}

export const JUPYTER_EXTENSION_ID = "ms-toolsai.jupyter";
const PROBE_TIMEOUT_MS = 5000;

async function jupyterApi(): Promise<JupyterApi | undefined> {
  const extension = vscode.extensions.getExtension<JupyterApi>(JUPYTER_EXTENSION_ID);
  if (extension === undefined) return undefined;
  const api = extension.isActive ? extension.exports : await extension.activate();
  return api?.kernels ? api : undefined;
}

async function runSilently(kernel: JupyterKernel): Promise<KernelOutput[]> {
  const source = new vscode.CancellationTokenSource();
  const timer = setTimeout(() => source.cancel(), PROBE_TIMEOUT_MS);
  const decoder = new TextDecoder();
  const outputs: KernelOutput[] = [];
  try {
    for await (const output of kernel.executeCode(CONNECTION_FILE_CODE, source.token)) {
      for (const item of output.items) outputs.push({ mime: item.mime, text: decoder.decode(item.data) });
      if (parseConnectionFile(outputs) && outputs.some((o) => o.text.includes("CRANE_KERNEL_ID="))) break;
    }
  } finally {
    clearTimeout(timer);
    source.dispose();
  }
  return outputs;
}

/** Ask the Jupyter extension which kernel serves `notebook` (VS Code asks the user's consent). */
export async function probeJupyterKernel(notebook: vscode.Uri): Promise<JupyterKernelProbe> {
  let api: JupyterApi | undefined;
  try {
    api = await jupyterApi();
  } catch (err) {
    return { jupyterInstalled: true, kernelFound: false, error: String(err) };
  }
  if (api === undefined) return { jupyterInstalled: false, kernelFound: false };
  try {
    const kernel = await api.kernels.getKernel(notebook);
    if (kernel === undefined) return { jupyterInstalled: true, kernelFound: false };
    const outputs = await runSilently(kernel);
    return {
      jupyterInstalled: true,
      kernelFound: true,
      language: kernel.language,
      connectionFile: parseConnectionFile(outputs),
      kernelId: parseKernelId(outputs),
    };
  } catch (err) {
    return { jupyterInstalled: true, kernelFound: false, error: err instanceof Error ? err.message : String(err) };
  }
}

/** Call `listener` whenever the Jupyter extension starts or restarts a notebook's kernel. */
export async function onJupyterKernelStart(
  listener: (notebook: vscode.Uri) => void,
): Promise<vscode.Disposable | undefined> {
  try {
    const api = await jupyterApi();
    return api?.kernels.onDidStart?.((event) => listener(event.uri));
  } catch {
    return undefined;
  }
}
