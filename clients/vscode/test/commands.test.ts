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

/** Command ids the language server registers (its `executeCommandProvider` list). */
function serverCommandIds(): string[] {
  const source = fs.readFileSync(path.join(repoRoot(), "crane_server", "lsp", "server.py"), "utf8");
  return [...source.matchAll(/@server\.command\("([^"]+)"\)/g)].map((m) => m[1]);
}

function contributedCommandIds(): string[] {
  const manifest = JSON.parse(fs.readFileSync(path.join(repoRoot(), "clients", "vscode", "package.json"), "utf8"));
  return manifest.contributes.commands.map((c: { command: string }) => c.command);
}

describe("command ids", () => {
  it("reads the server's commands from its source", () => {
    assert.deepStrictEqual([...serverCommandIds()].sort(), Object.values(SERVER_COMMANDS).sort());
  });

  it("never registers a command the language client registers for the server", () => {
    const server = new Set(serverCommandIds());
    for (const id of Object.values(EXTENSION_COMMANDS)) assert.ok(!server.has(id), `${id} clashes with a server command`);
    for (const id of contributedCommandIds()) assert.ok(!server.has(id), `package.json contributes server command ${id}`);
  });

  it("contributes only commands the extension registers", () => {
    const own = new Set<string>(Object.values(EXTENSION_COMMANDS));
    for (const id of contributedCommandIds()) assert.ok(own.has(id), `${id} is contributed but not registered`);
  });
});
