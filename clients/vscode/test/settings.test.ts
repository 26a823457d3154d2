import * as assert from "assert";

import { DEFAULTS, readServers, readSettings, toServerSettings } from "../src/settings";

function reader(values: Record<string, unknown>) {
  return (key: string) => values[key];
}

describe("readSettings", () => {
  it("uses the defaults when nothing is set", () => {
    const { settings, problems } = readSettings(reader({}));
    assert.deepStrictEqual(settings, DEFAULTS);
    assert.deepStrictEqual(problems, []);
  });

  it("keeps valid values", () => {
    const { settings, problems } = readSettings(
      reader({ serverPath: " /opt/crane/bin/crane-server ", model: "gpt-5-mini", llmTrigger: "auto", privacy: "schema", debounceMs: 150, kernelHandOff: "discovery", serverArgs: ["--log-file", "/tmp/c.log"] }),
    );
    assert.deepStrictEqual(problems, []);
    assert.strictEqual(settings.serverPath, "/opt/crane/bin/crane-server");
    assert.strictEqual(settings.model, "gpt-5-mini");
    assert.strictEqual(settings.llmTrigger, "auto");
    assert.strictEqual(settings.privacy, "schema");
    assert.strictEqual(settings.debounceMs, 150);
    assert.strictEqual(settings.kernelHandOff, "discovery");
    assert.deepStrictEqual(settings.serverArgs, ["--log-file", "/tmp/c.log"]);
  });

  const invalid: [string, unknown][] = [
    ["llmTrigger", "always"],
    ["privacy", "none"],
    ["debounceMs", -5],
    ["debounceMs", "fast"],
    ["kernelHandOff", 3],
    ["serverArgs", "--verbose"],
    ["serverPath", ""],
  ];
  for (const [key, value] of invalid) {
    it(`falls back to the default for ${key}=${JSON.stringify(value)} and says so`, () => {
      const { settings, problems } = readSettings(reader({ [key]: value }));
      assert.deepStrictEqual(settings[key as keyof typeof settings], DEFAULTS[key as keyof typeof DEFAULTS]);
      assert.strictEqual(problems.length, 1);
      assert.match(problems[0], new RegExp(`crane\\.${key}`));
    });
  }

  it("caps the debounce at ten seconds and rounds it", () => {
    assert.strictEqual(readSettings(reader({ debounceMs: 99999 })).settings.debounceMs, 10000);
    assert.strictEqual(readSettings(reader({ debounceMs: 12.6 })).settings.debounceMs, 13);
  });
});

describe("toServerSettings", () => {
  it("maps to the server's snake_case settings with an llm group", () => {
    const mapped = toServerSettings({ ...DEFAULTS, model: "gpt-5", llmTrigger: "auto", privacy: "types", debounceMs: 50 });
    assert.deepStrictEqual(mapped, { debounce_ms: 50, llm: { trigger: "auto", model: "gpt-5", privacy: "types" } });
  });

  it("sends null for an empty model so the server uses its own default", () => {
    assert.strictEqual(toServerSettings(DEFAULTS).llm.model, null);
  });

  it("passes connectionFile to the server as its camelCase client hint, only when set", () => {
    assert.strictEqual(toServerSettings(DEFAULTS).connectionFile, undefined);
    const { settings } = readSettings((key) => (key === "connectionFile" ? " /tmp/kernel-1.json " : undefined));
    assert.strictEqual(toServerSettings(settings).connectionFile, "/tmp/kernel-1.json");
  });
});

describe("crane.servers", () => {
  it("passes valid servers to crane-server, only when there are some", () => {
    const raw = [
      { url: "https://hub.example.org/user/ana/", tokenEnv: "HUB_TOKEN" },
      { url: "http://127.0.0.1:8888/" },
      { url: "https://proxy.example.org/", headersEnv: "PROXY_HEADERS" },
    ];
    const { settings, problems } = readSettings((key) => (key === "servers" ? raw : undefined));
    assert.deepStrictEqual(problems, []);
    assert.deepStrictEqual(toServerSettings(settings).servers, raw);
    assert.strictEqual(toServerSettings(DEFAULTS).servers, undefined);
  });

  it("drops an entry with a token, a query or a bad variable name, without showing it", () => {
    const secret = "s3cret-token-value";
    const { servers, problems } = readServers([
      { url: "http://gpu:8888/", token: secret },
      { url: `http://gpu:8888/?token=${secret}` },
      { url: "ftp://gpu/" },
      { url: "http://gpu:8888/", tokenEnv: "NOT A NAME" },
      { url: "http://gpu:8888/", headersEnv: `{"Authorization": "${secret}"}` },
      "http://gpu:8888/",
      { url: "http://ok:8888/" },
    ]);
    assert.deepStrictEqual(servers, [{ url: "http://ok:8888/" }]);
    assert.strictEqual(problems.length, 6);
    assert.ok(problems.every((p) => !p.includes(secret)));
    assert.deepStrictEqual(readServers("http://gpu:8888/").servers, []);
  });
});
