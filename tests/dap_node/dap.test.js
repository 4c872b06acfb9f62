'use strict';
// `python -m neural_debugger dap` over stdio, driven by VS Code's own test client (DebugClient).
// Every exact assertion uses the oracle backend, whose stops come from a real run; one test
// checks only the shape of a session on the embedded model.

const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const { afterEach, before, beforeEach, describe, it } = require('node:test');
const { DebugClient } = require('@vscode/debugadapter-testsupport');

const ROOT = path.resolve(__dirname, '..', '..');
const PYTHON = process.env.NDB_PYTHON || path.join(ROOT, '.venv', 'bin', 'python');
const ADAPTER = path.join(__dirname, 'ndb_dap.py'); // runs `-m neural_debugger dap`
const EXAMPLE = path.join(ROOT, 'examples', 'bubble_sort.py');
const BUBBLE_SORT = { program: EXAMPLE, entry: 'bubble_sort([3, 1, 2])', backend: 'oracle' };
const THREAD = { threadId: 1 };

let dc;
let capabilities; // the initialize response's body, from launch()

before(() => {
  assert.ok(fs.existsSync(PYTHON), `no Python at ${PYTHON}: run \`make setup\` or set NDB_PYTHON`);
});

beforeEach(async () => {
  const stderr = Boolean(process.env.NDB_DAP_STDERR); // set it to see the server's log
  dc = new DebugClient(PYTHON, ADAPTER, 'neural-python', { cwd: ROOT }, stderr);
  dc.defaultTimeout = 20000;
  await dc.start();
});

afterEach(() => dc.stop());

// ---- helpers ---------------------------------------------------------------------------------

/** As VS Code does: initialize, launch, initialized, setBreakpoints, configurationDone. */
async function launch(args, lines = [11]) {
  const init = await dc.initializeRequest({
    clientID: 'vscode',
    adapterID: 'neural-python',
    pathFormat: 'path',
    linesStartAt1: true,
    columnsStartAt1: true,
    supportsVariableType: true,
    supportsInvalidatedEvent: true,
  });
  capabilities = init.body;
  const initialized = dc.waitForEvent('initialized');
  // VS Code adds these fields to every launch; the server must ignore them
  await dc.launchRequest({ type: 'neural-python', request: 'launch', name: 'test', ...args });
  await initialized;
  const breakpoints = lines.map((line) => ({ line }));
  await dc.setBreakpointsRequest({ source: { path: EXAMPLE }, breakpoints });
  const stopped = dc.waitForEvent('stopped');
  await dc.configurationDoneRequest();
  return (await stopped).body;
}

/** Sends a request that moves the program, and returns the `stopped` event's body. */
async function move(command) {
  const stopped = dc.waitForEvent('stopped');
  await dc.send(command, THREAD);
  return (await stopped).body;
}

async function top() {
  return (await dc.stackTraceRequest(THREAD)).body.stackFrames[0];
}

async function scopes(frameId) {
  return (await dc.scopesRequest({ frameId: frameId ?? (await top()).id })).body.scopes;
}

async function children(variablesReference) {
  return (await dc.variablesRequest({ variablesReference })).body.variables;
}

/** The innermost frame's locals, by name. */
async function locals() {
  const scope = (await scopes()).find((s) => s.name === 'Locals');
  assert.ok(scope, 'a Locals scope');
  return Object.fromEntries((await children(scope.variablesReference)).map((v) => [v.name, v]));
}

// ---- tests -------------------------------------------------------------------------------------

