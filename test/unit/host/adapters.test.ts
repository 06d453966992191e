import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  detectHost,
  HOOK_EVENTS,
  HOST_ADAPTERS,
  HOST_IDS,
  type InstallContext,
} from '../../../src/host/index.js';
import { applySurface, inspectSurface } from '../../../src/host/install/surface-edit.js';
import { responseText } from '../../../src/mind/observation/index.js';
import { REPO_ROOT } from '../../helpers/index.js';

const fixture = (host: string, name: string) =>
  JSON.parse(readFileSync(join(REPO_ROOT, 'test', 'fixtures', 'hosts', host, `${name}.json`), 'utf8'));

const ctx: InstallContext = {
  project: '/work/p',
  userHome: '/home/u',
  env: {},
  platform: 'linux',
  server: { name: 'firstlight', command: 'firstlight', args: ['serve'] },
  hookArgv: (event, host) => ['firstlight', 'hook', event, ...(host ? ['--host', host] : [])],
  portable: true,
};

describe('host adapter registry', () => {
  it('has exactly one adapter per HOST_IDS entry, keyed by its own id', () => {
    expect(Object.keys(HOST_ADAPTERS)).toEqual([...HOST_IDS]);
    for (const id of HOST_IDS) expect(HOST_ADAPTERS[id].id).toBe(id);
  });

  for (const id of HOST_IDS) {
    const adapter = HOST_ADAPTERS[id];
    const expected = fixture(id, 'expected');

    describe(`${id} adapter`, () => {
      it('normalises a recorded pre-tool-use payload', () => {
        const input = adapter.normalizeHookInput('pre-tool-use', fixture(id, 'pre-tool-use'));
        expect(input).toMatchObject({
          host: id,
          event: 'pre-tool-use',
          sessionId: expected.sessionId,
          toolName: expected.toolName,
          transcriptPath: expected.transcriptPath,
          toolInput: expected.toolInput,
          mcpServer: expected.mcpServer,
        });
      });

      it('normalises a recorded session-start payload, mapping the source', () => {
        const input = adapter.normalizeHookInput('session-start', fixture(id, 'session-start'));
        expect(input.sessionId).toBe(expected.sessionId);
        expect(input.source).toBe(expected.source);
      });

      it('the recorded payload is detected as this host (the payload wins over --host)', () => {
        expect(detectHost(fixture(id, 'pre-tool-use'), id === 'vscode' ? 'claude' : id)).toBe(id);
      });

      if (expected.deny) {
        it('formats a deny as exactly the JSON the host documents, exit 0', () => {
          const out = adapter.formatHookOutput('pre-tool-use', {
            kind: 'deny',
            reason: 'call bootstrap_session',
          });
          expect(JSON.parse(out.stdout)).toEqual(expected.deny);
          expect(out.exitCode).toBe(0);
        });
      } else {
        it('has no gate, so no PreToolUse hook is installed for it', () => {
          expect('none' in adapter.caps.gate).toBe(true);
          if (id !== 'vscode') expect(adapter.caps.events['pre-tool-use']).toBeUndefined();
        });
      }

      it('normalises a recorded post-tool-use payload: the response, error, duration and call id', () => {
        const input = adapter.normalizeHookInput('post-tool-use', fixture(id, 'post-tool-use'));
        expect(input).toMatchObject({
          host: id,
          sessionId: expected.sessionId,
          toolName: expected.toolName,
          toolError: expected.post.error,
          durationMs: expected.post.durationMs,
          toolUseId: expected.post.toolUseId,
        });
        expect(responseText(input.toolResponse)).toBe(expected.post.response);
        expect(detectHost(fixture(id, 'post-tool-use'), id === 'vscode' ? 'claude' : id)).toBe(id);
      });

      if (expected.failure) {
        it('normalises a recorded failure payload: the error and duration', () => {
          const input = adapter.normalizeHookInput('post-tool-failure', fixture(id, 'post-tool-failure'));
          expect(input.toolError).toBe(expected.failure.error);
          expect(input.durationMs).toBe(expected.failure.durationMs);
          expect(adapter.caps.events['post-tool-failure']).toBeDefined();
        });
      }

      it('formats tool-call context in the field the host reads before and after the call', () => {
        expect(adapter.caps.toolHooks.preContext).toBe(expected.preContext !== null);
        if (expected.preContext) {
          const pre = adapter.formatHookOutput('pre-tool-use', { kind: 'context', text: 'CAUTION' });
          expect(JSON.parse(pre.stdout)).toEqual(expected.preContext);
        }
        const post = adapter.formatHookOutput('post-tool-use', { kind: 'context', text: 'SURPRISE' });
        expect(JSON.parse(post.stdout)).toEqual(expected.postContext);
        expect(adapter.caps.events['post-tool-use']).toBeDefined();
      });

      it("formats an ask as the host's confirmation, where it has one", () => {
        expect(adapter.caps.toolHooks.ask).toBe(expected.ask !== null);
        if (expected.ask) {
          const out = adapter.formatHookOutput('pre-tool-use', { kind: 'ask', reason: 'confirm' });
          expect(JSON.parse(out.stdout)).toEqual(expected.ask);
        }
      });

      it('formats session context as exactly the JSON the host documents (one shape: two double-inject)', () => {
        const out = adapter.formatHookOutput('session-start', { kind: 'context', text: 'PACKET' });
        expect(JSON.parse(out.stdout)).toEqual(expected.context);
        expect(out.exitCode).toBe(0);
      });

      it('prints nothing on allow, so the host keeps its own permission prompts', () => {
        expect(adapter.formatHookOutput('pre-tool-use', { kind: 'allow' })).toEqual({
          stdout: '',
          exitCode: 0,
        });
      });

      it('maps only known events to host event names', () => {
        for (const event of Object.keys(adapter.caps.events)) expect(HOOK_EVENTS).toContain(event);
      });

      for (const scope of adapter.caps.scopes) {
        it(`${scope} scope: MCP edits keep every unrelated key and are idempotent`, () => {
          const surfaces = adapter.surfaces(scope, ctx);
          for (const surface of surfaces) {
            // Install writes only inside the scope; a read-only surface is for doctor alone.
            const writes = surface.kind !== 'mcp-json' || !surface.readOnly;
            if (!writes) expect(surface.path.startsWith('/home/u/')).toBe(true);
            else if (scope === 'project') expect(surface.path.startsWith('/work/p/')).toBe(true);
            else expect(surface.path.startsWith('/home/u/')).toBe(true);
            if (surface.kind !== 'mcp-json' && surface.kind !== 'hooks') continue;
            const existing = JSON.stringify({
              keep: { deep: [1, 2] },
              mcpServers: { other: { command: 'x' } },
              servers: { y: {} },
            });
            const once = applySurface(existing, surface, 'firstlight');
            const twice = applySurface(once.text, surface, 'firstlight');
            expect(twice.text).toBe(once.text);
            const parsed = JSON.parse(once.text);
            expect(parsed.keep).toEqual({ deep: [1, 2] });
            expect(parsed.mcpServers.other).toEqual({ command: 'x' });
            expect(parsed.servers.y).toEqual({});
            expect(inspectSurface(once.text, surface, 'firstlight').ok).toBe(true);
          }
        });
      }
    });
  }

  it('sets alwaysLoad for Claude and deferTools "never" for Copilot', () => {
    const claude = HOST_ADAPTERS.claude.surfaces('project', ctx).find((s) => s.kind === 'mcp-json');
    expect(claude && 'entry' in claude && claude.entry.alwaysLoad).toBe(true);
    const copilot = HOST_ADAPTERS.copilot.surfaces('user', ctx).find((s) => s.kind === 'mcp-json');
    expect(copilot && 'entry' in copilot && copilot.entry.deferTools).toBe('never');
  });

  it('uses the "servers" root key for VS Code and TOML for Codex', () => {
    const vscode = HOST_ADAPTERS.vscode.surfaces('project', ctx).find((s) => s.kind === 'mcp-json');
    expect(vscode && 'keyPath' in vscode && vscode.keyPath).toEqual(['servers']);
    expect(HOST_ADAPTERS.codex.surfaces('project', ctx).some((s) => s.kind === 'mcp-toml')).toBe(true);
  });
});

