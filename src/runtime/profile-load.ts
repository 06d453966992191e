import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, extname, join } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { closest, memoByFiles, NotFoundError, parseFrontmatter } from '../core/index.js';
import { invalid, type Profile, type ProfileOptions, type PromptSource, parseProfile } from './profile.js';
import {
  findProfile,
  normalVersion,
  type ProfileSource,
  type ResolvedDocument,
  resolveDocument,
  sectionOf,
} from './sources.js';

/**
 * Loading a persona profile: YAML (or JSON), or a voice-canon markdown file whose YAML
 * frontmatter holds the fields and whose body is the system prompt; found by name (pinned to a
 * version with `NAME@N`) in `<home>/personas/` and the configured sources, by path, or by URI
 * (sources.ts). The documents it points at are resolved here, at load: one that resolves
 * nowhere is a profile error naming its field.
 */

/** Where a `--persona` value points (the file, or where it would be); see {@link findProfile}. */
export function profilePath(ref: string, options: ProfileOptions): string {
  const found = lookup(ref, options);
  return found.file ?? found.looked[0] ?? ref;
}

function lookup(ref: string, options: ProfileOptions) {
  return findProfile(ref, {
    dirs: [join(options.home, 'personas')],
    sources: options.sources ?? [],
    cwd: options.cwd ?? process.cwd(),
  });
}

/** Reads and validates a profile and resolves what it points at; every problem is a ConfigError naming the field. */
export function loadProfile(ref: string, options: ProfileOptions): Profile {
  return readFound(ref, options).value;
}

/** Finds and reads the profile `ref` names: the profile and the files it was read from. */
function readFound(ref: string, options: ProfileOptions): { value: Profile; files: string[] } {
  const found = lookup(ref, options);
  if (!found.file) throw notFound(ref, found.looked, options);
  const file = found.file;
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    throw invalid(file, '(file)', `cannot be read: ${(error as Error).message}`);
  }
  let raw: unknown;
  let body: string | undefined;
  if (extname(file).toLowerCase() === '.md') {
    const doc = parseFrontmatter(text);
    if (doc.error) throw invalid(file, '(frontmatter)', doc.error);
    raw = doc.data;
    body = doc.body.trim();
  } else {
    try {
      raw = parseYaml(text);
    } catch (error) {
      throw invalid(file, '(file)', `not valid YAML: ${(error as Error).message.split('\n')[0]}`);
    }
  }
  const profile = parseProfile(raw, file, body === undefined ? {} : { body });
  if (found.pin !== undefined && normalVersion(profile.version) !== normalVersion(found.pin)) {
    throw invalid(
      file,
      'version',
      `${ref} asks for version ${found.pin}, and ${file} is version ${profile.version}`,
      `put version ${found.pin} of the persona in ${file.replace(/(\.[a-z]+)$/i, `@${found.pin}$1`)}, or ask for ${ref.replace(/@[^@]*$/, '')}@${profile.version}`,
    );
  }
  const resolved = resolveDocuments(profile, options.sources ?? []);
  const files = [file, ...(resolved.prompt.kind === 'document' ? [resolved.prompt.file] : [])];
  if (resolved.brandDiscipline) files.push(resolved.brandDiscipline.file);
  return { value: resolved, files };
}

function notFound(ref: string, looked: readonly string[], options: ProfileOptions): NotFoundError {
  const personas = join(options.home, 'personas');
  const available = existsSync(personas)
    ? readdirSync(personas)
        .filter((name) => /\.(ya?ml|md|json)$/i.test(name))
        .map((name) => name.replace(/\.(ya?ml|md|json)$/i, ''))
    : [];
  const where = looked.length > 0 ? looked.join(', ') : personas;
  const hint =
    looked.length === 1 && looked[0] === join(personas, ref)
      ? `put ${ref}.yaml in ${personas} (firstlight init puts the five role personas there), or give persona as a path or URI`
      : `create the profile (YAML, or markdown with frontmatter) at one of those places, give persona as the name of a profile in ${personas}, or map the URI's scheme with runtime.sources in firstlight.yaml`;
  const close = closest(ref, available, 1);
  const there = available.length > 0 ? `${hint}; there: ${available.join(', ')}` : hint;
  return new NotFoundError(
    `persona profile "${ref}" not found (looked at ${where})`,
    close.length > 0 ? `did you mean ${close[0]}? Else ${there}` : there,
  );
}

/**
 * Resolves `system_prompt_uri` and `brand_discipline_uri` through the sources: a URI that
 * resolves nowhere, or a `#section` its document does not have, is a profile error naming the
 * field (never a prompt telling a model to go and read it).
 */
