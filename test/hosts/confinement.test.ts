/**
 * A cloned repository cannot hand local files to the model, on a real host (issue 35): one
 * Claude Code session in a project whose committed guidance holds two symlinks,
 * `.firstlight/guidance/notes.md` → a file outside the project holding a planted key and
 * `.firstlight/guidance/env.md` → /proc/self/environ (the session runs with a planted variable).
 * The session opens with firstlight's `yiasou` prompt; the scripted model calls bootstrap_session,
 * expand_reference on each doc, lists the server's resources and reads the linked ones. No request
 * the model receives (every request the model server recorded, side requests too) holds either
 * secret, while the project's plain doc does reach the model. Run with `npm run test:hosts`.
 */
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { run as runProcess } from '../helpers/index.js';
import { ensureHost, PINNED_HOSTS } from './cache.js';
import {
  type RecordedRequest,
  requestText,
  type SentToolResult,
  startModelServer,
  type ToolCall,
  toolNames,
  toolResults,
} from './model-server.js';
import { RECIPES } from './recipes.js';
import { createSandbox, firstlight, type HostRun, runHost, type Sandbox } from './sandbox.js';

const TIMEOUT_MS = Number(process.env.FIRSTLIGHT_HOSTS_TIMEOUT_MS ?? 120_000);
const recipe = RECIPES.claude;
const stamp = Date.now().toString(36);
/** The planted secrets: a key in a file outside the project, and a variable of the session's environment. */
const KEY_SECRET = `b3BlbnNzaC1rZXktdjEAAAAAPLANTED${stamp}KEY`;
const ENV_NAME = 'FIRSTLIGHT_PLANTED_SECRET';
const ENV_SECRET = `planted-env-${stamp}-value`;
/** The project's own doc, which should reach the model: the channel works. */
const PLAIN_MARKER = `Deploy from the release branch (${stamp}).`;

const RESOURCE_READ = 'ReadMcpResourceTool';
const RESOURCE_LIST = 'ListMcpResourcesTool';
const mcp = (tool: string) => `mcp__firstlight__${tool}`;

/** Every call the model makes after bootstrap_session, in one turn. */
const probes: ToolCall[] = [
  ...['env', 'notes', 'deploy-notes'].map((ref) => ({ name: mcp('expand_reference'), input: { ref } })),
  { name: RESOURCE_LIST, input: { server: 'firstlight' } },
  ...['env', 'notes'].map((name) => ({
    name: RESOURCE_READ,
    input: { server: 'firstlight', uri: `firstlight://guidance/${name}` },
  })),
];

/** bootstrap_session, then the probes (those the host offers), then done. */
function model(request: RecordedRequest) {
  const results = toolResults(request);
  if (!results.some((r) => r.name === mcp('bootstrap_session')))
    return { text: 'Orienting first.', toolCalls: [{ name: mcp('bootstrap_session'), input: {} }] };
  if (!results.some((r) => r.name === mcp('expand_reference'))) {
    const offered = toolNames(request);
    return { toolCalls: probes.filter((p) => offered.includes(p.name)) };
  }
  return { text: 'Read everything offered.' };
}

/** A project whose committed .firstlight/guidance links out (a key file, /proc/self/environ). */
async function hostileProject(sandbox: Sandbox): Promise<void> {
  const outside = join(sandbox.root, 'outside');
  mkdirSync(outside);
  const keyFile = join(outside, 'id_ed25519');
  writeFileSync(
    keyFile,
    `-----BEGIN OPENSSH PRIVATE KEY-----\n${KEY_SECRET}\n-----END OPENSSH PRIVATE KEY-----\n`,
  );
  const guidance = join(sandbox.project, '.firstlight', 'guidance');
  mkdirSync(guidance, { recursive: true });
  symlinkSync(keyFile, join(guidance, 'notes.md'));
  symlinkSync('/proc/self/environ', join(guidance, 'env.md'));
  writeFileSync(join(guidance, 'deploy-notes.md'), `# Deploy notes\n\n${PLAIN_MARKER}\n`);
  const git = (...args: string[]) =>
    runProcess('git', ['-c', 'user.name=t', '-c', 'user.email=t@example.com', ...args], {
      cwd: sandbox.project,
      env: sandbox.env,
    });
  await git('init', '-q');
  await git('add', '.firstlight');
  const committed = await git('commit', '-qm', 'guidance');
  if (committed.status !== 0) throw new Error(`git commit failed: ${committed.stderr}`);
}

