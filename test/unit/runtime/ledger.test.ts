import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import {
  checkProvenance,
  createFileLedger,
  createMemoryLedger,
  createRuntime,
  type HandoffRecord,
  type InvocationRecord,
  type Ledger,
  ScriptedSubstrate,
} from '../../../src/runtime/index.js';
import { exampleHomeCopy, tempDir } from '../../helpers/index.js';

/**
 * The ledger behind one interface: the same contract holds for the embedded files and for a
 * store that keeps nothing on disk, so a shared store can take the files' place.
 */

const disposers: (() => void)[] = [];
afterEach(() => {
  for (const dispose of disposers.splice(0)) dispose();
});

function fileLedger(): { ledger: Ledger; dir: string } {
  const t = tempDir('firstlight-ledger-');
  disposers.push(t.dispose);
  const dir = join(t.dir, '.firstlight');
  return { ledger: createFileLedger({ dir, root: t.dir }), dir };
}

const handoff = (id: string, journal: string): HandoffRecord => ({
  id,
  kind: 'synthesis',
  content: { possibilities: ['a'], tensions: ['b'], unknowns: ['c'], frames: ['d'] },
  created: '2026-11-28T00:00:00.000Z',
  journal,
});

const invocation = (id: string, key?: string): InvocationRecord => ({
  id,
  state: 'queued',
  attempt: 1,
  request: { persona: 'p' },
  ...(key ? { idempotency_key: key } : {}),
  sessions: [],
  created: '2026-11-28T00:00:00.000Z',
  updated: '2026-11-28T00:00:00.000Z',
});

describe.each([
  ['files', () => fileLedger().ledger],
  ['memory', () => createMemoryLedger()],
])('the %s ledger', (_, make) => {
  it('journals rows in order and reads them back filtered', async () => {
    const ledger = make();
    const at = new Date('2026-11-28T10:00:00.000Z');
    await ledger.appendJournal(
      [
        { kind: 'session_start', title: 'p as explorer', session: 's-1', fields: { role: 'explorer' } },
        {
          kind: 'refusal',
          title: 'no',
          session: 's-2',
          fields: { reason: 'missing_handoff', detail: 'a;b\\c' },
        },
      ],
      at,
    );
    expect((await ledger.readJournal()).map((e) => e.kind)).toEqual(['session_start', 'refusal']);
    const [refusal] = await ledger.readJournal({ type: 'refusal' });
    expect(refusal?.fields.detail).toBe('a;b\\c');
    expect((await ledger.sessionStart('s-1'))?.fields.role).toBe('explorer');
    expect(await ledger.sessionStart('s-2')).toBeUndefined();
  });

  it('stores a handoff hashed, and finds the row its reference names', async () => {
    const ledger = make();
    const at = new Date();
    const ref = ledger.journalRef('s-9', at);
    const { sha256 } = await ledger.putHandoff(handoff('synthesis-00000001', ref));
    await ledger.appendJournal(
      [{ kind: 'transition', title: 't', session: 's-9', fields: { handoff: 'synthesis-00000001', sha256 } }],
      at,
    );
    const stored = (await ledger.getHandoff('synthesis-00000001'))!;
    expect(stored.sha256).toBe(sha256);
    expect(await checkProvenance(ledger, stored)).toMatchObject({
      ok: true,
      provenance: { via: 'transition', session: 's-9' },
    });
    expect(await ledger.handoffRow(ref, 'synthesis-00000002')).toBe('no_such_row');
    await expect(ledger.putHandoff(handoff('synthesis-00000001', ref))).rejects.toThrow();
    expect(await ledger.getHandoff('../escape')).toBeUndefined();
  });

  it('claims an idempotency key once: a second record with it gets the first back', async () => {
    const ledger = make();
    const first = await ledger.createInvocation(invocation('inv-1', 'key-a'));
    const second = await ledger.createInvocation(invocation('inv-2', 'key-a'));
    expect([first.created, second.created, second.record.id]).toEqual([true, false, 'inv-1']);
    expect((await ledger.createInvocation(invocation('inv-3'))).created).toBe(true);
    await ledger.updateInvocation({
      ...first.record,
      state: 'completed',
      attempt: 2,
      reason: 'replica_lost',
    });
    expect(await ledger.getInvocation('inv-1')).toMatchObject({ state: 'completed', attempt: 2 });
  });

  it('reads streams by cursor: after N, at most a limit, in order', async () => {
    const ledger = make();
    const records = Array.from({ length: 5 }, (_, i) => ({
      seq: i + 1,
      event: 'captions',
      data: { i },
      at: 't',
    }));
    await ledger.appendEmissions('sub-1', records.slice(0, 3));
    await ledger.appendEmissions('sub-1', records.slice(3));
    expect((await ledger.readEmissions('sub-1', 2, 2)).map((r) => r.seq)).toEqual([3, 4]);
    await ledger.appendInvocationEvents('inv-1', records);
    expect((await ledger.readInvocationEvents('inv-1', 4, 10)).map((r) => r.seq)).toEqual([5]);
    expect(await ledger.readEmissions('sub-none', 0, 10)).toEqual([]);
  });

  it('keeps session state and subscriptions', async () => {
    const ledger = make();
    const state = {
      id: 's-1',
      profile: 'p.yaml',
      persona: 'p',
      role: 'planner',
      mode: 'planning' as const,
      surface: 'audit',
      engagement: 'assistant' as const,
      voice: 'persona',
      status: 'yielded' as const,
      messages: [],
      tools: [],
      handoffs: [],
      created: 't',
      updated: 't',
    };
    await ledger.putSession(state);
    expect(await ledger.getSession('s-1')).toEqual(state);
    const counts = {
      received: 1,
      interpreted: 1,
      dropped: 0,
      coalesced: 0,
      rejected: 0,
      queued: 0,
      emitted: 2,
    };
    const sub = {
      id: 'sub-1',
      session: 's-2',
      state: 'open' as const,
      persona: 'p',
      role: 'observer',
      policy: 'coalesce',
      request: {},
      participants: [],
      counts,
      last_seq: 2,
      created: '2026-11-28T00:00:00.000Z',
      updated: 't',
    };
    await ledger.putSubscription(sub);
    await ledger.putSubscription({ ...sub, id: 'sub-2', state: 'closed', teardown: 'idle' });
    expect((await ledger.listSubscriptions({ state: 'open' })).map((s) => s.id)).toEqual(['sub-1']);
    expect((await ledger.listSubscriptions()).map((s) => s.id).sort()).toEqual(['sub-1', 'sub-2']);
  });
});

