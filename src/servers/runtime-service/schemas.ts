import * as z from 'zod';
import { BACKPRESSURE_POLICIES, MODES, VOICES } from '../../runtime/index.js';

/**
 * The runtime service's requests, as zod schemas: every request is validated with these, the
 * MCP tools take the same shapes, and `GET /v1/openapi.json` is generated from them, so the
 * reference cannot drift from what is checked. Field names are those of `invoke --json`.
 */

const serverName = z.string().regex(/^[A-Za-z0-9_-]+$/, 'a server name is letters, digits, _ and -');

/**
 * Task-relevant servers by name: the service starts only those its settings declare
 * (`runtime.service.servers`), so a request names them and may choose their tools; a command
 * line is refused (SERVER_COMMAND_NOT_ALLOWED) before anything starts.
 */
const doorServers = z.union([
  z.array(serverName).max(32),
  z.record(
    serverName,
    z
      .object({
        tools: z
          .array(z.string().min(1))
          .optional()
          .describe('which of its tools to use (globs); default all'),
      })
      .catchall(z.unknown()),
  ),
]);

const message = z.object({ role: z.enum(['user', 'assistant']), content: z.string() }).strict();

/** What one invocation takes, besides its task: shared by `POST /v1/invocations` and `invoke_persona`. */
export const invocationFields = {
  persona: z
    .string()
    .min(1)
    .describe(
      'a profile: NAME, NAME@VERSION, a path, a file: URI, or a URI a runtime source maps (klappy://personas/oddie)',
    ),
  role: z.string().min(1).optional().describe("the role; default the profile's role_default"),
  mode: z.enum(MODES).optional().describe('must match the role (free for general and observer)'),
  surface: z.string().min(1).describe("a surface of the profile's surface_profiles"),
  engagement: z
    .enum(['agent', 'assistant'])
    .describe('agent runs to completion; assistant may yield the turn'),
  voice: z.enum(VOICES).optional(),
  handoffs: z
    .array(z.string().min(1))
    .optional()
    .describe('handoff ids in the ledger (meta.handoff_id); never a file path'),
  override: z
    .record(z.string(), z.unknown())
    .optional()
    .describe(
      'an operator override (operator_collapsed_modes): refused OVERRIDE_NOT_ALLOWED unless runtime.service.allow_override',
    ),
  tools: z.array(z.string().min(1)).optional().describe('tools asked for by name (server__tool)'),
  servers: doorServers
    .optional()
    .describe(
      "task-relevant MCP servers for this invocation, by the names runtime.service.servers declares; classified by the profile's rules",
    ),
  context: z.array(message).optional().describe('prior conversation (refused for a validator)'),
  governance: z.array(z.string().min(1)).optional().describe('governance documents, by pointer'),
  continue: z.string().min(1).optional().describe('an assistant session that yielded the turn'),
  substrate: z.string().min(1).optional().describe('a substrate spec: scripted:FILE, anthropic:MODEL, …'),
};

export const invocationRequest = z
  .object({
    ...invocationFields,
    task: z.string().min(1).optional().describe('the task'),
    tasks: z
      .array(z.string().min(1))
      .min(1)
      .max(1000)
      .optional()
      .describe('within-mode fan-out: one invocation per task, at most `concurrency` at once'),
    concurrency: z.number().int().min(1).max(1000).optional().describe('fan-out width (default 4)'),
  })
  .strict()
  .refine((r) => (r.task === undefined) !== (r.tasks === undefined), {
    message: 'give exactly one of "task" or "tasks"',
    path: ['task'],
  });
export type InvocationBody = z.infer<typeof invocationRequest>;

const channel = z
  .object({
    name: z.string().min(1).describe('the SSE event name its emissions carry'),
    surface: z.string().min(1).optional().describe("a surface of the profile; default the subscription's"),
    voice: z.enum(VOICES).optional(),
    select: z.string().optional().describe('text (default), data, or data.KEY'),
  })
  .strict();

export const subscriptionRequest = z
  .object({
    persona: invocationFields.persona,
    role: z
      .string()
      .min(1)
      .optional()
      .describe('default observer when the profile takes it, else its role_default'),
    mode: invocationFields.mode,
    surface: z.string().min(1).optional().describe("the session's surface; default the first channel's"),
    voice: invocationFields.voice,
    task: z.string().min(1).describe('the standing instruction each interpretation works under'),
    engagement: invocationFields.engagement
      .optional()
      .describe(
        'agent (the default, and the only one a subscribed session takes: assistant is refused engagement_surface)',
      ),
    channels: z.array(channel).max(32).optional().describe('output channels (default one, "emission")'),
    policy: z.enum(BACKPRESSURE_POLICIES).optional().describe('default coalesce'),
    max_pending: z
      .number()
      .int()
      .min(1)
      .max(10_000)
      .optional()
      .describe('events the buffer holds (default 100)'),
    idle_timeout_s: z.number().positive().max(604_800).optional(),
    participants: z
      .array(
        z.union([
          z.string().min(1),
          z.object({ name: z.string().min(1), role: z.string().optional() }).strict(),
        ]),
      )
      .optional(),
    tools: invocationFields.tools,
    servers: invocationFields.servers,
    governance: invocationFields.governance,
    substrate: invocationFields.substrate,
  })
  .strict();
export type SubscriptionBody = z.infer<typeof subscriptionRequest>;

/** The largest event, as JSON: an interpretation reads at most its first 2,000 characters anyway. */
export const MAX_EVENT_BYTES = 16 * 1024;
/** The most events one request may post. */
export const MAX_EVENTS_PER_REQUEST = 1000;

const event = z
  .object({
    participant: z.string().min(1).max(200).optional(),
    type: z.string().max(200).optional(),
    text: z.string().optional(),
    data: z.unknown().optional(),
  })
  .strict()
  .refine((e) => e.text !== undefined || e.data !== undefined, { message: 'an event needs text or data' })
  .refine((e) => JSON.stringify(e).length <= MAX_EVENT_BYTES, {
    message: `an event is at most ${MAX_EVENT_BYTES} bytes of JSON`,
  });

export const eventsRequest = z.union([
  z.object({ events: z.array(event).min(1).max(MAX_EVENTS_PER_REQUEST) }).strict(),
  event,
]);
export type EventsBody = z.infer<typeof eventsRequest>;

export const journalQuery = z
  .object({
    since: z.string().optional().describe('an ISO date or time, or a span back from now: 30m, 2h, 7d'),
    type: z.string().optional().describe('a DOLCHEO letter, a type name, a runtime kind or a facet'),
    session: z.string().optional().describe("only this session's rows"),
    limit: z.coerce.number().int().min(1).max(10_000).optional().describe('the newest N rows (default 1000)'),
  })
  .strict();
export type JournalQueryBody = z.infer<typeof journalQuery>;

export const subscriptionsQuery = z
  .object({
    state: z
      .enum(['open', 'all'])
      .optional()
      .describe('open (the default): the live ones; all: closed ones from the ledger too'),
  })
  .strict();

export const handoffQuery = z.object({ id: z.string().min(1).describe('a handoff id') }).strict();

/** Every error the service answers: a stable code, what happened, and how to fix it. */
export const errorBody = z.object({
  error: z.object({
    code: z.string().describe('a refusal reason (422), or an error code'),
    message: z.string(),
    fix: z.string().optional(),
  }),
});
