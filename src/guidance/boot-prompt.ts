import type { GuidanceDoc } from './docs.js';
import type { TaskspaceRead } from './taskspace-store.js';

/** The boot prompt's name, and the other names it answers to. */
export const BOOT_PROMPT_NAME = 'yiasou';
export const BOOT_PROMPT_ALIASES = ['hi'] as const;

/**
 * How the prompt carries the guidance: `inline` puts every doc in the text; `reference` names
 * each doc's resource and says how to load it (a resource read, or `expand_reference` where the
 * host cannot read resources).
 */
export type YiasouMode = 'inline' | 'reference';

/** The `guidance.yiasou` setting: a mode, or `auto` (decided per host). */
export type YiasouSetting = YiasouMode | 'auto';

/**
 * MCP client names (initialize's clientInfo.name) of hosts whose model can read MCP resources
 * itself: Claude Code (its list/read MCP resource tools) and Codex (`read_mcp_resource`).
 */
export const HOSTS_READING_RESOURCES: readonly string[] = ['Claude Code', 'codex-mcp-client'];

/** The mode for a client: `auto` gives `reference` to hosts that read resources, `inline` to the rest. */
export function yiasouModeFor(setting: YiasouSetting, client?: string): YiasouMode {
  if (setting !== 'auto') return setting;
  return client !== undefined && HOSTS_READING_RESOURCES.includes(client) ? 'reference' : 'inline';
}

export interface BootPromptInput {
  docs: readonly GuidanceDoc[];
  /** Default `inline`. */
  mode?: YiasouMode;
  /** The taskspace store as read; null when there is no project to read it from. */
  taskspace: TaskspaceRead | null;
  /** Who the agent works with this session (a name), if the caller said. */
  collaborator?: string | undefined;
}

/**
 * Assembles the `yiasou` text: greeting, every guidance doc with its directive, then the
 * taskspace block. Inline (the default), each doc's text is there: agents do not reliably load
 * resources they are told to load. By reference, each doc is named with how to load it, which
 * keeps the prompt small for hosts whose model reads resources. Pure: the same input gives the
 * same text, so the prompt and `expand_reference("yiasou")` agree byte for byte.
 */
export function assembleBootPrompt(input: BootPromptInput): string {
  const doc = input.mode === 'reference' ? docReference : docSection;
  const sections = [greeting(input), ...input.docs.map(doc), taskSection(input.taskspace)];
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
  const n = input.docs.length;
  if (n > 0 && input.mode === 'reference') {
    lines.push(
      '',
      `Below are ${n} guidance document${n === 1 ? '' : 's'} to load into your working context before you start, each with a directive saying how to hold it while we work.`,
    );
  } else if (n > 0) {
    lines.push(
      '',
      `Below are ${n} guidance document${n === 1 ? '' : 's'}, inlined in full: there is nothing else to load. Each comes with a directive saying how to hold it while we work.`,
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

function docReference(doc: GuidanceDoc): string {
  return [
    `## Load ${doc.title}`,
    '',
    `Load the resource \`${doc.uri}\` into your working context. If you cannot read MCP resources, call the tool \`expand_reference\` with \`{"ref": "${doc.name}"}\` instead: it returns the same text.`,
    '',
    `<directive>${escapeText(doc.directive)}</directive>`,
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
    // The seed's heading while the task is there to take up; after that, the taskspace it left.
    return [t.initial_prompt ? '## Initial Task' : '## Taskspace', '', block, '', next].join('\n');
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
