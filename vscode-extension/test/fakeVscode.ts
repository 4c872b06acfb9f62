// A stand-in for the `vscode` module, just wide enough to activate dist/extension.js in plain
// Node and drive its glue: registrations are recorded, settings and answers to prompts are
// scripted, shown messages are kept. Not VS Code: it checks the wiring, not the editor.
import Module from 'node:module';

type Listener = (...args: any[]) => unknown;

export interface FakeState {
  settings: Record<string, unknown>;
  registered: Record<string, unknown[]>;
  commands: Map<string, Listener>;
  messages: { level: 'error' | 'warning' | 'info'; text: string; options?: unknown }[];
  /** Answers for showErrorMessage/showWarningMessage/showInputBox, taken in order. */
  answers: (string | undefined)[];
  started: { folder: unknown; config: Record<string, any> }[];
  statusItems: { text: string; tooltip: string; visible: boolean }[];
  listeners: Record<string, Listener[]>;
  activeTextEditor: unknown;
  activeDebugSession: unknown;
  textDocuments: unknown[];
  /** Diagnostics by file path, as the extension last set them. */
  diagnostics: Map<string, Diagnostic[]>;
  visibleTextEditors: unknown[];
}

export const state: FakeState = {
  settings: {},
  registered: {},
  commands: new Map(),
  messages: [],
  answers: [],
  started: [],
  statusItems: [],
  listeners: {},
  activeTextEditor: undefined,
  activeDebugSession: undefined,
  textDocuments: [],
  diagnostics: new Map(),
  visibleTextEditors: [],
};

const disposable = { dispose() {} };

function record(kind: string) {
  return (...args: unknown[]) => {
    (state.registered[kind] ??= []).push(args);
    return disposable;
  };
}

function event(name: string) {
  return (listener: Listener) => {
    (state.listeners[name] ??= []).push(listener);
    return disposable;
  };
}

export function fire(name: string, ...args: unknown[]): void {
  for (const listener of state.listeners[name] ?? []) listener(...args);
}

function message(level: 'error' | 'warning' | 'info') {
  return async (text: string, ...rest: unknown[]) => {
    const options = typeof rest[0] === 'object' ? rest[0] : undefined;
    state.messages.push({ level, text, options });
    return state.answers.shift();
  };
}

export class Uri {
  constructor(
    readonly scheme: string,
    readonly fsPath: string,
  ) {}
  static file(path: string): Uri {
    return new Uri('file', path);
  }
  static parse(text: string): Uri {
    const found = /^([a-z][\w+.-]*):(?:\/\/[^/]*)?(.*)$/i.exec(text);
    if (!found) throw new Error(`not a URI: ${text}`);
    return new Uri(found[1], decodeURIComponent(found[2]));
  }
}

export class Position {
  constructor(
    readonly line: number,
    readonly character: number,
  ) {}
}

export class Range {
  readonly start: Position;
  readonly end: Position;
  constructor(startLine: number, startCharacter: number, endLine: number, endCharacter: number) {
    this.start = new Position(startLine, startCharacter);
    this.end = new Position(endLine, endCharacter);
  }
}

export class DebugAdapterExecutable {
  constructor(
    readonly command: string,
    readonly args: string[],
    readonly options?: { cwd?: string },
  ) {}
}

export class DebugAdapterServer {
  constructor(
    readonly port: number,
    readonly host?: string,
  ) {}
}

export class InlineValueVariableLookup {
  constructor(
    readonly range: Range,
    readonly variableName: string,
    readonly caseSensitiveLookup: boolean,
  ) {}
}

export class ThemeColor {
  constructor(readonly id: string) {}
}

export class MarkdownString {
  constructor(readonly value: string) {}
}

export class Location {
  constructor(
    readonly uri: Uri,
    readonly range: Range,
  ) {}
}

export class DiagnosticRelatedInformation {
  constructor(
    readonly location: Location,
    readonly message: string,
  ) {}
}

export class Diagnostic {
  source?: string;
  code?: string;
  relatedInformation?: DiagnosticRelatedInformation[];
  constructor(
    readonly range: Range,
    readonly message: string,
    readonly severity: number,
  ) {}
}

function diagnosticCollection() {
  return {
    set: (uri: Uri, diagnostics: Diagnostic[]) => state.diagnostics.set(uri.fsPath, diagnostics),
    clear: () => state.diagnostics.clear(),
    dispose() {},
  };
}

