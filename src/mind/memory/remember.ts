import { closeSync, fsyncSync, readdirSync, statSync, unlinkSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import {
  callGlob,
  homePaths,
  mtimeMs,
  noteRedactions,
  openConfined,
  type RedactionCounts,
  readConfined,
  redactorFor,
  renderFrontmatter,
  UserError,
  withFileLock,
  writeConfined,
} from '../../core/index.js';
import { INDEX_FILE, isPlainMemoryFile, readMemoryText } from './entries.js';
import { readFrontmatter } from './fast-frontmatter.js';
import { fileNameFor, indexTitle, oneLine, shortTitle } from './names.js';
import { PROJECT_ID_FIELD, PROJECT_NAME_FIELD, type ProjectRef } from './scope.js';
import { MemoryStore } from './store.js';
import { normalizeType } from './types.js';

/** What `remember` accepts; everything but content and type is optional. */
export interface RememberInput {
  content: string;
  type: string;
  name?: string | undefined;
  description?: string | undefined;
  tags?: string[] | undefined;
  applies_to?: string[] | undefined;
  /** What a host's PreToolUse hook does when applies_to matches a call: warn (default), ask, deny. */
  on_match?: 'warn' | 'ask' | 'deny' | undefined;
  /** Show the caution at every matching call, not once per session. */
  repeat?: boolean | undefined;
  /** Overwrite a memory of the same name instead of refusing. */
  replace?: boolean | undefined;
  /**
   * `project`: the memory belongs to the current project (recall elsewhere leaves it out);
   * `global`: every project sees it. Default: project inside one, except `type: user` (a person
   * is the same everywhere); outside any project always global.
   */
  scope?: 'project' | 'global' | undefined;
  /**
   * More frontmatter, for writers that keep provenance (capture: `source`, `evidence`,
   * `status: proposed`). Only the keys in EXTRA_FIELDS; the fields above cannot be overridden.
   */
  extra?: Partial<Record<ExtraField, string | string[]>> | undefined;
}

/** The frontmatter keys `extra` may set. */
export const EXTRA_FIELDS = ['source', 'evidence', 'status', 'session', 'superseded_by'] as const;
export type ExtraField = (typeof EXTRA_FIELDS)[number];

/** A memory that looks like the one just written: its name, file and a 0-1 similarity. */
export interface SimilarMemory {
  name: string;
  file: string;
  score: number;
}

export interface RememberResult {
  name: string;
  type: string;
  /** File name inside memory/. */
  file: string;
  replaced: boolean;
  index_line: string;
  /** The project the memory belongs to, or null for a global memory. */
  project: ProjectRef | null;
  /** Existing memories this one resembles (never merged: read them, then forget or replace one). */
  similar: SimilarMemory[];
  /** What the redactor took out before writing, by kind (absent when nothing). */
  redacted?: RedactionCounts;
}

export interface RememberOptions {
  now?: Date;
  /** The caller's view of memory/ (a server's store); a one-shot caller gets one on the home's entry cache. */
  store?: MemoryStore;
  /** The current project, asked only for a project memory (it may write the project's id file). */
  project?: () => ProjectRef | null;
  /** Finds existing memories like the new one (the recall index's similar()); none when omitted. */
  similar?: (text: string, exclude: string) => SimilarMemory[];
}

/** Content above this is refused: a memory is a note, recall reads whole files. */
export const MAX_CONTENT_CHARS = 200_000;
const MAX_TAGS = 32;
export const INDEX_HEADER = '# Memory index\n\n';
/** write-file-atomic's temp files (`name.md.<number>`); one this old was left by a killed writer. */
const TEMP_FILE = /\.md\.\d+$/;
const STALE_TEMP_MS = 60_000;
/**
 * memory/ directories whose stale temp files this process removed: once per process is enough
 * (each process's first remember sweeps), and a listing of memory/ per remember is not free.
 */
const swept = new Set<string>();

/**
 * Writes one memory: a markdown file with frontmatter, then one MEMORY.md index line. The whole
 * step holds a cross-process lock on memory/ (`<home>/memory.lock`), so concurrent writers
 * (several servers on one home) neither lose lines nor both claim a name. The memory file is
 * written atomically (temp + rename); a new index line is appended in ONE write call, which a
 * killed process cannot tear; replacing a line rewrites MEMORY.md atomically. A crash between
 * the two steps leaves a valid memory file without its index line, never a torn file; a crash
 * mid-write leaves a temp file, which no reader lists and the next process's first remember
 * removes.
 *
 * A name is taken when a MEMORY.md title or any memory's frontmatter `name` equals it
 * (case-insensitive), or its file exists. Replacing keeps the file, its index line's place and
 * its `created` date.
 */
export async function remember(
  home: string,
  input: RememberInput,
  options: RememberOptions = {},
): Promise<RememberResult> {
  const redacted: RedactionCounts = {};
  const valid = validate(redactInput(home, input, redacted));
  const now = options.now ?? new Date();
  const paths = homePaths(home);
  const project = valid.scope === 'project' ? (options.project?.() ?? null) : null;
  // Frontmatter names are read before the lock (a rescan stats every file). A memory another
  // process writes meanwhile is found under the lock by its MEMORY.md line.
  const store =
    options.store ?? new MemoryStore(paths.memory, { cacheFile: join(paths.cache, 'memory-entries.json') });
  // A name derived from the content that another memory holds gets a number (`Deploy on Fridays
  // (2)`): a short title is more often shared than a whole first line was. A given name is refused.
  if (valid.derivedName && !valid.replace)
    valid.name = freeName(valid.name, (n) => store.fileNamed(n) !== undefined);
  const wanted = valid.name.toLowerCase();
  const namedFile = store.fileNamed(wanted);
  // The lock directory sits beside memory/, not in it: creating and removing it there moved
  // memory/'s mtime at every remember, and every snapshot (this process's too) then rescanned.
  return withFileLock(paths.memory, async () => {
    if (!swept.has(paths.memory)) {
      swept.add(paths.memory);
      removeStaleTemps(paths.memory, now);
    }
    const dirMtimeBefore = mtimeMs(paths.memory) ?? Number.NaN;
    const indexText = readIndex(paths.memory) ?? '';
    const lines = indexText.split('\n');
    const byTitle = findIndexLine(lines, (title) => unescapeTitle(title).toLowerCase() === wanted);
    const named =
      namedFile && isPlainMemoryFile(namedFile) && existsFile(join(paths.memory, namedFile))
        ? namedFile
        : undefined;
    const file = byTitle?.file ?? named ?? fileNameFor(valid.type, valid.name);
    const path = join(paths.memory, file);
    const exists = existsFile(path) || byTitle !== undefined;
    if (exists && !valid.replace) {
      throw new UserError(`a memory named "${valid.name}" already exists (${file})`, {
        code: 'MEMORY_EXISTS',
        hint: 'pass replace: true (CLI: --replace) to overwrite it, or choose another name',
      });
    }
    const stamp = now.toISOString();
    const frontmatter = {
      name: valid.name,
      type: valid.type,
      description: valid.description,
      tags: valid.tags.length > 0 ? valid.tags : undefined,
      applies_to: valid.appliesTo.length > 0 ? valid.appliesTo : undefined,
      on_match: valid.onMatch,
      repeat: valid.repeat,
      [PROJECT_ID_FIELD]: project?.id,
      [PROJECT_NAME_FIELD]: project?.name,
      ...valid.extra,
      created: exists ? (createdOf(paths.memory, file) ?? undefined) : stamp,
      updated: exists ? stamp : undefined,
    };
    // Confined: a memory file that is a symlink out of memory/ (or a FIFO) is refused, never written through.
    await writeConfined(path, renderFrontmatter(frontmatter, valid.content), { root: paths.memory });
    const line = `- [${indexTitle(valid.name)}](${file}) - ${oneLine(valid.description)}`;
    const lineAt = findIndexLine(lines, (_title, lineFile) => lineFile === file);
    if (lineAt) {
      lines[lineAt.index] = line;
      await writeIndex(paths.memory, lines.join('\n'));
    } else {
      const prefix = indexText === '' ? INDEX_HEADER : indexText.endsWith('\n') ? '' : '\n';
      appendOnce(paths.memoryIndex, `${prefix}${line}\n`);
    }
    // This process's next snapshot takes the two files in without stat'ing every other one.
    store.noteWritten([file, INDEX_FILE], dirMtimeBefore);
    noteRedactions(home, 'remember', redacted, now);
    return { name: valid.name, type: valid.type, file, replaced: exists, index_line: line, project };
  }).then((written) => ({
    ...written,
    similar: options.similar?.(`${valid.name}\n${valid.description}\n${valid.content}`, written.file) ?? [],
    ...(Object.keys(redacted).length > 0 ? { redacted } : {}),
  }));
}

/** Content, name, description and tags through the home's redactor (a pasted key, a <private> block). */
function redactInput(home: string, input: RememberInput, counts: RedactionCounts): RememberInput {
  const redactor = redactorFor(home);
  if (!redactor.enabled) return input;
  const text = (value: string | undefined) =>
    typeof value === 'string' ? redactor.redact(value, counts) : value;
  return {
    ...input,
    content: typeof input.content === 'string' ? redactor.redact(input.content, counts) : input.content,
    name: text(input.name),
    description: text(input.description),
    tags: input.tags?.map((t) => redactor.redact(String(t), counts)),
    extra: input.extra
      ? Object.fromEntries(
          Object.entries(input.extra).map(([k, v]) => [
            k,
            Array.isArray(v) ? v.map((x) => redactor.redact(String(x), counts)) : text(v),
          ]),
        )
      : undefined,
  };
}

/** `name`, or `name (2)`, `name (3)`, … the first that `taken` says is free. */
function freeName(name: string, taken: (name: string) => boolean): string {
  if (!taken(name.toLowerCase())) return name;
  for (let i = 2; i < 1000; i++) {
    const candidate = `${name} (${i})`;
    if (!taken(candidate.toLowerCase())) return candidate;
  }
  return name;
}

interface ValidInput {
  content: string;
  type: string;
  name: string;
  description: string;
  tags: string[];
  appliesTo: string[];
  onMatch: 'ask' | 'deny' | undefined;
  repeat: true | undefined;
  replace: boolean;
  /** The name was made from the content (no name given). */
  derivedName: boolean;
  scope: 'project' | 'global';
  extra: Record<string, string | string[]>;
}

function validate(input: RememberInput): ValidInput {
  const content = typeof input.content === 'string' ? input.content.replace(/\r\n/g, '\n').trim() : '';
  if (content === '') {
    throw new UserError('content is empty', {
      code: 'INVALID_ARGUMENT',
      hint: 'content: the text to remember (CLI: pipe it on stdin)',
    });
  }
  if (content.length > MAX_CONTENT_CHARS) {
    throw new UserError(`content is ${content.length} characters; the limit is ${MAX_CONTENT_CHARS}`, {
      code: 'INVALID_ARGUMENT',
      hint: 'content: split it into several memories, each about one thing',
    });
  }
  if (content.includes('\u0000')) {
    throw new UserError('content contains NUL bytes', {
      code: 'INVALID_ARGUMENT',
      hint: 'content: memories are text; store a path to binary data instead',
    });
  }
  const type = normalizeType(input.type ?? '');
  const given = oneLine(input.name ?? '');
  const name = given || shortTitle(content);
  if (name.length > 200) {
    throw new UserError('name is longer than 200 characters', {
      code: 'INVALID_ARGUMENT',
      hint: 'name: a short title; put detail in description or content',
    });
  }
  const description = oneLine(input.description ?? '') || clip(firstSentence(content), 160);
  const tags = [...new Set((input.tags ?? []).map((t) => oneLine(String(t))).filter(Boolean))];
  if (tags.length > MAX_TAGS) {
    throw new UserError(`${tags.length} tags given; the limit is ${MAX_TAGS}`, {
      code: 'INVALID_ARGUMENT',
      hint: 'tags: keep the few that you would filter by',
    });
  }
  const appliesTo = [...new Set((input.applies_to ?? []).map((g) => String(g).trim()).filter(Boolean))];
  for (const glob of appliesTo) {
    try {
      callGlob(glob);
    } catch (error) {
      throw new UserError(`applies_to glob "${glob}" is invalid: ${(error as Error).message}`, {
        code: 'INVALID_ARGUMENT',
        hint: 'applies_to: tool-name globs such as "Bash", "git_push*", "mcp__github__*", or with an argument glob, "Bash(git push*)"',
      });
    }
  }
  const onMatch = input.on_match === 'warn' ? undefined : input.on_match;
  if (onMatch !== undefined && onMatch !== 'ask' && onMatch !== 'deny') {
    throw new UserError(`on_match "${String(onMatch)}" is not one of warn, ask, deny`, {
      code: 'INVALID_ARGUMENT',
      hint: 'on_match: warn (the default), ask or deny',
    });
  }
  return {
    content,
    type,
    name,
    description,
    tags,
    appliesTo,
    onMatch,
    repeat: input.repeat === true ? true : undefined,
    replace: input.replace === true,
    derivedName: given === '',
    scope: scopeOf(input.scope, type),
    extra: extraOf(input.extra),
  };
}

function extraOf(extra: RememberInput['extra']): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  for (const [key, value] of Object.entries(extra ?? {})) {
    if (!(EXTRA_FIELDS as readonly string[]).includes(key)) {
      throw new UserError(`extra field "${key}" is not one remember keeps`, {
        code: 'INVALID_ARGUMENT',
        hint: `extra: only ${EXTRA_FIELDS.join(', ')}`,
      });
    }
    if (value === undefined) continue;
    out[key] = Array.isArray(value) ? value.map((v) => oneLine(String(v))) : oneLine(String(value));
  }
  return out;
}

