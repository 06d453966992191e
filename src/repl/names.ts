import { UserError } from '../core/index.js';

/** Python's reserved words (3.11, plus the soft keywords a method name should not shadow). */
const PYTHON_KEYWORDS = new Set([
  'False',
  'None',
  'True',
  'and',
  'as',
  'assert',
  'async',
  'await',
  'break',
  'class',
  'continue',
  'def',
  'del',
  'elif',
  'else',
  'except',
  'finally',
  'for',
  'from',
  'global',
  'if',
  'import',
  'in',
  'is',
  'lambda',
  'nonlocal',
  'not',
  'or',
  'pass',
  'raise',
  'return',
  'try',
  'while',
  'with',
  'yield',
]);

/** Members every capability object has; a tool with one of these names gets a trailing `_`. */
const RESERVED_MEMBERS = new Set(['name', 'describe']);

/**
 * An MCP tool name as a Python identifier: `get-sum` → `get_sum`, `3d-render` → `t_3d_render`,
 * `import` → `import_`, `describe` → `describe_`. Names starting with `_` are private in Python
 * and hidden by the capability object, so a leading `_` is dropped where possible.
 */
export function toPythonIdentifier(toolName: string): string {
  let name = toolName.replace(/[^A-Za-z0-9_]/g, '_');
  name = name.replace(/^_+(?=[A-Za-z])/, '');
  if (name === '' || /^_*$/.test(name)) name = 'tool';
  if (/^[0-9]/.test(name)) name = `t_${name}`;
  if (PYTHON_KEYWORDS.has(name) || RESERVED_MEMBERS.has(name)) name = `${name}_`;
  return name;
}

/**
 * Python names for a server's tools, unique: clashes after sanitising get `_2`, `_3`.
 * Returns pairs in the server's order.
 */
export function pythonNamesFor(toolNames: string[]): { name: string; pyname: string }[] {
  const used = new Set<string>();
  return toolNames.map((name) => {
    const base = toPythonIdentifier(name);
    let pyname = base;
    for (let n = 2; used.has(pyname); n++) pyname = `${base}_${n}`;
    used.add(pyname);
    return { name, pyname };
  });
}

/** Checks a capability name: a Python identifier, not a keyword, not private. */
export function checkCapabilityName(name: string): void {
  if (!/^[A-Za-z][A-Za-z0-9_]*$/.test(name) || PYTHON_KEYWORDS.has(name)) {
    throw new UserError(`capability name "${name}" is not usable as a Python variable`, {
      code: 'CAPABILITY_NAME',
      hint: 'give `name` as a Python identifier starting with a letter, e.g. "fs" or "memory"',
    });
  }
}

/**
 * Splits a command line the way a POSIX shell splits words (quotes and backslashes; no
 * expansion), for the seed's one-string form `install_capability("fs", "npx pkg --root /x")`.
 */
export function splitCommandLine(line: string): string[] {
  const words: string[] = [];
  let word = '';
  let inWord = false;
  let quote: '"' | "'" | undefined;
  for (let i = 0; i < line.length; i++) {
    const char = line[i] as string;
    if (quote) {
      if (char === quote) quote = undefined;
      else if (char === '\\' && quote === '"' && i + 1 < line.length) word += line[++i];
      else word += char;
    } else if (char === '"' || char === "'") {
      quote = char;
      inWord = true;
    } else if (char === '\\' && i + 1 < line.length) {
      word += line[++i];
      inWord = true;
    } else if (/\s/.test(char)) {
      if (inWord) words.push(word);
      word = '';
      inWord = false;
    } else {
      word += char;
      inWord = true;
    }
  }
  if (quote) {
    throw new UserError(`unbalanced ${quote} quote in command "${line}"`, {
      code: 'COMMAND_QUOTES',
      hint: 'close the quote, or pass the program in `command` and each argument in `args`',
    });
  }
  if (inWord) words.push(word);
  return words;
}
