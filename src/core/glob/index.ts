/**
 * @module core/glob — tool-name globs, one semantics for the PreToolUse gate (`gate.tools`,
 * `FIRSTLIGHT_GATED_TOOLS`) and memories' `applies_to`, compiled by picomatch (compile.ts).
 *
 * This face is what a hook loads on every tool call, so it holds no glob parser: it matches
 * globs already compiled to regex sources (by `compileCallGlob`, `toolGlobSource`, kept in the
 * caution table and the gate's default list) and loads the compiler only when asked
 * (`loadGlobCompiler`). Loading picomatch and compiling the gate's default list cost a hook
 * about 10 ms of its ~190 ms (on a 2-core machine where `node -e 0` takes ~130 ms).
 */

/** A compiled `applies_to` pattern as data: regex sources, so a reader skips picomatch's parser. */
export interface CompiledCallGlob {
  /** The tool-name regex source (case-insensitive). */
  name: string;
  /** The argument regex source, for `Name(argGlob)`. */
  arg?: string;
  /** Lower-cased literal prefixes every match starts with (the text before the first glob character). */
  namePrefix?: string;
  argPrefix?: string;
}

/** A tool-name glob and its compiled regex source (case-insensitive). */
export interface CompiledToolGlob {
  glob: string;
  source: string;
}

/** The compiler (picomatch), loaded on first use. */
export function loadGlobCompiler(): Promise<typeof import('./compile.js')> {
  return import('./compile.js');
}

/** The string and number leaves of a tool's arguments (depth ≤ 4, at most 64), for argument globs. */
export function argValuesOf(args: unknown): string[] {
  const out: string[] = [];
  const walk = (v: unknown, depth: number) => {
    if (depth > 4 || out.length >= 64) return;
    if (typeof v === 'string' || typeof v === 'number') out.push(String(v));
    else if (Array.isArray(v)) for (const x of v) walk(x, depth + 1);
    else if (v && typeof v === 'object') for (const x of Object.values(v)) walk(x, depth + 1);
  };
  walk(args, 0);
  return out;
}

const regexes = new Map<string, RegExp>();
function cachedRegExp(source: string, flags: string): RegExp {
  const key = `${flags}/${source}`;
  let r = regexes.get(key);
  if (!r) {
    r = new RegExp(source, flags);
    regexes.set(key, r);
  }
  return r;
}

/** The first compiled glob that matches `toolName`, or null. */
export function matchCompiledToolGlob(toolName: string, globs: readonly CompiledToolGlob[]): string | null {
  for (const { glob, source } of globs) if (cachedRegExp(source, 'i').test(toolName)) return glob;
  return null;
}

/**
 * Does a compiled pattern match this call? The literal prefixes are checked first, so most of a
 * thousand patterns are ruled out by a string comparison; regexes are built once per source.
 */
export function matchCompiledCallGlob(
  c: CompiledCallGlob,
  toolName: string,
  argValues: readonly string[],
): boolean {
  if (c.namePrefix && !toolName.toLowerCase().startsWith(c.namePrefix)) return false;
  if (!cachedRegExp(c.name, 'i').test(toolName)) return false;
  if (c.arg === undefined) return true;
  const prefix = c.argPrefix;
  // `*` in an argument glob spans lines too: a multi-line command is one value.
  const arg = cachedRegExp(c.arg, 'is');
  return argValues.some((v) => (!prefix || v.toLowerCase().startsWith(prefix)) && arg.test(v));
}
