import { appendFileSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import {
  Cognition,
  listMemoryUses,
  MemoryStore,
  RecallIndex,
  readMemoryUses,
  recordMemoryUse,
  usesDir,
} from '../../../src/mind/index.js';
import { exampleHomeCopy, tempDir } from '../../helpers/index.js';

const places: { dispose: () => void }[] = [];
afterEach(() => {
  while (places.length) places.pop()!.dispose();
});

describe('the memory-use log', () => {
  it('appends one line per use and reads a memory’s uses back, newest first, across days', () => {
    const home = tempDir('firstlight-uses-');
    places.push(home);
    recordMemoryUse(
      home.dir,
      { via: 'recall', files: ['a.md', 'b.md'], query: 'cache ttl' },
      new Date('2026-11-27T10:00:00Z'),
    );
    recordMemoryUse(
      home.dir,
      { via: 'caution', files: ['b.md'], tool: 'Bash', on_match: 'warn', session: 's1', host: 'claude' },
      new Date('2026-11-28T09:00:00Z'),
    );
    recordMemoryUse(
      home.dir,
      { via: 'recall', files: [], query: 'nothing found' },
      new Date('2026-11-28T09:30:00Z'),
    );
    appendFileSync(join(usesDir(home.dir), '2026-11-28.jsonl'), '{"torn": \n');
    expect(readMemoryUses(home.dir, 'b.md').map((u) => [u.ts, u.via])).toEqual([
      ['2026-11-28T09:00:00.000Z', 'caution'],
      ['2026-11-27T10:00:00.000Z', 'recall'],
    ]);
    expect(readMemoryUses(home.dir, 'a.md')).toEqual([
      { ts: '2026-11-27T10:00:00.000Z', via: 'recall', files: ['a.md', 'b.md'], query: 'cache ttl' },
    ]);
    expect(readMemoryUses(home.dir, 'b.md', { limit: 1 })).toHaveLength(1);
    expect(listMemoryUses(home.dir, { via: 'caution' }).map((u) => u.tool)).toEqual(['Bash']);
    expect(listMemoryUses(home.dir, { since: new Date('2026-11-28T00:00:00Z') })).toHaveLength(1);
    expect(readMemoryUses(tempDir().dir, 'a.md')).toEqual([]);
  });

  it('logs the memories observe and reflect put in front of the agent, flags marked', async () => {
    const h = exampleHomeCopy();
    places.push(h);
    const store = new MemoryStore(join(h.dir, 'memory'));
    const at = new Date('2026-11-28T12:00:00Z');
    const cognition = new Cognition({ home: h.dir, store, recall: new RecallIndex(store), clock: () => at });
    const observed = cognition.observe({ tool_name: 'Bash', args: { command: 'git push --force' } }, 's1');
    await cognition.reflect({ observation: 'Alex said: squash merges only', kind: 'user_said' }, 's1');
    const lines = readFileSync(join(usesDir(h.dir), '2026-11-28.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(lines[0]).toMatchObject({ via: 'observe', tool: 'Bash', session: 's1', event: observed.event_id });
    expect(lines[0].flagged).toEqual(expect.arrayContaining(['caution_force_push.md']));
    expect(lines[0].files).toEqual(expect.arrayContaining(lines[0].flagged));
    expect(lines[1]).toMatchObject({ via: 'reflect', session: 's1' });
    expect(lines[1].files).toContain('feedback_squash_merges.md');
  });
});
