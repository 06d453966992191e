/**
 * Tool-name globs for the gate: `*` any run of characters, `?` one, `{a,b}` alternatives;
 * case-insensitive, since hosts spell the same tool `Bash` or `bash`. Hand-rolled because the
 * gate runs on every tool call and a glob library costs more to load than the whole check.
 */
export function globToRegExp(glob: string): RegExp {
  let out = '';
  let depth = 0;
  for (const c of glob) {
    if (c === '*') out += '.*';
    else if (c === '?') out += '.';
    else if (c === '{') {
      depth++;
      out += '(?:';
    } else if (c === '}' && depth > 0) {
      depth--;
      out += ')';
    } else if (c === ',' && depth > 0) out += '|';
    else out += c.replace(/[.+^$()|[\]\\]/g, '\\$&');
  }
  return new RegExp(`^${out}$`, 'i');
}

export function matchesAny(name: string, globs: readonly string[]): string | null {
  for (const glob of globs) if (globToRegExp(glob).test(name)) return glob;
  return null;
}
