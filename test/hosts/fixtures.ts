/**
 * @module Turns a real-host run into gate fixtures: the transcripts the host wrote and the hook
 * payloads it sent, with the sandbox's paths replaced by stable ones (/home/user/…), written to
 * test/fixtures/transcripts/real/<host>/. Runs when `FIRSTLIGHT_HOSTS_FIXTURES=1`.
 */
import { mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { REPO_ROOT } from '../helpers/index.js';
import type { Sandbox } from './sandbox.js';

export const REAL_FIXTURES = join(REPO_ROOT, 'test', 'fixtures', 'transcripts', 'real');

/** A scrubber for one sandbox: every path that names this machine or this run becomes stable. */
export function scrubber(sandbox: Sandbox, captureHook: string): (text: string) => string {
  const dashed = (p: string) => p.replace(/[^a-zA-Z0-9]/g, '-');
  const pairs: [string, string][] = [
    [`${process.execPath} ${captureHook} ${sandbox.hookInputs} `, ''],
    [dashed(sandbox.project), dashed('/home/user/project')],
    [sandbox.project, '/home/user/project'],
    [sandbox.firstlightHome, '/home/user/.firstlight'],
    [sandbox.hookInputs, '/tmp/hook-inputs'],
    [sandbox.home, '/home/user'],
    [sandbox.tmp, '/tmp'],
    [sandbox.root, '/tmp/sandbox'],
    [join(REPO_ROOT, 'dist'), '/usr/lib/node_modules/firstlight/dist'],
    [REPO_ROOT, '/usr/lib/node_modules/firstlight'],
    [process.execPath, '/usr/bin/node'],
  ];
  return (text) => pairs.reduce((t, [from, to]) => t.replaceAll(from, to), text);
}

function filesUnder(dir: string, match: (name: string) => boolean): string[] {
  let out: string[] = [];
  let entries: string[];
  try {
    entries = readdirSync(dir);
  } catch {
    return out;
  }
  for (const name of entries) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) out = out.concat(filesUnder(p, match));
    else if (match(name)) out.push(p);
  }
  return out;
}

/**
 * Writes `<host>/session-N.<ext>` for each transcript (ordered by modification time) and
 * `<host>/hook-inputs/*.json` for each recorded hook call, all scrubbed.
 */
export function writeRealFixtures(options: {
  host: string;
  sandbox: Sandbox;
  captureHook: string;
  transcriptDirs: string[];
  /** Which files under those directories are transcripts (default: every .jsonl and .json). */
  transcriptName?: RegExp;
  readme: string;
}): string[] {
  const { host, sandbox } = options;
  const scrub = scrubber(sandbox, options.captureHook);
  const dir = join(REAL_FIXTURES, host);
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(join(dir, 'hook-inputs'), { recursive: true });
  const written: string[] = [];
  const transcripts = options.transcriptDirs
    .flatMap((t) => filesUnder(join(sandbox.home, t), (n) => (options.transcriptName ?? /\.jsonl?$/).test(n)))
    .sort((a, b) => statSync(a).mtimeMs - statSync(b).mtimeMs);
  transcripts.forEach((file, i) => {
    const ext = file.endsWith('.jsonl') ? 'jsonl' : 'json';
    const to = join(dir, `session-${i + 1}.${ext}`);
    writeFileSync(to, scrub(readFileSync(file, 'utf8')));
    written.push(to);
  });
  for (const file of filesUnder(sandbox.hookInputs, (n) => n.endsWith('.json')).sort()) {
    // Names are NNN-event-pid.json; the pid says nothing, so keep NNN-event.json.
    const to = join(dir, 'hook-inputs', basename(file).replace(/-\d+\.json$/, '.json'));
    writeFileSync(to, scrub(readFileSync(file, 'utf8')));
    written.push(to);
  }
  writeFileSync(join(dir, 'README.md'), options.readme);
  return written;
}