describe('detectHost: the payload picks the host (.claude/settings.json names none)', () => {
  const claudeTranscript = '/home/u/.claude/projects/-work-p/abc.jsonl';
  const vscodeTranscript =
    '/home/u/.config/Code/User/workspaceStorage/9f1e/GitHub.copilot-chat/transcripts/s1.jsonl';

  it('Claude Code: snake_case with a Claude transcript', () => {
    expect(
      detectHost({ session_id: 's', transcript_path: claudeTranscript, tool_name: 'Bash' }, 'claude'),
    ).toBe('claude');
  });

  it("VS Code: its transcript lives in VS Code's own store", () => {
    expect(
      detectHost({ session_id: 's', transcript_path: vscodeTranscript, tool_name: 'Bash' }, 'claude'),
    ).toBe('vscode');
  });

  it('Copilot CLI: camelCase, or snake_case with no transcript under COPILOT_CLI=1', () => {
    expect(detectHost({ sessionId: 's', toolName: 'bash' }, 'claude')).toBe('copilot');
    expect(detectHost({ session_id: 's', tool_name: 'bash' }, 'claude', { COPILOT_CLI: '1' })).toBe(
      'copilot',
    );
    // Claude Code started from a Copilot shell still sends its transcript: still Claude.
    expect(
      detectHost({ session_id: 's', transcript_path: claudeTranscript, tool_name: 'Bash' }, 'claude', {
        COPILOT_CLI: '1',
      }),
    ).toBe('claude');
  });

  it("VS Code running Copilot's hooks file sends snake_case", () => {
    expect(detectHost({ session_id: 's', source: 'new' }, 'copilot')).toBe('vscode');
  });

  it('VS Code: its camelCase common fields (sessionId, hookEventName) beside snake_case tool fields, under any hint', () => {
    const payload = {
      sessionId: 'vscode-chat-session://local/x',
      hookEventName: 'PreToolUse',
      tool_name: 'editFiles',
    };
    for (const hint of ['claude', 'copilot'] as const) expect(detectHost(payload, hint)).toBe('vscode');
    expect(HOST_ADAPTERS.vscode.normalizeHookInput('pre-tool-use', payload).sessionId).toBe(
      'vscode-chat-session://local/x',
    );
  });

  it('Cursor: cursor_version, or conversation_id without session_id (it runs .claude/settings.json too)', () => {
    expect(detectHost({ conversation_id: 'c', tool_name: 'Shell' }, 'claude')).toBe('cursor');
    expect(detectHost({ session_id: 's', cursor_version: '2.1.0' }, 'claude')).toBe('cursor');
    expect(
      detectHost({ session_id: 's', conversation_id: 'c', transcript_path: claudeTranscript }, 'claude'),
    ).toBe('claude');
  });

  it("Cursor's session id is conversation_id in every event, so SessionStart and the gate agree", () => {
    const start = { session_id: 'other', conversation_id: 'conv', cursor_version: '2.1.0' };
    expect(HOST_ADAPTERS.cursor.normalizeHookInput('session-start', start).sessionId).toBe('conv');
    expect(
      HOST_ADAPTERS.cursor.normalizeHookInput('pre-tool-use', { conversation_id: 'conv' }).sessionId,
    ).toBe('conv');
  });

  it('otherwise the --host hint', () => {
    expect(detectHost({ session_id: 's', transcript_path: '/x/rollout.jsonl' }, 'codex')).toBe('codex');
  });
});
