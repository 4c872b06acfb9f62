// Activation: registers the debugger (configuration provider, adapter factory, tracker), the
// commands, the status bar item, inline values and the language client. With the environment
// variable NDB_ACTIVATION_MARKER set, writes that file once everything is registered (end-to-end
// tests wait for it).
import { promises as fs } from 'node:fs';
import * as vscode from 'vscode';
import { NeuralAdapterFactory } from './adapter';
import { COMPARE_WITH_REAL_RUN, PREDICT_INPUTS, registerCommands } from './commands';
import { NeuralConfigurationProvider } from './configuration';
import { DEBUG_TYPE } from './core/debugConfig';
import { NeuralInlineValues } from './inlineValues';
import { NeuralLanguageClient, registerLanguageClient } from './languageClient';
import { registerStatusBar } from './statusBar';
import { NeuralTrackerFactory } from './tracker';

let languageClient: NeuralLanguageClient | undefined;

export async function activate(context: vscode.ExtensionContext): Promise<void> {
  context.subscriptions.push(
    vscode.debug.registerDebugConfigurationProvider(DEBUG_TYPE, new NeuralConfigurationProvider()),
    vscode.debug.registerDebugAdapterDescriptorFactory(DEBUG_TYPE, new NeuralAdapterFactory()),
    vscode.debug.registerDebugAdapterTrackerFactory(DEBUG_TYPE, new NeuralTrackerFactory()),
    vscode.languages.registerInlineValuesProvider({ language: 'python' }, new NeuralInlineValues()),
  );
  registerCommands(context);
  registerStatusBar(context);
  languageClient = registerLanguageClient(context);

  const marker = process.env.NDB_ACTIVATION_MARKER;
  if (marker) {
    const report = {
      activated: new Date().toISOString(),
      extension: context.extension?.id,
      debugType: DEBUG_TYPE,
      commands: [PREDICT_INPUTS, COMPARE_WITH_REAL_RUN],
    };
    await fs.writeFile(marker, JSON.stringify(report) + '\n', 'utf8');
  }
}

export async function deactivate(): Promise<void> {
  await languageClient?.dispose();
  languageClient = undefined;
}
