// `neuralDebugger.server`: where a running `ndb dap --port N` listens. Nothing here imports vscode.

export type HostPort = { host: string; port: number } | { error: string };

/**
 * `4711`, `:4711`, `localhost:4711`, `127.0.0.1:4711` or `[::1]:4711`; a bare port means
 * 127.0.0.1, where `ndb dap --port` listens unless told otherwise.
 */
export function parseHostPort(text: string): HostPort {
  const value = text.trim();
  let host = '127.0.0.1';
  let portText: string;
  const bracketed = /^\[([0-9A-Fa-f:.]+)\]:(\d+)$/.exec(value);
  const plain = /^([^\s:[\]]*):(\d+)$/.exec(value);
  if (bracketed) {
    host = bracketed[1];
    portText = bracketed[2];
  } else if (/^\d+$/.test(value)) {
    portText = value;
  } else if (plain) {
    host = plain[1] || host;
    portText = plain[2];
  } else {
    return { error: `"${text}" is not host:port (for example 127.0.0.1:4711, or just 4711)` };
  }
  const port = Number(portText);
  if (port < 1 || port > 65535) return { error: `port ${portText} is out of range (1-65535)` };
  return { host, port };
}
