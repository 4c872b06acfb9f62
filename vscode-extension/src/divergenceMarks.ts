// Where a comparison found the predictions wrong, marked in the editor: a warning diagnostic per
// line (Problems view, squiggle, hover with every message) and a short text after the line. The
// marks belong to the text that was compared, so editing that file, starting a new neural session
// or the Clear command removes them.
import * as vscode from 'vscode';
import { DEBUG_TYPE } from './core/debugConfig';
import { LineMark } from './core/divergences';

export const CLEAR_MARKS = 'neuralDebugger.clearComparison';
const SOURCE = 'Neural Debugger (real run)';

export class DivergenceMarks implements vscode.Disposable {
  private readonly diagnostics = vscode.languages.createDiagnosticCollection('neural-debugger-comparison');
  private readonly decoration = vscode.window.createTextEditorDecorationType({
    after: {
      margin: '0 0 0 2em',
      color: new vscode.ThemeColor('editorWarning.foreground'),
      fontStyle: 'italic',
    },
    overviewRulerColor: new vscode.ThemeColor('editorWarning.foreground'),
    overviewRulerLane: vscode.OverviewRulerLane.Right,
    isWholeLine: true,
  });
  private marks = new Map<string, LineMark[]>();
  private readonly subscriptions: vscode.Disposable[];

  constructor() {
    this.subscriptions = [
      vscode.window.onDidChangeVisibleTextEditors((editors) => editors.forEach((editor) => this.decorate(editor))),
      vscode.workspace.onDidChangeTextDocument((change) => {
        if (change.contentChanges.length > 0 && this.marks.has(change.document.uri.fsPath)) this.clear();
      }),
      vscode.debug.onDidStartDebugSession((session) => {
        if (session.type === DEBUG_TYPE && session.configuration.backend !== 'oracle') this.clear();
      }),
      vscode.commands.registerCommand(CLEAR_MARKS, () => this.clear()),
    ];
  }

  /** Replaces every mark with those of `path`. */
  show(path: string, marks: LineMark[]): void {
    this.clear();
    this.marks.set(path, marks);
    const uri = vscode.Uri.file(path);
    this.diagnostics.set(
      uri,
      marks.map((mark) => {
        const range = new vscode.Range(mark.line, 0, mark.line, Number.MAX_SAFE_INTEGER);
        const diagnostic = new vscode.Diagnostic(range, mark.messages.join('\n'), vscode.DiagnosticSeverity.Warning);
        diagnostic.source = SOURCE;
        diagnostic.code = 'prediction-diverged';
        diagnostic.relatedInformation = mark.realLines.map(
          (line) =>
            new vscode.DiagnosticRelatedInformation(
              new vscode.Location(uri, new vscode.Range(line, 0, line, 0)),
              'the real run was here',
            ),
        );
        return diagnostic;
      }),
    );
    vscode.window.visibleTextEditors.forEach((editor) => this.decorate(editor));
  }

  clear(): void {
    const shown = [...this.marks.keys()];
    this.marks.clear();
    this.diagnostics.clear();
    for (const editor of vscode.window.visibleTextEditors) {
      if (shown.includes(editor.document.uri.fsPath)) editor.setDecorations(this.decoration, []);
    }
  }

  /** How many lines are marked now (all files). */
  get count(): number {
    let total = 0;
    for (const marks of this.marks.values()) total += marks.length;
    return total;
  }

  private decorate(editor: vscode.TextEditor): void {
    const marks = this.marks.get(editor.document.uri.fsPath);
    if (!marks) return;
    editor.setDecorations(
      this.decoration,
      marks.map((mark) => ({
        range: new vscode.Range(mark.line, 0, mark.line, 0),
        renderOptions: { after: { contentText: mark.label } },
        hoverMessage: new vscode.MarkdownString(mark.messages.map((m) => `- ${m}`).join('\n')),
      })),
    );
  }

  dispose(): void {
    this.clear();
    this.diagnostics.dispose();
    this.decoration.dispose();
    this.subscriptions.forEach((s) => s.dispose());
  }
}
