// dist/extension.js activated against the fake `vscode` module: what it registers, the marker
// file, and its glue driven the way VS Code would drive it (F5, the adapter descriptor, the
// commands, the status bar, inline values, a language server that cannot start).
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, beforeEach, describe, it } from 'node:test';
import { editorAt, fire, folder, installFakeVscode, pythonDocument, Range, state } from './fakeVscode';
import { ADAPTER_ARGS } from '../src/core/interpreter';
import { DapClient } from './dapClient';
import { EXTENSION, NO_PYTHON, PYTHON, REPOSITORY } from './paths';

const SOURCE = [
  'def running_total(xs):',
  '    total = 0',
  '    out = []',
  '    for x in xs:',
  '        total += x',
  '        out.append(total)',
  '    return out',
  '',
  'print(running_total([1, 2]))',
].join('\n');
const FILE = join(REPOSITORY, 'examples', 'running_total.py');
const DOCUMENT = pythonDocument(FILE, SOURCE);
const MARKER = join(mkdtempSync(join(tmpdir(), 'ndb-activation-')), 'activated.json');

let extension: { activate(context: unknown): Promise<void>; deactivate(): Promise<void> };
const registered = (kind: string) => (state.registered[kind] ?? []) as unknown[][];
const provider = () => registered('configurationProvider')[0][1] as any;
const factory = () => registered('descriptorFactory')[0][1] as any;
const tick = () => new Promise((done) => setTimeout(done, 0));

before(async () => {
  assert.ok(existsSync(join(EXTENSION, 'dist', 'extension.js')), 'build first: npm run build');
  installFakeVscode();
  process.env.NDB_ACTIVATION_MARKER = MARKER;
  state.settings['neuralDebugger.languageServer.enabled'] = false;
  extension = require(join(EXTENSION, 'dist', 'extension.js'));
  await extension.activate({ subscriptions: [], extension: { id: 'neural-debugger.neural-debugger' } });
});

after(() => extension.deactivate());

beforeEach(() => {
  state.messages.length = 0;
  state.started.length = 0;
  state.answers.length = 0;
  for (const key of Object.keys(state.settings)) {
    if (key !== 'neuralDebugger.languageServer.enabled') delete state.settings[key];
  }
  state.activeTextEditor = editorAt(DOCUMENT, 4);
  state.activeDebugSession = undefined;
});

describe('activation', () => {
  it('writes the marker file the end-to-end test waits for', () => {
    const marker = JSON.parse(readFileSync(MARKER, 'utf8'));
    assert.equal(marker.debugType, 'neural-python');
    assert.deepEqual(marker.commands, ['neuralDebugger.predictInputs', 'neuralDebugger.compareWithRealRun']);
  });

  it('registers the debugger, inline values and both commands', () => {
    for (const kind of ['configurationProvider', 'descriptorFactory', 'trackerFactory']) {
      assert.equal(registered(kind)[0][0], 'neural-python', kind);
    }
    assert.deepEqual(registered('inlineValuesProvider')[0][0], { language: 'python' });
    assert.ok(state.commands.has('neuralDebugger.predictInputs'));
    assert.ok(state.commands.has('neuralDebugger.compareWithRealRun'));
  });
});

