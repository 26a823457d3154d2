import * as assert from "assert";

import {
  CONNECTION_FILE_CODE,
  attachArgs,
  decideHandOff,
  handOffArgs,
  kernelPickItems,
  parseConnectionFile,
  parseKernelId,
} from "../src/handoff";

const FILE = "/home/me/.local/share/jupyter/runtime/kernel-1c2d3e.json";

describe("CONNECTION_FILE_CODE", () => {
  it("is one expression that binds no name in the user's namespace", () => {
    assert.ok(!CONNECTION_FILE_CODE.includes("\n"));
    assert.ok(!/(^|[^=!<>])=([^=]|$)/.test(CONNECTION_FILE_CODE.replace(/"[^"]*"/g, '""')));
    assert.ok(!/\bimport\s/.test(CONNECTION_FILE_CODE));
  });
});

describe("parseConnectionFile", () => {
  it("finds the marker line in stdout", () => {
    const outputs = [{ mime: "application/vnd.code.notebook.stdout", text: `CRANE_CONNECTION_FILE=${FILE}\n` }];
    assert.strictEqual(parseConnectionFile(outputs), FILE);
  });

  it("ignores other output, errors and non-JSON paths", () => {
    assert.strictEqual(parseConnectionFile([]), undefined);
    assert.strictEqual(parseConnectionFile([{ mime: "application/vnd.code.notebook.error", text: `CRANE_CONNECTION_FILE=${FILE}` }]), undefined);
    assert.strictEqual(parseConnectionFile([{ mime: "application/vnd.code.notebook.stdout", text: "CRANE_CONNECTION_FILE=/tmp/x.txt" }]), undefined);
    assert.strictEqual(parseConnectionFile([{ mime: "application/vnd.code.notebook.stdout", text: "hello\n" }]), undefined);
  });

  it("reads the path even when stdout arrives with other lines", () => {
    const outputs = [
      { mime: "application/vnd.code.notebook.stdout", text: "warning: something\n" },
      { mime: "application/vnd.code.notebook.stdout", text: `CRANE_CONNECTION_FILE=${FILE}` },
    ];
    assert.strictEqual(parseConnectionFile(outputs), FILE);
  });
});

describe("parseKernelId", () => {
  const stdout = "application/vnd.code.notebook.stdout";
  const remote = "/home/ana/.local/share/jupyter/runtime/kernel-3f0c9a52-1df5-4a32-a781-621aea41a421.json";
  it("reads the id from a server's connection file name", () => {
    const outputs = [{ mime: stdout, text: `CRANE_CONNECTION_FILE=${remote}\nCRANE_KERNEL_ID=\n` }];
    assert.strictEqual(parseKernelId(outputs), "3f0c9a52-1df5-4a32-a781-621aea41a421");
  });
  it("prefers the KERNEL_ID Enterprise Gateway sets", () => {
    const outputs = [{ mime: stdout, text: "CRANE_CONNECTION_FILE=/tmp/x/conn.json\nCRANE_KERNEL_ID=7c3e-11\n" }];
    assert.strictEqual(parseKernelId(outputs), "7c3e-11");
  });
  it("gives nothing for a file not named by its kernel, or an id that could change a URL", () => {
    assert.strictEqual(parseKernelId([{ mime: stdout, text: "CRANE_CONNECTION_FILE=/tmp/conn.json\nCRANE_KERNEL_ID=\n" }]), undefined);
    assert.strictEqual(parseKernelId([{ mime: stdout, text: "CRANE_KERNEL_ID=../../api\n" }]), undefined);
  });
});

describe("decideHandOff", () => {
  const found = { jupyterInstalled: true, kernelFound: true, language: "python", connectionFile: FILE };

  it("attaches the connection file the Jupyter extension gave", () => {
    assert.deepStrictEqual(decideHandOff("jupyter", found), { kind: "attach", connectionFile: FILE });
  });

  const fallbacks: [string, Parameters<typeof decideHandOff>[1], RegExp][] = [
    ["no Jupyter extension", { jupyterInstalled: false, kernelFound: false }, /not installed/],
    ["no kernel or no consent", { jupyterInstalled: true, kernelFound: false }, /not allowed/],
    ["an API failure", { jupyterInstalled: true, kernelFound: false, error: "boom" }, /boom/],
    ["an R kernel", { ...found, language: "r" }, /language is r/],
    ["no connection file printed", { ...found, connectionFile: undefined }, /connection file/],
    ["no probe at all", undefined, /not installed/],
  ];
  for (const [name, probe, reason] of fallbacks) {
    it(`falls back to server discovery on ${name}`, () => {
      const decision = decideHandOff("jupyter", probe);
      assert.strictEqual(decision.kind, "discovery");
      assert.match((decision as { reason: string }).reason, reason);
    });
  }

  it("hands the kernel id over with the file (crane-server finds a remote kernel by it)", () => {
    const decision = decideHandOff("jupyter", { ...found, kernelId: "1c2d3e" });
    assert.deepStrictEqual(decision, { kind: "attach", connectionFile: FILE, kernelId: "1c2d3e" });
    const uri = "file:///work/a.ipynb";
    assert.deepStrictEqual(handOffArgs(uri, { connectionFile: FILE, kernelId: "1c2d3e" }), { uri, connection_file: FILE, kernel_id: "1c2d3e" });
    assert.deepStrictEqual(handOffArgs(uri, { connectionFile: FILE }), { uri, connection_file: FILE });
  });

  it("never asks Jupyter when the setting says discovery", () => {
    assert.strictEqual(decideHandOff("discovery", found).kind, "discovery");
  });
});

describe("attachArgs", () => {
  const uri = "file:///work/a.ipynb";
  it("reads a path as a connection file", () => {
    assert.deepStrictEqual(attachArgs(uri, ` ${FILE} `), { uri, connection_file: FILE });
    assert.deepStrictEqual(attachArgs(uri, "kernel-abc.json"), { uri, connection_file: "kernel-abc.json" });
  });
  it("reads anything else as a kernel id", () => {
    assert.deepStrictEqual(attachArgs(uri, "1c2d3e"), { uri, kernel_id: "1c2d3e" });
    assert.deepStrictEqual(attachArgs(uri, "kernel-1c2d3e"), { uri, kernel_id: "1c2d3e" });
  });
  it("gives nothing for empty input", () => {
    assert.strictEqual(attachArgs(uri, "  "), undefined);
  });
});

describe("kernelPickItems", () => {
  const uri = "file:///work/a.ipynb";
  it("lists live kernels first with their notebook and attaches by connection file", () => {
    const items = kernelPickItems(uri, [
      { kernel_id: "deadbeef00", connection_file: "/r/kernel-deadbeef00.json", state: "dead" },
      { kernel_id: "1c2d3e4f55", connection_file: FILE, state: "idle", notebook_path: "/work/a.ipynb" },
    ]);
    assert.strictEqual(items.length, 2);
    assert.strictEqual(items[0].label, "kernel 1c2d3e4f");
    assert.strictEqual(items[0].description, "idle · /work/a.ipynb");
    assert.deepStrictEqual(items[0].args, { uri, connection_file: FILE });
    assert.strictEqual(items[1].description, "dead");
  });
  it("ignores a malformed result", () => {
    assert.deepStrictEqual(kernelPickItems(uri, null), []);
    assert.deepStrictEqual(kernelPickItems(uri, [{ kernel_id: "x" }, 3]), []);
  });
});
