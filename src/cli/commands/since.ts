/** `--since` for `firstlight events`: a span back from now or an ISO date. */
import { parseTimeBound } from '../../mind/index.js';

/** `30m`, `2h`, `7d`, `1w` back from `now`, or an ISO date (`2026-11-20`) or date-time. */
export function parseSince(text: string, now: Date): Date {
  return parseTimeBound(text, now, '--since');
}