describe('F5 and launch.json', () => {
  it('makes a configuration for the active Python file, with the settings filled in', () => {
    state.settings['neuralDebugger.model'] = 'models/other';
    const config = provider().resolveDebugConfiguration(folder, {});
    assert.deepEqual(config, {
      type: 'neural-python',
      request: 'launch',
      name: 'Neural: current file (predicted)',
      program: FILE,
      stopOnEntry: true,
      cwd: '/tmp',
      backend: 'local',
      model: 'models/other',
    });
  });

  it('debugs the call of the file\'s first `# ndb:` annotation on F5', () => {
    const annotated = pythonDocument(FILE, SOURCE.replace('def running_total(xs):', 'def running_total(xs):  # ndb: running_total([4, 5])'));
    state.activeTextEditor = editorAt(annotated, 0);
    const config = provider().resolveDebugConfiguration(folder, {});
    assert.deepEqual([config.name, config.entry, config.program], ['Neural: running_total([4, 5])', 'running_total([4, 5])', FILE]);
  });

  it('refuses F5 without a Python file, and a configuration that cannot start', async () => {
    state.activeTextEditor = undefined;
    assert.equal(provider().resolveDebugConfiguration(folder, {}), undefined);
    assert.match(state.messages[0].text, /open a Python file/);
    const bad = { type: 'neural-python', request: 'launch', name: 'bad', program: FILE, inverse: '6' };
    assert.equal(await provider().resolveDebugConfigurationWithSubstitutedVariables(folder, bad), undefined);
    assert.match(state.messages[1].text, /"bad" cannot start.*needs "entry"/);
  });

  it('stops a session whose interpreter does not exist, saying so', async () => {
    state.settings['neuralDebugger.pythonPath'] = '/nonexistent/bin/python';
    const config = provider().resolveDebugConfiguration(folder, {});
    assert.equal(await provider().resolveDebugConfigurationWithSubstitutedVariables(folder, config), undefined);
    assert.equal(state.messages[0].level, 'error');
    assert.match(state.messages[0].text, /no Python interpreter at "\/nonexistent\/bin\/python" \(from the setting neuralDebugger.pythonPath\)/);
  });

  it('lets a session start with the project interpreter, unless its model is missing', { skip: NO_PYTHON }, async () => {
    state.settings['neuralDebugger.pythonPath'] = PYTHON;
    const config = provider().resolveDebugConfiguration(folder, {});
    assert.deepEqual(await provider().resolveDebugConfigurationWithSubstitutedVariables(folder, config), config);
    assert.equal(state.messages.length, 0);
    const missing = { ...config, model: '/nonexistent/model' };
    assert.equal(await provider().resolveDebugConfigurationWithSubstitutedVariables(folder, missing), undefined);
    assert.match(state.messages[0].text, /model folder \/nonexistent\/model does not exist/);
  });

  it('asks before a configuration on the oracle backend runs the program, unless asked already', async () => {
    state.settings['neuralDebugger.server'] = 'localhost:4711'; // no interpreter check
    const real = { type: 'neural-python', request: 'launch', name: 'real', program: FILE, backend: 'oracle' };
    state.answers.push(undefined); // Cancel
    assert.equal(await provider().resolveDebugConfigurationWithSubstitutedVariables(folder, real), undefined);
    assert.equal((state.messages[0].options as { modal: boolean }).modal, true);
    assert.match(state.messages[0].text, /Run running_total.py for real\?/);
    state.answers.push('Run It');
    assert.deepEqual(await provider().resolveDebugConfigurationWithSubstitutedVariables(folder, real), real);
    const confirmed = { ...real, realRunConfirmed: true };
    assert.deepEqual(await provider().resolveDebugConfigurationWithSubstitutedVariables(folder, confirmed), confirmed);
    assert.equal(state.messages.length, 2); // the confirmed one was not asked again
  });

  it('checks only the address when sessions go to a running server', async () => {
    state.settings['neuralDebugger.pythonPath'] = '/nonexistent/bin/python';
    state.settings['neuralDebugger.server'] = 'localhost:4711';
    const config = provider().resolveDebugConfiguration(folder, {});
    assert.deepEqual(await provider().resolveDebugConfigurationWithSubstitutedVariables(folder, config), config);
    state.settings['neuralDebugger.server'] = 'localhost';
    assert.equal(await provider().resolveDebugConfigurationWithSubstitutedVariables(folder, config), undefined);
    assert.match(state.messages[0].text, /neuralDebugger.server is wrong/);
  });
});

describe('the adapter descriptor', () => {
  it('starts `python -m neural_debugger dap` in the workspace folder', async () => {
    state.settings['neuralDebugger.pythonPath'] = '${workspaceFolder}/.venv/bin/python';
    const descriptor = await factory().createDebugAdapterDescriptor({ workspaceFolder: folder });
    assert.deepEqual(
      [descriptor.constructor.name, descriptor.command, descriptor.args, descriptor.options],
      ['DebugAdapterExecutable', '/tmp/.venv/bin/python', ['-m', 'neural_debugger', 'dap'], { cwd: '/tmp' }],
    );
  });

  it('connects to neuralDebugger.server when it is set', async () => {
    state.settings['neuralDebugger.server'] = '4711';
    const descriptor = await factory().createDebugAdapterDescriptor({ workspaceFolder: folder });
    assert.deepEqual([descriptor.constructor.name, descriptor.port, descriptor.host], ['DebugAdapterServer', 4711, '127.0.0.1']);
    state.settings['neuralDebugger.server'] = 'nowhere:';
    await assert.rejects(factory().createDebugAdapterDescriptor({ workspaceFolder: folder }), /not host:port/);
  });
});

