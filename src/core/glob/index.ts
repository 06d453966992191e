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
