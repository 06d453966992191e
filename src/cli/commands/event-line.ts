/**
 * One event as a line of `firstlight events`: the call with a short summary of its arguments and
 * how it ended, so a denied `Bash` reads as denied.
 */
import type { CognitionEvent } from '../../mind/index.js';

/** Argument fields that say the most about a call, in the order they are looked for. */
const TELLING_FIELDS = ['command', 'file_path', 'path', 'pattern', 'query', 'url', 'name', 'code', 'prompt'];

/** `ls -la`, `src/a.ts`, `query=deploy, k=5`: a short summary of a call's stored arguments. */
export function summarizeArgs(args: string | undefined, max = 60): string {
  if (!args) return '';
  let parsed: unknown;
  try {
    parsed = JSON.parse(args);
  } catch {
    return clip(args, max);
  }
  if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed))
    return clip(JSON.stringify(parsed), max);
  const entries = Object.entries(parsed as Record<string, unknown>);
  if (entries.length === 0) return '';
  const telling = TELLING_FIELDS.find(
    (field) => typeof (parsed as Record<string, unknown>)[field] === 'string',
  );
  if (telling) return clip(String((parsed as Record<string, unknown>)[telling]), max);
  return clip(
    entries
      .map(([key, value]) => `${key}=${typeof value === 'string' ? value : JSON.stringify(value)}`)
      .join(', '),
    max,
  );
}

/** `2026-11-20T09:00:00.000Z  observe  Bash(git push)  DENIED: …  [hook claude]` */
export function describeEvent(e: CognitionEvent): string {
  const pe = typeof e.prediction_error === 'number' ? `  prediction_error ${e.prediction_error}` : '';
  const by = e.source === 'hook' ? `  [hook${e.host ? ` ${e.host}` : ''}]` : '';
  if (e.kind !== 'observe')
    return `${e.ts}  ${e.kind.padEnd(7)} ${e.reflect_kind ?? ''}: ${clip(e.observation ?? '')}${pe}`;
  const summary = summarizeArgs(e.args);
  const call = `${e.tool_name ?? '?'}${summary ? `(${summary})` : ''}`;
  const outcome =
    e.outcome === 'denied'
      ? `  DENIED: ${clip(e.error ?? '')}`
      : e.outcome === 'error'
        ? `  ERROR: ${clip(e.error ?? e.result ?? '')}`
        : e.outcome === 'ok'
          ? `  ok${e.result ? `: ${clip(e.result, 60)}` : ''}`
          : `${e.expected ? `  expected: ${clip(e.expected)}` : ''}${e.result ? `  result: ${clip(e.result)}` : ''}`;
  return `${e.ts}  ${e.kind.padEnd(7)} ${call}${outcome}${pe}${by}`;
}

function clip(text: string, max = 80): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length <= max ? flat : `${flat.slice(0, max - 1)}…`;
}
