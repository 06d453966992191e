/**
 * The packet's "relevant memories": the instructions and cautions in force (from memory's
 * overview, live), then the memories that match what the agent was in the middle of (its
 * resumption tail and anchors, the taskspace). The second list needs a search, which the
 * SessionStart hook cannot afford at every start (a one-shot recall costs more than the hook's
 * whole budget): it is computed off the host's path, by the capture worker after each session
 * and by `firstlight capture`, and kept in `cache/relevant-memories.json` per project. A start
 * reads that small file and checks each named memory still exists.
 */
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { RecallIndex } from './memory/index.js';
import { isInactive, type RelevantMemory, writeDerivedFile } from './memory/overview.js';
import { type MemoryScope, scopeKey } from './memory/scope.js';
import type { BootstrapPacket } from './packet-schema.js';

export type { RelevantMemory };

/** The packet's `relevant_memories`: what to act by first, then what matches the work. */
export type RelevantMemories = {
  instructions: RelevantMemory[];
  related: RelevantMemory[];
};

/** Related memories kept per project, and how long each description may be in the packet. */
export const MAX_RELATED = 5;
const DESCRIPTION_MAX = 160;
/** The section's bound in the packet, whatever the memories say (names and descriptions only). */
export const RELEVANT_MAX_CHARS = 1600;
/** Projects the file keeps at once (one home serves a few in turn). */
const MAX_SCOPES = 8;

interface Kept extends RelevantMemory {
  /** The memory's file, to check it still exists (never shown). */
  file: string;
}

interface PersistedRelated {
  format: 1;
  byScope: Record<string, { at: string; query: string; items: Kept[] }>;
}

export const relatedFile = (cacheDir: string): string => join(cacheDir, 'relevant-memories.json');

/** What the next start should find memories for: the resumption tail and anchors, the taskspace. */
export function relatedQuery(packet: Pick<BootstrapPacket, 'resumption' | 'taskspace'>): string {
  const r = packet.resumption;
  const t = packet.taskspace;
  return [
    r?.stream_tail ?? '',
    ...(r?.anchors ?? []).map((a) => a.text),
    t?.name ?? '',
    t?.description ?? '',
    t?.initial_prompt ?? '',
  ]
    .join(' ')
    .replace(/\s+/g, ' ')
    .trim()
    .slice(0, 2000);
}

/**
 * Searches memory for `query` in `scope` and keeps the best few that are in force (neither
 * proposed nor superseded, not session digests) for the next start; an empty query keeps none.
 */
export function refreshRelated(
  cacheDir: string,
  recall: RecallIndex,
  entries: ReadonlyMap<
    string,
    { name: string; type: string; description: string; fields: Record<string, string> }
  >,
  query: string,
  scope: MemoryScope,
  now: Date,
): RelevantMemory[] {
  const items: Kept[] = [];
  if (query !== '') {
    for (const hit of recall.recall(query, { k: 20, scope }).results) {
      const entry = entries.get(hit.file);
      if (!entry || isInactive(entry) || entry.type === 'session_digest' || entry.type === 'session')
        continue;
      items.push({
        name: entry.name,
        type: entry.type,
        description: oneLine(entry.description),
        file: hit.file,
      });
      if (items.length === MAX_RELATED) break;
    }
  }
  const file = relatedFile(cacheDir);
  const byScope = { ...(readPersisted(file)?.byScope ?? {}) };
  const key = scopeKey(scope);
  delete byScope[key];
  byScope[key] = { at: now.toISOString(), query, items };
  const keys = Object.keys(byScope);
  for (const old of keys.slice(0, Math.max(0, keys.length - MAX_SCOPES))) delete byScope[old];
  writeDerivedFile(file, JSON.stringify({ format: 1, byScope } satisfies PersistedRelated));
  return items.map(({ file: _file, ...shown }) => shown);
}

/** The related memories kept for `scope`, those whose file is gone left out. */
export function readRelated(cacheDir: string, memoryDir: string, scope: MemoryScope): RelevantMemory[] {
  const kept = readPersisted(relatedFile(cacheDir))?.byScope[scopeKey(scope)]?.items ?? [];
  const shown: RelevantMemory[] = [];
  for (const item of kept) {
    if (typeof item?.file !== 'string' || item.file.includes('/') || item.file.includes('\\')) continue;
    if (!statSync(join(memoryDir, item.file), { throwIfNoEntry: false })?.isFile()) continue;
    shown.push({ name: String(item.name), type: String(item.type), description: String(item.description) });
  }
  return shown;
}

/**
 * The packet's section from the two lists: instructions first, related memories not already
 * named, each description on one line, the whole within {@link RELEVANT_MAX_CHARS}; null when
 * both are empty.
 */
export function relevantMemories(
  instructions: readonly RelevantMemory[],
  related: readonly RelevantMemory[],
): RelevantMemories | null {
  const named = new Set<string>();
  let room = RELEVANT_MAX_CHARS;
  const take = (list: readonly RelevantMemory[]): RelevantMemory[] => {
    const out: RelevantMemory[] = [];
    for (const m of list) {
      const key = m.name.toLowerCase();
      if (named.has(key)) continue;
      const shown = { name: m.name, type: m.type, description: oneLine(m.description) };
      const cost = shown.name.length + shown.type.length + shown.description.length + 8;
      if (cost > room) break;
      room -= cost;
      named.add(key);
      out.push(shown);
    }
    return out;
  };
  const result = { instructions: take(instructions), related: take(related) };
  return result.instructions.length + result.related.length > 0 ? result : null;
}

function oneLine(text: string): string {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length > DESCRIPTION_MAX
    ? `${line.slice(0, DESCRIPTION_MAX - 1).replace(/\s+\S*$/, '')}…`
    : line;
}

function readPersisted(file: string): PersistedRelated | undefined {
  try {
    const parsed = JSON.parse(readFileSync(file, 'utf8')) as PersistedRelated;
    return parsed.format === 1 && parsed.byScope && typeof parsed.byScope === 'object' ? parsed : undefined;
  } catch {
    return undefined;
  }
}
