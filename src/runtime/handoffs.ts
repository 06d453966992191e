import { createHash, randomBytes } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse as parseYaml } from 'yaml';
import { UserError } from '../core/index.js';
import type { Ledger } from './ledger/types.js';
import { DISPOSITIONS, HANDOFF_FIELDS, HANDOFF_KINDS, type HandoffKind } from './policy.js';

/**
 * Encoded handoffs, validated for the minimal content of their transition; the ledger stores
 * them (as one JSON file each in the embedded store). Reversion and skip are acknowledgements that stand in
 * for a missing handoff; they carry no content of their own and are journaled.
 */

export interface HandoffRecord {
  readonly id: string;
  readonly kind: HandoffKind;
  readonly content: Readonly<Record<string, unknown>>;
  readonly created: string;
  /** The session that produced it (absent for a handoff brought in from a file). */
  readonly from_session?: string;
  readonly from_role?: string;
  readonly persona?: string;
  /**
   * The journal row that records it, `FILE#SESSION`, FILE relative to the project (to the home
   * without one): its transition, or its import from a file. That row holds its sha256.
   */
  readonly journal?: string;
  /** Produced under an operator override. */
  readonly override_produced?: boolean;
  /**
   * The override sessions this handoff descends from: its own session if it ran under an
   * override, and every override session upstream of its inputs, transitively.
   */
  readonly override_lineage?: readonly string[];
  /** Handoffs this one was built from. */
  readonly inputs?: readonly string[];
  /** The file it was imported from (a handoff no session of this ledger produced). */
  readonly imported_from?: string;
}

/** A stored handoff as read: the record, where it is stored, and the sha256 of its stored bytes. */
export interface StoredHandoff {
  readonly record: HandoffRecord;
  /** For messages: the file (relative to the project), or the store's own name for it. */
  readonly location: string;
  readonly sha256: string;
}

/** A deviation the caller acknowledges instead of a handoff. */
export interface Acknowledgement {
  readonly kind: 'reversion' | 'skip';
  readonly acknowledgement: string;
  readonly source: string;
}

/** What a `--handoff ID|FILE` argument resolved to. */
export type HandoffInput =
  | { readonly type: 'stored'; readonly ref: string; readonly stored: StoredHandoff }
  | { readonly type: 'file'; readonly ref: string; readonly record: HandoffRecord }
  | { readonly type: 'acknowledgement'; readonly ref: string; readonly ack: Acknowledgement }
  | { readonly type: 'not_found'; readonly ref: string };

export function newHandoffId(kind: HandoffKind): string {
  return `${kind}-${randomBytes(4).toString('hex')}`;
}

