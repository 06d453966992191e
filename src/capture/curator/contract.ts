/**
 * The curator's contract, written for any model (or a `command` substrate) to answer: what it
 * is sent (the session's words and shell calls, redacted first, and stage 1's candidates) and
 * the one fenced JSON block it answers with. docs/capture.md quotes it.
 */
import * as z from 'zod';
import { type Conversation, commandOf } from '../conversation.js';
import type { Candidate } from '../extract/candidate.js';

export const CURATOR_SYSTEM = [
  'You are the memory curator of a coding agent. You read one finished session and decide what, if anything, is worth remembering for the next sessions in this project.',
  "Keep only what will still be true and useful later: the user's standing instructions, corrections and preferences; a command that must run before another; a decision and why. Drop anything about this one moment, chatter, guesses, and anything already obvious from the code.",
  'Every memory must quote its evidence: the words of the session it comes from, copied exactly, as "L<line> <words>" items. A memory without evidence from the session is dropped.',
  'Answer with exactly one fenced JSON block and nothing else:',
  '```json',
  '{"memories": [{"type": "feedback", "name": "Never use yarn", "description": "one line", "content": "the memory, a few sentences", "applies_to": ["*(yarn*)"], "evidence": ["L12 Never use yarn in this repo"]}], "digest": "one paragraph: what was decided and what is left open"}',
  '```',
  'type is one of feedback (how to act), caution (a trap to avoid), project (a fact about the project), user (about the person), reference (where to find something). applies_to (optional) lists tool-call globs a caution should fire on, like "*(yarn*)" or "Bash(git push*)". An empty list of memories is a good answer when the session taught nothing lasting. At most 5 memories.',
].join('\n');

/** What the curator is sent of the session: each said line and shell call, with its line. */
export function sessionLines(conversation: Conversation, since: number): string[] {
  const out: { line: number; text: string }[] = [];
  for (const s of conversation.said)
    if (s.line > since) out.push({ line: s.line, text: `${s.role}: ${flat(withoutPrivate(s.text), 1200)}` });
  for (const c of conversation.calls) {
    if (c.line <= since) continue;
    const command = commandOf(c);
    const what = command !== null ? `$ ${flat(command, 300)}` : `${c.name}`;
    const how = c.outcome === null ? '' : c.outcome.ok ? ' → ok' : ` → FAILED: ${flat(c.outcome.text, 300)}`;
    out.push({ line: c.line, text: `tool: ${what}${how}` });
  }
  return out.sort((a, b) => a.line - b.line).map((l) => `L${l.line} ${l.text}`);
}

/** The user message: the session, then stage 1's candidates. */
export function curatorPrompt(lines: readonly string[], candidates: readonly Candidate[]): string {
  const proposed = candidates.map(({ type, name, description, applies_to, evidence }) => ({
    type,
    name,
    description,
    ...(applies_to ? { applies_to } : {}),
    evidence,
  }));
  return [
    'The session (redacted; L<n> is the transcript line):',
    '',
    ...lines,
    '',
    'What the rule-based first pass proposes (keep, improve, merge or drop each):',
    '',
    JSON.stringify(proposed, null, 1),
  ].join('\n');
}

const memorySchema = z.object({
  type: z.enum(['feedback', 'caution', 'project', 'user', 'reference']),
  name: z.string().trim().min(3).max(120),
  description: z.string().trim().min(1).max(300),
  content: z.string().trim().min(1).max(2000),
  applies_to: z.array(z.string().min(1).max(200)).max(8).optional(),
  evidence: z.array(z.string().min(1).max(600)).max(8).optional(),
});

export const curatorAnswerSchema = z.object({
  memories: z.array(memorySchema).max(20),
  digest: z.string().max(4000).optional().nullable(),
});

export type CuratorAnswer = z.infer<typeof curatorAnswerSchema>;

/** The answer's one fenced JSON block (or a bare JSON object), checked; a string says what is wrong. */
export function parseCuratorAnswer(text: string): CuratorAnswer | string {
  const fenced = [...text.matchAll(/```(?:json)?\s*\n([\s\S]*?)```/g)].map((m) => m[1]!);
  const body = fenced.length > 0 ? fenced[0]! : text.trim();
  if (fenced.length > 1) return 'the answer holds more than one fenced block';
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    return 'the answer is not one fenced JSON block';
  }
  const checked = curatorAnswerSchema.safeParse(parsed);
  if (checked.success) return checked.data;
  const issue = checked.error.issues[0]!;
  return `the answer's ${issue.path.join('.') || 'JSON'}: ${issue.message}`;
}

function withoutPrivate(text: string): string {
  return text.replace(/<private>[\s\S]*?(?:<\/private>|$)/gi, '[private]');
}

function flat(text: string, max: number): string {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length <= max ? line : `${line.slice(0, max - 1)}…`;
}
