// Pure: VS Code settings (`crane.*`) -> the server's settings object. No `vscode` import.

export type LlmTrigger = "command" | "auto";
export type Privacy = "full" | "schema" | "types";
export type KernelHandOff = "jupyter" | "discovery";

/** The extension's settings, as the user sets them under `crane.*`. */
export interface CraneSettings {
  serverPath: string;
  serverArgs: string[];
  model: string;
  llmTrigger: LlmTrigger;
  privacy: Privacy;
  debounceMs: number;
  kernelHandOff: KernelHandOff;
  connectionFile: string;
  servers: RemoteServer[];
}

/**
 * A Jupyter Server (or Enterprise Gateway, or a JupyterHub user's server) crane-server asks for
 * the kernel of a notebook. The token is never a setting: crane-server reads it from its own
 * environment variable `tokenEnv` (default CRANE_JUPYTER_TOKEN) or its config file; extra
 * headers (`Authorization: Bearer ...`) from the JSON object in the variable `headersEnv`.
 */
export interface RemoteServer {
  url: string;
  tokenEnv?: string;
  headersEnv?: string;
}

/** What the server accepts as `initializationOptions` and `settings.crane` (protocol/README.md). */
export interface ServerSettings {
  debounce_ms: number;
  llm: { trigger: LlmTrigger; model: string | null; privacy: Privacy };
  /** Client hint: bind every document to this kernel (omitted when unset). */
  connectionFile?: string;
  /** Jupyter servers to find notebooks' kernels on (omitted when none). */
  servers?: RemoteServer[];
}

export const DEFAULTS: CraneSettings = {
  serverPath: "crane-server",
  serverArgs: [],
  model: "",
  llmTrigger: "command",
  privacy: "full",
  debounceMs: 300,
  kernelHandOff: "jupyter",
  connectionFile: "",
  servers: [],
};

const SERVER_URL = /^https?:\/\/[^?#\s]+$/;
const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
const MAX_SERVERS = 16;

/** The valid entries of `crane.servers`; a problem per invalid one (its value never shown: a
 * token put there by mistake must not end up in a message). */
export function readServers(raw: unknown): { servers: RemoteServer[]; problems: string[] } {
  if (raw === undefined) return { servers: [], problems: [] };
  if (!Array.isArray(raw)) return { servers: [], problems: ["crane.servers: ignored, not a list of {url, tokenEnv}"] };
  const servers: RemoteServer[] = [];
  const problems: string[] = [];
  raw.slice(0, MAX_SERVERS).forEach((entry: unknown, index) => {
    const item = entry as Record<string, unknown>;
    const keys = typeof entry === "object" && entry !== null ? Object.keys(entry) : [];
    const ok =
      keys.length > 0 &&
      keys.every((key) => key === "url" || key === "tokenEnv" || key === "headersEnv") &&
      typeof item.url === "string" &&
      SERVER_URL.test(item.url.trim()) &&
      [item.tokenEnv, item.headersEnv].every(
        (name) => name === undefined || (typeof name === "string" && ENV_NAME.test(name)),
      );
    if (!ok) {
      problems.push(
        `crane.servers[${index}]: ignored; give {"url": "http(s)://host:port/base/", "tokenEnv": "VARIABLE"} ` +
          "(no query, no token: crane-server reads the token from that environment variable)",
      );
      return;
    }
    const server: RemoteServer = { url: (item.url as string).trim() };
    if (item.tokenEnv) server.tokenEnv = item.tokenEnv as string;
    if (item.headersEnv) server.headersEnv = item.headersEnv as string;
    servers.push(server);
  });
  if (raw.length > MAX_SERVERS) problems.push(`crane.servers: only the first ${MAX_SERVERS} servers are used`);
  return { servers, problems };
}

/** Reads one raw value; `vscode.workspace.getConfiguration("crane").get` fits. */
export type SettingGetter = (key: string) => unknown;

function pick<T extends string>(value: unknown, allowed: readonly T[], fallback: T): T {
  return typeof value === "string" && (allowed as readonly string[]).includes(value)
    ? (value as T)
    : fallback;
}

/** Read and validate the settings; a bad value falls back to its default and is reported. */
export function readSettings(get: SettingGetter): { settings: CraneSettings; problems: string[] } {
  const problems: string[] = [];
  const note = (key: string, value: unknown) => {
    if (value !== undefined) {
      problems.push(`crane.${key}: ignored invalid value ${JSON.stringify(value)}`);
    }
  };
  const rawPath = get("serverPath");
  const serverPath =
    typeof rawPath === "string" && rawPath.trim() !== "" ? rawPath.trim() : DEFAULTS.serverPath;
  if (serverPath === DEFAULTS.serverPath && rawPath !== undefined && rawPath !== DEFAULTS.serverPath) {
    note("serverPath", rawPath);
  }
  const rawArgs = get("serverArgs");
  const serverArgs =
    Array.isArray(rawArgs) && rawArgs.every((a) => typeof a === "string") ? (rawArgs as string[]) : [];
  if (rawArgs !== undefined && serverArgs.length === 0 && !(Array.isArray(rawArgs) && rawArgs.length === 0)) {
    note("serverArgs", rawArgs);
  }
  const rawModel = get("model");
  const model = typeof rawModel === "string" ? rawModel.trim() : "";
  if (rawModel !== undefined && typeof rawModel !== "string") note("model", rawModel);

  const rawTrigger = get("llmTrigger");
  const llmTrigger = pick(rawTrigger, ["command", "auto"] as const, DEFAULTS.llmTrigger);
  if (rawTrigger !== undefined && rawTrigger !== llmTrigger) note("llmTrigger", rawTrigger);

  const rawPrivacy = get("privacy");
  const privacy = pick(rawPrivacy, ["full", "schema", "types"] as const, DEFAULTS.privacy);
  if (rawPrivacy !== undefined && rawPrivacy !== privacy) note("privacy", rawPrivacy);

  const rawDebounce = get("debounceMs");
  let debounceMs = DEFAULTS.debounceMs;
  if (typeof rawDebounce === "number" && Number.isFinite(rawDebounce) && rawDebounce >= 0) {
    debounceMs = Math.min(Math.round(rawDebounce), 10000);
  } else if (rawDebounce !== undefined) {
    note("debounceMs", rawDebounce);
  }
  const rawHandOff = get("kernelHandOff");
  const kernelHandOff = pick(rawHandOff, ["jupyter", "discovery"] as const, DEFAULTS.kernelHandOff);
  if (rawHandOff !== undefined && rawHandOff !== kernelHandOff) note("kernelHandOff", rawHandOff);

  const rawConnection = get("connectionFile");
  const connectionFile = typeof rawConnection === "string" ? rawConnection.trim() : "";
  if (rawConnection !== undefined && typeof rawConnection !== "string") note("connectionFile", rawConnection);

  const { servers, problems: serverProblems } = readServers(get("servers"));
  problems.push(...serverProblems);

  return {
    settings: { serverPath, serverArgs, model, llmTrigger, privacy, debounceMs, kernelHandOff, connectionFile, servers },
    problems,
  };
}

/** Map the extension's settings to the server's settings object. */
export function toServerSettings(settings: CraneSettings): ServerSettings {
  const hint = settings.connectionFile === "" ? {} : { connectionFile: settings.connectionFile };
  const servers = settings.servers.length === 0 ? {} : { servers: settings.servers };
  return {
    ...hint,
    ...servers,
    debounce_ms: settings.debounceMs,
    llm: {
      trigger: settings.llmTrigger,
      model: settings.model === "" ? null : settings.model,
      privacy: settings.privacy,
    },
  };
}
