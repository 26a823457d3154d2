import * as assert from "assert";
import * as fs from "fs";
import * as os from "os";
import * as path from "path";

import { CrashPolicy, resolveServer } from "../src/server";
import { DEFAULTS } from "../src/settings";

function isExecutable(file: string): boolean {
  try {
    fs.accessSync(file, fs.constants.X_OK);
    return fs.statSync(file).isFile();
  } catch {
    return false;
  }
}

describe("resolveServer", () => {
  let dir: string;
  let exe: string;
  before(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "crane-vscode-"));
    exe = path.join(dir, "crane-server");
    fs.writeFileSync(exe, "#!/bin/sh\n");
    fs.chmodSync(exe, 0o755);
    fs.writeFileSync(path.join(dir, "not-executable"), "");
  });
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  it("finds the name on PATH", () => {
    const result = resolveServer(DEFAULTS, { env: { PATH: `/nonexistent:${dir}` }, platform: "linux", isExecutable });
    assert.deepStrictEqual(result, { ok: true, command: exe, args: [] });
  });

  it("accepts an absolute path and passes the extra arguments", () => {
    const result = resolveServer({ ...DEFAULTS, serverPath: exe, serverArgs: ["--log-file", "x"] }, { env: {}, platform: "linux", isExecutable });
    assert.deepStrictEqual(result, { ok: true, command: exe, args: ["--log-file", "x"] });
  });

  it("resolves a relative path against the workspace folder", () => {
    const result = resolveServer({ ...DEFAULTS, serverPath: "./crane-server" }, { env: {}, platform: "linux", isExecutable, workspaceFolder: dir });
    assert.strictEqual(result.ok && result.command, exe);
  });

  const bad: [string, string][] = [
    ["a wrong path", "/no/such/crane-server"],
    ["a file that is not executable", "not-executable"],
    ["a name missing from PATH", "crane-server-missing"],
  ];
  for (const [name, serverPath] of bad) {
    it(`gives one clear message for ${name}`, () => {
      const full = serverPath === "not-executable" ? path.join(dir, serverPath) : serverPath;
      const result = resolveServer({ ...DEFAULTS, serverPath: full }, { env: { PATH: dir }, platform: "linux", isExecutable });
      assert.strictEqual(result.ok, false);
      const message = (result as { message: string }).message;
      assert.ok(message.includes(full));
      assert.match(message, /crane\.serverPath/);
    });
  }
});

describe("CrashPolicy", () => {
  it("never restarts and tells the user only once", () => {
    const policy = new CrashPolicy();
    const first = policy.onClosed();
    assert.strictEqual(first.restart, false);
    assert.match(first.message ?? "", /stopped/);
    for (let i = 0; i < 5; i++) assert.deepStrictEqual(policy.onClosed(), { restart: false });
  });

  it("shuts down after repeated transport errors", () => {
    const policy = new CrashPolicy(3);
    assert.strictEqual(policy.onError(), "continue");
    assert.strictEqual(policy.onError(), "continue");
    assert.strictEqual(policy.onError(), "shutdown");
  });

  it("says one thing when the start fails and the connection then closes", () => {
    const policy = new CrashPolicy();
    assert.match(policy.onStartFailed("exit code 1") ?? "", /did not start \(exit code 1\)/);
    assert.deepStrictEqual(policy.onClosed(), { restart: false });
    assert.strictEqual(policy.onStartFailed("again"), undefined);
  });

  it("says nothing more about a failed start after the server was reported closed", () => {
    const policy = new CrashPolicy();
    assert.ok(policy.onClosed().message);
    assert.strictEqual(policy.onStartFailed("x"), undefined);
  });

  it("speaks again after a user restart", () => {
    const policy = new CrashPolicy();
    policy.onClosed();
    policy.reset();
    assert.ok(policy.onClosed().message);
  });
});
