/** JSON config files: parse (tolerating JSONC comments), edit one key path, write back in the file's own indent. */

export type JsonObject = Record<string, unknown>;

export type ParsedJson =
  | { ok: true; value: JsonObject; indent: string | number; hadComments: boolean }
  | { ok: false; error: string };

/** Strips `//` and `/* *\/` comments and trailing commas outside strings (VS Code's mcp.json is JSONC). */
export function stripJsonComments(text: string): string {
  let out = '';
  let i = 0;
  let inString = false;
  while (i < text.length) {
    const c = text[i]!;
    if (inString) {
      out += c;
      if (c === '\\') {
        out += text[i + 1] ?? '';
        i += 2;
        continue;
      }
      if (c === '"') inString = false;
      i++;
      continue;
    }
    if (c === '"') {
      inString = true;
      out += c;
      i++;
    } else if (c === '/' && text[i + 1] === '/') {
      while (i < text.length && text[i] !== '\n') i++;
    } else if (c === '/' && text[i + 1] === '*') {
      const end = text.indexOf('*/', i + 2);
      i = end < 0 ? text.length : end + 2;
    } else {
      out += c;
      i++;
    }
  }
  return out.replace(/,(\s*[}\]])/g, '$1');
}

/** Parses a config file's text; empty text is an empty object. */
export function parseJsonConfig(text: string): ParsedJson {
  const body = text.replace(/^\uFEFF/, '');
  if (body.trim() === '') return { ok: true, value: {}, indent: 2, hadComments: false };
  const indent = detectIndent(body);
  for (const [candidate, hadComments] of [
    [body, false],
    [stripJsonComments(body), true],
  ] as const) {
    try {
      const value = JSON.parse(candidate) as unknown;
      if (typeof value !== 'object' || value === null || Array.isArray(value)) {
        return { ok: false, error: 'the top level is not a JSON object' };
      }
      return { ok: true, value: value as JsonObject, indent, hadComments };
    } catch (error) {
      if (hadComments) return { ok: false, error: (error as Error).message };
    }
  }
  return { ok: false, error: 'unparsable' };
}

function detectIndent(text: string): string | number {
  const match = /\n([ \t]+)["}\]]/.exec(text);
  if (!match) return 2;
  return match[1]!.startsWith('\t') ? '\t' : match[1]!.length;
}

export function stringifyJsonConfig(value: JsonObject, indent: string | number): string {
  return `${JSON.stringify(value, null, indent)}\n`;
}

/** The object at `path`, created (as `{}`) along the way when `create`. */
export function objectAt(root: JsonObject, path: string[], create: boolean): JsonObject | undefined {
  let node: JsonObject = root;
  for (const key of path) {
    const next = node[key];
    if (typeof next === 'object' && next !== null && !Array.isArray(next)) {
      node = next as JsonObject;
    } else if (create) {
      const fresh: JsonObject = {};
      node[key] = fresh;
      node = fresh;
    } else {
      return undefined;
    }
  }
  return node;
}

/** Deep equality for JSON values (key order ignored). */
export function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== typeof b || a === null || b === null || typeof a !== 'object') return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a)) {
    const bb = b as unknown[];
    return a.length === bb.length && a.every((x, i) => jsonEqual(x, bb[i]));
  }
  const ka = Object.keys(a as object);
  const kb = Object.keys(b as object);
  return ka.length === kb.length && ka.every((k) => jsonEqual((a as JsonObject)[k], (b as JsonObject)[k]));
}
