/**
 * @module core/glob — tool-name globs, one semantics for the PreToolUse gate (`gate.tools`,
 * `FIRSTLIGHT_GATED_TOOLS`) and memories' `applies_to`. A light face: only picomatch, because
 * the gate loads it on every tool call.
 *
 * picomatch with: case-insensitive (hosts spell the same tool `Bash` or `bash`); `*` any run of
 * characters, `/` and a leading `.` included (tool names are not paths); `?` one character but
 * `/`; `{a,b}` alternatives; `[pP]` classes; a leading `!` is a literal character, not a
 * negation (in a list that gates whatever matches any glob, `!Bash` would gate every other tool).
 */
import picomatch from 'picomatch';

const OPTIONS: picomatch.PicomatchOptions = {
  nocase: true,
  dot: true,
  bash: true,
  nonegate: true,
  windows: false,
};

/** A matcher for one tool-name glob. Throws on a glob picomatch cannot compile. */
export function toolGlob(glob: string): (toolName: string) => boolean {
  const isMatch = picomatch(glob, OPTIONS);
  return (toolName) => isMatch(toolName);
}

const compiled = new Map<string, (toolName: string) => boolean>();

/** The first glob of `globs` that matches `toolName`, or null; a glob that does not compile matches nothing. */
export function matchToolGlob(toolName: string, globs: readonly string[]): string | null {
  for (const glob of globs) {
    let isMatch = compiled.get(glob);
    if (!isMatch) {
      try {
        isMatch = toolGlob(glob);
      } catch {
        isMatch = () => false;
      }
      compiled.set(glob, isMatch);
    }
    if (isMatch(toolName)) return glob;
  }
  return null;
}

/**
 * `Name(argGlob)`: a tool-name glob with a glob its arguments must match (`Bash(git push*)`,
 * `*(git push*)` for any tool). A name ending in an extglob operator (`@(…)`, `+(…)`, `!(…)`,
 * `?(…)`) stays a plain glob; a lone `*` before the parenthesis means any tool.
 */
const CALL_PATTERN = /^(\*|[^()]*[^()@!+*?])\((.*)\)$/s;

/**
 * A matcher for one `applies_to` pattern: a tool-name glob (`deploy_*`), or a tool-name glob
 * with an argument glob in parentheses (`Bash(git push*)`), which must match one of the call's
 * string or number argument values (nested ones too; `*` there spans lines). Throws on a glob
 * picomatch cannot compile.
 */
export function callGlob(pattern: string): (toolName: string, argValues: readonly string[]) => boolean {
  return callGlobFrom(compileCallGlob(pattern));
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

/** The literal text a glob starts with, lower-cased ('' when it starts with a glob character). */
function literalPrefix(glob: string): string {
  const at = glob.search(/[*?[\]{}()!@+\\]/);
  return (at < 0 ? glob : glob.slice(0, at)).toLowerCase();
}

/** Compiles an `applies_to` pattern to regex sources (see callGlob). Throws on a bad glob. */
export function compileCallGlob(pattern: string): CompiledCallGlob {
  const call = CALL_PATTERN.exec(pattern.trim());
  const source = (glob: string) => picomatch.makeRe(glob, OPTIONS).source;
  const withPrefix = (c: CompiledCallGlob, name: string, arg?: string): CompiledCallGlob => {
    const namePrefix = literalPrefix(name);
    const argPrefix = arg === undefined ? '' : literalPrefix(arg);
    return { ...c, ...(namePrefix ? { namePrefix } : {}), ...(argPrefix ? { argPrefix } : {}) };
  };
  if (!call) return withPrefix({ name: source(pattern) }, pattern.trim());
  const [name, arg] = [call[1]!.trim(), call[2]!.trim()];
  return withPrefix({ name: source(name), arg: source(arg) }, name, arg);
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
  const arg = cachedRegExp(c.arg, 'is');
  return argValues.some((v) => (!prefix || v.toLowerCase().startsWith(prefix)) && arg.test(v));
}

/** The matcher for a compiled pattern: the same answers as callGlob's, no glob parsing. */
export function callGlobFrom(
  compiled: CompiledCallGlob,
): (toolName: string, argValues: readonly string[]) => boolean {
  const name = new RegExp(compiled.name, 'i');
  if (compiled.arg === undefined) return (toolName) => name.test(toolName);
  // `*` in an argument glob spans lines too: a multi-line command is one value.
  const arg = new RegExp(compiled.arg, 'is');
  return (toolName, argValues) => name.test(toolName) && argValues.some((v) => arg.test(v));
}