function scopeOf(scope: unknown, type: string): 'project' | 'global' {
  if (scope === undefined || scope === null) return type === 'user' ? 'global' : 'project';
  if (scope === 'project' || scope === 'global') return scope;
  throw new UserError(`scope "${String(scope)}" is not project or global`, {
    code: 'INVALID_ARGUMENT',
    hint: 'scope: project (this project only; the default) or global (every project)',
  });
}

/** MEMORY.md's text, read confined to memory/; undefined when there is none. */
export function readIndex(memoryDir: string): string | undefined {
  return readConfined(join(memoryDir, INDEX_FILE), { root: memoryDir });
}

/** Rewrites MEMORY.md atomically, confined to memory/. */
export async function writeIndex(memoryDir: string, text: string): Promise<void> {
  await writeConfined(join(memoryDir, INDEX_FILE), text, { root: memoryDir });
}

/**
 * A MEMORY.md line `- [Title](file.md) - hook`, found by a predicate on title and file. Only a
 * line that links to a plain memory file name counts: one linking to a path (`../../x.sh`) is
 * not a memory's line, so no writer, mover or reader is ever sent there by it.
 */
export function findIndexLine(
  lines: string[],
  match: (title: string, file: string) => boolean,
): { index: number; file: string } | undefined {
  for (let i = 0; i < lines.length; i++) {
    const m = /^\s*[-*]\s+\[((?:\\.|[^\]\\])*)\]\(([^)]+)\)/.exec(lines[i]!);
    if (m && isPlainMemoryFile(m[2]!) && match(m[1]!, m[2]!)) return { index: i, file: m[2]! };
  }
  return undefined;
}

