/**
 * The real hosts, end to end: each pinned host CLI (installed into a cache outside the repo on
 * first use) runs headless in an isolated HOME against the scripted model server, after
 * `firstlight install <host>` and the one-time trust steps a user performs. Each host × check is
 * its own test; the table lands in test/hosts/results/ (results.json, results.md) together with
 * each host's requests, transcripts and recorded hook inputs. Run with `npm run test:hosts`.
 */
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO_ROOT, run, structured } from '../helpers/index.js';
import { ensureHost, PINNED_HOSTS, type PinnedHostId } from './cache.js';
import { RECIPES, SESSION_HOSTS } from './recipes.js';
import { ResultTable } from './results.js';
import { createSandbox, firstlight, runHost, type Sandbox, writeJson } from './sandbox.js';
import {
  type CheckOutcome,
  checkAllowed,
  checkBootstrap,
  checkCaution,
  checkDenied,
  checkLastWords,
  checkLastWordsOnce,
  checkObserved,
  checkPacket,
} from './scenario.js';
import { runSessions, type SessionsRun, versionOf } from './two-sessions.js';

const RESULTS = join(REPO_ROOT, 'test', 'hosts', 'results');
const SESSION_TIMEOUT_MS = Number(process.env.FIRSTLIGHT_HOSTS_TIMEOUT_MS ?? 120_000);
const KEEP_SANDBOX = process.env.FIRSTLIGHT_HOSTS_KEEP === '1';
/** `FIRSTLIGHT_HOSTS_FIXTURES=1` refreshes test/fixtures/transcripts/real/ from this run. */
const WRITE_FIXTURES = process.env.FIRSTLIGHT_HOSTS_FIXTURES === '1';
const COLUMNS = [
  'packet',
  'bootstrap',
  'denied-before',
  'allowed-after',
  'last-words',
  'last-words-once',
  'caution',
  'observed',
  'mcp-config',
  'mcp-serves',
  'instructions',
];

const table = new ResultTable();
rmSync(RESULTS, { recursive: true, force: true });

afterAll(async () => {
  const commit = await run('git', ['rev-parse', '--short', 'HEAD'], { cwd: REPO_ROOT });
  table.write(RESULTS, COLUMNS, { firstlight: commit.stdout.trim() || 'unknown', node: process.version });
});

/** Registers one reported check: skipped with the host's reason, else recorded and asserted. */
function checkCase(
  host: string,
  id: string,
  title: string,
  skipped: () => string | null,
  outcome: () => CheckOutcome,
  failed: () => string | null = () => null,
) {
  it(title, (ctx) => {
    const reason = skipped();
    if (reason !== null) {
      table.check(host, id, 'skip', reason);
      ctx.skip();
      return;
    }
    const failure = failed();
    const o = failure !== null ? { pass: false, detail: failure } : outcome();
    table.check(host, id, o.pass ? 'pass' : 'fail', o.detail);
    expect(o.pass, o.detail).toBe(true);
  });
}

for (const id of SESSION_HOSTS) {
  const recipe = RECIPES[id];
  describe(`${recipe.name} ${PINNED_HOSTS[id].version} (real CLI, scripted model)`, () => {
    let run: SessionsRun = {
      skipped: 'not run',
      failed: null,
      one: [],
      two: [],
      lastWords: '',
      caution: '',
      hookEvents: [],
    };
    beforeAll(
      async () => {
        run = await runSessions(recipe, table, {
          resultsDir: RESULTS,
          timeoutMs: SESSION_TIMEOUT_MS,
          keepSandbox: KEEP_SANDBOX,
          writeFixtures: WRITE_FIXTURES,
        });
      },
      2 * SESSION_TIMEOUT_MS + 10 * 60_000,
    );
    const hostCase = (check: string, title: string, outcome: () => CheckOutcome) =>
      checkCase(
        id,
        check,
        title,
        () => run.skipped,
        outcome,
        () => run.failed,
      );
    hostCase('packet', '(a) the SessionStart packet is in the first model request', () =>
      checkPacket(run.one[0]),
    );
    hostCase('bootstrap', '(b) bootstrap_session returns mind_contract_available: true', () =>
      checkBootstrap(recipe, run.one),
    );
    hostCase(
      'denied-before',
      `(c) ${recipe.shellTools[0]} before bootstrap is denied naming ${recipe.bootstrapName}`,
      () => checkDenied(recipe, run.one),
    );
    hostCase('allowed-after', `(d) ${recipe.shellTools[0]} after bootstrap runs`, () =>
      checkAllowed(recipe, run.one),
    );
    hostCase('last-words', "(e) session two's first request carries session one's last words", () =>
      checkLastWords(run.two[0], run.lastWords),
    );
    hostCase('last-words-once', '(f) ...and carries them once', () =>
      checkLastWordsOnce(run.two[0], run.lastWords),
    );
    hostCase(
      'caution',
      "(g) a feedback memory's applies_to caution reaches the model with the matching call",
      () => checkCaution(recipe, run.one, run.caution),
    );
    hostCase('observed', '(h) every tool call of session one is in the event store with source: hook', () =>
      checkObserved(run.one, run.hookEvents),
    );
  });
}

