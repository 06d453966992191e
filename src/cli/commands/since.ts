/** `--since` for `firstlight events`: a span back from now or an ISO date. */
import { UserError } from '../../core/index.js';

const UNIT_MS: Record<string, number> = { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000 };

/** `30m`, `2h`, `7d`, `1w` back from `now`, or an ISO date (`2026-11-20`) or date-time. */
export function parseSince(text: string, now: Date): Date {
  const duration = /^(\d+(?:\.\d+)?)\s*([smhdw])$/i.exec(text.trim());
  if (duration) return new Date(now.getTime() - Number(duration[1]) * UNIT_MS[duration[2]!.toLowerCase()]!);
  if (/^\d{4}-\d{2}-\d{2}/.test(text.trim())) {
    const at = Date.parse(text.trim());
    if (!Number.isNaN(at)) return new Date(at);
  }
  throw new UserError(`--since "${text}" is neither a duration nor an ISO date`, {
    code: 'INVALID_ARGUMENT',
    hint: '--since 30m, 2h, 7d or 1w (back from now), or an ISO date/time such as 2026-11-20 or 2026-11-20T09:00:00Z',
  });
}
