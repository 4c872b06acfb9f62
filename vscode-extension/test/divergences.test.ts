// The server's comparison answer turned into editor marks and a one-line summary.
import assert from 'node:assert/strict';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { Comparison, Divergence, isComparison, marksForFile, summary } from '../src/core/divergences';

const FILE = join(tmpdir(), 'example.py');

function divergence(overrides: Partial<Divergence>): Divergence {
  return {
    step: 1,
    action: 'breakpoint',
    kind: 'variable',
    path: FILE,
    line: 8,
    realLine: 8,
    name: 'total',
    predicted: '0',
    real: '3',
    counterfactual: false,
    message: 'Stop 1 after breakpoint: predicted total = 0; the real run had 3',
    ...overrides,
  };
}

describe('marks from a comparison', () => {
  it('groups divergences by predicted line, says what the real run had, and skips other files', () => {
    const comparison: Comparison = {
      stops: 4,
      compared: 4,
      wrongStops: 2,
      divergences: [
        divergence({}),
        divergence({ name: 'xs', predicted: '[3, 4]', real: '[3, 1, 2]', message: 'Stop 1 ... xs' }),
        divergence({ name: 'debugger', predicted: '20', real: null, message: 'Stop 1 ... debugger' }),
        divergence({ step: 3, kind: 'position', line: 12, realLine: 9, name: null, message: 'Stop 3 ... line' }),
        divergence({ step: 0, path: null, line: 1, message: 'Stop 0 in the entry wrapper' }),
        divergence({ path: '/elsewhere.py', message: 'another file' }),
      ],
    };
    const marks = marksForFile(comparison, FILE);
    assert.deepEqual(
      marks.map((m) => [m.line, m.label, m.messages.length, m.realLines]),
      [
        [7, '✗ real run: total = 3, xs = [3, 1, 2], no debugger', 3, []],
        [11, '✗ real run: line 9', 1, [8]],
      ],
    );
  });

  it('cuts a long label', () => {
    const long = divergence({ real: `[${'1, '.repeat(60)}1]` });
    const [mark] = marksForFile({ stops: 2, compared: 2, wrongStops: 1, divergences: [long] }, FILE);
    assert.ok(mark.label.length <= 90 && mark.label.endsWith('…'), mark.label);
  });

  it('sums up agreement, divergence, an early end and edits', () => {
    assert.equal(summary({ stops: 3, compared: 3, wrongStops: 0, divergences: [] }), 'All 3 predicted stops agree with the real run.');
    assert.equal(
      summary({ stops: 5, compared: 4, wrongStops: 1, divergences: [divergence({ counterfactual: true })] }),
      '1 of 4 predicted stops diverged from the real run (the real run ended after 4 of 5 stops); the first is stop 1 at line 8; stops after an edit or a jump differ by design.',
    );
    assert.equal(isComparison({ stops: 1, divergences: [] }), true);
    assert.equal(isComparison({ error: 'x' }), false);
  });
});
