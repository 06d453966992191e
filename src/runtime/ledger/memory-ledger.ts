import type { HandoffRecord, StoredHandoff } from '../handoffs.js';
import { handoffText, sha256Hex } from '../handoffs.js';
import {
  formatEntry,
  type JournalEntry,
  type JournalQuery,
  type JournalWrite,
  journalFilter,
  parseRow,
} from '../journal.js';
import type { SessionState } from '../sessions.js';
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
 * A ledger in memory: nothing persists past the process. For tests of the stages (each alone,
 * with no file written) and for programs that want a session's discipline without its record.
 * It implements the same interface as the file ledger, so anything the runtime does with one
 * it does with the other; its rows are the same TSV rows, parsed back.
 */
export function createMemoryLedger(name = 'memory'): Ledger {
  const rows: JournalEntry[] = [];
  const handoffs = new Map<string, string>();
  const sessions = new Map<string, SessionState>();
  const invocations = new Map<string, InvocationRecord>();
  const keys = new Map<string, string>();
  const invocationEvents = new Map<string, StreamRecord[]>();
  const subscriptions = new Map<string, SubscriptionRecord>();
  const emissions = new Map<string, StreamRecord[]>();
  const location = `${name}:`;
  const after = (list: readonly StreamRecord[] | undefined, n: number, limit: number) =>
    (list ?? []).filter((r) => r.seq > n).slice(0, limit);
  return {
    location,
    async appendJournal(entries: readonly JournalWrite[], at = new Date()) {
      for (const entry of entries) rows.push(parseRow(formatEntry(entry, at), location)!);
    },
    journalRef(session: string) {
      return `${location}journal#${session}`;
    },
    async readJournal(query?: JournalQuery) {
      return rows.filter(journalFilter(query));
    },
    async handoffRow(ref: string, id: string): Promise<HandoffRow | HandoffRowMissing> {
      if (!ref.startsWith(`${location}journal#`)) return 'no_such_journal';
      const session = ref.slice(ref.lastIndexOf('#') + 1);
      const row = rows.find(
        (r) =>
          (r.kind === 'transition' || r.kind === 'import') &&
          r.session === session &&
          r.fields.handoff === id,
      );
      return row ? { kind: row.kind as HandoffRow['kind'], fields: row.fields } : 'no_such_row';
    },
    async sessionStart(session: string) {
      return rows.find((r) => r.kind === 'session_start' && r.session === session);
    },
    async putHandoff(record: HandoffRecord) {
      if (handoffs.has(record.id)) throw new Error(`handoff ${record.id} exists`);
      const text = handoffText(record);
      handoffs.set(record.id, text);
      return { sha256: sha256Hex(text), location: `${location}handoffs/${record.id}` };
    },
    async getHandoff(id: string): Promise<StoredHandoff | undefined> {
      const text = handoffs.get(id);
      return text === undefined
        ? undefined
        : {
            record: JSON.parse(text) as HandoffRecord,
            location: `${location}handoffs/${id}`,
            sha256: sha256Hex(text),
          };
    },
    async getSession(id: string) {
      return sessions.get(id);
    },
    async putSession(state: SessionState) {
      sessions.set(state.id, state);
    },
    async createInvocation(record: InvocationRecord) {
      const key = record.idempotency_key;
      const claimed = key === undefined ? undefined : keys.get(key);
      if (claimed) return { record: invocations.get(claimed)!, created: false };
      if (key !== undefined) keys.set(key, record.id);
      invocations.set(record.id, record);
      return { record, created: true };
    },
    async updateInvocation(record: InvocationRecord) {
      invocations.set(record.id, record);
    },
    async getInvocation(id: string) {
      return invocations.get(id);
    },
    async appendInvocationEvents(id: string, events: readonly StreamRecord[]) {
      const list = invocationEvents.get(id) ?? [];
      list.push(...events);
      invocationEvents.set(id, list);
    },
    async readInvocationEvents(id: string, n: number, limit: number) {
      return after(invocationEvents.get(id), n, limit);
    },
    async putSubscription(record: SubscriptionRecord) {
      subscriptions.set(record.id, record);
    },
    async getSubscription(id: string) {
      return subscriptions.get(id);
    },
    async listSubscriptions(filter: { state?: SubscriptionState } = {}) {
      return [...subscriptions.values()].filter((r) => !filter.state || r.state === filter.state);
    },
    async appendEmissions(id: string, records: readonly StreamRecord[]) {
      const list = emissions.get(id) ?? [];
      list.push(...records);
      emissions.set(id, list);
    },
    async readEmissions(id: string, n: number, limit: number) {
      return after(emissions.get(id), n, limit);
    },
  };
}
