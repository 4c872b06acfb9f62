// The configurations this extension makes, launched on the real server (`python -m
// neural_debugger dap`, started the way the adapter factory starts it). Skipped without the
// project's interpreter.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { applySettings, configForFile, inverseConfig, NeuralConfig, NeuralSettings } from '../src/core/debugConfig';
import { ADAPTER_ARGS } from '../src/core/interpreter';
import { isModelFailure } from '../src/core/messages';
import { DapClient } from './dapClient';
import { NO_PYTHON, PYTHON, REPOSITORY } from './paths';

const EXAMPLE = join(REPOSITORY, 'examples', 'running_total.py');
const LOCAL: NeuralSettings = { backend: 'local', model: '', vllmUrl: '' };

/** As VS Code does: initialize, launch, configurationDone; the launch response and first stop. */
async function start(config: NeuralConfig) {
  const client = new DapClient(PYTHON, ADAPTER_ARGS, REPOSITORY);
  const init = await client.request('initialize', {
    clientID: 'vscode',
    adapterID: 'neural-python',
    pathFormat: 'path',
    linesStartAt1: true,
    columnsStartAt1: true,
  });
  assert.equal(init.success, true);
  const initialized = client.event('initialized');
  const launched = client.request('launch', { ...config, __sessionId: 'test' });
  // The launch response may come before `initialized` or after `configurationDone`.
  const first = await Promise.race([launched, initialized]);
  if (first.type === 'response' && !first.success) return { client, launch: first, stop: undefined };
  const stopped = client.event('stopped', 120000);
  await initialized;
  await client.request('configurationDone');
  const launch = await launched;
  return { client, launch, stop: await stopped };
}

async function topFrame(client: DapClient) {
  const frames = (await client.request('stackTrace', { threadId: 1 })).body.stackFrames;
  const scopes = (await client.request('scopes', { frameId: frames[0].id })).body.scopes;
  const variables = (await client.request('variables', { variablesReference: scopes[0].variablesReference })).body.variables;
  return { name: frames[0].name, line: frames[0].line, locals: variables.map((v: { name: string }) => v.name) };
}

describe('the real server', { skip: NO_PYTHON }, () => {
  it('accepts a script session made for a file (oracle backend: exact stops)', async () => {
    const config = applySettings(configForFile(EXAMPLE, REPOSITORY), { ...LOCAL, backend: 'oracle' });
    const { client, launch, stop } = await start({ ...config, entry: 'running_total([3, 1, 2])' });
    try {
      assert.equal(launch.success, true, launch.message);
      assert.equal(stop?.body.reason, 'entry');
      assert.equal((await topFrame(client)).name, 'main'); // the server's wrapper of the entry call
      const stepped = client.event('stopped');
      await client.request('stepIn', { threadId: 1 });
      await stepped;
      // as debugpy steps in: the first line of the body, not the def line
      const frame = await topFrame(client);
      assert.deepEqual([frame.name, frame.line, frame.locals], ['running_total', 5, ['xs']]);
    } finally {
      await client.close();
    }
  });

  it('runs an inverse session whose entry only names the function (embedded model)', async () => {
    const config = applySettings(inverseConfig(EXAMPLE, 'running_total', '[3, 4, 6]', REPOSITORY), LOCAL);
    const { client, launch, stop } = await start(config);
    try {
      assert.equal(launch.success, true, launch.message);
      assert.match(stop?.body.description ?? '', /return at line 10, backwards/);
      assert.deepEqual((await topFrame(client)).locals, ['(return)']);
      const next = client.event('stopped', 120000);
      await client.request('continue', { threadId: 1 });
      await next;
      const inputs = await topFrame(client); // the def line, with the predicted argument
      assert.deepEqual([inputs.line, inputs.locals], [4, ['xs']]);
    } finally {
      await client.close();
    }
  });

  it('fails a launch on a missing model with a message the tracker recognises', async () => {
    const config = applySettings(configForFile(EXAMPLE, REPOSITORY), { ...LOCAL, model: '/nonexistent/model' });
    const { client, launch } = await start(config);
    try {
      assert.equal(launch.success, false);
      assert.equal(isModelFailure(launch), true, launch.message);
    } finally {
      await client.close();
    }
  });
});
