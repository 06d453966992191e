/**
 * Decisions and open ends the agent states in its final message → the session's digest (a
 * `session_digest` memory) and the open ends as carry-forward bullets for the next packet.
 * Only sentences that say so ("decided", "went with", "still need", "next:", "TODO") count;
 * the rest of the message (what was done, pleasantries) is left to the resumption tail.
 */
import type { Said } from '../conversation.js';
import { clipLine, evidenceOf } from './candidate.js';

export interface Digest {
  decisions: string[];
  open: string[];
  evidence: string[];
}

const DECISION =
  /\b(?:decided|decision|chose|chosen|went with|going with|settled on|opted (?:for|to)|we(?:'ll| will) (?:use|keep|go with)|picked)\b/i;
const OPEN =
  /\b(?:todo|to-do|next step|next steps|still (?:need|needs|to do|have to|open|failing|missing)|remaining|left to do|not yet|open question|follow[- ]up|blocked on|pending|didn'?t get to|haven'?t (?:yet|done|started|fixed)|needs? (?:a )?(?:review|decision|follow))\b/i;
const HEADING_OPEN =
  /^(?:#+\s*)?(?:next steps?|open (?:ends|questions|items)|todo|remaining|follow[- ]ups?)\s*:?\s*$/i;
const HEADING_DECISIONS = /^(?:#+\s*)?(?:decisions?|decided)\s*:?\s*$/i;

/** The final assistant message's decisions and open ends (null when it states neither). */
export function findDigest(said: readonly Said[]): Digest | null {
  const last = [...said].reverse().find((s) => s.role === 'assistant');
  if (!last) return null;
  const decisions: string[] = [];
  const open: string[] = [];
  let section: 'open' | 'decisions' | null = null;
  for (const raw of last.text.split('\n')) {
    const line = raw.trim();
    if (line === '') continue;
    if (HEADING_OPEN.test(line.replace(/[*_]/g, ''))) {
      section = 'open';
      continue;
    }
    if (HEADING_DECISIONS.test(line.replace(/[*_]/g, ''))) {
      section = 'decisions';
      continue;
    }
    const bullet = /^(?:[-*•]|\d+[.)]|\[ \])\s+(.*)$/.exec(line);
    if (bullet && section) {
      (section === 'open' ? open : decisions).push(clipLine(bullet[1]!, 200));
      continue;
    }
    if (!bullet) section = null;
    for (const sentence of line.split(/(?<=[.!?])\s+/)) {
      const text = sentence.replace(/^(?:[-*•]|\d+[.)])\s+/, '').trim();
      if (text.length < 12 || /\?\s*$/.test(text)) continue;
      if (OPEN.test(text)) open.push(clipLine(text, 200));
      else if (DECISION.test(text)) decisions.push(clipLine(text, 200));
    }
  }
  if (decisions.length === 0 && open.length === 0) return null;
  return {
    decisions: [...new Set(decisions)].slice(0, 6),
    open: [...new Set(open)].slice(0, 6),
    evidence: [evidenceOf(last.line, [...decisions, ...open][0]!)],
  };
}
