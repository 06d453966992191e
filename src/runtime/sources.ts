import { existsSync, readdirSync, statSync } from 'node:fs';
import { basename, dirname, isAbsolute, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * Where profiles and the documents they point at are found. A persona is asked for by name
 * (`oddie`), pinned to a version (`oddie@2`, also `oddie@v2`), by path, by `file:` URI, or by a
 * URI whose scheme a configured source maps to a directory (`klappy://personas/oddie` with
 * `{prefix: "klappy://", dir: ~/src/klappy.dev}` reads `~/src/klappy.dev/personas/oddie.md`).
 * `system_prompt_uri` and `brand_discipline_uri` resolve through the same sources, relative
 * paths against the profile's directory.
 */

/** One place profiles and documents come from: a directory, or a URI prefix mapped to one. */
export interface ProfileSource {
  /** A URI prefix (`klappy://`, `acme://personas/`); absent: a directory searched by name. */
  readonly prefix?: string;
  /** The directory (absolute). */
  readonly dir: string;
}

/** The extensions a profile file may have, in the order they are tried. */
export const PROFILE_EXTENSIONS = ['.yaml', '.yml', '.md', '.json'] as const;

/** A persona reference split into where to look and the version pinned, if any. */
export interface PersonaRef {
  /** What was asked for, without the pin. */
  readonly base: string;
  /** The pinned version (`2` for `oddie@2` and `oddie@v2`). */
  readonly pin?: string;
}

/** `oddie@2` → base `oddie`, pin `2`; a `@` inside a path's directories is not a pin. */
export function splitPin(ref: string): PersonaRef {
  const match = /^(.*[^/\\])@v?([A-Za-z0-9._-]+)$/.exec(ref);
  if (!match || /[/\\]/.test(match[2]!)) return { base: ref };
  return { base: match[1]!, pin: match[2]! };
}

/** A version as compared with a pin: `v2`, `2` and `2.0`'s leading `v` dropped. */
export function normalVersion(version: string | number): string {
  return String(version).replace(/^v/i, '');
}

/** True for `scheme://…` (and `scheme:…` other than a Windows drive). */
export function isUri(ref: string): boolean {
  return /^[a-z][a-z0-9+.-]*:/i.test(ref) && !/^[a-z]:[\\/]/i.test(ref);
}

/** The source whose prefix `uri` starts with (the longest), and the rest of the URI after it. */
export function sourceFor(
  uri: string,
  sources: readonly ProfileSource[],
): { source: ProfileSource; rest: string } | undefined {
  let best: ProfileSource | undefined;
  for (const source of sources) {
    if (source.prefix && uri.startsWith(source.prefix) && source.prefix.length > (best?.prefix?.length ?? -1))
      best = source;
  }
  return best && { source: best, rest: uri.slice(best.prefix!.length).replace(/^\/+/, '') };
}

/** The file for `base` (a path without or with an extension) under a pin, or undefined. */
function fileFor(base: string, pin: string | undefined): string | undefined {
  const withExt = (stem: string) =>
    PROFILE_EXTENSIONS.map((ext) => `${stem}${ext}`).find((file) => isFile(file));
  if (pin !== undefined) {
    const pinned = [`${base}@${pin}`, `${base}@v${pin}`, join(base, `v${pin}`), join(base, pin)];
    for (const stem of pinned) {
      const file = withExt(stem);
      if (file) return file;
    }
  }
  if (isFile(base)) return base;
  const plain = withExt(base) ?? withExt(join(base, 'index'));
  if (plain || pin !== undefined) return plain;
  return latestVersion(base);
}

/** The highest `NAME@N.ext` beside `base` (an unpinned request takes the latest version). */
function latestVersion(base: string): string | undefined {
  const dir = dirname(base);
  const name = basename(base);
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return undefined;
  }
  let best: { n: number[]; file: string } | undefined;
  for (const entry of names) {
    const match = new RegExp(`^${escapeRegExp(name)}@v?([0-9][0-9.]*)(\\.(?:yaml|yml|md|json))$`).exec(entry);
    if (!match) continue;
    const n = match[1]!.split('.').map(Number);
    if (!best || compareVersions(n, best.n) > 0) best = { n, file: join(dir, entry) };
  }
  return best?.file;
}

