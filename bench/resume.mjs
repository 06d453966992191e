// Resumption capture cost: extracting the stream tail from Claude Code transcripts of 1, 10 and
// 50 MB (one long tool-heavy turn, so the whole turn must be read back) with firstlight's
// backwards chunked reader, beside the obvious peer: read the whole file and parse every line
// (what a naive Stop hook does). Each measurement runs in a fresh process: wall time and max RSS
// over a bare process that loaded the same module (the floor).
import { spawnSync } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, rmSync, writeFileSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { printTable, ROOT, sized, writeResult } from './lib.mjs';

const dist = join(ROOT, 'dist', 'resume', 'index.js');
const work = mkdtempSync(join(tmpdir(), 'firstlight-bench-resume-'));
const MB = 1024 * 1024;

function transcript(file, megabytes) {
  const fd = openSync(file, 'w');
  let size = 0;
  const write = (v) => {
    size += writeSync(fd, `${JSON.stringify(v)}\n`);
  };
  const meta = {
    isSidechain: false,
    sessionId: 'bench',
    cwd: '/project',
    version: '2.1.80',
    gitBranch: 'main',
  };
  write({ ...meta, type: 'user', message: { role: 'user', content: 'Scan every log file.' } });
  write({
    ...meta,
    type: 'assistant',
    message: { id: 'm1', role: 'assistant', content: [{ type: 'text', text: 'Opening words.' }] },
  });
  const out = 'log line with some noise 0123456789 '.repeat(2800);
  for (let i = 0; size < megabytes * MB; i++) {
    write({
      ...meta,
      type: 'assistant',
      message: {
        id: `t${i}`,
        role: 'assistant',
        content: [{ type: 'tool_use', id: `x${i}`, name: 'Bash', input: { command: 'cat log' } }],
      },
    });
    write({
      ...meta,
      type: 'user',
      message: {
        role: 'user',
        content: [{ tool_use_id: `x${i}`, type: 'tool_result', content: out, is_error: false }],
      },
      toolUseResult: { stdout: '…' },
    });
  }
  write({
    ...meta,
    type: 'assistant',
    message: {
      id: 'm2',
      role: 'assistant',
      content: [
        { type: 'thinking', thinking: '', signature: 's' },
        { type: 'text', text: 'Closing words.' },
      ],
    },
  });
  closeSync(fd);
}

// The peer: whole file in memory, every line parsed, last turn's text collected.
const wholeFileSource = `
  const { readFileSync } = await import('node:fs');
  const lines = readFileSync(FILE, 'utf8').split('\\n');
  const words = [];
  for (let i = lines.length - 1; i >= 0; i--) {
    let o; try { o = JSON.parse(lines[i]); } catch { continue; }
    const c = o.message?.content;
    if (o.type === 'user' && !(Array.isArray(c) && c.every((b) => b.type === 'tool_result'))) { if (words.length) break; continue; }
    if (o.type === 'assistant' && Array.isArray(c)) for (const b of c) if (b.type === 'text') words.unshift(b.text);
  }
  out = words.join('\\n\\n');`;

function measure(mode, file) {
  const body =
    mode === 'firstlight'
      ? 'out = extractTranscriptTail(FILE).stream_tail;'
      : mode === 'whole-file'
        ? wholeFileSource
        : '';
  const script = `
    const { extractTranscriptTail } = await import(${JSON.stringify(dist)});
    const FILE = ${JSON.stringify(file)};
    let out = null;
    const t0 = performance.now();
    ${body}
    const ms = performance.now() - t0;
    process.stdout.write(JSON.stringify({ out, ms, maxRss: process.resourceUsage().maxRSS * 1024 }));`;
  const scriptFile = join(work, `${mode}.mjs`);
  writeFileSync(scriptFile, script);
  const run = spawnSync(process.execPath, [scriptFile], { encoding: 'utf8' });
  if (run.status !== 0) throw new Error(`${mode} failed: ${run.stderr}`);
  return JSON.parse(run.stdout);
}

const rows = [];
try {
  for (const megabytes of sized([1, 10, 50], [1])) {
    const file = join(work, `t${megabytes}.jsonl`);
    transcript(file, megabytes);
    const floor = measure('floor', file);
    for (const mode of ['firstlight', 'whole-file']) {
      const runs = sized([1, 2, 3], [1]).map(() => measure(mode, file));
      const best = runs.sort((a, b) => a.ms - b.ms)[runs.length >> 1]; // the median
      if (best.out !== 'Opening words.\n\nClosing words.') throw new Error(`${mode} extracted ${best.out}`);
      rows.push({
        transcript_mb: megabytes,
        reader: mode,
        median_ms: Math.round(best.ms * 10) / 10,
        rss_over_floor_mb: Math.round(((best.maxRss - floor.maxRss) / MB) * 10) / 10,
      });
    }
  }
} finally {
  rmSync(work, { recursive: true, force: true });
}

printTable(
  'Stream-tail extraction: firstlight (backwards, chunked) vs whole-file read (peer); max RSS over a bare process (floor)',
  rows,
);
writeResult('resume', { rows });
