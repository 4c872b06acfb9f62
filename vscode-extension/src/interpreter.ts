// The interpreter for a workspace folder: the setting, else the Python extension's active one,
// else python3 (the order is core/interpreter.ts's pickInterpreter).
import * as os from 'node:os';
import * as vscode from 'vscode';
import { InterpreterChoice, pickInterpreter } from './core/interpreter';
import { pythonPathSetting } from './settings';

// The parts of the Python extension's exported API that are used, all optional: an older or
// newer extension that lacks them just means no interpreter from it.
interface PythonExtensionApi {
  environments?: {
    getActiveEnvironmentPath?(resource?: vscode.Uri): { path: string } | undefined;
    resolveEnvironment?(
      path: { path: string } | string,
    ): Promise<{ executable?: { uri?: vscode.Uri } } | undefined>;
  };
  settings?: {
    getExecutionDetails?(resource?: vscode.Uri): { execCommand?: string[] } | undefined;
  };
}

async function fromPythonExtension(resource?: vscode.Uri): Promise<string | undefined> {
  const extension = vscode.extensions.getExtension<PythonExtensionApi>('ms-python.python');
  if (!extension) return undefined;
  try {
    const api = extension.isActive ? extension.exports : await extension.activate();
    const active = api?.environments?.getActiveEnvironmentPath?.(resource);
    if (active) {
      const resolved = await api?.environments?.resolveEnvironment?.(active);
      return resolved?.executable?.uri?.fsPath ?? active.path;
    }
    return api?.settings?.getExecutionDetails?.(resource)?.execCommand?.[0];
  } catch {
    return undefined;
  }
}

export async function resolveInterpreter(folder?: vscode.WorkspaceFolder): Promise<InterpreterChoice> {
  const setting = pythonPathSetting(folder);
  return pickInterpreter({
    setting,
    pythonExtension: setting.trim() ? undefined : await fromPythonExtension(folder?.uri),
    platform: process.platform,
    workspaceFolder: folder?.uri.fsPath ?? vscode.workspace.workspaceFolders?.[0]?.uri.fsPath,
    home: os.homedir(),
  });
}
