import * as assert from "assert";

import { KernelGoneNotifier, kernelLabel, parseKernelStatus, statusText } from "../src/status";

const uri = "file:///work/a.ipynb";

describe("parseKernelStatus", () => {
  it("reads the notification", () => {
    const status = parseKernelStatus({ uri, kernel_id: "1c2d3e4f55", connection_file: "/r/kernel-1c2d3e4f55.json", state: "busy", reason: "notebook-path" });
    assert.strictEqual(status?.state, "busy");
    assert.strictEqual(status?.kernel_id, "1c2d3e4f55");
  });
  it("maps an unknown state to unknown and rejects garbage", () => {
    assert.strictEqual(parseKernelStatus({ uri, state: "sleepy" })?.state, "unknown");
    assert.strictEqual(parseKernelStatus({ state: "idle" }), undefined);
    assert.strictEqual(parseKernelStatus("idle"), undefined);
    assert.strictEqual(parseKernelStatus(null), undefined);
  });
});

describe("statusText", () => {
  it("shows the bound kernel and its state", () => {
    const { text, tooltip } = statusText({ uri, kernel_id: "1c2d3e4f55", connection_file: "/r/kernel-1c2d3e4f55.json", state: "idle", reason: "command" });
    assert.strictEqual(text, "$(check) crane: 1c2d3e4f idle");
    assert.match(tooltip, /kernel-1c2d3e4f55\.json/);
    assert.match(tooltip, /bound by: command/);
  });
  it("says when no kernel is bound", () => {
    assert.match(statusText(undefined).text, /no kernel/);
    assert.match(statusText({ uri, state: "none" }).text, /no kernel/);
  });
  it("names a kernel by its connection file when it has no id", () => {
    assert.strictEqual(kernelLabel({ uri, connection_file: "/r/kernel-abcdef123.json", state: "idle" }), "abcdef12");
  });
  it("marks a dead kernel", () => {
    assert.match(statusText({ uri, kernel_id: "k1", state: "dead" }).text, /\$\(error\).*dead/);
  });
});

describe("KernelGoneNotifier", () => {
  it("says that a kernel is gone once, and again only after it came back", () => {
    const notifier = new KernelGoneNotifier();
    const dead = { uri, kernel_id: "k1", state: "dead" as const };
    assert.match(notifier.update(dead, "a.ipynb") ?? "", /kernel of a\.ipynb \(k1\) is gone/);
    assert.strictEqual(notifier.update(dead, "a.ipynb"), undefined);
    assert.strictEqual(notifier.update({ ...dead, state: "idle" }, "a.ipynb"), undefined);
    assert.ok(notifier.update(dead, "a.ipynb"));
  });
  it("tells separately about another document", () => {
    const notifier = new KernelGoneNotifier();
    notifier.update({ uri, kernel_id: "k1", state: "dead" }, "a.ipynb");
    assert.ok(notifier.update({ uri: "file:///work/b.ipynb", kernel_id: "k1", state: "dead" }, "b.ipynb"));
  });
});
