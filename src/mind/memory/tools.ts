import { join } from 'node:path';
import * as z from 'zod';
import { defineTool, READ_ONLY, type Tool, WRITES_ADDITIVE } from '../../core/index.js';
import type { Mind } from '../mind.js';
import { recordMemoryUse } from '../observation/index.js';
import { parseTimeBound } from './dates.js';
import { homeEventsPaths, MAX_K, RECALL_INDEX_FILE, RECALL_SOURCES, RecallIndex } from './recall-index.js';
import { type RememberInput, type RememberResult, remember } from './remember.js';
import { forgetMemory, restoreMemory } from './trash.js';
import { MEMORY_TYPES } from './types.js';

/**
 * A recall index over a mind's memory, saved under its cache. The caller owns it: one per process
 * (all tool handlers and connections share it), closed on shutdown, which saves what it learnt.
 * Never built by bootstrap: the packet needs counts, not a search index.
 */
export function openRecallIndex(mind: Mind): RecallIndex {
  return new RecallIndex(mind.memory, {
    cacheFile: join(mind.paths.cache, RECALL_INDEX_FILE),
    events: homeEventsPaths(mind.home),
  });
}

/** What `remember` and `recall` work on: the mind, and its recall index (opened on first use). */
export interface MemoryToolDeps {
  mind: Mind;
  recall: () => RecallIndex;
}

const hitSchema = z.object({
  name: z.string(),
  type: z.string(),
  score: z.number(),
  excerpt: z.string(),
  file: z.string(),
  match: z.number(),
  project: z.string().nullable(),
  source: z.enum(['memory', 'events']).optional(),
  session: z.string().nullable().optional(),
  host: z.string().nullable().optional(),
  time: z.string().optional(),
  event: z.string().nullable().optional(),
});

/**
 * `remember` as the mind server and the CLI run it: in the mind's project (unless the memory
 * is global), through the home's redactor, answering with the similar memories the recall
 * index finds (listed, never merged).
 */
export function rememberIn({ mind, recall }: MemoryToolDeps, input: RememberInput): Promise<RememberResult> {
  return remember(mind.home, input, {
    now: mind.clock(),
    store: mind.memory,
    project: () => {
      const project = mind.project({ create: true });
      return project ? { id: project.id, name: project.name } : null;
    },
    similar: (text, exclude) => recall().similar(text, { exclude, scope: mind.memoryScope() }),
  });
}
export const recallHitSchema = hitSchema;

