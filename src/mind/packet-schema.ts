import * as z from 'zod';
import { PACKET_SCHEMA_VERSION } from './packet-version.js';

/**
 * The bootstrap packet, schema v1. Required keys are the seed's plus firstlight's additions;
 * clients ignore unknown keys, so v1 may grow. Removing or renaming a required key, or
 * changing a type, needs schema_version 2 (docs/packet.md).
 */
export { PACKET_SCHEMA_VERSION };

export const resumptionSchema = z
  .looseObject({
    stream_tail: z.string().describe('The agent’s own last words, verbatim.'),
    anchors: z.array(z.looseObject({ text: z.string(), trigger: z.string() })),
    captured_at: z.string(),
    session_key: z.string(),
    source: z.string().optional().describe('What captured it: internalize, cli, stop, pre-compact.'),
    trimmed: z.boolean().optional().describe('The tail was cut from the front to fit the token budget.'),
  })
  .describe('What the agent was in the middle of, captured at the end of its last session.');

export const activeContextSchema = z.looseObject({
  session_id: z.string().nullable(),
  now: z.string(),
  open_commitments: z.array(z.string()),
  recent_carry_forward: z.array(z.string()),
  // Every object is open (looseObject): clients must accept fields a later v1 adds (docs/packet.md).
  people: z.array(z.looseObject({ name: z.string(), description: z.string() })),
  last_session: z
    .looseObject({
      session_id: z.string().nullable(),
      at: z.string(),
      seconds_ago: z.number(),
      human: z.string(),
    })
    .nullable(),
});

export const memoryCatalogSchema = z.looseObject({
  total_count: z.number().int(),
  index_present: z.boolean(),
  category_counts: z.record(z.string(), z.number().int()),
  tag_counts: z.record(z.string(), z.number().int()).optional(),
  skipped_count: z.number().int().optional(),
  project: z
    .looseObject({ id: z.string(), name: z.string(), count: z.number().int() })
    .optional()
    .describe(
      'The project this session works in: its id, its name, and how many of the memories counted are its own (the rest are global). Absent outside a project.',
    ),
  other_projects_count: z
    .number()
    .int()
    .optional()
    .describe(
      'Memories of other projects, left out of every count (recall(all_projects: true) searches them).',
    ),
});

const relevantMemorySchema = z.looseObject({
  name: z.string(),
  type: z.string(),
  description: z.string().describe('One line.'),
});

export const relevantMemoriesSchema = z
  .looseObject({
    instructions: z
      .array(relevantMemorySchema)
      .describe(
        "The instructions and cautions in force (type feedback or caution), this project's first, newest first.",
      ),
    related: z
      .array(relevantMemorySchema)
      .describe(
        'Memories matching the resumption tail and the taskspace, as the last capture found them (not repeating an instruction).',
      ),
  })
  .describe(
    'Names and one-line descriptions, never file names, bounded in size; proposed (review) and superseded memories are never here. Absent when there are none.',
  );

export const guidanceEntrySchema = z.looseObject({
  uri: z.string(),
  name: z.string(),
  directive: z.string(),
});

export const taskspaceSchema = z.looseObject({
  name: z.string(),
  description: z.string(),
  initial_prompt: z.string().nullable(),
});

export const packetShape = {
  resumption: resumptionSchema.nullable(),
  schema_version: z.literal(PACKET_SCHEMA_VERSION),
  required_first_call: z.literal('bootstrap_session'),
  session_id: z.string().nullable(),
  mind_contract: z.string(),
  mind_contract_available: z.boolean(),
  available_mind_tools: z.array(z.string()),
  cognition_protocol: z.array(z.string()),
  context: activeContextSchema,
  memory_catalog: memoryCatalogSchema,
  relevant_memories: relevantMemoriesSchema.optional(),
  guidance: z.array(guidanceEntrySchema).nullable(),
  taskspace: taskspaceSchema.nullable(),
  degraded_mode: z.looseObject({
    mind_contract_available: z.boolean(),
    reasons: z
      .array(z.string())
      .describe('Stable strings a client can match exactly, e.g. "mind contract unavailable".'),
    causes: z
      .record(z.string(), z.string())
      .optional()
      .describe('What caused a reason, keyed by the reason (e.g. the contract file that is missing).'),
  }),
  host_limitations: z.array(z.string()),
  budget: z.looseObject({ chars: z.number().int(), tokens_estimate: z.number().int() }),
  unreflected_surprises: z
    .looseObject({
      count: z.number().int().describe('Observations above the 0.7 stop line that no reflect has cited.'),
      top: z
        .array(z.string())
        .describe('The top few, one line each: tool (error): expected "…", got "…" [event id].'),
    })
    .optional()
    .describe(
      'Offered at the end of earlier sessions: reflect(observation, kind, cites=[event id]) on them.',
    ),
};

export const packetSchema = z.looseObject(packetShape);

export type BootstrapPacket = z.infer<typeof packetSchema>;
export type ActiveContext = z.infer<typeof activeContextSchema>;
export type Resumption = z.infer<typeof resumptionSchema>;
export type GuidanceEntry = z.infer<typeof guidanceEntrySchema>;
export type TaskspaceState = z.infer<typeof taskspaceSchema>;

/**
 * The ten keys every v1 client requires (and every v1 server sends). firstlight always sends
 * its other keys too, but a client checks only these: a packet from another v1 server is valid.
 */
export const CONTRACT_KEYS = [
  'schema_version',
  'required_first_call',
  'mind_contract',
  'mind_contract_available',
  'available_mind_tools',
  'cognition_protocol',
  'context',
  'memory_catalog',
  'degraded_mode',
  'host_limitations',
] as const;

/**
 * The v1 contract a client validates against: the ten keys required, each with the shape the
 * contract gives it (`memory_catalog` its three counts, `degraded_mode` its flag and reasons;
 * `context` an object whose firstlight fields are optional), firstlight's other keys described
 * but optional, and unknown keys allowed everywhere.
 */
export const packetContractSchema = z.looseObject({
  ...packetShape,
  resumption: packetShape.resumption.optional(),
  session_id: packetShape.session_id.optional(),
  context: activeContextSchema.partial(),
  guidance: packetShape.guidance.optional(),
  taskspace: packetShape.taskspace.optional(),
  budget: packetShape.budget.optional(),
});

/** The packet's JSON Schema (draft 2020-12), as shipped in schema/bootstrap-session.v1.json. */
export function packetJsonSchema(): Record<string, unknown> {
  return {
    $id: 'https://firstlight.dev/schema/bootstrap-session.v1.json',
    title: 'firstlight bootstrap_session packet, schema v1',
    ...z.toJSONSchema(packetContractSchema, { target: 'draft-2020-12' }),
  };
}
