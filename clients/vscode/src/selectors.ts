// Pure: which documents the client hands to crane-server. No `vscode` import.

/** A document filter in the shape vscode-languageclient accepts. */
export type TextFilter = { scheme: string; language: string } | { notebook: string; language: string };

/** Python files, unsaved Python buffers, and Python cells of notebooks (for hover and code actions). */
export const DOCUMENT_SELECTOR: TextFilter[] = [
  { scheme: "file", language: "python" },
  { scheme: "untitled", language: "python" },
  { scheme: "vscode-notebook-cell", language: "python" },
  { notebook: "jupyter-notebook", language: "python" },
  { notebook: "interactive", language: "python" },
];

/** Notebook types whose cells crane follows through LSP notebook sync. */
export const NOTEBOOK_TYPES = ["jupyter-notebook", "interactive"] as const;

/** Tell whether a document (by URI scheme and language) is one crane serves. */
export function isCraneDocument(scheme: string, languageId: string): boolean {
  return (
    languageId === "python" && ["file", "untitled", "vscode-notebook-cell"].includes(scheme)
  );
}

/** Tell whether a notebook type is followed through notebook sync. */
export function isCraneNotebook(notebookType: string): boolean {
  return (NOTEBOOK_TYPES as readonly string[]).includes(notebookType);
}
