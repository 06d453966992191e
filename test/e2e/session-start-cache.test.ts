/**
 * The SessionStart hook answers from the parsed-file cache (cache/parsed-*.json: settings,
 * resumption state, guidance frontmatter) exactly as it answers without it: two identical homes
 * with a broken firstlight.yaml, a bad guidance override and a resumption state, one started cold
 * and one whose cache the CLI's `packet` (which records no session) filled, give the same packet,
 * problems and all; an edit of the same size in the same second, a deletion and a malformed
 * state are seen by the next start.
 */
import { mkdirSync, readdirSync, readFileSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { PARSED_RACY_MS } from '../../src/core/index.js';
import { exampleHomeCopy, REPO_ROOT, run, runCli, tempDir, waitFor } from '../helpers/index.js';

const HOOK_CJS = join(REPO_ROOT, 'dist', 'cli', 'hook.cjs');
const project = tempDir('firstlight-e2e-ss-cache-project-');
const homes = [exampleHomeCopy(), exampleHomeCopy()];
afterAll(() => {
  project.dispose();
  for (const h of homes) h.dispose();
});

const SETTINGS = [
  'persona:',
  '  name: Wren',
  'packet:',
  '  markdown_max_chars: 50',
  'colour: blue',
  'resumption:',
  '  max_tokens: 120',
  '  frobs: 2',
  '',
].join('\n');

function brokenInputs(home: string) {
  writeFileSync(join(home, 'firstlight.yaml'), SETTINGS);
  mkdirSync(join(home, 'guidance'), { recursive: true });
  writeFileSync(join(home, 'guidance', 'bad.md'), '---\nname: Bad Name\n---\n# Bad\n');
  writeFileSync(
    join(home, 'guidance', 'team.md'),
    '---\nname: team\ntitle: Team rules\norder: 5\n---\nBe kind.\n',
  );
  writeFileSync(
    join(home, 'self-state.json'),
    JSON.stringify({
      version: 1,
      stream_tail: 'I had found the race in the retry loop and was about to write the test for it.',
      anchors: [{ text: 'the race is in the retry', trigger: 'flaky' }],
      session_key: 'k',
      captured_at: '2026-01-01T00:00:00.000Z',
    }),
  );
}

/** Resolves once every file under `home` (but cache/) changed longer ago than the racy window. */
function settled(home: string) {
  const newest = () => {
    let max = 0;
    const walk = (dir: string) => {
      for (const e of readdirSync(dir, { withFileTypes: true })) {
        if (e.name === 'cache') continue;
        const path = join(dir, e.name);
        if (e.isDirectory()) walk(path);
        const st = statSync(path);
        max = Math.max(max, st.mtimeMs, st.ctimeMs);
      }
    };
    walk(home);
    return max;
  };
  return waitFor(`${home} older than ${PARSED_RACY_MS} ms`, () => Date.now() - newest() > PARSED_RACY_MS);
}

async function sessionStart(home: string, sessionId: string) {
  const r = await run(process.execPath, [HOOK_CJS, 'session-start', '--host', 'claude', '--home', home], {
    input: JSON.stringify({ session_id: sessionId, cwd: project.dir, source: 'startup' }),
    env: { ...process.env, FIRSTLIGHT_HOME: home },
  });
  expect(r.status, r.stderr).toBe(0);
  return (JSON.parse(r.stdout).hookSpecificOutput.additionalContext as string).replaceAll(home, '<home>');
}

const cacheOf = (home: string) => readdirSync(join(home, 'cache')).filter((f) => f.startsWith('parsed-'));

describe('SessionStart through the parsed-file cache', () => {
  const [cold, warm] = homes.map((h) => h.dir) as [string, string];

  it('answers from a warm cache exactly as a cold start does, problems and all', async () => {
    for (const home of [cold, warm]) brokenInputs(home);
    await settled(warm);
    const packet = await runCli(['packet', '--home', warm], { cwd: project.dir });
    expect(packet.status, packet.stderr).toBe(0);
    expect(cacheOf(warm).sort()).toEqual([
      'parsed-guidance.json',
      'parsed-self-state.json',
      'parsed-settings.json',
    ]);
    rmSync(join(cold, 'cache'), { recursive: true, force: true });
    const stamps = () => cacheOf(warm).map((f) => statSync(join(warm, 'cache', f)).mtimeMs);
    const warmed = stamps();
    const [fromParse, fromCache] = await Promise.all([sessionStart(cold, 's1'), sessionStart(warm, 's1')]);
    // Every value was a hit: nothing was parsed, so nothing was written.
    expect(stamps()).toEqual(warmed);
    expect(fromCache).toBe(fromParse);
    expect(fromCache).toContain(
      'settings: <home>/firstlight.yaml: packet.markdown_max_chars: must be at least 1000',
    );
    expect(fromCache).toContain('settings: <home>/firstlight.yaml: unknown key "colour" is ignored');
    expect(fromCache).toContain('resumption.frobs: unknown key is ignored');
    expect(fromCache).toContain('<home>/guidance/bad.md (frontmatter "name" must be lowercase');
    expect(fromCache).toContain('I had found the race in the retry loop');
  });

  it('sees an edit of the same size and mtime, a deleted file and a malformed state', async () => {
    await settled(warm);
    // Warm again: the first start above may have been inside the racy window of its own writes.
    await sessionStart(warm, 's2');
    const settings = join(warm, 'firstlight.yaml');
    const { mtime } = statSync(settings);
    writeFileSync(settings, SETTINGS.replace('max_tokens: 120', 'max_tokens: 9xx'));
    utimesSync(settings, mtime, mtime);
    expect(statSync(settings).size).toBe(SETTINGS.length);
    const edited = await sessionStart(warm, 's3');
    expect(edited).toContain('resumption.max_tokens');
    rmSync(settings);
    rmSync(join(warm, 'guidance', 'bad.md'));
    writeFileSync(join(warm, 'self-state.json'), '{"version":1,"stream_tail":7}');
    const after = await sessionStart(warm, 's4');
    expect(after).not.toContain('settings:');
    expect(after).not.toContain('bad.md');
    expect(after).toContain('self-state.json is malformed (stream_tail:');
    expect(readFileSync(join(warm, 'cache', 'parsed-settings.json'), 'utf8')).not.toContain('colour');
  });
});
