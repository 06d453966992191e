/**
 * HTML built by a tagged template that escapes every interpolated value unless it is already
 * markup (`Html`, made by `html` itself or by `raw` for trusted constants): the page shows file
 * contents a user or an agent wrote, so nothing reaches the page unescaped by accident.
 */
import { UserError } from '../core/index.js';

/** Markup that is safe to insert as it is. */
export class Html {
  constructor(readonly text: string) {}
  toString(): string {
    return this.text;
  }
}

type Part = Html | string | number | boolean | null | undefined | readonly Part[];

const ESCAPES: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
};

/** Text escaped for an element's content or a quoted attribute value. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ESCAPES[c]!);
}

function render(part: Part): string {
  if (part === null || part === undefined || part === false || part === true) return '';
  if (part instanceof Html) return part.text;
  if (Array.isArray(part)) return part.map(render).join('');
  return escapeHtml(String(part));
}

/** `html\`<p>${text}</p>\``: values escaped, nested `Html` and arrays of it inserted as they are. */
export function html(strings: TemplateStringsArray, ...values: Part[]): Html {
  let out = strings[0]!;
  for (let i = 0; i < values.length; i++) out += render(values[i]) + strings[i + 1]!;
  return new Html(out);
}

/** A trusted constant (an SVG path built from numbers, a fixed snippet) inserted without escaping. */
export function raw(text: string): Html {
  return new Html(text);
}

/** A URL path segment or query value. */
export function urlPart(text: string): string {
  return encodeURIComponent(text);
}

/** A path segment decoded; a malformed escape is the caller's mistake (400), not ours. */
export function decodePart(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    throw new UserError(`"${text}" is not a valid URL path segment`, {
      code: 'INVALID_ARGUMENT',
      hint: 'follow the links on the page instead of typing addresses by hand',
    });
  }
}

/** A query string from the non-empty values (`?q=a&type=b`), or '' when all are empty. */
export function query(values: Record<string, string | number | undefined>): string {
  const parts = Object.entries(values)
    .filter(([, v]) => v !== undefined && v !== '')
    .map(([k, v]) => `${urlPart(k)}=${urlPart(String(v))}`);
  return parts.length > 0 ? `?${parts.join('&')}` : '';
}

/** `12 s ago`, `3 min ago`, `2 h ago`, `5 d ago` from ISO `at` to `now`. */
export function ago(at: string | undefined, now: Date): string {
  if (!at) return '';
  const ms = now.getTime() - Date.parse(at);
  if (Number.isNaN(ms)) return '';
  const s = Math.max(0, Math.round(ms / 1000));
  if (s < 60) return `${s} s ago`;
  if (s < 3600) return `${Math.round(s / 60)} min ago`;
  if (s < 86_400) return `${Math.round(s / 3600)} h ago`;
  return `${Math.round(s / 86_400)} d ago`;
}

/** A `<time>` element: the readable age, with the ISO time as its machine value and tooltip. */
export function timeTag(at: string | undefined, now: Date): Html {
  if (!at) return html`<span class="muted">unknown</span>`;
  return html`<time datetime="${at}" title="${at}">${at.slice(0, 19).replace('T', ' ')} UTC (${ago(at, now)})</time>`;
}

/** A `<time>` showing the UTC time of day alone (the full time in its tooltip): for lists of one day. */
export function clockTag(at: string | undefined): Html {
  if (!at) return html`<span class="muted">?</span>`;
  return html`<time datetime="${at}" title="${at}">${at.slice(11, 19)}</time>`;
}

/** Text cut to `max` characters on one line, with an ellipsis. */
export function clipText(text: string, max = 120): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length <= max ? flat : `${flat.slice(0, max - 1)}…`;
}
