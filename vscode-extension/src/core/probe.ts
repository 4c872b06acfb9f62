// Can this interpreter run the server? One short `python -c` that imports neural_debugger and
// says where its shipped model is; and whether the model a session names exists. Node only,
// nothing here imports vscode.

import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { isAbsolute, resolve } from 'node:path';

export type Probe =
  | { kind: 'ok'; version: string; defaultModel?: string; pythonVersion: string; lsp: boolean }
  | { kind: 'no-python'; detail: string }
  | { kind: 'not-installed'; detail: string }
  | { kind: 'timeout'; detail: string }
  | { kind: 'failed'; detail: string };

// Prints one JSON line; an import error is an answer, not a failure.
const PROBE = [
  'import importlib.util, json, sys',
  'out = {"python": sys.version.split()[0]}',
  'try:',
  '    import neural_debugger',
  'except ImportError as err:',
  '    out["error"] = str(err)',
  'else:',
  '    out["version"] = getattr(neural_debugger, "__version__", "?")',
  '    out["lsp"] = importlib.util.find_spec("neural_debugger.lsp") is not None',
  '    try:',
  '        from neural_debugger.paths import default_model_dir',
  '        out["defaultModel"] = str(default_model_dir())',
  '    except Exception:',
  '        pass',
  'print(json.dumps(out))',
].join('\n');

export const PROBE_TIMEOUT_MS = 15000;

/** Runs the probe with `python`; never rejects. */
export function probeInterpreter(
  python: string,
  options: { timeoutMs?: number; cwd?: string } = {},
): Promise<Probe> {
  const timeoutMs = options.timeoutMs ?? PROBE_TIMEOUT_MS;
  return new Promise((done) => {
    execFile(
      python,
      ['-c', PROBE],
      { timeout: timeoutMs, cwd: options.cwd, windowsHide: true, maxBuffer: 1 << 20 },
      (error, stdout, stderr) => {
        done(readProbe(error, String(stdout), String(stderr), timeoutMs));
      },
    );
  });
}

type ExecError = (Error & { code?: string | number | null; killed?: boolean; signal?: string | null }) | null;

export function readProbe(error: ExecError, stdout: string, stderr: string, timeoutMs: number): Probe {
  if (error && (error.code === 'ENOENT' || error.code === 'EACCES' || error.code === 'ENOTDIR')) {
    return { kind: 'no-python', detail: error.message };
  }
  if (error && error.killed) {
    return { kind: 'timeout', detail: `no answer within ${Math.round(timeoutMs / 1000)} s` };
  }
  const line = stdout.trim().split('\n').pop() ?? '';
  let answer:
    | { python?: string; version?: string; error?: string; defaultModel?: string; lsp?: boolean }
    | undefined;
  try {
    answer = JSON.parse(line);
  } catch {
    answer = undefined;
  }
  if (!error && answer && typeof answer === 'object') {
    if (answer.version !== undefined) {
      return {
        kind: 'ok',
        version: answer.version,
        defaultModel: answer.defaultModel,
        pythonVersion: answer.python ?? '?',
        lsp: answer.lsp === true,
      };
    }
    return { kind: 'not-installed', detail: answer.error ?? 'No module named neural_debugger' };
  }
  const detail = (stderr.trim() || error?.message || 'no output').split('\n').slice(-3).join(' ');
  return { kind: 'failed', detail };
}

/** The message for a probe that is not ok, naming the interpreter and what to do. */
export function describeProbe(probe: Probe, python: string, source: string): string {
  const which = `"${python}" (from ${source})`;
  switch (probe.kind) {
    case 'ok':
      return '';
    case 'no-python':
      return (
        `Neural Debugger: no Python interpreter at ${which}. Set neuralDebugger.pythonPath to ` +
        'a Python 3.11+ that has neural-debugger installed, or select one with the Python extension.'
      );
    case 'not-installed':
      return (
        `Neural Debugger: ${which} cannot import neural_debugger (${probe.detail}). Install the ` +
        'project into that interpreter (pip install -e <repository>, or `make setup` for .venv) ' +
        'or point neuralDebugger.pythonPath at one that has it.'
      );
    case 'timeout':
      return `Neural Debugger: ${which} did not answer (${probe.detail}) when asked to import neural_debugger.`;
    case 'failed':
      return `Neural Debugger: ${which} failed to import neural_debugger: ${probe.detail}`;
  }
}

/**
 * The problem with the model a local-backend session would load, or undefined: the configured
 * folder (relative to `cwd`) or, with none, the shipped model the probe reported. Other backends
 * load no model folder here (vLLM has its own; the oracle none).
 */
export function modelProblem(
  config: { backend?: string; model?: string },
  defaultModel: string | undefined,
  cwd: string | undefined,
  exists: (path: string) => boolean = existsSync,
): string | undefined {
  if ((config.backend ?? 'local') !== 'local') return undefined;
  if (config.model) {
    const folder = isAbsolute(config.model) || !cwd ? config.model : resolve(cwd, config.model);
    if (!exists(folder)) {
      return (
        `Neural Debugger: the model folder ${folder} does not exist. Fix "model" in the launch ` +
        'configuration or the setting neuralDebugger.model (empty: the shipped model).'
      );
    }
    return undefined;
  }
  if (defaultModel && !exists(defaultModel)) {
    return (
      `Neural Debugger: the shipped model is missing (${defaultModel}). Restore models/ndb-small ` +
      'in the neural-debugger checkout, or name a model folder with neuralDebugger.model.'
    );
  }
  return undefined;
}
