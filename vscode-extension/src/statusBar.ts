// A status bar item naming the backend and model of the active neural session; hidden when the
// active session is not one (or there is none).
import * as vscode from 'vscode';
import { DEBUG_TYPE, NeuralConfig, statusOf } from './core/debugConfig';

export function registerStatusBar(context: vscode.ExtensionContext): vscode.StatusBarItem {
  const item = vscode.window.createStatusBarItem('neuralDebugger.session', vscode.StatusBarAlignment.Left, 10);
  item.name = 'Neural Debugger session';
  const update = (session: vscode.DebugSession | undefined) => {
    if (session?.type !== DEBUG_TYPE) {
      item.hide();
      return;
    }
    const { text, tooltip } = statusOf(session.configuration as NeuralConfig);
    item.text = text;
    item.tooltip = tooltip;
    item.show();
  };
  context.subscriptions.push(
    item,
    vscode.debug.onDidChangeActiveDebugSession(update),
    vscode.debug.onDidStartDebugSession(() => update(vscode.debug.activeDebugSession)),
    vscode.debug.onDidTerminateDebugSession(() => update(vscode.debug.activeDebugSession)),
  );
  update(vscode.debug.activeDebugSession);
  return item;
}
