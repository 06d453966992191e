/**
 * When a cell typed at the prompt is complete, as Python's own REPL decides it: an open bracket,
 * an unfinished triple-quoted string or a trailing backslash continue the line; a compound
 * statement (a line ending in `:` outside brackets, or a decorator) continues until an empty line.
 */

interface LineEnd {
  /** The line's code with strings blanked and the comment dropped, trimmed. */
  code: string;
  /** Brackets open at the end of the line. */
  depth: number;
}

interface Scan {
  lines: LineEnd[];
  /** Inside a triple-quoted string at the end. */
  inTriple: boolean;
}

/** One pass over Python source: per line, its code and the bracket depth at its end. */
function scan(source: string): Scan {
  const lines: LineEnd[] = [];
  let depth = 0;
  let quote: string | null = null;
  let code = '';
  const endLine = () => {
    lines.push({ code: code.trim(), depth });
    code = '';
  };
  for (let i = 0; i < source.length; i++) {
    const c = source[i]!;
    if (quote) {
      if (c === '\\') {
        if (source[i + 1] === '\n') endLine();
        i++;
        continue;
      }
      if (source.startsWith(quote, i)) {
        i += quote.length - 1;
        quote = null;
        code += '""';
      } else if (c === '\n') {
        endLine();
        // An unterminated one-line string: Python reports it when the cell runs.
        if (quote.length === 1) quote = null;
      }
      continue;
    }
    if (c === '#') {
      while (i + 1 < source.length && source[i + 1] !== '\n') i++;
      continue;
    }
    if (c === '\n') {
      endLine();
      continue;
    }
    if (c === '"' || c === "'") {
      quote = source.startsWith(c.repeat(3), i) ? c.repeat(3) : c;
      i += quote.length - 1;
      continue;
    }
    if ('([{'.includes(c)) depth++;
    else if (')]}'.includes(c)) depth = Math.max(0, depth - 1);
    code += c;
  }
  endLine();
  return { lines, inTriple: quote !== null && quote.length === 3 };
}

/** Whether the lines typed so far make a cell to run (false: show the `...` prompt). */
export function cellComplete(typed: readonly string[]): boolean {
  if (typed.join('\n').trim() === '') return true;
  const { lines, inTriple } = scan(typed.join('\n'));
  const last = lines.at(-1)!;
  if (inTriple || last.depth > 0) return false;
  if (/\\\s*$/.test(typed.at(-1) ?? '')) return false;
  // A compound statement anywhere in the cell waits for the empty line that ends its block.
  const compound = lines.some((line, i) => {
    const depthBefore = i === 0 ? 0 : lines[i - 1]!.depth;
    return (line.depth === 0 && line.code.endsWith(':')) || (depthBefore === 0 && line.code.startsWith('@'));
  });
  if (compound) return typed.length > 1 && (typed.at(-1) ?? '').trim() === '';
  return true;
}
