import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { estimateTokens, loadSettings } from '../../../src/core/index.js';
import {
  internalize,
  loadResumption,
  type ResumptionPolicy,
  readSelfState,
  renderResumption,
} from '../../../src/resume/index.js';
import { tempDir } from '../../helpers/index.js';

const KEEP: ResumptionPolicy = { after_inject: 'keep', scope: 'agent', max_tokens: 300 };
const CLEAR: ResumptionPolicy = { ...KEEP, after_inject: 'clear' };
const PER_SESSION: ResumptionPolicy = { ...KEEP, scope: 'session' };
const now = new Date('2026-11-21T09:00:00Z');

let home: { dir: string; dispose: () => void };
beforeEach(() => {
  home = tempDir('firstlight-resume-');
});
afterEach(() => home.dispose());

const store = (streamTail: string, anchors: string[] = [], sessionId: string | null = null) =>
  internalize({ home: home.dir, streamTail, anchors, sessionId, fallbackKey: 'test', now });
const load = (policy: ResumptionPolicy, sessionId: string | null, consume: boolean) =>
  loadResumption({ home: home.dir, sessionId, consume, now, policy });

describe('loadResumption', () => {
  it('has no section when nothing was captured', async () => {
    expect(await load(KEEP, null, true)).toEqual({ value: null });
  });

  it('returns the tail verbatim and the newest five anchors, oldest first', async () => {
    const tail =
      'the tail doesn’t need to be comprehensive. it needs to be live.\n  "quoted" — and still in motion';
    await store(tail, ['a1', 'a2', 'a3']);
    await store(tail, ['a4', 'a5', 'a6', 'a7']);
    const { value } = await load(KEEP, null, true);
    expect(value?.stream_tail).toBe(tail);
    expect(value?.trimmed).toBe(false);
    expect(value?.anchors.map((a) => a.text)).toEqual(['a3', 'a4', 'a5', 'a6', 'a7']);
    expect(value?.anchors[0]?.trigger).toBe('resonance');
  });

  it('cuts an over-budget tail from the FRONT so the newest words survive, within the budget', async () => {
    const words = Array.from({ length: 800 }, (_, i) => `w${i}`).join(' ');
    await store(`${words} and this is where the thought was going`, ['keep me', 'and me']);
    const { value } = await load(KEEP, null, true);
    expect(value?.trimmed).toBe(true);
    expect(value?.stream_tail.endsWith('and this is where the thought was going')).toBe(true);
    expect(value?.stream_tail.startsWith('w0 ')).toBe(false);
    expect(value?.stream_tail).toMatch(/^w\d+ /); // starts at a whole word
    expect(value?.anchors.map((a) => a.text)).toEqual(['keep me', 'and me']);
    // Short anchors leave room, but the tail stays at the seed's ~100 tokens: a thought, not a log.
    expect(estimateTokens(value!.stream_tail)).toBeGreaterThan(90);
    expect(estimateTokens(value!.stream_tail)).toBeLessThanOrEqual(100);
    const rendered = renderResumption(value!, { now: new Date('2026-11-24T09:00:00Z') });
    expect(rendered).toContain('"…w');
    expect(estimateTokens(rendered)).toBeLessThanOrEqual(300);
    // The stored tail is untouched: trimming is for injection only.
    const state = readSelfState(join(home.dir, 'self-state.json'));
    expect(state.status === 'ok' && state.state.stream_tail.startsWith('w0 w1')).toBe(true);
  });

  it('fits the seed’s sizes at the default: five ~30-token anchors kept whole, the tail cut from the front', async () => {
    // Five anchors of ~30 tokens (~120 characters) each, and a tail far over ~100 tokens.
    const anchors = [1, 2, 3, 4, 5].map((n) =>
      `anchor ${n}: ${'the phrase that landed and has to come back verbatim '.repeat(3)}`
        .slice(0, 120)
        .trim(),
    );
    const tail = `${Array.from({ length: 400 }, (_, i) => `old${i}`).join(' ')} and the newest words, mid-thought—`;
    await store(tail, anchors);
    const { value } = await load(KEEP, null, true);
    expect(value?.anchors.map((a) => a.text)).toEqual(anchors);
    expect(value?.trimmed).toBe(true);
    expect(value?.stream_tail.endsWith('and the newest words, mid-thought—')).toBe(true);
    expect(tail.endsWith(value!.stream_tail)).toBe(true); // a verbatim suffix: cut from the front only
    const anchorTokens = estimateTokens(anchors.join(''));
    expect(anchorTokens).toBeGreaterThanOrEqual(140);
    expect(estimateTokens(value!.stream_tail)).toBeGreaterThan(70);
    const rendered = renderResumption(value!, { now: new Date('2026-11-21T09:59:00Z') }); // "59 minutes ago"
    expect(rendered).toContain('59 minutes ago');
    expect(estimateTokens(rendered)).toBeLessThanOrEqual(300);
    expect(estimateTokens(rendered)).toBeGreaterThan(280); // the budget is used, not wasted
  });

  it('drops the oldest anchors rather than squeezing the tail under a sixth of the budget', async () => {
    const anchor = (n: number) => `anchor ${n} ${'x'.repeat(380)}`;
    await store('a short tail that must survive whole', [
      anchor(1),
      anchor(2),
      anchor(3),
      anchor(4),
      anchor(5),
    ]);
    const { value } = await load({ ...KEEP, max_tokens: 400 }, null, true);
    expect(value?.stream_tail).toBe('a short tail that must survive whole');
    expect(value?.anchors.length).toBeLessThan(5);
    expect(value?.anchors.at(-1)?.text).toBe(anchor(5));
    expect(estimateTokens(renderResumption(value!))).toBeLessThanOrEqual(400);

    const long = Array.from({ length: 300 }, (_, i) => `t${i}`).join(' ');
    await store(long);
    const squeezed = (await load({ ...KEEP, max_tokens: 400 }, null, true)).value!;
    expect(estimateTokens(squeezed.stream_tail)).toBeGreaterThanOrEqual(400 / 6 - 1);
    expect(
      estimateTokens(renderResumption(squeezed, { now: new Date('2026-11-21T09:59:00Z') })),
    ).toBeLessThanOrEqual(400);
  });

  it('reports a malformed self-state.json as a reason, without throwing', async () => {
    writeFileSync(join(home.dir, 'self-state.json'), '{"stream_tail": 42');
    const section = await load(KEEP, null, true);
    expect(section.value).toBeNull();
    expect(section.reason).toMatch(/self-state\.json is malformed/);
  });
});

