// Where the tests find the repository and its interpreter (the project's .venv, or NDB_PYTHON).
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';

export const EXTENSION = resolve(__dirname, '..', '..');
export const REPOSITORY = resolve(EXTENSION, '..');
export const PYTHON = process.env.NDB_PYTHON || join(REPOSITORY, '.venv', 'bin', 'python');
export const HAVE_PYTHON = existsSync(PYTHON);
export const NO_PYTHON = HAVE_PYTHON ? false : `no interpreter with neural_debugger at ${PYTHON} (make setup, or set NDB_PYTHON)`;
