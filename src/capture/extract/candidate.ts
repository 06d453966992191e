/** What stage 1 (or the curator) proposes to keep: one memory, with the words it came from. */
export interface Candidate {
  /** Which rule found it: a user instruction, a failing command and its fix, the final message. */
  kind: 'instruction' | 'fix' | 'digest' | 'curator';
  type: string;
  name: string;
  description: string;
  content: string;
  applies_to?: string[];
  /** Where it came from, quoted verbatim: `transcript:L12 "never use yarn here"`. */
  evidence: string[];
}

/** A verbatim quote of a transcript line, clipped: the evidence a memory carries. */
export function evidenceOf(line: number, text: string, max = 240): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  const quoted = flat.length <= max ? flat : `${flat.slice(0, max - 1)}…`;
  return `transcript:L${line} ${JSON.stringify(quoted)}`;
}

/** One line of text, at most `max` characters. */
export function clipLine(text: string, max: number): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length <= max ? flat : `${flat.slice(0, max - 1).trimEnd()}…`;
}