describe('after_inject: clear', () => {
  it('hands the tail to one real session start; previews and anchors are not consumed', async () => {
    await store('the thought in motion', ['anchor']);
    // `packet` previews see it and do not use it up.
    expect((await load(CLEAR, null, false)).value?.stream_tail).toBe('the thought in motion');
    expect((await load(CLEAR, null, false)).value?.stream_tail).toBe('the thought in motion');
    // The first real start gets it …
    expect((await load(CLEAR, 's1', true)).value?.stream_tail).toBe('the thought in motion');
    // … so does a repeat start of the same session (hook + tool call, a double-fired SessionStart) …
    expect((await load(CLEAR, 's1', true)).value?.stream_tail).toBe('the thought in motion');
    // … but another session only gets the anchors, and so does a preview now.
    const other = await load(CLEAR, 's2', true);
    expect(other.value?.stream_tail).toBe('');
    expect(other.value?.anchors.map((a) => a.text)).toEqual(['anchor']);
    expect((await load(CLEAR, null, false)).value?.stream_tail).toBe('');
    const rendered = renderResumption(other.value!);
    expect(rendered).not.toContain('interrupted mid-thought');
    expect(rendered).toContain('• "anchor"');
  });

  it('hands the tail to exactly one of several sessions starting at once', async () => {
    await store('only one of you gets this');
    const starts = await Promise.all(['s1', 's2', 's3', 's4', 's5'].map((id) => load(CLEAR, id, true)));
    expect(starts.filter((s) => s.value?.stream_tail === 'only one of you gets this')).toHaveLength(1);
  });

  it('injects a new capture again after the old one was used up', async () => {
    await store('first');
    await load(CLEAR, 's1', true);
    await store('second');
    expect((await load(CLEAR, 's2', true)).value?.stream_tail).toBe('second');
    expect((await load(CLEAR, 's3', true)).value).toBeNull();
  });

  it('has no section at all when the tail is used up and there are no anchors', async () => {
    await store('only a tail');
    await load(CLEAR, 's1', true);
    expect(await load(CLEAR, 's2', true)).toEqual({ value: null });
  });

  it('keeps the tail under after_inject: keep', async () => {
    await store('stays');
    await load(KEEP, 's1', true);
    expect((await load(KEEP, 's2', true)).value?.stream_tail).toBe('stays');
  });
});

