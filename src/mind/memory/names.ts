import { createHash } from 'node:crypto';
import { STOP_WORDS } from '../../core/text/index.js';
import { typePrefix } from './types.js';

const MAX_SLUG = 64;

/**
 * A memory name to a safe file name inside memory/: `<type>_<slug>.md`, ASCII letters, digits
 * and `_` only, so no name can leave the directory, hide itself, or collide with MEMORY.md.
 * Names without any ASCII letter or digit get a short hash instead of a slug. A custom type's
 * files are prefixed with its own name (`custom:recipe` → `recipe_…`): no colon in file names.
 */
export function fileNameFor(type: string, name: string): string {
  const slug = name
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '_')
    .replace(/^_+|_+$/g, '')
    .slice(0, MAX_SLUG)
    .replace(/_+$/, '');
  const base = slug || `m_${createHash('sha256').update(name).digest('hex').slice(0, 12)}`;
  const prefix = typePrefix(type);
  const prefixed = base === prefix || base.startsWith(`${prefix}_`) ? base : `${prefix}_${base}`;
  return `${prefixed}.md`;
}

/** A one-line, bracket-safe title for the MEMORY.md index. */
export function indexTitle(name: string): string {
  return oneLine(name).replace(/([[\]\\])/g, '\\$1');
}

/** Collapses whitespace (newlines included) to single spaces and trims. */
export function oneLine(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

/** Words a title does not open with: "We deploy on Fridays" is titled "Deploy on Fridays". */
const OPENING_FILLER = new Set([
  'we',
  'i',
  'our',
  'my',
  'the',
  'a',
  'an',
  'so',
  'please',
  'note',
  'notes',
  'remember',
  'that',
  'fyi',
  'tl;dr',
]);
/** Words in a default title, and its characters. */
const TITLE_WORDS = 5;
const TITLE_CHARS = 48;

/**
 * A default name for a memory given none: a short title of a few words from its first line.
 * A markdown heading is taken as it is (clipped); prose is cut at its first clause, loses an
 * opening "We", "The", "Note that"…, keeps at most five words and drops stop words left dangling
 * at the end: "We deploy with blue-green on Fridays only after 10am, rollback via …" becomes
 * "Deploy with blue-green on Fridays".
 */
export function shortTitle(content: string): string {
  const first = content.split('\n').find((l) => l.trim() !== '') ?? content;
  const heading = /^\s*#{1,6}\s+(.*)$/.exec(first);
  const plain = oneLine(
    (heading ? heading[1]! : first)
      .replace(/^\s*(?:[-*+]|\d+[.)])\s+/, '')
      .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
      .replace(/[*_`~]+/g, ''),
  );
  if (heading) return clipWords(plain, 10, 60) || clipWords(oneLine(first), 10, 60);
  const clause = plain.split(/(?:[.;:!?](?:\s|$)|,\s|\s[-–—]\s|\s\()/)[0] ?? plain;
  const words = clause.split(' ').filter(Boolean);
  while (words.length > 1 && OPENING_FILLER.has(words[0]!.toLowerCase())) words.shift();
  const kept = words.slice(0, TITLE_WORDS);
  while (kept.length > 1 && STOP_WORDS.has(kept.at(-1)!.toLowerCase())) kept.pop();
  const title = clipWords(kept.join(' '), TITLE_WORDS, TITLE_CHARS);
  if (title === '') return clipWords(plain, TITLE_WORDS, TITLE_CHARS) || 'Untitled';
  return title.charAt(0).toUpperCase() + title.slice(1);
}

/** At most `words` words and `chars` characters, cut at a word boundary. */
function clipWords(text: string, words: number, chars: number): string {
  const out: string[] = [];
  for (const word of text.split(' ').filter(Boolean).slice(0, words)) {
    if ([...out, word].join(' ').length > chars) break;
    out.push(word);
  }
  return out.length > 0 ? out.join(' ') : text.slice(0, chars).trim();
}