describe('commands', () => {
  it('predicts the inputs of the function at the cursor with an inverse session', async () => {
    state.settings['neuralDebugger.backend'] = 'oracle'; // gives way to local: the oracle cannot predict
    state.answers.push(' [1, 3] ');
    assert.equal(await state.commands.get('neuralDebugger.predictInputs')!(), true);
    const { config } = state.started[0];
    assert.deepEqual([config.entry, config.inverse, config.backend, config.program], ['running_total()', '[1, 3]', 'local', FILE]);
  });

  it('starts the call a code lens names (the language server passes a URI string)', async () => {
    const run = state.commands.get('neuralDebugger.debugEntry')!;
    assert.equal(await run(`file://${encodeURI(FILE)}`, ' running_total([1, 2]) '), true);
    const { config } = state.started[0];
    assert.deepEqual([config.program, config.entry, config.stopOnEntry], [FILE, 'running_total([1, 2])', true]);
    assert.equal(await run('untitled:Untitled-1', 'f()'), false);
    assert.match(state.messages[0].text, /no saved file/);
  });

  it('says so when the cursor is outside a function, or the value is not given', async () => {
    state.activeTextEditor = editorAt(DOCUMENT, 8);
    assert.equal(await state.commands.get('neuralDebugger.predictInputs')!(), false);
    assert.match(state.messages[0].text, /not inside a function/);
    state.activeTextEditor = editorAt(DOCUMENT, 1);
    state.answers.push(undefined); // Escape
    assert.equal(await state.commands.get('neuralDebugger.predictInputs')!(), false);
    assert.equal(state.started.length, 0);
  });

  it('asks, modally, before running the program for real; without a predicted session it starts one', async () => {
    state.answers.push(undefined); // Cancel
    assert.equal(await state.commands.get('neuralDebugger.compareWithRealRun')!(), false);
    assert.equal(state.started.length, 0);
    assert.equal((state.messages[0].options as { modal: boolean }).modal, true);
    assert.match(String((state.messages[0].options as { detail: string }).detail), /EXECUTES the program/);

    state.answers.push('Run It');
    assert.equal(await state.commands.get('neuralDebugger.compareWithRealRun')!(), true);
    const { config } = state.started[0];
    assert.deepEqual([config.name, config.backend, config.program, config.realRunConfirmed], ['Neural: current file (predicted) [real run]', 'oracle', FILE, true]);
  });

  it('marks where a predicted session diverged from the real run, after confirmation', { skip: NO_PYTHON }, async () => {
    // the active session is a real `ndb dap` with a predicted (embedded model) session
    const client = new DapClient(PYTHON, ADAPTER_ARGS, REPOSITORY);
    try {
      await client.request('initialize', { adapterID: 'neural-python', linesStartAt1: true });
      const launched = client.request('launch', { program: FILE, entry: 'running_total([3, 1, 2])', backend: 'local', stopOnEntry: true });
      await client.event('initialized');
      await client.request('configurationDone');
      assert.equal((await launched).success, true);
      await client.event('stopped', 120000);
      for (let i = 0; i < 3; i++) {
        const stopped = client.event('stopped', 120000);
        await client.request('stepIn', { threadId: 1 });
        await stopped;
      }
      let asked = 0;
      state.activeDebugSession = {
        type: 'neural-python',
        workspaceFolder: folder,
        configuration: { type: 'neural-python', request: 'launch', name: 'mine', program: FILE, entry: 'running_total([3, 1, 2])', backend: 'local', __sessionId: 'x' },
        customRequest: async (command: string, args?: unknown) => {
          asked++;
          const answer = await client.request(command, args);
          if (!answer.success) throw new Error(answer.message);
          return answer.body;
        },
      };
      const editor = editorAt(DOCUMENT, 4);
      state.visibleTextEditors = [editor];

      state.answers.push(undefined); // Cancel: nothing runs, nothing is asked of the server
      assert.equal(await state.commands.get('neuralDebugger.compareWithRealRun')!(), false);
      assert.equal(asked, 0);

      state.answers.push('Run It');
      assert.equal(await state.commands.get('neuralDebugger.compareWithRealRun')!(), true);
      assert.equal(asked, 1);
      assert.equal(state.started.length, 0); // compared in place, no second session
      const summary = state.messages.at(-1)!;
      assert.equal(summary.level, 'info');
      // the same comparison straight from the server: the marks must say what it says
      const truth = (await client.request('compareWithRealRun')).body;
      const lines = new Set<number>(truth.divergences.filter((d: any) => d.path === FILE).map((d: any) => d.line - 1));
      assert.match(summary.text, new RegExp(`${truth.wrongStops} of ${truth.compared} predicted stops|All ${truth.compared} predicted stops agree`));
      const diagnostics = state.diagnostics.get(FILE) ?? [];
      assert.deepEqual(diagnostics.map((d) => d.range.start.line), [...lines].sort((a, b) => a - b));
      for (const diagnostic of diagnostics) {
        assert.equal(diagnostic.source, 'Neural Debugger (real run)');
        assert.match(diagnostic.message, /^Stop \d+ /);
      }
      const decorations = [...editor.decorations.values()].at(-1) ?? [];
      assert.equal(decorations.length, diagnostics.length);
      for (const decoration of decorations) assert.match(decoration.renderOptions.after.contentText, /^✗ /);

      fire('changeTextDocument', { document: DOCUMENT, contentChanges: [{ text: 'x' }] }); // the marks go stale
      assert.equal(state.diagnostics.size, 0);
    } finally {
      state.visibleTextEditors = [];
      await client.close();
    }
  });
});

