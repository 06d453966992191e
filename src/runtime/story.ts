import type { JournalEntry } from './journal.js';
import { article } from './policy.js';

/**
 * The journal told as a story: one sentence per entry, in order, for people (`firstlight
 * runtime demo` prints it). Rows the runtime did not write keep their own title.
 */
export function journalStory(entries: readonly JournalEntry[]): string[] {
  return entries.map((entry) => `${(entry.at ?? '').slice(11, 19)}  ${sentence(entry)}`);
}

function sentence(entry: JournalEntry): string {
  const f = entry.fields;
  const who = f.role ? `${f.persona ?? 'a persona'} as ${f.role}` : 'the session';
  const hash = (sha?: string) => (sha ? ` (sha256 ${sha.slice(0, 12)}…)` : '');
  switch (entry.kind) {
    case 'session_start':
      return `${who} starts${f.mode && f.mode !== 'none' ? ` in ${f.mode}` : ''}, session ${entry.session}${f.handoffs ? `, reading ${f.handoffs}` : ', from the task alone'}.`;
    case 'import':
      return `It imports ${article(f.kind ?? 'handoff')} handoff ${f.handoff} from ${f.source ?? 'a file'}${hash(f.sha256)}.`;
    case 'acknowledgement':
      return `It acknowledges: "${f.acknowledgement ?? ''}".`;
    case 'override_start':
      return `The operator collapses modes: "${f.reason ?? ''}"; accepted risks: ${f.acknowledged_risks ?? 'none named'}.`;
    case 'transition': {
      const to = /→ (\w+)/.exec(entry.title)?.[1] ?? 'the next mode';
      const kind = f.handoff?.replace(/-[0-9a-f]+$/, '') ?? 'a';
      return `${who} hands ${article(kind)} handoff, ${f.handoff}, on to ${to}${hash(f.sha256)}${f.override_lineage ? `; override lineage ${f.override_lineage}` : ''}.`;
    }
    case 'denial':
      return `${f.tool} is refused to ${who} (${f.reason}).`;
    case 'refusal':
      return `The runtime refuses ${who}: ${f.reason} (${f.detail ?? ''}).`;
    case 'handoff_insufficient':
      return `${who} cannot proceed on ${f.handoffs || 'its input'}: ${f.missing ?? ''}; it proposes to "${f.proposed_resolution}".`;
    case 'turn_yielded':
      return `It asks the caller: ${f.question ?? ''}`;
    case 'session_end':
      return `${who} ends ${f.status ?? ''}${f.failure ? ` (${f.failure})` : ''}${f.flags ? `, flags ${f.flags}` : ''}.`;
    case 'override_end':
      return `The override ends; tool calls made: ${f.tool_calls ?? 'none'}; denied: ${f.denied ?? 'none'}.`;
    default:
      return `${entry.typeName}: ${entry.title}`;
  }
}
