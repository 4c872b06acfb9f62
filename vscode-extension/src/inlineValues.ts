// Predicted values inline in the editor: for a neural session, every variable-like name from the
// start of the stopped function (or the visible range) down to the stopped line is looked up in
// the stopped frame's variables, which are the predicted ones.
import * as vscode from 'vscode';
import { DEBUG_TYPE } from './core/debugConfig';
import { linesToAnnotate, namesOnLines } from './core/python';

export class NeuralInlineValues implements vscode.InlineValuesProvider {
  provideInlineValues(
    document: vscode.TextDocument,
    viewPort: vscode.Range,
    context: vscode.InlineValueContext,
  ): vscode.InlineValue[] | undefined {
    if (vscode.debug.activeDebugSession?.type !== DEBUG_TYPE) return undefined;
    const lines = document.getText().split(/\r?\n/);
    const stopped = context.stoppedLocation.end.line;
    const { from, to } = linesToAnnotate(lines, viewPort.start.line, viewPort.end.line, stopped);
    return namesOnLines(lines, from, to).map(
      (found) =>
        new vscode.InlineValueVariableLookup(
          new vscode.Range(found.line, found.start, found.line, found.end),
          found.name,
          true,
        ),
    );
  }
}
