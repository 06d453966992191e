/**
 * Builds `cache/applies-to.json` from memory/ (loaded on demand: frontmatter that is not
 * firstlight's own JSON lines goes through the YAML parser).
 */
import { closeSync, mkdirSync, openSync, readSync, renameSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { compileCallGlob } from '../../core/glob/index.js';
import { isProblem, listMemoryFiles, readMemoryEntry } from '../memory/entries.js';
import { bodyOf } from '../memory/fast-frontmatter.js';
import {
  type CautionRule,
  type CautionTable,
  cautionTableFile,
  memoryKey,
  type OnMatch,
} from './cautions.js';
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

/** The lower-cased literal start of a pattern's tool-name glob ('' for a bad or wildcard-first one). */
function namePrefix(pattern: string): string {
  try {
    return compileCallGlob(pattern).namePrefix ?? '';
  } catch {
    return '';
  }
}

/** Reads every cautionary memory with `applies_to` and writes the table (atomically, by rename). */
export function writeCautionTable(home: string): CautionTable {
  const started = Date.now();
  const key = memoryKey(home);
  const memory = join(home, 'memory');
  const rules: CautionRule[] = [];
  for (const file of listMemoryFiles(memory)) {
    const entry = readMemoryEntry(memory, file);
    if (isProblem(entry) || !CAUTIONARY.has(entry.type) || entry.appliesTo.length === 0) continue;
    let body = '';
    try {
      body = bodyOf(headOf(join(memory, file))).trim();
    } catch {
      // unreadable since the entry was read: the description stands in
    }
    const action = entry.fields.on_match;
    const on_match: OnMatch = action === 'ask' || action === 'deny' ? action : 'warn';
    rules.push({
      file,
      name: entry.name,
      text: clip(body.replace(/\s+/g, ' ') || entry.description, TEXT_MAX),
      patterns: entry.appliesTo,
      prefixes: entry.appliesTo.map(namePrefix),
      on_match,
      repeat: entry.fields.repeat === 'true',
    });
  }
  const table: CautionTable = { v: 4, key, rules };
  const dirMtime = Number(key.split(':')[0]);
  // Built within the racy window of memory/'s mtime: used, not kept (a write in the same tick
  // would not move the key).
  if (key !== 'none' && started - dirMtime >= RACY_MS) {
    const file = cautionTableFile(home);
    const temp = `${file}.${process.pid}.${Date.now()}.tmp`;
    try {
      mkdirSync(dirname(file), { recursive: true });
      writeFileSync(temp, JSON.stringify(table));
      renameSync(temp, file);
    } catch {
      // an unwritable cache/: rebuilt next time
    }
  }
  return table;
}
