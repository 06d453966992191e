/**
 * The gate on what the real hosts wrote and sent (test/fixtures/transcripts/real/<host>/, from a
 * `npm run test:hosts` run with FIRSTLIGHT_HOSTS_FIXTURES=1): the recorded PreToolUse payload of
 * the shell call made after bootstrap_session, pointed at the real session transcript, is
 * allowed; pointed at the same transcript cut before the bootstrap call, it is denied with a
 * reason naming the host's own spelling of the tool.
 */
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type HostId, runHook } from '../../../src/host/index.js';
import { REPO_ROOT, tempDir } from '../../helpers/index.js';

const REAL = join(REPO_ROOT, 'test', 'fixtures', 'transcripts', 'real');

let work: { dir: string; dispose: () => void };
beforeAll(() => {
  work = tempDir('firstlight-gate-real-');
});
afterAll(() => work.dispose());

const HOSTS: {
  dir: string;
  host: HostId | undefined;
  spelling: string;
  /** The transcript line that records the model's bootstrap_session call. */
  call: RegExp;
  deny: (stdout: string) => string | null;
}[] = [
  {
    dir: 'claude',
    host: undefined,
    spelling: 'mcp__firstlight__bootstrap_session',
    call: /"type":"tool_use"[^\n]*"name":"mcp__firstlight__bootstrap_session"/,
    deny: (out) => (out ? JSON.parse(out).hookSpecificOutput.permissionDecisionReason : null),
  },
  {
    // The newest Claude Code when the fixtures were refreshed (its README names the version).
    dir: 'claude-newest',
    host: undefined,
    spelling: 'mcp__firstlight__bootstrap_session',
    call: /"type":"tool_use"[^\n]*"name":"mcp__firstlight__bootstrap_session"/,
    deny: (out) => (out ? JSON.parse(out).hookSpecificOutput.permissionDecisionReason : null),
  },
  {
    dir: 'codex',
    host: 'codex',
    spelling: 'mcp__firstlight__bootstrap_session',
    call: /"type":"function_call"[^\n]*"name":"bootstrap_session"/,
    deny: (out) => (out ? JSON.parse(out).hookSpecificOutput.permissionDecisionReason : null),
  },
  {
    dir: 'gemini',
    host: 'gemini',
    spelling: 'mcp_firstlight_bootstrap_session',
    call: /"toolCalls":\[[^\n]*"name":"mcp_firstlight_bootstrap_session"/,
    deny: (out) => (out ? JSON.parse(out).reason : null),
  },
];

/** The recorded stdin payloads of a host's PreToolUse calls, in order. */
function preToolUse(dir: string): Record<string, unknown>[] {
  const inputs = join(REAL, dir, 'hook-inputs');
  return readdirSync(inputs)
    .filter((n) => n.includes('pre-tool-use'))
    .sort()
    .map((n) => JSON.parse(JSON.parse(readFileSync(join(inputs, n), 'utf8')).stdin));
}

for (const h of HOSTS) {
  describe(`gate on ${h.dir}'s real session`, () => {
    const transcript = readFileSync(join(REAL, h.dir, 'session-1.jsonl'), 'utf8');
    const payloads = preToolUse(h.dir);
    const after = payloads.at(-1)!;
    const gate = async (text: string) => {
      const path = join(work.dir, `${h.dir}-${Math.random().toString(36).slice(2)}.jsonl`);
      writeFileSync(path, text);
      const out = await runHook({
        event: 'pre-tool-use',
        ...(h.host ? { host: h.host } : {}),
        home: work.dir,
        env: {},
        cwd: work.dir,
        stdin: JSON.stringify({ ...after, transcript_path: path }),
      });
      return { exitCode: out.exitCode, reason: h.deny(out.stdout) };
    };

    it('the recorded payloads are the shell, bootstrap_session, then the shell again', () => {
      expect(payloads).toHaveLength(3);
      expect(payloads[1]!.tool_name).toBe(h.spelling);
      expect(after.tool_name).toBe(payloads[0]!.tool_name);
    });

    it('allows the shell once the transcript holds the successful bootstrap_session', async () => {
      expect(await gate(transcript)).toEqual({ exitCode: 0, reason: null });
    });

    it(`denies it before the bootstrap call, naming ${h.spelling}`, async () => {
      const lines = transcript.split('\n');
      const at = lines.findIndex((l) => h.call.test(l));
      expect(at).toBeGreaterThan(0);
      const { reason } = await gate(`${lines.slice(0, at).join('\n')}\n`);
      expect(reason).toContain(h.spelling);
    });
  });
}
