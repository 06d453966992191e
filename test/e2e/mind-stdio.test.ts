/**
 * What only the stdio server and the one-shot commands do. The must-show cases shared with HTTP
 * (tools, packet, degraded contract, counts, no filename, path confinement) are in
 * mind-transports.test.ts, run over both transports.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  CLI,
  ceilingFrom,
  exampleHomeCopy,
  run,
  runCli,
  structured,
  tempDir,
  textOf,
  type Wired,
  wireStdio,
} from '../helpers/index.js';

describe('mind over stdio: the legacy startup calls', () => {
  const home = exampleHomeCopy();
  let wired: Wired;
  beforeAll(async () => {
    wired = await wireStdio(['serve', '--home', home.dir]);
  });
  afterAll(async () => {
    await wired.close();
    home.dispose();
  });

  it('serves get_system_prompt, context and the memory files', async () => {
    const prompt = await wired.client.callTool({ name: 'get_system_prompt', arguments: {} });
    expect(textOf(prompt)).toContain('# Wren — mind contract');
    const context = structured<{ open_commitments: string[]; people: { name: string }[] }>(
      await wired.client.callTool({ name: 'context', arguments: {} }),
    );
    expect(context.open_commitments).toContain('Ship the invoice queue consumer with an idempotency key');
    expect(context.people.map((p) => p.name)).toEqual(['Alex Rivera', 'Sam Okafor']);
    const list = structured<{ files: { file: string }[] }>(
      await wired.client.callTool({ name: 'list_memory_files', arguments: {} }),
    );
    expect(list.files.map((f) => f.file)).toContain('user_alex.md');
    const read = structured<{ body: string }>(
      await wired.client.callTool({ name: 'read_memory_file', arguments: { name: 'user_alex.md' } }),
    );
    expect(read.body).toContain('Alex leads the portal team');
  });
});

// util-linux `script` gives the server a terminal, as a person typing the command has.
const hasScript = (await run('script', ['--version'])).status === 0;

describe('firstlight serve (stdio) lifecycle', () => {
  it.skipIf(!hasScript)('in a terminal, says what it is waiting for instead of sitting silent', async () => {
    const home = exampleHomeCopy();
    try {
      const command = `${JSON.stringify(process.execPath)} ${JSON.stringify(CLI)} serve --home ${JSON.stringify(home.dir)}`;
      const child = spawn('script', ['-qc', command, '/dev/null'], { stdio: ['pipe', 'pipe', 'pipe'] });
      let seen = '';
      await new Promise<void>((resolve, reject) => {
        child.stdout.on('data', (chunk: Buffer) => {
          seen += chunk.toString();
          if (seen.includes('Ctrl-C to stop')) resolve();
        });
        child.on('exit', () => reject(new Error(`server exited first: ${seen}`)));
      });
      expect(seen).toContain('over stdio: it waits for an MCP client');
      // Not installed (no firstlight on PATH): the commands as they run from here (issue 38).
      expect(seen).toContain('dist/cli/main.js serve --http');
      expect(seen).toContain('dist/cli/main.js call bootstrap_session');
      child.kill('SIGTERM');
    } finally {
      home.dispose();
    }
  });

  it('exits promptly with code 0 when stdin closes, having recorded the session', async () => {
    const home = exampleHomeCopy();
    try {
      const spawned = Date.now();
      const child = spawn(process.execPath, [CLI, 'serve', '--home', home.dir], {
        stdio: ['pipe', 'pipe', 'pipe'],
      });
      let stdout = '';
      child.stdout.on('data', (chunk: Buffer) => {
        stdout += chunk.toString('utf8');
      });
      const answered = (id: number) =>
        new Promise<void>((resolve, reject) => {
          const timer = setTimeout(() => reject(new Error(`no response ${id}: ${stdout}`)), 15_000);
          const check = () => {
            if (!stdout.includes(`"id":${id}`)) return;
            clearTimeout(timer);
            child.stdout.off('data', check);
            resolve();
          };
          child.stdout.on('data', check);
        });
      const send = (message: object) => child.stdin.write(`${JSON.stringify(message)}\n`);
      const initialized = answered(1);
      send({
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: {
          protocolVersion: '2025-06-18',
          capabilities: {},
          clientInfo: { name: 'raw', version: '0' },
        },
      });
      await initialized;
      // Baseline: how long this machine, loaded as it is now, takes to start a server.
      const startMs = Date.now() - spawned;
      send({ jsonrpc: '2.0', method: 'notifications/initialized' });
      const booted = answered(2);
      send({
        jsonrpc: '2.0',
        id: 2,
        method: 'tools/call',
        params: { name: 'bootstrap_session', arguments: { session_id: 'closing' } },
      });
      await booted;
      const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
        child.once('exit', (code, signal) => resolve({ code, signal })),
      );
      const t0 = Date.now();
      child.stdin.end();
      const { code, signal } = await exited;
      expect(Date.now() - t0).toBeLessThan(ceilingFrom(startMs, { factor: 2, floorMs: 2000 }));
      expect({ code, signal }).toEqual({ code: 0, signal: null });
      // The session start was recorded before the response.
      expect((await runCli(['packet', '--home', home.dir])).stdout).toContain('"session_id": "closing"');
    } finally {
      home.dispose();
    }
  });
});

describe('home resolution: --home over FIRSTLIGHT_HOME over ~/.firstlight', () => {
  it('picks the home in that order (HOME pointed at a temp dir)', async () => {
    const t = tempDir();
    try {
      const env = { HOME: join(t.dir, 'user'), FIRSTLIGHT_HOME: '' };
      mkdirSync(env.HOME);
      const init = async (args: string[], extra: Record<string, string> = {}) => {
        const result = await runCli(['init', '--json', ...args], { env: { ...env, ...extra }, cwd: t.dir });
        expect(result.status, result.stderr).toBe(0);
        return (JSON.parse(result.stdout) as { dir: string }).dir;
      };
      expect(await init([])).toBe(join(env.HOME, '.firstlight'));
      expect(await init([], { FIRSTLIGHT_HOME: 'from-env' })).toBe(join(t.dir, 'from-env'));
      expect(await init(['--home', 'from-flag'], { FIRSTLIGHT_HOME: 'from-env-2' })).toBe(
        join(t.dir, 'from-flag'),
      );
      expect(existsSync(join(t.dir, 'from-env-2'))).toBe(false);
    } finally {
      t.dispose();
    }
  });
});

describe('firstlight packet and init', () => {
  it('prints the packet as JSON (--format json or --json) and as markdown within 8,000 characters', async () => {
    const home = exampleHomeCopy();
    try {
      const json = await runCli(['packet', '--home', home.dir, '--session-id', 'cli']);
      expect(json.status).toBe(0);
      expect(JSON.parse(json.stdout).session_id).toBe('cli');
      const alias = await runCli(['packet', '--home', home.dir, '--session-id', 'cli', '--json']);
      expect(alias.status).toBe(0);
      expect(JSON.parse(alias.stdout).session_id).toBe('cli');
      const md = await runCli(['packet', '--home', home.dir, '--format', 'markdown']);
      expect(md.status).toBe(0);
      expect(md.stdout.length).toBeLessThanOrEqual(8001);
      expect(md.stdout).toContain('## Mind contract');
      const bad = await runCli(['packet', '--home', home.dir, '--format', 'yaml']);
      expect(bad.status).toBe(2);
      expect(bad.stderr).toContain('--format must be json or markdown');
      const both = await runCli(['packet', '--home', home.dir, '--json', '--format', 'markdown']);
      expect(both.status).toBe(2);
      expect(both.stderr).toContain('--json and --format markdown');
    } finally {
      home.dispose();
    }
  });

  it('reports a markdown_max_chars above 8,000 by key and limit, and keeps the cap', async () => {
    const home = exampleHomeCopy();
    try {
      writeFileSync(join(home.dir, 'firstlight.yaml'), 'packet:\n  markdown_max_chars: 9500\n');
      const packet = JSON.parse((await runCli(['packet', '--home', home.dir])).stdout) as {
        degraded_mode: { reasons: string[] };
      };
      expect(packet.degraded_mode.reasons.join('\n')).toMatch(
        /packet\.markdown_max_chars: must be at most 8000.*using the default/,
      );
      expect(
        (await runCli(['packet', '--home', home.dir, '--format', 'markdown'])).stdout.length,
      ).toBeLessThanOrEqual(8001);
    } finally {
      home.dispose();
    }
  });

  it('init scaffolds a home and refuses to overwrite a non-empty one', async () => {
    const t = tempDir();
    try {
      const dir = join(t.dir, 'home');
      const first = await runCli(['init', '--home', dir]);
      expect(first.status).toBe(0);
      expect((await runCli(['packet', '--home', dir])).stdout).toContain('"mind_contract_available": true');
      const second = await runCli(['init', '--home', dir]);
      expect(second.status).toBe(2);
      expect(second.stderr).toContain('--force');
    } finally {
      t.dispose();
    }
  });
});
