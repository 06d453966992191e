/**
 * JSON config files, read and edited with jsonc-parser: JSONC comments and trailing commas are
 * accepted (VS Code's mcp.json), and an edit touches only the values that change, so the rest
 * of the file keeps its bytes: the user's formatting, comments and key order.
 */
import {
  applyEdits,
  type FormattingOptions,
  format,
  modify,
  type ParseError,
  parse,
  printParseErrorCode,
} from 'jsonc-parser';

export type JsonObject = Record<string, unknown>;

export type ParsedJson = { ok: true; value: JsonObject } | { ok: false; error: string };

/** Parses a config file's text (comments and trailing commas allowed); empty text is an empty object. */
export function parseJsonConfig(text: string): ParsedJson {
  const body = text.replace(/^\uFEFF/, '');
  if (body.trim() === '') return { ok: true, value: {} };
  const errors: ParseError[] = [];
  const value = parse(body, errors, { allowTrailingComma: true, disallowComments: false }) as unknown;
  if (errors.length > 0) {
    const first = errors[0]!;
    return { ok: false, error: `${printParseErrorCode(first.error)} at offset ${first.offset}` };
  }
  if (!isObject(value)) return { ok: false, error: 'the top level is not a JSON object' };
  return { ok: true, value };
}

const isObject = (v: unknown): v is JsonObject => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * How to lay out a value inserted into `text`: like its neighbours (the file's indentation and
 * line ends), or not at all in a file written on one line, which stays on one line.
 */
function formatting(text: string): FormattingOptions | null {
  if (!text.trim().includes('\n')) return null;
  const match = /\n([ \t]+)["}\]]/.exec(text);
  const eol = text.includes('\r\n') ? '\r\n' : '\n';
  if (!match) return { insertSpaces: true, tabSize: 2, eol };
  return match[1]!.startsWith('\t')
    ? { insertSpaces: false, tabSize: 1, eol }
    : { insertSpaces: true, tabSize: match[1]!.length, eol };
}

/**
 * `text` with the value at `path` set (or removed, for undefined). Only the inserted value is
 * laid out (jsonc-parser's own formatting option would re-lay the lines around it too).
 */
function setAt(text: string, path: string[], value: unknown, layout: FormattingOptions | null): string {
  let out = text;
  const edits = modify(text, path, value, {}).sort((a, b) => b.offset - a.offset);
  for (const edit of edits) {
    out = out.slice(0, edit.offset) + edit.content + out.slice(edit.offset + edit.length);
    if (layout && edit.content.length > 0)
      out = applyEdits(out, format(out, { offset: edit.offset, length: edit.content.length }, layout));
  }
  return out;
}

/**
 * `text` changed from holding `before` to holding `after` with the fewest edits: keys whose
 * values differ are set, keys that went are removed, everything else keeps its bytes. Text
 * that holds nothing yet becomes `after`, printed with two spaces.
 */
export function editJsonText(text: string, before: JsonObject, after: JsonObject): string {
  if (text.trim() === '') return `${JSON.stringify(after, null, 2)}\n`;
  const layout = formatting(text);
  let out = text;
  const walk = (from: JsonObject, to: JsonObject, path: string[]): void => {
    for (const key of Object.keys(from)) {
      if (!(key in to)) out = setAt(out, [...path, key], undefined, layout);
    }
    for (const [key, value] of Object.entries(to)) {
      const old = from[key];
      if (jsonEqual(old, value)) continue;
      if (isObject(old) && isObject(value)) walk(old, value, [...path, key]);
      else out = setAt(out, [...path, key], value, layout);
    }
  };
  walk(before, after, []);
  return out;
}

/** The object at `path`, created (as `{}`) along the way when `create`. */
export function objectAt(root: JsonObject, path: string[], create: boolean): JsonObject | undefined {
  let node: JsonObject = root;
  for (const key of path) {
    const next = node[key];
    if (isObject(next)) {
      node = next;
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
