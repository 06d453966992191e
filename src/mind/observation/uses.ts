/**
 * When memories reached the agent: a `recall`'s results, the memories an `observe`/`reflect`
 * found relevant or flagged, and the cautions a tool hook raised. One JSON line per use in
 * `<home>/memory-uses/YYYY-MM-DD.jsonl` (UTC), appended with one O_APPEND write like the event
 * store (beside it, not in it: events/ holds only the day files of observations), so a memory's history (`firstlight ui`) can say when the agent saw it and why. Light
 * (node built-ins and core's state-file helpers): the tool hooks write here when a caution fires.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { appendStateLine } from '../../core/confine.js';

export type MemoryUseVia = 'recall' | 'observe' | 'reflect' | 'caution';

/** One time one or more memories were put in front of the agent. */
export interface MemoryUse {
  ts: string;
  via: MemoryUseVia;
  /** The memory files, in the order the agent got them. */
  files: string[];
  /** `recall`: what was asked. */
  query?: string;
  /** `observe`/`reflect`: the event the memories came with. */
  event?: string;
  /** `observe`: the tool observed; `caution`: the tool call the caution was about. */
  tool?: string;
  session?: string;
  /** `caution`: the host whose hook raised it. */
  host?: string;
  /** `caution`: what the memory asked of the call (warn, ask, deny). */
  on_match?: string;
  /** `observe`/`reflect`: the files raised as cautionary flags (a subset of `files`). */
  flagged?: string[];
}

const DAY_FILE = /^\d{4}-\d{2}-\d{2}\.jsonl$/;
/** Queries are clipped: the log says what was asked, it is not a transcript. */
const QUERY_CHARS = 300;

export function usesDir(home: string): string {
  return join(home, 'memory-uses');
}

/** Appends one use (nothing when `files` is empty). Throws when the file cannot be written. */
export function recordMemoryUse(home: string, use: Omit<MemoryUse, 'ts'>, now: Date): void {
  if (use.files.length === 0) return;
  const line: MemoryUse = {
    ts: now.toISOString(),
    ...use,
    ...(use.query !== undefined ? { query: use.query.slice(0, QUERY_CHARS) } : {}),
  };
  appendStateLine(join(usesDir(home), `${line.ts.slice(0, 10)}.jsonl`), JSON.stringify(line));
}

/**
 * The uses of one memory file, newest first, at most `limit`, from the newest day files back
 * (at most `days` of them). A line is parsed only when it names the file.
 */
export function readMemoryUses(
  home: string,
  file: string,
  options: { limit?: number; days?: number } = {},
): MemoryUse[] {
  const needle = JSON.stringify(file);
  return scanUses(home, {
    limit: options.limit ?? 50,
    days: options.days ?? 90,
    line: (text) => text.includes(needle),
    use: (use) => use.files.includes(file),
  });
}

/** Every use (of `via`, when given) at or after `since`, newest first, at most `limit`. */
export function listMemoryUses(
  home: string,
  options: { since?: Date; via?: MemoryUseVia; limit?: number } = {},
): MemoryUse[] {
  const since = options.since?.toISOString();
  const needle = options.via ? `"via":"${options.via}"` : undefined;
  return scanUses(home, {
    limit: options.limit ?? 500,
    days: 3650,
    ...(since ? { before: since.slice(0, 10) } : {}),
    line: (text) => needle === undefined || text.includes(needle),
    use: (use) => since === undefined || use.ts >= since,
  });
}

/** Newest day file first, newest line first; torn or foreign lines are skipped. */
function scanUses(
  home: string,
  scan: {
    limit: number;
    days: number;
    /** Day files before this UTC date (YYYY-MM-DD) are not read. */
    before?: string;
    line: (text: string) => boolean;
    use: (use: MemoryUse) => boolean;
  },
): MemoryUse[] {
  let names: string[];
  try {
    names = readdirSync(usesDir(home)).filter((n) => DAY_FILE.test(n));
  } catch {
    return [];
  }
  const out: MemoryUse[] = [];
  for (const name of names.sort().reverse().slice(0, scan.days)) {
    if (scan.before && name.slice(0, 10) < scan.before) break;
    let text: string;
    try {
      text = readFileSync(join(usesDir(home), name), 'utf8');
    } catch {
      continue;
    }
    const lines = text.split('\n');
    for (let i = lines.length - 1; i >= 0 && out.length < scan.limit; i--) {
      const line = lines[i]!;
      if (line === '' || !scan.line(line)) continue;
      try {
        const use = JSON.parse(line) as MemoryUse;
        if (typeof use.ts === 'string' && Array.isArray(use.files) && scan.use(use)) out.push(use);
      } catch {
        // torn by a crash or edited by hand
      }
    }
    if (out.length >= scan.limit) break;
  }
  return out;
}
