/**
 * The `applies_to` table: every feedback/caution memory with `applies_to` patterns, compiled
 * down to what a PreToolUse hook needs, in one file, `<home>/cache/applies-to.jsonl`. The hook
 * reads it on every tool call and never loads the memory store, YAML, the glob compiler or the
 * recall index: the file is keyed on memory/'s mtime and MEMORY.md's mtime and size, and rebuilt
 * (lazily, by the first reader that sees a new key) when they move. Adding, removing or renaming
 * a memory moves memory/'s mtime; an edit in place shows at the next such change.
 *
 * The format is made for a reader that must rule out a thousand patterns fast: a JSON header
 * line (`{"v":6,"key":…}`), then one line per pattern, `<literal tool-name prefix>\t<JSON>`. A
 * line whose prefix the tool name does not start with is skipped without parsing its JSON; with
 * 1,000 memories, one JSON document holding every rule and its compiled regexes cost the hook
 * about 15 ms of parsing and garbage collection, the lines about 1 ms.
 */
import { mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { type CompiledCallGlob, loadGlobCompiler, matchCompiledCallGlob } from '../../core/glob/index.js';
import { hash } from './digest.js';

/** What a matching call gets: a caution (context), the user's confirmation, or a refusal. */
export type OnMatch = 'warn' | 'ask' | 'deny';

/** One memory in the table. */
export interface CautionRule {
  file: string;
  name: string;
  /** The memory's text (its body, clipped), the caution and the reason. */
  text: string;
  on_match: OnMatch;
  /** Warn at every matching call, not once per session. */
  repeat: boolean;
}

/** One pattern's line: its rule (by position and in full), the pattern, and its compiled form. */
export interface CautionLine {
  /** The rule's position in the table (lines come rule by rule, in memory order). */
  r: number;
  rule: CautionRule;
  pattern: string;
  compiled: CompiledCallGlob;
}

export const TABLE_VERSION = 6;

/** A rule that matched a call, and the pattern that did. */
export interface CautionMatch {
  rule: CautionRule;
  pattern: string;
}

export function cautionTableFile(home: string): string {
  return join(home, 'cache', 'applies-to.jsonl');
}

/** The table's key: memory/'s mtime, MEMORY.md's mtime and size ('none' without memory/). */
export function memoryKey(home: string): string {
  const memory = join(home, 'memory');
  let dir: number;
  try {
    dir = statSync(memory).mtimeMs;
  } catch {
    return 'none';
  }
  try {
    const index = statSync(join(memory, 'MEMORY.md'));
    return `${dir}:${index.mtimeMs}:${index.size}`;
  } catch {
    return `${dir}:-:-`;
  }
}

/** The header line a table with this key starts with. */
export const tableHeader = (key: string): string => JSON.stringify({ v: TABLE_VERSION, key });

/**
 * The current table's text: the cached file while its key holds, else rebuilt from memory/ (the
 * builder and the glob compiler load on demand: it reads frontmatter, which may need YAML).
 */
export async function loadCautionTable(home: string): Promise<string> {
  const key = memoryKey(home);
  try {
    const text = readFileSync(cautionTableFile(home), 'utf8');
    const end = text.indexOf('\n');
    if (end >= 0 && text.slice(0, end) === tableHeader(key)) return text;
  } catch {
    // missing: rebuild
  }
  const [{ writeCautionTable }, { compileCallGlob }] = await Promise.all([
    import('./caution-table.js'),
    loadGlobCompiler(),
  ]);
  return writeCautionTable(home, compileCallGlob);
}

/**
 * The rules whose patterns match this call (the first matching pattern of each), in table order.
 * A line is parsed only when the tool name starts with its prefix; a line that does not parse
 * (a torn file the key did not catch) matches nothing.
 */
export function matchCautions(table: string, tool: string, argValues: readonly string[]): CautionMatch[] {
  const lower = tool.toLowerCase();
  const out: CautionMatch[] = [];
  let lastRule = -1;
  let at = table.indexOf('\n') + 1;
  while (at > 0 && at < table.length) {
    const next = table.indexOf('\n', at);
    const end = next < 0 ? table.length : next;
    const tab = table.indexOf('\t', at);
    if (tab >= 0 && tab < end && lower.startsWith(table.slice(at, tab))) {
      let line: CautionLine | null = null;
      try {
        line = JSON.parse(table.slice(tab + 1, end)) as CautionLine;
      } catch {
        // torn: matches nothing
      }
      if (line && line.r !== lastRule && matchCompiledCallGlob(line.compiled, tool, argValues)) {
        out.push({ rule: line.rule, pattern: line.pattern });
        lastRule = line.r;
      }
    }
    at = end + 1;
  }
  return out;
}

const KEEP_MS = 7 * 24 * 3600 * 1000;

/**
 * "Shown once per session": claims (session, memory) with an exclusive create, so two racing
 * hooks cannot both show it. True when this call claimed it.
 */
export function claimCaution(home: string, sessionId: string, file: string, now: Date): boolean {
  const root = join(home, 'cache', 'cautions-shown');
  const dir = join(root, hash(sessionId));
  let fresh = false;
  try {
    statSync(dir);
  } catch {
    mkdirSync(dir, { recursive: true });
    fresh = true;
  }
  try {
    writeFileSync(join(dir, hash(file)), now.toISOString(), { flag: 'wx' });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw error;
  }
  if (fresh) prune(root, now);
  return true;
}

/** A new session's first claim prunes the sessions not seen for a week. */
function prune(root: string, now: Date): void {
  for (const name of readdirSync(root)) {
    try {
      if (now.getTime() - statSync(join(root, name)).mtimeMs > KEEP_MS)
        rmSync(join(root, name), { recursive: true, force: true });
    } catch {
      // raced with another pruner
    }
  }
}
