import type { GuidanceDoc } from './docs.js';
import type { TaskspaceRead } from './taskspace-store.js';

/** The boot prompt's name, and the other names it answers to. */
export const BOOT_PROMPT_NAME = 'yiasou';
export const BOOT_PROMPT_ALIASES = ['hi'] as const;

export interface BootPromptInput {
  docs: readonly GuidanceDoc[];
  /** The taskspace store as read; null when there is no project to read it from. */
  taskspace: TaskspaceRead | null;
  /** Who the agent works with this session (a name), if the caller said. */
  collaborator?: string | undefined;
}

/**
 * Assembles the `yiasou` text: greeting, every guidance doc INLINE with its directive, then the
 * taskspace block. Symposium learned that agents do not reliably load resources they are told
 * to load, so nothing here says "load X": the text is all there. Pure: the same input gives the
 * same text, so the prompt and `expand_reference("yiasou")` agree byte for byte.
 */
export function assembleBootPrompt(input: BootPromptInput): string {
  const sections = [greeting(input), ...input.docs.map(docSection), taskSection(input.taskspace)];
  return `${sections.join('\n\n')}\n`;
}

function greeting(input: BootPromptInput): string {
  const who = input.collaborator?.trim();
  const lines = [
    '# Hi, welcome!',
    '',
    who
      ? `You are starting a new session, working with ${who}. This is your boot sequence.`
      : 'You are starting a new session. This is your boot sequence.',
    '',
    'If you have not yet called `bootstrap_session()` on the firstlight MCP server in this session, call it first: it carries who you are, what you remember, and where you left off.',
    '',
    'If you meet ambiguous instructions, ask questions and seek clarification before proceeding, particularly before side-effectful or dangerous actions (deleting content, force-pushing, interacting with remote systems).',
  ];
  if (input.docs.length > 0) {
    lines.push(
      '',
      `Below are ${input.docs.length} guidance document${input.docs.length === 1 ? '' : 's'}, inlined in full: there is nothing else to load. Each comes with a directive saying how to hold it while we work.`,
    );
  }
  return lines.join('\n');
}

function docSection(doc: GuidanceDoc): string {
  return [
    `## ${doc.title}`,
    '',
    `<guidance name="${doc.name}" uri="${doc.uri}">`,
    `<directive>${escapeText(doc.directive)}</directive>`,
    '<context>',
    neutraliseClosingTags(doc.body, ['context', 'guidance']),
    '</context>',
    '</guidance>',
  ].join('\n');
}

function taskSection(read: TaskspaceRead | null): string {
  if (read?.status === 'ok') {
    const t = read.taskspace;
    const block = [
      '<taskspace_context>',
      `<name>${escapeText(t.name)}</name>`,
      `<description>${escapeText(t.description)}</description>`,
      ...(t.initial_prompt
        ? [
            '<initial_task>',
            neutraliseClosingTags(t.initial_prompt, ['initial_task', 'taskspace_context']),
            '</initial_task>',
          ]
        : []),
      '</taskspace_context>',
    ].join('\n');
    const next = t.initial_prompt
      ? 'The initial task above is why this session exists. Ask clarifying questions if anything is unclear, then begin. Once you understand the task, call `update_taskspace(name, description)` to give this taskspace a short name and a one-line description; that also retires the initial task, so later sessions resume rather than restart.'
      : 'The initial task of this taskspace was already taken up in an earlier session. Continue the work from where it stands; if you cannot tell what comes next, ask the user. Keep the name and description current with `update_taskspace(name, description)`.';
    return ['## Taskspace', '', block, '', next].join('\n');
  }
  const lines = [
    '## Task',
    '',
    'No task has been recorded for this session. Ask the user what they would like to work on; once you know, call `update_taskspace(name, description)` to record a short name and a one-line description.',
  ];
  if (read?.status === 'unreadable') {
    lines.push(
      '',
      `(The taskspace store ${read.file} could not be read: ${read.problem}. Tell the user, so they can fix or delete it.)`,
    );
  }
  return lines.join('\n');
}

/**
 * Short values (a name, a description, a directive) as XML text: `&`, `<` and `>` become
 * entities, so a value like `</name>` cannot close the tag around it or open a new one.
 */
function escapeText(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/**
 * Free text (a doc body, the initial task) is markdown that may rightly hold `<tags>` and `&&`,
 * so it stays as written except for a closing tag of the block around it, whose `<` is escaped.
 */
function neutraliseClosingTags(text: string, tags: readonly string[]): string {
  const closing = new RegExp(`<(\\s*/\\s*(?:${tags.join('|')})\\s*>)`, 'gi');
  return text.replace(closing, '&lt;$1');
}
