// The language server command the client starts (`python -m neural_debugger lsp`, stdio) answers
// an LSP initialize with the model option the client passes. Skipped without the project's
// interpreter or before neural_debugger.lsp exists.
import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import { describe, it } from 'node:test';
import { LSP_ARGS, lspOptions } from '../src/core/interpreter';
import { HAVE_PYTHON, NO_PYTHON, PYTHON, REPOSITORY } from './paths';

function hasLsp(): boolean {
  try {
    execFileSync(PYTHON, ['-c', 'import neural_debugger.lsp.main'], { stdio: 'ignore', timeout: 15000 });
    return true;
  } catch {
    return false;
  }
}

const SKIP = NO_PYTHON || (HAVE_PYTHON && !hasLsp() && 'neural_debugger.lsp is not there yet');

function frame(message: object): string {
  const text = JSON.stringify({ jsonrpc: '2.0', ...message });
  return `Content-Length: ${Buffer.byteLength(text)}\r\n\r\n${text}`;
}

describe('the language server command', { skip: SKIP }, () => {
  it('answers initialize with its capabilities, then shuts down', async () => {
    const child = spawn(PYTHON, LSP_ARGS, { cwd: REPOSITORY, stdio: 'pipe' });
    let output = '';
    let stderr = '';
    child.stderr.on('data', (chunk) => (stderr += chunk));
    const answered = new Promise<any>((done, fail) => {
      const timer = setTimeout(() => fail(new Error(`no initialize response; stderr: ${stderr}`)), 30000);
      child.stdout.on('data', (chunk) => {
        output += chunk;
        const end = output.indexOf('\r\n\r\n');
        const length = Number(/Content-Length: (\d+)/i.exec(output.slice(0, end))?.[1]);
        if (end < 0 || !length) return;
        const body = Buffer.from(output.slice(end + 4));
        if (body.length < length) return;
        clearTimeout(timer);
        done(JSON.parse(body.subarray(0, length).toString()));
      });
    });
    const exited = new Promise((done) => child.once('exit', done));
    child.stdin.write(
      frame({
        id: 1,
        method: 'initialize',
        params: { processId: process.pid, rootUri: null, capabilities: {}, initializationOptions: lspOptions('models/ndb-small') },
      }),
    );
    try {
      const response = await answered;
      assert.equal(response.id, 1);
      assert.ok(response.result?.capabilities, JSON.stringify(response));
      child.stdin.write(frame({ id: 2, method: 'shutdown' }));
      child.stdin.write(frame({ method: 'exit' }));
    } finally {
      const timer = setTimeout(() => child.kill(), 5000);
      await exited;
      clearTimeout(timer);
    }
  });
});
