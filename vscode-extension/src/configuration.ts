// F5 and launch.json: a configuration for the active Python file when there is none (the call of
// its first `# ndb: CALL` annotation, or the whole script), the settings' backend and model filled
// in, the configuration checked, then the interpreter. A configuration on the oracle backend runs
// the program, so it starts only after the user confirms (the compare command asked already).
import * as vscode from 'vscode';
import { applySettings, configForFile, isEmptyConfig, NeuralConfig, validate } from './core/debugConfig';
import { checkPrerequisites } from './adapter';
import { entryAnnotation } from './core/python';
import { confirmRealRun } from './realRun';
import { sessionSettings } from './settings';

export class NeuralConfigurationProvider implements vscode.DebugConfigurationProvider {
  resolveDebugConfiguration(
    folder: vscode.WorkspaceFolder | undefined,
    debugConfiguration: vscode.DebugConfiguration,
  ): vscode.DebugConfiguration | undefined {
    let config = debugConfiguration as NeuralConfig;
    if (isEmptyConfig(config)) {
      const editor = vscode.window.activeTextEditor;
      if (!editor || editor.document.languageId !== 'python') {
        void vscode.window.showErrorMessage(
          'Neural Debugger: open a Python file to debug it, or add a "neural-python" configuration to launch.json.',
        );
        return undefined;
      }
      const file = editor.document.uri;
      const owner = vscode.workspace.getWorkspaceFolder(file) ?? folder;
      config = configForFile(file.fsPath, owner?.uri.fsPath);
      const entry = entryAnnotation(editor.document.getText().split(/\r?\n/));
      if (entry) Object.assign(config, { entry, name: `Neural: ${entry}` });
    }
    return applySettings(config, sessionSettings(folder));
  }

  async resolveDebugConfigurationWithSubstitutedVariables(
    folder: vscode.WorkspaceFolder | undefined,
    debugConfiguration: vscode.DebugConfiguration,
  ): Promise<vscode.DebugConfiguration | undefined> {
    const config = debugConfiguration as NeuralConfig;
    const problems = validate(config);
    if (problems.length > 0) {
      void vscode.window.showErrorMessage(
        `Neural Debugger: the launch configuration "${config.name}" cannot start. ${problems.join(' ')}`,
      );
      return undefined;
    }
    if (config.backend === 'oracle' && config.realRunConfirmed !== true) {
      const consequence = 'This configuration names the oracle backend: every stop comes from that real run.';
      if (!(await confirmRealRun(config.program ?? '', config.entry, consequence))) return undefined;
    }
    return (await checkPrerequisites(config, folder)) ? debugConfiguration : undefined;
  }
}
