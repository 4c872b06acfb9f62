// The answer of the server's `compareWithRealRun` request, turned into marks for one file: one
// mark per line where a prediction diverged from the real run. Nothing here imports vscode.

export const COMPARE_REQUEST = 'compareWithRealRun';

/** One thing a predicted stop got wrong (server/adapter.py `_compare_with_real_run`). */
export interface Divergence {
  step: number;
  action: string | null;
  kind: 'position' | 'variable' | 'value';
  /** The file of the predicted stop; null for the server's `<entry>` wrapper. */
  path: string | null;
  /** Where the prediction stood, 1-based (the line to mark). */
  line: number | null;
  realLine: number | null;
  name: string | null;
  predicted: string | null;
  real: string | null;
  counterfactual: boolean;
  message: string;
}

export interface Comparison {
  stops: number;
  compared: number;
  wrongStops: number;
  divergences: Divergence[];
}

/** What the editor shows on one line (0-based): a short text after it and the full messages. */
export interface LineMark {
  line: number;
  label: string;
  messages: string[];
  /** Where the real run stood instead (0-based), for a predicted position that was wrong. */
  realLines: number[];
}

const LABEL_MAX = 90;

/** What the real run had instead, in a few words: `line 7`, `total = 3`, `no debugger`. */
function shortText(divergence: Divergence): string {
  if (divergence.kind === 'position') return `line ${divergence.realLine ?? '?'}`;
  if (divergence.kind === 'value') return `${divergence.name ?? 'value'} ${divergence.real ?? '?'}`;
  return divergence.real === null ? `no ${divergence.name}` : `${divergence.name} = ${divergence.real}`;
}

function samePath(a: string, b: string): boolean {
  const norm = (p: string) => p.replace(/\\/g, '/').replace(/\/+$/, '');
  return norm(a) === norm(b);
}

/** The marks for `path`: divergences grouped by predicted line, in line order. */
export function marksForFile(comparison: Comparison, path: string): LineMark[] {
  const byLine = new Map<number, LineMark & { parts: string[] }>();
  for (const divergence of comparison.divergences) {
    if (divergence.path === null || divergence.line === null || !samePath(divergence.path, path)) continue;
    const line = divergence.line - 1;
    const mark = byLine.get(line) ?? { line, label: '', messages: [], realLines: [], parts: [] };
    if (!mark.messages.includes(divergence.message)) mark.messages.push(divergence.message);
    const part = shortText(divergence);
    if (!mark.parts.includes(part)) mark.parts.push(part);
    if (divergence.kind === 'position' && divergence.realLine !== null && !mark.realLines.includes(divergence.realLine - 1)) {
      mark.realLines.push(divergence.realLine - 1);
    }
    byLine.set(line, mark);
  }
  return [...byLine.values()]
    .sort((a, b) => a.line - b.line)
    .map(({ parts, ...mark }) => {
      const label = `✗ real run: ${parts.join(', ')}`;
      return { ...mark, label: label.length > LABEL_MAX ? label.slice(0, LABEL_MAX - 1) + '…' : label };
    });
}

/** One sentence for a notification. */
export function summary(comparison: Comparison): string {
  const { stops, compared, wrongStops, divergences } = comparison;
  const ended = compared < stops ? ` (the real run ended after ${compared} of ${stops} stops)` : '';
  if (divergences.length === 0) {
    return `All ${compared} predicted stops agree with the real run${ended}.`;
  }
  const first = divergences[0];
  const where = first.line !== null ? ` at line ${first.line}` : '';
  const edits = divergences.some((d) => d.counterfactual) ? '; stops after an edit or a jump differ by design' : '';
  return `${wrongStops} of ${compared} predicted stops diverged from the real run${ended}; the first is stop ${first.step}${where}${edits}.`;
}

/** Whether a response body is a comparison (a guard against an older server). */
export function isComparison(body: unknown): body is Comparison {
  const value = body as Comparison | undefined;
  return typeof value?.stops === 'number' && Array.isArray(value?.divergences);
}