describe('ndb dap through DebugClient (oracle backend)', () => {
  it('hits a breakpoint at bubble_sort.py:11', async () => {
    await dc.hitBreakpoint(BUBBLE_SORT, { path: EXAMPLE, line: 11 });
  });

  it('shows the stack, scopes and variables of the stop', async () => {
    const stop = await launch(BUBBLE_SORT);
    assert.equal(stop.reason, 'breakpoint');
    assert.deepEqual((await dc.threadsRequest()).body.threads, [{ id: 1, name: 'predicted run' }]);

    const trace = (await dc.stackTraceRequest(THREAD)).body;
    const [inner, outer] = trace.stackFrames;
    assert.deepEqual([inner.name, inner.line, inner.source.path], ['bubble_sort', 11, EXAMPLE]);
    assert.deepEqual([outer.name, outer.source.name], ['main', '<entry>']); // the entry call
    assert.equal(trace.totalFrames, 2);
    const first = (await dc.stackTraceRequest({ ...THREAD, startFrame: 0, levels: 1 })).body;
    assert.equal(first.stackFrames.length, 1); // VS Code's delayed loading asks for one frame first

    const vars = await locals();
    assert.equal(vars.swaps.value, '0');
    assert.equal(vars.swaps.variablesReference, 0);
    assert.equal(vars.items.value, '[3, 1, 2]');
    assert.ok(vars.result.variablesReference > 0, 'a list has children');
    const items = await children(vars.result.variablesReference);
    assert.deepEqual(items.map((v) => [v.name, v.value]), [['0', '1'], ['1', '3'], ['2', '2']]);
  });

  it('steps with next, stepIn, stepOut and stepBack', async () => {
    await launch(BUBBLE_SORT);
    assert.equal(capabilities.supportsStepBack, true);

    assert.equal((await move('next')).reason, 'step');
    assert.equal((await top()).line, 8);
    assert.equal((await locals()).swaps.value, '1');

    assert.equal((await move('stepBack')).reason, 'step');
    assert.equal((await top()).line, 11, 'back to the previous line');
    assert.equal((await locals()).swaps.value, '0');

    await move('stepIn');
    assert.equal((await top()).line, 8);

    // as debugpy: a breakpoint on the way stops a stepOut; without it, out into the caller
    await dc.setBreakpointsRequest({ source: { path: EXAMPLE }, breakpoints: [] });
    await move('stepOut');
    const frame = await top();
    assert.deepEqual([frame.name, frame.line, frame.source.name], ['main', 2, '<entry>']);
    const [shown] = await scopes(frame.id);
    assert.equal(shown.name, 'Locals');
    const values = await children(shown.variablesReference);
    assert.deepEqual(values.map((v) => [v.name, v.value]), [['(return) bubble_sort', '[1, 2, 3]']]);
  });

  it('steps into the call from the entry', async () => {
    const entry = await launch({ ...BUBBLE_SORT, stopOnEntry: true }, []);
    assert.equal(entry.reason, 'entry');
    const call = await top(); // as debugpy: the first line that runs, the entry call
    assert.deepEqual([call.name, call.line], ['main', 2]);
    await move('stepIn'); // into the call: the first line of its body
    const trace = (await dc.stackTraceRequest(THREAD)).body.stackFrames;
    assert.deepEqual(trace.map((f) => [f.name, f.line]), [['bubble_sort', 5], ['main', 2]]);
  });

  it('evaluates expressions, and refuses unsafe ones with an error response', async () => {
    await launch(BUBBLE_SORT);
    const frameId = (await top()).id;
    const answer = await dc.evaluateRequest({ expression: 'len(items)', frameId, context: 'repl' });
    assert.equal(answer.body.result, '3');
    await assert.rejects(
      dc.evaluateRequest({ expression: "__import__('os')", frameId, context: 'repl' }),
      /calling '__import__' is not allowed/,
    );
  });

  it('sets a variable and sends invalidated', async () => {
    await launch(BUBBLE_SORT);
    const scope = (await scopes()).find((s) => s.name === 'Locals');
    const invalidated = dc.waitForEvent('invalidated');
    const edit = await dc.setVariableRequest({
      variablesReference: scope.variablesReference,
      name: 'swaps',
      value: '5',
    });
    assert.equal(edit.body.value, '5');
    assert.deepEqual((await invalidated).body.areas, ['variables']);
    assert.equal((await locals()).swaps.value, '5');
  });

  it('continues to the end: exited, then terminated', async () => {
    await launch(BUBBLE_SORT);
    await dc.setBreakpointsRequest({ source: { path: EXAMPLE }, breakpoints: [] });
    const exited = dc.waitForEvent('exited');
    const terminated = dc.waitForEvent('terminated');
    await dc.continueRequest(THREAD);
    assert.equal((await exited).body.exitCode, 0);
    await terminated;
  });

  it('fails to launch a missing file, with a clear message', async () => {
    const missing = path.join(ROOT, 'examples', 'no_such_program.py');
    await assert.rejects(dc.launch({ ...BUBBLE_SORT, program: missing }), {
      message: `no such file: ${missing}`,
    });
  });
});

describe('ndb dap through DebugClient (embedded model)', () => {
  it('predicts stops of the right shape', { timeout: 120000 }, async () => {
    dc.defaultTimeout = 60000; // loading the model and predicting on a CPU
    const entry = await launch({ ...BUBBLE_SORT, backend: 'local', stopOnEntry: true }, []);
    assert.equal(entry.reason, 'entry');
    assert.match(entry.description, /^Predicted /);
    const frames = (await dc.stackTraceRequest(THREAD)).body.stackFrames;
    assert.ok(frames.length > 0 && frames.every((f) => Number.isInteger(f.line)));

    for (let step = 0; step < 3; step++) { // the model may predict the end at any step
      const next = new Promise((resolve) => {
        for (const name of ['stopped', 'exited']) dc.once(name, resolve);
      });
      await dc.stepInRequest(THREAD);
      const event = await next;
      if (event.event === 'exited') break;
      assert.match(event.body.description, /^Predicted .* sure\)$/);
      for (const scope of await scopes()) {
        for (const variable of await children(scope.variablesReference)) {
          assert.match(variable.type, / · (<1%|>99%|\d{1,3}%) sure$/, variable.name);
        }
      }
    }
  });
});
