import { closeSync, existsSync, readdirSync, realpathSync, statSync } from 'node:fs';
import { basename, join } from 'node:path';
import {
  byCodeUnit,
  cachedParse,
  FileTooLargeError,
  isInside,
  openConfined,
  packagePath,
  parsedCacheFile,
  parseFrontmatter,
  readConfined,
} from '../core/index.js';

/** Where a guidance doc came from; a later layer replaces an earlier doc of the same name. */
export type GuidanceSource = 'embedded' | 'home' | 'project';

/** Guidance resources live under this URI prefix. */
export const GUIDANCE_URI_PREFIX = 'firstlight://guidance/';

/** A doc name is its URI segment and its `expand_reference` key: lowercase, digits, dashes. */
export const GUIDANCE_NAME = /^[a-z0-9][a-z0-9-]{0,63}$/;

/** Past this a file is not guidance but an accident; it is skipped and reported. */
export const MAX_GUIDANCE_BYTES = 128 * 1024;

/** One guidance document, as loaded from its layer. */
export interface GuidanceDoc {
  name: string;
  uri: string;
  title: string;
  description: string;
  /** How to hold this doc while working: the behavioural instruction that travels with it. */
  directive: string;
  /** Position in the boot prompt (ascending, then by name). */
  order: number;
  /** Other names the doc answers to (`main` for collaboration-patterns): references and `<alias>.md`. */
  aliases: string[];
  /** The markdown after the frontmatter. */
  body: string;
  /** The whole file as written: what `resources/read` and `expand_reference(name)` return. */
  text: string;
  source: GuidanceSource;
  file: string;
}

/** A file skipped while loading, and why. */
export interface GuidanceProblem {
  file: string;
  problem: string;
}

/** The merged docs of every layer, plus what was skipped. */
export interface GuidanceSet {
  docs: GuidanceDoc[];
  problems: GuidanceProblem[];
}

/** The docs shipped with the package. */
export function embeddedGuidanceDir(): string {
  return packagePath('assets', 'guidance');
}

/** One layer to load: a directory and the source it stands for. A missing directory is empty. */
export interface GuidanceLayer {
  dir: string;
  source: GuidanceSource;
  /** The directory `dir` must resolve inside (a project's root): a link out skips the layer. */
  root?: string;
}

/** What project docs pass through before they reach the model (core's redactor). */
export interface TextRedactor {
  readonly enabled: boolean;
  redact(text: string): string;
}

interface LoadOptions {
  cacheDir?: string | undefined;
  redactor?: TextRedactor | undefined;
}

/**
 * Loads and merges layers in order: a doc replaces an earlier doc of the same `name`, a new name
 * adds, and `enabled: false` removes the name. A malformed file is skipped and reported; the doc
 * it would have replaced stays.
 */
export function loadGuidance(layers: readonly GuidanceLayer[], options: LoadOptions = {}): GuidanceSet {
  const byName = new Map<string, GuidanceDoc>();
  const problems: GuidanceProblem[] = [];
  for (const layer of layers) {
    const loaded =
      layer.source === 'embedded' ? loadEmbedded(layer.dir, options.cacheDir) : loadLayer(layer, options);
    problems.push(...loaded.problems);
    for (const entry of loaded.entries) {
      if (entry.enabled) byName.set(entry.doc.name, entry.doc);
      else byName.delete(entry.doc.name);
    }
  }
  const docs = [...byName.values()].sort((a, b) => a.order - b.order || byCodeUnit(a.name, b.name));
  return { docs, problems };
}

interface LayerEntries {
  entries: { doc: GuidanceDoc; enabled: boolean }[];
  problems: GuidanceProblem[];
}

// The embedded docs cannot change while the process runs; overrides are re-read every time.
const embeddedCache = new Map<string, LayerEntries>();

function loadEmbedded(dir: string, cacheDir: string | undefined): LayerEntries {
  let cached = embeddedCache.get(dir);
  if (!cached) {
    cached = loadLayer({ dir, source: 'embedded' }, { cacheDir });
    embeddedCache.set(dir, cached);
  }
  return cached;
}

function loadLayer(layer: GuidanceLayer, options: LoadOptions): LayerEntries {
  const result: LayerEntries = { entries: [], problems: [] };
  // Most homes and projects have no overrides: answer that without throwing ENOENT.
  if (!existsSync(layer.dir)) return result;
  const outside = layer.root ? escapes(layer.dir, layer.root) : undefined;
  if (outside) {
    result.problems.push({
      file: layer.dir,
      problem: `resolves to ${outside}, outside ${layer.root}; not read`,
    });
    return result;
  }
  let names: string[];
  try {
    names = readdirSync(layer.dir).filter((n) => n.endsWith('.md') && !n.startsWith('.'));
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code !== 'ENOENT' && code !== 'ENOTDIR') {
      result.problems.push({
        file: layer.dir,
        problem: `cannot list directory: ${(error as Error).message}`,
      });
    }
    return result;
  }
  for (const fileName of names.sort()) {
    const file = join(layer.dir, fileName);
    try {
      const parsed = parseDocCached(file, layer, options);
      if (typeof parsed === 'string') result.problems.push({ file, problem: parsed });
      else result.entries.push(parsed);
    } catch (error) {
      result.problems.push({ file, problem: `unreadable: ${(error as Error).message}` });
    }
  }
  return result;
}