/** Whether `line` is one MEMORY.md line linking to `file` (a sidecar's or an import's). */
export function isOwnIndexLine(line: string, file: string): boolean {
  return !/[\r\n]/.test(line) && findIndexLine([line], (_title, lineFile) => lineFile === file) !== undefined;
}

/** The `created` date of an existing memory file, as written there. */
function createdOf(memoryDir: string, file: string): string | undefined {
  let text = '';
  try {
    text = readMemoryText(memoryDir, file) ?? '';
  } catch {
    // refused or unreadable: the write below is refused the same way, or starts the date afresh
  }
  const created = readFrontmatter(text).data.created;
  if (created instanceof Date) return Number.isNaN(created.getTime()) ? undefined : created.toISOString();
  return typeof created === 'string' || typeof created === 'number' ? String(created) : undefined;
}

/** Deletes temp files a killed writer left in memory/ (only old ones: a live writer renames within ms). */
function removeStaleTemps(dir: string, now: Date): void {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return;
  }
  for (const name of names) {
    if (!TEMP_FILE.test(name)) continue;
    try {
      const path = join(dir, name);
      if (now.getTime() - statSync(path).mtimeMs > STALE_TEMP_MS) unlinkSync(path);
    } catch {
      // Gone already, or not ours to delete: the next process's first remember tries again.
    }
  }
}

export function unescapeTitle(title: string): string {
  return title.replace(/\\([[\]\\])/g, '$1');
}

/**
 * Appends `text` in one write and fsyncs. Not write-file-atomic, which would rewrite the whole
 * index for one line: measured on a 10,000-line (927 KB) MEMORY.md, append + fsync took 0.48 ms
 * and read + rewrite + fsync + rename 10.4 ms (median of 40), all of it under the memory lock
 * every concurrent remember waits on. `appendFileSync`'s `flush` option would do, but Node 20
 * has it only from 20.10 and older releases ignore it silently.
 */
export function appendOnce(path: string, text: string): void {
  // Opened confined to its directory: a MEMORY.md that is a symlink out is refused.
  const { fd } = openConfined(path, { mode: 'append' })!;
  try {
    writeSync(fd, text);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

function existsFile(path: string): boolean {
  try {
    return statSync(path).isFile();
  } catch {
    return false;
  }
}

function firstSentence(text: string): string {
  const flat = oneLine(text.replace(/^#+\s*/gm, ''));
  const m = /^(.+?[.!?])(\s|$)/.exec(flat);
  return m ? m[1]! : flat;
}

function clip(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1).trimEnd()}…`;
}
