import { basename, extname } from 'node:path';
import {
  parseFrontmatter,
  type RedactionCounts,
  type Redactor,
  renderFrontmatter,
} from '../../../core/index.js';
import { fileNameFor, oneLine } from '../names.js';
import { MAX_CONTENT_CHARS } from '../remember.js';
import { PROJECT_ID_FIELD, PROJECT_NAME_FIELD, type ProjectRef } from '../scope.js';
import { isValidType, MEMORY_TYPES } from '../types.js';

/** A note as a memory: the file it becomes and what the table shows. */
export interface MappedNote {
  file: string;
  name: string;
  type: string;
  description: string;
  text: string;
  body: string;
}

/**
 * Types of other tools' notes, mapped to ours: basic-memory's entity types, Obsidian folder
 * names, Claude Code's four (user, feedback, project, reference: ours already). Anything else is
 * a `note`, with its own type kept as `source_type`.
 */
const TYPE_MAP: Record<string, string> = {
  person: 'user',
  people: 'user',
  contact: 'user',
  contacts: 'user',
  preference: 'feedback',
  preferences: 'feedback',
  decision: 'project',
  decisions: 'project',
  projects: 'project',
  spec: 'project',
  task: 'project',
  tasks: 'project',
  link: 'reference',
  links: 'reference',
  references: 'reference',
  bookmark: 'reference',
  bookmarks: 'reference',
  doc: 'reference',
  docs: 'reference',
  warning: 'caution',
  warnings: 'caution',
  notes: 'note',
};

/** Frontmatter keys a note's fields are taken from (or rebuilt), not copied as they are. */
const MAPPED_KEYS = new Set([
  'name',
  'title',
  'type',
  'description',
  'summary',
  'tags',
  'keywords',
  'created',
  'date',
  'created_at',
  'updated',
  'modified',
  'updated_at',
  PROJECT_ID_FIELD,
  PROJECT_NAME_FIELD,
]);

/**
 * Maps a markdown note (frontmatter + body) to a memory: `name` from name/title, the body's
 * opening H1, else the file name;
 * `type` from its frontmatter or its folder (TYPE_MAP), else `note`; `description` from
 * description/summary, else the first sentence after that H1; `tags` from tags/keywords; `created`
 * and `updated` from their usual spellings; every other scalar or list field kept as it is; and
 * `imported_from` naming the source. Text passes the redactor. Throws a message for the table.
 */
export function mapNote(input: {
  source: string;
  folder: string;
  text: string;
  redactor: Redactor;
  counts: RedactionCounts;
  project: ProjectRef | null;
  from: string;
}): MappedNote {
  const { redactor, counts } = input;
  if (input.text.includes('\u0000')) throw new Error('binary content (NUL bytes)');
  const fm = parseFrontmatter(input.text.replace(/^\uFEFF/, ''));
  if (fm.error) throw new Error(`frontmatter: ${fm.error}`);
  const data = fm.data;
  const body = redactor.redact(fm.body.replace(/\r\n/g, '\n'), counts).replace(/^\n+/, '');
  if (body.trim() === '') throw new Error('empty note (no text after the frontmatter)');
  if (body.length > MAX_CONTENT_CHARS) throw new Error(`longer than ${MAX_CONTENT_CHARS} characters`);
  const str = (v: unknown) => (typeof v === 'string' || typeof v === 'number' ? oneLine(String(v)) : '');
  const stem = basename(input.source, extname(input.source)).replace(/[-_]+/g, ' ').trim();
  // A note that opens with an H1 is titled by it, as Obsidian and basic-memory show it (issue 38).
  const h1 = /^#[ \t]+(.+?)[ \t#]*(?:\n|$)/.exec(body);
  const title = h1 ? oneLine(h1[1]!) : '';
  const name = redactor
    .redact(str(data.name) || str(data.title) || title || stem || 'Untitled', counts)
    .slice(0, 200);
  const type = typeOf(data.type, input.folder);
  const prose = h1 ? body.slice(h1[0].length) : body;
  const description = redactor.redact(
    str(data.description) || str(data.summary) || firstSentence(prose.trim() ? prose : body).slice(0, 160),
    counts,
  );
  const tags = [...new Set([...listOf(data.tags), ...listOf(data.keywords)])]
    .map((t) => redactor.redact(t.replace(/^#/, ''), counts))
    .slice(0, 32);
  const extra: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(data)) {
    if (MAPPED_KEYS.has(key.toLowerCase()) || !/^[A-Za-z_][\w-]*$/.test(key)) continue;
    const kept = keepable(value, redactor, counts);
    if (kept !== undefined) extra[key] = kept;
  }
  const sourceType = str(data.type).toLowerCase();
  const frontmatter: Record<string, unknown> = {
    name,
    type,
    description,
    tags: tags.length > 0 ? tags : undefined,
    ...extra,
    source_type: sourceType && sourceType !== type ? sourceType : undefined,
    [PROJECT_ID_FIELD]: input.project?.id,
    [PROJECT_NAME_FIELD]: input.project?.name,
    imported_from: `${input.from}:${input.source}`,
    created: dateOf(data.created ?? data.date ?? data.created_at),
    updated: dateOf(data.updated ?? data.modified ?? data.updated_at),
  };
  return {
    file: fileNameFor(type, name),
    name,
    type,
    description,
    body,
    text: renderFrontmatter(frontmatter, body),
  };
}

function typeOf(raw: unknown, folder: string): string {
  const t = typeof raw === 'string' ? raw.trim().toLowerCase() : '';
  if ((MEMORY_TYPES as readonly string[]).includes(t) || (t.startsWith('custom:') && isValidType(t)))
    return t;
  if (TYPE_MAP[t]) return TYPE_MAP[t]!;
  for (const part of folder.toLowerCase().split('/').reverse()) {
    if ((MEMORY_TYPES as readonly string[]).includes(part)) return part;
    if (TYPE_MAP[part]) return TYPE_MAP[part]!;
  }
  return 'note';
}

function listOf(value: unknown): string[] {
  if (Array.isArray(value))
    return value.filter((v) => typeof v === 'string' || typeof v === 'number').map(String);
  if (typeof value === 'string')
    return value
      .split(/[,\s]+/)
      .map((s) => s.trim())
      .filter(Boolean);
  return [];
}

/** A frontmatter value kept as it is: a scalar or a list of scalars (nested maps are dropped). */
function keepable(value: unknown, redactor: Redactor, counts: RedactionCounts): unknown {
  if (typeof value === 'string') return redactor.redact(value, counts);
  if (typeof value === 'number' || typeof value === 'boolean') return value;
  if (value instanceof Date) return Number.isNaN(value.getTime()) ? undefined : value.toISOString();
  if (Array.isArray(value) && value.every((v) => ['string', 'number', 'boolean'].includes(typeof v)))
    return value.map((v) => (typeof v === 'string' ? redactor.redact(v, counts) : v));
  return undefined;
}

function dateOf(value: unknown): string | undefined {
  if (value instanceof Date) return Number.isNaN(value.getTime()) ? undefined : value.toISOString();
  if (typeof value === 'string' && !Number.isNaN(Date.parse(value))) return value;
  return undefined;
}

function firstSentence(text: string): string {
  const flat = oneLine(text.replace(/^#+\s*/gm, ''));
  const m = /^(.+?[.!?])(\s|$)/.exec(flat);
  return m ? m[1]! : flat;
}