function compareVersions(a: number[], b: number[]): number {
  for (let i = 0; i < Math.max(a.length, b.length); i++) {
    const d = (a[i] ?? 0) - (b[i] ?? 0);
    if (d !== 0) return d;
  }
  return 0;
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

function isFile(path: string): boolean {
  return statSync(path, { throwIfNoEntry: false })?.isFile() ?? false;
}

export interface ProfileLookup {
  readonly pin?: string;
  /** The file found, when one was. */
  readonly file?: string;
  /** Every place looked, for the error when nothing was found. */
  readonly looked: readonly string[];
}

/**
 * Finds the profile file for a `--persona` value: a `file:` URI, a URI through a prefix source,
 * a path (relative to `cwd`), or a name (with an optional pin) in the directories `dirs` (the
 * home's `personas/`, then the directory sources), in order.
 */
export function findProfile(
  ref: string,
  options: {
    readonly dirs: readonly string[];
    readonly sources: readonly ProfileSource[];
    readonly cwd: string;
  },
): ProfileLookup {
  const { base, pin } = splitPin(ref);
  const at = (file: string | undefined, looked: string[]): ProfileLookup => ({
    ...(pin !== undefined ? { pin } : {}),
    ...(file ? { file } : {}),
    looked,
  });
  if (base.startsWith('file:')) {
    const path = fileURLToPath(base);
    return at(fileFor(path, pin), [path]);
  }
  if (isUri(base)) {
    const mapped = sourceFor(base, options.sources);
    if (!mapped) return at(undefined, [`${base} (no source maps ${base.split(':')[0]}:)`]);
    const path = join(mapped.source.dir, mapped.rest);
    return at(fileFor(path, pin), [path]);
  }
  if (/[/\\]/.test(base) || PROFILE_EXTENSIONS.some((ext) => base.toLowerCase().endsWith(ext))) {
    const path = isAbsolute(base) ? base : resolve(options.cwd, base);
    return at(fileFor(path, pin), [path]);
  }
  const dirs = [...options.dirs, ...options.sources.filter((s) => !s.prefix).map((s) => s.dir)];
  const looked: string[] = [];
  for (const dir of dirs) {
    const path = join(dir, base);
    looked.push(path);
    const file = fileFor(path, pin);
    if (file) return at(file, looked);
  }
  return at(undefined, looked);
}

/** A document a profile points at, resolved to its file and the section its `#fragment` names. */
export interface ResolvedDocument {
  readonly file: string;
  readonly fragment?: string;
}

/**
 * Resolves a document URI (`system_prompt_uri`, `brand_discipline_uri`): a path relative to the
 * profile's directory, a `file:` URI, or a URI through a prefix source (the file as named, else
 * with `.md`). Returns why not when it resolves nowhere.
 */
export function resolveDocument(
  uri: string,
  options: { readonly baseDir: string; readonly sources: readonly ProfileSource[] },
): ResolvedDocument | { readonly problem: string } {
  const hash = uri.indexOf('#');
  const target = hash >= 0 ? uri.slice(0, hash) : uri;
  const fragment = hash >= 0 ? uri.slice(hash + 1) : undefined;
  let path: string;
  if (target.startsWith('file:')) path = fileURLToPath(target);
  else if (isUri(target)) {
    const mapped = sourceFor(target, options.sources);
    if (!mapped) {
      const prefixes = options.sources.filter((s) => s.prefix).map((s) => s.prefix);
      return {
        problem: `${uri} resolves nowhere: no source maps ${target.split(':')[0]}: (${prefixes.length > 0 ? `configured: ${prefixes.join(', ')}` : 'none configured'})`,
      };
    }
    path = join(mapped.source.dir, mapped.rest);
  } else path = isAbsolute(target) ? target : resolve(options.baseDir, target);
  const file = [path, `${path}.md`].find((candidate) => isFile(candidate));
  if (!file)
    return { problem: `${uri} resolves nowhere: no file ${path}${isUri(target) ? ' (nor .md)' : ''}` };
  return { file, ...(fragment ? { fragment } : {}) };
}

/** Whether a directory exists (sources are checked when settings are read). */
export function isDirectory(path: string): boolean {
  return existsSync(path) && statSync(path).isDirectory();
}

/** A heading's anchor as markdown renderers make it: `## Brand guide` → `brand-guide`. */
export function slugOf(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s+/g, '-');
}

/**
 * The section of a markdown text under the heading whose anchor is `fragment`: from the heading
 * to the next heading of the same or a higher level; undefined when there is no such heading.
 */
export function sectionOf(text: string, fragment: string): string | undefined {
  const lines = text.split('\n');
  const wanted = slugOf(fragment.replace(/-/g, ' '));
  let start = -1;
  let level = 0;
  for (const [i, line] of lines.entries()) {
    const heading = /^(#{1,6})\s+(.*?)\s*#*\s*$/.exec(line);
    if (!heading) continue;
    if (start >= 0 && heading[1]!.length <= level) return lines.slice(start, i).join('\n').trim();
    if (start < 0 && slugOf(heading[2]!) === wanted) {
      start = i;
      level = heading[1]!.length;
    }
  }
  return start >= 0 ? lines.slice(start).join('\n').trim() : undefined;
}
