// Pure: find the crane-server executable and decide what to do when it fails. No `vscode` import.

import * as path from "path";

import type { CraneSettings } from "./settings";

export interface ServerLookup {
  env: Record<string, string | undefined>;
  platform: string;
  isExecutable: (file: string) => boolean;
  workspaceFolder?: string;
}

export type ServerCommand =
  | { ok: true; command: string; args: string[] }
  | { ok: false; message: string };

/** Resolve `crane.serverPath` to an executable; the client appends `--stdio` itself. */
export function resolveServer(settings: CraneSettings, lookup: ServerLookup): ServerCommand {
  let configured = settings.serverPath;
  if (lookup.workspaceFolder) configured = configured.replace("${workspaceFolder}", lookup.workspaceFolder);
  if (configured.startsWith("~/") && lookup.env.HOME) configured = path.join(lookup.env.HOME, configured.slice(2));
  const candidates: string[] = [];
  if (configured.includes("/") || configured.includes("\\")) {
    candidates.push(path.isAbsolute(configured) || !lookup.workspaceFolder
      ? configured
      : path.join(lookup.workspaceFolder, configured));
  } else {
    const sep = lookup.platform === "win32" ? ";" : ":";
    const exts = lookup.platform === "win32" ? ["", ".exe", ".cmd", ".bat"] : [""];
    for (const dir of (lookup.env.PATH ?? "").split(sep).filter(Boolean)) {
      for (const ext of exts) candidates.push(path.join(dir, configured + ext));
    }
  }
  const found = candidates.find((file) => lookup.isExecutable(file));
  if (found === undefined) {
    return {
      ok: false,
      message:
        `crane: cannot start the language server: '${settings.serverPath}' was not found or is not executable. ` +
        "Install it (pip install crane-server) or set 'crane.serverPath' to its full path.",
    };
  }
  return { ok: true, command: found, args: [...settings.serverArgs] };
}

/** What to do when the server connection errors or closes: never a restart loop, one message. */
export class CrashPolicy {
  private told = false;
  private errors = 0;

  constructor(private readonly maxErrors = 3) {}

  /** A transport error: keep going for a few, then shut down. */
  onError(): "continue" | "shutdown" {
    this.errors += 1;
    return this.errors >= this.maxErrors ? "shutdown" : "continue";
  }

  /** The server exited: never restart by itself; say so once. */
  onClosed(): { restart: false; message?: string } {
    const message = this.once(
      "crane: the language server stopped; crash warnings are off. " +
        "See Output > crane for its log, then run 'Crane: Restart language server'.",
    );
    return message === undefined ? { restart: false } : { restart: false, message };
  }

  /** The server did not get through `initialize`; undefined when the user was already told. */
  onStartFailed(detail: string): string | undefined {
    return this.once(
      `crane: the language server did not start (${detail}); crash warnings are off. ` +
        "See Output > crane for its log, then run 'Crane: Restart language server'.",
    );
  }

  /** Forget past failures (after a user asked for a restart). */
  reset(): void {
    this.told = false;
    this.errors = 0;
  }

  private once(message: string): string | undefined {
    if (this.told) return undefined;
    this.told = true;
    return message;
  }
}
