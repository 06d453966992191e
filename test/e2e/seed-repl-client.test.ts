/**
 * The REPL harness as a client written for the agentself REPL specification calls it:
 * `install_capability(name, server_command)` with one command line, a complex variable kept as
 * its repr in the saved state, and the harness served over HTTP as well as stdio. Every kernel
 * where it is installed.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { CLI, REPO_ROOT, run, structured, tempDir, tempHome, textOf, type Wired } from '../helpers/index.js';
import { type ReplVariant, SUITE, VARIANTS, wireRepl } from './repl-variants.js';

const BIN = join(REPO_ROOT, 'node_modules', '.bin');

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

function dir(prefix: string): string {
  const t = tempDir(prefix);
  cleanups.push(t.dispose);
  return t.dir;
}

/** A home (the REPL refuses one that does not exist). */
function homeDir(prefix: string): string {
  const t = tempHome(prefix);
  cleanups.push(t.dispose);
  return t.dir;
}

async function execute(
  w: Wired,
  code: string,
): Promise<{ success: boolean; return_value: unknown; stderr: string }> {
  return structured(await w.client.callTool({ name: 'execute', arguments: { code } }));
}

describe.each(VARIANTS)('the REPL as the specification’s client calls it, $label', SUITE, (variant) => {
  it('install_capability(name, server_command) with one command line; complex variables saved as repr', async () => {
    const home = homeDir('firstlight-seed-repl-');
    const root = dir('firstlight-seed-root-');
    writeFileSync(join(root, 'notes.txt'), 'hello\n');
    const w = await wireRepl(variant, ['--home', home]);
    cleanups.push(w.close);
    const installed = await w.client.callTool({
      name: 'install_capability',
      arguments: { name: 'fs', server_command: `${join(BIN, 'mcp-server-filesystem')} ${root}` },
    });
    expect(installed.isError).toBeFalsy();
    // The specification returns a description of the capability and its methods, as text.
    expect(textOf(installed)).toMatch(/Installed 'fs' with methods: .*read_text_file/);
    const read = await execute(w, `fs.read_text_file(path=${JSON.stringify(join(root, 'notes.txt'))})`);
    expect(read.return_value).toBe('hello\n');

    const defined = await execute(
      w,
      'config = {"key": "value"}\ngen = (i for i in range(3))\ndef my_helper(x):\n    return x * 2',
    );
    expect(defined.success).toBe(true);
    const saved = structured<{ file: string; unsaved: unknown[] }>(
      await w.client.callTool({ name: 'save_state', arguments: { name: 'seed' } }),
    );
    const file = JSON.parse(readFileSync(saved.file, 'utf8'));
    expect(file.version).toBe(1);
    expect(Object.keys(file)).toEqual(
      expect.arrayContaining(['saved_at', 'capabilities', 'functions', 'variables', 'history']),
    );
    expect(file.capabilities.fs.command).toBe(join(BIN, 'mcp-server-filesystem'));
    expect(file.functions.my_helper.source).toMatch(/^def my_helper\(x\):\n {4}return x \* 2\n?$/);
    expect(file.variables.config).toEqual({ type: 'json', value: { key: 'value' } });
    // "dill with fallback to repr": a generator pickles with neither, so its repr is kept.
    expect(file.variables.gen).toEqual({
      type: 'repr',
      value: expect.stringMatching(/^<generator object <genexpr> at 0x/),
    });
    // Kept as its repr, it cannot come back: said at save time, not discovered at restore (issue 38).
    expect(saved.unsaved).toEqual([
      {
        name: 'gen',
        kind: 'variable',
        reason: expect.stringMatching(
          /^kept only as its repr, which cannot be rebuilt: not JSON and not picklable/,
        ),
      },
    ]);
  });

  it('both names in one call must agree; one of them is needed', async () => {
    const w = await wireRepl(variant, ['--home', homeDir('firstlight-seed-repl-')]);
    cleanups.push(w.close);
    const neither = await w.client.callTool({ name: 'install_capability', arguments: { name: 'x' } });
    expect(neither.isError).toBe(true);
    expect(textOf(neither)).toMatch(/server_command/);
    const both = await w.client.callTool({
      name: 'install_capability',
      arguments: { name: 'x', command: 'a', server_command: 'b' },
    });
    expect(both.isError).toBe(true);
    expect(textOf(both)).toMatch(/differ/);
  });
});

describe('repl serve --http: the bind and token rules (a token on loopback too: it runs code)', () => {
  it('refuses a non-loopback bind without a token (--no-token), before starting a kernel', async () => {
    const env = { ...process.env };
    delete env.FIRSTLIGHT_TOKEN;
    const result = await run(
      process.execPath,
      [CLI, 'repl', 'serve', '--http', '--host', '0.0.0.0', '--port', '0', '--no-token'],
      {
        env,
        timeoutMs: 30_000,
      },
    );
    expect(result.status).toBe(2);
    expect(result.stderr).toContain('--no-token is refused on 0.0.0.0');
  });

  it('with a token, a request without it is refused and one with it is served', async () => {
    const token = 'seed-client-token-0123456789';
    const http: ReplVariant = { kernel: 'stdlib', transport: 'http', label: 'stdlib kernel over http' };
    const env = { FIRSTLIGHT_TOKEN: token };
    const refused = await wireRepl(http, ['--home', homeDir('firstlight-seed-repl-')], { env }).catch(
      (error: Error) => error,
    );
    expect(String(refused)).toMatch(/401|unauthorized|token/i);
    const w = await wireRepl(http, ['--home', homeDir('firstlight-seed-repl-')], {
      env,
      headers: { Authorization: `Bearer ${token}` },
    });
    cleanups.push(w.close);
    expect((await execute(w, '1+1')).return_value).toBe(2);
  });
});