describe('scope: session', () => {
  it('resumes each session from its own capture; an unknown or missing session id gets nothing', async () => {
    await store('thread of session A', ['anchor A'], 'A');
    await store('thread of session B', ['anchor B'], 'B');
    const a = await load(PER_SESSION, 'A', true);
    expect(a.value?.stream_tail).toBe('thread of session A');
    expect(a.value?.anchors.map((x) => x.text)).toEqual(['anchor A']);
    expect(a.value?.session_key).toBe('A');
    expect((await load(PER_SESSION, 'B', true)).value?.stream_tail).toBe('thread of session B');
    expect(await load(PER_SESSION, 'C', true)).toEqual({ value: null });
    expect(await load(PER_SESSION, null, true)).toEqual({ value: null });
    // Per-agent scope reads the newest capture, whichever session made it.
    const agent = await load(KEEP, 'C', true);
    expect(agent.value?.stream_tail).toBe('thread of session B');
    expect(agent.value?.anchors.map((x) => x.text)).toEqual(['anchor A', 'anchor B']);
  });

  it('clears per session under clear-after-inject', async () => {
    await store('A1', [], 'A');
    await store('B1', [], 'B');
    const policy = { ...PER_SESSION, after_inject: 'clear' } as const;
    expect((await load(policy, 'A', true)).value?.stream_tail).toBe('A1');
    expect((await load(policy, 'B', true)).value?.stream_tail).toBe('B1');
    const file = JSON.parse(readFileSync(join(home.dir, 'self-state.json'), 'utf8'));
    expect(file.sessions.A.tail_injected.session_id).toBe('A');
    expect(file.tail_injected).toBeNull(); // the per-agent record is untouched
  });
});

describe('policy from firstlight.yaml', () => {
  it('reads the resumption section of the home’s settings', async () => {
    writeFileSync(
      join(home.dir, 'firstlight.yaml'),
      'resumption:\n  after_inject: clear\n  max_tokens: 120\n',
    );
    await store(Array.from({ length: 300 }, (_, i) => `t${i}`).join(' '));
    const first = await loadResumption({ home: home.dir, sessionId: 'x', consume: true, now });
    expect(first.value?.trimmed).toBe(true);
    expect(estimateTokens(renderResumption(first.value!))).toBeLessThanOrEqual(120);
    const second = await loadResumption({ home: home.dir, sessionId: 'y', consume: true, now });
    expect(second.value).toBeNull();
  });

  it('defaults to keep / agent / 300 and names a bad value with its field', () => {
    const file = join(home.dir, 'firstlight.yaml');
    expect(loadSettings(file).settings.resumption).toEqual({
      after_inject: 'keep',
      scope: 'agent',
      max_tokens: 300,
    });
    writeFileSync(file, 'resumption:\n  scope: team\n');
    const loaded = loadSettings(file);
    expect(loaded.problems.join('\n')).toMatch(/resumption\.scope/);
    expect(loaded.settings.resumption.scope).toBe('agent');
  });
});