// Parsed override files by path, reused while size and mtime are unchanged: bootstrap_session
// and the prompt read every layer on each call, and YAML parsing is the expensive part. A
// one-shot process (the SessionStart hook) also finds them in the home's
// `cache/parsed-guidance.json`, and then loads no YAML parser.
const parsedCache = new Map<string, { key: string; parsed: ReturnType<typeof parseDoc> }>();

function parseDocCached(
  file: string,
  layer: GuidanceLayer,
  options: LoadOptions,
): ReturnType<typeof parseDoc> {
  const { source } = layer;
  // Confined before any cache is asked: a link out of the layer, a FIFO or a device is refused
  // (a /proc file or a key a cloned repository links to never reaches a parser or a cache).
  const opened = openConfined(file, { root: layer.dir });
  if (!opened) throw new Error('ENOENT');
  closeSync(opened.fd);
  const stat = opened.stats;
  const redactor = source === 'project' && options.redactor?.enabled ? options.redactor : undefined;
  // v2: entries older caches hold were read unconfined and unredacted.
  const flavour = `v2:${source}:${redactor ? 'redacted' : 'plain'}`;
  const key = `${flavour}:${stat.size}:${stat.mtimeMs}`;
  const hit = parsedCache.get(file);
  if (hit?.key === key) return hit.parsed;
  const parse = (f: string) => parseDoc(f, layer, redactor);
  const parsed = options.cacheDir
    ? cachedParse(file, parsedCacheFile(options.cacheDir, 'guidance'), parse, `${flavour}:${file}`)
    : parse(file);
  parsedCache.set(file, { key, parsed });
  return parsed;
}

/** Where `dir` really is, when that is outside `root` (both resolved); undefined when inside. */
function escapes(dir: string, root: string): string | undefined {
  try {
    const real = realpathSync.native(dir);
    return isInside(realpathSync.native(root), real) ? undefined : real;
  } catch {
    return undefined;
  }
}

/** Parses one doc file, or returns why it was skipped (naming the field and the fix). */
function parseDoc(
  file: string,
  layer: GuidanceLayer,
  redactor: TextRedactor | undefined,
): { doc: GuidanceDoc; enabled: boolean } | string {
  const { source } = layer;
  // Read confined again at the moment of use; a project's text passes the redactor whole, so the
  // frontmatter (title, directive: what the packet shows) and the body are both clean.
  let read: string;
  try {
    read = readConfined(file, { root: layer.dir, maxBytes: MAX_GUIDANCE_BYTES }) ?? '';
  } catch (error) {
    if (!(error instanceof FileTooLargeError)) throw error;
    return `${statSync(file).size} bytes is over the ${MAX_GUIDANCE_BYTES}-byte limit for a guidance doc; split it or trim it`;
  }
  const text = redactor ? redactor.redact(read) : read;
  const { data, body, error } = parseFrontmatter(text);
  if (error) return `${error}; fix the --- block at the top of the file`;
  const name = data.name ?? basename(file, '.md');
  if (typeof name !== 'string' || !GUIDANCE_NAME.test(name)) {
    return `frontmatter "name" must be lowercase letters, digits and dashes (got ${JSON.stringify(name)}); rename it, e.g. "coding-guidelines"`;
  }
  for (const field of ['title', 'description', 'directive'] as const) {
    if (data[field] !== undefined && typeof data[field] !== 'string') {
      return `frontmatter "${field}" must be a string; quote it`;
    }
  }
  if (data.order !== undefined && typeof data.order !== 'number') {
    return 'frontmatter "order" must be a number (lower comes first in the boot prompt)';
  }
  const aliases = data.aliases ?? [];
  if (!Array.isArray(aliases) || !aliases.every((a) => typeof a === 'string' && GUIDANCE_NAME.test(a))) {
    return 'frontmatter "aliases" must be a list of names (lowercase letters, digits and dashes), e.g. [main]';
  }
  if (data.enabled !== undefined && typeof data.enabled !== 'boolean') {
    return 'frontmatter "enabled" must be true or false (false removes a doc of that name)';
  }
  const title = (data.title as string | undefined) ?? firstHeading(body) ?? name;
  const doc: GuidanceDoc = {
    name,
    uri: `${GUIDANCE_URI_PREFIX}${name}`,
    title,
    description: ((data.description as string | undefined) ?? '').trim(),
    directive: ((data.directive as string | undefined) ?? defaultDirective(title)).trim(),
    order: (data.order as number | undefined) ?? 100,
    aliases: aliases as string[],
    body: body.trim(),
    text,
    source,
    file,
  };
  return { doc, enabled: data.enabled !== false };
}

function firstHeading(body: string): string | undefined {
  return /^#\s+(.+)$/m.exec(body)?.[1]?.trim();
}

function defaultDirective(title: string): string {
  return `Read "${title}" and apply it to the work we do together.`;
}
