// Launch configurations of type `neural-python`: made for a file, completed from the settings,
// checked before a session starts. The fields are the server's LaunchArguments (server/messages.py).
// Nothing here imports vscode.

export const DEBUG_TYPE = 'neural-python';

export const BACKENDS = ['local', 'vllm', 'oracle'] as const;
export type Backend = (typeof BACKENDS)[number];

/** The `neuralDebugger.*` settings a configuration takes its defaults from. */
export interface NeuralSettings {
  backend: Backend;
  /** Empty: the shipped model. */
  model: string;
  /** Empty: none. */
  vllmUrl: string;
}

export interface NeuralConfig {
  type: string;
  request: string;
  name: string;
  program?: string;
  entry?: string;
  stopOnEntry?: boolean;
  backend?: string;
  model?: string;
  vllmUrl?: string | string[];
  temperature?: number;
  samples?: number;
  seed?: number;
  maxTokens?: number;
  breakpointSteps?: number;
  returnSteps?: number;
  inverse?: string;
  cwd?: string;
  [key: string]: unknown;
}

/** True for what VS Code passes when F5 is pressed with no launch.json: no type, request or name. */
export function isEmptyConfig(config: { type?: unknown; request?: unknown; name?: unknown }): boolean {
  return !config.type && !config.request && !config.name;
}

/** A predicted session over a whole script, stopping on its first line. */
export function configForFile(program: string, cwd?: string): NeuralConfig {
  const config: NeuralConfig = {
    type: DEBUG_TYPE,
    request: 'launch',
    name: 'Neural: current file (predicted)',
    program,
    stopOnEntry: true,
  };
  if (cwd) config.cwd = cwd;
  return config;
}

/**
 * An inverse session: `fn` returning `value`, stepping back to its predicted inputs. The server
 * reads only the called name from the entry of an inverse session on a model backend (the
 * arguments are what is predicted), so `name()` is enough and valid Python.
 */
export function inverseConfig(
  program: string,
  functionName: string,
  value: string,
  cwd?: string,
): NeuralConfig {
  return {
    ...configForFile(program, cwd),
    name: `Neural: inputs of ${functionName} returning ${value}`,
    entry: `${functionName}()`,
    inverse: value,
  };
}

/**
 * The same session as `base` (or a script session over `program`) with the oracle backend: the
 * program is run for real and every stop is from that run.
 */
export function oracleConfig(base: NeuralConfig | undefined, program: string, cwd?: string): NeuralConfig {
  const from = base ?? configForFile(program, cwd);
  const config: NeuralConfig = { ...from, name: `${from.name} [real run]`, backend: 'oracle' };
  for (const key of Object.keys(config)) {
    if (key.startsWith('__')) delete config[key]; // VS Code's own bookkeeping in a live session
  }
  delete config.model;
  delete config.vllmUrl;
  delete config.temperature;
  delete config.samples;
  return config;
}

/** Fills what the configuration leaves out from the settings; what it names wins. */
export function applySettings(config: NeuralConfig, settings: NeuralSettings): NeuralConfig {
  const result: NeuralConfig = { ...config };
  if (result.backend === undefined || result.backend === '') result.backend = settings.backend;
  if ((result.model === undefined || result.model === '') && settings.model) {
    result.model = settings.model;
  }
  if (result.model === '') delete result.model;
  if (result.vllmUrl === undefined && settings.vllmUrl && result.backend === 'vllm') {
    result.vllmUrl = settings.vllmUrl;
  }
  for (const key of ['entry', 'inverse'] as const) {
    if (result[key] === '') delete result[key];
  }
  return result;
}

function isInt(value: unknown): value is number {
  return typeof value === 'number' && Number.isInteger(value);
}

/** What is wrong with a configuration, one sentence each; empty when it can be launched. */
export function validate(config: NeuralConfig): string[] {
  const problems: string[] = [];
  if (typeof config.program !== 'string' || config.program.trim() === '') {
    problems.push('"program" is missing: name the Python file to debug.');
  }
  const backend = config.backend ?? 'local';
  if (!(BACKENDS as readonly string[]).includes(backend)) {
    problems.push(`"backend" is ${JSON.stringify(backend)}; choose local, vllm or oracle.`);
  }
  if (config.entry !== undefined) {
    if (typeof config.entry !== 'string' || /[\r\n]/.test(config.entry)) {
      problems.push('"entry" must be one line of Python: a call such as f([1, 2]).');
    } else if (!/\)\s*$/.test(config.entry)) {
      problems.push(`"entry" (${config.entry}) must be a call, such as f([1, 2]).`);
    }
  }
  if (config.inverse !== undefined) {
    if (typeof config.inverse !== 'string' || config.inverse.trim() === '') {
      problems.push('"inverse" must be a return value (its repr), such as 6 or [1, 2].');
    } else if (config.entry === undefined) {
      problems.push('An inverse session needs "entry" to name its function, e.g. "entry": "f()".');
    }
  }
  if (backend === 'vllm') {
    const urls = Array.isArray(config.vllmUrl) ? config.vllmUrl : [config.vllmUrl];
    if (urls.length === 0 || !urls.every((url) => typeof url === 'string' && /^https?:\/\//.test(url))) {
      problems.push(
        'The vllm backend needs "vllmUrl" (http://host:port, or a list), or the setting neuralDebugger.vllmUrl.',
      );
    }
  }
  if (config.temperature !== undefined && !(typeof config.temperature === 'number' && config.temperature >= 0)) {
    problems.push('"temperature" must be a number, 0 or more.');
  }
  if (config.samples !== undefined && !(isInt(config.samples) && config.samples >= 1 && config.samples <= 64)) {
    problems.push('"samples" must be a whole number from 1 to 64.');
  }
  if (config.maxTokens !== undefined && !(isInt(config.maxTokens) && config.maxTokens >= 1 && config.maxTokens <= 8192)) {
    problems.push('"maxTokens" must be a whole number from 1 to 8192.');
  }
  for (const name of ['breakpointSteps', 'returnSteps'] as const) {
    const steps = config[name];
    if (steps !== undefined && !(isInt(steps) && steps >= 0 && steps <= 500)) {
      problems.push(`"${name}" must be a whole number from 0 to 500.`);
    }
  }
  if (config.seed !== undefined && !isInt(config.seed)) {
    problems.push('"seed" must be a whole number.');
  }
  return problems;
}

/** The status bar text and tooltip of an active session with this configuration. */
export function statusOf(config: NeuralConfig): { text: string; tooltip: string } {
  const backend = config.backend ?? 'local';
  const model = config.model ? baseName(config.model) : 'ndb-small';
  const inverse = config.inverse !== undefined ? ' · inverse' : '';
  if (backend === 'oracle') {
    return {
      text: `$(play) ndb: oracle (real run)${inverse}`,
      tooltip: 'Neural Debugger, oracle backend: the program is run for real and every stop is from that run.',
    };
  }
  const where = backend === 'vllm' ? 'served by vLLM' : 'embedded';
  return {
    text: `$(sparkle) ndb: ${backend} · ${model}${inverse}`,
    tooltip: `Neural Debugger: every stop is predicted by ${config.model || 'the shipped model'} (${where}); nothing is run.`,
  };
}

function baseName(path: string): string {
  const parts = path.split(/[\\/]/).filter((part) => part !== '');
  return parts[parts.length - 1] ?? path;
}
