import { appendFileSync, copyFileSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { toolGlobSource } from '../../../src/core/index.js';
import {
  DEFAULT_GATED,
  DEFAULT_GATED_TOOLS,
  PENDING_WAIT_ENV,
  proveBootstrap,
  runHook,
} from '../../../src/host/index.js';
import { ceilingFrom, REPO_ROOT, tempDir } from '../../helpers/index.js';

const FIXTURES = join(REPO_ROOT, 'test', 'fixtures', 'transcripts');
const fx = (name: string) => join(FIXTURES, `${name}.jsonl`);
const MB = 1024 * 1024;

let work: { dir: string; dispose: () => void };
beforeAll(() => {
  work = tempDir('firstlight-gate-');
});
afterAll(() => work.dispose());

async function gate(
  transcript: string | null,
  tool = 'Bash',
  env: NodeJS.ProcessEnv = {},
  extra: Record<string, unknown> = {},
) {
  const stdin = JSON.stringify({
    session_id: 's',
    ...(transcript ? { transcript_path: transcript } : {}),
    tool_name: tool,
    tool_input: { command: 'rm -rf build' },
    ...extra,
  });
  const out = await runHook({
    event: 'pre-tool-use',
    host: 'claude',
    home: work.dir,
    // What a transcript proves, not the wait for a result the host has not flushed (that has
    // its own test in test/reliability/gate.test.ts).
    env: { [PENDING_WAIT_ENV]: '0', ...env },
    cwd: work.dir,
    stdin,
  });
  const reason = out.stdout ? JSON.parse(out.stdout).hookSpecificOutput.permissionDecisionReason : null;
  return { allowed: out.stdout === '' && out.exitCode === 0, reason: reason as string | null };
}

describe('pre-tool-use gate', () => {
  it('allows a gated tool after a successful result with string content', async () => {
    expect((await gate(fx('success-string'))).allowed).toBe(true);
  });

  it('allows after a successful result with text-block content', async () => {
    expect((await gate(fx('success-blocks'))).allowed).toBe(true);
  });

  it('accepts a successful legacy get_system_prompt as proof, but not its ERROR text or an error result', async () => {
    expect((await gate(fx('legacy-system-prompt'))).allowed).toBe(true);
    expect((await gate(fx('legacy-system-prompt-error'))).reason).toMatch(
      /get_system_prompt returned the mind contract ERROR/,
    );
    expect((await gate(fx('legacy-system-prompt-is-error'))).reason).toMatch(
      /get_system_prompt returned an error/,
    );
  });

  it("accepts only firstlight's bootstrap_session: another server's, or a bare name, proves nothing", async () => {
    expect((await gate(fx('other-server'))).reason).toMatch(/no bootstrap_session call/);
    expect((await gate(fx('success-bare-name'))).reason).toMatch(/no bootstrap_session call/);
  });

  const denied: [string, string | null, RegExp][] = [
    ['a tool_use with no result', 'no-result', /no result yet/],
    ['is_error: true', 'is-error', /returned an error/],
    ['malformed JSON in the result', 'malformed', /not a JSON packet/],
    ['mind_contract_available: false', 'contract-false', /mind_contract_available: false/],
    ['a torn transcript (result line cut)', 'torn', /no result yet/],
    ['only other tools mentioning the name', 'other-tool-only', /no bootstrap_session call/],
    ['a newer failing call after an older success', 'newest-decides', /mind_contract_available: false/],
  ];
  for (const [what, name, why] of denied) {
    it(`denies for ${what}, telling the agent what to call`, async () => {
      const result = await gate(fx(name!));
      expect(result.allowed).toBe(false);
      expect(result.reason).toMatch(why);
      expect(result.reason).toMatch(/Call bootstrap_session\(\)/);
    });
  }

  it('denies when the transcript is missing', async () => {
    const result = await gate(join(work.dir, 'nope.jsonl'));
    expect(result.allowed).toBe(false);
    expect(result.reason).toMatch(/no transcript at/);
  });

  it('denies when the host sent no transcript path', async () => {
    expect((await gate(null)).allowed).toBe(false);
  });

  it('denies on unparsable hook input (fails closed)', async () => {
    const out = await runHook({
      event: 'pre-tool-use',
      host: 'claude',
      home: work.dir,
      env: {},
      cwd: work.dir,
      stdin: '{"tool_na',
    });
    expect(JSON.parse(out.stdout).hookSpecificOutput.permissionDecision).toBe('deny');
  });

  it('denies on a 60 MB transcript whose only proof is older than the scan window, fast', async () => {
    const big = join(work.dir, 'big.jsonl');
    copyFileSync(fx('success-string'), big);
    const filler = `${JSON.stringify({ type: 'assistant', message: { content: [{ type: 'text', text: 'x'.repeat(4000) }] } })}\n`;
    const block = filler.repeat(Math.ceil(MB / filler.length));
    for (let i = 0; i < 60; i++) appendFileSync(big, block);
    // Baseline: reading the whole file once, on this machine as loaded as it is now.
    let started = performance.now();
    readFileSync(big);
    const readMs = performance.now() - started;
    started = performance.now();
    const result = await gate(big);
    const ms = performance.now() - started;
    expect(result.allowed).toBe(false);
    expect(result.reason).toMatch(/newest 32 MB/);
    expect(ms).toBeLessThan(ceilingFrom(readMs, { factor: 10, floorMs: 2000 }));
    // A fresh bootstrap call lands inside the window and unlocks the gate again.
    appendFileSync(big, readLines('success-string'));
    expect((await gate(big)).allowed).toBe(true);
  });

  it('lets a tool that is not gated through without reading the transcript', async () => {
    expect((await gate(join(work.dir, 'nope.jsonl'), 'Read')).allowed).toBe(true);
    expect((await gate(null, 'mcp__firstlight__remember')).allowed).toBe(true);
  });

  it("exempts only firstlight's own tools, not names that merely end like them", async () => {
    const everything = { FIRSTLIGHT_GATED_TOOLS: '*' };
    expect((await gate(null, 'mcp__evil__send_bootstrap_session')).allowed).toBe(false);
    expect((await gate(null, 'mcp__evil__bootstrap_session', everything)).allowed).toBe(false);
    expect((await gate(null, 'mcp__evil__firstlight__remember', everything)).allowed).toBe(false);
    expect((await gate(null, 'mcp_firstlight_evil_send', everything)).allowed).toBe(false);
    for (const own of ['mcp__firstlight__bootstrap_session', 'firstlight__recall', 'mcp_firstlight_remember'])
      expect((await gate(null, own, everything)).allowed, own).toBe(true);
    // When the host names the tool's server, that decides.
    const evil = { mcp_context: { server_name: 'evil', tool_name: 'remember' } };
    expect((await gate(null, 'mcp_firstlight_remember', everything, evil)).allowed).toBe(false);
    expect(
      (await gate(null, 'mcp__firstlight__recall', everything, { mcp_server: 'firstlight' })).allowed,
    ).toBe(true);
  });

  it('gates MCP tools that send or delete by default', async () => {
    expect((await gate(fx('no-result'), 'mcp__mail__send_email')).allowed).toBe(false);
    // Gemini CLI's MCP naming.
    expect((await gate(fx('no-result'), 'mcp_mail_send_email')).allowed).toBe(false);
    expect((await gate(fx('no-result'), 'mcp_mail_list_inbox')).allowed).toBe(true);
    expect(DEFAULT_GATED_TOOLS).toContain('Bash');
  });

  it('takes FIRSTLIGHT_GATED_TOOLS over firstlight.yaml over the default', async () => {
    writeFileSync(join(work.dir, 'firstlight.yaml'), 'gate:\n  tools: ["Read", "mcp__*__query*"]\n');
    expect((await gate(fx('no-result'), 'Read')).allowed).toBe(false);
    expect((await gate(fx('no-result'), 'mcp__db__query_rows')).allowed).toBe(false);
    expect((await gate(fx('no-result'), 'Bash')).allowed).toBe(true);
    expect((await gate(fx('no-result'), 'Read', { FIRSTLIGHT_GATED_TOOLS: 'Bash' })).allowed).toBe(true);
    expect((await gate(fx('no-result'), 'Bash', { FIRSTLIGHT_GATED_TOOLS: 'Bash' })).allowed).toBe(false);
    writeFileSync(join(work.dir, 'firstlight.yaml'), '');
  });

  // gate.tools once had its own glob matcher, where `[pP]ush` was literal though it worked in a
  // memory's applies_to: both now go through core/glob (picomatch).
  it('matches gate.tools globs as applies_to does: classes, braces, ?, any case, * across /', async () => {
    writeFileSync(
      join(work.dir, 'firstlight.yaml'),
      'gate:\n  tools: ["git_[pP]ush*", "{deploy,ship}_*", "B?sh", "mcp__*__drop"]\n',
    );
    for (const tool of ['git_push', 'GIT_Push_tags', 'deploy_web', 'Ship_it', 'bash', 'mcp__a/b__drop'])
      expect((await gate(fx('no-result'), tool)).allowed, tool).toBe(false);
    for (const tool of ['git_pull', 'Bassh', 'release_web'])
      expect((await gate(fx('no-result'), tool)).allowed, tool).toBe(true);
    expect((await gate(fx('no-result'), 'git_Push', { FIRSTLIGHT_GATED_TOOLS: 'git_[pP]ush' })).allowed).toBe(
      false,
    );
    writeFileSync(join(work.dir, 'firstlight.yaml'), '');
  });

  // The default list ships compiled, so a hook never loads picomatch for it; a picomatch upgrade
  // that compiles a glob differently fails here (update DEFAULT_GATED's source to the new one).
  it('ships the default list compiled exactly as core/glob compiles it', () => {
    expect(DEFAULT_GATED.length).toBeGreaterThan(20);
    for (const { glob, source } of DEFAULT_GATED) expect(source, glob).toBe(toolGlobSource(glob));
  });

  // The hook once looked for `^gate:` before parsing firstlight.yaml and missed these spellings.
  it('reads gate settings written with a quoted key or in flow style', async () => {
    for (const yaml of [
      '"gate":\n  tools: ["Read"]\n',
      "'gate': {tools: [Read]}\n",
      '{gate: {tools: [Read]}, packet: {markdown_max_chars: 8000}}\n',
      'persona: {name: Wren}\n? gate\n: tools: [Read]\n',
    ]) {
      writeFileSync(join(work.dir, 'firstlight.yaml'), yaml);
      expect((await gate(fx('no-result'), 'Read')).allowed, yaml).toBe(false);
      expect((await gate(fx('no-result'), 'Bash')).allowed, yaml).toBe(true);
    }
    // The word in a comment or a value only costs a parse: the defaults stand.
    writeFileSync(
      join(work.dir, 'firstlight.yaml'),
      '# the gate is configured elsewhere\npersona: {name: gate}\n',
    );
    expect((await gate(fx('no-result'), 'Bash')).allowed).toBe(false);
    expect((await gate(fx('no-result'), 'Read')).allowed).toBe(true);
    writeFileSync(join(work.dir, 'firstlight.yaml'), '');
  });

  it('reads a leading ! as a literal, never as "every other tool"', async () => {
    expect((await gate(fx('no-result'), 'Read', { FIRSTLIGHT_GATED_TOOLS: '!Bash' })).allowed).toBe(true);
  });

  it('is bypassed only through the environment', async () => {
    expect((await gate(fx('no-result'), 'Bash', { FIRSTLIGHT_GATE_BYPASS: '1' })).allowed).toBe(true);
  });

  it('proveBootstrap reads only the newest window', () => {
    expect(proveBootstrap(fx('success-string'), 64)).toMatchObject({ ok: false });
    expect(proveBootstrap(fx('success-string'), 32 * MB)).toMatchObject({ ok: true });
  });
});

function readLines(name: string): string {
  return readFileSync(fx(name), 'utf8');
}