/** The sha256 of a handoff's stored bytes, as its journal row records it. */
export function sha256Hex(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

/** A handoff's stored form: what its sha256 is of. */
export function handoffText(record: HandoffRecord): string {
  return `${JSON.stringify(record, null, 2)}\n`;
}

/**
 * Resolves one `--handoff` value: an id in the ledger's store, else an existing file, by path
 * or `file:` URI (JSON or YAML: a record with `kind` and `content`, or `kind` beside the
 * fields; or a `reversion`/`skip` acknowledgement). The service's doors take ids only.
 */
export async function resolveHandoffInput(
  ref: string,
  options: { ledger: Ledger; cwd: string },
): Promise<HandoffInput> {
  const stored = await options.ledger.getHandoff(ref);
  if (stored) return { type: 'stored', ref, stored };
  const path = handoffPath(ref, options.cwd);
  if (existsSync(path)) return fromFile(ref, path);
  return { type: 'not_found', ref };
}

/** The file a handoff reference names: a `file:` URI's path (this machine's only), else a path from `cwd`. */
function handoffPath(ref: string, cwd: string): string {
  if (!/^file:/i.test(ref)) return resolve(cwd, ref);
  try {
    return fileURLToPath(ref);
  } catch (error) {
    throw new UserError(`handoff ${ref} is not a file: URI of this machine: ${(error as Error).message}`, {
      code: 'HANDOFF_INVALID',
      hint: 'write it as file:///absolute/path.json (no host, or localhost), or pass the path itself',
    });
  }
}

function fromFile(ref: string, path: string): HandoffInput {
  let raw: unknown;
  try {
    const text = readFileSync(path, 'utf8');
    // JSON is YAML, but JSON.parse is ten times cheaper for the common case.
    raw = text.trimStart().startsWith('{') ? JSON.parse(text) : parseYaml(text);
  } catch (error) {
    throw new UserError(`handoff file ${path} does not parse: ${(error as Error).message.split('\n')[0]}`, {
      code: 'HANDOFF_INVALID',
      hint: 'write the handoff as JSON or YAML: {kind, content: {...}} (see docs/runtime.md, "Handoffs")',
    });
  }
  if (!raw || typeof raw !== 'object' || Array.isArray(raw)) {
    throw new UserError(`handoff file ${path} is not a mapping`, {
      code: 'HANDOFF_INVALID',
      hint: 'write the handoff as {kind, content: {...}}',
    });
  }
  const doc = raw as Record<string, unknown>;
  const kind = doc.kind;
  if (kind === 'reversion' || kind === 'skip') {
    const text = typeof doc.acknowledgement === 'string' ? doc.acknowledgement.trim() : '';
    if (text === '') {
      throw new UserError(`handoff file ${path}: "${kind}" needs an "acknowledgement"`, {
        code: 'HANDOFF_INVALID',
        hint: `add acknowledgement: "<why the ${kind} is accepted and what risk the project inherits>"`,
      });
    }
    return { type: 'acknowledgement', ref, ack: { kind, acknowledgement: text, source: path } };
  }
  if (typeof kind !== 'string' || !(HANDOFF_KINDS as readonly string[]).includes(kind)) {
    throw new UserError(
      `handoff file ${path}: kind must be one of ${HANDOFF_KINDS.join(', ')}, reversion, skip`,
      {
        code: 'HANDOFF_INVALID',
        hint: 'set "kind" to the transition this handoff encodes',
      },
    );
  }
  const content =
    doc.content && typeof doc.content === 'object' && !Array.isArray(doc.content)
      ? (doc.content as Record<string, unknown>)
      : Object.fromEntries(Object.entries(doc).filter(([key]) => key !== 'kind' && key !== 'id'));
  const record: HandoffRecord = {
    // Always a new id: a file cannot claim the id (and so the provenance) of a stored handoff.
    id: newHandoffId(kind as HandoffKind),
    kind: kind as HandoffKind,
    content,
    created: new Date().toISOString(),
    imported_from: path,
  };
  return { type: 'file', ref, record };
}

function valueAt(content: Readonly<Record<string, unknown>>, path: string): unknown {
  let value: unknown = content;
  for (const part of path.split('.')) {
    if (!value || typeof value !== 'object' || Array.isArray(value)) return undefined;
    value = (value as Record<string, unknown>)[part];
  }
  return value;
}

function present(value: unknown): boolean {
  if (value === undefined || value === null) return false;
  if (typeof value === 'string') return value.trim() !== '';
  return true;
}

/** The minimal fields a handoff of `kind` lacks (empty when complete), as dotted paths. */
export function missingFields(kind: HandoffKind, content: Readonly<Record<string, unknown>>): string[] {
  const missing = HANDOFF_FIELDS[kind].filter((field) => !present(valueAt(content, field)));
  if (kind === 'findings') {
    const findings = content.findings;
    if (present(findings) && !Array.isArray(findings)) missing.push('findings (a list)');
    if (Array.isArray(findings)) {
      findings.forEach((finding, i) => {
        const f = (finding ?? {}) as Record<string, unknown>;
        if (!(DISPOSITIONS as readonly unknown[]).includes(f.disposition))
          missing.push(`findings.${i}.disposition`);
        if (!present(f.evidence)) missing.push(`findings.${i}.evidence`);
      });
    }
  }
  if (kind === 'revision') {
    const remediation = content.remediation;
    if (present(remediation) && !Array.isArray(remediation))
      missing.push('remediation (a list, one per finding)');
    if (Array.isArray(remediation)) {
      remediation.forEach((item, i) => {
        const r = (item ?? {}) as Record<string, unknown>;
        if (!present(r.finding)) missing.push(`remediation.${i}.finding`);
        if (!present(r.changed) && !present(r.not_changed)) missing.push(`remediation.${i}.changed`);
      });
    }
  }
  return missing;
}

/** The ids of the findings in a findings handoff (each finding's `id`, else its index). */
export function findingIds(content: Readonly<Record<string, unknown>>): string[] {
  const findings = Array.isArray(content.findings) ? content.findings : [];
  return findings.map((f, i) => String((f as Record<string, unknown> | null)?.id ?? i));
}
