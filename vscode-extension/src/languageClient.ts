// The neural-debugger language server (`python -m neural_debugger lsp`, stdio) as a language
// client for Python files. Started when a Python file is open and the setting
// neuralDebugger.languageServer.enabled is on; a server that cannot start gives one warning and
// nothing else breaks (debugging does not need it).
import * as vscode from 'vscode';
import type { LanguageClient } from 'vscode-languageclient/node';
import { describeSource, LSP_ARGS, lspOptions } from './core/interpreter';
import { describeProbe, probeInterpreter } from './core/probe';
import { resolveInterpreter } from './interpreter';
import { languageServerEnabled, SECTION, sessionSettings } from './settings';

const MAX_RESTARTS = 3;
const RESTART_WINDOW_MS = 3 * 60 * 1000;

export class NeuralLanguageClient implements vscode.Disposable {
  private client: LanguageClient | undefined;
  private busy: Promise<void> = Promise.resolve();
  /** Set when a start failed: opening more Python files does not retry; a settings change does. */
  private gaveUp = false;
  private readonly output = vscode.window.createOutputChannel('Neural Debugger Language Server');

  /**
   * Starts, stops or restarts the client so that it matches the settings and the open files;
   * `restart` (a settings change) also retries after a failed start.
   */
  sync(restart = false): Promise<void> {
    this.busy = this.busy.then(async () => {
      const wanted = languageServerEnabled() && vscode.workspace.textDocuments.some(isPython);
      if (this.client && (restart || !wanted)) await this.stop();
      if (restart) this.gaveUp = false;
      if (!this.client && wanted && !this.gaveUp) await this.start();
    });
    return this.busy;
  }

  get running(): boolean {
    return this.client !== undefined;
  }

  private async start(): Promise<void> {
    const folder = vscode.workspace.workspaceFolders?.[0];
    const python = await resolveInterpreter(folder);
    const probe = await probeInterpreter(python.path, { cwd: folder?.uri.fsPath });
    if (probe.kind !== 'ok') {
      this.warn(describeProbe(probe, python.path, describeSource(python)));
      return;
    }
    if (!probe.lsp) {
      this.warn(
        `the neural_debugger ${probe.version} that ${python.path} imports has no language server ` +
          '(neural_debugger.lsp); update the installation.',
      );
      return;
    }
    const lc = await import('vscode-languageclient/node');
    let failed = false;
    const restarts: number[] = [];
    const client = new lc.LanguageClient(
      'neuralDebugger',
      'Neural Debugger',
      {
        command: python.path,
        args: LSP_ARGS,
        // No `transport`: with TransportKind.stdio the client appends `--stdio`, which `ndb lsp`
        // does not take; without one it talks over the process's stdin/stdout all the same.
        options: folder ? { cwd: folder.uri.fsPath } : {},
      },
      {
        documentSelector: [
          { scheme: 'file', language: 'python' },
          { scheme: 'untitled', language: 'python' },
        ],
        initializationOptions: lspOptions(sessionSettings(folder).model),
        outputChannel: this.output,
        revealOutputChannelOn: lc.RevealOutputChannelOn.Never,
        initializationFailedHandler: () => false,
        errorHandler: {
          error: () => ({ action: lc.ErrorAction.Continue, handled: true }),
          closed: () => {
            const now = Date.now();
            while (restarts.length && now - restarts[0] > RESTART_WINDOW_MS) restarts.shift();
            if (!failed && client.isRunning() && restarts.length < MAX_RESTARTS) {
              restarts.push(now);
              return { action: lc.CloseAction.Restart, handled: true };
            }
            if (!failed) {
              failed = true;
              this.warn(`the server stopped (${python.path} ${LSP_ARGS.join(' ')}); see its output.`);
            }
            return { action: lc.CloseAction.DoNotRestart, handled: true };
          },
        },
      },
    );
    try {
      await client.start();
      this.client = client;
    } catch (error) {
      if (!failed) {
        failed = true;
        const reason = error instanceof Error ? error.message : String(error);
        this.warn(`${python.path} ${LSP_ARGS.join(' ')} could not start: ${reason}`);
      }
      await client.dispose(2000).catch(() => undefined);
    }
  }

  private async stop(): Promise<void> {
    const client = this.client;
    this.client = undefined;
    await client?.dispose(2000).catch(() => undefined);
  }

  private warn(reason: string): void {
    this.gaveUp = true;
    const text = reason.startsWith('Neural Debugger:') ? reason.slice('Neural Debugger: '.length) : reason;
    void vscode.window
      .showWarningMessage(
        `Neural Debugger: the language server is off: ${text} Debugging does not need it; ` +
          'turn neuralDebugger.languageServer.enabled off to stop trying.',
        'Show Output',
        'Turn Off',
      )
      .then((choice) => {
        if (choice === 'Show Output') this.output.show(true);
        if (choice === 'Turn Off') {
          void vscode.workspace
            .getConfiguration(SECTION)
            .update('languageServer.enabled', false, vscode.ConfigurationTarget.Global);
        }
      });
    this.output.appendLine(`[not started] ${reason}`);
  }

  async dispose(): Promise<void> {
    await this.busy.catch(() => undefined);
    await this.stop();
    this.output.dispose();
  }
}

function isPython(document: vscode.TextDocument): boolean {
  return document.languageId === 'python';
}

export function registerLanguageClient(context: vscode.ExtensionContext): NeuralLanguageClient {
  const client = new NeuralLanguageClient();
  context.subscriptions.push(
    client,
    vscode.workspace.onDidOpenTextDocument((document) => {
      if (isPython(document) && !client.running) void client.sync();
    }),
    vscode.workspace.onDidChangeConfiguration((event) => {
      if (
        event.affectsConfiguration(`${SECTION}.languageServer.enabled`) ||
        event.affectsConfiguration(`${SECTION}.pythonPath`) ||
        event.affectsConfiguration(`${SECTION}.model`)
      ) {
        void client.sync(true);
      }
    }),
  );
  void client.sync();
  return client;
}