function resolveDocuments(profile: Profile, sources: readonly ProfileSource[]): Profile {
  const baseDir = dirname(profile.file);
  const documentAt = (field: string, uri: string): ResolvedDocument => {
    const resolved = resolveDocument(uri, { baseDir, sources });
    if ('problem' in resolved) {
      throw invalid(
        profile.file,
        field,
        resolved.problem,
        `point ${field} at a file (relative to the profile), a file: URI, or a URI whose scheme runtime.sources in firstlight.yaml maps to a directory`,
      );
    }
    if (
      resolved.fragment &&
      sectionOf(readFileSync(resolved.file, 'utf8'), resolved.fragment) === undefined
    ) {
      throw invalid(
        profile.file,
        field,
        `${uri}: ${resolved.file} has no section "#${resolved.fragment}"`,
        `add a heading that reads as ${resolved.fragment} to ${resolved.file}, or fix the #fragment of ${field}`,
      );
    }
    return resolved;
  };
  const prompt: PromptSource =
    profile.prompt.kind !== 'document'
      ? profile.prompt
      : { kind: 'document', ...documentAt('system_prompt_uri', profile.systemPromptUri) };
  const brandDiscipline = profile.brandDisciplineUri
    ? documentAt(profile.brandDisciplineField ?? 'brand_discipline_uri', profile.brandDisciplineUri)
    : undefined;
  return { ...profile, prompt, ...(brandDiscipline ? { brandDiscipline } : {}) };
}

const cached = new Map<string, () => Profile>();

/**
 * {@link loadProfile}, reusing the parsed profile while its files (the profile, its prompt and
 * brand documents) are unchanged (by mtime, size and inode): a long-lived runtime resolves a
 * profile with a few stats.
 */
export function loadProfileCached(ref: string, options: ProfileOptions): Profile {
  const key = `${options.home}\0${options.cwd ?? ''}\0${ref}\0${JSON.stringify(options.sources ?? [])}`;
  let memo = cached.get(key);
  if (!memo) {
    memo = memoByFiles(() => readFound(ref, options));
    cached.set(key, memo);
  }
  return memo();
}

/** One profile as `GET /v1/personas` and `list_personas` show it. */
export interface ProfileListing {
  /** What to pass as `persona`: the name, with `@N` for a versioned file. */
  readonly ref: string;
  readonly persona?: string;
  readonly version?: number | string;
  readonly description?: string;
  readonly file: string;
  readonly roles?: readonly string[];
  readonly role_default?: string;
  readonly surfaces?: readonly string[];
  /** Why it cannot be loaded (the profile error, naming the field). */
  readonly error?: string;
}

/**
 * The profiles in `<home>/personas/` and the directory sources (prefix sources are resolved by
 * URI only, never walked): each loaded, or listed with the error that keeps it from loading.
 */
export function listProfiles(options: ProfileOptions): ProfileListing[] {
  const dirs = [
    join(options.home, 'personas'),
    ...(options.sources ?? []).filter((s) => !s.prefix).map((s) => s.dir),
  ];
  const out: ProfileListing[] = [];
  const seen = new Set<string>();
  for (const dir of dirs) {
    let names: string[];
    try {
      names = readdirSync(dir).sort();
    } catch {
      continue;
    }
    for (const name of names) {
      const match = /^(.+?)(?:@v?([A-Za-z0-9._-]+))?\.(ya?ml|md|json)$/i.exec(name);
      if (!match) continue;
      const ref = match[2] ? `${match[1]}@${match[2]}` : match[1]!;
      if (seen.has(ref)) continue; // the first source that has it wins, as in a lookup
      seen.add(ref);
      const file = join(dir, name);
      // A markdown file without a persona in its frontmatter is a document, not a profile.
      if (match[3]!.toLowerCase() === 'md' && !isMarkdownProfile(file)) continue;
      try {
        const p = loadProfileCached(file, options);
        out.push({
          ref,
          persona: p.persona,
          version: p.version,
          ...(p.description ? { description: p.description } : {}),
          file,
          roles: [...p.roles.keys()],
          ...(p.roleDefault ? { role_default: p.roleDefault } : {}),
          surfaces: Object.keys(p.surfaces),
        });
      } catch (error) {
        out.push({ ref, file, error: (error as Error).message });
      }
    }
  }
  return out;
}

function isMarkdownProfile(file: string): boolean {
  try {
    return typeof parseFrontmatter(readFileSync(file, 'utf8')).data.persona === 'string';
  } catch {
    return false;
  }
}
