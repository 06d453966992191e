/**
 * The `applies_to` table: every feedback/caution memory with `applies_to` patterns, compiled
 * down to what a PreToolUse hook needs (patterns, the action, the text), in one small file,
 * `<home>/cache/applies-to.json`. The hook reads it on every tool call and never loads the
 * memory store, YAML or the recall index: the file is keyed on memory/'s mtime and MEMORY.md's
 * mtime and size, and rebuilt (lazily, by the first reader that sees a new key, and by
 * `remember`) when they move. Adding, removing or renaming a memory moves memory/'s mtime; an
 * edit in place shows at the next such change.
 */
import { mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { type CompiledCallGlob, compileCallGlob, matchCompiledCallGlob } from '../../core/glob/index.js';
import { hash } from './digest.js';

/** What a matching call gets: a caution (context), the user's confirmation, or a refusal. */
export type OnMatch = 'warn' | 'ask' | 'deny';

/** One memory in the table. */
export interface CautionRule {
  file: string;
  name: string;
  /** The memory's text (its body, clipped), the caution and the reason. */
  text: string;
  patterns: string[];
  /**
   * Each pattern's lower-cased literal tool-name prefix ('' when it starts with a glob character):
   * a call whose tool name does not start with it is ruled out without compiling the pattern.
   */
  prefixes: string[];
  on_match: OnMatch;
  /** Warn at every matching call, not once per session. */
  repeat: boolean;
}

export interface CautionTable {
  v: 4;
  /** memory/'s mtime and MEMORY.md's mtime and size when the table was built. */
  key: string;
  rules: CautionRule[];
}

/** A rule that matched a call, and the pattern that did. */
export interface CautionMatch {
  rule: CautionRule;
  pattern: string;
}

export function cautionTableFile(home: string): string {
  return join(home, 'cache', 'applies-to.json');
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

/**
 * The current table: the cached file while its key holds, else rebuilt from memory/ (the builder
 * loads on demand: it reads frontmatter, which may need the YAML parser).
 */
export async function loadCautionTable(home: string): Promise<CautionTable> {
  const key = memoryKey(home);
  try {
    const cached = JSON.parse(readFileSync(cautionTableFile(home), 'utf8')) as CautionTable;
    if (cached.v === 4 && cached.key === key && Array.isArray(cached.rules)) return cached;
  } catch {
    // missing or torn: rebuild
  }
  const { writeCautionTable } = await import('./caution-table.js');
  return writeCautionTable(home);
}

const compiled = new Map<string, CompiledCallGlob | null>();

function compiledOf(pattern: string): CompiledCallGlob | null {
  let c = compiled.get(pattern);
  if (c === undefined) {
    try {
      c = compileCallGlob(pattern);
    } catch {
      c = null; // a bad glob in a hand-written file matches nothing; remember() refuses one
    }
    compiled.set(pattern, c);
  }
  return c;
}

/**
 * The rules whose patterns match this call (first matching pattern each), in table order. Most
 * of a thousand patterns are ruled out by their literal prefix; the rest are compiled once.
 */
export function matchCautions(
  table: CautionTable,
  tool: string,
  argValues: readonly string[],
): CautionMatch[] {
  const lower = tool.toLowerCase();
  const out: CautionMatch[] = [];
  for (const rule of table.rules) {
    const at = rule.patterns.findIndex((p, i) => {
      const prefix = rule.prefixes[i] ?? '';
      if (prefix && !lower.startsWith(prefix)) return false;
      const c = compiledOf(p);
      return c !== null && matchCompiledCallGlob(c, tool, argValues);
    });
    if (at >= 0) out.push({ rule, pattern: rule.patterns[at]! });
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
