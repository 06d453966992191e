import * as z from 'zod';
import { defineTool, type Tool, WRITES_ADDITIVE } from '../../core/index.js';
import { recallHitSchema } from '../memory/tools.js';
import { type Cognition, REFLECT_KINDS } from './pipeline.js';

const flagSchema = z.object({
  name: z.string(),
  type: z.string(),
  reason: z.enum(['applies_to', 'ranked']),
  pattern: z.string().optional(),
  description: z.string(),
  file: z.string(),
});

const resultShape = {
  event_id: z.string(),
  relevant: z.array(recallHitSchema),
  cautionary_flags: z.array(flagSchema),
  prediction_error: z.number().nullable(),
  prediction_error_detail: z
    .object({
      value: z.number(),
      measure: z.string(),
      components: z.object({ lexical: z.number(), polarity: z.number(), numbers: z.number() }),
    })
    .nullable(),
  expectation_event_id: z.string().nullable(),
  skipped_memories: z.number(),
};

/**
 * `observe` and `reflect`: one pipeline, two doors. `cognition` yields the process's one
 * pipeline (pending expectations are shared by its connections), built on first use.
 */
export function cognitionTools(cognition: () => Cognition, connection: { sessionKey: string }): Tool[] {
  const observe = defineTool({
    name: 'observe',
    title: 'Observe a tool call',
    description:
      'Call before an external tool call with expected="what you think will happen", and after it with result=... . Returns cautionary_flags (feedback/caution memories for this tool: read them before acting), relevant memory excerpts, and prediction_error (0 = as expected, 1 = contradicted; null without an expectation). Above 0.7: stop and re-plan.',
    input: {
      tool_name: z.string().min(1).max(200).describe('The tool you are about to call or just called.'),
      args: z.record(z.string(), z.unknown()).optional().describe('Its arguments.'),
      result: z
        .unknown()
        .optional()
        .describe('After the call: what it returned (text or the result object).'),
      expected: z.string().max(4000).optional().describe('Before the call: what you expect it to return.'),
    },
    output: resultShape,
    annotations: WRITES_ADDITIVE,
    handler: async (args) => cognition().observe(args, connection.sessionKey),
  });

  const reflect = defineTool({
    name: 'reflect',
    title: 'Reflect',
    description:
      'Record what is not a tool call: user_said (feedback, direction changes, durable personal context), time_passed, ambient, internal; cite the observations it draws on by event id (cites). Returns relevant memory excerpts and cautionary_flags. Use remember() for what must outlive the session.',
    input: {
      observation: z.string().min(1).max(8000).describe('What happened or what you noticed, in words.'),
      kind: z.enum(REFLECT_KINDS).describe('user_said | time_passed | ambient | internal'),
      cites: z
        .array(z.string().regex(/^ev_[0-9a-z]+_[0-9a-f]+$/, 'an event id such as ev_mww34249_1a2b3c4d'))
        .max(20)
        .optional()
        .describe(
          'The observations this reflection draws on, by event id (observe returns event_id; the packet lists unreflected surprises with theirs). Cited surprises leave that list.',
        ),
    },
    output: resultShape,
    annotations: WRITES_ADDITIVE,
    handler: async (args) => cognition().reflect(args, connection.sessionKey),
  });

  return [observe, reflect];
}
