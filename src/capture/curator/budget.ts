/**
 * The curator's token budget, kept per day (UTC) in `<home>/capture/usage.json`: what each
 * day's curations used, as the substrate reported it (the prompt's estimate where it reported
 * none). Read before a call (is there room for this prompt and its answer?), added to after,
 * under a lock (several workers of one home never run at once, but `firstlight capture
 * --session` may run beside one).
 */
import { join } from 'node:path';
import { readTextIfExists, withFileLock, writeFileAtomically } from '../../core/index.js';
import { captureDir } from '../queue/index.js';

interface Usage {
  format: 1;
  /** Tokens used per UTC day (`2026-12-02`), the last {@link DAYS_KEPT} days. */
  days: Record<string, number>;
}

const DAYS_KEPT = 31;

export const usageFile = (home: string): string => join(captureDir(home), 'usage.json');
export const dayOf = (at: Date): string => at.toISOString().slice(0, 10);

function readUsage(home: string): Usage {
  try {
    const parsed = JSON.parse(readTextIfExists(usageFile(home)) ?? '') as Usage;
    if (parsed.format === 1 && parsed.days && typeof parsed.days === 'object') return parsed;
  } catch {
    // none yet, or torn: an empty ledger
  }
  return { format: 1, days: {} };
}

/** Tokens the curator used on `day`. */
export function tokensOn(home: string, day: string): number {
  const n = readUsage(home).days[day];
  return typeof n === 'number' && Number.isFinite(n) ? n : 0;
}

/** Adds `tokens` to `day`'s use. */
export async function addTokens(home: string, day: string, tokens: number): Promise<void> {
  const file = usageFile(home);
  await withFileLock(file, async () => {
    const usage = readUsage(home);
    usage.days[day] = (usage.days[day] ?? 0) + tokens;
    const days = Object.keys(usage.days).sort();
    for (const old of days.slice(0, Math.max(0, days.length - DAYS_KEPT))) delete usage.days[old];
    await writeFileAtomically(file, `${JSON.stringify(usage)}\n`);
  });
}