export const fake = {
  Uri,
  Position,
  Range,
  DebugAdapterExecutable,
  DebugAdapterServer,
  InlineValueVariableLookup,
  ThemeColor,
  MarkdownString,
  Location,
  Diagnostic,
  DiagnosticRelatedInformation,
  DiagnosticSeverity: { Error: 0, Warning: 1, Information: 2, Hint: 3 },
  OverviewRulerLane: { Left: 1, Center: 2, Right: 4, Full: 7 },
  StatusBarAlignment: { Left: 1, Right: 2 },
  ProgressLocation: { SourceControl: 1, Window: 10, Notification: 15 },
  ConfigurationTarget: { Global: 1, Workspace: 2, WorkspaceFolder: 3 },
  workspace: {
    getConfiguration: (section: string) => ({
      get: (key: string, fallback: unknown) => state.settings[`${section}.${key}`] ?? fallback,
      update: async (key: string, value: unknown) => {
        state.settings[`${section}.${key}`] = value;
      },
    }),
    get workspaceFolders() {
      return [folder];
    },
    getWorkspaceFolder: () => folder,
    get textDocuments() {
      return state.textDocuments;
    },
    onDidOpenTextDocument: event('openTextDocument'),
    onDidChangeTextDocument: event('changeTextDocument'),
    onDidChangeConfiguration: event('changeConfiguration'),
  },
  window: {
    get activeTextEditor() {
      return state.activeTextEditor;
    },
    get visibleTextEditors() {
      return state.visibleTextEditors;
    },
    onDidChangeVisibleTextEditors: event('changeVisibleTextEditors'),
    createTextEditorDecorationType: (options: unknown) => ({ options, dispose() {} }),
    showErrorMessage: message('error'),
    showWarningMessage: message('warning'),
    showInformationMessage: message('info'),
    showInputBox: async (options: { validateInput?: (text: string) => unknown }) => {
      const answer = state.answers.shift();
      if (answer !== undefined && options.validateInput?.(answer)) return undefined;
      return answer;
    },
    createStatusBarItem: () => {
      const item = { text: '', tooltip: '', visible: false, name: '', show() { item.visible = true; }, hide() { item.visible = false; }, dispose() {} };
      state.statusItems.push(item);
      return item;
    },
    createOutputChannel: () => ({ appendLine() {}, show() {}, dispose() {} }),
    withProgress: (_options: unknown, task: (progress: unknown) => unknown) => task({ report() {} }),
  },
  debug: {
    registerDebugConfigurationProvider: record('configurationProvider'),
    registerDebugAdapterDescriptorFactory: record('descriptorFactory'),
    registerDebugAdapterTrackerFactory: record('trackerFactory'),
    onDidChangeActiveDebugSession: event('changeActiveDebugSession'),
    onDidStartDebugSession: event('startDebugSession'),
    onDidTerminateDebugSession: event('terminateDebugSession'),
    get activeDebugSession() {
      return state.activeDebugSession;
    },
    startDebugging: async (folder: unknown, config: Record<string, any>) => {
      state.started.push({ folder, config });
      return true;
    },
  },
  languages: {
    registerInlineValuesProvider: record('inlineValuesProvider'),
    createDiagnosticCollection: diagnosticCollection,
  },
  commands: {
    registerCommand: (id: string, run: Listener) => {
      state.commands.set(id, run);
      return disposable;
    },
    executeCommand: async (...args: unknown[]) => {
      (state.registered.executed ??= []).push(args);
    },
  },
  extensions: { getExtension: () => undefined },
};

export const folder = { uri: Uri.file('/tmp'), name: 'tmp', index: 0 };

/** Makes `require('vscode')` return the fake, for modules loaded from now on. */
export function installFakeVscode(): void {
  const loader = Module as unknown as { _resolveFilename: (request: string, ...rest: unknown[]) => string };
  const resolve = loader._resolveFilename;
  loader._resolveFilename = function (request: string, ...rest: unknown[]) {
    return request === 'vscode' ? 'vscode' : resolve.call(this, request, ...rest);
  };
  const cache = require.cache as Record<string, unknown>;
  cache['vscode'] = { id: 'vscode', filename: 'vscode', loaded: true, exports: fake };
}

/** A Python document as the extension reads it. */
export function pythonDocument(path: string, text: string) {
  return {
    uri: Uri.file(path),
    languageId: 'python',
    isUntitled: false,
    getText: () => text,
    lineCount: text.split('\n').length,
  };
}

/** An editor on `document` with the cursor on `line`; it keeps the decorations set on it. */
export function editorAt(document: ReturnType<typeof pythonDocument>, line: number) {
  const decorations = new Map<unknown, { range: Range; renderOptions?: any; hoverMessage?: MarkdownString }[]>();
  return {
    document,
    selection: { active: new Position(line, 0) },
    decorations,
    setDecorations: (type: unknown, ranges: { range: Range }[]) => decorations.set(type, ranges),
  };
}