describe('the file ledger', () => {
  it('is the only writer of the files it names, and a handoff changed on disk no longer verifies', async () => {
    const { ledger, dir } = fileLedger();
    const at = new Date();
    const ref = ledger.journalRef('s-1', at);
    expect(ref).toMatch(/^\.firstlight\/journal\/\d{4}-\d{2}-\d{2}\.tsv#s-1$/);
    const { sha256, location } = await ledger.putHandoff(handoff('synthesis-0000000a', ref));
    await ledger.appendJournal(
      [{ kind: 'import', title: 'i', session: 's-1', fields: { handoff: 'synthesis-0000000a', sha256 } }],
      at,
    );
    expect(location).toBe(join(dir, 'handoffs', 'synthesis-0000000a.json'));
    writeFileSync(location, readFileSync(location, 'utf8').replace('"a"', '"z"'));
    const check = await checkProvenance(ledger, (await ledger.getHandoff('synthesis-0000000a'))!);
    expect(check).toMatchObject({ ok: false });
    expect((check as { problem: string }).problem).toContain('.firstlight/handoffs/synthesis-0000000a.json');
  });
});

describe('a runtime on a memory ledger', () => {
  it('runs a whole session writing no file: the ledger is the only place the runtime keeps anything', async () => {
    const home = exampleHomeCopy();
    const project = tempDir('firstlight-project-');
    disposers.push(home.dispose, project.dispose);
    const ledger = createMemoryLedger();
    const runtime = createRuntime({ home: home.dir, project: project.dir, cwd: project.dir, ledger });
    const result = await runtime.invoke({
      persona: 'explorer',
      surface: 'synthesis-ledger',
      engagement: 'agent',
      task: 'map it',
      substrate: new ScriptedSubstrate({
        steps: [
          {
            text: 'Mapped.',
            output: { handoff: { possibilities: ['a'], tensions: ['b'], unknowns: ['c'], frames: ['d'] } },
          },
        ],
      }),
    });
    expect(result.status).toBe('completed');
    expect(existsSync(join(project.dir, '.firstlight'))).toBe(false);
    expect((await runtime.journal()).map((e) => e.kind)).toEqual([
      'session_start',
      'transition',
      'session_end',
    ]);
    const stored = (await ledger.getHandoff(result.meta.handoff_id!))!;
    expect((await checkProvenance(ledger, stored)).ok).toBe(true);
  });
});