describe(`Copilot CLI ${PINNED_HOSTS.copilot.version} (its own view of the configuration: mcp list, instruction list)`, () => {
  const id: PinnedHostId = 'copilot';
  let skippedReason: string | null = 'not run';
  let listed: Record<string, { enabled?: boolean; source?: string; command?: string; args?: string[] }> = {};
  let instructions: { sourcePath?: string; defaultDisabled?: boolean }[] = [];
  const installFailed: string[] = [];
  const failed = () => (installFailed.length > 0 ? `firstlight ${installFailed.join('; ')}` : null);
  let sandbox: Sandbox | undefined;
  beforeAll(async () => {
    const pinned = PINNED_HOSTS[id];
    const record = { host: id, name: 'Copilot CLI', pkg: pinned.pkg, version: pinned.version };
    const ensured = await ensureHost(id);
    if (!ensured.ok) {
      skippedReason = ensured.reason;
      console.warn(`[test:hosts] skipping Copilot CLI: ${ensured.reason}`);
      table.host({
        ...record,
        reported: null,
        installMs: ensured.installMs,
        sessionMs: [],
        skipped: ensured.reason,
      });
      return;
    }
    skippedReason = null;
    sandbox = await createSandbox(id);
    const install = await firstlight(sandbox, [
      'install',
      id,
      '--scope',
      'user',
      '--home',
      sandbox.firstlightHome,
    ]);
    if (install.status !== 0)
      installFailed.push(`install --scope user: ${install.stderr.trim().slice(0, 300)}`);
    const project = await firstlight(sandbox, [
      'install',
      id,
      '--project',
      sandbox.project,
      '--home',
      sandbox.firstlightHome,
    ]);
    if (project.status !== 0) installFailed.push(`install: ${project.stderr.trim().slice(0, 300)}`);
    const started = Date.now();
    const options = { cwd: sandbox.project, env: sandbox.env, timeoutMs: 60_000 };
    const r = await runHost(ensured.bin, ['mcp', 'list', '--json'], options);
    try {
      listed = (JSON.parse(r.stdout || '{}') as { mcpServers?: typeof listed }).mcpServers ?? {};
    } catch {
      listed = {}; // the check reports the raw output (results/copilot/mcp-list.json)
    }
    const i = await runHost(ensured.bin, ['instruction', 'list', '--json'], options);
    try {
      instructions = JSON.parse(i.stdout || '[]') as typeof instructions;
    } catch {
      instructions = [];
    }
    writeJson(join(RESULTS, id, 'instruction-list.json'), {
      code: i.code,
      stdout: i.stdout,
      stderr: i.stderr,
    });
    table.host({
      ...record,
      reported: await versionOf(ensured.bin, ['--version'], sandbox.env),
      installMs: ensured.installMs,
      sessionMs: [Date.now() - started],
      skipped: null,
    });
    writeJson(join(RESULTS, id, 'mcp-list.json'), { code: r.code, stdout: r.stdout, stderr: r.stderr });
  }, 10 * 60_000);
  afterAll(() => {
    if (!KEEP_SANDBOX) sandbox?.dispose();
  });

  checkCase(
    id,
    'mcp-config',
    '`copilot mcp list --json` shows firstlight enabled from the user config',
    () => skippedReason,
    () => {
      const server = listed.firstlight;
      return {
        pass: server?.enabled === true && server.source === 'user',
        detail: JSON.stringify(server ?? listed).slice(0, 300),
      };
    },
    failed,
  );

  checkCase(
    id,
    'instructions',
    '`copilot instruction list --json` loads the bootstrap rule from the project and the user file',
    () => skippedReason,
    () => {
      const loaded = instructions.filter((x) => x.defaultDisabled !== true).map((x) => x.sourcePath ?? '');
      const want = [
        '.github/copilot-instructions.md',
        join(sandbox!.home, '.copilot', 'copilot-instructions.md'),
      ];
      return {
        pass: want.every((w) => loaded.includes(w)),
        detail: `loaded: ${loaded.join(', ') || 'nothing'}`,
      };
    },
    failed,
  );

  it('the server Copilot would start answers bootstrap_session', async (ctx) => {
    const server = listed.firstlight;
    if (skippedReason !== null) {
      table.check(id, 'mcp-serves', 'skip', skippedReason);
      ctx.skip();
      return;
    }
    if (!server?.command || !sandbox) {
      const detail = failed() ?? 'Copilot lists no firstlight server';
      table.check(id, 'mcp-serves', 'fail', detail);
      expect.fail(detail);
    }
    const transport = new StdioClientTransport({
      command: server.command,
      args: server.args ?? [],
      env: sandbox.env as Record<string, string>,
      cwd: sandbox.project,
    });
    const client = new Client({ name: 'firstlight-hosts', version: '0.0.0' });
    try {
      let detail: string;
      try {
        await client.connect(transport);
        const packet = structured<{ mind_contract_available?: boolean }>(
          await client.callTool({ name: 'bootstrap_session', arguments: {} }),
        );
        detail = `mind_contract_available: ${packet.mind_contract_available}`;
      } catch (error) {
        detail = `the listed command did not serve: ${String(error)}`;
      }
      const pass = detail === 'mind_contract_available: true';
      table.check(id, 'mcp-serves', pass ? 'pass' : 'fail', detail);
      expect(pass, detail).toBe(true);
    } finally {
      await client.close().catch(() => {});
    }
  });
});
