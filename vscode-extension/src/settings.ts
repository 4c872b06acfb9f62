// The `neuralDebugger.*` settings, read for a workspace folder (or the window).
import * as vscode from 'vscode';
import { BACKENDS, Backend, NeuralSettings } from './core/debugConfig';

export const SECTION = 'neuralDebugger';

export function sessionSettings(scope?: vscode.ConfigurationScope): NeuralSettings {
  const config = vscode.workspace.getConfiguration(SECTION, scope);
  const backend = config.get<string>('backend', 'local');
  return {
    backend: (BACKENDS as readonly string[]).includes(backend) ? (backend as Backend) : 'local',
    model: config.get<string>('model', '').trim(),
    vllmUrl: config.get<string>('vllmUrl', '').trim(),
  };
}

export function pythonPathSetting(scope?: vscode.ConfigurationScope): string {
  return vscode.workspace.getConfiguration(SECTION, scope).get<string>('pythonPath', '');
}

export function serverSetting(): string {
  return vscode.workspace.getConfiguration(SECTION).get<string>('server', '').trim();
}

export function languageServerEnabled(): boolean {
  return vscode.workspace.getConfiguration(SECTION).get<boolean>('languageServer.enabled', true);
}

export function openSettings(): void {
  void vscode.commands.executeCommand('workbench.action.openSettings', SECTION);
}
