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
 * string or number argument values (nested ones too). Throws on a glob picomatch cannot compile.
 */
export function callGlob(pattern: string): (toolName: string, argValues: readonly string[]) => boolean {
  const call = CALL_PATTERN.exec(pattern.trim());
  if (!call) {
    const name = toolGlob(pattern);
    return (toolName) => name(toolName);
  }
  const name = toolGlob(call[1]!.trim());
  const arg = toolGlob(call[2]!.trim());
  return (toolName, argValues) => name(toolName) && argValues.some((v) => arg(v));
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
