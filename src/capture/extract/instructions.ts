/**
 * The user's standing instructions, corrections and preferences, from what the user said:
 * "never use yarn here, always pnpm", "don't touch the migrations", "no, we use tabs". A rule,
 * not a model: a sentence counts when it says how to act from now on (never, always, don't,
 * prefer, instead of, from now on, we use), is not a question, and is not about this one moment
 * (for now, just this once). A negative one that names a command or a path gets `applies_to`,
 * so the caution fires before the next violation.
 */
import type { Said } from '../conversation.js';
import { type Candidate, clipLine, evidenceOf } from './candidate.js';

/** Text the host or the user put around the words: context blocks, private blocks, code, quotes. */
function spokenText(text: string): string {
  return text
    .replace(/<private>[\s\S]*?(?:<\/private>|$)/gi, ' ')
    .replace(/<([A-Za-z][\w-]*)(?:\s[^>]*)?>[\s\S]*?<\/\1>/g, ' ')
    .replace(/^(#\s*AGENTS\.md instructions|Caveat:).*$/gim, ' ')
    .replace(/```[\s\S]*?(?:```|$)/g, ' ')
    .replace(/^\s*>.*$/gm, ' ');
}

/** Sentences of a user turn (a line break ends one too: prompts are often lists). */
function sentences(text: string): string[] {
  const out: string[] = [];
  for (const line of text.split(/\n+/)) {
    const bare = line.replace(/^\s*(?:[-*•]|\d+[.)])\s+/, '').trim();
    if (bare === '') continue;
    // A period inside backticks (`.env`, `v1.2`) does not end a sentence.
    const parts = bare.match(/(?:`[^`]*`|[^.!?`]|[.!?](?=\S))+[.!?]*/g) ?? [bare];
    for (const p of parts) if (p.trim() !== '') out.push(p.trim());
  }
  return out;
}

