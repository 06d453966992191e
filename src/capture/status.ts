/**
 * What `firstlight status` and the UI show of capture: the mode, the curator and its budget with
 * today's use and the last days', what waits in the queue, and the last captures with what each
 * wrote, proposed and skipped and the tokens it used.
 */
import { readFileSync } from 'node:fs';
import { dayOf, usageFile } from './curator/budget.js';
import { type CaptureReport, readReports } from './log.js';
import { queuedJobs } from './queue/index.js';
import { captureSettingsFor } from './settings.js';

export interface CaptureStatus {
  mode: 'auto' | 'review' | 'off';
  /** The file that turned capture off, when one did. */
  off_by: string | null;
  max_per_session: number;
  curator: {
    substrate: string | null;
    session_tokens: number;
    daily_tokens: number;
    /** Tokens used today (UTC) and on each of the last days that used any, newest first. */
    today: { date: string; used: number };
    days: { date: string; used: number }[];
  };
  queued: number;
  /** The newest captures first. */
  last: CaptureLine[];
}

export interface CaptureLine {
  session: string;
  host: string;
  at: string;
  status: CaptureReport['status'];
  why?: string;
  wrote: number;
  proposed: number;
  skipped: number;
  /** Curator tokens this session used (null: no curator call). */
  tokens: number | null;
  curator?: { status: string; why?: string };
  ms: number;
}

const SHOWN = 5;
const DAYS_SHOWN = 7;

export function captureStatus(home: string, project: string | null, now: Date, shown = SHOWN): CaptureStatus {
  const { settings, offBy } = captureSettingsFor(home, project);
  const days = usedDays(home);
  const today = dayOf(now);
  return {
    mode: settings.mode,
    off_by: offBy,
    max_per_session: settings.max_per_session,
    curator: {
      substrate: settings.curator.substrate ?? null,
      session_tokens: settings.curator.session_tokens,
      daily_tokens: settings.curator.daily_tokens,
      today: { date: today, used: days.find((d) => d.date === today)?.used ?? 0 },
      days: days.slice(0, DAYS_SHOWN),
    },
    queued: queuedJobs(home).length,
    last: readReports(home).slice(-shown).reverse().map(lineOf),
  };
}

function lineOf(r: CaptureReport): CaptureLine {
  return {
    session: r.session,
    host: r.host,
    at: r.at,
    status: r.status,
    ...(r.why ? { why: r.why } : {}),
    wrote: r.wrote.length,
    proposed: r.proposed.length,
    skipped: r.skipped.length,
    tokens: r.tokens,
    ...(r.curator
      ? { curator: { status: r.curator.status, ...(r.curator.why ? { why: r.curator.why } : {}) } }
      : {}),
    ms: r.ms,
  };
}

function usedDays(home: string): { date: string; used: number }[] {
  try {
    const parsed = JSON.parse(readFileSync(usageFile(home), 'utf8')) as { days?: Record<string, number> };
    return Object.entries(parsed.days ?? {})
      .filter(([, n]) => typeof n === 'number' && n > 0)
      .map(([date, used]) => ({ date, used }))
      .sort((a, b) => (a.date < b.date ? 1 : -1));
  } catch {
    return [];
  }
}
