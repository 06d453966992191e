import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { isAbsolute, join, relative, resolve, sep } from 'node:path';
import type { HandoffRecord } from '../handoffs.js';
import type { JournalEntry, JournalQuery, JournalWrite } from '../journal.js';
import type { SessionState } from '../sessions.js';
import { appendJournal, findHandoffRow, journalFile, readJournal } from './journal-files.js';
import {
  appendStream,
  createExclusive,
  readJsonRecord,
  readSession,
  readStoredHandoff,
  readStream,
  safeId,
  writeHandoff,
  writeJsonRecord,
  writeSession,
} from './record-files.js';
import type {
  HandoffRow,
  HandoffRowMissing,
  InvocationRecord,
  Ledger,
  StreamRecord,
  SubscriptionRecord,
  SubscriptionState,
} from './types.js';

/**
 * The embedded ledger: files under one directory (`<project>/.firstlight/`, the home without a
 * project), the only code that reads or writes them.
 *
 *   journal/YYYY-MM-DD.tsv                  the DOLCHEO journal, a file a day (UTC)
 *   handoffs/<id>.json                      handoffs, hashed as written
 *   sessions/<id>.json                      state of sessions that yielded the turn
 *   invocations/<id>.json, <id>.events.jsonl   invocations accepted by the service, their events
 *   invocations/keys/<sha256 of key>        idempotency keys (the invocation id they claimed)
 *   subscriptions/<id>.json, <id>.emissions.jsonl   subscribed sessions, their emissions
 *
 * References to journal rows are `FILE#SESSION`, FILE relative to `root` (the project, else the
 * home), so a moved or cloned project keeps a valid ledger.
 */
export interface FileLedgerOptions {
  /** The ledger directory. */
  readonly dir: string;
  /** What journal references are relative to (the project, else the home). */
  readonly root: string;
}

export function createFileLedger(options: FileLedgerOptions): Ledger {
  const { dir, root } = options;
  const journalDir = join(dir, 'journal');
  const invocations = join(dir, 'invocations');
  const subscriptions = join(dir, 'subscriptions');
  const invocationFile = (id: string) => join(invocations, `${id}.json`);
  const subscriptionFile = (id: string) => join(subscriptions, `${id}.json`);
  return {
    location: dir,

    async appendJournal(entries: readonly JournalWrite[], at = new Date()): Promise<void> {
      await appendJournal(journalDir, entries, at);
    },
    journalRef(session: string, at: Date): string {
      return `${relative(root, journalFile(journalDir, at)).split(sep).join('/')}#${session}`;
    },
    async readJournal(query?: JournalQuery): Promise<JournalEntry[]> {
      return readJournal(journalDir, query);
    },
    async handoffRow(ref: string, id: string): Promise<HandoffRow | HandoffRowMissing> {
      const at = ref.lastIndexOf('#');
      const path = ref.slice(0, at);
      const file = isAbsolute(path) ? path : resolve(root, path);
      let text: string;
      try {
        text = readFileSync(file, 'utf8');
      } catch {
        return 'no_such_journal';
      }
      return findHandoffRow(text, file, ref.slice(at + 1), id) ?? 'no_such_row';
    },
    async sessionStart(session: string): Promise<JournalEntry | undefined> {
      return readJournal(journalDir, { type: 'session_start' }).find((entry) => entry.session === session);
    },

    async putHandoff(record: HandoffRecord) {
      const { file, sha256 } = writeHandoff(dir, record);
      return { sha256, location: file };
    },
    async getHandoff(id: string) {
      const stored = readStoredHandoff(dir, id);
      return (
        stored && {
          record: stored.record,
          location: relative(root, stored.file) || stored.file,
          sha256: stored.sha256,
        }
      );
    },

    async getSession(id: string): Promise<SessionState | undefined> {
      return readSession(dir, id);
    },
    async putSession(state: SessionState): Promise<void> {
      writeSession(dir, state);
    },

    async createInvocation(record: InvocationRecord) {
      const key = record.idempotency_key;
      if (key !== undefined) {
        const keyFile = join(invocations, 'keys', createHash('sha256').update(key).digest('hex'));
        if (!createExclusive(keyFile, record.id)) {
          const claimed = readFileSync(keyFile, 'utf8').trim();
          const existing = await waitForRecord(() =>
            readJsonRecord<InvocationRecord>(invocationFile(claimed), claimed),
          );
          if (existing) return { record: existing, created: false };
        }
      }
      writeJsonRecord(invocationFile(record.id), record);
      return { record, created: true };
    },
    async updateInvocation(record: InvocationRecord): Promise<void> {
      writeJsonRecord(invocationFile(record.id), record);
    },
    async getInvocation(id: string): Promise<InvocationRecord | undefined> {
      return readJsonRecord<InvocationRecord>(invocationFile(id), id);
    },
    async appendInvocationEvents(id: string, events: readonly StreamRecord[]): Promise<void> {
      if (safeId(id)) appendStream(join(invocations, `${id}.events.jsonl`), events);
    },
    async readInvocationEvents(id: string, after: number, limit: number): Promise<StreamRecord[]> {
      return safeId(id) ? readStream(join(invocations, `${id}.events.jsonl`), after, limit) : [];
    },

    async putSubscription(record: SubscriptionRecord): Promise<void> {
      writeJsonRecord(subscriptionFile(record.id), record);
    },
    async getSubscription(id: string): Promise<SubscriptionRecord | undefined> {
      return readJsonRecord<SubscriptionRecord>(subscriptionFile(id), id);
    },
    async listSubscriptions(filter: { state?: SubscriptionState } = {}): Promise<SubscriptionRecord[]> {
      let names: string[];
      try {
        names = readdirSync(subscriptions).filter((name) => name.endsWith('.json'));
      } catch {
        return [];
      }
      return names
        .map((name) => readJsonRecord<SubscriptionRecord>(join(subscriptions, name), name.slice(0, -5)))
        .filter(
          (r): r is SubscriptionRecord => r !== undefined && (!filter.state || r.state === filter.state),
        )
        .sort((a, b) => a.created.localeCompare(b.created));
    },
    async appendEmissions(id: string, emissions: readonly StreamRecord[]): Promise<void> {
      if (safeId(id)) appendStream(join(subscriptions, `${id}.emissions.jsonl`), emissions);
    },
    async readEmissions(id: string, after: number, limit: number): Promise<StreamRecord[]> {
      return safeId(id) ? readStream(join(subscriptions, `${id}.emissions.jsonl`), after, limit) : [];
    },
  };
}

/**
 * The record an idempotency key claimed: its claimant writes the key first and the record just
 * after, so a retry arriving in between waits a moment for it.
 */
async function waitForRecord<T>(read: () => T | undefined): Promise<T | undefined> {
  for (let i = 0; i < 100; i++) {
    const record = read();
    if (record) return record;
    await new Promise((r) => setTimeout(r, 20));
  }
  return undefined;
}
