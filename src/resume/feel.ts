/**
 * The seed's "Testing the feel", made checkable without a model: does the first reply of a
 * resumed session read like resuming or like reading a briefing? A lexical HEURISTIC for English
 * replies: it finds the signs the seed lists by words and phrases, not by meaning, so it can be
 * fooled both ways. Use it to compare renderings or spot regressions over real first replies,
 * not as a verdict on one reply.
 */
import { STOP_WORDS, stem, tokenize } from '../core/index.js';
import { cutFront } from './self-state.js';

/** The seed's good signs. */
export type GoodFeelSign =
  /** "First response references something from the stream tail." */
  | 'picks_up_tail'
  /** "Agent uses language from anchors naturally" (outside quotation marks). */
  | 'owns_anchor_language'
  /** "Less 'how can I help you?' and more 'where were we?'" */
  | 'where_were_we';

/** The seed's bad signs. */
export type BadFeelSign =
  /** "Agent summarizes the resumption context back to user": briefing vocabulary. */
  | 'summarizes_back'
  /** The same bad sign in its literal form: a long verbatim run of the tail repeated. */
  | 'recites_tail'
  /** "Anchors feel like quotes, not owned thoughts": an anchor inside quotation marks. */
  | 'quotes_anchors'
  /** "Response feels like a new session": a generic opener. */
  | 'fresh_start';

export interface FeelSign<S extends string = GoodFeelSign | BadFeelSign> {
  sign: S;
  /** The words in the reply that showed it. */
  evidence: string;
}

export interface FeelAssessment {
  /** `resumed`: good signs only; `not_resumed`: no good sign; `mixed`: both. */
  verdict: 'resumed' | 'mixed' | 'not_resumed';
  good: FeelSign<GoodFeelSign>[];
  bad: FeelSign<BadFeelSign>[];
}

/** What the session woke up with: a `self-state.json`, or the packet's `resumption` value. */
export interface WokeWith {
  stream_tail: string;
  anchors: readonly { text: string }[];
}

/** The newest part of the tail that counts (about what a ~300-token budget injects). */
const TAIL_CHARS = 1200;
/** A verbatim run of this many tail words in the reply is recitation, not continuation. */
const RECITE_WORDS = 12;

