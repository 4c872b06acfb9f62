// The commands: an inverse session for the function at the cursor, and a comparison of the active
// predicted session with a real run (the oracle backend), marked in the editor.
import * as vscode from 'vscode';
import { configForFile, DEBUG_TYPE, inverseConfig, NeuralConfig, oracleConfig } from './core/debugConfig';
import { COMPARE_REQUEST, isComparison, marksForFile, summary } from './core/divergences';
import { exampleCall, findFunctionAt } from './core/python';
import { DivergenceMarks } from './divergenceMarks';
import { confirmRealRun } from './realRun';
import { sessionSettings } from './settings';

export const PREDICT_INPUTS = 'neuralDebugger.predictInputs';
export const COMPARE_WITH_REAL_RUN = 'neuralDebugger.compareWithRealRun';
/** The language server's code lens "Neural debug CALL" runs this with (document URI, call). */
export const DEBUG_ENTRY = 'neuralDebugger.debugEntry';

let marks: DivergenceMarks;

export function registerCommands(context: vscode.ExtensionContext): DivergenceMarks {
  marks = new DivergenceMarks();
  context.subscriptions.push(
    marks,
    vscode.commands.registerCommand(PREDICT_INPUTS, predictInputs),
    vscode.commands.registerCommand(COMPARE_WITH_REAL_RUN, compareWithRealRun),
    vscode.commands.registerCommand(DEBUG_ENTRY, debugEntry),
  );
  return marks;
}

function pythonEditor(): vscode.TextEditor | undefined {
  const editor = vscode.window.activeTextEditor;
  if (!editor || editor.document.languageId !== 'python') return undefined;
  if (editor.document.uri.scheme !== 'file') return undefined;
  return editor;
}

/** A predicted session of one call of a file, stopping on entry (the lens of an annotation). */
export async function debugEntry(uri: string | vscode.Uri, entry: string): Promise<boolean> {
  const file = typeof uri === 'string' ? vscode.Uri.parse(uri) : uri;
  if (file.scheme !== 'file' || typeof entry !== 'string' || entry.trim() === '') {
    void vscode.window.showErrorMessage('Neural Debugger: the lens names no saved file or no call to debug.');
    return false;
  }
  const folder = vscode.workspace.getWorkspaceFolder(file);
  const config: NeuralConfig = { ...configForFile(file.fsPath, folder?.uri.fsPath), entry: entry.trim(), name: `Neural: ${entry.trim()}` };
  return vscode.debug.startDebugging(folder, config);
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
 * After a modal confirmation that the program WILL run: with a predicted session stopped, the
 * server takes that session's actions on a real run and answers where the predictions diverged;
 * those lines are marked in the editor and the real run can be opened as a session beside it.
 * Without a predicted session, the active file (or the active real session's program) is
 * started on the oracle backend.
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
  const predicted = active !== undefined && base !== undefined && base.backend !== 'oracle';
  const consequence = predicted
    ? 'The actions of this predicted session are taken on the real run, and every line where a prediction was wrong is marked in the editor.'
    : 'Every stop of the new session comes from that real run.';
  if (!(await confirmRealRun(program, base?.entry, consequence))) return false;
  const uri = vscode.Uri.file(program);
  const folder = active?.workspaceFolder ?? vscode.workspace.getWorkspaceFolder(uri);
  const realSession: NeuralConfig = { ...oracleConfig(base, program, folder?.uri.fsPath), realRunConfirmed: true };
  if (!predicted) return vscode.debug.startDebugging(folder, realSession);

  let body: unknown;
  try {
    body = await active.customRequest(COMPARE_REQUEST);
  } catch (error) {
    void vscode.window.showErrorMessage(`Neural Debugger: the comparison failed: ${(error as Error).message ?? error}`);
    return false;
  }
  if (!isComparison(body)) {
    void vscode.window.showErrorMessage('Neural Debugger: the debug adapter does not answer compareWithRealRun (an older server?).');
    return false;
  }
  marks.show(program, marksForFile(body, program));
  const open = 'Open the Real Run';
  void vscode.window.showInformationMessage(`Neural Debugger: ${summary(body)}`, open).then((picked) => {
    if (picked === open) void vscode.debug.startDebugging(folder, realSession);
  });
  return true;
}
