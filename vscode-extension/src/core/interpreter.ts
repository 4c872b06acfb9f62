// Which Python runs the debug adapter and the language server. Nothing here imports vscode.

/** What the interpreter runs: the debug adapter over stdio, and the language server. */
export const ADAPTER_ARGS = ['-m', 'neural_debugger', 'dap'];
export const LSP_ARGS = ['-m', 'neural_debugger', 'lsp'];

/**
 * The language server's initializationOptions: the model setting (a folder, relative to the
 * workspace folder the server runs in), when set. Never a backend: the server's oracle would
 * run the program on every edit.
 */
export function lspOptions(model: string): { model?: string } {
  return model.trim() ? { model: model.trim() } : {};
}

export type InterpreterSource = 'setting' | 'python-extension' | 'default';

export interface InterpreterChoice {
  path: string;
  source: InterpreterSource;
}

export interface InterpreterInputs {
  /** `neuralDebugger.pythonPath`; empty or blank means not set. */
  setting?: string;
  /** The Python extension's active interpreter, when that extension is installed and has one. */
  pythonExtension?: string;
  platform: string;
  workspaceFolder?: string;
  home?: string;
}

/** `${workspaceFolder}` and a leading `~` in a configured path. */
export function expandPath(path: string, workspaceFolder?: string, home?: string): string {
  let result = path.trim();
  if (workspaceFolder) result = result.split('${workspaceFolder}').join(workspaceFolder);
  if (home && (result === '~' || result.startsWith('~/') || result.startsWith('~\\'))) {
    result = home + result.slice(1);
  }
  return result;
}

/** The setting first, then the Python extension's interpreter, then python3 (python on Windows). */
export function pickInterpreter(inputs: InterpreterInputs): InterpreterChoice {
  const setting = inputs.setting?.trim();
  if (setting) {
    return { path: expandPath(setting, inputs.workspaceFolder, inputs.home), source: 'setting' };
  }
  const fromExtension = inputs.pythonExtension?.trim();
  if (fromExtension) return { path: fromExtension, source: 'python-extension' };
  return { path: inputs.platform === 'win32' ? 'python' : 'python3', source: 'default' };
}

export function describeSource(choice: InterpreterChoice): string {
  switch (choice.source) {
    case 'setting':
      return 'the setting neuralDebugger.pythonPath';
    case 'python-extension':
      return "the Python extension's active interpreter";
    default:
      return 'the default (no neuralDebugger.pythonPath, no Python extension interpreter)';
  }
}
