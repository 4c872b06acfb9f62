// The two commands: an inverse session for the function at the cursor, and the same session as
// the active one (or the active file) on the oracle backend, which runs the program for real.
import * as path from 'node:path';
import * as vscode from 'vscode';
import { DEBUG_TYPE, inverseConfig, NeuralConfig, oracleConfig } from './core/debugConfig';
import { exampleCall, findFunctionAt } from './core/python';
import { sessionSettings } from './settings';

export const PREDICT_INPUTS = 'neuralDebugger.predictInputs';
export const COMPARE_WITH_REAL_RUN = 'neuralDebugger.compareWithRealRun';

export function registerCommands(context: vscode.ExtensionContext): void {
  context.subscriptions.push(
    vscode.commands.registerCommand(PREDICT_INPUTS, predictInputs),
    vscode.commands.registerCommand(COMPARE_WITH_REAL_RUN, compareWithRealRun),
  );
}

function pythonEditor(): vscode.TextEditor | undefined {
  const editor = vscode.window.activeTextEditor;
  if (!editor || editor.document.languageId !== 'python') return undefined;
  if (editor.document.uri.scheme !== 'file') return undefined;
  return editor;
}

/**
 * Asks for a return value, then starts an inverse session of the function at the cursor: it
 * starts from the function returning that value and `continue` jumps to the predicted inputs.
 * The entry is `name()`: a model backend reads only the function's name from an inverse entry.
 * The oracle backend cannot predict inputs, so a setting of `oracle` gives way to `local` here.
 */
export async function predictInputs(): Promise<boolean> {
  const editor = pythonEditor();
  if (!editor) {
    void vscode.window.showErrorMessage('Neural Debugger: open a saved Python file and put the cursor in a function.');
    return false;
  }
  const document = editor.document;
  const fn = findFunctionAt(document.getText().split(/\r?\n/), editor.selection.active.line);
  if (!fn) {
    void vscode.window.showErrorMessage(
      'Neural Debugger: the cursor is not inside a function. Put it in the body or on the def line of the function whose inputs to predict.',
    );
    return false;
  }
  const value = await vscode.window.showInputBox({
    title: `Predict inputs of ${fn.name}`,
    prompt: `What ${exampleCall(fn)} returns, written as Python writes it (its repr): the model predicts arguments that give it.`,
    placeHolder: "e.g. 6, 'abc' or [1, 2, 3]",
    ignoreFocusOut: true,
    validateInput: (text) => (text.trim() === '' ? 'Give the return value, e.g. 6' : /[\r\n]/.test(text) ? 'One line, please' : undefined),
  });
  if (value === undefined) return false;
  const folder = vscode.workspace.getWorkspaceFolder(document.uri);
  const config: NeuralConfig = inverseConfig(document.uri.fsPath, fn.name, value.trim(), folder?.uri.fsPath);
  if (sessionSettings(folder).backend === 'oracle') config.backend = 'local';
  return vscode.debug.startDebugging(folder, config);
}

/**
 * After a modal confirmation that the program WILL run, the active neural session's launch (or a
 * script session over the active file) again with the oracle backend, beside the predicted one.
 * Differences are not marked in the editor yet: the two sessions are compared by eye.
 */
export async function compareWithRealRun(): Promise<boolean> {
  const active = vscode.debug.activeDebugSession;
  const base = active?.type === DEBUG_TYPE ? (active.configuration as NeuralConfig) : undefined;
  const editor = pythonEditor();
  const program = base?.program ?? editor?.document.uri.fsPath;
  if (!program) {
    void vscode.window.showErrorMessage('Neural Debugger: open a Python file or start a neural session first.');
    return false;
  }
  const what = base?.entry ? `${base.entry} from ${path.basename(program)}` : path.basename(program);
  const choice = await vscode.window.showWarningMessage(
    `Run ${what} for real?`,
    {
      modal: true,
      detail:
        'The oracle backend EXECUTES the program, with the interpreter that runs the debug adapter and ' +
        'with your permissions: files it writes are written, network calls are made. Every stop of the ' +
        'new session comes from that real run, to compare with the predicted session beside it.',
    },
    'Run It',
  );
  if (choice !== 'Run It') return false;
  const uri = vscode.Uri.file(program);
  const folder = active?.workspaceFolder ?? vscode.workspace.getWorkspaceFolder(uri);
  return vscode.debug.startDebugging(folder, oracleConfig(base, program, folder?.uri.fsPath));
}
