import * as assert from "assert";

import { DOCUMENT_SELECTOR, isCraneDocument, isCraneNotebook } from "../src/selectors";

describe("document selector", () => {
  it("covers Python files, untitled buffers and notebook cells", () => {
    const schemes = DOCUMENT_SELECTOR.filter((f) => "scheme" in f).map((f) => (f as { scheme: string }).scheme);
    assert.deepStrictEqual(schemes.sort(), ["file", "untitled", "vscode-notebook-cell"]);
    assert.ok(DOCUMENT_SELECTOR.every((f) => f.language === "python"));
    const notebooks = DOCUMENT_SELECTOR.filter((f) => "notebook" in f).map((f) => (f as { notebook: string }).notebook);
    assert.deepStrictEqual(notebooks.sort(), ["interactive", "jupyter-notebook"]);
  });

  const cases: [string, string, boolean][] = [
    ["file", "python", true],
    ["vscode-notebook-cell", "python", true],
    ["untitled", "python", true],
    ["vscode-notebook-cell", "markdown", false],
    ["file", "r", false],
    ["git", "python", false],
    ["output", "python", false],
  ];
  for (const [scheme, language, expected] of cases) {
    it(`${expected ? "serves" : "ignores"} ${scheme}:${language}`, () => {
      assert.strictEqual(isCraneDocument(scheme, language), expected);
    });
  }

  it("follows Jupyter and interactive notebooks only", () => {
    assert.ok(isCraneNotebook("jupyter-notebook"));
    assert.ok(isCraneNotebook("interactive"));
    assert.ok(!isCraneNotebook("github-issues"));
  });
});
