/**
 * A whole session read forward from its host's transcript, with the resume part's readers
 * (resume/transcripts: what each host's records mean): what the user said, what the agent said,
 * and every tool call with its outcome, each with the transcript line it came from (the evidence
 * a captured memory quotes). Bounded: past MAX_BYTES only the newest part is read.
 */
import { closeSync, fstatSync, readSync } from 'node:fs';
import {
  isEntry,
  isJsonDocument,
  openTranscript,
  readDocumentRecords,
  TRANSCRIPT_READERS,
  type TranscriptEntry,
  type TranscriptFormat,
} from '../resume/transcripts/index.js';

/** One thing said, with the 1-based transcript line (the record's index in a JSON document). */
export interface Said {
  role: 'user' | 'assistant';
  text: string;
  line: number;
}

/** One tool call, and how it ended (null: no result recorded). */
export interface Call {
  id: string;
  name: string;
  input: unknown;
  line: number;
  outcome: { ok: boolean; text: string; line: number } | null;
}

export interface Conversation {
  said: Said[];
  calls: Call[];
  /** The order of events: said and calls interleaved by line. */
  lines: number;
  /** Bytes skipped at the front of a transcript over MAX_BYTES. */
  skipped_bytes: number;
}

/** The most of a transcript capture reads (the newest part). */
export const MAX_BYTES = 32 * 1024 * 1024;

/** A shell call's exit status as hosts print it: `Exit code 1`, `Exit Code: 2`, `exited with code 1`. */
const EXIT_CODE = /\bexit(?:ed with)? (?:code|status)\W{0,3}([0-9]+)/i;

/** Reads the session; throws (ENOENT, ENOTREG) when the transcript cannot be opened. */
export function readConversation(path: string, format: TranscriptFormat, maxBytes = MAX_BYTES): Conversation {
  const reader = TRANSCRIPT_READERS[format];
  const fd = openTranscript(path);
  const records: { entry: TranscriptEntry; line: number }[] = [];
  let skipped = 0;
  try {
    const size = fstatSync(fd).size;
    if (reader.document && isJsonDocument(fd, size)) {
      const read = readDocumentRecords(fd, size, maxBytes, reader);
      if ('records' in read)
        read.records.forEach((entry, i) => {
          records.push({ entry, line: i + 1 });
        });
    } else {
      const start = Math.max(0, size - maxBytes);
      skipped = start;
      const buf = Buffer.allocUnsafe(size - start);
      readSync(fd, buf, 0, buf.length, start);
      const text = buf.toString('utf8');
      let line = 0;
      for (const raw of text.split('\n')) {
        line++;
        if (start > 0 && line === 1) continue; // a partial line
        const trimmed = raw.trim();
        if (trimmed === '') continue;
        try {
          const entry = JSON.parse(trimmed) as unknown;
          if (isEntry(entry)) records.push({ entry, line });
        } catch {
          // a torn or partial line
        }
      }
    }
  } finally {
    closeSync(fd);
  }
  return fromRecords(records, format, skipped);
}

function fromRecords(
  records: { entry: TranscriptEntry; line: number }[],
  format: TranscriptFormat,
  skipped: number,
): Conversation {
  const reader = TRANSCRIPT_READERS[format];
  const said = new Map<string, Said>();
  const calls = new Map<string, Call>();
  let n = 0;
  let last = 0;
  for (const { entry, line } of records) {
    last = line;
    reader.turn(entry).forEach((record, i) => {
      if (record.rewindTo !== undefined) return;
      // A record re-appended whole (Gemini CLI) keeps its first line: its place in the session.
      const key = record.key !== undefined ? `k:${record.key}` : `n:${n++}:${i}`;
      const earlier = said.get(key);
      if (record.prompt && record.promptText) {
        said.set(key, { role: 'user', text: record.promptText, line: earlier?.line ?? line });
      } else if (record.words) {
        const text = record.words
          .filter((w) => !w.thinking)
          .map((w) => w.text)
          .join('\n')
          .trim();
        if (text !== '') said.set(key, { role: 'assistant', text, line: earlier?.line ?? line });
      }
    });
    for (const call of reader.calls(entry)) {
      if (!calls.has(call.id))
        calls.set(call.id, { id: call.id, name: call.name, input: call.input, line, outcome: null });
    }
    for (const call of calls.values()) {
      if (call.outcome && !reader.isStructuredResult?.(entry)) continue;
      const outcome = reader.outcome(entry, call.id);
      if (!outcome) continue;
      const text = outcome.status === 'done' ? outcome.texts.join('\n') : '';
      const code = EXIT_CODE.exec(text);
      const ok = outcome.status === 'done' && (!code || code[1] === '0');
      call.outcome = { ok, text, line: call.outcome?.line ?? line };
    }
  }
  const byLine = <T extends { line: number }>(xs: Iterable<T>) => [...xs].sort((a, b) => a.line - b.line);
  return {
    said: dedupe(byLine(said.values())),
    calls: byLine(calls.values()),
    lines: last,
    skipped_bytes: skipped,
  };
}

/** Codex records each prompt twice (the message and its event): the same words in a row count once. */
function dedupe(said: Said[]): Said[] {
  return said.filter((s, i) => i === 0 || s.role !== said[i - 1]!.role || s.text !== said[i - 1]!.text);
}

/** The command a shell call ran (Claude Code's Bash, Codex's exec_command/shell, Gemini's run_shell_command), else null. */
export function commandOf(call: Call): string | null {
  if (!/^(bash|shell|exec_command|local_shell|run_shell_command|container\.exec)$/i.test(call.name))
    return null;
  const input = isEntry(call.input) ? call.input : {};
  const value = input.command ?? input.cmd;
  if (typeof value === 'string') return value.trim();
  if (Array.isArray(value) && value.every((v) => typeof v === 'string')) {
    // ["bash", "-lc", "pnpm test"]: the script is the last word.
    const words = value as string[];
    return (
      words.length >= 3 && /^-\w*c$/.test(words[words.length - 2]!) ? words.at(-1)! : words.join(' ')
    ).trim();
  }
  return null;
}
