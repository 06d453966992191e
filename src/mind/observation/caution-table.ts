/**
 * Builds `cache/applies-to.jsonl` from memory/ (loaded on demand: frontmatter that is not
 * firstlight's own JSON lines goes through the YAML parser).
 */
import { closeSync, openSync, readSync } from 'node:fs';
import { join } from 'node:path';
import type { CompiledCallGlob } from '../../core/glob/index.js';
import { isProblem, listMemoryFiles, readMemoryEntry } from '../memory/entries.js';
import { bodyOf } from '../memory/fast-frontmatter.js';
import { writeDerivedFile } from '../memory/overview.js';
import { type CautionLine, type CautionRule, cautionTableFile, memoryKey, tableHeader } from './cautions.js';
import { clip } from './digest.js';

/** Memory types that carry advice about how to act (the same as observe's cautionary flags). */
const CAUTIONARY = new Set(['feedback', 'caution']);
/** A memory written this recently may still be changing under the same directory mtime. */
const RACY_MS = 100;
const TEXT_MAX = 600;
const HEAD_BYTES = 16 * 1024;

function headOf(path: string): string {
  const fd = openSync(path, 'r');
  try {
    const buffer = Buffer.alloc(HEAD_BYTES);
    const n = readSync(fd, buffer, 0, HEAD_BYTES, 0);
    return buffer.subarray(0, n).toString('utf8');
  } finally {
    closeSync(fd);
  }
}

/** A line's prefix: the pattern's literal tool-name start ('' also when it holds a tab or newline). */
const linePrefix = (c: CompiledCallGlob): string =>
  /[\t\n]/.test(c.namePrefix ?? '') ? '' : (c.namePrefix ?? '');

/**
 * Reads every cautionary memory with `applies_to` and writes the table (atomically, by rename),
 * each pattern compiled by `compile` (core/glob's compiler). Returns the table's text.
 */
export function writeCautionTable(home: string, compile: (pattern: string) => CompiledCallGlob): string {
  const started = Date.now();
  const key = memoryKey(home);
  const memory = join(home, 'memory');
  const lines = [tableHeader(key)];
  let r = 0;
  for (const file of listMemoryFiles(memory)) {
    const entry = readMemoryEntry(memory, file);
    if (isProblem(entry) || !CAUTIONARY.has(entry.type) || entry.appliesTo.length === 0) continue;
    // A proposed memory (capture in review mode) is not a fact yet; a superseded one no longer is.
    if (entry.fields.status === 'proposed' || entry.fields.superseded_by !== undefined) continue;
    let body = '';
    try {
      body = bodyOf(headOf(join(memory, file))).trim();
    } catch {
      // unreadable since the entry was read: the description stands in
    }
    const action = entry.fields.on_match;
    const rule: CautionRule = {
      file,
      name: entry.name,
      text: clip(body.replace(/\s+/g, ' ') || entry.description, TEXT_MAX),
      on_match: action === 'ask' || action === 'deny' ? action : 'warn',
      repeat: entry.fields.repeat === 'true',
    };
    for (const pattern of entry.appliesTo) {
      let compiled: CompiledCallGlob;
      try {
        compiled = compile(pattern);
      } catch {
        continue; // a bad glob in a hand-written file matches nothing; remember() refuses one
      }
      const line: CautionLine = { r, rule, pattern, compiled };
      lines.push(`${linePrefix(compiled)}\t${JSON.stringify(line)}`);
    }
    r++;
  }
  const text = `${lines.join('\n')}\n`;
  const dirMtime = Number(key.split(':')[0]);
  // Built within the racy window of memory/'s mtime: used, not kept (a write in the same tick
  // would not move the key).
  if (key !== 'none' && started - dirMtime >= RACY_MS) {
    writeDerivedFile(cautionTableFile(home), text);
  }
  return text;
}