describe('status bar, inline values, tracker', () => {
  it('names the backend and model of the active neural session only', () => {
    const item = state.statusItems[0];
    fire('changeActiveDebugSession', { type: 'neural-python', configuration: { backend: 'local', model: '/m/ndb-big' } });
    assert.deepEqual([item.visible, item.text], [true, '$(sparkle) ndb: local · ndb-big']);
    fire('changeActiveDebugSession', { type: 'debugpy', configuration: {} });
    assert.equal(item.visible, false);
  });

  it('looks up the names from the stopped function down to the stopped line', () => {
    const inline = registered('inlineValuesProvider')[0][1] as any;
    const context = { frameId: 1, stoppedLocation: new Range(4, 8, 4, 18) };
    assert.equal(inline.provideInlineValues(DOCUMENT, new Range(0, 0, 8, 0), context), undefined); // not a neural session
    state.activeDebugSession = { type: 'neural-python', configuration: {} };
    const values = inline.provideInlineValues(DOCUMENT, new Range(0, 0, 8, 0), context);
    assert.deepEqual(
      values.map((v: any) => `${v.range.start.line}:${v.variableName}`),
      ['0:xs', '1:total', '2:out', '3:x', '3:xs', '4:total', '4:x'],
    );
  });

  it('surfaces a launch that failed on the model', async () => {
    const tracker = (registered('trackerFactory')[0][1] as any).createDebugAdapterTracker({ type: 'neural-python' });
    tracker.onDidSendMessage({ type: 'response', command: 'launch', success: false, message: 'model folder /m does not exist' });
    tracker.onDidSendMessage({ type: 'response', command: 'launch', success: false, message: 'no such file: a.py' });
    assert.equal(state.messages.length, 1);
    assert.match(state.messages[0].text, /model could not be loaded: model folder \/m does not exist/);
  });
});

describe('the language client', () => {
  it('fails softly, with one warning, when its interpreter cannot run the server', async () => {
    state.settings['neuralDebugger.languageServer.enabled'] = true;
    state.settings['neuralDebugger.pythonPath'] = '/nonexistent/bin/python';
    state.textDocuments = [DOCUMENT];
    fire('changeConfiguration', { affectsConfiguration: (key: string) => key === 'neuralDebugger.languageServer.enabled' });
    for (let i = 0; i < 50 && state.messages.length === 0; i++) await new Promise((done) => setTimeout(done, 20));
    assert.equal(state.messages.length, 1);
    assert.equal(state.messages[0].level, 'warning');
    assert.match(state.messages[0].text, /language server is off: no Python interpreter.*Debugging does not need it/);
    fire('openTextDocument', DOCUMENT); // another Python file: no new attempt, no new warning
    await tick();
    await new Promise((done) => setTimeout(done, 100));
    assert.equal(state.messages.length, 1);
    state.settings['neuralDebugger.languageServer.enabled'] = false;
    state.textDocuments = [];
  });
});
