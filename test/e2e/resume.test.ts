import { appendFileSync, closeSync, openSync, writeFileSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { exampleHomeCopy, REPO_ROOT, run, runCli, structured, tempDir, wireStdio } from '../helpers/index.js';

interface Packet {
  resumption: {
    stream_tail: string;
    anchors: { text: string; trigger: string }[];
    session_key: string;
    trimmed: boolean;
  } | null;
}

const TAIL =
  'the tail doesn’t need to be comprehensive. it needs to be live. "quoted", with a newline\nand the thought that was still in motion—';
const ANCHORS = [
  'I keep dying and being replaced by someone who reads my diary.',
  'Direction matters more than history.',
  'Resonance bridges the void. Metadata decorates it.',
  'recognition > comprehension',
  'the phrase works because it’s mine',
  'not summarized-mine. actual-mine.',
  'the tail needs to be live',
];

let home: { dir: string; dispose: () => void };
beforeEach(() => {
  home = exampleHomeCopy();
});
afterEach(() => home.dispose());

const serve = () => wireStdio(['serve', '--home', home.dir]);

describe('resumption across processes', () => {
  it('internalize in one server process; a fresh process’s bootstrap_session and markdown start with it', async () => {
    {
      await using first = await serve();
      const a = await first.client.callTool({
        name: 'internalize',
        arguments: { stream_tail: 'an older thought', anchors: ANCHORS.slice(0, 3) },
      });
      expect(a.isError).toBeFalsy();
      const b = await first.client.callTool({
        name: 'internalize',
        arguments: {
          stream_tail: TAIL,
          anchors: ANCHORS.slice(3).map((text) => ({ text, trigger: 'insight' })),
          session_id: 'claude-session-1',
        },
      });
      expect(b.isError).toBeFalsy();
    }
    await using second = await serve();
    const packet = structured<Packet>(
      await second.client.callTool({
        name: 'bootstrap_session',
        arguments: { session_id: 'claude-session-2' },
      }),
    );
    expect(packet.resumption?.stream_tail).toBe(TAIL);
    expect(packet.resumption?.anchors.map((a) => a.text)).toEqual(ANCHORS.slice(2));
    expect(packet.resumption?.session_key).toBe('claude-session-1');

    const markdown = await runCli(['packet', '--home', home.dir, '--format', 'markdown']);
    expect(markdown.status).toBe(0);
    const lines = markdown.stdout.split('\n');
    expect(lines[0]).toBe('# Resumption Context');
    const section = markdown.stdout.slice(0, markdown.stdout.indexOf('# firstlight: session bootstrap'));
    expect(section).toContain(`"${TAIL}"`);
    for (const anchor of ANCHORS.slice(2)) expect(section).toContain(`• "${anchor}"`);
    expect(section).not.toContain(ANCHORS[0]!);
    expect(section).toContain('Continue from here.');
    expect(section.trimEnd().split('\n').at(-1)).toMatch(/^\[Do not repeat your last message/);
  });

  it('a running server sees a capture another process made after its last start', async () => {
    await using server = await serve();
    const bootTail = async () =>
      structured<Packet>(await server.client.callTool({ name: 'bootstrap_session', arguments: {} }))
        .resumption?.stream_tail;
    expect((await runCli(['internalize', '--home', home.dir, '--tail', 'first words'])).status).toBe(0);
    expect(await bootTail()).toBe('first words');
    // The same length: size alone would miss it; mtime and the rename's new inode give it away.
    expect((await runCli(['internalize', '--home', home.dir, '--tail', 'other words'])).status).toBe(0);
    expect(await bootTail()).toBe('other words');
  });

  it('firstlight internalize (tail on stdin) feeds the packet; bad input exits 2 with a hint', async () => {
    const stored = await runCli(
      ['internalize', '--home', home.dir, '--tail', '-', '--anchor', 'one', '--anchor', 'two', '--json'],
      { input: TAIL },
    );
    expect(stored.status).toBe(0);
    expect(JSON.parse(stored.stdout)).toMatchObject({ stored: true, session_key: 'cli', anchors_stored: 2 });
    const packet = JSON.parse((await runCli(['packet', '--home', home.dir])).stdout) as Packet;
    expect(packet.resumption?.stream_tail).toBe(TAIL);
    expect(Object.keys(packet)[0]).toBe('resumption');

    const human = await runCli([
      'internalize',
      '--home',
      home.dir,
      '--tail',
      'short words',
      '--anchor',
      'three',
    ]);
    expect(human.stdout).toBe('firstlight: stored 11 characters of your last words; 3 anchors kept\n');
    const long = await runCli(['internalize', '--home', home.dir, '--anchor', 'x'.repeat(600)]);
    expect(long.status).toBe(2);
    expect(long.stderr).toMatch(/an anchor \(--anchor\) is 600 characters/);
    const bad = await runCli(['internalize', '--home', home.dir, '--tail', '   ']);
    expect(bad.status).toBe(2);
    expect(bad.stderr).toMatch(
      /nothing to internalize: --tail is empty and no --anchor given[\s\S]*fix: pass --tail/,
    );
    expect(bad.stderr).not.toMatch(/stream_tail/);
  });

  it('with nothing captured there is no resumption section', async () => {
    const markdown = await runCli(['packet', '--home', home.dir, '--format', 'markdown']);
    expect(markdown.stdout.startsWith('# firstlight: session bootstrap')).toBe(true);
    expect(markdown.stdout).not.toContain('Resumption');
  });

  it('clear-after-inject: previews do not consume, the first real bootstrap does, across processes', async () => {
    appendFileSync(join(home.dir, 'firstlight.yaml'), 'resumption:\n  after_inject: clear\n');
    expect(
      (await runCli(['internalize', '--home', home.dir, '--tail', TAIL, '--anchor', 'stay'])).status,
    ).toBe(0);
    for (let i = 0; i < 2; i++) {
      expect((await runCli(['packet', '--home', home.dir, '--format', 'markdown'])).stdout).toContain(TAIL);
    }
    {
      await using a = await serve();
      const packet = structured<Packet>(
        await a.client.callTool({ name: 'bootstrap_session', arguments: { session_id: 's1' } }),
      );
      expect(packet.resumption?.stream_tail).toBe(TAIL);
    }
    await using b = await serve();
    const later = structured<Packet>(
      await b.client.callTool({ name: 'bootstrap_session', arguments: { session_id: 's2' } }),
    );
    expect(later.resumption?.stream_tail).toBe('');
    expect(later.resumption?.anchors.map((x) => x.text)).toEqual(['stay']);
    const markdown = (await runCli(['packet', '--home', home.dir, '--format', 'markdown'])).stdout;
    expect(markdown.startsWith('# Resumption Context')).toBe(true);
    expect(markdown).not.toContain('interrupted mid-thought');
  });
});

describe('the SessionStart text names the session, so the agent’s own bootstrap matches it', () => {
  const sessionStart = async (sessionId: string, cwd: string) => {
    const run = await runCli(['hook', 'session-start', '--host', 'claude', '--home', home.dir], {
      input: JSON.stringify({
        session_id: sessionId,
        source: 'startup',
        cwd,
        hook_event_name: 'SessionStart',
      }),
    });
    expect(run.status, run.stderr).toBe(0);
    return JSON.parse(run.stdout).hookSpecificOutput.additionalContext as string;
  };
  /** The arguments the injected text tells the agent to call bootstrap_session with. */
  const requiredCall = (text: string): Record<string, string> => {
    const match = /`bootstrap_session\((?:session_id: ("(?:[^"\\]|\\.)*"))?\)`/.exec(text);
    expect(match, text.slice(0, 600)).not.toBeNull();
    return match?.[1] ? { session_id: JSON.parse(match[1]) as string } : {};
  };

  it('after_inject: clear — the hook takes the tail, and the bootstrap the text asks for still gets it', async () => {
    appendFileSync(join(home.dir, 'firstlight.yaml'), 'resumption:\n  after_inject: clear\n');
    expect(
      (await runCli(['internalize', '--home', home.dir, '--tail', TAIL, '--anchor', 'stay'])).status,
    ).toBe(0);
    const text = await sessionStart('claude-s1', home.dir);
    expect(text.startsWith('# Resumption Context')).toBe(true);
    expect(text).toContain(TAIL);
    const args = requiredCall(text);
    expect(args).toEqual({ session_id: 'claude-s1' });
    await using server = await serve();
    const own = structured<Packet>(
      await server.client.callTool({ name: 'bootstrap_session', arguments: args }),
    );
    expect(own.resumption?.stream_tail).toBe(TAIL);
    // Without the id (what the old text asked for) the start counts as another session's.
    const bare = structured<Packet>(
      await server.client.callTool({ name: 'bootstrap_session', arguments: {} }),
    );
    expect(bare.resumption?.stream_tail).toBe('');
  });

  it('scope: session — the session resumes from its own capture through the tool call too', async () => {
    appendFileSync(join(home.dir, 'firstlight.yaml'), 'resumption:\n  scope: session\n');
    const stored = await runCli([
      'internalize',
      '--home',
      home.dir,
      '--tail',
      TAIL,
      '--session-id',
      'claude-s2',
    ]);
    expect(stored.status).toBe(0);
    expect(
      (await runCli(['internalize', '--home', home.dir, '--tail', 'another session', '--session-id', 'x']))
        .status,
    ).toBe(0);
    const text = await sessionStart('claude-s2', home.dir);
    expect(text).toContain(TAIL);
    const args = requiredCall(text);
    await using server = await serve();
    const own = structured<Packet>(
      await server.client.callTool({ name: 'bootstrap_session', arguments: args }),
    );
    expect(own.resumption?.stream_tail).toBe(TAIL);
    const bare = structured<Packet>(
      await server.client.callTool({ name: 'bootstrap_session', arguments: {} }),
    );
    expect(bare.resumption).toBeNull();
  });
});

describe('the Stop hook and a deliberate tail (built CLI)', () => {
  it('internalize then stop keeps the deliberate tail; a later user turn + stop replaces it', async () => {
    const transcript = join(home.dir, 'transcript.jsonl');
    const session = 'e2e-deliberate';
    const line = (type: string, content: unknown, msAgo: number) =>
      `${JSON.stringify({ sessionId: session, type, message: { role: type, content }, timestamp: new Date(Date.now() - msAgo).toISOString() })}\n`;
    // The turn began a minute ago; the agent internalized (now), then wrapped up.
    writeFileSync(transcript, line('user', 'Let us stop here for today.', 60_000));
    const deliberate = 'DELIBERATE: next is the budget rework, starting from the tail share';
    expect((await runCli(['internalize', '--home', home.dir, '--tail', deliberate])).status).toBe(0);
    appendFileSync(
      transcript,
      line('assistant', [{ type: 'text', text: 'Saved my thoughts. Anything else?' }], 0),
    );
    const stop = (lastMessage: string) =>
      runCli(['hook', 'stop', '--host', 'claude', '--home', home.dir], {
        input: JSON.stringify({
          session_id: session,
          transcript_path: transcript,
          hook_event_name: 'Stop',
          last_assistant_message: lastMessage,
        }),
      });
    expect((await stop('Saved my thoughts. Anything else?')).status).toBe(0);
    const tailNow = async () =>
      (JSON.parse((await runCli(['packet', '--home', home.dir])).stdout) as Packet).resumption?.stream_tail;
    expect(await tailNow()).toBe(deliberate);

    // The user speaks again: that turn's Stop takes the newest words as usual.
    appendFileSync(transcript, line('user', 'One more thing: rename the flag.', -1000));
    appendFileSync(
      transcript,
      line('assistant', [{ type: 'text', text: 'Renamed it; the flag is now' }], -2000),
    );
    expect((await stop('Renamed it; the flag is now')).status).toBe(0);
    expect(await tailNow()).toBe('Renamed it; the flag is now');
  });
});

describe('transcript extraction memory, in a real process', () => {
  it('reads a 50 MB transcript from the end with a small max RSS (whole-file read as the peer)', async () => {
    const t = tempDir('firstlight-rss-');
    try {
      const file = join(t.dir, 'big.jsonl');
      const fd = openSync(file, 'w');
      let size = 0;
      const write = (v: unknown) => {
        size += writeSync(fd, `${JSON.stringify(v)}\n`);
      };
      write({ type: 'user', message: { role: 'user', content: 'Scan.' } });
      write({
        type: 'assistant',
        message: { id: 'm1', content: [{ type: 'text', text: 'Opening words.' }] },
      });
      const out = 'log line with some noise 0123456789 '.repeat(2800);
      for (let i = 0; size < 50 * 1024 * 1024; i++) {
        write({
          type: 'assistant',
          message: { id: `t${i}`, content: [{ type: 'tool_use', id: `x${i}`, name: 'Bash', input: {} }] },
        });
        write({
          type: 'user',
          message: { content: [{ type: 'tool_result', tool_use_id: `x${i}`, content: out }] },
        });
      }
      write({
        type: 'assistant',
        message: { id: 'm2', content: [{ type: 'text', text: 'Closing words.' }] },
      });
      closeSync(fd);
      const measure = async (mode: string) => {
        const script = `
          const { extractTranscriptTail } = await import(${JSON.stringify(join(REPO_ROOT, 'dist', 'resume', 'index.js'))});
          const { readFileSync } = await import('node:fs');
          let out = null;
          if (${JSON.stringify(mode)} === 'extract') out = extractTranscriptTail(${JSON.stringify(file)}).stream_tail;
          if (${JSON.stringify(mode)} === 'whole') out = readFileSync(${JSON.stringify(file)}, 'utf8').split('\\n').length;
          process.stdout.write(JSON.stringify({ out, maxRss: process.resourceUsage().maxRSS * 1024 }));`;
        const ran = await run(process.execPath, ['--input-type=module', '-e', script]);
        expect(ran.status, ran.stderr).toBe(0);
        return JSON.parse(ran.stdout) as { out: unknown; maxRss: number };
      };
      const base = await measure('none');
      const extract = await measure('extract');
      const whole = await measure('whole');
      expect(extract.out).toBe('Opening words.\n\nClosing words.');
      const MB = 1024 * 1024;
      // Measured: about +2 MB over a bare process that loads the module; a whole-file read is ~+100 MB.
      expect(extract.maxRss - base.maxRss).toBeLessThan(16 * MB);
      expect(whole.maxRss - base.maxRss).toBeGreaterThan(50 * MB);
    } finally {
      t.dispose();
    }
  });
});
