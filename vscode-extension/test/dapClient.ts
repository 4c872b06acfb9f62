// A small DAP client over a child process's stdio, for the tests: Content-Length framing,
// requests with promised responses, and waiting for events.
import { ChildProcessWithoutNullStreams, spawn } from 'node:child_process';

export interface DapMessage {
  seq: number;
  type: 'request' | 'response' | 'event';
  command?: string;
  event?: string;
  success?: boolean;
  message?: string;
  request_seq?: number;
  body?: any;
}

export class DapClient {
  private readonly child: ChildProcessWithoutNullStreams;
  private buffer = Buffer.alloc(0);
  private seq = 1;
  private readonly pending = new Map<number, (message: DapMessage) => void>();
  private readonly events: DapMessage[] = [];
  private readonly waiters: { name: string; done: (message: DapMessage) => void }[] = [];
  stderr = '';

  constructor(command: string, args: string[], cwd?: string) {
    this.child = spawn(command, args, { cwd, stdio: 'pipe' });
    this.child.stdout.on('data', (chunk: Buffer) => this.read(chunk));
    this.child.stderr.on('data', (chunk: Buffer) => (this.stderr += chunk.toString()));
  }

  private read(chunk: Buffer): void {
    this.buffer = Buffer.concat([this.buffer, chunk]);
    for (;;) {
      const end = this.buffer.indexOf('\r\n\r\n');
      if (end < 0) return;
      const length = Number(/Content-Length: (\d+)/i.exec(this.buffer.subarray(0, end).toString())?.[1]);
      if (this.buffer.length < end + 4 + length) return;
      const message = JSON.parse(this.buffer.subarray(end + 4, end + 4 + length).toString()) as DapMessage;
      this.buffer = this.buffer.subarray(end + 4 + length);
      this.dispatch(message);
    }
  }

  private dispatch(message: DapMessage): void {
    if (message.type === 'response') {
      this.pending.get(message.request_seq ?? -1)?.(message);
      this.pending.delete(message.request_seq ?? -1);
    } else if (message.type === 'event') {
      const index = this.waiters.findIndex((waiter) => waiter.name === message.event);
      if (index >= 0) this.waiters.splice(index, 1)[0].done(message);
      else this.events.push(message);
    }
  }

  request(command: string, args?: unknown): Promise<DapMessage> {
    const seq = this.seq++;
    const text = JSON.stringify({ seq, type: 'request', command, arguments: args });
    this.child.stdin.write(`Content-Length: ${Buffer.byteLength(text)}\r\n\r\n${text}`);
    return new Promise((done) => this.pending.set(seq, done));
  }

  /** The next event with this name (one already received counts). */
  event(name: string, timeoutMs = 60000): Promise<DapMessage> {
    const index = this.events.findIndex((message) => message.event === name);
    if (index >= 0) return Promise.resolve(this.events.splice(index, 1)[0]);
    return new Promise((done, fail) => {
      const timer = setTimeout(() => fail(new Error(`no ${name} event in ${timeoutMs} ms; stderr: ${this.stderr}`)), timeoutMs);
      timer.unref(); // a wait nobody needs any more does not keep the test process alive
      this.waiters.push({ name, done: (message) => (clearTimeout(timer), done(message)) });
    });
  }

  async close(): Promise<void> {
    const exited = new Promise((done) => this.child.once('exit', done));
    await Promise.race([this.request('disconnect', {}), new Promise((done) => setTimeout(done, 3000))]);
    this.child.stdin.end();
    const timer = setTimeout(() => this.child.kill(), 5000);
    await exited;
    clearTimeout(timer);
  }
}
