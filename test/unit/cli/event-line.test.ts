import { describe, expect, it } from 'vitest';
import { describeEvent, summarizeArgs } from '../../../src/cli/commands/event-line.js';

const base = { id: 'ev_1', ts: '2026-11-20T09:00:00.000Z', kind: 'observe' as const };

describe('an event as a line of firstlight events', () => {
  it('summarizes arguments by their most telling field, else key=value', () => {
    expect(summarizeArgs('{"command":"git push --force origin main"}')).toBe('git push --force origin main');
    expect(summarizeArgs('{"file_path":"src/a.ts","old_string":"x"}')).toBe('src/a.ts');
    expect(summarizeArgs('{"k":5,"q":"deploy"}')).toBe('k=5, q=deploy');
    expect(summarizeArgs('{}')).toBe('');
    expect(summarizeArgs(undefined)).toBe('');
    expect(summarizeArgs(`{"command":"${'x'.repeat(100)}"}`)).toHaveLength(60);
  });

  it('shows a denied call as DENIED with the reason, a failed one as ERROR, a hook’s as [hook HOST]', () => {
    const denied = describeEvent({
      ...base,
      source: 'hook',
      host: 'claude',
      tool_name: 'Bash',
      args: '{"command":"rm -rf build"}',
      outcome: 'denied',
      error: 'firstlight: call bootstrap_session first',
    });
    expect(denied).toBe(
      '2026-11-20T09:00:00.000Z  observe Bash(rm -rf build)  DENIED: firstlight: call bootstrap_session first  [hook claude]',
    );
    const failed = describeEvent({
      ...base,
      source: 'hook',
      host: 'codex',
      tool_name: 'Bash',
      args: '{"command":"make"}',
      outcome: 'error',
      error: 'exit 2',
    });
    expect(failed).toContain('Bash(make)  ERROR: exit 2  [hook codex]');
    const ok = describeEvent({
      ...base,
      source: 'hook',
      host: 'claude',
      tool_name: 'Read',
      args: '{"file_path":"a.md"}',
      outcome: 'ok',
      result: 'hello',
    });
    expect(ok).toContain('Read(a.md)  ok: hello  [hook claude]');
    const agent = describeEvent({
      ...base,
      tool_name: 'git_push',
      args: '{"branch":"main"}',
      expected: 'push succeeds',
    });
    expect(agent).toContain('git_push(branch=main)  expected: push succeeds');
    expect(agent).not.toContain('[hook');
  });
});
