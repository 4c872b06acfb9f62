import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseHostPort } from '../src/core/hostPort';
import { expandPath, pickInterpreter } from '../src/core/interpreter';

describe('parseHostPort', () => {
  it('reads host:port, a bare port, and bracketed IPv6', () => {
    assert.deepEqual(parseHostPort('4711'), { host: '127.0.0.1', port: 4711 });
    assert.deepEqual(parseHostPort(' :4711 '), { host: '127.0.0.1', port: 4711 });
    assert.deepEqual(parseHostPort('localhost:4711'), { host: 'localhost', port: 4711 });
    assert.deepEqual(parseHostPort('10.0.0.2:80'), { host: '10.0.0.2', port: 80 });
    assert.deepEqual(parseHostPort('[::1]:4711'), { host: '::1', port: 4711 });
  });

  it('rejects the rest with a reason', () => {
    for (const bad of ['', 'localhost', 'host:', 'a:b', '::1:4711', 'h:12x', 'h 1:2']) {
      assert.ok('error' in parseHostPort(bad), bad);
    }
    assert.match((parseHostPort('h:70000') as { error: string }).error, /out of range/);
    assert.match((parseHostPort('0') as { error: string }).error, /out of range/);
  });
});

describe('pickInterpreter', () => {
  it('takes the setting first, expanding ${workspaceFolder} and ~', () => {
    const choice = pickInterpreter({
      setting: ' ${workspaceFolder}/.venv/bin/python ',
      pythonExtension: '/usr/bin/python3.12',
      platform: 'linux',
      workspaceFolder: '/w',
    });
    assert.deepEqual(choice, { path: '/w/.venv/bin/python', source: 'setting' });
    assert.equal(expandPath('~/venv/bin/python', undefined, '/home/me'), '/home/me/venv/bin/python');
    assert.equal(expandPath('a~b', undefined, '/home/me'), 'a~b');
  });

  it("then the Python extension's interpreter, then python3 (python on Windows)", () => {
    assert.deepEqual(pickInterpreter({ setting: '  ', pythonExtension: '/e/python', platform: 'linux' }), {
      path: '/e/python',
      source: 'python-extension',
    });
    assert.deepEqual(pickInterpreter({ platform: 'linux' }), { path: 'python3', source: 'default' });
    assert.deepEqual(pickInterpreter({ platform: 'win32', pythonExtension: '' }), { path: 'python', source: 'default' });
  });
});
