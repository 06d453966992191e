/**
 * The runtime's journal read as workflows: its rows grouped by session, and sessions joined into
 * one workflow wherever one produced a handoff another read. Reads the journal only, through the
 * runtime's own reader.
 */
import { byCodeUnit } from '../core/index.js';
import { type JournalEntry, readJournal } from '../runtime/index.js';

export type SessionStatus = 'completed' | 'failed' | 'refused' | 'yielded' | 'open';

export interface RuntimeSession {
  id: string;
  persona: string | undefined;
  role: string | undefined;
  mode: string | undefined;
  surface: string | undefined;
  started: string | undefined;
  status: SessionStatus;
  /** The handoffs it read. */
  inputs: string[];
  /** The handoff it produced, and the mode that reads it. */
  produced: { id: string; kind: string; to: string } | undefined;
  refusal: { reason: string; detail: string } | undefined;
  denials: { tool: string; reason: string; at: string | undefined }[];
  insufficient: { missing: string; proposed: string } | undefined;
  entries: JournalEntry[];
}

export interface Workflow {
  /** The first session's id: a stable anchor for the page. */
  id: string;
  sessions: RuntimeSession[];
  started: string | undefined;
}

const list = (value: string | undefined): string[] =>
  value
    ? value
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean)
    : [];

function sessionOf(id: string, entries: JournalEntry[]): RuntimeSession {
  const s: RuntimeSession = {
    id,
    persona: undefined,
    role: undefined,
    mode: undefined,
    surface: undefined,
    started: entries[0]?.at,
    status: 'open',
    inputs: [],
    produced: undefined,
    refusal: undefined,
    denials: [],
    insufficient: undefined,
    entries,
  };
  for (const e of entries) {
    const f = e.fields;
    s.persona ??= f.persona;
    s.role ??= f.role;
    s.mode ??= f.mode;
    s.surface ??= f.surface;
    switch (e.kind) {
      case 'session_start':
        s.inputs = list(f.handoffs);
        break;
      case 'refusal':
        s.status = 'refused';
        s.refusal = { reason: f.reason ?? '', detail: f.detail ?? '' };
        break;
      case 'denial':
        s.denials.push({ tool: f.tool ?? '', reason: f.reason ?? '', at: e.at });
        break;
      case 'transition': {
        const m = /→ (\S+) \((\S+) handoff /.exec(e.title);
        if (f.handoff) s.produced = { id: f.handoff, kind: m?.[2] ?? '', to: m?.[1] ?? '' };
        break;
      }
      case 'handoff_insufficient':
        s.insufficient = { missing: f.missing ?? '', proposed: f.proposed_resolution ?? '' };
        break;
      case 'turn_yielded':
        s.status = 'yielded';
        break;
      case 'session_end':
        if (s.status !== 'yielded') s.status = f.status === 'failed' ? 'failed' : 'completed';
        break;
    }
  }
  return s;
}

/**
 * Every workflow in the journal (its rows since `since`: `7d`, an ISO date, …), newest first;
 * each workflow's sessions oldest first.
 */
export function readWorkflows(
  journalDir: string,
  since?: string,
): { workflows: Workflow[]; entries: number } {
  const entries = readJournal(journalDir, since ? { since } : {});
  const bySession = new Map<string, JournalEntry[]>();
  for (const e of entries) {
    const id = e.session ?? '(no session)';
    bySession.set(id, [...(bySession.get(id) ?? []), e]);
  }
  const sessions = [...bySession].map(([id, rows]) => sessionOf(id, rows));
  // Union-find over "produced a handoff that another read".
  const parent = new Map(sessions.map((s) => [s.id, s.id]));
  const root = (id: string): string => {
    let r = id;
    while (parent.get(r) !== r) r = parent.get(r)!;
    parent.set(id, r);
    return r;
  };
  const producer = new Map<string, string>();
  for (const s of sessions) if (s.produced) producer.set(s.produced.id, s.id);
  for (const s of sessions) {
    for (const input of s.inputs) {
      const from = producer.get(input);
      if (from) parent.set(root(s.id), root(from));
    }
  }
  const groups = new Map<string, RuntimeSession[]>();
  for (const s of sessions) groups.set(root(s.id), [...(groups.get(root(s.id)) ?? []), s]);
  const workflows = [...groups.values()].map((members) => {
    members.sort((a, b) => byCodeUnit(a.started ?? '', b.started ?? ''));
    return { id: members[0]!.id, sessions: members, started: members[0]!.started };
  });
  workflows.sort((a, b) => byCodeUnit(b.started ?? '', a.started ?? ''));
  return { workflows, entries: entries.length };
}
