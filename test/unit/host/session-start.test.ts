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
