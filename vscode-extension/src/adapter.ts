// Starting the debug adapter: `python -m neural_debugger dap` over stdio, or a connection to a
// running `ndb dap --port N` when neuralDebugger.server is set; and the check, before a session
// starts, that the interpreter can run it and the model exists.
import * as vscode from 'vscode';
import { NeuralConfig } from './core/debugConfig';
import { parseHostPort } from './core/hostPort';
import { ADAPTER_ARGS, describeSource } from './core/interpreter';
import { describeProbe, modelProblem, probeInterpreter } from './core/probe';
import { resolveInterpreter } from './interpreter';
import { openSettings, serverSetting } from './settings';

export class NeuralAdapterFactory implements vscode.DebugAdapterDescriptorFactory {
  async createDebugAdapterDescriptor(
    session: vscode.DebugSession,
  ): Promise<vscode.DebugAdapterDescriptor> {
    const server = serverSetting();
    if (server) {
      const where = parseHostPort(server);
      if ('error' in where) throw new Error(`neuralDebugger.server: ${where.error}`);
      return new vscode.DebugAdapterServer(where.port, where.host);
    }
    const python = await resolveInterpreter(session.workspaceFolder);
    const cwd = session.workspaceFolder?.uri.fsPath;
    return new vscode.DebugAdapterExecutable(python.path, ADAPTER_ARGS, cwd ? { cwd } : {});
  }
}

/**
 * True when a session with this configuration can start; otherwise an error notification says
 * why (no Python, neural_debugger not importable, missing model, a bad server address) and
 * offers the way out. A session on a running server (neuralDebugger.server) checks the address
 * only: the interpreter and the model are that server's.
 */
export async function checkPrerequisites(
  config: NeuralConfig,
  folder: vscode.WorkspaceFolder | undefined,
): Promise<boolean> {
  const server = serverSetting();
  if (server) {
    const where = parseHostPort(server);
    if ('error' in where) {
      void showProblem(`Neural Debugger: the setting neuralDebugger.server is wrong: ${where.error}.`);
      return false;
    }
    return true;
  }
  const python = await resolveInterpreter(folder);
  const probe = await vscode.window.withProgress(
    { location: vscode.ProgressLocation.Window, title: 'Neural Debugger: checking the interpreter' },
    () => probeInterpreter(python.path, { cwd: folder?.uri.fsPath }),
  );
  if (probe.kind !== 'ok') {
    void showProblem(describeProbe(probe, python.path, describeSource(python)), true);
    return false;
  }
  const cwd = config.cwd ?? folder?.uri.fsPath;
  const missing = modelProblem(config, probe.defaultModel, cwd);
  if (missing) {
    void showProblem(missing);
    return false;
  }
  return true;
}

async function showProblem(message: string, offerInterpreter = false): Promise<void> {
  const actions = ['Open Settings'];
  const pythonExtension = vscode.extensions.getExtension('ms-python.python') !== undefined;
  if (offerInterpreter && pythonExtension) actions.push('Select Interpreter');
  const choice = await vscode.window.showErrorMessage(message, ...actions);
  if (choice === 'Open Settings') openSettings();
  if (choice === 'Select Interpreter') void vscode.commands.executeCommand('python.setInterpreter');
}