/** `remember`, `recall`, `forget_memory` and `restore_memory`. */
export function memoryTools({ mind, recall }: MemoryToolDeps): Tool[] {
  const rememberTool = defineTool({
    name: 'remember',
    title: 'Remember',
    description: `Store something that should outlive this session as one memory file (markdown + frontmatter) and one MEMORY.md index line. type: one of ${MEMORY_TYPES.join(' | ')}, or custom:NAME for another kind. Give applies_to tool-name globs on feedback/caution memories so observe() raises them before those tools. An existing name is refused unless replace is true. The answer lists similar existing memories (name, file, 0-1 score): nothing is merged; read them and forget or replace one if it was a duplicate. Secrets and <private> blocks are redacted before writing. Inside a project the memory belongs to it unless scope is "global".`,
    input: {
      content: z.string().min(1).describe('The memory itself, markdown.'),
      type: z
        .string()
        .min(1)
        .max(40)
        .describe(`Memory type: ${MEMORY_TYPES.join(', ')}; or custom:NAME (e.g. custom:recipe).`),
      name: z
        .string()
        .max(200)
        .optional()
        .describe('A short title (a few words); defaults to one made from the first line of content.'),
      description: z.string().max(500).optional().describe('One-line hook; defaults to the first sentence.'),
      tags: z.array(z.string().max(80)).max(32).optional(),
      applies_to: z
        .array(z.string().max(200))
        .max(32)
        .optional()
        .describe(
          'Tool-name globs this memory should caution, e.g. ["Bash", "git_push*"]; an argument glob in parentheses narrows one, e.g. "Bash(git push*)".',
        ),
      on_match: z
        .enum(['warn', 'ask', 'deny'])
        .optional()
        .describe(
          "What the host's PreToolUse hook does when applies_to matches a call: warn (the default: the memory as context), ask (the user confirms), deny (the call is refused with the memory's text).",
        ),
      repeat: z.boolean().optional().describe('Warn at every matching call, not once per session.'),
      replace: z.boolean().optional().describe('Overwrite an existing memory of the same name.'),
      scope: z
        .enum(['project', 'global'])
        .optional()
        .describe(
          'project (the default inside a project): only sessions in this project recall it; global: every project does (use it for facts about the user and preferences that hold everywhere; type user is global by default).',
        ),
    },
    output: {
      name: z.string(),
      type: z.string(),
      file: z.string(),
      replaced: z.boolean(),
      index_line: z.string(),
      project: z.object({ id: z.string(), name: z.string() }).nullable(),
      similar: z.array(z.object({ name: z.string(), file: z.string(), score: z.number() })),
      redacted: z.record(z.string(), z.number()).optional(),
    },
    // replace: true overwrites a memory, so the tool is truthfully marked destructive.
    annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false },
    handler: async (args) => rememberIn({ mind, recall }, args),
  });

  const recallTool = defineTool({
    name: 'recall',
    title: 'Recall memories',
    description:
      'Search memory (BM25 over name, description, tags and body): this project\'s memories and the global ones (all_projects: true for every project\'s). Returns the k best {name, type, score, excerpt, file, match, project}; match is the share of your query terms the memory contains. facet "key:value" filters by a frontmatter field or tag (type:feedback, relationship:bob, tag:portal). Read a whole memory with read_memory_file(file). source "events" searches what past sessions did instead (every observed tool call with its outcome, observe/reflect, cautions that fired; each hit names its session, host and time; facets type:, tool:, host:, session:), "all" both. since/until ("7d", "2026-11-20") keep what is about that time; a time phrase in the query ("early October") does too.',
    input: {
      query: z.string().min(1).max(2000).describe('What you are looking for, in words.'),
      k: z.number().int().min(1).max(MAX_K).optional().describe('How many results (default 5).'),
      facet: z.string().max(200).optional().describe('key:value filter, e.g. type:feedback or tag:portal.'),
      all_projects: z
        .boolean()
        .optional()
        .describe("Search every project's memories, not only this project's and the global ones."),
      source: z
        .enum(RECALL_SOURCES)
        .optional()
        .describe('memory (the default), events (what past sessions did), or all.'),
      since: z
        .string()
        .max(40)
        .optional()
        .describe('Only what is about this time or later: 30m, 2h, 7d, 1w back from now, or an ISO date.'),
      until: z.string().max(40).optional().describe('Only what is about this time or earlier (as since).'),
    },
    output: {
      query: z.string(),
      results: z.array(hitSchema),
      skipped: z.array(z.object({ file: z.string(), problem: z.string() })),
      indexed: z.number(),
      events_indexed: z.number().optional(),
    },
    annotations: READ_ONLY,
    handler: async ({ query, k, facet, all_projects, source, since, until }) => {
      const now = mind.clock();
      const found = recall().recall(query, {
        k: k ?? 5,
        ...(facet ? { facet } : {}),
        scope: all_projects ? 'all' : mind.memoryScope(),
        ...(source ? { source } : {}),
        ...(since ? { since: parseTimeBound(since, now, 'since') } : {}),
        ...(until ? { until: parseTimeBound(until, now, 'until') } : {}),
      });
      const files = found.results.filter((r) => r.source !== 'events').map((r) => r.file);
      // After the answer: a memory's history says when recall handed it to the agent.
      mind.writeSoon('log the recall', async () =>
        recordMemoryUse(mind.home, { via: 'recall', files, query }, mind.clock()),
      );
      return found;
    },
  });

  const forgetTool = defineTool({
    name: 'forget_memory',
    title: 'Forget a memory',
    description:
      'Forget one memory (by its name or file name): its file moves to memory/.trash/ and its MEMORY.md line is removed, so recall stops finding it. Reversible with restore_memory(name). Use it for a memory that is wrong or no longer wanted; for a fact that changed, remember the new one with replace: true.',
    input: {
      name: z
        .string()
        .min(1)
        .max(300)
        .describe('The memory name or file name, as list_memory_files shows it.'),
    },
    output: {
      name: z.string(),
      type: z.string(),
      file: z.string(),
      trashed_as: z.string(),
      index_line_removed: z.boolean(),
    },
    // It removes a memory from what recall and the packet see (restorable, but still a removal).
    annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false },
    handler: async ({ name }) => forgetMemory(mind.home, name, { now: mind.clock(), store: mind.memory }),
  });

  const restoreTool = defineTool({
    name: 'restore_memory',
    title: 'Restore a forgotten memory',
    description:
      'Undo forget_memory: puts the memory back byte for byte and re-adds its MEMORY.md line. Refused when a memory now holds its name.',
    input: {
      name: z.string().min(1).max(300).describe('The forgotten memory name or file name.'),
    },
    output: { name: z.string(), type: z.string(), file: z.string(), index_line_restored: z.boolean() },
    annotations: WRITES_ADDITIVE,
    handler: async ({ name }) => restoreMemory(mind.home, name, { store: mind.memory }),
  });

  return [rememberTool, recallTool, forgetTool, restoreTool];
}
