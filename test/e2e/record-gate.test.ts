/**
 * The tool gate on hosts with no transcript that can prove bootstrap (Copilot CLI, VS Code,
 * Cursor), end to end through the built CLI: each host's documented SessionStart and PreToolUse
 * input on stdin, a real bootstrap_session call through the MCP SDK Client against
 * `firstlight serve`, and firstlight's own record in between. No mocks.
 */
import { spawn } from 'node:child_process';
import { appendFileSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { exampleHomeCopy, REPO_ROOT, runCli, structured, tempDir, wireStdio } from '../helpers/index.js';

interface HostCase {
  host: 'copilot' | 'vscode' | 'cursor';
  id: string;
  sessionStart: Record<string, unknown>;
  preToolUse: Record<string, unknown>;
  /** The deny reason out of the host's own output shape, or null when the hook allowed. */
  reason: (stdout: string) => string | null;
  /** The packet text out of the host's own SessionStart output shape. */
  packet: (stdout: string) => string;
}

const CASES: HostCase[] = [
  {
    // Copilot CLI hooks reference: camelCase sessionStart/preToolUse input, `toolArgs` a JSON string.
    host: 'copilot',
    id: '7d3c9a1e-copilot',
    sessionStart: { sessionId: '7d3c9a1e-copilot', timestamp: 1764061200000, cwd: '/w', source: 'new' },
    preToolUse: {
      sessionId: '7d3c9a1e-copilot',
      timestamp: 1764061201000,
      cwd: '/w',
      toolName: 'bash',
      toolArgs: '{"command":"rm -rf build"}',
    },
    reason: (out) => (out ? JSON.parse(out).permissionDecisionReason : null),
    packet: (out) => JSON.parse(out).additionalContext,
  },
  {
    // VS Code (microsoft/vscode hooksCommandTypes.ts): camelCase common fields, snake_case tool fields.
    host: 'vscode',
    id: 'vscode-chat-session://local/N2QzYzlhMWUtdnNjb2Rl',
    sessionStart: {
      timestamp: '2026-11-25T09:00:00.000Z',
      cwd: '/w',
      sessionId: 'vscode-chat-session://local/N2QzYzlhMWUtdnNjb2Rl',
      hookEventName: 'SessionStart',
      source: 'new',
    },
    preToolUse: {
      timestamp: '2026-11-25T09:00:01.000Z',
      cwd: '/w',
      sessionId: 'vscode-chat-session://local/N2QzYzlhMWUtdnNjb2Rl',
      hookEventName: 'PreToolUse',
      tool_name: 'run_in_terminal',
      tool_input: { command: 'rm -rf build' },
      tool_use_id: 'call_1',
    },
    reason: (out) => (out ? JSON.parse(out).hookSpecificOutput.permissionDecisionReason : null),
    packet: (out) => JSON.parse(out).hookSpecificOutput.additionalContext,
  },
  {
    // Cursor hooks: common `conversation_id`, `generation_id`, `workspace_roots`.
    host: 'cursor',
    id: 'c0ffee00-cursor',
    sessionStart: {
      conversation_id: 'c0ffee00-cursor',
      hook_event_name: 'sessionStart',
      workspace_roots: ['/w'],
    },
    preToolUse: {
      conversation_id: 'c0ffee00-cursor',
      generation_id: 'gen-1',
      hook_event_name: 'preToolUse',
      workspace_roots: ['/w'],
      tool_name: 'Shell',
      tool_input: { command: 'rm -rf build' },
    },
    reason: (out) => (out ? JSON.parse(out).agent_message : null),
    packet: (out) => JSON.parse(out).additional_context,
  },
];

/** Polls `check` until it holds (the server writes a record just after its answer goes out). */
async function waitFor(check: () => Promise<boolean>, ms = 10_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error('timed out waiting for the gate to allow');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

async function hook(event: string, host: string, home: string, payload: Record<string, unknown>) {
  const r = await runCli(['hook', event, '--host', host, '--home', home], {
    input: JSON.stringify(payload),
    env: { FIRSTLIGHT_GATE_BYPASS: '' },
  });
  expect(r.status, r.stderr).toBe(0);
  return r.stdout.trim();
}

describe("the tool gate on record hosts (built CLI, real MCP server, firstlight's own record)", () => {
  for (const c of CASES) {
    it(`${c.host}: denied before bootstrap_session, allowed after the real call with its session id`, async () => {
      const home = exampleHomeCopy();
      try {
        // SessionStart asks for exactly the call the gate will look for.
        const packet = c.packet(await hook('session-start', c.host, home.dir, c.sessionStart));
        expect(packet).toContain(`bootstrap_session(session_id: ${JSON.stringify(c.id)})`);

        const denied = c.reason(await hook('pre-tool-use', c.host, home.dir, c.preToolUse));
        expect(denied).toContain(`Call bootstrap_session(session_id: ${JSON.stringify(c.id)})`);

        // bootstrap_session without the id, or with another one, does not open this session's gate.
        const wired = await wireStdio(['serve', '--home', home.dir]);
        try {
          await wired.client.callTool({ name: 'bootstrap_session', arguments: {} });
          await wired.client.callTool({
            name: 'bootstrap_session',
            arguments: { session_id: 'someone-else' },
          });
          expect(c.reason(await hook('pre-tool-use', c.host, home.dir, c.preToolUse))).not.toBeNull();

          const result = await wired.client.callTool({
            name: 'bootstrap_session',
            arguments: { session_id: c.id },
          });
          expect(result.isError).toBeFalsy();
          expect(
            (result.structuredContent as { mind_contract_available: boolean }).mind_contract_available,
          ).toBe(true);
        } finally {
          await wired.close();
        }
        // Allowed: no decision (the example home's Bash cautions may come as context).
        expect(c.reason(await hook('pre-tool-use', c.host, home.dir, c.preToolUse)) ?? null).toBeNull();
      } finally {
        home.dispose();
      }
    });
  }

  it('a degraded bootstrap (mind_contract_available: false) records nothing; get_system_prompt with the id does', async () => {
    const home = exampleHomeCopy();
    try {
      const copilot = CASES[0]!;
      rmSync(join(home.dir, 'persona', 'agent_system.md'));
      const wired = await wireStdio(['serve', '--home', home.dir]);
      try {
        const degraded = await wired.client.callTool({
          name: 'bootstrap_session',
          arguments: { session_id: copilot.id },
        });
        expect(
          (degraded.structuredContent as { mind_contract_available: boolean }).mind_contract_available,
        ).toBe(false);
      } finally {
        await wired.close();
      }
      expect(copilot.reason(await hook('pre-tool-use', 'copilot', home.dir, copilot.preToolUse))).toMatch(
        /no record/,
      );

      const fresh = exampleHomeCopy();
      try {
        const legacy = await wireStdio(['serve', '--home', fresh.dir]);
        try {
          await legacy.client.callTool({ name: 'get_system_prompt', arguments: { session_id: copilot.id } });
        } finally {
          await legacy.close();
        }
        expect(
          copilot.reason(await hook('pre-tool-use', 'copilot', fresh.dir, copilot.preToolUse)) ?? null,
        ).toBeNull();
      } finally {
        fresh.dispose();
      }
    } finally {
      home.dispose();
    }
  });

  it('issue 35: a later degraded bootstrap_session of the session takes its record back; the next success restores it', async () => {
    const home = exampleHomeCopy();
    try {
      const copilot = CASES[0]!;
      const persona = join(home.dir, 'persona', 'agent_system.md');
      const contract = readFileSync(persona, 'utf8');
      const allowed = async () =>
        (copilot.reason(await hook('pre-tool-use', 'copilot', home.dir, copilot.preToolUse)) ?? null) ===
        null;
      const wired = await wireStdio(['serve', '--home', home.dir]);
      try {
        const bootstrap = async () =>
          structured<{ mind_contract_available: boolean }>(
            await wired.client.callTool({ name: 'bootstrap_session', arguments: { session_id: copilot.id } }),
          ).mind_contract_available;
        expect(await bootstrap()).toBe(true);
        await waitFor(allowed);
        // The contract breaks: the same session's next bootstrap_session is degraded.
        writeFileSync(persona, `${contract}\n@include missing-part.md\n`);
        expect(await bootstrap()).toBe(false);
        expect(await allowed()).toBe(false);
        // Fixed, and bootstrapped again by the same server within the hour it would not rewrite.
        writeFileSync(persona, contract);
        expect(await bootstrap()).toBe(true);
        await waitFor(allowed);
      } finally {
        await wired.close();
      }
    } finally {
      home.dispose();
    }
  });

  it('issue 35: Claude Code: a degraded bootstrap_session seen by PostToolUse takes back the record the gate kept from the transcript', async () => {
    const home = exampleHomeCopy();
    const project = tempDir('firstlight-revoke-');
    try {
      const session = 'claude-revoke-1';
      const transcript = join(project.dir, `${session}.jsonl`);
      const wired = await wireStdio(['serve', '--home', home.dir]);
      let good: unknown;
      let bad: unknown;
      try {
        // The real answers, without a session id (the record then comes from the transcript).
        good = (await wired.client.callTool({ name: 'bootstrap_session', arguments: {} })).content;
        rmSync(join(home.dir, 'persona', 'agent_system.md'));
        bad = (await wired.client.callTool({ name: 'bootstrap_session', arguments: {} })).content;
      } finally {
        await wired.close();
      }
      const line = (type: string, content: unknown) =>
        `${JSON.stringify({ type, sessionId: session, message: { role: type, content } })}\n`;
      const call = (id: string) =>
        line('assistant', [{ type: 'tool_use', id, name: 'mcp__firstlight__bootstrap_session', input: {} }]);
      const result = (id: string, content: unknown) =>
        line('user', [{ type: 'tool_result', tool_use_id: id, content }]);
      writeFileSync(transcript, call('toolu_1') + result('toolu_1', good));
      const bash = {
        session_id: session,
        transcript_path: transcript,
        cwd: project.dir,
        hook_event_name: 'PreToolUse',
        tool_name: 'Bash',
        tool_input: { command: 'rm -rf build' },
        tool_use_id: 'toolu_2',
      };
      const decision = async () => {
        const out = await hook('pre-tool-use', 'claude', home.dir, bash);
        return out ? (JSON.parse(out).hookSpecificOutput.permissionDecision ?? 'allow') : 'allow';
      };
      // Allowed by the transcript; the gate keeps the proof as the session's record.
      expect(await decision()).not.toBe('deny');
      // The session bootstraps again and the mind is degraded: in the transcript, and in PostToolUse.
      appendFileSync(transcript, call('toolu_3') + result('toolu_3', bad));
      await hook('post-tool-use', 'claude', home.dir, {
        session_id: session,
        transcript_path: transcript,
        cwd: project.dir,
        hook_event_name: 'PostToolUse',
        tool_name: 'mcp__firstlight__bootstrap_session',
        tool_input: {},
        tool_response: bad,
        tool_use_id: 'toolu_3',
      });
      expect(await decision()).toBe('deny');
    } finally {
      project.dispose();
      home.dispose();
    }
  });

  it('many writers on one home: every read is a whole record, never a torn one', async () => {
    const home = exampleHomeCopy();
    try {
      const module = pathToFileURL(join(REPO_ROOT, 'dist', 'mind', 'bootstrap-record', 'index.js')).href;
      // Eight processes rewrite the same record (and one of their own) 100 times each.
      const script = [
        `const { writeBootstrapRecord } = await import(${JSON.stringify(module)});`,
        'const [home, me] = process.argv.slice(1);',
        "for (let i = 0; i < 100; i++) { await writeBootstrapRecord(home, 'shared', { now: new Date(), via: 'bootstrap_session' }); await writeBootstrapRecord(home, me, { now: new Date(), via: 'bootstrap_session' }); }",
      ].join('\n');
      const { readBootstrapRecord, bootstrapRecordDir } = await import(module);
      const writers = Array.from({ length: 8 }, (_, i) =>
        spawn(process.execPath, ['--input-type=module', '-e', script, home.dir, `w${i}`], {
          stdio: 'inherit',
        }),
      );
      const done = Promise.all(writers.map((w) => new Promise((resolve) => w.on('exit', resolve))));
      let finished = false;
      void done.then(() => {
        finished = true;
      });
      // Once the record exists, a read may see an older or newer writer's record, never none.
      let seen = 0;
      let torn = 0;
      while (!finished) {
        const record = readBootstrapRecord(home.dir, 'shared');
        if (record) seen++;
        else if (seen > 0) torn++;
        await new Promise((resolve) => setImmediate(resolve));
      }
      expect(await done).toEqual(Array(8).fill(0));
      expect(seen).toBeGreaterThan(0);
      expect(torn).toBe(0);
      expect(readBootstrapRecord(home.dir, 'shared')).toMatchObject({ session_id: 'shared' });
      for (let i = 0; i < 8; i++) expect(readBootstrapRecord(home.dir, `w${i}`)).not.toBeNull();
      // Nine records, no temporary file left behind.
      expect(readdirSync(bootstrapRecordDir(home.dir))).toHaveLength(9);
    } finally {
      home.dispose();
    }
  });
});
