// package.json against the server and the code: the launch attributes are the server's
// LaunchArguments, every command has an activation event, every setting read is declared.
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { EXTENSION, REPOSITORY } from './paths';

const manifest = JSON.parse(readFileSync(join(EXTENSION, 'package.json'), 'utf8'));
const debuggerContribution = manifest.contributes.debuggers[0];
const MESSAGES = join(REPOSITORY, 'server', 'messages.py');

/** The fields of `class LaunchArguments` in server/messages.py, in camelCase. */
function launchArgumentFields(): string[] {
  const source = readFileSync(MESSAGES, 'utf8');
  const body = /class LaunchArguments\(DapModel\):\n([\s\S]*?)\n(?=\S|\n    @)/.exec(source)?.[1] ?? '';
  return [...body.matchAll(/^ {4}([a-z_]+): /gm)]
    .map((match) => match[1].replace(/_([a-z])/g, (_, c: string) => c.toUpperCase()))
    .filter((name) => name !== 'noDebug'); // VS Code's own flag, ignored by the server
}

describe('package.json', () => {
  it('declares every launch argument of the server, and no other', { skip: !existsSync(MESSAGES) && 'no server/messages.py' }, () => {
    const declared = Object.keys(debuggerContribution.configurationAttributes.launch.properties).sort();
    const fields = launchArgumentFields().sort();
    assert.ok(fields.length >= 10, `read only ${fields} from ${MESSAGES}`);
    assert.deepEqual(declared, fields);
  });

  it('describes every launch attribute', () => {
    for (const [name, schema] of Object.entries<{ description?: string }>(debuggerContribution.configurationAttributes.launch.properties)) {
      assert.ok(schema.description && schema.description.length > 20, name);
    }
  });

  it('has the debugger, its snippets and the activation events', () => {
    assert.equal(debuggerContribution.type, 'neural-python');
    assert.equal(debuggerContribution.label, 'Python (neural, predicted)');
    const snippets = debuggerContribution.configurationSnippets.map((s: { body: Record<string, string> }) => s.body);
    assert.deepEqual(
      snippets.map((body: Record<string, string>) => [body.type, 'entry' in body, 'inverse' in body]),
      [
        ['neural-python', false, false],
        ['neural-python', true, false],
        ['neural-python', true, true],
      ],
    );
    const events: string[] = manifest.activationEvents;
    for (const event of ['onDebugResolve:neural-python', 'onStartupFinished', 'onLanguage:python']) {
      assert.ok(events.includes(event), event);
    }
    for (const command of manifest.contributes.commands) {
      assert.ok(events.includes(`onCommand:${command.command}`), command.command);
    }
    assert.deepEqual(manifest.contributes.breakpoints, [{ language: 'python' }]);
  });

  it('declares every setting the code reads', () => {
    const declared = Object.keys(manifest.contributes.configuration.properties);
    const read = new Set<string>();
    for (const file of readdirSync(join(EXTENSION, 'src'))) {
      if (!file.endsWith('.ts')) continue;
      const text = readFileSync(join(EXTENSION, 'src', file), 'utf8');
      for (const match of text.matchAll(/get<\w+>\('([\w.]+)'/g)) read.add(`neuralDebugger.${match[1]}`);
    }
    assert.ok(read.size >= 5);
    for (const key of read) assert.ok(declared.includes(key), key);
  });
});
