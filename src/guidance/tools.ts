import * as z from 'zod';
import { defineTool, READ_ONLY, type Tool, UserError } from '../core/index.js';
import type { Guidance } from './guidance.js';
import { TASKSPACE_LIMITS } from './taskspace-store.js';

const taskspaceShape = z.object({
  id: z.string().nullable().describe('Stable id (task-…); null until the store is first written'),
  name: z.string(),
  description: z.string(),
  initial_prompt: z.string().nullable(),
});

/**
 * The guidance part's tools on the `firstlight` server. A tool is the one primitive every host
 * supports (Copilot CLI has no prompts or resources, Codex no prompts), so everything the prompt
 * and the resources carry is reachable here too.
 */
export function guidanceTools(guidance: Guidance): Tool[] {
  const getTaskspace = defineTool({
    name: 'get_taskspace',
    title: 'Get the taskspace',
    description:
      'The current taskspace: name, description, and initial_prompt (the task this taskspace was created for; null once taken up). status is ok, missing, empty or unreadable (with problem). With no taskspace, ask the user what to work on.',
    input: {},
    output: {
      status: z.enum(['ok', 'missing', 'empty', 'unreadable', 'no-project']),
      taskspace: taskspaceShape.nullable(),
      file: z.string().nullable(),
      problem: z.string().nullable(),
    },
    annotations: READ_ONLY,
    handler: async () => {
      const read = guidance.taskspace();
      if (!read) return { status: 'no-project' as const, taskspace: null, file: null, problem: null };
      return {
        status: read.status,
        taskspace: read.taskspace,
        file: read.file,
        problem: read.status === 'unreadable' ? read.problem : null,
      };
    },
  });

  const updateTaskspace = defineTool({
    name: 'update_taskspace',
    title: 'Update the taskspace',
    description:
      'Sets the taskspace name (a short title) and/or description (one line). Call it once you understand the initial task: the first update clears initial_prompt, so later sessions resume the work instead of restarting it. Creates the taskspace when there is none. With neither name nor description it only reads the taskspace (nothing changes).',
    input: {
      name: z
        .string()
        .min(1)
        .max(TASKSPACE_LIMITS.name)
        .optional()
        .describe('Short title, e.g. "Invoice retry queue".'),
      description: z
        .string()
        .min(1)
        .max(TASKSPACE_LIMITS.description)
        .optional()
        .describe('One line on what this taskspace is for.'),
    },
    output: {
      taskspace: taskspaceShape.nullable(),
      file: z.string().nullable(),
      created: z.boolean(),
      initial_prompt_cleared: z.boolean(),
      message: z.string(),
    },
    // Replaces name/description and retires the initial task: destructive, but the same call
    // twice leaves the same state.
    annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
    handler: async ({ name, description }) => {
      if (name === undefined && description === undefined) {
        // A read, as the taskspace state protocol defines a request with neither field.
        const read = guidance.taskspace();
        if (read?.status === 'unreadable') {
          throw new UserError(`taskspace store ${read.file} is unreadable: ${read.problem}`, {
            code: 'TASKSPACE_UNREADABLE',
            hint: `fix the JSON in ${read.file} or delete it`,
          });
        }
        return {
          taskspace: read?.taskspace ?? null,
          file: read?.file ?? null,
          created: false,
          initial_prompt_cleared: false,
          message: read?.taskspace
            ? 'Taskspace read (nothing to update).'
            : 'No taskspace yet (nothing to update).',
        };
      }
      const result = await guidance.writeTaskspace({ name, description, initial_prompt: null });
      const message = `Taskspace ${result.created ? 'created' : 'updated'}${result.initial_prompt_cleared ? ' (initial prompt cleared)' : ''}.`;
      return { ...result, message };
    },
  });

  const expandReference = defineTool({
    name: 'expand_reference',
    title: 'Expand a reference',
    description:
      'Returns the text behind a reference, for hosts without MCP prompts or resources: "yiasou" (or "hi") gives the assembled boot prompt (guidance inline or by reference, then the taskspace and its initial task); a guidance doc name (e.g. "coding-guidelines", or "main.md") gives that doc.',
    input: {
      ref: z.string().min(1).max(300).describe('"yiasou", "hi", or a guidance doc name.'),
      collaborator: z
        .string()
        .max(200)
        .optional()
        .describe('For yiasou: who you are working with, as the prompt argument of the same name.'),
    },
    output: {
      ref: z.string(),
      kind: z.enum(['boot-prompt', 'guidance']),
      uri: z.string().nullable(),
      text: z.string(),
    },
    annotations: READ_ONLY,
    handler: async ({ ref, collaborator }, extra) => guidance.expand(ref, collaborator, extra.client),
    // The text content is the expansion itself, identical to the prompt or resource text.
    text: (out) => out.text,
  });

  return [getTaskspace, updateTaskspace, expandReference];
}
