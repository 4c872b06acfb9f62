// The one question asked before the program is run for real (the oracle backend): a modal, so
// nothing runs by a stray click. A launch that was confirmed carries `realRunConfirmed` so that
// it is not asked twice.
import * as path from 'node:path';
import * as vscode from 'vscode';

export const RUN_IT = 'Run It';

/** Asks whether to run `program` (the `entry` call of it, when given) for real. */
export async function confirmRealRun(program: string, entry: string | undefined, consequence: string): Promise<boolean> {
  const what = entry ? `${entry} from ${path.basename(program)}` : path.basename(program);
  const choice = await vscode.window.showWarningMessage(
    `Run ${what} for real?`,
    {
      modal: true,
      detail:
        'The oracle backend EXECUTES the program, with the interpreter that runs the debug adapter and ' +
        `with your permissions: files it writes are written, network calls are made. ${consequence}`,
    },
    RUN_IT,
  );
  return choice === RUN_IT;
}
