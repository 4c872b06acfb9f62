import assert from 'node:assert/strict';
import { chmodSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { isModelFailure } from '../src/core/messages';
import { describeProbe, modelProblem, probeInterpreter, readProbe } from '../src/core/probe';
import { NO_PYTHON, PYTHON } from './paths';

/** An executable script standing in for a Python interpreter. */
function fakePython(body: string): string {
  const path = join(mkdtempSync(join(tmpdir(), 'ndb-probe-')), 'python');
  writeFileSync(path, `#!/bin/sh\n${body}\n`);
  chmodSync(path, 0o755);
  return path;
}

describe('probeInterpreter', () => {
  it('says when there is no interpreter', async () => {
    const probe = await probeInterpreter('/nonexistent/python3');
    assert.equal(probe.kind, 'no-python');
    assert.match(describeProbe(probe, '/nonexistent/python3', 'the setting'), /no Python interpreter at "\/nonexistent\/python3" \(from the setting\)/);
  });

  it('says when neural_debugger is not installed', async () => {
    const python = fakePython(`echo '{"python": "3.12.1", "error": "No module named neural_debugger"}'`);
    const probe = await probeInterpreter(python);
    assert.deepEqual(probe, { kind: 'not-installed', detail: 'No module named neural_debugger' });
    assert.match(describeProbe(probe, python, 'x'), /cannot import neural_debugger.*pip install -e/);
  });

  it('reads an importable package, its version and shipped model', async () => {
    const python = fakePython(`echo '{"python": "3.12.1", "version": "0.1.0", "defaultModel": "/r/models/ndb-small", "lsp": true}'`);
    assert.deepEqual(await probeInterpreter(python), {
      kind: 'ok',
      version: '0.1.0',
      defaultModel: '/r/models/ndb-small',
      pythonVersion: '3.12.1',
      lsp: true,
    });
    const older = fakePython(`echo '{"python": "3.11.2", "version": "0.0.9"}'`);
    assert.equal(((await probeInterpreter(older)) as { lsp: boolean }).lsp, false);
  });

  it('times out a hanging interpreter, and reports a crashing one', async () => {
    const hanging = await probeInterpreter(fakePython('sleep 5'), { timeoutMs: 300 });
    assert.equal(hanging.kind, 'timeout');
    const crashing = await probeInterpreter(fakePython('echo "SyntaxError: bad" >&2; exit 1'));
    assert.deepEqual(crashing, { kind: 'failed', detail: 'SyntaxError: bad' });
  });

  it('finds neural_debugger and the shipped model in the project interpreter', { skip: NO_PYTHON }, async () => {
    const probe = await probeInterpreter(PYTHON);
    assert.equal(probe.kind, 'ok', JSON.stringify(probe));
    if (probe.kind === 'ok') assert.match(probe.defaultModel ?? '', /models[\\/]ndb-small$/);
  });

  it('treats unreadable output as a failure', () => {
    assert.equal(readProbe(null, 'garbage', '', 1000).kind, 'failed');
  });
});

describe('modelProblem', () => {
  const exists = (paths: string[]) => (path: string) => paths.includes(path);

  it('checks the configured folder, relative to cwd, for the local backend only', () => {
    assert.equal(modelProblem({ backend: 'local', model: 'm' }, undefined, '/w', exists(['/w/m'])), undefined);
    assert.match(modelProblem({ model: 'm' }, undefined, '/w', exists([])) ?? '', /model folder \/w\/m does not exist/);
    assert.equal(modelProblem({ backend: 'vllm', model: 'm' }, undefined, '/w', exists([])), undefined);
    assert.equal(modelProblem({ backend: 'oracle' }, '/gone', '/w', exists([])), undefined);
  });

  it('checks the shipped model when none is configured', () => {
    assert.match(modelProblem({}, '/r/models/ndb-small', '/w', exists([])) ?? '', /shipped model is missing/);
    assert.equal(modelProblem({}, '/r/models/ndb-small', '/w', exists(['/r/models/ndb-small'])), undefined);
    assert.equal(modelProblem({}, undefined, '/w', exists([])), undefined);
  });
});

describe('isModelFailure', () => {
  it('picks failed launches about the model', () => {
    const launch = { type: 'response', command: 'launch', success: false };
    assert.equal(isModelFailure({ ...launch, message: 'model folder /x does not exist' }), true);
    assert.equal(isModelFailure({ ...launch, message: 'cannot load the model in /x: bad' }), true);
    assert.equal(isModelFailure({ ...launch, message: 'no such file: a.py' }), false);
    assert.equal(isModelFailure({ ...launch, success: true, message: 'model' }), false);
    assert.equal(isModelFailure({ type: 'response', command: 'next', success: false, message: 'model' }), false);
  });
});
