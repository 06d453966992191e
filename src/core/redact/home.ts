import { readFileSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { appendStateLine, readStateTail } from '../confine.js';
import {
  addCounts,
  DEFAULT_REDACTOR_CONFIG,
  type RedactionCounts,
  Redactor,
  type RedactorConfig,
} from './redactor.js';

/** Which writer redacted: counted apart in `firstlight status`. */
export type RedactionWriter = 'event' | 'capture' | 'remember' | 'import' | 'session-start';

/** The kind names a `redact.patterns` entry may use: `[redacted:KIND]` stays one token. */
export const KIND_PATTERN = /^[a-z0-9][a-z0-9_-]{0,40}$/;

/** Any key `redact` contains this word; only then is firstlight.yaml parsed (see redactorFor). */
const MENTIONS_REDACT = /\bredact\b/;

const byHome = new Map<string, { stamp: string; redactor: Redactor }>();
let defaultRedactor: Redactor | undefined;

/**
 * The redactor for a home, as its firstlight.yaml configures it (`redact:`), built once per
 * process and rebuilt when the file changes. The writers on every tool call (the PostToolUse
 * hook's event) pay one stat and, only when the file names `redact` at all, a YAML parse.
 */
export function redactorFor(home: string): Redactor {
  const file = join(home, 'firstlight.yaml');
  let stamp = 'none';
  try {
    const st = statSync(file);
    stamp = `${st.mtimeMs}:${st.size}`;
  } catch {
    // no settings: the default redactor
  }
  const known = byHome.get(home);
  if (known?.stamp === stamp) return known.redactor;
  let redactor: Redactor;
  let text = '';
  try {
    text = stamp === 'none' ? '' : readFileSync(file, 'utf8');
  } catch {
    // unreadable: defaults (the settings loader reports it where settings are shown)
  }
  if (MENTIONS_REDACT.test(text)) redactor = new Redactor(redactConfigOf(parseYamlLight(text)).config);
  else redactor = defaultRedactor ??= new Redactor(DEFAULT_REDACTOR_CONFIG);
  byHome.set(home, { stamp, redactor });
  return redactor;
}

/**
 * The YAML parser, loaded synchronously and only here (a writer on the hook path must stay
 * synchronous, and most homes never configure redaction, so never load it).
 */
function parseYamlLight(text: string): unknown {
  try {
    const yaml = createRequire(import.meta.url)('yaml') as { parse: (t: string) => unknown };
    return yaml.parse(text);
  } catch {
    return undefined;
  }
}

/**
 * The `redact:` settings of a parsed firstlight.yaml: `redact: false` turns redaction off;
 * a mapping may set `enabled`, add `patterns` ({kind, regex}) and `allow` strings or `/regex/`.
 * An invalid entry is left out and named in `problems` (the rest still applies).
 */
export function redactConfigOf(settings: unknown): { config: RedactorConfig; problems: string[] } {
  const problems: string[] = [];
  const raw = (settings as { redact?: unknown } | null | undefined)?.redact;
  if (raw === undefined || raw === null) return { config: DEFAULT_REDACTOR_CONFIG, problems };
  if (typeof raw === 'boolean') return { config: { ...DEFAULT_REDACTOR_CONFIG, enabled: raw }, problems };
  if (typeof raw !== 'object' || Array.isArray(raw)) {
    problems.push('redact: must be true, false or a mapping (enabled, patterns, allow)');
    return { config: DEFAULT_REDACTOR_CONFIG, problems };
  }
  const r = raw as Record<string, unknown>;
  const enabled = typeof r.enabled === 'boolean' ? r.enabled : true;
  if (r.enabled !== undefined && typeof r.enabled !== 'boolean')
    problems.push('redact.enabled: must be true or false');
  const patterns: { kind: string; regex: string }[] = [];
  for (const [i, p] of listOf(r.patterns, 'redact.patterns', problems).entries()) {
    const kind = (p as { kind?: unknown })?.kind;
    const regex = (p as { regex?: unknown })?.regex;
    if (typeof kind !== 'string' || !KIND_PATTERN.test(kind)) {
      problems.push(
        `redact.patterns[${i}].kind: a short lower-case name (a-z, 0-9, _ and -), e.g. employee-id`,
      );
      continue;
    }
    if (typeof regex !== 'string' || regex === '' || !compiles(regex)) {
      problems.push(`redact.patterns[${i}].regex: a JavaScript regular expression, e.g. 'EMP-[0-9]{6}'`);
      continue;
    }
    patterns.push({ kind, regex });
  }
  const allow: string[] = [];
  for (const [i, a] of listOf(r.allow, 'redact.allow', problems).entries()) {
    if (
      typeof a !== 'string' ||
      a === '' ||
      (a.startsWith('/') && a.endsWith('/') && !compiles(a.slice(1, -1)))
    ) {
      problems.push(`redact.allow[${i}]: a string kept as it is, or /regex/`);
      continue;
    }
    allow.push(a);
  }
  for (const key of Object.keys(r)) {
    if (!['enabled', 'patterns', 'allow'].includes(key))
      problems.push(`redact.${key}: unknown key is ignored`);
  }
  return { config: { enabled, patterns, allow }, problems };
}

function listOf(value: unknown, field: string, problems: string[]): unknown[] {
  if (value === undefined || value === null) return [];
  if (Array.isArray(value)) return value;
  problems.push(`${field}: must be a list`);
  return [];
}

function compiles(source: string): boolean {
  try {
    new RegExp(source, 'g');
    return true;
  } catch {
    return false;
  }
}

/** Where each write that redacted something leaves one line: `{ts, writer, kinds}`. */
export function redactionLogFile(home: string): string {
  return join(home, 'redactions.jsonl');
}

/**
 * Counts a write's redactions (nothing when there were none): one O_APPEND line, no lock, so
 * the hook path pays for it only when it found a secret. Counting never fails a write.
 */
export function noteRedactions(
  home: string,
  writer: RedactionWriter,
  counts: RedactionCounts,
  now: Date,
): void {
  if (Object.keys(counts).length === 0) return;
  try {
    appendStateLine(redactionLogFile(home), JSON.stringify({ ts: now.toISOString(), writer, kinds: counts }));
  } catch {
    // The text was redacted; only the count is lost.
  }
}

/** Redaction totals of a home: by kind, and by writer. */
export interface RedactionTotals {
  total: number;
  by_kind: RedactionCounts;
  by_writer: RedactionCounts;
  since: string | null;
}

/** Sums the redaction log (its last 4 MB: tens of thousands of redacting writes). */
export function readRedactionTotals(home: string): RedactionTotals {
  const totals: RedactionTotals = { total: 0, by_kind: {}, by_writer: {}, since: null };
  let lines: string[] = [];
  try {
    lines = readStateTail(redactionLogFile(home), 4 * 1024 * 1024)?.lines ?? [];
  } catch {
    return totals;
  }
  for (const line of lines) {
    try {
      const row = JSON.parse(line) as { ts?: string; writer?: string; kinds?: RedactionCounts };
      if (!row.kinds || typeof row.kinds !== 'object') continue;
      let n = 0;
      for (const v of Object.values(row.kinds)) n += typeof v === 'number' ? v : 0;
      addCounts(totals.by_kind, row.kinds);
      const writer = row.writer ?? 'unknown';
      totals.by_writer[writer] = (totals.by_writer[writer] ?? 0) + n;
      totals.total += n;
      totals.since ??= row.ts ?? null;
    } catch {
      // a torn line
    }
  }
  return totals;
}

/** Redacts `text` for `writer` with the home's redactor, and counts what it did. */
export function redactFor(home: string, writer: RedactionWriter, text: string, now: Date): string {
  const counts: RedactionCounts = {};
  const out = redactorFor(home).redact(text, counts);
  noteRedactions(home, writer, counts, now);
  return out;
}

/**
 * An object as one JSON line with every string value redacted (keys are kept): how an event
 * line is built. One pass of the redactor per string field; counted as `writer`.
 */
export function redactedJson(home: string, writer: RedactionWriter, value: unknown, now: Date): string {
  const redactor = redactorFor(home);
  if (!redactor.enabled) return JSON.stringify(value);
  const counts: RedactionCounts = {};
  const line = JSON.stringify(value, (_key, v: unknown) =>
    typeof v === 'string' ? redactor.redact(v, counts) : v,
  );
  noteRedactions(home, writer, counts, now);
  return line;
}
