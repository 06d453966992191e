/**
 * The glob compiler (core/glob's index loads it on demand): picomatch, case-insensitive (hosts
 * spell the same tool `Bash` or `bash`); `*` any run of characters, `/` and a leading `.`
 * included (tool names are not paths); `?` one character but `/`; `{a,b}` alternatives; `[pP]`
 * classes; a leading `!` is a literal character, not a negation (in a list that gates whatever
 * matches any glob, `!Bash` would gate every other tool).
 */
import picomatch from 'picomatch';
import {
  type CompiledCallGlob,
  type CompiledToolGlob,
  matchCompiledCallGlob,
  matchCompiledToolGlob,
} from './index.js';

const OPTIONS: picomatch.PicomatchOptions = {
  nocase: true,
  dot: true,
  bash: true,
  nonegate: true,
  windows: false,
};

/** A tool-name glob compiled to a regex source (matched case-insensitively). Throws on a bad glob. */
export function toolGlobSource(glob: string): string {
  return picomatch.makeRe(glob, OPTIONS).source;
}

/** A matcher for one tool-name glob (its compiled source, as the hooks match). Throws on a bad glob. */
export function toolGlob(glob: string): (toolName: string) => boolean {
  const compiled = [{ glob, source: toolGlobSource(glob) }];
  return (toolName) => matchCompiledToolGlob(toolName, compiled) !== null;
}

/** Tool-name globs with their compiled sources; a glob picomatch cannot compile is left out (it matches nothing). */
export function compileToolGlobs(globs: readonly string[]): CompiledToolGlob[] {
  const out: CompiledToolGlob[] = [];
  for (const glob of globs) {
    try {
      out.push({ glob, source: toolGlobSource(glob) });
    } catch {
      // matches nothing
    }
  }
  return out;
}

const compiledLists = new Map<string, CompiledToolGlob[]>();

/** The first glob of `globs` that matches `toolName`, or null; a glob that does not compile matches nothing. */
export function matchToolGlob(toolName: string, globs: readonly string[]): string | null {
  const key = JSON.stringify(globs);
  let compiled = compiledLists.get(key);
  if (!compiled) {
    compiled = compileToolGlobs(globs);
    compiledLists.set(key, compiled);
  }
  return matchCompiledToolGlob(toolName, compiled);
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

/** The literal text a glob starts with, lower-cased ('' when it starts with a glob character). */
function literalPrefix(glob: string): string {
  const at = glob.search(/[*?[\]{}()!@+\\]/);
  return (at < 0 ? glob : glob.slice(0, at)).toLowerCase();
}

/** Compiles an `applies_to` pattern to regex sources (see callGlob). Throws on a bad glob. */
export function compileCallGlob(pattern: string): CompiledCallGlob {
  const call = CALL_PATTERN.exec(pattern.trim());
  const withPrefix = (c: CompiledCallGlob, name: string, arg?: string): CompiledCallGlob => {
    const namePrefix = literalPrefix(name);
    const argPrefix = arg === undefined ? '' : literalPrefix(arg);
    return { ...c, ...(namePrefix ? { namePrefix } : {}), ...(argPrefix ? { argPrefix } : {}) };
  };
  if (!call) return withPrefix({ name: toolGlobSource(pattern) }, pattern.trim());
  const [name, arg] = [call[1]!.trim(), call[2]!.trim()];
  return withPrefix({ name: toolGlobSource(name), arg: toolGlobSource(arg) }, name, arg);
}

/** The matcher for a compiled pattern: the same answers as callGlob's, no glob parsing. */
export function callGlobFrom(
  compiled: CompiledCallGlob,
): (toolName: string, argValues: readonly string[]) => boolean {
  return (toolName, argValues) => matchCompiledCallGlob(compiled, toolName, argValues);
}
