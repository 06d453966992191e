/**
 * Issue 36: the capture curator on `claude-cli`, the real Claude Code (pinned in cache.ts) with
 * no tools, pointed at the scripted Anthropic model: it is sent the session redacted, answers
 * the contract, and its memory is written with the evidence the session holds.
 */
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CLI, EXAMPLE_HOME, run } from '../helpers/index.js';
import { ensureHost } from './cache.js';
import { requestText, startModelServer } from './model-server.js';

const KEY = 'sk-proj-9f8e7d6c5b4a39281706f5e4d3c2b1a0ZZq7Wm3Xk2Lp9Rt5Yv8Nb4';

describe('capture curator on claude-cli (real Claude Code, scripted model)', () => {
  it('sends the redacted session and keeps its answer with evidence', async (ctx) => {
    const host = await ensureHost('claude');
    if (!host.ok) {
      ctx.skip();
      return;
    }
    const answer = [
      '```json',
      JSON.stringify({
        memories: [
          {
            type: 'feedback',
            name: 'Never use yarn here',
            description: 'pnpm only in this repo',
            content: 'Never use yarn in this repo; pnpm for installs and scripts.',
            applies_to: ['*(yarn*)'],
            evidence: ['L1 Never use yarn in this repo, always pnpm.'],
          },
        ],
        digest: 'Kept pnpm.',
      }),
      '```',
    ].join('\n');
    await using model = await startModelServer({ fallback: { text: answer } });
    const root = mkdtempSync(join(tmpdir(), 'fl-curator-claude-'));
    try {
      const home = join(root, 'fl-home');
      mkdirSync(join(root, 'home'));
      mkdirSync(join(root, 'project'));
      cpSync(EXAMPLE_HOME, home, { recursive: true });
      writeFileSync(
        join(home, 'firstlight.yaml'),
        `capture:\n  curator:\n    substrate: claude-cli\nsubstrates:\n  claude_cli:\n    command: ${host.bin}\n`,
      );
      const transcript = join(root, 'session.jsonl');
      const line = (n: number, type: 'user' | 'assistant', text: string) =>
        JSON.stringify({
          uuid: `u${n}`,
          type,
          message: { role: type, content: type === 'user' ? text : [{ type: 'text', text }] },
        });
      writeFileSync(
        transcript,
        `${[line(1, 'user', 'Never use yarn in this repo, always pnpm.'), line(2, 'user', `key ${KEY}`), line(3, 'assistant', 'Noted.')].join('\n')}\n`,
      );
      const ran = await run(
        process.execPath,
        [
          CLI,
          'capture',
          '--home',
          home,
          '--session',
          's1',
          '--transcript',
          transcript,
          '--project',
          join(root, 'project'),
          '--json',
        ],
        {
          cwd: join(root, 'project'),
          timeoutMs: 180_000,
          env: {
            PATH: process.env.PATH,
            HOME: join(root, 'home'),
            TMPDIR: tmpdir(),
            ANTHROPIC_BASE_URL: model.url,
            ANTHROPIC_API_KEY: 'sk-ant-scripted',
            DISABLE_AUTOUPDATER: '1',
            DISABLE_TELEMETRY: '1',
            DISABLE_ERROR_REPORTING: '1',
            CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
            NO_COLOR: '1',
          },
        },
      );
      expect(ran.status, ran.stderr).toBe(0);
      const report = (
        JSON.parse(ran.stdout) as {
          captures: {
            curator?: { status: string };
            tokens: number | null;
            wrote: { name: string; file: string; evidence: string[] }[];
          }[];
        }
      ).captures[0]!;
      expect(report.curator?.status, JSON.stringify(report.curator)).toBe('ran');
      expect(model.turns.length).toBeGreaterThanOrEqual(1);
      const sent = model.turns.map((t) => requestText(t)).join('\n');
      expect(sent).toContain('L1 user: Never use yarn in this repo, always pnpm.');
      expect(sent).not.toContain(KEY);
      expect(report.tokens).toBeGreaterThan(0);
      const wrote = report.wrote;
      expect(wrote.map((w) => w.name)).toEqual(['Never use yarn here']);
      expect(wrote[0]!.evidence).toEqual(['transcript:L1 "Never use yarn in this repo, always pnpm."']);
      expect(readFileSync(join(home, 'memory', wrote[0]!.file), 'utf8')).toContain(
        'applies_to: ["*(yarn*)"]',
      );
      console.log(`[curator claude-cli] ${JSON.stringify(report.curator)}`);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  }, 240_000);
});
