/**
 * The resumption section, in the seed's shape: the agent's own words first, verbatim, with as
 * little framing as possible. No "summary" header (this is not a briefing), anchors as bullets,
 * and a closing directive plus the don't-repeat line (claude-mem calls that line load-bearing:
 * without it agents re-send their last message).
 */

/** What the renderer needs; the packet's `resumption` value satisfies it. */
export interface ResumptionLike {
  stream_tail: string;
  anchors: readonly { text: string }[];
  captured_at?: string;
  /** True when the tail was cut from the front to fit the budget (rendered with a leading "…"). */
  trimmed?: unknown;
}

export interface RenderResumptionOptions {
  /** When given, the opening line says how long ago the thought was interrupted. */
  now?: Date;
}

export const RESUMPTION_HEADING = '# Resumption Context';
export const CONTINUE_LINE = '[Continue from here. Pick up the pen.]';
export const NO_REPEAT_LINE =
  '[Do not repeat your last message or summarize this back; go on from where it stopped.]';

/** The section as markdown, or "" when nothing was captured (then there is no section at all). */
export function renderResumption(resumption: ResumptionLike, options: RenderResumptionOptions = {}): string {
  const tail = resumption.stream_tail.trim();
  const anchors = resumption.anchors.map((a) => a.text.trim()).filter((t) => t !== '');
  if (tail === '' && anchors.length === 0) return '';
  const lines = [RESUMPTION_HEADING, ''];
  if (tail !== '') {
    const age = ageOf(resumption.captured_at, options.now);
    lines.push(
      `[You were interrupted mid-thought${age ? ` ${age}` : ''}. Here's where you were going:]`,
      '',
      `"${resumption.trimmed === true ? '…' : ''}${tail}"`,
      '',
    );
  }
  if (anchors.length > 0) {
    lines.push('[Anchors from this arc:]', ...anchors.map((text) => `• "${text}"`), '');
  }
  lines.push(CONTINUE_LINE, NO_REPEAT_LINE);
  return lines.join('\n');
}

/** "3 days ago"; undefined under a minute or without a clock (staleness is worth one phrase). */
function ageOf(capturedAt: string | undefined, now: Date | undefined): string | undefined {
  if (!capturedAt || !now) return undefined;
  const ms = now.getTime() - Date.parse(capturedAt);
  if (!Number.isFinite(ms) || ms < 60_000) return undefined;
  const units: [number, string][] = [
    [86_400_000, 'day'],
    [3_600_000, 'hour'],
    [60_000, 'minute'],
  ];
  for (const [size, name] of units) {
    const n = Math.floor(ms / size);
    if (n >= 1) return `${n} ${name}${n === 1 ? '' : 's'} ago`;
  }
  return undefined;
}