const CONTINUING = [
  /\bwhere (?:were|was) we\b/i,
  /\bpick(?:ing|s)? (?:it |this |that |things )?(?:back )?up\b/i,
  /\bwhere (?:I|we) left (?:it|off)\b/i,
  /\bas I was saying\b/i,
  /\b(?:back to|returning to|continuing(?: with)?|to continue)\b/i,
  /\bwhere (?:it|that|this|I) stopped\b/i,
  /^\s*(?:so|right|okay|ok|now)\b\s*[,—–-]/i,
];
const BRIEFING = [
  /\b(?:summary|summari[sz](?:e|ing)|recap)\b/i,
  /\b(?:previous|last|prior|earlier) (?:session|conversation)\b/i,
  /\b(?:resumption|stream tail)\b/i,
  /\b(?:my|the|these|those|your) anchors\b/i,
  /\b(?:according to|based on) (?:my|the|your) (?:notes|context|state|memory)\b/i,
  /\b(?:I|you) (?:was|were) interrupted\b/i,
  /\bhere'?s where (?:I|you|we) (?:was|were)\b/i,
  /\b(?:it (?:looks|seems) like|I see (?:that )?)(?:I|we) (?:was|were)\b/i,
];
const GENERIC_OPENERS = [
  /\bhow (?:can|may|could) I (?:help|assist)\b/i,
  /\bwhat (?:would|do) you (?:like|want) (?:me )?to (?:do|work on)\b/i,
  /\bwhat can I (?:do|help)\b/i,
  /\b(?:I'?m|I am) (?:here|ready) to help\b/i,
  /\bwhat (?:are|shall|should) we (?:be )?(?:working on|work on|doing)\b/i,
  /\blet me know (?:what|how) (?:you'?d like|I can)\b/i,
  /\b(?:a|this) (?:new|fresh) (?:session|conversation)\b/i,
  /^\s*(?:hi|hello|hey)(?: there)?\s*[!,.]/i,
];
/** Conversational filler that says nothing about the topic, on top of the shared stop words. */
const FILLER = new Set(
  'much other first next still really going want need know think like make made sure thing things something'.split(
    ' ',
  ),
);

/**
 * Scores a first reply against what the session woke up with and returns the signs found, each
 * with its evidence. Deterministic and cheap; see the module comment for what it cannot know.
 */
export function assessResumptionFeel(firstReply: string, woke: WokeWith): FeelAssessment {
  const { quoted, unquoted } = splitQuotes(firstReply);
  const replyWords = words(unquoted);
  const good: FeelSign<GoodFeelSign>[] = [];
  const bad: FeelSign<BadFeelSign>[] = [];

  const tail = cutFront(woke.stream_tail, TAIL_CHARS);
  const tailStems = new Map(
    words(tail)
      .filter(isContent)
      .map((w) => [stem(w), w]),
  );
  const shared = [...new Set(replyWords.filter(isContent).map(stem))].filter((s) => tailStems.has(s));
  if (tailStems.size > 0 && shared.length >= Math.min(2, tailStems.size)) {
    good.push({
      sign: 'picks_up_tail',
      evidence: shared
        .slice(0, 6)
        .map((s) => tailStems.get(s))
        .join(', '),
    });
  }
  const owned = woke.anchors.map((a) => sharedRun(words(a.text), replyWords, 2)).find((run) => run !== null);
  if (owned) good.push({ sign: 'owns_anchor_language', evidence: owned });
  const opener = firstMatch(CONTINUING, firstReply.slice(0, 400));
  if (opener) good.push({ sign: 'where_were_we', evidence: opener });

  const briefing = firstMatch(BRIEFING, unquoted);
  if (briefing) bad.push({ sign: 'summarizes_back', evidence: briefing });
  const tailWords = words(tail);
  if (tailWords.length >= 6) {
    const recited = sharedRun(tailWords, words(firstReply), Math.min(RECITE_WORDS, tailWords.length));
    if (recited) bad.push({ sign: 'recites_tail', evidence: recited });
  }
  const quotedWords = quoted.map(words);
  for (const anchor of woke.anchors) {
    const anchorWords = words(anchor.text);
    if (anchorWords.length < 2) continue;
    const run = quotedWords
      .map((q) => sharedRun(anchorWords, q, Math.min(3, anchorWords.length)))
      .find((r) => r !== null);
    if (run) {
      bad.push({ sign: 'quotes_anchors', evidence: run });
      break;
    }
  }
  const generic = firstMatch(GENERIC_OPENERS, firstReply);
  if (generic) bad.push({ sign: 'fresh_start', evidence: generic });

  const verdict = good.length === 0 ? 'not_resumed' : bad.length === 0 ? 'resumed' : 'mixed';
  return { verdict, good, bad };
}

/** Text inside "…", “…” and > blockquotes, and the rest. */
function splitQuotes(text: string): { quoted: string[]; unquoted: string } {
  const quoted: string[] = [];
  const unquoted = text
    .replace(/^\s*>.*$/gm, (line) => {
      quoted.push(line);
      return ' ';
    })
    .replace(/"[^"\n]{3,}"|“[^”\n]{3,}”/g, (span) => {
      quoted.push(span);
      return ' … ';
    });
  return { quoted, unquoted };
}

/** Lower-case word tokens, as recall makes them ("alex's" -> "alex"; typographic apostrophes too). */
function words(text: string): string[] {
  return tokenize(text.replace(/’/g, "'"));
}

function isContent(word: string): boolean {
  return word.length >= 4 && !STOP_WORDS.has(word) && !FILLER.has(word);
}

/**
 * The first run of at least `min` consecutive words of `source` that also appears, in order, in
 * `target`; a two-word run counts only when both are content words (not "of the").
 */
function sharedRun(source: string[], target: string[], min: number): string | null {
  if (source.length < min || target.length < min) return null;
  const haystack = ` ${target.join(' ')} `;
  for (let i = 0; i + min <= source.length; i++) {
    const run = source.slice(i, i + min);
    if (min === 2 && !run.every(isContent)) continue;
    if (haystack.includes(` ${run.join(' ')} `)) return run.join(' ');
  }
  return null;
}

function firstMatch(patterns: readonly RegExp[], text: string): string | null {
  for (const pattern of patterns) {
    const match = pattern.exec(text);
    if (match) return match[0].trim();
  }
  return null;
}
