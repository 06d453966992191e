import { mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { afterEach, describe, expect, it } from 'vitest';
import { SystemError, silentLogger } from '../../../src/core/index.js';
import { Cognition, MemoryStore, RecallIndex, readRecentEvents } from '../../../src/mind/index.js';
import { offerSurprises, readSurprises, surpriseLine } from '../../../src/mind/observation/index.js';
import { createFirstlight, createMindServer } from '../../../src/servers/index.js';
import { exampleHomeCopy, structured } from '../../helpers/index.js';

const homes: { dispose: () => void }[] = [];
afterEach(() => {
  while (homes.length) homes.pop()!.dispose();
});

function setup(at = new Date('2026-11-22T10:00:00Z')) {
  const h = exampleHomeCopy();
  homes.push(h);
  const store = new MemoryStore(join(h.dir, 'memory'));
  const recall = new RecallIndex(store);
  const cognition = new Cognition({ home: h.dir, store, recall, clock: () => at });
  return { dir: h.dir, cognition, store, recall };
}

function events(dir: string): Record<string, unknown>[] {
  return readFileSync(join(dir, 'events', '2026-11-22.jsonl'), 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as Record<string, unknown>);
}

describe('Cognition.observe', () => {
  it('raises feedback/caution memories whose applies_to globs match the tool', () => {
    const { cognition } = setup();
    const out = cognition.observe({ tool_name: 'git_push_branch', args: { branch: 'main' } }, 's1');
    expect(out.cautionary_flags).toContainEqual(
      expect.objectContaining({ name: 'Force push caution', reason: 'applies_to', pattern: 'git_push*' }),
    );
    const bash = cognition.observe({ tool_name: 'Bash', args: { command: 'ls' } }, 's1');
    expect(bash.cautionary_flags.map((f) => f.name).sort()).toEqual([
      'Force push caution',
      'Run the focused test first',
    ]);
    const other = cognition.observe({ tool_name: 'read_file', args: { path: 'x' } }, 's1');
    expect(other.cautionary_flags.filter((f) => f.reason === 'applies_to')).toEqual([]);
  });

  it('pairs a result with the expectation given in an earlier call and records both events', () => {
    const { cognition, dir } = setup();
    const before = cognition.observe(
      { tool_name: 'run_tests', args: { file: 'a.test.ts' }, expected: 'all tests pass' },
      's1',
    );
    expect(before.prediction_error).toBeNull();
    const after = cognition.observe(
      { tool_name: 'run_tests', args: { file: 'a.test.ts' }, result: 'Tests: 2 failed, 10 passed' },
      's1',
    );
    expect(after.prediction_error).toBeGreaterThan(0.7);
    expect(after.expectation_event_id).toBe(before.event_id);
    const lines = events(dir);
    expect(lines).toHaveLength(2);
    expect(lines[1]).toMatchObject({
      kind: 'observe',
      expectation_of: before.event_id,
      tool_name: 'run_tests',
    });
    // The expectation is consumed: a second result has nothing to compare with.
    const again = cognition.observe(
      { tool_name: 'run_tests', args: { file: 'a.test.ts' }, result: 'ok' },
      's1',
    );
    expect(again.prediction_error).toBeNull();
  });

  it('finds the expectation in the event file when another process took it', () => {
    const a = setup();
    a.cognition.observe({ tool_name: 'deploy', args: {}, expected: 'deploy completes' }, 's9');
    const other = new Cognition({
      home: a.dir,
      store: a.store,
      recall: a.recall,
      clock: () => new Date('2026-11-22T10:01:00Z'),
    });
    const out = other.observe(
      { tool_name: 'deploy', args: {}, result: 'Deploy complete: 3 services updated' },
      's9',
    );
    expect(out.prediction_error).toBeLessThan(0.3);
    expect(out.expectation_event_id).not.toBeNull();
  });

  it('finds an expectation written just before midnight (UTC) in the previous day file', () => {
    const a = setup(new Date('2026-11-22T23:58:00Z'));
    a.cognition.observe({ tool_name: 'deploy', args: {}, expected: 'deploy completes' }, 's9');
    const other = new Cognition({
      home: a.dir,
      store: a.store,
      recall: a.recall,
      clock: () => new Date('2026-11-23T00:03:00Z'),
    });
    const out = other.observe({ tool_name: 'deploy', args: {}, result: 'ERROR: deploy failed' }, 's9');
    expect(out.expectation_event_id).not.toBeNull();
    expect(out.prediction_error).toBeGreaterThan(0.7);
    expect(readdirSync(join(a.dir, 'events')).sort()).toEqual(['2026-11-22.jsonl', '2026-11-23.jsonl']);
  });

  it('names an event file it cannot read instead of taking it as empty', () => {
    const a = setup(new Date('2026-11-23T00:03:00Z'));
    // Yesterday's file is searched for the expectation; it cannot be read (a directory).
    mkdirSync(join(a.dir, 'events', '2026-11-22.jsonl'), { recursive: true });
    const call = () => a.cognition.observe({ tool_name: 'deploy', args: {}, result: 'done' }, 's9');
    expect(call).toThrow(SystemError);
    expect(call).toThrow(/could not read cognition events from .*2026-11-22\.jsonl: EISDIR/);
    expect(readRecentEvents(join(a.dir, 'events', '2026-11-21.jsonl'))).toEqual([]);
  });

  it('returns relevant excerpts for the call', () => {
    const { cognition } = setup();
    const out = cognition.observe({ tool_name: 'query_db', args: { target: 'staging postgres' } }, 's1');
    expect(out.relevant[0]?.name).toBe('Staging database');
  });
});

describe('Cognition.reflect', () => {
  it('appends a reflect event and ranks feedback memories as flags', async () => {
    const { cognition, dir } = setup();
    const out = await cognition.reflect(
      { observation: 'Alex said: squash merges only, never rebase-merge', kind: 'user_said' },
      's1',
    );
    expect(out.prediction_error).toBeNull();
    expect(out.cautionary_flags).toContainEqual(
      expect.objectContaining({ name: 'Squash merges only', reason: 'ranked' }),
    );
    expect(readdirSync(join(dir, 'events'))).toEqual(['2026-11-22.jsonl']);
    expect(events(dir)[0]).toMatchObject({ kind: 'reflect', reflect_kind: 'user_said' });
  });

  it('cites observations by event id: a surprise offered at Stop leaves the list once cited', async () => {
    const { cognition, dir } = setup();
    const expectation = cognition.observe(
      { tool_name: 'deploy', args: { env: 'prod' }, expected: 'deploy succeeds' },
      's1',
    );
    expect(expectation.prediction_error).toBeNull();
    const surprise = cognition.observe(
      { tool_name: 'deploy', args: { env: 'prod' }, result: 'deploy failed: timeout' },
      's1',
    );
    expect(surprise.prediction_error!).toBeGreaterThan(0.7);
    const now = new Date('2026-11-22T10:00:00Z');
    expect(await offerSurprises(dir, 's1', now)).toBe(1);
    expect(readSurprises(dir).map((s) => s.event_id)).toEqual([surprise.event_id]);
    expect(surpriseLine(readSurprises(dir)[0]!)).toContain(
      'expected "deploy succeeds", got "deploy failed: timeout"',
    );
    const out = await cognition.reflect(
      { observation: 'prod deploys time out on cold caches', kind: 'internal', cites: [surprise.event_id] },
      's1',
    );
    expect(out.event_id).toMatch(/^ev_/);
    expect(events(dir).at(-1)).toMatchObject({ kind: 'reflect', cites: [surprise.event_id] });
    expect(readSurprises(dir)).toEqual([]);
    // Offered again at the next Stop: still cited, so not offered.
    expect(await offerSurprises(dir, 's1', now)).toBe(0);
  });
});

describe('mind server tools', () => {
  it('registers remember, recall, observe and reflect, and the packet protocol uses them', async () => {
    const h = exampleHomeCopy();
    homes.push(h);
    const firstlight = createFirstlight({ home: h.dir });
    const server = createMindServer({ firstlight, log: silentLogger });
    const [a, b] = InMemoryTransport.createLinkedPair();
    const client = new Client({ name: 't', version: '0' });
    await Promise.all([server.connect(a), client.connect(b)]);
    const names = (await client.listTools()).tools.map((t) => t.name);
    expect(names).toEqual(expect.arrayContaining(['remember', 'recall', 'observe', 'reflect']));
    const packet = structured<{ available_mind_tools: string[]; cognition_protocol: string[] }>(
      await client.callTool({ name: 'bootstrap_session', arguments: {} }),
    );
    expect(packet.available_mind_tools).toEqual(
      expect.arrayContaining(['remember', 'recall', 'observe', 'reflect']),
    );
    const protocol = packet.cognition_protocol.join('\n');
    for (const tool of ['observe(', 'reflect(', 'recall(', 'remember(']) expect(protocol).toContain(tool);
    const remembered = await client.callTool({
      name: 'remember',
      arguments: { content: 'The quokka service owns refunds.', type: 'reference', name: 'Quokka' },
    });
    expect(structured(remembered)).toMatchObject({ file: 'reference_quokka.md' });
    const found = structured<{ results: { name: string }[] }>(
      await client.callTool({ name: 'recall', arguments: { query: 'who owns refunds' } }),
    );
    expect(found.results[0]?.name).toBe('Quokka');
    await client.close();
    firstlight.close();
  });
});
