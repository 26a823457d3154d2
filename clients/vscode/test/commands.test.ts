import * as assert from "assert";
import * as fs from "fs";
import * as path from "path";

import { EXTENSION_COMMANDS, SERVER_COMMANDS } from "../src/commands";

/** The repository root: the first parent folder holding crane_server/. */
function repoRoot(): string {
  let dir = __dirname;
  while (!fs.existsSync(path.join(dir, "crane_server", "lsp", "server.py"))) {
    const parent = path.dirname(dir);
    assert.notStrictEqual(parent, dir, "crane_server/lsp/server.py not found above the tests");
    dir = parent;
  }
  return dir;
}

/** Command ids the language server registers (its `executeCommandProvider` list), from its source. */
function serverCommandIds(): string[] {
  const dir = path.join(repoRoot(), "crane_server", "lsp");
  const ids = new Set<string>();
  for (const file of fs.readdirSync(dir).filter((f) => f.endsWith(".py"))) {
    const source = fs.readFileSync(path.join(dir, file), "utf8");
    for (const m of source.matchAll(/\.command\(\s*["']([^"']+)["']/g)) ids.add(m[1]);
  }
  return [...ids];
}

/** Command ids the protocol document lists under "Commands (`workspace/executeCommand`)". */
function documentedCommandIds(): string[] {
  const readme = fs.readFileSync(path.join(repoRoot(), "protocol", "README.md"), "utf8");
  const section = readme.split(/^## /m).find((s) => s.startsWith("Commands")) ?? "";
  return [...section.matchAll(/^\| `([\w.]+)` \|/gm)].map((m) => m[1]);
}

/** Every literal id the extension's source passes to `registerCommand`. */
function literalRegistrations(): string[] {
  const source = fs.readFileSync(path.join(repoRoot(), "clients", "vscode", "src", "extension.ts"), "utf8");
  return [...source.matchAll(/registerCommand\(\s*["']([^"']+)["']/g)].map((m) => m[1]);
}

function contributedCommandIds(): string[] {
  const manifest = JSON.parse(fs.readFileSync(path.join(repoRoot(), "clients", "vscode", "package.json"), "utf8"));
  return manifest.contributes.commands.map((c: { command: string }) => c.command);
}

describe("command ids", () => {
  it("reads the server's commands from its source", () => {
    assert.deepStrictEqual([...serverCommandIds()].sort(), Object.values(SERVER_COMMANDS).sort());
  });

  it("finds the same server commands in the protocol document", () => {
    assert.ok(documentedCommandIds().length > 0, "no command table in protocol/README.md");
    assert.deepStrictEqual([...documentedCommandIds()].sort(), [...serverCommandIds()].sort());
  });

  it("never registers a command the language client registers for the server", () => {
    const server = new Set([...serverCommandIds(), ...documentedCommandIds()]);
    for (const id of literalRegistrations()) assert.ok(!server.has(id), `${id} clashes with a server command`);
    for (const id of Object.values(EXTENSION_COMMANDS)) assert.ok(!server.has(id), `${id} clashes with a server command`);
    for (const id of contributedCommandIds()) assert.ok(!server.has(id), `package.json contributes server command ${id}`);
  });

  it("contributes only commands the extension registers", () => {
    const own = new Set<string>(Object.values(EXTENSION_COMMANDS));
    for (const id of contributedCommandIds()) assert.ok(own.has(id), `${id} is contributed but not registered`);
  });
});
