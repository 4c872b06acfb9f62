import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  applySettings,
  configForFile,
  inverseConfig,
  isEmptyConfig,
  NeuralConfig,
  NeuralSettings,
  oracleConfig,
  statusOf,
  validate,
} from '../src/core/debugConfig';

const SETTINGS: NeuralSettings = { backend: 'local', model: '', vllmUrl: '' };

describe('configurations', () => {
  it('recognises F5 without launch.json', () => {
    assert.equal(isEmptyConfig({}), true);
    assert.equal(isEmptyConfig({ type: 'neural-python', request: 'launch', name: 'x' }), false);
  });

  it('makes a script session for the active file, stopping on entry', () => {
    assert.deepEqual(configForFile('/w/a.py', '/w'), {
      type: 'neural-python',
      request: 'launch',
      name: 'Neural: current file (predicted)',
      program: '/w/a.py',
      stopOnEntry: true,
      cwd: '/w',
    });
    assert.equal('cwd' in configForFile('/a.py'), false);
  });

  it('fills the backend, model and vLLM URL from the settings; the configuration wins', () => {
    const base = configForFile('/w/a.py');
    assert.equal(applySettings(base, SETTINGS).backend, 'local');
    assert.equal('model' in applySettings(base, SETTINGS), false);
    const fromSettings = applySettings(base, { backend: 'vllm', model: 'models/m', vllmUrl: 'http://h:8000' });
    assert.deepEqual([fromSettings.backend, fromSettings.model, fromSettings.vllmUrl], ['vllm', 'models/m', 'http://h:8000']);
    const own = applySettings({ ...base, backend: 'oracle', model: '/m' }, { backend: 'vllm', model: 'x', vllmUrl: 'http://h' });
    assert.deepEqual([own.backend, own.model, own.vllmUrl], ['oracle', '/m', undefined]);
    const blanks = applySettings({ ...base, entry: '', inverse: '', model: '' }, SETTINGS);
    assert.equal('entry' in blanks || 'inverse' in blanks || 'model' in blanks, false);
  });

  it('makes an inverse session whose entry only names the function', () => {
    const config = inverseConfig('/w/a.py', 'running_total', '[3, 4, 6]', '/w');
    assert.equal(config.entry, 'running_total()');
    assert.equal(config.inverse, '[3, 4, 6]');
    assert.deepEqual(validate(applySettings(config, SETTINGS)), []);
  });

  it('turns a session into its real run: oracle, without decoding options or VS Code bookkeeping', () => {
    const live: NeuralConfig = {
      ...configForFile('/w/a.py'),
      entry: 'f(1)',
      model: '/m',
      temperature: 0.5,
      samples: 3,
      __sessionId: 'abc',
    };
    const real = oracleConfig(live, '/ignored.py');
    assert.equal(real.backend, 'oracle');
    assert.equal(real.entry, 'f(1)');
    assert.equal(real.program, '/w/a.py');
    assert.equal(real.name, 'Neural: current file (predicted) [real run]');
    for (const key of ['model', 'temperature', 'samples', '__sessionId']) assert.equal(key in real, false, key);
    assert.equal(oracleConfig(undefined, '/w/b.py', '/w').program, '/w/b.py');
  });
});

describe('validate', () => {
  const ok = applySettings(configForFile('/w/a.py'), SETTINGS);
  const problems = (change: Partial<NeuralConfig>) => validate({ ...ok, ...change });

  it('accepts a complete configuration', () => {
    assert.deepEqual(validate(ok), []);
    assert.deepEqual(problems({ entry: 'obj.f([1, 2])', temperature: 0.7, samples: 5, seed: 3, maxTokens: 1024, breakpointSteps: 0 }), []);
    assert.deepEqual(problems({ backend: 'vllm', vllmUrl: ['http://a:1', 'https://b'] }), []);
  });

  it('names each problem', () => {
    assert.match(problems({ program: '' })[0], /"program" is missing/);
    assert.match(problems({ backend: 'gpu' })[0], /choose local, vllm or oracle/);
    assert.match(problems({ entry: 'f(1)\ng(2)' })[0], /one line/);
    assert.match(problems({ entry: 'x + 1' })[0], /must be a call/);
    assert.match(problems({ inverse: '6' })[0], /needs "entry"/);
    assert.match(problems({ inverse: ' ', entry: 'f()' })[0], /return value/);
    assert.match(problems({ backend: 'vllm' })[0], /vllmUrl/);
    assert.match(problems({ backend: 'vllm', vllmUrl: 'h:8000' })[0], /vllmUrl/);
    assert.match(problems({ temperature: -1 })[0], /temperature/);
    assert.match(problems({ samples: 65 })[0], /samples/);
    assert.match(problems({ samples: 1.5 })[0], /samples/);
    assert.match(problems({ maxTokens: 0 })[0], /maxTokens/);
    assert.match(problems({ breakpointSteps: -1 })[0], /breakpointSteps/);
    assert.match(problems({ breakpointSteps: 501 })[0], /breakpointSteps/);
    assert.match(problems({ returnSteps: 2.5 })[0], /returnSteps/);
    assert.deepEqual(problems({ returnSteps: 0 }), []);
    assert.match(problems({ seed: 'x' as unknown as number })[0], /seed/);
    assert.equal(problems({ program: '', backend: 'gpu', samples: 0 }).length, 3);
  });
});

describe('statusOf', () => {
  it('names the backend and model, and says when the program is run', () => {
    assert.equal(statusOf({ ...configForFile('/a.py'), backend: 'local' }).text, '$(sparkle) ndb: local · ndb-small');
    assert.match(statusOf({ ...configForFile('/a.py'), backend: 'local' }).tooltip, /nothing is run/);
    assert.equal(statusOf({ ...configForFile('/a.py'), backend: 'vllm', model: '/models/big/' }).text, '$(sparkle) ndb: vllm · big');
    const inverse = statusOf({ ...inverseConfig('/a.py', 'f', '1'), backend: 'local' });
    assert.match(inverse.text, /inverse$/);
    const oracle = statusOf({ ...configForFile('/a.py'), backend: 'oracle' });
    assert.match(oracle.text, /oracle \(real run\)/);
    assert.match(oracle.tooltip, /run for real/);
  });
});
