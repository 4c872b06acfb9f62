// Watches each neural session's messages for what the user should be told beyond VS Code's own
// error dialog: a launch that failed on the model (the server reports a missing or unloadable
// model when the launch asks for it), and an adapter that exited abnormally.
import * as vscode from 'vscode';
import { DEBUG_TYPE } from './core/debugConfig';
import { DapMessage, isModelFailure } from './core/messages';
import { openSettings } from './settings';

export class NeuralTrackerFactory implements vscode.DebugAdapterTrackerFactory {
  createDebugAdapterTracker(session: vscode.DebugSession): vscode.DebugAdapterTracker {
    let launched = false;
    return {
      onDidSendMessage: (message: DapMessage) => {
        if (message.type === 'response' && message.command === 'launch') launched = message.success === true;
        if (isModelFailure(message)) {
          void vscode.window
            .showErrorMessage(
              `Neural Debugger: the model could not be loaded: ${message.message}`,
              'Open Settings',
            )
            .then((choice) => choice && openSettings());
        }
      },
      onExit: (code: number | undefined) => {
        if (code && !launched && session.type === DEBUG_TYPE) {
          void vscode.window.showErrorMessage(
            `Neural Debugger: the debug adapter exited with code ${code} before the session started ` +
              '(try `python -m neural_debugger dap` in a terminal with the same interpreter to see why).',
          );
        }
      },
    };
  }
}
