import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runHook } from '../../../src/host/index.js';
import { exampleHomeCopy } from '../../helpers/index.js';

let home: { dir: string; dispose: () => void };
beforeAll(() => {
  home = exampleHomeCopy();
});
afterAll(() => home.dispose());

const hook = (event: string, payload: Record<string, unknown>) =>
  runHook({ event, host: 'claude', home: home.dir, env: {}, cwd: home.dir, stdin: JSON.stringify(payload) });

const injected = async (source: string) => {
  const out = await hook('session-start', { session_id: 'long-1', source, cwd: home.dir });
  return out.stdout === '' ? null : (JSON.parse(out.stdout).hookSpecificOutput.additionalContext as string);
};

describe('session-start across compactions', () => {
  it('injects once per session and source, and again after each new compaction', async () => {
    expect(await injected('startup')).toContain('bootstrap_session');
    expect(await injected('startup')).toBeNull();

    await hook('pre-compact', { session_id: 'long-1', trigger: 'auto' });
    expect(await injected('compact')).toContain('bootstrap_session');
    // SessionStart may fire twice for one compaction: still one injection.
    expect(await injected('compact')).toBeNull();

    // A second compaction in the same session: context was lost again, so the packet returns.
    await hook('pre-compact', { session_id: 'long-1', trigger: 'auto' });
    expect(await injected('compact')).toContain('bootstrap_session');
    expect(await injected('compact')).toBeNull();
  });
});

describe("Gemini CLI's PreCompress", () => {
  const gemini = (trigger: string) =>
    runHook({
      event: 'pre-compact',
      host: 'gemini',
      home: home.dir,
      env: {},
      cwd: home.dir,
      // Gemini's PreCompress input: the common fields plus `trigger`.
      stdin: JSON.stringify({
        session_id: 'gem-1',
        transcript_path: `${home.dir}/no-such-chat.jsonl`,
        cwd: home.dir,
        hook_event_name: 'PreCompress',
        timestamp: '2026-11-25T08:00:00.000Z',
        trigger,
      }),
    });

  it('an automatic one (fired before every model turn) is no compaction: nothing counted, nothing said', async () => {
    const out = await gemini('auto');
    expect(out).toEqual({ stdout: '', exitCode: 0 });
    const { compactions } = await import('../../../src/host/hook/ledger.js');
    expect(compactions(home.dir, 'gem-1')).toBe(0);
  });

  it('a manual /compress is one: counted and captured', async () => {
    const out = await gemini('manual');
    expect(out.exitCode).toBe(0);
    expect(out.stderr).toMatch(/nothing captured/);
    const { compactions } = await import('../../../src/host/hook/ledger.js');
    expect(compactions(home.dir, 'gem-1')).toBe(1);
  });
});
