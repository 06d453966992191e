/**
 * What capture did, session by session: `<home>/capture/log.jsonl` (one line per capture, for
 * `--json`, `firstlight status` and the UI) and `<home>/capture/sessions/<id>.json` (how far a
 * session's transcript was read and how many memories it has written, so a later Stop of the
 * same session reads only what is new and the per-session cap holds across captures).
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { appendLine, readTextIfExists, writeFileAtomically } from '../core/index.js';
import type { CuratorReport } from './curator/index.js';
import { captureDir, jobFileName } from './queue/index.js';
import type { Skip, Written } from './write.js';

export interface CaptureReport {
  session: string;
  host: string;
  at: string;
  status: 'captured' | 'skipped' | 'failed';
  /** Why the whole session was skipped or failed. */
  why?: string;
  mode: 'auto' | 'review' | 'off';
  wrote: Written[];
  proposed: Written[];
  skipped: Skip[];
  digest: string | null;
  /** Memories the next start names as related to where this session left off (see mind/relevant). */
  related?: number;
  ms: number;
  /** Curator tokens used (null: no curator ran). */
  tokens: number | null;
  /** What the curator did (absent: none configured). */
  curator?: CuratorReport;
}

export interface SessionState {
  through_line: number;
  written: number;
}

export const logFile = (home: string): string => join(captureDir(home), 'log.jsonl');
const stateFile = (home: string, session: string) => join(captureDir(home), 'sessions', jobFileName(session));

export function readSessionState(home: string, session: string): SessionState {
  try {
    const state = JSON.parse(readTextIfExists(stateFile(home, session)) ?? '') as SessionState;
    return { through_line: Number(state.through_line) || 0, written: Number(state.written) || 0 };
  } catch {
    return { through_line: 0, written: 0 };
  }
}

export async function writeSessionState(home: string, session: string, state: SessionState): Promise<void> {
  await writeFileAtomically(stateFile(home, session), `${JSON.stringify(state)}\n`);
}

export function appendReport(home: string, report: CaptureReport): void {
  appendLine(logFile(home), JSON.stringify(report));
}

/** Every report, oldest first (a torn line is skipped). */
export function readReports(home: string): CaptureReport[] {
  const file = logFile(home);
  if (!existsSync(file)) return [];
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter(Boolean)
    .flatMap((line) => {
      try {
        return [JSON.parse(line) as CaptureReport];
      } catch {
        return [];
      }
    });
}
