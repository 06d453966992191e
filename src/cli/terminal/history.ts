/**
 * The terminal REPL's input history, `<home>/repl/history`: one line per entered line, newest
 * last, appended as they are typed (one O_APPEND write each, so two terminals never tear a line)
 * and trimmed to the newest HISTORY_LINES when it is read.
 */
import { appendFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';

export const HISTORY_LINES = 1000;

/** The lines, newest first (as readline wants them); a missing or unreadable file is empty. */
export function loadHistory(file: string): string[] {
  let lines: string[];
  try {
    lines = readFileSync(file, 'utf8').split('\n').filter(Boolean);
  } catch {
    return [];
  }
  if (lines.length > HISTORY_LINES * 2) {
    lines = lines.slice(-HISTORY_LINES);
    try {
      writeFileSync(file, `${lines.join('\n')}\n`);
    } catch {
      // A read-only history still works for this session.
    }
  }
  return lines.slice(-HISTORY_LINES).reverse();
}

/** Appends one entered line; failures are ignored (history is a convenience). */
export function appendHistory(file: string, line: string): void {
  if (line.trim() === '') return;
  try {
    mkdirSync(dirname(file), { recursive: true });
    appendFileSync(file, `${line.replace(/\n/g, ' ')}\n`);
  } catch {
    // as above
  }
}
