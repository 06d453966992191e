/**
 * The Stop capture on what a real Copilot CLI 1.0.102 run sent and wrote
 * (test/fixtures/transcripts/real/copilot/, from `npm run test:hosts` with
 * FIRSTLIGHT_HOSTS_FIXTURES=1): its agentStop payload, pointed at a copy of the session's
 * events.jsonl, stores the agent's last words as the next session's resumption, waiting for
 * the lines Copilot writes after it starts the hook (bounded).
 */
import { appendFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { captureResumption } from '../../../src/host/hook/capture.js';
import { adapterFor, runHook } from '../../../src/host/index.js';
import { readSelfState } from '../../../src/resume/index.js';
import { REPO_ROOT, tempDir } from '../../helpers/index.js';

const REAL = join(REPO_ROOT, 'test', 'fixtures', 'transcripts', 'real', 'copilot');
const recorded = (name: string) =>
  JSON.parse(JSON.parse(readFileSync(join(REAL, 'hook-inputs', name), 'utf8')).stdin) as Record<
    string,
    unknown
  >;

let work: { dir: string; dispose: () => void };
beforeEach(() => {
  work = tempDir('firstlight-capture-real-');
  mkdirSync(join(work.dir, 'memory')); // a firstlight home: hooks write nothing into a missing one
});
afterEach(() => work.dispose());

const events = readFileSync(join(REAL, 'session-1.jsonl'), 'utf8');
const lastWords = (() => {
  const last = events
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as { type: string; data: { content?: string } })
    .filter((e) => e.type === 'assistant.message' && e.data.content)
    .at(-1);
  return last!.data.content!;
})();

async function stop(transcript: string) {
  const path = join(work.dir, 'events.jsonl');
  writeFileSync(path, transcript);
  return runHook({
    event: 'stop',
    host: 'copilot',
    home: work.dir,
    env: {},
    cwd: work.dir,
    stdin: JSON.stringify({ ...recorded('006-stop.json'), transcriptPath: path }),
  });
}

const tail = () => {
  const read = readSelfState(join(work.dir, 'self-state.json'));
  return read.status === 'ok' ? read.state.stream_tail : null;
};

describe("Copilot CLI's agentStop", () => {
  it('is installed as the stop hook', () => {
    expect(adapterFor('copilot').caps.events.stop).toBe('agentStop');
  });

  it('captures the last words from the events.jsonl it names', async () => {
    expect(lastWords).toMatch(/^Last words of session one/);
    const out = await stop(events);
    expect(out.exitCode).toBe(0);
    expect(out.stderr ?? '').not.toContain('nothing captured');
    // The turn's words since the prompt, ending with the last ones, each once.
    expect(tail()).toBe(`Checking the shell first.\n\n${lastWords}`);
  });

  it('waits for the lines Copilot writes after it started the hook (its hook.start event is the mark)', async () => {
    // Seen on a loaded machine: agentStop ran before the turn's last events reached the file,
    // and the capture kept the turn before. The host writes them a moment later.
    const lines = events.split('\n');
    const cut = lines.findIndex((l) => l.includes(lastWords));
    const path = join(work.dir, 'events.jsonl');
    writeFileSync(path, `${lines.slice(0, cut).join('\n')}\n`);
    const input = adapterFor('copilot').normalizeHookInput('stop', {
      ...recorded('006-stop.json'),
      transcriptPath: path,
    });
    expect(input.transcriptMark).toMatch(/^"timestamp":\d+$/);
    const capture = captureResumption(input, {
      home: work.dir,
      clock: () => new Date(),
      transcript: 'copilot',
    });
    // The host's late write: the rest of the turn, then its hook.start line.
    setTimeout(() => appendFileSync(path, lines.slice(cut).join('\n')), 100);
    await capture;
    expect(tail()).toContain(lastWords);
  });

  it('gives up waiting at its bound and captures what is there', async () => {
    const lines = events.split('\n');
    const cut = lines.findIndex((l) => l.includes(lastWords));
    const path = join(work.dir, 'events.jsonl');
    writeFileSync(path, `${lines.slice(0, cut).join('\n')}\n`);
    const input = adapterFor('copilot').normalizeHookInput('stop', {
      ...recorded('006-stop.json'),
      transcriptPath: path,
    });
    const started = Date.now();
    await captureResumption(input, {
      home: work.dir,
      clock: () => new Date(),
      transcript: 'copilot',
      flushWaitMs: 150,
    });
    expect(Date.now() - started).toBeGreaterThanOrEqual(140);
    expect(tail()).toBe('Checking the shell first.');
  });
});