const LEAD = String.raw`^(?:(?:ok(?:ay)?|also|and|oh|btw|note|fyi|remember|important|please|pls|one more thing|in this (?:repo|project|codebase)|here|for this (?:repo|project))[,:!]?\s+)*`;
/** Says how to act from now on. */
const RULES: { kind: 'rule' | 'preference' | 'correction'; re: RegExp }[] = [
  {
    kind: 'rule',
    re: new RegExp(
      `${LEAD}(?:never|always|don'?t|do not|avoid|stop|make sure (?:to|you)|be sure to|only use|no more)\\b`,
      'i',
    ),
  },
  { kind: 'rule', re: /\b(?:from now on|going forward|in future|in the future|from here on)\b/i },
  { kind: 'rule', re: /\bwe (?:always|never|use|don'?t use|do not use|prefer|run)\b/i },
  { kind: 'rule', re: /\buse\s+\S+(?:\s+\S+)?\s+(?:instead of|rather than|not)\s+\S+/i },
  {
    kind: 'preference',
    re: /\bi(?:'d| would)? (?:prefer|like it when|hate it when|want you to (?:always|never))\b/i,
  },
  {
    kind: 'correction',
    re: /^(?:no|nope|wrong|not like that|that's (?:wrong|not right)|actually)\b[,.!:;-]*\s+\S+/i,
  },
];
/** Sentences that look like rules but are not: feelings, questions, one-off permissions, history. */
const NOT_RULES =
  /\b(?:don'?t|do not) (?:worry|know|think|see|understand|care|remember|mind|get it|bother)\b|\b(?:never ?mind|no worries|no problem|no thanks|no idea)\b|\b(?:always|never) (?:been|was|were|worked|works|fails|failed|happens|had|seen)\b|\b(?:for now|just this once|this time|today|right now|temporarily|for this (?:task|change|pr|commit))\b/i;
/** The rule is about the user, not the project (kept global by the writer). */
const ABOUT_ME = /\b(?:i prefer|i like|i hate|i'd prefer|i would prefer|call me|my name)\b/i;

/** CLIs worth a caution when a rule forbids them by name. */
const KNOWN_COMMANDS =
  /^(?:yarn|npm|pnpm|npx|bun|deno|pip|pip3|poetry|uv|conda|cargo|go|make|docker|docker-compose|kubectl|helm|terraform|git|rm|sudo|curl|wget|brew|apt|apt-get|gradle|mvn|rails|rake|bundle|composer|jest|vitest|mocha|pytest|tsc|eslint|prettier|black|ruff|prisma|sequelize|alembic|heroku|vercel|aws|gcloud|az)$/i;

/** What a negative rule forbids, as applies_to globs: a command (`*(yarn*)`) or a path (`*(*migrations*)`). */
export function forbiddenGlobs(sentence: string): string[] {
  const negative = /\b(?:never|don'?t|do not|avoid|stop|no more|instead of|rather than|not)\b/i;
  if (!negative.test(sentence)) return [];
  const globs = new Set<string>();
  // What follows the negative word (or "instead of X"): the forbidden part of the sentence.
  const after =
    /\b(?:never|don'?t|do not|avoid|stop|no more)\s+(?:ever\s+)?(?:(use|run|call|invoke|using|running|type|touch|edit|modify|change|delete|remove|commit to|push to|force[- ]push(?: to)?|write to)\s+)?(.+)$/i.exec(
      sentence,
    );
  const instead = /\b(?:instead of|rather than|not)\s+(`[^`]+`|[\w.-]+)/i.exec(sentence);
  const target = after?.[2] ?? '';
  const verb = (after?.[1] ?? '').toLowerCase();
  const pieces: string[] = [];
  const ticked = /`([^`]+)`/.exec(target);
  if (ticked) pieces.push(ticked[1]!.trim());
  else if (target)
    pieces.push(
      target
        .split(/[,;:]|\s+(?:and|or|but|here|there|in|on|for|because|unless|always|ever|again)\b/i)[0]!
        .trim(),
    );
  if (instead) pieces.push(instead[1]!.replace(/`/g, '').trim());
  for (const piece of pieces) {
    const words = piece
      .replace(/^(?:the|a|an|any|our|my)\s+/i, '')
      .split(/\s+/)
      .filter(Boolean);
    if (words.length === 0) continue;
    const head = words[0]!.replace(/[^\w./-]/g, '');
    if (KNOWN_COMMANDS.test(head)) {
      // "git push --force": a command and its first arguments, as typed.
      const command = words
        .slice(0, 3)
        .filter((w, i) => i === 0 || /^[-\w.:/=]+$/.test(w))
        .join(' ')
        .replace(/[^\w\s./:=-]/g, '');
      const cut = command.split(/\s+(?:here|there|in|on|for|with|anymore|again|ever)$/i)[0]!;
      globs.add(`*(${cut}*)`);
    } else if (/^(?:touch|edit|modify|change|delete|remove|write to)$/.test(verb)) {
      // A thing not to touch: a path or a name (the migrations, `db/schema.rb`).
      const name = head.replace(/^[./]+|[./]+$/g, '');
      if (name.length >= 4 && !/^(it|this|that|them|anything|those|these|files?|code)$/i.test(name))
        globs.add(`*(*${name}*)`);
    }
  }
  return [...globs];
}

/** A title from the rule's first words: "Never use yarn here". */
function titleOf(sentence: string): string {
  const clause = sentence
    .replace(/[`*_"]/g, '')
    .replace(new RegExp(LEAD, 'i'), '')
    .split(/[,;:]\s|\s[-—]\s/)[0]!;
  const title = clause
    .split(/\s+/)
    .slice(0, 8)
    .join(' ')
    .replace(/[,;:.!]+$/, '');
  return title.charAt(0).toUpperCase() + title.slice(1);
}

/** The instructions in what the user said, oldest first, one candidate per sentence. */
export function findInstructions(said: readonly Said[]): Candidate[] {
  const out: Candidate[] = [];
  for (const turn of said) {
    if (turn.role !== 'user') continue;
    for (const sentence of sentences(spokenText(turn.text))) {
      if (sentence.length < 12 || sentence.length > 400) continue;
      if (/\?\s*$/.test(sentence) || /\[redacted:/i.test(sentence)) continue;
      const rule = RULES.find((r) => r.re.test(sentence));
      if (!rule || NOT_RULES.test(sentence)) continue;
      // A correction is kept only when it says what to do instead ("no, use pnpm").
      if (
        rule.kind === 'correction' &&
        !/\b(?:use|we|it'?s|should|always|never|run|is|are)\b/i.test(sentence)
      )
        continue;
      const appliesTo = forbiddenGlobs(sentence);
      const line = clipLine(sentence, 300);
      out.push({
        kind: 'instruction',
        type: ABOUT_ME.test(sentence) ? 'user' : 'feedback',
        name: clipLine(titleOf(sentence), 80),
        description: clipLine(sentence, 160),
        content: `${line}\n\n(The user's ${rule.kind === 'rule' ? 'instruction' : rule.kind}, in their words.)`,
        ...(appliesTo.length > 0 ? { applies_to: appliesTo } : {}),
        evidence: [evidenceOf(turn.line, sentence)],
      });
    }
  }
  return out;
}
