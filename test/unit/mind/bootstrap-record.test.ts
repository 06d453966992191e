import { existsSync, readdirSync, readFileSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  bootstrapRecordDir,
  bootstrapRecordPath,
  PRUNE_EVERY_MS,
  pruneBootstrapRecords,
  readBootstrapRecord,
  writeBootstrapRecord,
} from '../../../src/mind/bootstrap-record/index.js';
import { createMind } from '../../../src/mind/index.js';
import { tempDir } from '../../helpers/index.js';

const DAY = 24 * 3600 * 1000;
let home: { dir: string; dispose: () => void };
beforeEach(() => {
  home = tempDir('firstlight-bootstrap-record-');
});
afterEach(() => home.dispose());

/** Backdates a record's mtime (what pruning goes by). */
function age(sessionId: string, ms: number, now: Date) {
  const at = new Date(now.getTime() - ms);
  utimesSync(bootstrapRecordPath(home.dir, sessionId), at, at);
}

describe('bootstrap record', () => {
  const now = new Date('2026-11-25T09:00:00.000Z');

  it('writes one small JSON file per session id under cache/bootstraps, named by its sha256', async () => {
    await writeBootstrapRecord(home.dir, 'sess-1', { now, via: 'bootstrap_session' });
    const path = bootstrapRecordPath(home.dir, 'sess-1');
    expect(path).toMatch(/cache[\\/]bootstraps[\\/][0-9a-f]{64}\.json$/);
    expect(JSON.parse(readFileSync(path, 'utf8'))).toEqual({
      v: 1,
      session_id: 'sess-1',
      at: '2026-11-25T09:00:00.000Z',
      via: 'bootstrap_session',
    });
    expect(readBootstrapRecord(home.dir, 'sess-1')).toMatchObject({ session_id: 'sess-1' });
    expect(readBootstrapRecord(home.dir, 'sess-2')).toBeNull();
  });

  it('takes any id, a VS Code session URI included, and leaves no temporary file', async () => {
    const id = 'vscode-chat-session://local/c2Vzc2lvbi8xLzIvMw==';
    await writeBootstrapRecord(home.dir, id, { now, via: 'get_system_prompt' });
    expect(readBootstrapRecord(home.dir, id)).toMatchObject({ session_id: id, via: 'get_system_prompt' });
    expect(readdirSync(bootstrapRecordDir(home.dir)).filter((n) => !n.endsWith('.json'))).toEqual([]);
  });

  it('reads a torn, foreign or mismatched file as no record', async () => {
    await writeBootstrapRecord(home.dir, 'a', { now, via: 'bootstrap_session' });
    const path = bootstrapRecordPath(home.dir, 'a');
    writeFileSync(path, '{"v":1,"session_id":"a","at":"2026');
    expect(readBootstrapRecord(home.dir, 'a')).toBeNull();
    writeFileSync(path, JSON.stringify({ v: 1, session_id: 'b', at: now.toISOString() }));
    expect(readBootstrapRecord(home.dir, 'a')).toBeNull();
    writeFileSync(path, 'null');
    expect(readBootstrapRecord(home.dir, 'a')).toBeNull();
  });

  it('a later bootstrap rewrites the record (its time moves on)', async () => {
    await writeBootstrapRecord(home.dir, 'a', { now, via: 'get_system_prompt' });
    const later = new Date(now.getTime() + 60_000);
    await writeBootstrapRecord(home.dir, 'a', { now: later, via: 'bootstrap_session' });
    expect(readBootstrapRecord(home.dir, 'a')).toMatchObject({
      at: later.toISOString(),
      via: 'bootstrap_session',
    });
  });

  it('prunes records older than keepDays when it writes, at most every PRUNE_EVERY_MS', async () => {
    await writeBootstrapRecord(home.dir, 'old', { now, via: 'bootstrap_session' });
    await writeBootstrapRecord(home.dir, 'recent', { now, via: 'bootstrap_session' });
    age('old', 31 * DAY, now);
    age('recent', 29 * DAY, now);
    // Within the interval of the first write's prune: nothing is pruned.
    await writeBootstrapRecord(home.dir, 'soon', { now, via: 'bootstrap_session' });
    expect(readBootstrapRecord(home.dir, 'old')).not.toBeNull();
    const later = new Date(now.getTime() + PRUNE_EVERY_MS);
    await writeBootstrapRecord(home.dir, 'new', { now: later, via: 'bootstrap_session' });
    expect(readBootstrapRecord(home.dir, 'old')).toBeNull();
    expect(readBootstrapRecord(home.dir, 'recent')).not.toBeNull();
    expect(readBootstrapRecord(home.dir, 'new')).not.toBeNull();
  });

  it('keeps only the newest maxRecords', async () => {
    for (let i = 0; i < 6; i++) {
      await writeBootstrapRecord(home.dir, `s${i}`, { now, via: 'bootstrap_session', maxRecords: 100 });
      age(`s${i}`, (10 - i) * 60_000, now); // s0 oldest
    }
    expect(pruneBootstrapRecords(home.dir, now, { maxRecords: 4 })).toBe(2);
    expect(readBootstrapRecord(home.dir, 's0')).toBeNull();
    expect(readBootstrapRecord(home.dir, 's1')).toBeNull();
    for (const i of [2, 3, 4, 5]) expect(readBootstrapRecord(home.dir, `s${i}`)).not.toBeNull();
  });

  it('removes a temporary file a dead writer left, but not a fresh one', async () => {
    await writeBootstrapRecord(home.dir, 'a', { now, via: 'bootstrap_session' });
    const dir = bootstrapRecordDir(home.dir);
    // write-file-atomic's temporary names (`<record>.<number>`), and an older release's `.tmp`.
    const stale = join(dir, 'x.json.3735928559');
    const staleOld = join(dir, 'x.json.1.aa.tmp');
    const fresh = join(dir, 'y.json.4022250974');
    const old = new Date(now.getTime() - 11 * 60_000);
    for (const [path, time] of [
      [stale, old],
      [staleOld, old],
      [fresh, now],
    ] as const) {
      writeFileSync(path, '');
      utimesSync(path, time, time);
    }
    pruneBootstrapRecords(home.dir, now);
    expect(existsSync(stale)).toBe(false);
    expect(existsSync(staleOld)).toBe(false);
    expect(existsSync(fresh)).toBe(true);
    expect(readBootstrapRecord(home.dir, 'a')).not.toBeNull();
  });

  it('pruning a home that has no records is a no-op', async () => {
    expect(pruneBootstrapRecords(home.dir, now)).toBe(0);
  });

  it('is written once per session and hour by a server: a host re-calling bootstrap_session writes nothing', async () => {
    let clock = now.getTime();
    const mind = createMind({ home: home.dir, clock: () => new Date(clock) });
    const writes: string[] = [];
    const once = { key: 'bootstrap-record:s', unlessWrittenWithinMs: 3600_000 };
    const write = (what: string, fail = false) =>
      mind.writeSoon(
        what,
        async () => {
          writes.push(what);
          if (fail) throw new Error('disk full');
        },
        once,
      );
    write('first', true);
    await mind.settle();
    write('after a failure');
    write('at once again');
    await mind.settle();
    clock += 3600_000;
    write('an hour later');
    await mind.settle();
    expect(writes).toEqual(['first', 'after a failure', 'an hour later']);
    mind.close();
  });
});
