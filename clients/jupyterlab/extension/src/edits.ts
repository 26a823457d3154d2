// Apply a quick fix's WorkspaceEdit (root-document coordinates) to the notebook's cells.
import type { CodeEditor } from '@jupyterlab/codeeditor';
import type { IEditorPosition, IVirtualPosition } from '@jupyterlab/lsp';
import type * as lsp from 'vscode-languageserver-protocol';
import type { ICraneLink } from './link';

interface ICellEdit {
  editor: CodeEditor.IEditor;
  from: number;
  to: number;
  text: string;
}

function editsFor(edit: lsp.WorkspaceEdit, uri: string): lsp.TextEdit[] {
  const found: lsp.TextEdit[] = [...(edit.changes?.[uri] ?? [])];
  for (const change of edit.documentChanges ?? []) {
    if ('textDocument' in change && change.textDocument.uri === uri) {
      found.push(...(change.edits as lsp.TextEdit[]));
    }
  }
  return found;
}

/** The cell editor and editor positions of a range of the server's document, or null. */
function place(
  link: ICraneLink,
  start: IVirtualPosition,
  end: IVirtualPosition
): { editor: CodeEditor.IEditor; from: IEditorPosition; to: IEditorPosition } | null {
  try {
    const block = link.root.getEditorAtVirtualLine(start);
    const editor = block?.getEditor();
    const from = link.root.transformVirtualToEditor(start);
    const to = link.root.transformVirtualToEditor(end);
    if (!editor || !from || !to || link.root.getEditorAtVirtualLine(end) !== block) {
      return null;
    }
    return { editor, from, to };
  } catch {
    return null; // a padding line between cells, or a document that changed meanwhile
  }
}

/** Apply `edit` to the cells it touches; the number of edits applied, or an error message. */
export function applyWorkspaceEdit(link: ICraneLink, edit: lsp.WorkspaceEdit): number | string {
  const planned: ICellEdit[] = [];
  for (const text of editsFor(edit, link.uri)) {
    const start = { line: text.range.start.line, ch: text.range.start.character, isVirtual: true };
    const end = { line: text.range.end.line, ch: text.range.end.character, isVirtual: true };
    const placed = place(link, start as IVirtualPosition, end as IVirtualPosition);
    if (!placed) {
      return 'the fix spans cells or a cell that is not shown';
    }
    const { editor, from, to } = placed;
    planned.push({
      editor,
      from: editor.getOffsetAt({ line: from.line, column: from.ch }),
      to: editor.getOffsetAt({ line: to.line, column: to.ch }),
      text: text.newText
    });
  }
  // Last first, so the offsets of earlier edits in the same cell stay right.
  planned.sort((a, b) => b.from - a.from);
  for (const item of planned) {
    item.editor.model.sharedModel.updateSource(item.from, item.to, item.text);
  }
  return planned.length;
}