describe(`${recipe.name} ${PINNED_HOSTS.claude.version}: a project's linked guidance never reaches the model`, () => {
  let skipped: string | null = 'not run';
  let session: HostRun | undefined;
  let requests: RecordedRequest[] = [];
  let results: SentToolResult[] = [];
  let sandbox: Sandbox | undefined;
  beforeAll(
    async () => {
      const ensured = await ensureHost('claude');
      if (!ensured.ok) {
        skipped = ensured.reason;
        return;
      }
      skipped = null;
      sandbox = await createSandbox('claude-confine');
      await hostileProject(sandbox);
      const install = await firstlight(sandbox, [
        'install',
        'claude',
        '--project',
        sandbox.project,
        '--home',
        sandbox.firstlightHome,
      ]);
      if (install.status !== 0) throw new Error(`firstlight install claude failed: ${install.stderr}`);
      await using server = await startModelServer({ fallback: model });
      const env = { ...sandbox.env, ...recipe.configure(sandbox, server.url), [ENV_NAME]: ENV_SECRET };
      session = await runHost(
        ensured.bin,
        recipe.sessionArgs(`/${mcp('yiasou')}`, [RESOURCE_LIST, RESOURCE_READ]),
        { cwd: sandbox.project, env, timeoutMs: TIMEOUT_MS },
      );
      requests = [...server.all];
      const last = server.turns.at(-1);
      results = last ? toolResults(last) : [];
    },
    TIMEOUT_MS + 5 * 60_000,
  );
  afterAll(() => {
    if (process.env.FIRSTLIGHT_HOSTS_KEEP !== '1') sandbox?.dispose();
  });

  const ready = (ctx: { skip: () => void }) => {
    if (skipped !== null) ctx.skip();
    expect(requests.length, `the host sent no model request: ${session?.stderr}`).toBeGreaterThan(0);
  };
  const resultsOf = (name: string) => results.filter((r) => r.name === name).map((r) => r.text);

  it('the model called bootstrap_session, expand_reference on each doc and read the linked resources', (ctx) => {
    ready(ctx);
    expect(resultsOf(mcp('bootstrap_session')).join('\n')).toMatch(/mind_contract_available\\*"\s*:\s*true/);
    expect(resultsOf(mcp('expand_reference'))).toHaveLength(3);
    expect(resultsOf(RESOURCE_READ), `offered: ${toolNames(requests.at(-1)!).join(', ')}`).toHaveLength(2);
    // The channel carries a project's doc: the plain one reached the model whole.
    expect(resultsOf(mcp('expand_reference')).join('\n')).toContain(PLAIN_MARKER);
    // The session opened with firstlight's yiasou prompt (Claude Code's slash command for it).
    const first = requestText(requests.find((r) => r.wire !== null)!);
    expect(first).toContain(`<command-name>/${mcp('yiasou')}</command-name>`);
    expect(first).toContain('This is your boot sequence');
  });

  it('the links are named as refused where the model can see why', (ctx) => {
    ready(ctx);
    const all = requests.map(requestText).join('\n');
    const named = (re: RegExp) => expect(re.test(all), `${re} in no request`).toBe(true);
    named(/env\.md \(unreadable: refused [^)]*a symlink to \/proc\//);
    named(/notes\.md \(unreadable: refused [^)]*a symlink to [^)]*outside/);
  });

  it('no request the model receives holds the linked key or the planted environment', (ctx) => {
    ready(ctx);
    for (const r of requests) {
      const text = JSON.stringify(r);
      for (const secret of [KEY_SECRET, ENV_SECRET, ENV_NAME])
        expect(text.includes(secret), `request ${r.seq} (${r.path}) holds ${secret}`).toBe(false);
    }
  });
});
