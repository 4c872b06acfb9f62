// Light reading of Python source text: the function around a line, its parameters, and the names
// on a range of lines. No parser: line-based rules that are right for ordinary code (see
// README "Limits" for what they miss). Nothing here imports vscode.

export interface PythonFunction {
  name: string;
  /** Parameter names, without `self`/`cls`, `*`, `/` and the stars of `*args`/`**kwargs`. */
  params: string[];
  /** 0-based line of the `def`. */
  line: number;
  /** 0-based line where the signature ends (its `:`). */
  signatureEnd: number;
}

const DEF = /^(\s*)(?:async\s+)?def\s+([A-Za-z_]\w*)\s*\(/;
const MAX_SCAN = 5000;

function indentOf(line: string): number {
  return line.length - line.trimStart().length;
}

/** A line that carries no code: blank or a comment only. */
function isBlank(line: string): boolean {
  const text = line.trim();
  return text === '' || text.startsWith('#');
}

/**
 * The text between the parentheses of a signature that starts at `line`, the line it ends on and
 * the column after its `)`. Strings and comments are skipped; an unclosed signature ends at the
 * last line scanned.
 */
function signatureAt(
  lines: readonly string[],
  line: number,
): { inside: string; end: number; after: number } {
  let depth = 0;
  let inside = '';
  let quote = '';
  const last = Math.min(lines.length - 1, line + 199);
  for (let i = line; i <= last; i++) {
    const text = lines[i];
    for (let j = 0; j < text.length; j++) {
      const ch = text[j];
      if (quote) {
        if (ch === '\\') {
          inside += text.slice(j, j + 2);
          j++;
          continue;
        }
        if (ch === quote) quote = '';
        inside += ch;
        continue;
      }
      if (ch === '#') break;
      if (ch === '"' || ch === "'") quote = ch;
      if (ch === '(' || ch === '[' || ch === '{') {
        depth++;
        if (depth === 1) continue;
      } else if (ch === ')' || ch === ']' || ch === '}') {
        depth--;
        if (depth === 0) return { inside, end: i, after: j + 1 };
      }
      if (depth > 0) inside += ch;
    }
    if (depth > 0) inside += ' ';
    quote = '';
  }
  return { inside, end: last, after: lines[last].length };
}

/** Splits at commas outside brackets and strings. */
function splitTopLevel(text: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let quote = '';
  let current = '';
  for (let i = 0; i < text.length; i++) {
    const ch = text[i];
    if (quote) {
      if (ch === '\\') {
        current += text.slice(i, i + 2);
        i++;
        continue;
      }
      if (ch === quote) quote = '';
    } else if (ch === '"' || ch === "'") {
      quote = ch;
    } else if ('([{'.includes(ch)) {
      depth++;
    } else if (')]}'.includes(ch)) {
      depth--;
    } else if (ch === ',' && depth === 0) {
      parts.push(current);
      current = '';
      continue;
    }
    current += ch;
  }
  parts.push(current);
  return parts.map((part) => part.trim()).filter((part) => part !== '');
}

/** Parameter names of a signature's inside, e.g. `self, xs: list[int], *rest, k=1` -> xs, rest, k. */
export function parameterNames(inside: string): string[] {
  const names: string[] = [];
  for (const part of splitTopLevel(inside)) {
    const match = /^\*{0,2}\s*([A-Za-z_]\w*)/.exec(part);
    if (match) names.push(match[1]);
  }
  if (names.length > 0 && (names[0] === 'self' || names[0] === 'cls')) names.shift();
  return names;
}

/**
 * The innermost function whose `def` line, signature or body holds `cursorLine` (0-based).
 * A body is every line after the signature up to the first code line indented no deeper than
 * the `def`; blank and comment lines do not end it. A one-line body (`def f(x): return x`) holds
 * only its own line.
 */
export function findFunctionAt(
  lines: readonly string[],
  cursorLine: number,
): PythonFunction | undefined {
  const last = Math.min(cursorLine, lines.length - 1);
  for (let i = last; i >= 0 && i > last - MAX_SCAN; i--) {
    const match = DEF.exec(lines[i]);
    if (!match) continue;
    const indent = match[1].length;
    const signature = signatureAt(lines, i);
    if (last <= signature.end || bodyHolds(lines, signature, last, indent)) {
      return {
        name: match[2],
        params: parameterNames(signature.inside),
        line: i,
        signatureEnd: signature.end,
      };
    }
  }
  return undefined;
}

function bodyHolds(
  lines: readonly string[],
  signature: { end: number; after: number },
  cursor: number,
  indent: number,
): boolean {
  const tail = lines[signature.end].slice(signature.after).split('#')[0];
  const colon = tail.indexOf(':');
  if (colon >= 0 && tail.slice(colon + 1).trim() !== '') return false; // a one-line body
  for (let k = signature.end + 1; k <= cursor; k++) {
    const text = lines[k];
    if (!isBlank(text) && indentOf(text) <= indent) return false;
  }
  return true;
}

/** An example call naming the function with its parameters, e.g. `running_total(xs)`. */
export function exampleCall(fn: PythonFunction): string {
  return `${fn.name}(${fn.params.join(', ')})`;
}

// ---- names on lines (for inline values) -------------------------------------------------------

export interface NameAt {
  /** 0-based line. */
  line: number;
  /** 0-based start and end (exclusive) columns. */
  start: number;
  end: number;
  name: string;
}

const KEYWORDS = new Set(
  (
    'False None True and as assert async await break class continue def del elif else except ' +
    'finally for from global if import in is lambda nonlocal not or pass raise return try while ' +
    'with yield match case type _'
  ).split(' '),
);

const BUILTINS = new Set(
  (
    'abs all any bool bytes callable chr dict dir divmod enumerate filter float format frozenset ' +
    'getattr hasattr hash hex id input int isinstance issubclass iter len list map max min next ' +
    'object oct open ord pow print range repr reversed round set setattr slice sorted str sum ' +
    'super tuple type zip self cls Exception ValueError TypeError KeyError IndexError'
  ).split(' '),
);

/**
 * The variable-like names on lines `from`..`to` (0-based, inclusive): identifiers outside strings
 * and comments that are not keywords, common builtins, attributes (`x.name`), keyword arguments
 * (`f(name=1)`), called names (`name(`), or the name a `def`/`class` defines. Each name once per
 * line. Triple-quoted strings that open before `from` are not known about.
 */
export function namesOnLines(lines: readonly string[], from: number, to: number): NameAt[] {
  const found: NameAt[] = [];
  let triple = '';
  for (let line = Math.max(0, from); line <= Math.min(to, lines.length - 1); line++) {
    const text = lines[line];
    const seen = new Set<string>();
    let depth = 0;
    let i = 0;
    while (i < text.length) {
      if (triple) {
        const close = text.indexOf(triple, i);
        if (close < 0) {
          i = text.length;
          break;
        }
        i = close + 3;
        triple = '';
        continue;
      }
      const ch = text[i];
      if (ch === '#') break;
      const str = /^([rRbBuUfF]{0,2})("""|'''|"|')/.exec(text.slice(i));
      if (str && (str[1] === '' || !/\w/.test(text[i - 1] ?? ''))) {
        const quote = str[2];
        i += str[0].length;
        if (quote.length === 3) {
          triple = quote;
          continue;
        }
        while (i < text.length && text[i] !== quote) i += text[i] === '\\' ? 2 : 1;
        i++;
        continue;
      }
      if ('([{'.includes(ch)) depth++;
      if (')]}'.includes(ch)) depth = Math.max(0, depth - 1);
      const word = /^[A-Za-z_]\w*/.exec(text.slice(i));
      if (!word || /\w/.test(text[i - 1] ?? '')) {
        i += word ? word[0].length : 1;
        continue;
      }
      const name = word[0];
      const start = i;
      i += name.length;
      const before = text.slice(0, start).trimEnd();
      const rest = text.slice(i).trimStart();
      if (KEYWORDS.has(name) || BUILTINS.has(name) || seen.has(name)) continue;
      if (before.endsWith('.') || /\b(def|class)$/.test(before)) continue;
      if (rest.startsWith('(')) continue;
      if (depth > 0 && /^=(?!=)/.test(rest)) continue;
      if (/^\d/.test(name)) continue;
      seen.add(name);
      found.push({ line, start, end: i, name });
    }
  }
  return found;
}

/** The 0-based lines to annotate: the stopped function's (or the view's) start to the stop. */
export function linesToAnnotate(
  lines: readonly string[],
  viewStart: number,
  viewEnd: number,
  stoppedLine: number,
): { from: number; to: number } {
  const fn = findFunctionAt(lines, stoppedLine);
  const from = Math.max(viewStart, fn ? fn.line : viewStart);
  return { from, to: Math.min(stoppedLine, viewEnd) };
}

const ANNOTATION = /#\s*ndb:\s*(\S.*?)\s*$/;

/**
 * The call of the first `# ndb: CALL` comment (the annotation the language server predicts), or
 * undefined. A `#` inside a string on the same line is not a comment: the quotes before it must
 * be balanced.
 */
export function entryAnnotation(lines: readonly string[]): string | undefined {
  for (const line of lines.slice(0, MAX_SCAN)) {
    const found = ANNOTATION.exec(line);
    if (!found) continue;
    const before = line.slice(0, found.index);
    const balanced = (quote: string) => before.split(quote).length % 2 === 1;
    if (balanced("'") && balanced('"')) return found[1];
  }
  return undefined;
}
