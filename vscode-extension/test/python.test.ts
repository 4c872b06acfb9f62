import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { entryAnnotation, exampleCall, findFunctionAt, linesToAnnotate, namesOnLines, parameterNames } from '../src/core/python';

const SOURCE = `"""Module."""
import math


def running_total(xs):
    total = 0
    out = []
    for x in xs:  # a comment: with a colon
        total += x

        out.append(total)
    return out


class Shape:
    def __init__(self, sides: int, name: str = "x"):
        self.sides = sides

    async def area(
        self,
        scale: float = 1.0,
        *args,
        unit="cm",
        **kwargs,
    ) -> float:
        # inside the body
        return math.pi * scale


def one_liner(a, b): return a + b
after = one_liner(1, 2)
`.split('\n');

const line = (text: string) => SOURCE.findIndex((l) => l.includes(text));

describe('findFunctionAt', () => {
  it('finds the function whose body holds the cursor, across blank and comment lines', () => {
    for (const text of ['total = 0', 'for x in xs', 'out.append', 'return out']) {
      assert.equal(findFunctionAt(SOURCE, line(text))?.name, 'running_total', text);
    }
    assert.equal(findFunctionAt(SOURCE, line('total += x') + 1)?.name, 'running_total'); // blank line
  });

  it('counts the def line and a multi-line signature as the function', () => {
    const fn = findFunctionAt(SOURCE, line('def running_total'));
    assert.deepEqual(fn, { name: 'running_total', params: ['xs'], line: line('def running_total'), signatureEnd: line('def running_total') });
    assert.equal(findFunctionAt(SOURCE, line('unit="cm"'))?.name, 'area');
    assert.equal(findFunctionAt(SOURCE, line(') -> float:'))?.name, 'area');
  });

  it('gives the innermost function: a method, not its class', () => {
    const area = findFunctionAt(SOURCE, line('return math.pi'));
    assert.equal(area?.name, 'area');
    assert.deepEqual(area?.params, ['scale', 'args', 'unit', 'kwargs']);
    assert.deepEqual(findFunctionAt(SOURCE, line('self.sides = sides'))?.params, ['sides', 'name']);
  });

  it('finds nothing outside functions', () => {
    for (const text of ['import math', 'class Shape', 'after = one_liner']) {
      assert.equal(findFunctionAt(SOURCE, line(text)), undefined, text);
    }
    // Blank lines below a function still belong to it (nothing has ended it yet).
    assert.equal(findFunctionAt(SOURCE, line('class Shape') - 1)?.name, 'running_total');
  });

  it('holds a one-line body to its own line', () => {
    assert.equal(findFunctionAt(SOURCE, line('def one_liner'))?.name, 'one_liner');
    assert.equal(findFunctionAt(SOURCE, line('after =')), undefined);
  });

  it('copes with a cursor past the end and an empty file', () => {
    assert.equal(findFunctionAt(SOURCE, SOURCE.length + 10), undefined);
    assert.equal(findFunctionAt([], 0), undefined);
    assert.equal(findFunctionAt(['def f(x):', '    return x'], 99)?.name, 'f');
  });
});

describe('parameterNames and exampleCall', () => {
  it('keeps names only', () => {
    assert.deepEqual(parameterNames('self, xs: list[int] = [1, 2], /, *, k=(1, 2), **kw'), ['xs', 'k', 'kw']);
    assert.deepEqual(parameterNames('cls'), []);
    assert.deepEqual(parameterNames(''), []);
    assert.deepEqual(parameterNames("sep=',', d={'a': 1, 'b': 2}"), ['sep', 'd']);
  });

  it('writes a call naming the parameters', () => {
    assert.equal(exampleCall({ name: 'f', params: ['a', 'b'], line: 0, signatureEnd: 0 }), 'f(a, b)');
    assert.equal(exampleCall({ name: 'g', params: [], line: 0, signatureEnd: 0 }), 'g()');
  });
});

describe('namesOnLines', () => {
  const names = (lines: string[]) => namesOnLines(lines, 0, lines.length - 1).map((n) => `${n.line}:${n.name}`);

  it('keeps variables, drops keywords, builtins, attributes, calls and keyword arguments', () => {
    assert.deepEqual(names(['for x in range(len(xs)):', '    total += x.value', '    out.append(f(total, key=k))']), [
      '0:x',
      '0:xs',
      '1:total',
      '1:x',
      '2:out',
      '2:total',
      '2:k',
    ]);
  });

  it('skips strings (one-line and triple-quoted) and comments', () => {
    assert.deepEqual(names(['s = "a b" + t  # c d', "u = f'{hidden}'", 'doc = """one', 'two', 'three""" + w']), [
      '0:s',
      '0:t',
      '1:u',
      '2:doc',
      '4:w',
    ]);
  });

  it('keeps parameters of a def line but not the name it defines; each name once per line', () => {
    assert.deepEqual(names(['def f(a, b=1):', '    a = a + a']), ['0:a', '1:a']);
    assert.deepEqual(names(['x == y and (z == 1)']), ['0:x', '0:y', '0:z']);
  });

  it('gives exact columns', () => {
    const [found] = namesOnLines(['    total = 0'], 0, 0);
    assert.deepEqual(found, { line: 0, start: 4, end: 9, name: 'total' });
  });
});

describe('linesToAnnotate', () => {
  it('runs from the stopped function to the stopped line, within the view', () => {
    assert.deepEqual(linesToAnnotate(SOURCE, 0, 100, line('out.append')), { from: line('def running_total'), to: line('out.append') });
    assert.deepEqual(linesToAnnotate(SOURCE, line('total = 0'), 100, line('out.append')), {
      from: line('total = 0'),
      to: line('out.append'),
    });
    assert.deepEqual(linesToAnnotate(SOURCE, 0, 3, 30), { from: 0, to: 3 });
  });
});

describe('entryAnnotation', () => {
  it('finds the first `# ndb:` comment, on its own line or after code, not inside a string', () => {
    assert.equal(entryAnnotation(['x = "# ndb: not(this)"', 'def f(xs):  # ndb: f([3, 1, 2])  ', '# ndb: g()']), 'f([3, 1, 2])');
    assert.equal(entryAnnotation(["s = 'a # ndb: no()'", '    #ndb:   g(1) ']), 'g(1)');
    assert.equal(entryAnnotation(['# ndb:', 'def f(): pass']), undefined);
  });
});
